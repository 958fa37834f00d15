//! Routing algorithms behind one trait: the routing function *proposes* candidates, the
//! router's allocator *picks* (as in CAMINOS and BookSim's candidate sets).
//!
//! A candidate is an output port, a set of virtual channels it may take there, and a priority.
//! The VC arithmetic of every deadlock-avoidance scheme (datelines, escape channels, phases)
//! lives here, in [`VcSets`], never repeated inside an algorithm.
//!
//! Each algorithm is one file: [`dor`], [`duato`], [`minad`], [`nbc`], [`adaptive`].

pub mod adaptive;
pub mod dor;
pub mod duato;
pub mod minad;
pub mod nbc;

use crate::rng::Rng;
use crate::scenario::{RoutingKind, Scenario};
use crate::topology::{Direction, Node, Port, Torus};

/// The pseudo-port of the ejection channel into the local processing element.
pub const EJECT: Port = u32::MAX;

/// Up to this many candidates per routing decision (2n ports × a few VC classes).
pub const MAX_CANDIDATES: usize = 16;

/// One admissible next hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Output port, or [`EJECT`].
    pub port: Port,
    /// Bit `v` set: virtual channel `v` of that port may be taken.
    pub vcs: u32,
    /// Lower is preferred; among equal priorities the router's selection policy decides.
    pub priority: u8,
}

/// A fixed-capacity candidate list, so routing allocates nothing.
#[derive(Clone, Debug)]
pub struct Candidates {
    items: [Candidate; MAX_CANDIDATES],
    len: usize,
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates { items: [Candidate { port: EJECT, vcs: 0, priority: 0 }; MAX_CANDIDATES], len: 0 }
    }
}

impl Candidates {
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Adds a candidate; one with no permitted VC (possible with `unsafe=1`) is dropped.
    pub fn push(&mut self, port: Port, vcs: u32, priority: u8) {
        if vcs != 0 || port == EJECT {
            self.items[self.len] = Candidate { port, vcs, priority };
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items[..self.len]
    }
}

/// Per-message routing state, fixed at generation by [`Routing::plan`] and updated only by the
/// algorithm itself. Small and `Copy`: it lives in the message table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoutePlan {
    pub dest: Node,
    /// Where the current phase ends: an intermediate node for two-phase algorithms, else `dest`.
    pub target: Node,
    /// Phase of two-phase algorithms (0 towards the intermediate node, 1 towards `dest`).
    pub phase: u8,
    /// Bit `d` set: travel in dimension `d` is in the − direction during this phase.
    pub minus: u8,
    /// Coordinate at which this phase began, per dimension: the reference for datelines.
    pub start: [u8; 3],
    /// Negative-hop escape schemes ([`nbc`]): the escape level the message reaches at its
    /// destination, its bonus-card start level plus the negative hops of its route. Its level at
    /// a node is this minus the negative hops still ahead.
    pub final_escape_level: u8,
}

impl RoutePlan {
    pub fn direction(&self, dim: u32) -> Direction {
        if self.minus >> dim & 1 == 1 {
            Direction::Minus
        } else {
            Direction::Plus
        }
    }

    /// A plan heading for `target` from `from` along the given directions.
    pub fn towards(t: &Torus, from: Node, target: Node, dest: Node, minus: u8, phase: u8) -> RoutePlan {
        let mut start = [0u8; 3];
        for d in 0..t.n {
            start[d as usize] = t.coordinate(from, d) as u8;
        }
        RoutePlan { dest, target, phase, minus, start, final_escape_level: 0 }
    }

    /// Hops still to go along `dim` in this phase.
    pub fn remaining(&self, t: &Torus, at: Node, dim: u32) -> u32 {
        t.hops_in_direction(at, self.target, dim, self.direction(dim))
    }

    /// Whether the message has crossed the wrap-around link of `dim` in this phase.
    pub fn wrapped(&self, t: &Torus, at: Node, dim: u32) -> bool {
        t.has_wrapped(at, dim, self.direction(dim), self.start[dim as usize] as u32)
    }
}

/// Minimal directions from `from` to `to`: bit d set for −; a tie (offset exactly k/2) is broken
/// uniformly at random, as BookSim's `dim_order_torus` does and `models/bounds.md` assumes.
pub fn minimal_directions(t: &Torus, from: Node, to: Node, rng: &mut Rng) -> u8 {
    let mut minus = 0u8;
    for d in 0..t.n {
        let o = t.offset(from, to, d);
        let go_minus = match (2 * o).cmp(&t.k) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => rng.below(2) == 1,
        };
        if go_minus {
            minus |= 1 << d;
        }
    }
    minus
}

/// Named groups of virtual channels: the one place where VC classes become VC indices.
#[derive(Clone, Copy, Debug)]
pub struct VcSets {
    pub vcs: u32,
}

impl VcSets {
    /// Mask of VCs `lo..hi`.
    fn range(lo: u32, hi: u32) -> u32 {
        if hi <= lo {
            0
        } else {
            (((1u64 << (hi - lo)) - 1) << lo) as u32
        }
    }

