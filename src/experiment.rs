//! Many runs of one scenario: load sweeps, replications and the saturation search.
//! Runs are independent and single-threaded (so each stays deterministic); a batch of them
//! runs on [`threads`] worker threads. Every result is assembled in the order of the jobs, never
//! in the order they finish, and no search depends on how many threads there are: the thread
//! count changes only the wall time.

use crate::scenario::Scenario;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub mod coverage;
pub mod faults;
pub mod jobs;
pub mod replication;
pub mod saturation;

pub use jobs::{CurvePoint, CurveRuns, Job, Local, Outcome, Runner};
pub use replication::{replicate, sweep_replicated, AcrossSeeds, Replicated};
pub use saturation::{
    replicated_saturation, replicated_search_jobs, saturation, search, search_on, search_replicated, Criterion, ReplicatedSaturation, Saturation,
    SearchOptions,
};

/// Worker threads set by [`set_threads`]; 0 until then (one per core).
static THREADS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Set inside a worker of [`parallel_map`], whose own batches then run in that worker.
    static IN_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Sets the worker threads of every later batch (the CLI's `--threads N`).
pub fn set_threads(n: usize) {
    THREADS.store(n.max(1), Ordering::Relaxed);
}

/// Worker threads for a batch of independent runs: as set by [`set_threads`], else one per core.
pub fn threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Runs `job` on every item on [`threads`] threads; results come back in the items' order.
/// Called from inside a job, it runs the items one after another in that job's thread, so that
/// the threads never multiply.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if IN_WORKER.with(Cell::get) || threads() < 2 || items.len() < 2 {
        return items.iter().map(job).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads().min(items.len()) {
            scope.spawn(|| {
                IN_WORKER.with(|w| w.set(true));
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    let r = job(&items[i]);
                    results.lock().expect("a worker panicked")[i] = Some(r);
                }
            });
        }
    });
    results.into_inner().expect("a worker panicked").into_iter().map(|r| r.expect("every item ran")).collect()
}

/// `n` rates evenly spaced from `a` to `b` inclusive.
pub fn rate_grid(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![a];
    }
    (0..n).map(|i| a + (b - a) * i as f64 / (n - 1) as f64).collect()
}

/// The scenario at another rate.
pub fn at_rate(s: &Scenario, rate: f64) -> Scenario {
    Scenario { rate, ..s.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_map_keeps_the_order_and_runs_a_batch_within_a_job_in_its_thread() {
        set_threads(3);
        let items: Vec<u32> = (0..20).collect();
        let results = parallel_map(&items, |&i| {
            let me = std::thread::current().id();
            let nested = parallel_map(&[1u32, 2, 3], |&j| (10 * i + j, std::thread::current().id()));
            (i, me, nested)
        });
        assert_eq!(results.iter().map(|r| r.0).collect::<Vec<_>>(), items);
        for (i, me, nested) in &results {
            assert_eq!(nested.iter().map(|n| n.0).collect::<Vec<_>>(), [10 * i + 1, 10 * i + 2, 10 * i + 3]);
            assert!(nested.iter().all(|n| n.1 == *me), "job {i}: a nested batch stays in its worker");
        }
        let workers: std::collections::BTreeSet<_> = results.iter().map(|r| format!("{:?}", r.1)).collect();
        assert!(workers.len() <= 3, "at most the threads set: {workers:?}");
    }
}
