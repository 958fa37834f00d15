//! Scouting-switching latency model of seed 001: Safaei, Khonsari, Fathy, Talebanfard and
//! Ould-Khaoua, "Communication-prediction of scouting switching in adaptively-routed torus
//! networks", NPC 2007 (`seeds/001_6f667f96e44d0022.txt`), as specified in
//! `models/scouting.md`.
//!
//! A 2-D k × k torus, minimal fully adaptive routing in which every VC of a useful channel may
//! be taken, and scouting switching with probe lead K (K = 0 is wormhole): a header that finds
//! every usable VC busy sends a negative acknowledgement, steps back one node and tries again.
//! Poisson sources, uniform destinations, M-flit messages, unbounded source queues.
//!
//! The equations are solved by the monotone fixed-point iteration of the specification (§4),
//! starting from an idle network, so the model reports the least fixed point or "saturated".
//!
//! # Quantities reported
//!
//! | key | meaning |
//! |---|---|
//! | `lambda_c` | messages per cycle on one unidirectional channel, header re-visits included |
//! | `P_v[v]`, `P_V` | probability that v VCs of a channel are busy; that all V are |
//! | `Pb[i]` | probability that the header is blocked after i hops |
//! | `blocking_per_hop` | mean of `Pb[i]` over the D hops of the mean path |
//! | `C` | mean path set-up time (cycles) |
//! | `S`, `S_min` | mean network latency and its blocking-free value (cycles) |
//! | `W_s` | mean wait in the source queue (cycles) |
//! | `V_bar` | mean VC multiplexing degree |
//!
//! # Where the model differs from the simulator
//!
//! - **Zero-load latency.** With the printed eq. (4) the header's D hops are counted twice, so
//!   an idle network gives M + 2D + 2K − 1 cycles; the simulator gives M + H for an H-hop
//!   wormhole message. [`NetworkLatencyForm::SetupIncludesHops`] gives M + D + 2K − 1, which is
//!   the reading to set beside measurements.
//! - **K = 0 has no blocking delay.** Eq. (7) allows no backtrack when K = 0, so the set-up time
//!   is D − 1 at every load and latency grows only through W_s and V̄. A simulated wormhole
//!   header waits where it is blocked; this model never charges that wait.
//! - **Backtracks are charged as whole messages.** Eq. (3) adds i·Pb_i channel visits for a
//!   block after i hops, as if the header started again from the source, and counts them as
//!   full message arrivals in the source queue and VC-occupancy terms. This over-states the
//!   channel load; it alone sets the saturation point for K = 0.
//! - **Mean path.** Every message is given the mean distance D = k/2 hops (the average over all
//!   k² destinations, the source included); the simulator never sends a message to its own
//!   source, so its mean distance is slightly longer, N·k/(2(N − 1)).
//! - **Buffers and arbitration.** Buffer depth does not appear in the model, and a free VC is
//!   taken at random; the simulator has `buf`-flit buffers and age-based arbitration.

use super::{Evaluation, LatencyModel};
use crate::scenario::{RoutingKind, Scenario, Switching, TrafficKind};
use std::collections::BTreeMap;

/// Relative change between rounds below which the fixed point counts as converged (§4).
const CONVERGENCE_TOLERANCE: f64 = 1e-12;
/// Rounds of the fixed-point iteration before giving up. Below 0.999 of saturation the
/// iteration converges in a few hundred rounds; only a rate at the fold itself runs this long.
const MAX_ROUNDS: usize = 20_000;
/// Bisection steps for the saturation rate: 2⁻⁵⁰ of the bracket is far below any tolerance.
const BISECTION_STEPS: usize = 50;

/// What eq. (4) adds to the path set-up time (§6 of the specification).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NetworkLatencyForm {
    /// S = C + D + M, as printed: the header's hops are counted in C and again in D.
    #[default]
    Printed,
    /// S = C + M: the set-up time already contains the header's hops.
    SetupIncludesHops,
}

/// What a header refused at its source costs (§5.1 of the specification).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SourceRefusal {
    /// The printed eq. (5) at i = 0: C_{0,j} = 1 + C_{1,j}; the wait is left to W_s.
    #[default]
    Free,
    /// One cycle per refused attempt: C_{0,j} = C_{1,j} + 1/(1 − Pb_0).
    Retry,
}

