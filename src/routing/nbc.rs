//! Duato-Nbc (seed 000: Safaei et al., ICCS 2007, after Boppana & Chalasani, "A comparison of
//! adaptive wormhole routing algorithms", ISCA 1993): Duato's methodology with the negative-hop
//! scheme with bonus cards (Nbc) as its escape layer. Of the V virtual channels of every
//! physical channel, the lowest `V2` are escape levels and the other `V1 = V − V2` are fully
//! adaptive, usable towards any productive port of the minimal quadrant (reallocated only
//! once empty, Duato's condition). Adaptive VCs are preferred; escape VCs are the last resort.
//!
//! The negative-hop layer. Nodes are coloured by the parity of their coordinate sum. With even
//! k every channel, wrap-around ones included, joins nodes of different colours, so along any
//! path the colours alternate; a hop from colour 1 to colour 0 is *negative*. A message that
//! has taken `i` negative hops (on any VC) uses escape level `s + i` on its next hop, towards
//! any productive port, where `s` is its bonus-card start level. The most negative hops a
//! minimal route takes is `⌈D/2⌉` for the diameter `D = n·k/2`; a message whose route needs
//! `h` fewer holds `h` bonus cards, which let it use higher levels than its negative hops alone
//! would, so that short routes do not crowd the low levels (Boppana & Chalasani). Seed 000 does
//! not say how the cards are spent; here all are spent at generation, on a start level drawn
//! uniformly from `0..=h`. Levels therefore run from 0 to `⌈D/2⌉`: `V2 = ⌈D/2⌉ + 1`, which
//! for a 2-D torus is the `⌊k/2⌋ + 1` of the model's default reading (`docs/models/nbc.md` §5
//! item 5), so the simulation and `models::nbc::Nbc::default()` split V identically: at V = 10,
//! V2 + V1 = 5 + 5 for k = 8 and 9 + 1 for k = 16.
//!
//! Why this is deadlock-free: rank an escape channel by (level, colour of its source node). A
//! message's level never falls and rises by one after each negative hop, while a hop that is
//! not negative goes from colour 0 to colour 1; so the escape channels a message uses, directly
//! or with adaptive hops in between, have strictly increasing ranks, the extended channel
//! dependency graph is acyclic, and Duato's theorem applies. The level is fixed when the
//! message is generated because the router does not tell the routing function which VC a
//! header took: a choice of level made hop by hop could not be remembered, and a message that
//! could fall back to a lower level after a bonus hop would break the ranking.
//!
//! `routing=nbc&vcs=V` on an even-k torus, `V ≥ ⌈n·k/4⌉ + 2` (default V = 10, seed 000's value).

use super::duato::productive_ports;
use super::{label_vcs, minimal_directions, Candidates, RoutePlan, Routing, VcClass, VcSets, EJECT};
use crate::rng::{Draw, Rng};
use crate::topology::{Node, Torus};

/// The most negative hops a minimal route takes on a k-ary n-cube with even k: a route has at
/// most `n·k/2` hops, every other one negative.
pub fn most_negative_hops(k: u32, n: u32) -> u32 {
    (n * (k / 2)).div_ceil(2)
}

/// Escape levels the negative-hop layer needs (`V2`): one per negative hop, plus the level of
/// the hops after the last negative one.
pub fn escape_levels(k: u32, n: u32) -> u32 {
    most_negative_hops(k, n) + 1
}

/// Colour of a node: the parity of its coordinate sum.
fn colour(t: &Torus, node: Node) -> u32 {
    (0..t.n).map(|d| t.coordinate(node, d)).sum::<u32>() % 2
}

/// Negative hops among the next `hops` hops from `at`: colours alternate, so every other hop
/// is negative, starting with the first when `at` has colour 1.
fn negative_hops_ahead(t: &Torus, at: Node, hops: u32) -> u32 {
    (hops + colour(t, at)) / 2
}

#[derive(Clone, Copy, Debug)]
pub struct Nbc {
    sets: VcSets,
    escape_levels: u32,
    most_negative_hops: u32,
}

impl Nbc {
    /// Duato-Nbc on a k-ary n-cube; `k` must be even (checked by scenario validation).
    pub fn new(sets: VcSets, k: u32, n: u32) -> Nbc {
        Nbc { sets, escape_levels: escape_levels(k, n), most_negative_hops: most_negative_hops(k, n) }
    }

