//! Checks of structured control flow: `if`, `for`, `loop`, `yield`, `break`.

use super::*;

impl<'k> Verifier<'k> {
    // ---- control flow ----

    pub(super) fn types_of(&self, values: &[Value]) -> Vec<Option<Type>> {
        values.iter().map(|v| self.ty(*v)).collect()
    }

    pub(super) fn result_types_well_formed(&mut self, at: Site, types: &[Type]) {
        for &t in types {
            self.well_formed(at, t, "a result");
        }
    }

    pub(super) fn if_(
        &mut self,
        at: Site,
        cond: Value,
        then_region: &'k Region,
        else_region: &'k Region,
        result_types: &'k [Type],
    ) {
        if let Some(t) = self.ty(cond)
            && t != Type::I1
        {
            self.error(
                at,
                VerifyErrorKind::IfCondition,
                format!("the condition {} must be i1", self.describe(cond)),
            );
        }
        self.result_types_well_formed(at, result_types);
        for (region, what) in [
            (then_region, "the then region"),
            (else_region, "the else region"),
        ] {
            self.region(at, what, region, Construct::If { result_types }, &[]);
        }
    }

    pub(super) fn for_(&mut self, at: Site, bounds: [Value; 3], inits: &[Value], body: &'k Region) {
        let iv = self.same_type(at, &bounds);
        if let Some(t) = iv
            && !t.scalar().is_some_and(|s| s.is_int() && !s.is_bool())
        {
            self.error(
                at,
                VerifyErrorKind::ForBounds,
                format!("bounds and step must be integers other than i1, not {t}"),
            );
        }
        let carried = self.types_of(inits);
        let mut expected = vec![iv.or_else(|| self.ty(bounds[0]))];
        expected.extend(carried.iter().copied());
        self.region(at, "the body", body, Construct::For { carried }, &expected);
    }

    pub(super) fn loop_(
        &mut self,
        at: Site,
        inits: &[Value],
        body: &'k Region,
        result_types: &'k [Type],
    ) {
        self.result_types_well_formed(at, result_types);
        let carried = self.types_of(inits);
        let expected = carried.clone();
        self.region(
            at,
            "the body",
            body,
            Construct::Loop {
                carried,
                result_types,
            },
            &expected,
        );
    }

    /// Whether `values` have the `expected` types (unknown types match anything).
    pub(super) fn values_match(&self, values: &[Value], expected: &[Option<Type>]) -> bool {
        values.len() == expected.len()
            && values
                .iter()
                .zip(expected)
                .all(|(v, e)| match (self.ty(*v), e) {
                    (Some(a), Some(b)) => a == *b,
                    _ => true,
                })
    }

    pub(super) fn yield_(&mut self, at: Site, values: &[Value]) {
        let expected: Vec<Option<Type>> = match self.scopes.last().map(|s| &s.construct) {
            Some(Construct::If { result_types }) => {
                result_types.iter().copied().map(Some).collect()
            }
            Some(Construct::For { carried } | Construct::Loop { carried, .. }) => carried.clone(),
            Some(Construct::Body) | None => {
                self.error(
                    at,
                    VerifyErrorKind::MisplacedYield,
                    "ends a region of if, for or loop; the kernel body ends with `return` or \
                     nothing"
                        .to_string(),
                );
                return;
            }
        };
        if !self.values_match(values, &expected) {
            self.error(
                at,
                VerifyErrorKind::YieldMismatch,
                format!(
                    "yields {}, the enclosing construct expects {}",
                    list_types(&self.types_of(values)),
                    list_types(&expected)
                ),
            );
        }
    }

    pub(super) fn break_(&mut self, at: Site, values: &[Value]) {
        let mut target = None;
        for scope in self.scopes.iter().rev() {
            match &scope.construct {
                Construct::If { .. } => continue,
                Construct::Loop { result_types, .. } => target = Some(Ok(*result_types)),
                // Leaving the for early would leave it without its results.
                Construct::For { .. } => target = Some(Err(())),
                Construct::Body => {}
            }
            break;
        }
        let result_types = match target {
            Some(Ok(types)) => types,
            Some(Err(())) => {
                self.error(
                    at,
                    VerifyErrorKind::BreakInsideFor,
                    "cannot leave a `for` (it would have no results); use a `loop`".to_string(),
                );
                return;
            }
            None => {
                self.error(
                    at,
                    VerifyErrorKind::BreakOutsideLoop,
                    "outside any `loop`".to_string(),
                );
                return;
            }
        };
        let expected: Vec<Option<Type>> = result_types.iter().copied().map(Some).collect();
        if !self.values_match(values, &expected) {
            self.error(
                at,
                VerifyErrorKind::BreakMismatch,
                format!(
                    "breaks with {}, the loop's results are {}",
                    list_types(&self.types_of(values)),
                    list_types(&expected)
                ),
            );
        }
    }
}