/// Whether eq. (3) charges backtrack re-visits when K = 0 (§6 of the specification).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BacktrackTraffic {
    /// The printed form: the re-visit term for every K, although K = 0 never backtracks.
    #[default]
    EveryProbeLead,
    /// Drop the re-visit term for K = 0 (plain wormhole).
    ScoutingOnly,
}

/// One reading of the paper's ambiguous equations; the default is the specification's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoutingReading {
    pub network_latency: NetworkLatencyForm,
    pub source_refusal: SourceRefusal,
    pub backtrack_traffic: BacktrackTraffic,
}

/// The scouting-switching model of seed 001 under one reading of its equations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoutingModel {
    pub reading: ScoutingReading,
}

/// Why the scouting model does not describe `s`, or `Ok` when its assumptions hold.
pub fn assumptions_hold(s: &Scenario) -> Result<(), String> {
    if s.switching != Switching::Scouting {
        return Err(format!(
            "the scouting model assumes switching=scouting (K = 0 included), in which a blocked \
             header backs off and retries; with switching={} it waits where it is blocked",
            s.switching
        ));
    }
    if s.routing != RoutingKind::Adaptive {
        return Err(format!(
            "the scouting model assumes minimal fully adaptive routing with every VC usable \
             (routing=adaptive); routing={} is not",
            s.routing
        ));
    }
    if s.traffic != TrafficKind::Uniform {
        return Err(format!("the scouting model assumes uniform traffic; {} is not uniform", s.traffic));
    }
    if s.beta > 0.0 {
        return Err(format!("the scouting model assumes unicast traffic only; beta = {} adds broadcasts", s.beta));
    }
    if s.n != 2 {
        return Err(format!("the scouting model is for 2-D tori; n = {}", s.n));
    }
    if mean_path(s.k).is_none() {
        return Err(format!(
            "the scouting model follows one mean path of k/2 hops, which needs an even k; k = {}",
            s.k
        ));
    }
    Ok(())
}

/// The single mean path that stands for every message.
#[derive(Clone, Copy, Debug)]
struct MeanPath {
    /// k̄, mean hops per dimension.
    hops_per_dimension: f64,
    /// D, hops per message.
    hops: usize,
}

/// Eq. (2) of seed 001: k̄ = k/4 and D = 2k̄. `None` for odd k, whose D is not a whole number
/// of hops.
fn mean_path(k: u32) -> Option<MeanPath> {
    (k % 2 == 0).then(|| MeanPath { hops_per_dimension: k as f64 / 4.0, hops: (k / 2) as usize })
}

/// Eq. (8) of seed 001: P_φ,i, the probability that only one dimension is left after i hops.
/// The printed range "k̄ ≤ i < D − 1" is read as "≤ D − 1", where the formula gives 1.
fn one_dimension_left(hops_made: usize, path: MeanPath) -> f64 {
    if hops_made + 1 >= path.hops {
        1.0
    } else if (hops_made as f64) < path.hops_per_dimension {
        0.0
    } else {
        2.0 / (path.hops - hops_made + 1) as f64
    }
}

/// Eqs. (9)–(10) of seed 001: Pb_i = (1 − P_φ,i)·P_V² + P_φ,i·P_V for i = 0..D−1. With two
/// dimensions left the header is blocked only if both useful channels are full.
fn blocking_probabilities(path: MeanPath, all_vcs_busy: f64) -> Vec<f64> {
    (0..path.hops)
        .map(|hops_made| {
            let one_left = one_dimension_left(hops_made, path);
            (1.0 - one_left) * all_vcs_busy * all_vcs_busy + one_left * all_vcs_busy
        })
        .collect()
}

/// Eq. (3) of seed 001: λ_c = λ_g (D + Σ_{i<D} i·Pb_i)/4, a header blocked after i hops
/// being charged i extra channel visits.
fn channel_rate(rate: f64, path: MeanPath, blocking: &[f64], count_revisits: bool) -> f64 {
    let revisits: f64 = if count_revisits {
        blocking.iter().enumerate().map(|(hops_made, pb)| hops_made as f64 * pb).sum()
    } else {
        0.0
    };
    rate * (path.hops as f64 + revisits) / 4.0
}

