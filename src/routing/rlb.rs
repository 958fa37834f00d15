//! Randomized Local Balance (RLB; seed 004 Table 1, after Singh, Dally, Towles & Gupta;
//! `docs/models/bounds.md` §3). Choose the quadrant as GOAL does ([`balanced_directions`]: short
//! direction with probability (k − Δ)/k, long with Δ/k), draw an intermediate node q uniformly
//! from that quadrant's box, and route to q and then to the destination, each phase in a
//! dimension order drawn uniformly (x-first or y-first with probability ½ in 2-D), independently.
//! Both phases travel in the quadrant's directions, so the whole route is monotone and takes
//! fewer than k hops in each dimension.
//!
//! Virtual channels (Table 1: "Linder and Harden's scheme"). One dateline pair per phase is not
//! enough once messages of one phase use different dimension orders: four messages around a
//! unit square — (+x then +y), (+y then −x), (−x then −y), (−y then +x), the first and third
//! x-first, the others y-first — wait on each other in a cycle on the same VC, no wrap-around
//! link involved. Linder & Harden's virtual networks break both kinds of cycle:
//!
//! - a *network* per choice of directions in dimensions 1..n (2^(n−1) of them): in one network
//!   every dimension but x is travelled one way only, so a cycle of waits could only run along
//!   one x ring, where no message reverses;
//! - a *level* per wrap-around link crossed so far on the whole route (0..=n; the wrap link
//!   itself is taken on the lower level): a route crosses each dimension's wrap at most once,
//!   and within a level no dependency leaves a wrap link, so no cycle closes around a ring.
//!
//! Every wait goes to the same network and an equal or higher level, and within one the
//! dependencies are acyclic (the coordinates of dimensions 1..n never decrease, x increases
//! along its one direction), so the whole is deadlock-free whatever the dimension orders. The
//! class is `network · (n + 1) + level` of 2^(n−1)·(n+1) classes: 6 VCs in 2-D (2 on a ring,
//! 16 in 3-D).
//!
//! `routing=rlb&vcs=6` (more VCs are split evenly among the classes).

