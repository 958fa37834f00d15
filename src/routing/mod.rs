//! Routing algorithms behind one trait: the routing function *proposes* candidates, the
//! router's allocator *picks* (as in CAMINOS and BookSim's candidate sets).
//!
//! A candidate is an output port, a set of virtual channels it may take there, and a priority.
//! The VC arithmetic of every deadlock-avoidance scheme (datelines, escape channels, phases)
//! lives here, in [`VcSets`], never repeated inside an algorithm.
//!
//! Each algorithm is one file: [`dor`], [`duato`], [`minad`], [`goal`], [`val`], [`romm`],
//! [`rlb`], [`nbc`], [`adaptive`], [`chaos`].

pub mod adaptive;
pub mod chaos;
pub mod dor;
pub mod duato;
pub mod goal;
pub mod minad;
pub mod nbc;
pub mod rlb;
pub mod romm;
pub mod val;

use crate::rng::{Draw, Rng};
use crate::scenario::{RoutingKind, Scenario};
use crate::topology::{Direction, Node, Port, Torus};
use serde::Serialize;

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
    #[inline(always)]
    pub fn push(&mut self, port: Port, vcs: u32, priority: u8) {
        if vcs != 0 || port == EJECT {
            self.items[self.len] = Candidate { port, vcs, priority };
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items[..self.len]
    }
    /// Keeps the candidates `keep` accepts, in order.
    pub fn retain(&mut self, keep: impl Fn(&Candidate) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            if keep(&self.items[i]) {
                self.items[kept] = self.items[i];
                kept += 1;
            }
        }
        self.len = kept;
    }
}

/// An order in which to travel the (at most 3) dimensions, two bits per position: bits
/// `2i..2i+2` hold the dimension travelled `i`-th. The default is ascending (x first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct DimensionOrder(u8);

impl DimensionOrder {
    pub const ASCENDING: DimensionOrder = DimensionOrder(0b10_01_00);

    /// Each of the n! orders of the first `n` dimensions with equal probability (Fisher–Yates).
    pub fn random(n: u32, rng: &mut impl Draw) -> DimensionOrder {
        let mut dims = [0u8, 1, 2];
        for i in (1..n as usize).rev() {
            dims.swap(i, rng.below(i as u32 + 1) as usize);
        }
        DimensionOrder(dims[0] | dims[1] << 2 | dims[2] << 4)
    }

    /// The first `n` dimensions in this order.
    pub fn dims(self, n: u32) -> impl Iterator<Item = u32> {
        (0..n).map(move |i| (self.0 >> (2 * i) & 0b11) as u32)
    }
}

impl Default for DimensionOrder {
    fn default() -> Self {
        DimensionOrder::ASCENDING
    }
}

