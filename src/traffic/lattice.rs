//! Geometry shared by the exact loads ([`super::oblivious`]) and the ideal-balance bounds
//! (`models::bounds`): coordinates, the quadrants of `docs/models/bounds.md` §3, per-class loads
//! of translation-invariant patterns (§4.3), and an accumulator that adds straight runs of hops
//! to channel loads in O(1) each.

use crate::topology::{Node, Torus};
use crate::traffic::Pattern;

/// Most dimensions a scenario may have (`scenario::limits::N`).
pub const MAX_DIMS: usize = 3;

/// Travel along one dimension in one direction (monotone, fewer than k hops).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Move {
    pub plus: bool,
    pub hops: u32,
}

/// One [`Move`] per dimension: a quadrant, or one phase of a route inside it. Entries at and
/// beyond the torus's n are unused.
pub type Moves = [Move; MAX_DIMS];

/// How an offset of exactly k/2 (two shortest directions) is resolved by a minimal routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieRule {
    /// Each direction with probability ½ (BookSim's `dim_order_torus`; the product's DOR).
    Split,
    /// Always + (the DOR+ variant of §5 and §7).
    Plus,
}

/// How a routing picks the direction of travel in each dimension (§3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuadrantRule {
    /// The shortest direction (DOR, ROMM, VAL's phases, MIN).
    Minimal(TieRule),
    /// Short direction with probability (k − D)/k, long with D/k (RLB, GOAL).
    Balanced,
}

/// Coordinates of every node, precomputed because the enumerations ask for them millions of times.
pub struct Lattice {
    pub k: u32,
    pub n: usize,
    pub nodes: u32,
    stride: [u32; MAX_DIMS],
    coords: Vec<[u32; MAX_DIMS]>,
}

impl Lattice {
    pub fn new(torus: &Torus) -> Lattice {
        let n = torus.n as usize;
        assert!(n <= MAX_DIMS, "at most {MAX_DIMS} dimensions");
        let mut stride = [0; MAX_DIMS];
        for (d, s) in stride.iter_mut().enumerate().take(n) {
            *s = torus.k.pow(d as u32);
        }
        let coords = (0..torus.nodes())
            .map(|u| {
                let mut c = [0; MAX_DIMS];
                for (d, x) in c.iter_mut().enumerate().take(n) {
                    *x = torus.coordinate(u, d as u32);
                }
                c
            })
            .collect();
        Lattice { k: torus.k, n, nodes: torus.nodes(), stride, coords }
    }

    pub fn coord(&self, u: Node, d: usize) -> u32 {
        self.coords[u as usize][d]
    }

    /// Unidirectional channels, 2n per node.
    pub fn channels(&self) -> usize {
        self.nodes as usize * 2 * self.n
    }

    /// The channel id of `topology` (node · 2n + port, port 2d for +, 2d + 1 for −).
    pub fn channel(&self, u: Node, d: usize, plus: bool) -> usize {
        u as usize * 2 * self.n + 2 * d + (!plus) as usize
    }

    /// The node `hops` steps from `u` along dimension `d`.
    pub fn step(&self, u: Node, d: usize, plus: bool, hops: u32) -> Node {
        let x = self.coord(u, d);
        let hops = hops % self.k;
        let y = if plus { (x + hops) % self.k } else { (x + self.k - hops) % self.k };
        u - x * self.stride[d] + y * self.stride[d]
    }

    /// The node reached from `u` after every move.
    pub fn walk(&self, u: Node, moves: &Moves) -> Node {
        (0..self.n).fold(u, |v, d| self.step(v, d, moves[d].plus, moves[d].hops))
    }

    /// Signed offset (to − from) mod k along `d`.
    pub fn offset(&self, from: Node, to: Node, d: usize) -> u32 {
        (self.coord(to, d) + self.k - self.coord(from, d)) % self.k
    }

    /// The node whose coordinates are those of `a` minus those of `b` (mod k): the offset node of
    /// a flow from `b` to `a`, or the image of `a` under the translation taking `b` to node 0.
    pub fn minus(&self, a: Node, b: Node) -> Node {
        (0..self.n).fold(a, |v, d| self.step(v, d, false, self.coord(b, d)))
    }

