//! Traffic patterns: where each message goes (seed 004 Table 2; `docs/models/bounds.md` §9.2).
//!
//! A pattern is the row `Λ[s]` of a traffic matrix: [`Pattern::destination`] draws from it,
//! [`Pattern::row`] lists it with probabilities (for the channel-load bounds). When messages
//! arrive, [`injection`]; how long each message is, [`MessageLengths`].

pub mod injection;
pub(crate) mod lattice;
mod matching;
pub(crate) mod oblivious;
mod worst_case;

pub use crate::scenario::matrix::TrafficMatrix;
pub use crate::scenario::{hot_spot_probability, HOT_SPOT_FACTOR};
pub use worst_case::{worst_case, worst_case_permutation, WORST_CASE_MAX_NODES};

use crate::rng::{GeometricLength, Rng, Samplers, Stream};
use rand::distr::{Distribution, Uniform};
use crate::scenario::{limits, Lengths, Scenario, ScenarioError, TrafficKind};
use crate::topology::{Node, Torus};

/// Hot-spot traffic (seed 004 §5.6): bit-complement background on which five adjacent nodes are
/// five times as likely to be chosen as any other destination. A message goes to a hot node
/// (uniformly among the five) with probability `p`, else to its bit-complement destination;
/// `p` is set so that each hot node's column of Λ sums to 5: `(1 − p) + p·N/5 = 5`. The
/// scenario may list other hot nodes (`hot`, h of them: `(1 − p) + p·N/h = 5`) or set `p`
/// itself (`hotfrac`).
pub const HOT_SPOTS: usize = 5;

#[derive(Clone, Debug)]
pub enum Pattern {
    /// Every node other than the source equally likely (as the seed models assume).
    Uniform,
    /// One of the 2n neighbours, each equally likely.
    Neighbor,
    /// A fixed destination per source: bit complement, transpose, tornado, diagonal, a seeded
    /// random permutation, or the worst case of an oblivious algorithm.
    Fixed(Vec<Node>),
    /// Seed 004's hot spot: `hot` drawn with probability `p_hot`, else the bit-complement
    /// `background`.
    HotSpot { background: Vec<Node>, hot: Vec<Node>, p_hot: f64 },
    /// A traffic matrix read from a file.
    Matrix(std::sync::Arc<TrafficMatrix>),
}

impl Pattern {
    pub fn new(s: &Scenario, torus: &Torus) -> Result<Pattern, ScenarioError> {
        let fixed = |f: &dyn Fn(&[u32]) -> Vec<u32>| {
            (0..torus.nodes()).map(|u| torus.node_at(&f(&torus.coordinates(u)))).collect::<Vec<_>>()
        };
        let k = torus.k;
        Ok(match s.traffic {
            TrafficKind::Uniform => Pattern::Uniform,
            TrafficKind::Neighbor => Pattern::Neighbor,
            TrafficKind::Bitcomp => Pattern::Fixed(bit_complement(torus)),
            TrafficKind::Transpose => Pattern::Fixed(fixed(&|x| x.iter().rev().copied().collect())),
            TrafficKind::Tornado => Pattern::Fixed(fixed(&|x| {
                let mut y = x.to_vec();
                y[0] = x[0] + k / 2 + k - 1;
                y
            })),
            TrafficKind::Diagonal => Pattern::Fixed(fixed(&|x| x.iter().map(|c| c + k / 2).collect())),
            TrafficKind::Permutation => Pattern::Fixed(random_permutation(torus.nodes(), s.permutation_seed.unwrap_or(s.seed))),
            TrafficKind::Hotspot => {
                let hot = if s.hot_nodes.is_empty() { hot_spots(torus).to_vec() } else { s.hot_nodes.clone() };
                Pattern::HotSpot {
                    background: bit_complement(torus),
                    p_hot: s.hot_fraction.unwrap_or_else(|| hot_spot_probability(torus.nodes(), hot.len())),
                    hot,
                }
            }
            TrafficKind::Worstcase => Pattern::Fixed(worst_case_permutation(torus, s.routing)?),
            TrafficKind::Bitrev => Pattern::Fixed(on_index_bits(s, torus, |u, b| u.reverse_bits() >> (32 - b))?),
            TrafficKind::Shuffle => Pattern::Fixed(on_index_bits(s, torus, |u, b| (u << 1 | u >> (b - 1)) & ((1 << b) - 1))?),
            TrafficKind::Matrix => match &s.traffic_matrix {
                Some(m) => Pattern::Matrix(m.clone()),
                None => return Err(ScenarioError::new("matrix", "traffic=matrix needs the weights of matrix=FILE, read when the scenario is parsed")),
            },
        })
    }

