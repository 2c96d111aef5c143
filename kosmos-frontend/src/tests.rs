//! Unit tests: lowering results run through the verifier and are printed; errors are
//! checked by message.
