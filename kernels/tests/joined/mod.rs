//! Joined worlds (`World::join`) of threads standing in for processes, on one CPU device
//! (whose memory is its process's), with an exchange through shared memory in place of
//! `torch.distributed`.

use kosmos::runtime::{Device, Exchange, World, WorldOptions};
use std::sync::{Arc, Condvar, Mutex};

/// Every rank's message of each exchange so far (`None`: not put yet).
type Boards = Vec<Vec<Option<Vec<u8>>>>;

/// An all-gather between the threads of one test: message `c` of every rank in board
/// `c`, read once all ranks have put theirs.
#[derive(Clone)]
pub struct Board {
    ranks: usize,
    shared: Arc<(Mutex<Boards>, Condvar)>,
}

impl Board {
    pub fn new(ranks: usize) -> Board {
        Board {
            ranks,
            shared: Arc::default(),
        }
    }

    /// The exchange of rank `rank`.
    pub fn exchange(&self, rank: usize) -> impl Exchange + 'static {
        let board = self.clone();
        let mut call = 0;
        move |mine: Vec<u8>| {
            let (lock, ready) = &*board.shared;
            let mut boards = lock.lock().unwrap();
            if boards.len() <= call {
                boards.resize(call + 1, vec![None; board.ranks]);
            }
            boards[call][rank] = Some(mine);
            ready.notify_all();
            let all = loop {
                if boards[call].iter().all(Option::is_some) {
                    break boards[call].iter().flatten().cloned().collect();
                }
                boards = ready.wait(boards).unwrap();
            };
            call += 1;
            Ok(all)
        }
    }
}

/// Runs `body(rank, world)` on `ranks` threads, each joined to one world on `device` (and
/// leaving it after); returns their results by rank.
pub fn joined<R: Send + 'static>(
    device: &Device,
    ranks: u32,
    options: WorldOptions,
    body: impl Fn(u32, &mut World) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let board = Board::new(ranks as usize);
    let body = Arc::new(body);
    let threads: Vec<_> = (0..ranks)
        .map(|rank| {
            let (device, exchange, body) =
                (device.clone(), board.exchange(rank as usize), body.clone());
            std::thread::spawn(move || {
                let mut world = World::join(&device, rank, ranks, exchange, options).unwrap();
                let result = body(rank, &mut world);
                world.leave().unwrap();
                result
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}