    /// Draws the destination of a message generated at `src`.
    pub fn destination(&self, torus: &Torus, src: Node, rng: &mut Rng) -> Node {
        match self {
            Pattern::Uniform => {
                let d = rng.below(torus.nodes() - 1);
                if d >= src {
                    d + 1
                } else {
                    d
                }
            }
            Pattern::Neighbor => torus.neighbour(src, rng.below(torus.ports())),
            Pattern::Fixed(dest) => dest[src as usize],
            Pattern::HotSpot { background, hot, p_hot } => {
                if rng.chance(*p_hot) {
                    hot[rng.below(hot.len() as u32) as usize]
                } else {
                    background[src as usize]
                }
            }
            Pattern::Matrix(m) => m.destination(src, rng),
        }
    }

    /// Whether the row of `src` restricted to the destinations `working` accepts is not empty.
    pub fn has_destination(&self, torus: &Torus, src: Node, working: impl Fn(Node) -> bool) -> bool {
        match self {
            Pattern::Uniform => (0..torus.nodes()).any(|d| d != src && working(d)),
            _ => self.row(torus, src).iter().any(|&(d, w)| w > 0.0 && working(d)),
        }
    }

    /// Draws the destination of a message generated at `src` from its row restricted to the
    /// destinations `working` accepts (renormalised: drawn again until one is accepted). The
    /// restricted row must not be empty ([`Pattern::has_destination`]).
    pub fn working_destination(&self, torus: &Torus, src: Node, rng: &mut Rng, working: impl Fn(Node) -> bool) -> Node {
        loop {
            let d = self.destination(torus, src, rng);
            if working(d) {
                return d;
            }
        }
    }

    /// The row Λ[src]: each possible destination with its probability (summing to 1).
    pub fn row(&self, torus: &Torus, src: Node) -> Vec<(Node, f64)> {
        match self {
            Pattern::Uniform => {
                let p = 1.0 / (torus.nodes() - 1) as f64;
                (0..torus.nodes()).filter(|&d| d != src).map(|d| (d, p)).collect()
            }
            Pattern::Neighbor => {
                let p = 1.0 / torus.ports() as f64;
                (0..torus.ports()).map(|port| (torus.neighbour(src, port), p)).collect()
            }
            Pattern::Fixed(dest) => vec![(dest[src as usize], 1.0)],
            Pattern::HotSpot { background, hot, p_hot } => {
                let mut row = vec![(background[src as usize], 1.0 - p_hot)];
                row.extend(hot.iter().map(|&h| (h, p_hot / hot.len() as f64)));
                row
            }
            Pattern::Matrix(m) => m.row(src),
        }
    }
}

fn bit_complement(torus: &Torus) -> Vec<Node> {
    (0..torus.nodes())
        .map(|u| torus.node_at(&torus.coordinates(u).iter().map(|x| torus.k - 1 - x).collect::<Vec<_>>()))
        .collect()
}

/// A permutation on the b bits of the node number (N = k^n = 2^b, k a power of two, b ≥ 1):
/// `map(u, b)` is the destination of node u. Dally and Towles's bit permutations: bit reversal
/// d_i = s_(b−1−i), the perfect shuffle d_i = s_((i−1) mod b), a rotation left by one bit.
fn on_index_bits(s: &Scenario, torus: &Torus, map: impl Fn(u32, u32) -> u32) -> Result<Vec<Node>, ScenarioError> {
    if !torus.k.is_power_of_two() {
        return Err(ScenarioError::new(
            "traffic",
            format!("{} is defined on the bits of the node number, so k must be a power of two (k^n = 2^b nodes), got k = {}", s.traffic, torus.k),
        ));
    }
    let b = torus.nodes().trailing_zeros();
    Ok((0..torus.nodes()).map(|u| map(u, b)).collect())
}