/// Eq. (6) of seed 001: P^t_j, the probability that the current place takes a backtrack when
/// t − j of t backtracks remain to be spread over D places, C(t−j+D−2, D−1)/C(t−j+D−1, D−1),
/// which simplifies to (t − j)/(t − j + D − 1).
fn backtrack_probability(total: usize, made: usize, hops: usize) -> f64 {
    if made >= total {
        return 0.0;
    }
    let remaining = (total - made) as f64;
    remaining / (remaining + hops as f64 - 1.0)
}

/// Eq. (5) of seed 001: C^t_{0,0}, the expected time for a header that will backtrack t times
/// to reach the destination, from
/// C^t_{i,j} = (1 − P^t_j Pb_i) C^t_{i+1,j} + P^t_j Pb_i C^t_{i−1,j+1} + 1 for 0 < i < D,
/// C^t_{D,j} = 0 and, at the source, C^t_{0,j} = 1 + C^t_{1,j} (or C^t_{1,j} + 1/(1 − Pb_0)
/// with [`SourceRefusal::Retry`]). `None` when a retried source can never get a channel.
///
/// Rows are solved from j = t (no backtrack left: C^t_{i,t} = D − i) down to j = 0; each entry
/// needs only its own row further on and the row above one place back.
fn setup_time_with_backtracks(
    backtracks: usize,
    blocking: &[f64],
    refusal: SourceRefusal,
    row_above: &mut Vec<f64>,
    row: &mut Vec<f64>,
) -> Option<f64> {
    let hops = blocking.len();
    let source_step = match refusal {
        SourceRefusal::Free => 1.0,
        SourceRefusal::Retry if blocking[0] < 1.0 => 1.0 / (1.0 - blocking[0]),
        SourceRefusal::Retry => return None,
    };
    row_above.clear();
    row_above.extend((0..=hops).map(|hops_made| (hops - hops_made) as f64));
    row_above[0] = row_above[1] + source_step;
    row.clear();
    row.resize(hops + 1, 0.0);
    for made in (0..backtracks).rev() {
        let backtrack = backtrack_probability(backtracks, made, hops);
        row[hops] = 0.0;
        for hops_made in (1..hops).rev() {
            let back_off = backtrack * blocking[hops_made];
            row[hops_made] = (1.0 - back_off) * row[hops_made + 1] + back_off * row_above[hops_made - 1] + 1.0;
        }
        row[0] = row[1] + source_step;
        std::mem::swap(row, row_above);
    }
    Some(row_above[0])
}

/// Eq. (7) of seed 001: C = (1/(K+1)) Σ_{t=0..K} (C^t_{0,0} + 2K − 1), every number of
/// backtracks up to the probe lead being equally likely; 2K − 1 is the largest gap between
/// the header and the first data flit.
fn mean_setup_time(probe_lead: usize, blocking: &[f64], refusal: SourceRefusal) -> Option<f64> {
    let mut row_above = Vec::with_capacity(blocking.len() + 1);
    let mut row = Vec::with_capacity(blocking.len() + 1);
    let mut total = 0.0;
    for backtracks in 0..=probe_lead {
        total += setup_time_with_backtracks(backtracks, blocking, refusal, &mut row_above, &mut row)?;
    }
    Some(total / (probe_lead + 1) as f64 + 2.0 * probe_lead as f64 - 1.0)
}

/// Eq. (4) of seed 001: S = C + D + M as printed, or C + M when the set-up time is taken to
/// contain the header's hops.
fn network_latency(setup: f64, path: MeanPath, len: f64, form: NetworkLatencyForm) -> f64 {
    match form {
        NetworkLatencyForm::Printed => setup + path.hops as f64 + len,
        NetworkLatencyForm::SetupIncludesHops => setup + len,
    }
}

/// Eq. (11) of seed 001: W_s = (λ_g/V)(S² + (S − S_min)²) / (2(1 − (λ_g/V) S)), the M/G/1
/// wait of a source queue served by V VCs, its variance measured from the blocking-free
/// latency S_min. `None` when the queue is unstable.
fn source_wait(rate: f64, vcs: usize, latency: f64, blocking_free_latency: f64) -> Option<f64> {
    let arrivals = rate / vcs as f64;
    let load = arrivals * latency;
    if load >= 1.0 {
        return None;
    }
    let spread = latency - blocking_free_latency;
    Some(arrivals * (latency * latency + spread * spread) / (2.0 * (1.0 - load)))
}