use super::romm::node_in_quadrant;
use super::{balanced_directions, dimension_order_hop, label_vcs, Candidates, DimensionOrder, RoutePlan, Routing, VcClass, VcSets, EJECT};
use crate::rng::Draw;
use crate::topology::{Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Rlb {
    pub sets: VcSets,
}

/// Linder & Harden classes on a k-ary n-cube: 2^(n−1) networks × (n + 1) levels.
pub fn vc_classes(n: u32) -> u32 {
    (1 << (n - 1)) * (n + 1)
}

impl Rlb {
    /// The VC class of the next hop from `at`: the network of the route's directions in
    /// dimensions 1..n, and the number of wrap-around links crossed so far.
    fn class(t: &Torus, at: Node, plan: &RoutePlan) -> u32 {
        let network = (plan.minus >> 1) as u32;
        let level = (0..t.n).filter(|&d| plan.wrapped(t, at, d)).count() as u32;
        network * (t.n + 1) + level
    }
}

impl Routing for Rlb {
    /// One class per network (the directions of dimensions 1..n) and level (wrap-around links
    /// crossed so far), in the order of [`Rlb::class`].
    fn vc_classes(&self, vcs: u32, n: u32) -> Vec<VcClass> {
        const DIMS: [&str; 3] = ["x", "y", "z"];
        let classes: Vec<(u32, VcClass)> = (0..vc_classes(n))
            .map(|c| {
                let (network, level) = (c / (n + 1), c % (n + 1));
                let directions: Vec<String> =
                    (1..n).map(|d| format!("{}{}", if network >> (d - 1) & 1 == 1 { "−" } else { "+" }, DIMS[d as usize])).collect();
                let network_name = if directions.is_empty() { "one network".to_string() } else { directions.join(" ") };
                let name = format!("{network_name}, {level} wrap{} crossed", if level == 1 { "" } else { "s" });
                (self.sets.group(c, vc_classes(n)), VcClass::new(name, false, level > 0))
            })
            .collect();
        label_vcs(vcs, &classes)
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        let minus = balanced_directions(t, src, dest, rng);
        let via = node_in_quadrant(t, src, dest, minus, rng);
        let orders = [DimensionOrder::random(t.n, rng), DimensionOrder::random(t.n, rng)];
        RoutePlan { orders, ..RoutePlan::via(t, src, via, dest, minus, minus) }
    }

    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        if plan.phase == 0 && at == plan.target {
            // Same directions on to the destination. The datelines stay measured from the
            // source: the levels count wrap links crossed on the whole route.
            plan.phase = 1;
            plan.target = plan.dest;
        }
        match dimension_order_hop(t, at, plan) {
            Some((port, _)) => out.push(port, self.sets.group(Self::class(t, at, plan), vc_classes(t.n)), 0),
            None => out.push(EJECT, 0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};
    use crate::routing::follow;
    use crate::topology::{port_dim, port_direction};

    #[test]
    fn classes_follow_networks_and_wrap_levels() {
        let t = Torus::new(8, 2);
        let r = Rlb { sets: VcSets { vcs: 6 } };
        // (6,6) → (1,2) in quadrant (+x, +y): 3 hops x, 4 hops y, via q = (7,1), y-first then
        // x-first. Network 0; level 0 until the first wrap link, 1 after the y wrap, 2 after x.
        let (src, via, dest) = (t.node_at(&[6, 6]), t.node_at(&[7, 1]), t.node_at(&[1, 2]));
        let mut plan = RoutePlan::via(&t, src, via, dest, 0, 0);
        plan.orders[0] = DimensionOrder(0b00_01);
        let path: Vec<_> = follow(&t, &r, src, plan, |c| c[0]).into_iter().map(|(at, c)| (t.coordinates(at), c.port, c.vcs)).collect();
        let expected: Vec<(Vec<u32>, u32, u32)> = vec![
            (vec![6, 6], 2, 1 << 0),
            (vec![6, 7], 2, 1 << 0),
            (vec![6, 0], 2, 1 << 1),
            (vec![6, 1], 0, 1 << 1),
            (vec![7, 1], 0, 1 << 1),
            (vec![0, 1], 0, 1 << 2),
            (vec![1, 1], 2, 1 << 2),
        ];
        assert_eq!(path, expected);
        // The − y network uses the upper three classes.
        let plan = RoutePlan::via(&t, 0, 0, t.node_at(&[0, 7]), 0b10, 0b10);
        assert_eq!(follow(&t, &r, 0, plan, |c| c[0])[0].1.vcs, 1 << 3);
    }

    #[test]
    fn paths_stay_in_the_quadrant_through_its_box() {
        let t = Torus::new(6, 3);
        let r = Rlb { sets: VcSets { vcs: 16 } };
        let mut rng = Rng::new(10, Stream::Routing);
        let mut orders_seen = std::collections::HashSet::new();
        for _ in 0..5000 {
            let (src, dest) = (rng.below(t.nodes()), rng.below(t.nodes()));
            let plan = r.plan(&t, src, dest, &mut rng);
            orders_seen.insert(plan.orders);
            let path = follow(&t, &r, src, plan, |c| c[0]);
            let reached_via = path.iter().position(|&(at, _)| at == plan.target).unwrap_or(path.len());
            for d in 0..t.n {
                let quadrant_hops = t.hops_in_direction(src, dest, d, plan.direction(d));
                let along: Vec<_> = path.iter().filter(|(_, c)| port_dim(c.port) == d).collect();
                assert!(along.iter().all(|(_, c)| port_direction(c.port) == plan.direction(d)), "left the quadrant");
                assert_eq!(along.len() as u32, quadrant_hops);
                // Phase 0 ends at q, inside the box.
                let to_via = path[..reached_via].iter().filter(|(_, c)| port_dim(c.port) == d).count() as u32;
                assert_eq!(to_via, t.hops_in_direction(src, plan.target, d, plan.direction(d)));
                assert!(to_via <= quadrant_hops);
            }
        }
        assert_eq!(orders_seen.len(), 36, "every pair of 3-D orders");
    }

    #[test]
    fn uniform_traffic_takes_the_balanced_mean_hop_count() {
        // docs/models/bounds.md §4.1: 336 hops from each 8×8 node to all 64 nodes, 336/63 to the
        // others.
        let t = Torus::new(8, 2);
        let r = Rlb { sets: VcSets { vcs: 6 } };
        let mut rng = Rng::new(11, Stream::Routing);
        let trials = 100_000;
        let mut total = 0;
        for _ in 0..trials {
            let src = rng.below(64);
            let dest = (src + 1 + rng.below(63)) % 64;
            total += follow(&t, &r, src, r.plan(&t, src, dest, &mut rng), |c| c[0]).len();
        }
        let mean = total as f64 / trials as f64;
        assert!((mean - 336.0 / 63.0).abs() < 0.02, "{mean}");
    }
}