    /// The quadrants a packet from `s` to `d` may use, each with its probability under `rule`
    /// (§3): per dimension one direction, or two for a tie or a balanced choice.
    pub fn quadrants(&self, s: Node, d: Node, rule: QuadrantRule) -> Vec<(Moves, f64)> {
        let mut out = vec![([Move::default(); MAX_DIMS], 1.0)];
        for dim in 0..self.n {
            let o = self.offset(s, d, dim);
            let options = self.directions(o, rule);
            out = out
                .iter()
                .flat_map(|(moves, p)| {
                    options.iter().map(move |&(mv, q)| {
                        let mut m = *moves;
                        m[dim] = mv;
                        (m, p * q)
                    })
                })
                .collect();
        }
        out
    }

    fn directions(&self, o: u32, rule: QuadrantRule) -> Vec<(Move, f64)> {
        let k = self.k;
        let short = o.min(k - o);
        let short_is_plus = o <= k - o;
        let tie = 2 * o == k;
        if o == 0 {
            return vec![(Move { plus: true, hops: 0 }, 1.0)];
        }
        match rule {
            QuadrantRule::Minimal(TieRule::Plus) if tie => vec![(Move { plus: true, hops: short }, 1.0)],
            QuadrantRule::Minimal(_) if tie => {
                vec![(Move { plus: true, hops: short }, 0.5), (Move { plus: false, hops: short }, 0.5)]
            }
            QuadrantRule::Minimal(_) => vec![(Move { plus: short_is_plus, hops: short }, 1.0)],
            // At a tie both formulas give ½ and k/2 hops, so no special case is needed.
            QuadrantRule::Balanced => vec![
                (Move { plus: short_is_plus, hops: short }, (k - short) as f64 / k as f64),
                (Move { plus: !short_is_plus, hops: k - short }, short as f64 / k as f64),
            ],
        }
    }

    /// Loads of a translation-invariant pattern whose row at node 0 is `offsets` (§4.3): every
    /// channel of class (dimension, direction) carries
    /// Σ_o λ(o) Σ_quadrants P(quadrant) · hops in that class, because the N sources spread their
    /// hops of a class evenly over its N channels.
    pub fn class_loads(&self, offsets: &[(Node, f64)], rule: QuadrantRule) -> Vec<f64> {
        let mut per_class = [0.0; 2 * MAX_DIMS];
        for &(o, w) in offsets {
            for (moves, p) in self.quadrants(0, o, rule) {
                for (d, mv) in moves.iter().enumerate().take(self.n) {
                    per_class[2 * d + (!mv.plus) as usize] += w * p * mv.hops as f64;
                }
            }
        }
        (0..self.channels()).map(|c| per_class[c % (2 * self.n)]).collect()
    }

    /// Every permutation of the dimensions (RLB's random dimension order, §3).
    pub fn dimension_orders(&self) -> Vec<Vec<usize>> {
        let mut orders = vec![vec![]];
        for d in 0..self.n {
            orders = orders
                .into_iter()
                .flat_map(|o: Vec<usize>| {
                    (0..=o.len()).map(move |i| {
                        let mut p = o.clone();
                        p.insert(i, d);
                        p
                    })
                })
                .collect();
        }
        orders
    }
}

/// The row at node 0, as offsets, when every row of `pattern` is that row translated to its
/// source (§4.3: UR, NN, TOR, DIA); `None` otherwise.
pub fn invariant_offsets(lat: &Lattice, torus: &Torus, pattern: &Pattern) -> Option<Vec<(Node, f64)>> {
    match pattern {
        Pattern::Uniform | Pattern::Neighbor => Some(pattern.row(torus, 0)),
        Pattern::Fixed(dest) => {
            let offset = dest[0];
            (0..lat.nodes).all(|s| lat.minus(dest[s as usize], s) == offset).then(|| vec![(offset, 1.0)])
        }
        Pattern::HotSpot { .. } | Pattern::Matrix(_) => None,
    }
}

/// Channel loads built from straight runs of hops. Each run adds its weight at its first channel
/// and removes it after its last one in a per-ring difference array, so a run costs O(1)
/// whatever its length; [`LoadAccumulator::finish`] takes the prefix sums around every ring.
pub struct LoadAccumulator<'a> {
    lat: &'a Lattice,
    diff: Vec<f64>,
}

impl<'a> LoadAccumulator<'a> {
    pub fn new(lat: &'a Lattice) -> Self {
        LoadAccumulator { lat, diff: vec![0.0; lat.channels()] }
    }