/// Eq. (12) of seed 001 (the chain of seed 000 eq. (20) and seed 003 eqs. (29)–(30)):
/// P_v for v = 0..V from q_0 = 1, q_v = q_{v−1} λ_c S for 0 < v < V and
/// q_V = q_{V−1} λ_c/(1/S − λ_c). Needs λ_c S < 1.
pub(crate) fn vc_occupancy(channel_rate: f64, service_time: f64, vcs: usize) -> Vec<f64> {
    let load = channel_rate * service_time;
    let mut weights = Vec::with_capacity(vcs + 1);
    weights.push(1.0);
    for busy in 1..=vcs {
        let previous = weights[busy - 1];
        let growth = if busy < vcs { load } else { load / (1.0 - load) };
        weights.push(previous * growth);
    }
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

/// Eq. (13) of seed 001 (seed 003 eq. (31)): V̄ = Σ v² P_v / Σ v P_v, the mean number of
/// messages sharing a busy channel; 1 at zero load, where no VC is busy.
pub(crate) fn multiplexing_degree(occupancy: &[f64]) -> f64 {
    let (squares, firsts) = occupancy
        .iter()
        .enumerate()
        .skip(1)
        .fold((0.0, 0.0), |(sq, first), (busy, p)| (sq + (busy * busy) as f64 * p, first + busy as f64 * p));
    if firsts > 0.0 {
        squares / firsts
    } else {
        1.0
    }
}

fn relative_change(new: f64, old: f64) -> f64 {
    if new == old {
        0.0
    } else {
        (new - old).abs() / new.abs().max(old.abs())
    }
}

/// The converged state of the equations at one rate.
struct Solution {
    channel_rate: f64,
    occupancy: Vec<f64>,
    blocking: Vec<f64>,
    setup: f64,
    network_latency: f64,
    blocking_free_latency: f64,
    source_wait: f64,
    multiplexing: f64,
}

impl Solution {
    /// Eq. (1) of seed 001: L = (S + W_s) V̄.
    fn latency(&self) -> f64 {
        (self.network_latency + self.source_wait) * self.multiplexing
    }

    fn quantities(&self) -> BTreeMap<String, f64> {
        let mut q = BTreeMap::new();
        q.insert("lambda_c".to_string(), self.channel_rate);
        for (busy, p) in self.occupancy.iter().enumerate() {
            q.insert(format!("P_v[{busy}]"), *p);
        }
        q.insert("P_V".to_string(), *self.occupancy.last().unwrap_or(&0.0));
        for (hops_made, pb) in self.blocking.iter().enumerate() {
            q.insert(format!("Pb[{hops_made}]"), *pb);
        }
        let mean_blocking = self.blocking.iter().sum::<f64>() / self.blocking.len().max(1) as f64;
        q.insert("blocking_per_hop".to_string(), mean_blocking);
        q.insert("C".to_string(), self.setup);
        q.insert("S".to_string(), self.network_latency);
        q.insert("S_min".to_string(), self.blocking_free_latency);
        q.insert("W_s".to_string(), self.source_wait);
        q.insert("V_bar".to_string(), self.multiplexing);
        q
    }
}

impl ScoutingModel {
    /// The model's dimensions for `s`, or `None` when the equations cannot be set up at all.
    fn dimensions(s: &Scenario) -> Option<(MeanPath, usize, f64, usize)> {
        if s.n != 2 || s.vcs == 0 || s.len == 0 {
            return None;
        }
        Some((mean_path(s.k)?, s.vcs as usize, s.len as f64, s.scout as usize))
    }

    /// Network latency S of an idle network, with no blocking anywhere.
    fn zero_load_network_latency(&self, path: MeanPath, len: f64, probe_lead: usize) -> f64 {
        let idle = vec![0.0; path.hops];
        let setup = mean_setup_time(probe_lead, &idle, SourceRefusal::Free).unwrap_or(f64::INFINITY);
        network_latency(setup, path, len, self.reading.network_latency)
    }

    /// §4 of the specification: iterate from P_V = 0 until S and λ_c both settle.
    fn solve(&self, s: &Scenario, rate: f64) -> Option<Solution> {
        let (path, vcs, len, probe_lead) = Self::dimensions(s)?;
        if !(rate >= 0.0 && rate.is_finite()) {
            return None;
        }
        let count_revisits =
            probe_lead > 0 || self.reading.backtrack_traffic == BacktrackTraffic::EveryProbeLead;
        let mut all_vcs_busy = 0.0;
        let mut previous: Option<(f64, f64)> = None;
        for _ in 0..MAX_ROUNDS {
            let blocking = blocking_probabilities(path, all_vcs_busy);
            let lambda_c = channel_rate(rate, path, &blocking, count_revisits);
            let setup = mean_setup_time(probe_lead, &blocking, self.reading.source_refusal)?;
            let latency = network_latency(setup, path, len, self.reading.network_latency);
            if lambda_c * latency >= 1.0 {
                return None;
            }
            let occupancy = vc_occupancy(lambda_c, latency, vcs);
            let settled = previous.is_some_and(|(old_latency, old_rate)| {
                relative_change(latency, old_latency) <= CONVERGENCE_TOLERANCE
                    && relative_change(lambda_c, old_rate) <= CONVERGENCE_TOLERANCE
            });
            if settled {
                let blocking_free_latency = len + 2.0 * probe_lead as f64 - 1.0 + path.hops as f64;
                let source_wait = source_wait(rate, vcs, latency, blocking_free_latency)?;
                let multiplexing = multiplexing_degree(&occupancy);
                return Some(Solution {
                    channel_rate: lambda_c,
                    occupancy,
                    blocking,
                    setup,
                    network_latency: latency,
                    blocking_free_latency,
                    source_wait,
                    multiplexing,
                });
            }
            all_vcs_busy = occupancy[vcs];
            previous = Some((latency, lambda_c));
        }
        None
    }
}

impl LatencyModel for ScoutingModel {
    fn name(&self) -> &'static str {
        "scouting"
    }

    fn describe(&self) -> &'static str {
        "Seed 001 (Safaei et al., NPC 2007): scouting switching with probe lead K in a 2-D torus, \
         minimal fully adaptive routing, uniform Poisson traffic; a blocked header backs off and \
         retries"
    }

    fn evaluate(&self, s: &Scenario, rate: f64) -> Evaluation {
        match self.solve(s, rate) {
            Some(solution) => Evaluation { latency: Some(solution.latency()), quantities: solution.quantities() },
            None => Evaluation::default(),
        }
    }

    /// Bisection below min(4/(D S_0), V/S_0), S_0 the zero-load network latency: beyond either
    /// bound λ_c S or (λ_g/V) S reaches 1 even without blocking (§4).
    fn saturation_rate(&self, s: &Scenario) -> f64 {
        let Some((path, vcs, len, probe_lead)) = Self::dimensions(s) else {
            return 0.0;
        };
        let idle_latency = self.zero_load_network_latency(path, len, probe_lead);
        let mut lo = 0.0;
        let mut hi = (4.0 / (path.hops as f64 * idle_latency)).min(vcs as f64 / idle_latency);
        for _ in 0..BISECTION_STEPS {
            let mid = 0.5 * (lo + hi);
            if self.solve(s, mid).is_some() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(k: u32, vcs: u32, len: u32, probe_lead: u32) -> Scenario {
        Scenario {
            k,
            vcs,
            len,
            scout: probe_lead,
            routing: RoutingKind::Adaptive,
            switching: Switching::Scouting,
            ..Scenario::default()
        }
    }

    /// §7 of `models/scouting.md`: k, V, M, K, rate, λ_c, P_V, C, S, W_s, V̄, latency.
    const REFERENCE: &[(u32, u32, u32, u32, f64, [f64; 7])] = &[
        (8, 6, 32, 0, 0.004, [0.004000062, 1.441412e-05, 3.0, 39.0, 0.5260096, 1.369502, 54.13095]),
        (8, 6, 32, 0, 0.008, [0.008008046, 0.0009279976, 3.0, 39.0, 1.080872, 1.897157, 76.0397]),
        (8, 6, 32, 0, 0.012, [0.01214763, 0.01130671, 3.0, 39.0, 1.667028, 2.663297, 108.3084]),
        (8, 6, 32, 0, 0.015, [0.01596979, 0.05836912, 3.0, 39.0, 2.128809, 3.558687, 146.3646]),
        (8, 6, 32, 3, 0.004, [0.004000147, 3.401989e-05, 9.000033, 45.00003, 0.7013757, 1.438636, 65.7477]),
        (8, 6, 32, 3, 0.008, [0.00801916, 0.002208875, 9.002122, 45.00212, 1.44767, 2.102734, 97.67154]),
        (8, 6, 32, 3, 0.012, [0.01239824, 0.03028091, 9.029961, 45.02996, 2.246234, 3.153161, 149.0695]),
        (8, 6, 64, 6, 0.002, [0.002000045, 2.092708e-05, 15.00003, 83.00003, 1.18358, 1.397841, 117.6753]),
        (8, 6, 64, 6, 0.004, [0.004005858, 0.001351148, 15.00194, 83.00194, 2.436608, 1.979992, 169.1676]),
        (8, 6, 64, 6, 0.006, [0.00611168, 0.01706941, 15.02505, 83.02505, 3.767475, 2.851885, 247.5223]),
        (8, 1, 32, 0, 0.002, [0.002191246, 0.08545861, 3.0, 39.0, 1.667028, 1.0, 40.66703]),
        (8, 1, 32, 0, 0.005, [0.00650937, 0.2538654, 3.0, 39.0, 4.773292, 1.0, 43.77329]),
        (8, 1, 32, 0, 0.008, [0.01347526, 0.5255353, 3.0, 39.0, 8.936047, 1.0, 47.93605]),
        (8, 1, 32, 0, 0.01, [0.02324625, 0.9066038, 3.0, 39.0, 12.59836, 1.0, 51.59836]),
        (8, 1, 32, 1, 0.002, [0.002202671, 0.09039752, 5.039956, 41.03996, 1.852666, 1.0, 42.89262]),
        (8, 1, 32, 1, 0.005, [0.006632904, 0.2728299, 5.132801, 41.1328, 5.378667, 1.0, 46.51147]),
        (8, 1, 32, 1, 0.008, [0.01426829, 0.5895735, 5.320534, 41.32053, 10.31348, 1.0, 51.63402]),
        (16, 6, 64, 3, 0.001, [0.002000091, 2.41442e-05, 13.00002, 85.00002, 0.6161457, 1.409371, 120.665]),
        (16, 6, 64, 3, 0.002, [0.00401189, 0.001572707, 13.00131, 85.00131, 1.2503, 2.016072, 173.8895]),
        (16, 6, 64, 3, 0.003, [0.00626322, 0.02279839, 13.01972, 85.01972, 1.904111, 2.998086, 260.6051]),
        (16, 1, 32, 6, 0.0005, [0.00113372, 0.06700896, 19.10539, 59.10539, 0.9168826, 1.0, 60.02228]),
        (16, 1, 32, 6, 0.001, [0.002681795, 0.1590081, 19.29168, 59.29168, 1.905083, 1.0, 61.19676]),
        (16, 1, 32, 6, 0.0015, [0.005251638, 0.3136154, 19.71764, 59.71764, 3.000412, 1.0, 62.71805]),
    ];
    const REFERENCE_KEYS: [&str; 7] = ["lambda_c", "P_V", "C", "S", "W_s", "V_bar", "latency"];

    /// §7 of `models/scouting.md`: k, V, M, K and the saturation rates of the default,
    /// `s_form=setup-includes-hops`, `source=retry` and `backtrack_traffic=scouting-only`
    /// readings, printed to six decimals.
    const SATURATION: &[(u32, u32, u32, u32, [f64; 4])] = &[
        (8, 1, 32, 0, [0.010256, 0.011429, 0.009212, 0.025641]),
        (8, 1, 32, 1, [0.009620, 0.010644, 0.008655, 0.009620]),
        (8, 1, 32, 3, [0.008537, 0.009334, 0.007715, 0.008537]),
        (8, 1, 32, 6, [0.007272, 0.007843, 0.006632, 0.007272]),
        (8, 1, 64, 0, [0.005634, 0.005970, 0.005200, 0.014085]),
        (8, 1, 64, 1, [0.005436, 0.005749, 0.005013, 0.005436]),
        (8, 1, 64, 3, [0.005073, 0.005344, 0.004673, 0.005073]),
        (8, 1, 64, 6, [0.004598, 0.004819, 0.004239, 0.004598]),
        (8, 6, 32, 0, [0.015957, 0.017780, 0.015946, 0.025641]),
        (8, 6, 32, 1, [0.015151, 0.016786, 0.015141, 0.015151]),
        (8, 6, 32, 3, [0.013774, 0.015112, 0.013766, 0.013774]),
        (8, 6, 32, 6, [0.012136, 0.013163, 0.012130, 0.012136]),
        (8, 6, 64, 0, [0.008765, 0.009288, 0.008762, 0.014085]),
        (8, 6, 64, 1, [0.008516, 0.009009, 0.008513, 0.008516]),
        (8, 6, 64, 3, [0.008063, 0.008504, 0.008060, 0.008063]),
        (8, 6, 64, 6, [0.007472, 0.007849, 0.007470, 0.007472]),
        (16, 1, 32, 0, [0.002403, 0.002896, 0.002346, 0.010638]),
        (16, 1, 32, 1, [0.002283, 0.002724, 0.002233, 0.002283]),
        (16, 1, 32, 3, [0.002078, 0.002436, 0.002037, 0.002078]),
        (16, 1, 32, 6, [0.001832, 0.002106, 0.001803, 0.001832]),
        (16, 1, 64, 0, [0.001430, 0.001591, 0.001407, 0.006329]),
        (16, 1, 64, 1, [0.001386, 0.001537, 0.001365, 0.001386]),
        (16, 1, 64, 3, [0.001307, 0.001441, 0.001289, 0.001307]),
        (16, 1, 64, 6, [0.001205, 0.001318, 0.001190, 0.001205]),
        (16, 6, 32, 0, [0.006020, 0.007255, 0.006019, 0.010638]),
        (16, 6, 32, 1, [0.005771, 0.006896, 0.005770, 0.005771]),
        (16, 6, 32, 3, [0.005330, 0.006276, 0.005329, 0.005330]),
        (16, 6, 32, 6, [0.004784, 0.005532, 0.004783, 0.004784]),
        (16, 6, 64, 0, [0.003582, 0.003985, 0.003581, 0.006329]),
        (16, 6, 64, 1, [0.003492, 0.003874, 0.003491, 0.003492]),
        (16, 6, 64, 3, [0.003325, 0.003671, 0.003325, 0.003325]),
        (16, 6, 64, 6, [0.003104, 0.003403, 0.003104, 0.003104]),
    ];

    fn readings() -> [ScoutingReading; 4] {
        let default = ScoutingReading::default();
        [
            default,
            ScoutingReading { network_latency: NetworkLatencyForm::SetupIncludesHops, ..default },
            ScoutingReading { source_refusal: SourceRefusal::Retry, ..default },
            ScoutingReading { backtrack_traffic: BacktrackTraffic::ScoutingOnly, ..default },
        ]
    }

    fn assert_relative(got: f64, want: f64, tolerance: f64, what: &str) {
        let error = (got - want).abs() / want.abs();
        assert!(error <= tolerance, "{what}: model {got}, specification {want}, relative error {error:e}");
    }

    #[test]
    fn reference_values_match_specification() {
        let model = ScoutingModel::default();
        for &(k, vcs, len, probe_lead, rate, expected) in REFERENCE {
            let evaluation = model.evaluate(&scenario(k, vcs, len, probe_lead), rate);
            let latency = evaluation.latency.expect("every reference rate is below saturation");
            for (key, want) in REFERENCE_KEYS.iter().zip(expected) {
                let got = if *key == "latency" { latency } else { evaluation.quantities[*key] };
                // The specification prints seven significant figures.
                assert_relative(got, want, 1e-6, &format!("k={k} V={vcs} M={len} K={probe_lead} rate={rate} {key}"));
            }
        }
    }

    #[test]
    fn saturation_rates_match_specification_for_every_reading() {
        for &(k, vcs, len, probe_lead, expected) in SATURATION {
            for (reading, want) in readings().into_iter().zip(expected) {
                let got = ScoutingModel { reading }.saturation_rate(&scenario(k, vcs, len, probe_lead));
                // Half a unit in the sixth decimal the specification prints, plus rounding slack.
                assert!(
                    (got - want).abs() <= 6e-7,
                    "k={k} V={vcs} M={len} K={probe_lead} {reading:?}: model {got}, specification {want}"
                );
            }
        }
    }

    #[test]
    fn variant_latencies_match_specification() {
        let s = scenario(8, 6, 32, 3);
        for (reading, want) in readings().into_iter().zip([97.67154, 82.81786, 97.67156]) {
            let got = ScoutingModel { reading }.evaluate(&s, 0.008).latency.expect("below saturation");
            assert_relative(got, want, 1e-6, &format!("{reading:?}"));
        }
    }
}
