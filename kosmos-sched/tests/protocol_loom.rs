//! Model checks (loom) of the claim and signal protocol that `Sched` emits, written with
//! the same orderings as the IR: ticket claims are relaxed adds, `claim_if_ready` is an
//! acquire load of the readiness counter followed by a relaxed CAS of the head, signals are
//! release adds after the task's writes, waits are acquire loads. Loom explores every
//! interleaving (and every weak-memory outcome it models) of these small configurations.
//! The team barrier is modelled the same way (acq_rel arrival, relaxed reset of the count,
//! release bump of the generation, acquire polls), and so is the end of a launch without a
//! wait (acq_rel departure, relaxed reset). The mutants (a relaxed signal, a claim that does
//! not look at readiness, a relaxed generation bump, a relaxed departure) must fail.

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicU32, Ordering};
use loom::thread;

/// `Sched::claim`: a ticket, or `None` when the queue is empty.
fn claim(head: &AtomicU32, len: u32) -> Option<u32> {
    if head.load(Ordering::Relaxed) >= len {
        return None;
    }
    let t = head.fetch_add(1, Ordering::Relaxed);
    (t < len).then_some(t)
}

/// `Sched::claim_if_ready`; `check_ready: false` is the mutant that claims blindly.
fn claim_if_ready(
    head: &AtomicU32,
    len: u32,
    counter: &AtomicU32,
    expected: impl Fn(u32) -> u32,
    check_ready: bool,
) -> Option<u32> {
    let h = head.load(Ordering::Relaxed);
    if h >= len {
        return None;
    }
    if check_ready && counter.load(Ordering::Acquire) < expected(h) {
        return None;
    }
    head.compare_exchange(h, h + 1, Ordering::Relaxed, Ordering::Relaxed)
        .ok()
        .map(|_| h)
}

/// Loom with a preemption bound of 3: every interleaving with up to 3 forced switches,
/// which covers these protocols (each races at most two claims and a signal) in seconds.
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

/// `Sched::wait`, with loom's yield as the back-off.
fn wait(counter: &AtomicU32, expected: u32) {
    while counter.load(Ordering::Acquire) < expected {
        thread::yield_now();
    }
}

#[test]
fn claim_tickets_are_unique_and_cover_the_queue() {
    model(|| {
        let head = Arc::new(AtomicU32::new(0));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let head = head.clone();
                thread::spawn(move || {
                    let mut mine = Vec::new();
                    while let Some(t) = claim(&head, 2) {
                        mine.push(t);
                    }
                    mine
                })
            })
            .collect();
        let mut all: Vec<u32> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        all.sort_unstable();
        assert_eq!(all, [0, 1]);
    });
}

/// A producer writes a chunk and signals; a consumer waits and reads it.
fn signal_then_wait(signal: Ordering) {
    model(move || {
        let data = Arc::new(UnsafeCell::new(0u32));
        let counter = Arc::new(AtomicU32::new(0));
        let producer = {
            let (data, counter) = (data.clone(), counter.clone());
            thread::spawn(move || {
                data.with_mut(|p| unsafe { *p = 42 });
                counter.fetch_add(1, signal);
            })
        };
        wait(&counter, 1);
        let seen = data.with(|p| unsafe { *p });
        assert_eq!(seen, 42);
        producer.join().unwrap();
    });
}

#[test]
fn signal_happens_before_the_wait_that_sees_it() {
    signal_then_wait(Ordering::Release);
}

#[test]
#[should_panic]
fn a_relaxed_signal_is_caught() {
    signal_then_wait(Ordering::Relaxed);
}

/// Two compute tasks: task 0 is local (ready at once), task 1 needs the producer's chunk.
/// Two workgroups claim until the queue is drained; whoever gets task 1 reads the chunk.
fn claim_if_ready_model(check_ready: bool) {
    model(move || {
        let data = Arc::new(UnsafeCell::new(0u32));
        let counter = Arc::new(AtomicU32::new(0));
        let head = Arc::new(AtomicU32::new(0));
        let producer = {
            let (data, counter) = (data.clone(), counter.clone());
            thread::spawn(move || {
                data.with_mut(|p| unsafe { *p = 7 });
                counter.fetch_add(1, Ordering::Release);
            })
        };
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let (data, counter, head) = (data.clone(), counter.clone(), head.clone());
                thread::spawn(move || {
                    let mut got = Vec::new();
                    // Bounded retries keep the model finite; a real workgroup would wait.
                    for _ in 0..2 {
                        match claim_if_ready(&head, 2, &counter, |t| t, check_ready) {
                            Some(1) => {
                                assert_eq!(counter.load(Ordering::Relaxed), 1, "claimed early");
                                assert_eq!(data.with(|p| unsafe { *p }), 7);
                                got.push(1);
                            }
                            Some(t) => got.push(t),
                            None if head.load(Ordering::Relaxed) >= 2 => break,
                            None => thread::yield_now(),
                        }
                    }
                    got
                })
            })
            .collect();
        let mut all: Vec<u32> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        producer.join().unwrap();
        all.sort_unstable();
        assert!(
            all.windows(2).all(|w| w[0] != w[1]),
            "a task handed out twice: {all:?}"
        );
    });
}