/// Five adjacent nodes around the centre: a plus shape in 2-D and 3-D, a run of five on a ring.
fn hot_spots(torus: &Torus) -> [Node; HOT_SPOTS] {
    let c = torus.k / 2;
    let centre = torus.node_at(&vec![c; torus.n as usize]);
    if torus.n == 1 {
        return [c - 2, c - 1, c, c + 1, c + 2].map(|x| x % torus.k);
    }
    [centre, torus.neighbour(centre, 0), torus.neighbour(centre, 1), torus.neighbour(centre, 2), torus.neighbour(centre, 3)]
}

/// The lengths in flits of new messages under `lengths=` with mean `len`: the one sampler of
/// message lengths. Fixed lengths draw nothing, so fixed-length runs are unchanged.
#[derive(Clone, Copy, Debug)]
pub enum MessageLengths {
    Fixed(u32),
    Uniform(Uniform<u32>),
    Geometric(GeometricLength),
}

impl MessageLengths {
    pub fn new(lengths: Lengths, mean: u32, samplers: Samplers) -> MessageLengths {
        match lengths {
            Lengths::Fixed => MessageLengths::Fixed(mean),
            Lengths::Uniform { lo, hi } => Uniform::new_inclusive(lo, hi).map_or(MessageLengths::Fixed(lo), MessageLengths::Uniform),
            Lengths::Geometric => MessageLengths::Geometric(GeometricLength::new(mean as f64, limits::LEN.1, samplers)),
        }
    }

    pub fn is_fixed(&self) -> bool {
        matches!(self, MessageLengths::Fixed(_))
    }
}

impl Distribution<u32> for MessageLengths {
    #[inline]
    fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        match self {
            MessageLengths::Fixed(len) => *len,
            MessageLengths::Uniform(uniform) => uniform.sample(rng),
            MessageLengths::Geometric(geometric) => geometric.sample(rng),
        }
    }
}

