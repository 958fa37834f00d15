//! The arrival calendar: which nodes generate messages in each cycle.
//!
//! Each node has one pending arrival, the cycle of its next Poisson arrival. The cycles of the
//! next [`WHEEL`] cycles each have a bit per node (a timing wheel), so a cycle's arrivals come
//! out in ascending node order by scanning set bits, at the cost of a few instructions per
//! arrival and none per idle node; a summary bit per 64 nodes keeps that true on large
//! networks at low load. Arrivals further ahead wait in a binary heap and move onto the wheel
//! when their cycle comes within reach. Either way a cycle's arrivals are visited in ascending
//! node order, which is the order the traffic random stream is drawn in.

use crate::topology::Node;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Cycles covered by the wheel. At 0.05 messages/node/cycle about 4% of gaps are longer.
pub const WHEEL: u64 = 64;
/// A cycle too far to ever come (a zero rate's infinite gap).
const NEVER: u64 = (1 << 47) - 1;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Calendar {
    /// `WHEEL` rows of `words` words: bit `u % 64` of word `u / 64` of row `c % WHEEL` is set
    /// when node `u` has an arrival in cycle `c`.
    wheel: Vec<u64>,
    words: usize,
    /// Per row, bit `w` set while word `w` of that row is non-zero.
    summary: Vec<u64>,
    summary_words: usize,
    /// Arrivals at least `WHEEL` cycles ahead when scheduled, as `cycle · 2¹⁶ + node`.
    far: BinaryHeap<Reverse<u64>>,
}

impl Calendar {
    pub fn new(nodes: u32) -> Calendar {
        assert!(nodes <= 1 << 16, "calendar keys hold a 16-bit node");
        let words = (nodes as usize).div_ceil(64);
        let summary_words = words.div_ceil(64);
        Calendar {
            wheel: vec![0; WHEEL as usize * words],
            words,
            summary: vec![0; WHEEL as usize * summary_words],
            summary_words,
            far: BinaryHeap::new(),
        }
    }

    /// Node `u`'s next arrival is at time `t` (the first cycle `c` with `t < c + 1`), which is
    /// no earlier than the current cycle `now`.
    pub fn schedule(&mut self, u: Node, t: f64, now: u64) {
        let cycle = (t as u64).min(NEVER);
        debug_assert!(
            cycle >= now,
            "node {u}'s arrival at {t} is before cycle {now}"
        );
        if cycle - now < WHEEL {
            self.put_on_wheel(u, cycle);
        } else {
            self.far.push(Reverse(cycle << 16 | u as u64));
        }
    }

    fn put_on_wheel(&mut self, u: Node, cycle: u64) {
        let row = (cycle % WHEEL) as usize;
        let w = u as usize / 64;
        self.wheel[row * self.words + w] |= 1 << (u % 64);
        self.summary[row * self.summary_words + w / 64] |= 1 << (w % 64);
    }

    /// Appends the nodes with an arrival in cycle `now` to `due`, in ascending order, and
    /// forgets them (each is scheduled again once its arrivals are generated).
    pub fn take_due(&mut self, now: u64, due: &mut Vec<Node>) {
        while let Some(&Reverse(key)) = self.far.peek() {
            if key >> 16 >= now + WHEEL {
                break;
            }
            self.far.pop();
            self.put_on_wheel((key & 0xffff) as Node, key >> 16);
        }
        let row = (now % WHEEL) as usize;
        for s in 0..self.summary_words {
            let mut summary = std::mem::take(&mut self.summary[row * self.summary_words + s]);
            while summary != 0 {
                let w = s * 64 + summary.trailing_zeros() as usize;
                summary &= summary - 1;
                let mut bits = std::mem::take(&mut self.wheel[row * self.words + w]);
                while bits != 0 {
                    due.push((w * 64) as Node + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the calendar for `cycles`, rescheduling each due node with `next`; returns every
    /// (cycle, node) taken, in the order taken.
    fn run(
        nodes: u32,
        cycles: u64,
        first: &[f64],
        mut next: impl FnMut(Node, u64) -> f64,
    ) -> Vec<(u64, Node)> {
        let mut c = Calendar::new(nodes);
        for (u, &t) in first.iter().enumerate() {
            c.schedule(u as Node, t, 0);
        }
        let mut taken = vec![];
        let mut due = vec![];
        for now in 0..cycles {
            due.clear();
            c.take_due(now, &mut due);
            for &u in &due {
                taken.push((now, u));
                c.schedule(u, next(u, now), now + 1);
            }
        }
        taken
    }

    #[test]
    fn each_cycle_gives_its_nodes_in_ascending_order_near_and_far() {
        // 200 nodes (4 words): node u arrives every (u % 7) * 30 + 1 cycles, so gaps run from 1
        // to 181 cycles, many past the wheel.
        let nodes = 200;
        let period = |u: Node| ((u % 7) * 30 + 1) as u64;
        let first: Vec<f64> = (0..nodes).map(|u| (u % 5) as f64 + 0.5).collect();
        let taken = run(nodes, 1000, &first, |u, now| {
            (now + period(u)) as f64 + 0.25
        });
        let mut expected = vec![];
        for now in 0..1000u64 {
            for u in 0..nodes {
                let start = (u % 5) as u64;
                if now >= start && (now - start) % period(u) == 0 {
                    expected.push((now, u));
                }
            }
        }
        assert_eq!(taken, expected);
    }

    #[test]
    fn never_is_never_taken() {
        let taken = run(3, 500, &[0.2, f64::INFINITY, 3.9], |_, now| {
            (now + 100) as f64
        });
        assert!(taken.iter().all(|&(_, u)| u != 1));
        assert_eq!(
            taken
                .iter()
                .filter(|&&(_, u)| u == 0)
                .map(|&(c, _)| c)
                .collect::<Vec<_>>(),
            [0, 100, 200, 300, 400]
        );
    }

    #[test]
    fn large_networks_find_sparse_arrivals() {
        // 65 536 nodes, three arrivals far apart in the node order.
        let mut c = Calendar::new(1 << 16);
        c.schedule(65_535, 10.0, 0);
        c.schedule(3, 10.7, 0);
        c.schedule(40_000, 500.0, 0);
        let mut due = vec![];
        for now in 0..=500 {
            c.take_due(now, &mut due);
            if now == 10 {
                assert_eq!(due, [3, 65_535]);
                due.clear();
            }
        }
        assert_eq!(due, [40_000]);
    }
}