    /// The escape level of the next hop from `at`.
    fn level(&self, t: &Torus, at: Node, plan: &RoutePlan, hops_left: u32) -> u32 {
        plan.final_escape_level as u32 - negative_hops_ahead(t, at, hops_left)
    }
}

impl Routing for Nbc {
    fn vc_classes(&self, vcs: u32, _n: u32) -> Vec<VcClass> {
        let mut classes: Vec<(u32, VcClass)> = (0..self.escape_levels)
            .map(|l| (self.sets.negative_hop_level(l), VcClass::new(format!("escape level {l}"), true, false)))
            .collect();
        classes.push((self.sets.above_negative_hop_levels(self.escape_levels), VcClass::new("adaptive", false, false)));
        label_vcs(vcs, &classes)
    }

    /// Minimal directions, and the bonus-card start level drawn from the unneeded levels.
    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        let mut plan = RoutePlan::towards(t, src, dest, dest, minimal_directions(t, src, dest, rng), 0);
        let needed = negative_hops_ahead(t, src, t.distance(src, dest));
        let bonus_cards = self.most_negative_hops - needed;
        plan.final_escape_level = (rng.below(bonus_cards + 1) + needed) as u8;
        plan
    }

    /// Minimally from `at`, starting on the lowest escape level its route from there needs (it
    /// keeps no bonus card): the levels of its hops still rise along the new route.
    fn replan(&self, t: &Torus, at: Node, plan: &mut RoutePlan, rng: &mut Rng) {
        let dest = plan.dest;
        *plan = RoutePlan::towards(t, at, dest, dest, minimal_directions(t, at, dest, rng), 0);
        plan.final_escape_level = negative_hops_ahead(t, at, t.distance(at, dest)) as u8;
    }

    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        let hops_left: u32 = (0..t.n).map(|d| plan.remaining(t, at, d)).sum();
        if hops_left == 0 {
            out.push(EJECT, 0, 0);
            return;
        }
        productive_ports(t, at, plan, self.sets.above_negative_hop_levels(self.escape_levels), 0, out);
        let escape = self.sets.negative_hop_level(self.level(t, at, plan, hops_left));
        productive_ports(t, at, plan, escape, 1, out);
    }

    fn atomic_vcs(&self) -> u32 {
        self.sets.above_negative_hop_levels(self.escape_levels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};
    use crate::routing::Candidate;

    fn candidates_at(t: &Torus, r: &Nbc, at: Node, plan: &mut RoutePlan) -> Vec<Candidate> {
        let mut c = Candidates::default();
        r.candidates(t, at, plan, &mut c);
        c.as_slice().to_vec()
    }

    #[test]
    fn escape_levels_match_the_models_default_split() {
        // docs/models/nbc.md §5 item 5: V2 = ⌊k/2⌋ + 1 on a 2-D torus.
        for k in [2, 4, 8, 10, 16] {
            assert_eq!(escape_levels(k, 2), k / 2 + 1, "k = {k}");
        }
        assert_eq!([escape_levels(8, 1), escape_levels(4, 3), escape_levels(8, 3)], [3, 4, 7]);
        // Exhaustively on 6×6 and on a 4-ary 3-cube: the most negative hops of any route.
        for (k, n) in [(6, 2), (4, 3)] {
            let t = Torus::new(k, n);
            let most = (0..t.nodes())
                .flat_map(|s| (0..t.nodes()).map(move |d| (s, d)))
                .map(|(s, d)| negative_hops_ahead(&t, s, t.distance(s, d)))
                .max();
            assert_eq!(most, Some(most_negative_hops(k, n)), "k = {k}, n = {n}");
        }
    }

    #[test]
    fn scenarios_need_an_even_radix_and_an_adaptive_vc_above_the_levels() {
        use crate::scenario::Scenario;
        let error = |s: &str| Scenario::parse(s).unwrap_err();
        assert_eq!(Scenario::parse("routing=nbc").unwrap().vcs, 10);
        assert_eq!(error("k=7&routing=nbc").key, "k");
        assert_eq!(error("k=7&routing=nbc&unsafe=1").key, "k");
        // 8×8: 5 levels + 1 adaptive VC; 16×16: 9 + 1; a 16-ary 3-cube: 13 + 1, more than the
        // default 10.
        assert!(Scenario::parse("k=8&routing=nbc&vcs=6").is_ok());
        assert!(error("k=8&routing=nbc&vcs=5").message.contains("at least 6 virtual channels"));
        assert!(error("k=16&routing=nbc&vcs=9").message.contains("at least 10 virtual channels"));
        assert!(error("k=16&n=3&routing=nbc").message.contains("at least 14 virtual channels"));
        assert!(Scenario::parse("k=8&routing=nbc&vcs=5&unsafe=1").is_ok());
    }

    #[test]
    fn adaptive_ports_first_then_the_escape_level_on_every_productive_port() {
        let t = Torus::new(8, 2);
        let r = Nbc::new(VcSets { vcs: 10 }, 8, 2);
        let mut rng = Rng::new(1, Stream::Routing);
        // (7,0) → (1,6): + x across the wrap, − y across the wrap; 4 hops from colour 1, so
        // hops 1 and 3 are negative: 2 fewer than the longest routes take, 2 bonus cards.
        let (src, dest) = (t.node_at(&[7, 0]), t.node_at(&[1, 6]));
        let mut plan = r.plan(&t, src, dest, &mut rng);
        let start = plan.final_escape_level as u32 - 2;
        assert!(start <= 2, "start level {start} beyond the 2 bonus cards");
        let adaptive = 0b11_1110_0000;
        assert_eq!(
            candidates_at(&t, &r, src, &mut plan),
            [
                Candidate { port: 0, vcs: adaptive, priority: 0 },
                Candidate { port: 3, vcs: adaptive, priority: 0 },
                Candidate { port: 0, vcs: 1 << start, priority: 1 },
                Candidate { port: 3, vcs: 1 << start, priority: 1 },
            ]
        );
        // After the negative hop (7,0) → (0,0) the level is one up; after the positive hop
        // (0,0) → (0,7) it stays.
        for (at, level) in [([0, 0], start + 1), ([0, 7], start + 1), ([1, 7], start + 2)] {
            let c = candidates_at(&t, &r, t.node_at(&at), &mut plan);
            assert!(c.iter().filter(|c| c.priority == 1).all(|c| c.vcs == 1 << level), "{at:?}: {c:?}");
        }
        assert_eq!(candidates_at(&t, &r, dest, &mut plan), [Candidate { port: EJECT, vcs: 0, priority: 0 }]);
    }

    #[test]
    fn bonus_cards_spread_start_levels_and_never_overflow_the_levels() {
        let t = Torus::new(8, 2);
        let r = Nbc::new(VcSets { vcs: 10 }, 8, 2);
        let mut rng = Rng::new(7, Stream::Routing);
        let mut starts = [0u32; 5];
        for src in 0..t.nodes() {
            for dest in 0..t.nodes() {
                let plan = r.plan(&t, src, dest, &mut rng);
                let needed = negative_hops_ahead(&t, src, t.distance(src, dest));
                assert!(plan.final_escape_level as u32 <= most_negative_hops(8, 2));
                starts[(plan.final_escape_level as u32 - needed) as usize] += 1;
            }
        }
        // Every level is some message's start; only messages needing no negative hop can start
        // on the top level 4, while every message can start on level 0.
        assert!(starts.iter().all(|&n| n > 0), "{starts:?}");
        assert!(starts[0] > starts[4], "{starts:?}");
    }

    #[test]
    fn levels_never_fall_along_any_minimal_path() {
        // Every minimal path of every pair on 4×4 (all orders of the productive hops): the
        // escape level rises exactly at negative hops and stays within the levels.
        let t = Torus::new(4, 2);
        let r = Nbc::new(VcSets { vcs: 4 }, 4, 2);
        let mut rng = Rng::new(3, Stream::Routing);
        for src in 0..t.nodes() {
            for dest in 0..t.nodes() {
                let mut plan = r.plan(&t, src, dest, &mut rng);
                let mut frontier = vec![(src, None)];
                while let Some((at, expected)) = frontier.pop() {
                    let c = candidates_at(&t, &r, at, &mut plan);
                    if c[0].port == EJECT {
                        continue;
                    }
                    let escape: Vec<_> = c.iter().filter(|c| c.priority == 1).collect();
                    let level = escape[0].vcs.trailing_zeros();
                    assert!(expected.is_none_or(|e| e == level) && level < escape_levels(4, 2), "{expected:?} {level}");
                    for e in escape {
                        let next = t.neighbour(at, e.port);
                        let negative = colour(&t, at) == 1 && colour(&t, next) == 0;
                        frontier.push((next, Some(level + negative as u32)));
                    }
                }
            }
        }
    }
}