/// A uniformly random permutation of the nodes (Fisher–Yates), fixed by the scenario seed.
pub fn random_permutation(nodes: u32, seed: u64) -> Vec<Node> {
    let mut rng = Rng::new(seed, Stream::Pattern);
    let mut p: Vec<Node> = (0..nodes).collect();
    for i in (1..nodes as usize).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        p.swap(i, j);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_lengths_follow_their_distribution() {
        for samplers in [Samplers::Inversion, Samplers::RandDistr] {
            let mut rng = Rng::new(9, Stream::Lengths);
            let fixed = MessageLengths::new(Lengths::Fixed, 12, samplers);
            assert!(fixed.is_fixed() && (0..100).all(|_| fixed.sample(&mut rng) == 12));
            let uniform = MessageLengths::new(Lengths::Uniform { lo: 4, hi: 20 }, 12, samplers);
            let mut counts = [0u32; 25];
            for _ in 0..80_000 {
                counts[uniform.sample(&mut rng) as usize] += 1;
            }
            assert!(counts[..4].iter().chain(&counts[21..]).all(|&c| c == 0), "{counts:?}");
            assert!(counts[4..=20].iter().all(|&c| (4_300..5_100).contains(&c)), "uniform over 4..=20: {counts:?}");
            let geometric = MessageLengths::new(Lengths::Geometric, 12, samplers);
            let draws: Vec<u32> = (0..100_000).map(|_| geometric.sample(&mut rng)).collect();
            let mean = draws.iter().sum::<u32>() as f64 / draws.len() as f64;
            assert!((mean - 12.0).abs() < 0.15, "{samplers:?}: geometric mean {mean}");
        }
    }

    /// `lengths=uniform:A-B` drew `A + below(B - A + 1)` before `rand`'s `Uniform` replaced it:
    /// the same draws.
    #[test]
    fn uniform_lengths_are_the_draws_of_earlier_links() {
        let uniform = MessageLengths::new(Lengths::Uniform { lo: 3, hi: 40 }, 21, Samplers::Inversion);
        let (mut a, mut b) = (Rng::new(4, Stream::Lengths), Rng::new(4, Stream::Lengths));
        assert!((0..10_000).all(|_| uniform.sample(&mut a) == 3 + b.below(38)));
    }

    fn pattern(traffic: TrafficKind, k: u32, n: u32) -> (Pattern, Torus) {
        let s = Scenario { k, n, traffic, ..Scenario::default() };
        let t = Torus::new(k, n);
        (Pattern::new(&s, &t).unwrap(), t)
    }

    fn fixed_dest(traffic: TrafficKind, k: u32, n: u32, src: &[u32]) -> Vec<u32> {
        let (p, t) = pattern(traffic, k, n);
        let mut rng = Rng::new(1, Stream::Traffic);
        t.coordinates(p.destination(&t, t.node_at(src), &mut rng))
    }

    #[test]
    fn permutation_patterns_by_hand() {
        // Hand-computed on 8×8: BC (k−1−x, k−1−y); TP (y, x); TOR (x + 3, y); DIA (x + 4, y + 4).
        assert_eq!(fixed_dest(TrafficKind::Bitcomp, 8, 2, &[1, 2]), vec![6, 5]);
        assert_eq!(fixed_dest(TrafficKind::Transpose, 8, 2, &[1, 2]), vec![2, 1]);
        assert_eq!(fixed_dest(TrafficKind::Tornado, 8, 2, &[6, 2]), vec![1, 2]);
        assert_eq!(fixed_dest(TrafficKind::Diagonal, 8, 2, &[6, 2]), vec![2, 6]);
        // 3-D: tornado moves only the first dimension; k = 5 gives x + 2 − 1 = x + 1.
        assert_eq!(fixed_dest(TrafficKind::Tornado, 5, 3, &[4, 1, 2]), vec![0, 1, 2]);
        assert_eq!(fixed_dest(TrafficKind::Bitcomp, 4, 3, &[0, 1, 3]), vec![3, 2, 0]);
    }

    #[test]
    fn random_permutation_is_a_permutation_and_seeded() {
        let a = random_permutation(64, 9);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..64).collect::<Vec<_>>());
        assert_eq!(a, random_permutation(64, 9));
        assert_ne!(a, random_permutation(64, 10));
    }

    #[test]
    fn uniform_never_picks_the_source_and_covers_the_rest() {
        let (p, t) = pattern(TrafficKind::Uniform, 4, 2);
        let mut rng = Rng::new(5, Stream::Traffic);
        let mut seen = [0u32; 16];
        for _ in 0..16_000 {
            seen[p.destination(&t, 6, &mut rng) as usize] += 1;
        }
        assert_eq!(seen[6], 0);
        assert!(seen.iter().enumerate().all(|(d, &c)| d == 6 || (900..1250).contains(&c)), "{seen:?}");
    }

    #[test]
    fn restricted_rows_skip_failed_destinations() {
        let failed = |d: Node| d == 9 || d == 63;
        let working = |d: Node| !failed(d);
        let (uniform, t) = pattern(TrafficKind::Uniform, 8, 2);
        let mut rng = Rng::new(2, Stream::Traffic);
        let draws: Vec<Node> = (0..5_000).map(|_| uniform.working_destination(&t, 0, &mut rng, working)).collect();
        assert!(draws.iter().all(|&d| d != 0 && !failed(d)));
        assert_eq!(draws.iter().collect::<std::collections::BTreeSet<_>>().len(), 61);
        // Bit complement sends 0 to 63: with 63 failed, node 0 has nowhere to send.
        let (bitcomp, _) = pattern(TrafficKind::Bitcomp, 8, 2);
        assert!(!bitcomp.has_destination(&t, 0, working) && bitcomp.has_destination(&t, 1, working));
        // A neighbour pattern keeps the working neighbours: node 1's are 0, 2, 9 and 57.
        let (neighbour, _) = pattern(TrafficKind::Neighbor, 8, 2);
        assert!((0..400).all(|_| neighbour.working_destination(&t, 1, &mut rng, working) != 9));
    }

    #[test]
    fn rows_sum_to_one_and_hot_columns_sum_to_five() {
        for traffic in [TrafficKind::Uniform, TrafficKind::Neighbor, TrafficKind::Hotspot, TrafficKind::Transpose] {
            let (p, t) = pattern(traffic, 8, 2);
            let mut column = vec![0.0; 64];
            for s in 0..t.nodes() {
                let row = p.row(&t, s);
                assert!((row.iter().map(|r| r.1).sum::<f64>() - 1.0).abs() < 1e-12);
                for (d, w) in row {
                    column[d as usize] += w;
                }
            }
            if let Pattern::HotSpot { hot, .. } = &p {
                for h in hot {
                    assert!((column[*h as usize] - 5.0).abs() < 1e-9, "{traffic}: {}", column[*h as usize]);
                }
                let distinct: std::collections::BTreeSet<_> = hot.iter().collect();
                assert_eq!(distinct.len(), 5);
            }
        }
    }

    /// Bit i of node number u.
    fn bit(u: u32, i: u32) -> u32 {
        u >> i & 1
    }

    #[test]
    fn bit_reversal_and_shuffle_follow_their_definitions_on_the_node_bits() {
        for (k, n) in [(2, 1), (2, 3), (4, 2), (8, 2), (16, 1), (4, 3), (16, 2)] {
            let (reversal, t) = pattern(TrafficKind::Bitrev, k, n);
            let (shuffle, _) = pattern(TrafficKind::Shuffle, k, n);
            let b = t.nodes().trailing_zeros();
            let mut rng = Rng::new(1, Stream::Traffic);
            for u in 0..t.nodes() {
                let (r, sh) = (reversal.destination(&t, u, &mut rng), shuffle.destination(&t, u, &mut rng));
                for i in 0..b {
                    // d_i = s_(b−1−i); d_i = s_((i−1) mod b).
                    assert_eq!(bit(r, i), bit(u, b - 1 - i), "bitrev k={k} n={n}: {u} → {r}");
                    assert_eq!(bit(sh, i), bit(u, (i + b - 1) % b), "shuffle k={k} n={n}: {u} → {sh}");
                }
                assert!(r < t.nodes() && sh < t.nodes());
            }
        }
        // By hand on 4×4 (b = 4): 1 = 0001 → 1000 = 8 and → 0010 = 2; 11 = 1011 → 1101 = 13 and
        // → 0111 = 7; as coordinates (x, y) = (u mod 4, u div 4): (3, 2) → (1, 3) and (3, 1).
        assert_eq!(fixed_dest(TrafficKind::Bitrev, 4, 2, &[1, 0]), vec![0, 2]);
        assert_eq!(fixed_dest(TrafficKind::Shuffle, 4, 2, &[1, 0]), vec![2, 0]);
        assert_eq!(fixed_dest(TrafficKind::Bitrev, 4, 2, &[3, 2]), vec![1, 3]);
        assert_eq!(fixed_dest(TrafficKind::Shuffle, 4, 2, &[3, 2]), vec![3, 1]);
    }

    #[test]
    fn bit_permutations_need_k_a_power_of_two() {
        for traffic in ["bitrev", "shuffle"] {
            let e = Scenario::parse(&format!("k=6&traffic={traffic}")).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("traffic: {traffic} is defined on the bits of the node number, so k must be a power of two (k^n = 2^b nodes), got k = 6")
            );
            assert!(Scenario::parse(&format!("k=16&n=1&traffic={traffic}")).is_ok());
        }
    }

    #[test]
    fn hot_nodes_and_fraction_set_the_hot_spot() {
        // Listed hot nodes, each five times as likely: p = 4 / (64/2 − 1) = 4/31.
        let s = Scenario::parse("k=8&traffic=hotspot&hot=9,40").unwrap();
        let t = Torus::new(8, 2);
        let p = Pattern::new(&s, &t).unwrap();
        let mut column = [0.0; 64];
        for src in 0..64 {
            let row = p.row(&t, src);
            assert!((row.iter().map(|r| r.1).sum::<f64>() - 1.0).abs() < 1e-12);
            row.iter().for_each(|&(d, w)| column[d as usize] += w);
        }
        assert!((column[9] - 5.0).abs() < 1e-9 && (column[40] - 5.0).abs() < 1e-9, "{} {}", column[9], column[40]);
        // A fraction of the messages: a quarter to the three hot nodes, the rest bit complement.
        let s = Scenario::parse("k=8&traffic=hotspot&hot=0,1,2&hotfrac=0.25").unwrap();
        let p = Pattern::new(&s, &t).unwrap();
        let mut rng = Rng::new(3, Stream::Traffic);
        let hot = (0..40_000).filter(|_| p.destination(&t, 20, &mut rng) < 3).count();
        assert!((9_400..10_600).contains(&hot), "{hot} of 40000 to the hot nodes");
        assert_eq!(p.row(&t, 20), vec![(43, 0.75), (0, 0.25 / 3.0), (1, 0.25 / 3.0), (2, 0.25 / 3.0)]);
        // The default is seed 004's five around the centre, as before these keys.
        let default = Scenario::parse("k=8&traffic=hotspot").unwrap();
        assert!(default.canonical().contains("&hot=&hotfrac=auto&pseed=auto"));
        let Pattern::HotSpot { hot, p_hot, .. } = Pattern::new(&default, &t).unwrap() else { panic!() };
        assert_eq!((hot, p_hot), (vec![36, 37, 35, 44, 28], 4.0 / (64.0 / 5.0 - 1.0)));
        for (bad, error) in [
            ("k=8&traffic=uniform&hot=3", "hot: belongs to traffic=hotspot, not traffic=uniform; leave it out or set it to its default"),
            ("k=8&traffic=hotspot&hot=64", "hot: node 64 is not in the 8-ary 2-cube (nodes 0 to 63)"),
            ("k=8&traffic=hotspot&hot=3,3", "hot: node 3 is listed twice"),
            ("k=4&traffic=hotspot&hot=1,2,3,4", "hot: 4 hot nodes of 16 cannot each be five times as likely as any other destination; list at most 3 or set hotfrac"),
            ("k=8&traffic=hotspot&hotfrac=1.5", "hotfrac: must be a number in [0, 1] or auto, got `1.5`"),
            ("k=8&traffic=tornado&pseed=4", "pseed: draws traffic=permutation's permutation, not traffic=tornado; use pseed=auto"),
            ("k=8&traffic=permutation&pseed=x", "pseed: must be an integer from 0 to 18446744073709551615 or auto, got `x`"),
        ] {
            assert_eq!(Scenario::parse(bad).unwrap_err().to_string(), error, "{bad}");
        }
        assert!(Scenario::parse("k=4&traffic=hotspot&hot=1,2,3,4&hotfrac=0.5").is_ok());
    }

    #[test]
    fn the_permutation_seed_fixes_the_permutation_whatever_the_seed() {
        let t = Torus::new(8, 2);
        let dest = |text: &str| match Pattern::new(&Scenario::parse(text).unwrap(), &t).unwrap() {
            Pattern::Fixed(d) => d,
            _ => unreachable!(),
        };
        let fixed = dest("k=8&traffic=permutation&pseed=5&seed=1");
        assert_eq!(fixed, dest("k=8&traffic=permutation&pseed=5&seed=2"));
        // auto draws from the seed, as every link before the key did.
        assert_eq!(fixed, dest("k=8&traffic=permutation&seed=5"));
        assert_eq!(fixed, random_permutation(64, 5));
        assert_ne!(dest("k=8&traffic=permutation&seed=1"), dest("k=8&traffic=permutation&seed=2"));
    }
}