/// Per-message routing state, fixed at generation by [`Routing::plan`] and updated only by the
/// algorithm itself. Small and `Copy`: it lives in the message table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RoutePlan {
    pub dest: Node,
    /// Where the current phase ends: an intermediate node for two-phase algorithms, else `dest`.
    pub target: Node,
    /// Phase of two-phase algorithms (0 towards the intermediate node, 1 towards `dest`).
    pub phase: u8,
    /// Bit `d` set: travel in dimension `d` is in the − direction during this phase.
    pub minus: u8,
    /// `minus` of phase 1, drawn at generation with the rest of the plan because routing at a
    /// hop has no random source (Valiant's second phase breaks its own ties).
    pub next_minus: u8,
    /// Coordinate at which this phase began, per dimension: the reference for datelines (RLB
    /// keeps the source's through both phases, see [`rlb`]).
    pub start: [u8; 3],
    /// Dimension order of each phase, for [`dimension_order_hop`].
    pub orders: [DimensionOrder; 2],
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
        RoutePlan {
            dest,
            target,
            phase,
            minus,
            next_minus: minus,
            start: coordinates(t, from),
            orders: [DimensionOrder::ASCENDING; 2],
            final_escape_level: 0,
        }
    }

    /// A two-phase plan: from `src` to the intermediate node `via` along `minus`, then on to
    /// `dest` along `next_minus`.
    pub fn via(t: &Torus, src: Node, via: Node, dest: Node, minus: u8, next_minus: u8) -> RoutePlan {
        RoutePlan { next_minus, ..RoutePlan::towards(t, src, via, dest, minus, 0) }
    }

    /// At the intermediate node `at`: head for `dest` along `next_minus`, with datelines
    /// measured from `at`.
    pub fn begin_second_phase(&mut self, t: &Torus, at: Node) {
        self.target = self.dest;
        self.phase = 1;
        self.minus = self.next_minus;
        self.start = coordinates(t, at);
    }

    /// The dimension order of the current phase.
    pub fn order(&self) -> DimensionOrder {
        self.orders[self.phase as usize]
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

/// A node's coordinates in the compact form [`RoutePlan::start`] keeps.
fn coordinates(t: &Torus, node: Node) -> [u8; 3] {
    let [x, y, z, _] = t.coordinates_of(node);
    [x, y, z]
}

/// Minimal directions from `from` to `to`: bit d set for −; a tie (offset exactly k/2) is broken
/// uniformly at random, as BookSim's `dim_order_torus` does and `docs/models/bounds.md` assumes.
#[inline(always)]
pub fn minimal_directions(t: &Torus, from: Node, to: Node, rng: &mut impl Draw) -> u8 {
    let (a, b) = (t.coordinates_of(from), t.coordinates_of(to));
    let mut minus = 0u8;
    for d in 0..t.n as usize {
        let o = if b[d] >= a[d] { (b[d] - a[d]) as u32 } else { (b[d] as u32 + t.k) - a[d] as u32 };
        // Which way is shorter is as random as the destination, so it is computed, not
        // branched on; only a tie, rarer, branches to draw.
        let mut go_minus = 2 * o > t.k;
        if 2 * o == t.k {
            go_minus = rng.below(2) == 1;
        }
        minus |= (go_minus as u8) << d;
    }
    minus
}

/// Load-balanced directions from `from` to `to` (RLB's and GOAL's quadrant, seed 004 §4,
/// `docs/models/bounds.md` §3): in each dimension with ring distance D > 0, the short direction
/// with probability (k − D)/k and the long one (k − D hops) with probability D/k. A tie
/// (D = k/2) is then ½–½; D = 0 means no travel in that dimension (bit clear).
pub fn balanced_directions(t: &Torus, from: Node, to: Node, rng: &mut impl Draw) -> u8 {
    let mut minus = 0u8;
    for d in 0..t.n {
        let o = t.offset(from, to, d);
        if o == 0 {
            continue;
        }
        let short = o.min(t.k - o);
        let short_is_minus = 2 * o > t.k;
        let take_short = rng.below_is_under(t.k, t.k - short);
        if short_is_minus == take_short {
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

/// What one virtual-channel index is for under an algorithm, so the page can draw and name
/// its classes from the same VC arithmetic the routing uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VcClass {
    pub name: String,
    /// Part of an escape subnetwork: the deadlock-free channels adaptive routing falls back on.
    pub escape: bool,
    /// Taken only after a wrap-around link (a dateline) has been crossed.
    pub after_dateline: bool,
}

impl VcClass {
    pub fn new(name: impl Into<String>, escape: bool, after_dateline: bool) -> VcClass {
        VcClass { name: name.into(), escape, after_dateline }
    }
}

/// Names each of `vcs` VC indices after the classes whose masks include it. A VC shared by
/// several classes (fewer VCs than classes, only under `unsafe=1`) carries all their names, and
/// is escape or after-dateline only if all of them are: it is not reserved for that role.
pub fn label_vcs(vcs: u32, classes: &[(u32, VcClass)]) -> Vec<VcClass> {
    (0..vcs)
        .map(|v| {
            let mine: Vec<&VcClass> = classes.iter().filter(|(mask, _)| mask >> v & 1 == 1).map(|(_, c)| c).collect();
            if mine.is_empty() {
                return VcClass::new("unused", false, false);
            }
            let name = mine.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(" + ");
            VcClass::new(name, mine.iter().all(|c| c.escape), mine.iter().all(|c| c.after_dateline))
        })
        .collect()
}

/// The classes of an algorithm with two dateline escape VCs (0 before, 1 after the dateline)
/// under adaptive VCs 2 and up: Duato's scheme, and the *-channels of MIN AD and GOAL.
pub fn escape_pair_classes(sets: &VcSets, escape: &str, adaptive: &str) -> Vec<VcClass> {
    label_vcs(
        sets.vcs,
        &[
            (sets.escape(false), VcClass::new(format!("{escape}, before the dateline"), true, false)),
            (sets.escape(true), VcClass::new(format!("{escape}, after the dateline"), true, true)),
            (sets.adaptive(), VcClass::new(adaptive, false, false)),
        ],
    )
}

/// The classes of dimension-order routing with one dateline pair per phase, split evenly over
/// the VCs as [`VcSets::group`] does; `phases` is 1 (DOR) or 2 (Valiant, ROMM).
pub fn dateline_classes(sets: &VcSets, phases: u32) -> Vec<VcClass> {
    let parts = 2 * phases;
    let classes: Vec<(u32, VcClass)> = (0..parts)
        .map(|i| {
            let (phase, wrapped) = (i / 2, i % 2 == 1);
            let side = if wrapped { "after the dateline" } else { "before the dateline" };
            let name = if phases == 1 { side.to_string() } else { format!("phase {}, {side}", phase + 1) };
            (sets.group(i, parts), VcClass::new(name, false, wrapped))
        })
        .collect();
    label_vcs(sets.vcs, &classes)
}

/// A routing algorithm.
pub trait Routing {
    /// Once per message at generation: the oblivious choices (directions, intermediate node).
    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan
    where
        Self: Sized;
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
    /// After a misroute round a fault (scouting switching with `misroute`, see `sim`), the
    /// header is at `at`, off the route it was planned: by default it goes on minimally from
    /// there straight to its destination (a two-phase route in its first phase starts its
    /// second on arrival), its datelines counted from `at`.
    fn replan(&self, t: &Torus, at: Node, plan: &mut RoutePlan, rng: &mut Rng) {
        let minus = minimal_directions(t, at, plan.dest, rng);
        *plan = RoutePlan::towards(t, at, plan.dest, plan.dest, minus, plan.phase);
    }
    /// What each of the `vcs` VC indices is for on an `n`-dimensional torus. By default every
    /// VC serves every message alike.
    fn vc_classes(&self, vcs: u32, _n: u32) -> Vec<VcClass> {
        label_vcs(vcs, &[(VcSets { vcs }.all(), VcClass::new("any message", false, false))])
    }
}

/// The dimension-order hop from `at` under `plan`: the first dimension in the phase's order
/// (ascending unless the algorithm chose another) with hops left, on its dateline class. `None`
/// at the phase target.
#[inline(always)]
pub fn dimension_order_hop(t: &Torus, at: Node, plan: &RoutePlan) -> Option<(Port, bool)> {
    // Hops are left in a dimension exactly when the coordinates differ there, whichever the
    // direction; this runs once per header per router, so it reads each node's coordinates once.
    let (here, there) = (t.coordinates_of(at), t.coordinates_of(plan.target));
    let differ = u32::from_le_bytes(here) ^ u32::from_le_bytes(there);
    if differ == 0 {
        return None;
    }
    let order = plan.order();
    let d = if order == DimensionOrder::ASCENDING {
        differ.trailing_zeros() / 8
    } else {
        order.dims(t.n).find(|&d| here[d as usize] != there[d as usize])?
    };
    let (x, start) = (here[d as usize], plan.start[d as usize]);
    let minus = plan.minus >> d & 1 == 1;
    let wrapped = if minus { x > start } else { x < start };
    Some((2 * d + minus as u32, wrapped))
}

/// Every routing algorithm, as one value: the simulator matches on it once per cycle
/// ([`with_algorithm!`]) and runs an allocator compiled for that algorithm, with its candidates
/// inlined, instead of calling through `dyn Routing` for every header.
#[derive(Clone, Copy, Debug)]
pub enum Algorithm {
    Dor(dor::Dor),
    Duato(duato::Duato),
    Minad(minad::MinAd),
    Goal(goal::Goal),
    Val(val::Valiant),
    Romm(romm::Romm),
    Rlb(rlb::Rlb),
    Nbc(nbc::Nbc),
    Adaptive(adaptive::Adaptive),
    Chaos(chaos::Chaos),
}

/// Evaluates `$body` with `$r` bound to the concrete algorithm inside an [`Algorithm`], so that
/// generic code in `$body` is instantiated once per algorithm.
#[macro_export]
macro_rules! with_algorithm {
    ($algorithm:expr, $r:ident => $body:expr) => {
        match $algorithm {
            $crate::routing::Algorithm::Dor($r) => $body,
            $crate::routing::Algorithm::Duato($r) => $body,
            $crate::routing::Algorithm::Minad($r) => $body,
            $crate::routing::Algorithm::Goal($r) => $body,
            $crate::routing::Algorithm::Val($r) => $body,
            $crate::routing::Algorithm::Romm($r) => $body,
            $crate::routing::Algorithm::Rlb($r) => $body,
            $crate::routing::Algorithm::Nbc($r) => $body,
            $crate::routing::Algorithm::Adaptive($r) => $body,
            $crate::routing::Algorithm::Chaos($r) => $body,
        }
    };
}

impl Routing for Algorithm {
    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        with_algorithm!(self, r => r.plan(t, src, dest, rng))
    }
    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        with_algorithm!(self, r => r.candidates(t, at, plan, out))
    }
    fn atomic_vcs(&self) -> u32 {
        with_algorithm!(self, r => r.atomic_vcs())
    }
    fn replan(&self, t: &Torus, at: Node, plan: &mut RoutePlan, rng: &mut Rng) {
        with_algorithm!(self, r => r.replan(t, at, plan, rng))
    }
    fn vc_classes(&self, vcs: u32, n: u32) -> Vec<VcClass> {
        with_algorithm!(self, r => r.vc_classes(vcs, n))
    }
}

/// Builds the algorithm a scenario names.
pub fn build(s: &Scenario) -> Algorithm {
    let sets = VcSets { vcs: s.vcs };
    match s.routing {
        RoutingKind::Dor => Algorithm::Dor(dor::Dor::new(sets)),
        RoutingKind::Duato => Algorithm::Duato(duato::Duato { sets }),
        RoutingKind::Minad => Algorithm::Minad(minad::MinAd { sets }),
        RoutingKind::Goal => Algorithm::Goal(goal::Goal { sets }),
        RoutingKind::Val => Algorithm::Val(val::Valiant { sets }),
        RoutingKind::Romm => Algorithm::Romm(romm::Romm { sets }),
        RoutingKind::Rlb => Algorithm::Rlb(rlb::Rlb { sets }),
        RoutingKind::Nbc => Algorithm::Nbc(nbc::Nbc::new(sets, s.k, s.n)),
        RoutingKind::Adaptive => Algorithm::Adaptive(adaptive::Adaptive { sets }),
        RoutingKind::Chaos => Algorithm::Chaos(chaos::Chaos),
    }
}

/// Test support: follows a message hop by hop from `src` under `plan`, taking at each router
/// the candidate `choose` picks, until ejection. Returns every hop as (node left, candidate).
#[cfg(test)]
pub(crate) fn follow(
    t: &Torus,
    routing: &dyn Routing,
    src: Node,
    mut plan: RoutePlan,
    mut choose: impl FnMut(&[Candidate]) -> Candidate,
) -> Vec<(Node, Candidate)> {
    let mut at = src;
    let mut hops = vec![];
    let mut c = Candidates::default();
    loop {
        c.clear();
        routing.candidates(t, at, &mut plan, &mut c);
        let next = choose(c.as_slice());
        if next.port == EJECT {
            assert_eq!(at, plan.dest, "ejected away from the destination");
            return hops;
        }
        assert!(hops.len() < 4 * t.n as usize * t.k as usize, "livelock: {hops:?}");
        hops.push((at, next));
        at = t.neighbour(at, next.port);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

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

    fn names(classes: &[VcClass]) -> Vec<&str> {
        classes.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn duato_names_its_two_escape_vcs_and_the_adaptive_ones() {
        let s = Scenario::parse("k=8&routing=duato&vcs=4").unwrap();
        let classes = build(&s).vc_classes(4, 2);
        assert_eq!(names(&classes), ["escape, before the dateline", "escape, after the dateline", "adaptive", "adaptive"]);
        assert_eq!(classes.iter().map(|c| (c.escape, c.after_dateline)).collect::<Vec<_>>(), [(true, false), (true, true), (false, false), (false, false)]);
    }

    #[test]
    fn shared_vcs_carry_every_class_name_and_nbc_names_its_levels() {
        let dor = Scenario::parse("k=8&routing=dor&vcs=1&unsafe=1").unwrap();
        assert_eq!(build(&dor).vc_classes(1, 2), [VcClass::new("before the dateline + after the dateline", false, false)]);
        let duato = Scenario::parse("k=8&routing=duato&vcs=1&unsafe=1").unwrap();
        assert_eq!(build(&duato).vc_classes(1, 2), [VcClass::new("escape, before the dateline + escape, after the dateline", true, false)]);
        let val = Scenario::parse("k=8&routing=val&vcs=4").unwrap();
        assert_eq!(names(&build(&val).vc_classes(4, 2))[3], "phase 2, after the dateline");
        let nbc = Scenario::parse("k=8&routing=nbc&vcs=6").unwrap();
        let classes = build(&nbc).vc_classes(6, 2);
        assert_eq!(names(&classes), ["escape level 0", "escape level 1", "escape level 2", "escape level 3", "escape level 4", "adaptive"]);
        let rlb = Scenario::parse("k=8&routing=rlb&vcs=6").unwrap();
        assert_eq!(names(&build(&rlb).vc_classes(6, 2))[..3], ["+y, 0 wraps crossed", "+y, 1 wrap crossed", "+y, 2 wraps crossed"]);
    }

    /// The classes agree with the VCs the routing actually offers: on every route of an 8×8
    /// torus, an oblivious dateline algorithm offers after-dateline VCs exactly once its current
    /// dimension's wrap link is behind it, and Duato's last-resort candidate is always escape.
    #[test]
    fn offered_vcs_match_their_classes() {
        let t = Torus::new(8, 2);
        let mut rng = Rng::new(4, crate::rng::Stream::Routing);
        let adaptive = VcSets { vcs: 4 }.adaptive();
        for name in ["dor", "duato", "adaptive", "minad"] {
            let s = Scenario::parse(&format!("k=8&routing={name}&vcs=4")).unwrap();
            let routing = build(&s);
            let classes = routing.vc_classes(4, 2);
            for src in 0..t.nodes() {
                for dest in 0..t.nodes() {
                    let plan = routing.plan(&t, src, dest, &mut rng);
                    for (at, c) in follow(&t, &routing, src, plan, |c| c[c.len() - 1]) {
                        let offered: Vec<&VcClass> = (0..4).filter(|v| c.vcs >> v & 1 == 1).map(|v| &classes[v as usize]).collect();
                        let dim = c.port / 2;
                        let wrapped = plan.wrapped(&t, at, dim);
                        if name == "dor" {
                            assert!(offered.iter().all(|k| k.after_dateline == wrapped), "{name} {src}->{dest} at {at}: {c:?}");
                        } else if c.vcs & adaptive == 0 {
                            assert!(offered.iter().all(|k| k.escape && k.after_dateline == wrapped), "{name} {src}->{dest} at {at}: {c:?}");
                        } else {
                            assert!(offered.iter().all(|k| !k.escape), "{name} {src}->{dest} at {at}: {c:?}");
                        }
                    }
                }
            }
        }
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

    #[test]
    fn balanced_directions_weigh_quadrants_as_seed_004() {
        // s = (0,0), d = (2,3) on 8×8: quadrants (+,+), (+,−), (−,+), (−,−) with probabilities
        // 30/64, 18/64, 10/64, 6/64 (the paper's 0.469, 0.281, 0.156, 0.094).
        let t = Torus::new(8, 2);
        let mut rng = Rng::new(2, crate::rng::Stream::Routing);
        let draws = 64_000;
        let mut counts = [0u32; 4];
        for _ in 0..draws {
            counts[balanced_directions(&t, 0, t.node_at(&[2, 3]), &mut rng) as usize] += 1;
        }
        // Index = minus bits: 0 (+,+), 1 (−,+), 2 (+,−), 3 (−,−).
        for (count, expected) in counts.iter().zip([30, 10, 18, 6]) {
            assert!((*count as i64 - 1000 * expected).abs() < 500, "{counts:?}");
        }
        // No travel in a dimension of offset 0; a tie splits ½–½.
        assert!((0..100).all(|_| balanced_directions(&t, 0, t.node_at(&[0, 5]), &mut rng) & 1 == 0));
        let minus = (0..1000).filter(|_| balanced_directions(&t, 0, t.node_at(&[4, 0]), &mut rng) == 1).count();
        assert!((400..600).contains(&minus), "{minus}");
    }

    #[test]
    fn random_dimension_orders_are_uniform_permutations() {
        let mut rng = Rng::new(3, crate::rng::Stream::Routing);
        let mut seen = std::collections::HashMap::new();
        for _ in 0..6000 {
            let order: Vec<u32> = DimensionOrder::random(3, &mut rng).dims(3).collect();
            *seen.entry(order).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 6);
        assert!(seen.values().all(|&c| (850..1150).contains(&c)), "{seen:?}");
        assert_eq!(DimensionOrder::random(1, &mut rng).dims(1).collect::<Vec<_>>(), [0]);
        assert_eq!(DimensionOrder::default().dims(3).collect::<Vec<_>>(), [0, 1, 2]);
    }
}