    /// `weight` packets/cycle over `mv.hops` consecutive channels from `start` along `d`.
    pub fn run(&mut self, start: Node, d: usize, mv: Move, weight: f64) {
        if mv.hops == 0 {
            return;
        }
        let lat = self.lat;
        let k = lat.k;
        let x = lat.coord(start, d);
        let line = start - x * lat.stride[d];
        // As coordinates, a + run covers x .. x+h−1 and a − run covers x−h+1 .. x: both are one
        // cyclic interval [first, first + h).
        let first = if mv.plus { x } else { (x + k - (mv.hops - 1)) % k };
        let end = first + mv.hops;
        let mut add = |coord: u32, w: f64| self.diff[lat.channel(line + coord * lat.stride[d], d, mv.plus)] += w;
        add(first, weight);
        if end < k {
            add(end, -weight);
        } else {
            add(0, weight);
            add(end - k, -weight);
        }
    }

    /// Dimension-ordered travel from `start` through every move, in `order`; returns the node
    /// reached.
    pub fn leg(&mut self, start: Node, moves: &Moves, order: &[usize], weight: f64) -> Node {
        order.iter().fold(start, |u, &d| {
            self.run(u, d, moves[d], weight);
            self.lat.step(u, d, moves[d].plus, moves[d].hops)
        })
    }

    /// The load of every channel, by channel id.
    pub fn finish(self) -> Vec<f64> {
        let lat = self.lat;
        let mut loads = self.diff;
        for d in 0..lat.n {
            for line in (0..lat.nodes).filter(|&u| lat.coord(u, d) == 0) {
                for plus in [true, false] {
                    let mut running = 0.0;
                    for x in 0..lat.k {
                        let c = lat.channel(line + x * lat.stride[d], d, plus);
                        running += loads[c];
                        loads[c] = running;
                    }
                }
            }
        }
        loads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked_loads(lat: &Lattice, start: Node, d: usize, mv: Move) -> Vec<f64> {
        let mut loads = vec![0.0; lat.channels()];
        let mut u = start;
        for _ in 0..mv.hops {
            loads[lat.channel(u, d, mv.plus)] += 1.0;
            u = lat.step(u, d, mv.plus, 1);
        }
        loads
    }

    #[test]
    fn runs_match_hop_by_hop_walks_including_wraps() {
        for (k, n) in [(5, 1), (8, 2), (3, 3)] {
            let lat = Lattice::new(&Torus::new(k, n));
            for start in 0..lat.nodes {
                for d in 0..lat.n {
                    for plus in [true, false] {
                        for hops in 0..k {
                            let mv = Move { plus, hops };
                            let mut acc = LoadAccumulator::new(&lat);
                            acc.run(start, d, mv, 1.0);
                            assert_eq!(acc.finish(), walked_loads(&lat, start, d, mv), "k={k} start={start} d={d} {mv:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn goal_quadrant_weights_of_the_paper() {
        // Seed 004 §3: s = (0, 0), d = (2, 3) on 8×8 → 0.469, 0.281, 0.156, 0.094.
        let torus = Torus::new(8, 2);
        let lat = Lattice::new(&torus);
        let q = lat.quadrants(0, torus.node_at(&[2, 3]), QuadrantRule::Balanced);
        let weight = |px: bool, py: bool| q.iter().find(|(m, _)| m[0].plus == px && m[1].plus == py).unwrap().1;
        assert_eq!(weight(true, true), 30.0 / 64.0);
        assert_eq!(weight(true, false), 18.0 / 64.0);
        assert_eq!(weight(false, true), 10.0 / 64.0);
        assert_eq!(weight(false, false), 6.0 / 64.0);
        let rounded: Vec<f64> = [(true, true), (true, false), (false, true), (false, false)]
            .iter()
            .map(|&(a, b)| (weight(a, b) * 1000.0).round() / 1000.0)
            .collect();
        assert_eq!(rounded, vec![0.469, 0.281, 0.156, 0.094]);
        let hops: Vec<(u32, u32)> = q.iter().map(|(m, _)| (m[0].hops, m[1].hops)).collect();
        assert_eq!(hops, vec![(2, 3), (2, 5), (6, 3), (6, 5)]);
    }

    #[test]
    fn minus_translates_and_orders_are_all_permutations() {
        let torus = Torus::new(8, 2);
        let lat = Lattice::new(&torus);
        assert_eq!(lat.minus(torus.node_at(&[1, 6]), torus.node_at(&[3, 2])), torus.node_at(&[6, 4]));
        assert_eq!(Lattice::new(&Torus::new(3, 3)).dimension_orders().len(), 6);
        assert_eq!(lat.dimension_orders(), vec![vec![1, 0], vec![0, 1]]);
    }
}