    /// Group `i` of `parts` equal consecutive groups. With fewer VCs than groups (only under
    /// `unsafe=1`) groups share VCs, which is what makes the deadlock demonstrations possible.
    pub fn group(&self, i: u32, parts: u32) -> u32 {
        let (lo, hi) = (i * self.vcs / parts, (i + 1) * self.vcs / parts);
        if hi > lo {
            Self::range(lo, hi)
        } else {
            1 << lo.min(self.vcs - 1)
        }
    }

    /// Escape class `wrapped` (0 before the dateline, 1 after) of the two escape VCs 0 and 1.
    pub fn escape(&self, wrapped: bool) -> u32 {
        1 << (wrapped as u32).min(self.vcs - 1)
    }

    /// Every VC above the two escape VCs: the fully adaptive ones.
    pub fn adaptive(&self) -> u32 {
        Self::range(2, self.vcs)
    }

    /// Escape level `level` of a negative-hop scheme: the levels are the lowest VCs, level `l`
    /// on VC `l` (a level beyond the VCs, only under `unsafe=1`, shares the top VC).
    pub fn negative_hop_level(&self, level: u32) -> u32 {
        1 << level.min(self.vcs - 1)
    }

    /// Every VC above `levels` negative-hop escape levels: the fully adaptive ones of Duato-Nbc.
    pub fn above_negative_hop_levels(&self, levels: u32) -> u32 {
        Self::range(levels, self.vcs)
    }

    pub fn all(&self) -> u32 {
        Self::range(0, self.vcs)
    }
}

/// A routing algorithm.
pub trait Routing {
    /// Once per message at generation: the oblivious choices (directions, intermediate node).
    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut Rng) -> RoutePlan;
    /// Each time a header waits at a router: the admissible next hops. `plan` may be updated
    /// (a two-phase algorithm switches phase at its intermediate node).
    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates);
    /// VCs that may be given to a new message only once empty (atomic reallocation). Duato's
    /// theory needs it for adaptive VCs: a message queued behind another in an adaptive VC
    /// could not reach an escape VC. Other VCs are reallocated as soon as the previous tail has
    /// been sent, and the next message queues behind it.
    fn atomic_vcs(&self) -> u32 {
        0
    }
}

/// The dimension-order escape hop from `at` under `plan`: the lowest dimension with hops left,
/// on its dateline class. `None` at the phase target.
pub fn dimension_order_hop(t: &Torus, at: Node, plan: &RoutePlan) -> Option<(Port, bool)> {
    (0..t.n)
        .find(|&d| plan.remaining(t, at, d) > 0)
        .map(|d| (plan.direction(d).port(d), plan.wrapped(t, at, d)))
}

/// Builds the algorithm a scenario names.
pub fn build(s: &Scenario) -> Box<dyn Routing> {
    let sets = VcSets { vcs: s.vcs };
    match s.routing {
        RoutingKind::Dor => Box::new(dor::Dor { sets }),
        RoutingKind::Duato => Box::new(duato::Duato { sets }),
        RoutingKind::Minad => Box::new(minad::MinAd { sets }),
        RoutingKind::Nbc => Box::new(nbc::Nbc::new(sets, s.k, s.n)),
        RoutingKind::Adaptive => Box::new(adaptive::Adaptive { sets }),
        other => unreachable!("routing={other} is rejected by support::check_supported"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vc_groups_partition_and_degrade() {
        let four = VcSets { vcs: 4 };
        assert_eq!([four.group(0, 2), four.group(1, 2)], [0b0011, 0b1100]);
        assert_eq!((0..4).map(|i| four.group(i, 4)).collect::<Vec<_>>(), [1, 2, 4, 8]);
        let three = VcSets { vcs: 3 };
        assert_eq!([three.group(0, 2), three.group(1, 2)], [0b001, 0b110]);
        assert_eq!([three.escape(false), three.escape(true), three.adaptive()], [1, 2, 4]);
        let one = VcSets { vcs: 1 };
        assert_eq!([one.group(0, 2), one.group(1, 2), one.escape(true), one.adaptive()], [1, 1, 1, 0]);
        let ten = VcSets { vcs: 10 };
        assert_eq!([ten.negative_hop_level(0), ten.negative_hop_level(4), ten.above_negative_hop_levels(5)], [1, 16, 0b11_1110_0000]);
        assert_eq!([three.negative_hop_level(4), three.above_negative_hop_levels(3)], [4, 0]);
    }

    #[test]
    fn minimal_directions_take_the_short_way() {
        let t = Torus::new(8, 2);
        let mut rng = Rng::new(1, crate::rng::Stream::Routing);
        // (0,0) → (5,2): x offset 5 > 4 goes −, y offset 2 goes +.
        assert_eq!(minimal_directions(&t, 0, t.node_at(&[5, 2]), &mut rng), 0b01);
        // Ties (offset 4) split both ways over many draws.
        let minus = (0..1000).filter(|_| minimal_directions(&t, 0, t.node_at(&[4, 0]), &mut rng) & 1 == 1).count();
        assert!((400..600).contains(&minus), "{minus}");
    }
}