#[test]
fn claim_if_ready_never_hands_out_a_task_before_it_is_ready() {
    claim_if_ready_model(true);
}

#[test]
#[should_panic]
fn a_claim_that_ignores_readiness_is_caught() {
    claim_if_ready_model(false);
}

/// `Sched::team_barrier` for `parties` workgroups on the count and generation words; `bump`
/// is the ordering of the last arriver's generation increment (release; relaxed is the
/// mutant).
fn team_barrier(count: &AtomicU32, generation: &AtomicU32, parties: u32, bump: Ordering) {
    let before = generation.load(Ordering::Relaxed);
    if count.fetch_add(1, Ordering::AcqRel) + 1 == parties {
        count.store(0, Ordering::Relaxed);
        generation.fetch_add(1, bump);
    } else {
        while generation.load(Ordering::Acquire) == before {
            thread::yield_now();
        }
    }
}

/// Two workgroups pass the barrier twice: each writes its cell of round 0, passes, reads
/// the other's (it must be written) and writes its cell of round 1, passes again (the
/// count must have been reset for this to complete), and reads the other's round-1 cell.
fn barrier_twice(bump: Ordering) {
    model(move || {
        let cells: Arc<[[UnsafeCell<u32>; 2]; 2]> = Arc::new(Default::default());
        let count = Arc::new(AtomicU32::new(0));
        let generation = Arc::new(AtomicU32::new(0));
        let party = move |me: usize| {
            let (cells, count, generation) = (cells.clone(), count.clone(), generation.clone());
            move || {
                for round in 0..2 {
                    cells[round][me].with_mut(|p| unsafe { *p = 1 + me as u32 });
                    team_barrier(&count, &generation, 2, bump);
                    let theirs = cells[round][1 - me].with(|p| unsafe { *p });
                    assert_eq!(theirs, 2 - me as u32, "round {round}");
                }
            }
        };
        let other = thread::spawn(party(1));
        party(0)();
        other.join().unwrap();
    });
}

#[test]
fn the_team_barrier_orders_both_rounds_and_resets_itself() {
    barrier_twice(Ordering::Release);
}

#[test]
#[should_panic]
fn a_relaxed_generation_bump_is_caught() {
    barrier_twice(Ordering::Relaxed);
}

/// `Sched::team_last_out` for `parties` workgroups on the departures word: whether this one
/// left last. `depart` is the ordering of the departure (acq_rel; relaxed is the mutant).
fn team_last_out(departures: &AtomicU32, parties: u32, depart: Ordering) -> bool {
    let last = departures.fetch_add(1, depart) + 1 == parties;
    if last {
        departures.store(0, Ordering::Relaxed);
    }
    last
}

/// Two launches of three workgroups (the second after the first has ended, as stream order
/// has it): each writes its cell and leaves; the one that left last, exactly one a launch,
/// reads every cell (each must be written) and zeroes them for the next launch.
fn last_out_twice(depart: Ordering) {
    model(move || {
        let cells: Arc<[UnsafeCell<u32>; 3]> = Arc::new(Default::default());
        let departures = Arc::new(AtomicU32::new(0));
        for launch in 1..=2u32 {
            let party = |me: usize| {
                let (cells, departures) = (cells.clone(), departures.clone());
                move || {
                    cells[me].with_mut(|p| unsafe { *p = launch });
                    if !team_last_out(&departures, 3, depart) {
                        return false;
                    }
                    for (i, cell) in cells.iter().enumerate() {
                        let seen = cell.with_mut(|p| unsafe { std::mem::take(&mut *p) });
                        assert_eq!(seen, launch, "launch {launch}: workgroup {i}'s cell");
                    }
                    true
                }
            };
            let others = [thread::spawn(party(1)), thread::spawn(party(2))];
            let mut lasts = u32::from(party(0)());
            for o in others {
                lasts += u32::from(o.join().unwrap());
            }
            assert_eq!(lasts, 1, "launch {launch}: one workgroup leaves last");
        }
    });
}

#[test]
fn the_last_workgroup_out_sees_every_write_and_resets_the_count() {
    last_out_twice(Ordering::AcqRel);
}

#[test]
#[should_panic]
fn a_relaxed_departure_is_caught() {
    last_out_twice(Ordering::Relaxed);
}
