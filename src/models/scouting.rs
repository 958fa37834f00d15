//! Scouting-switching latency model of seed 001: Safaei, Khonsari, Fathy, Talebanfard and
//! Ould-Khaoua, "Communication-prediction of scouting switching in adaptively-routed torus
//! networks", NPC 2007, as described in `docs/models/scouting.md`; section numbers (§) are
//! that page's, equation numbers the paper's.
//!
//! A 2-D k × k torus, minimal fully adaptive routing in which every VC of a useful channel may
//! be taken, and scouting switching with probe lead K (K = 0 is wormhole): a header that finds
//! every usable VC busy sends a negative acknowledgement, steps back one node and tries again.
//! Poisson sources, uniform destinations, M-flit messages, unbounded source queues.
//!
//! The equations are solved by the monotone fixed-point iteration of §4,
//! starting from an idle network, so the model reports the least fixed point or "saturated".
//!
//! # Quantities reported
//!
//! | key | meaning |
//! |---|---|
//! | `lambda_c` | messages per cycle on one unidirectional channel, header re-visits included |
//! | `P_v[v]`, `P_V` | probability that v VCs of a channel are busy; that all V are |
//! | `blocking_per_hop` | probability that the header is blocked at a hop, averaged over its hops |
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
//! - **Mean path.** By default every message is given the mean distance D = k/2 hops (the
//!   average over all k² destinations, the source included), which needs an even k. The
//!   simulator never sends a message to its own source, so its mean distance is slightly
//!   longer, N·k/(2(N − 1)), and its routes have unequal lengths; [`Distances::Exact`] averages
//!   the set-up time and the re-visit traffic over the real destinations, odd k included.
//! - **Buffers and arbitration.** Buffer depth does not appear in the model, and a free VC is
//!   taken at random; the simulator has `buf`-flit buffers and age-based arbitration.

use super::shared::{
    all_vcs_busy, destination_classes, least_fixed_point, multiplexing_degree, vc_occupancy, Distances,
};
use super::{bisect_edge, Evaluation, LatencyModel};
use crate::scenario::{RoutingKind, Scenario, Switching, TrafficKind};
use std::collections::BTreeMap;

/// The saturation rate is bisected down to this relative width. Closer to the fold the fixed
/// point converges ever more slowly, and the specification gives four significant figures.
const SATURATION_RELATIVE_WIDTH: f64 = 1e-9;

/// What eq. (4) adds to the path set-up time (§6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NetworkLatencyForm {
    /// S = C + D + M, as printed: the header's hops are counted in C and again in D.
    #[default]
    Printed,
    /// S = C + M: the set-up time already contains the header's hops.
    SetupIncludesHops,
}

/// What a header refused at its source costs (§5, item 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SourceRefusal {
    /// The printed eq. (5) at i = 0: C_{0,j} = 1 + C_{1,j}; the wait is left to W_s.
    #[default]
    Free,
    /// One cycle per refused attempt: C_{0,j} = C_{1,j} + 1/(1 − Pb_0).
    Retry,
}

/// Whether eq. (3) charges backtrack re-visits when K = 0 (§6).
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
    /// `s_form=`
    pub network_latency: NetworkLatencyForm,
    /// `source=`
    pub source_refusal: SourceRefusal,
    /// `backtrack_traffic=`
    pub backtrack_traffic: BacktrackTraffic,
    /// `mode=`. The exact form solves eq. (5) once per destination class and round, about
    /// k²/8 times the work of the mean path: fine to k = 16, seconds per saturation rate at
    /// k = 64.
    pub distances: Distances,
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
    if !s.k.is_multiple_of(2) {
        return Err(format!(
            "the scouting model follows one mean path of k/2 hops, which needs an even k; k = {} \
             (only the exact-distance reading handles odd k)",
            s.k
        ));
    }
    Ok(())
}

/// One route length a message may have, how likely it is, and after each number of hops
/// made the probability P_φ,i that only one dimension is left.
#[derive(Clone, Debug)]
struct Route {
    probability: f64,
    /// P_φ,i for i = 0..D−1; its length is the route's D.
    one_dimension_left: Vec<f64>,
}

impl Route {
    fn hops(&self) -> usize {
        self.one_dimension_left.len()
    }
}

/// The routes the model averages over: the single mean path of eqs. (2) and (8), or every
/// destination class (`mode="exact"`, §6). `None` for the mean path of
/// an odd k, whose D = k/2 is not a whole number of hops.
fn routes(k: u32, distances: Distances) -> Option<Vec<Route>> {
    match distances {
        Distances::Mean => {
            let hops = mean_hops(k)?;
            let one_left = (0..hops).map(|hops_made| one_dimension_left(hops_made, hops, k as f64 / 4.0)).collect();
            Some(vec![Route { probability: 1.0, one_dimension_left: one_left }])
        }
        // A class and its mirror image (h_y, h_x) have the same P_φ profile, so each pair is
        // solved once with both probabilities.
        Distances::Exact => Some(
            destination_classes(k)
                .iter()
                .filter(|class| class.hops_x <= class.hops_y)
                .map(|class| Route {
                    probability: class.probability * if class.hops_x < class.hops_y { 2.0 } else { 1.0 },
                    one_dimension_left: (0..class.hops()).map(|done| class.one_dimension_left(done)).collect(),
                })
                .collect(),
        ),
    }
}

/// Eq. (2) of seed 001: D = 2k̄ = k/2 hops per message, k̄ = k/4 per dimension; `None` for
/// odd k.
fn mean_hops(k: u32) -> Option<usize> {
    k.is_multiple_of(2).then_some((k / 2) as usize)
}

/// Eq. (8) of seed 001: P_φ,i, the probability that only one dimension is left after i of the
/// D hops, 0 while i < k̄ and 2/(D − i + 1) after. The printed range "k̄ ≤ i < D − 1" is read
/// as "≤ D − 1", where the formula gives 1.
fn one_dimension_left(hops_made: usize, hops: usize, hops_per_dimension: f64) -> f64 {
    if hops_made + 1 >= hops {
        1.0
    } else if (hops_made as f64) < hops_per_dimension {
        0.0
    } else {
        2.0 / (hops - hops_made + 1) as f64
    }
}

/// Eqs. (9)–(10) of seed 001: Pb_i = (1 − P_φ,i)·P_V² + P_φ,i·P_V along `route`, written into
/// `blocking`. With two dimensions left the header is blocked only if both useful channels
/// are full.
fn blocking_probabilities(route: &Route, all_busy: f64, blocking: &mut Vec<f64>) {
    blocking.clear();
    blocking.extend(
        route.one_dimension_left.iter().map(|one_left| (1.0 - one_left) * all_busy * all_busy + one_left * all_busy),
    );
}

/// The re-visit term of eq. (3) of seed 001, Σ_{i<D} i·Pb_i: a header blocked after i hops
/// is charged i extra channel visits.
fn revisits(blocking: &[f64]) -> f64 {
    blocking.iter().enumerate().map(|(hops_made, pb)| hops_made as f64 * pb).sum()
}

/// Eq. (3) of seed 001: λ_c = λ_g (D + Σ_{i<D} i·Pb_i)/4, with the route averages of D and of
/// the re-visit term.
fn channel_rate(rate: f64, hops: f64, revisits: f64) -> f64 {
    rate * (hops + revisits) / 4.0
}

/// Eq. (6) of seed 001: P^t_j, the probability that the current place takes a backtrack when
/// `remaining` = t − j of the t backtracks are still to be spread over the D places:
/// C(t−j+D−2, D−1)/C(t−j+D−1, D−1) = (t − j)/(t − j + D − 1), and 0 when none remain.
fn backtrack_probability(remaining: usize, hops: usize) -> f64 {
    if remaining == 0 {
        return 0.0;
    }
    remaining as f64 / (remaining + hops - 1) as f64
}

/// Two rows of eq. (5) over i = 0..D, kept between rounds so that a round allocates nothing.
#[derive(Default)]
struct SetupRows {
    fewer_remaining: Vec<f64>,
    current: Vec<f64>,
}

/// Eqs. (5) and (7) of seed 001: the mean path set-up time
/// C = (1/(K+1)) Σ_{t=0..K} (C^t_{0,0} + 2K − 1), every number of backtracks t up to the
/// probe lead being equally likely, 2K − 1 being the largest gap between the header and the
/// first data flit. C^t_{0,0} solves the difference equations (5),
/// C^t_{i,j} = (1 − P^t_j Pb_i) C^t_{i+1,j} + P^t_j Pb_i C^t_{i−1,j+1} + 1 for 0 < i < D,
/// C^t_{D,j} = 0 and, at the source, C^t_{0,j} = 1 + C^t_{1,j} (or C^t_{1,j} + 1/(1 − Pb_0)
/// with [`SourceRefusal::Retry`]). `None` when a retried source can never get a channel.
///
/// P^t_j depends on t and j only through the backtracks still to come, r = t − j, and so
/// does the whole row: C^t_{·,j} = R_{t−j}, where R_0 = D − i (no backtrack left) and R_r
/// follows from R_{r−1}. One pass over r = 0..K therefore gives C^t_{0,0} = R_t[0] for
/// every t.
fn mean_setup_time(probe_lead: usize, blocking: &[f64], refusal: SourceRefusal, rows: &mut SetupRows) -> Option<f64> {
    let hops = blocking.len();
    let source_step = match refusal {
        SourceRefusal::Free => 1.0,
        SourceRefusal::Retry if blocking[0] < 1.0 => 1.0 / (1.0 - blocking[0]),
        SourceRefusal::Retry => return None,
    };
    let SetupRows { fewer_remaining, current } = rows;
    fewer_remaining.clear();
    fewer_remaining.extend((0..=hops).map(|hops_made| (hops - hops_made) as f64));
    fewer_remaining[0] = fewer_remaining[1] + source_step;
    current.clear();
    current.resize(hops + 1, 0.0);
    let mut total = fewer_remaining[0];
    for remaining in 1..=probe_lead {
        let backtrack = backtrack_probability(remaining, hops);
        for hops_made in (1..hops).rev() {
            let back_off = backtrack * blocking[hops_made];
            current[hops_made] =
                (1.0 - back_off) * current[hops_made + 1] + back_off * fewer_remaining[hops_made - 1] + 1.0;
        }
        current[0] = current[1] + source_step;
        std::mem::swap(current, fewer_remaining);
        total += fewer_remaining[0];
    }
    Some(total / (probe_lead + 1) as f64 + 2.0 * probe_lead as f64 - 1.0)
}

/// Eq. (4) of seed 001: S = C + D + M as printed, or C + M when the set-up time is taken to
/// contain the header's hops.
fn network_latency(setup: f64, hops: f64, len: f64, form: NetworkLatencyForm) -> f64 {
    match form {
        NetworkLatencyForm::Printed => setup + hops + len,
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

/// The converged state of the equations at one rate.
struct Solution {
    channel_rate: f64,
    occupancy: Vec<f64>,
    blocking_per_hop: f64,
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
        q.insert("blocking_per_hop".to_string(), self.blocking_per_hop);
        q.insert("C".to_string(), self.setup);
        q.insert("S".to_string(), self.network_latency);
        q.insert("S_min".to_string(), self.blocking_free_latency);
        q.insert("W_s".to_string(), self.source_wait);
        q.insert("V_bar".to_string(), self.multiplexing);
        q
    }
}

/// The scenario's parameters as the model uses them.
#[derive(Clone, Debug)]
struct Network {
    routes: Vec<Route>,
    /// D, the mean route length.
    hops: f64,
    vcs: usize,
    /// M, flits per message.
    len: f64,
    /// K, links between the header and the first data flit.
    probe_lead: usize,
}

impl Network {
    /// `None` when the equations cannot be set up for `s` at all (see [`assumptions_hold`]).
    fn of(s: &Scenario, distances: Distances) -> Option<Network> {
        if s.n != 2 || s.vcs == 0 || s.len == 0 {
            return None;
        }
        let routes = routes(s.k, distances)?;
        let hops = routes.iter().map(|route| route.probability * route.hops() as f64).sum();
        Some(Network { routes, hops, vcs: s.vcs as usize, len: s.len as f64, probe_lead: s.scout as usize })
    }

    /// S_min = M + 2K − 1 + D, the latency of a message that is never blocked (eq. (11)).
    fn blocking_free_latency(&self) -> f64 {
        self.len + 2.0 * self.probe_lead as f64 - 1.0 + self.hops
    }
}

/// Route averages of the path set-up time, the re-visit term of eq. (3) and the blocked hops.
#[derive(Clone, Copy, Debug, Default)]
struct PathAverages {
    setup: f64,
    revisits: f64,
    blocked_hops: f64,
}

/// What one round of the iteration derives from P_V.
#[derive(Clone, Copy, Debug)]
struct Round {
    channel_rate: f64,
    paths: PathAverages,
    network_latency: f64,
}

impl ScoutingModel {
    /// Eqs. (5)–(7) and (9)–(10) on every route at P_V = `all_busy`, averaged over the routes.
    /// `None` when a retried source can never get a channel.
    fn path_averages(
        &self,
        network: &Network,
        all_busy: f64,
        blocking: &mut Vec<f64>,
        rows: &mut SetupRows,
    ) -> Option<PathAverages> {
        let mut averages = PathAverages::default();
        for route in &network.routes {
            blocking_probabilities(route, all_busy, blocking);
            let setup = mean_setup_time(network.probe_lead, blocking, self.reading.source_refusal, rows)?;
            averages.setup += route.probability * setup;
            averages.revisits += route.probability * revisits(blocking);
            averages.blocked_hops += route.probability * blocking.iter().sum::<f64>();
        }
        Some(averages)
    }

    /// Network latency S of an idle network, with no blocking anywhere.
    fn zero_load_network_latency(&self, network: &Network) -> f64 {
        let idle = self.path_averages(network, 0.0, &mut Vec::new(), &mut SetupRows::default());
        let setup = idle.map_or(f64::INFINITY, |idle| idle.setup);
        network_latency(setup, network.hops, network.len, self.reading.network_latency)
    }

    /// §4: iterate on P_V from an idle network. Each round derives the
    /// blocking probabilities, λ_c, C and S from P_V, and the next P_V from λ_c and S by
    /// eq. (12); at the fixed point W_s, V̄ and the latency follow.
    fn solve(&self, s: &Scenario, rate: f64) -> Option<Solution> {
        let network = Network::of(s, self.reading.distances)?;
        if !(rate >= 0.0 && rate.is_finite()) {
            return None;
        }
        let count_revisits =
            network.probe_lead > 0 || self.reading.backtrack_traffic == BacktrackTraffic::EveryProbeLead;
        let mut blocking = Vec::new();
        let mut rows = SetupRows::default();
        let round = |all_busy: f64| {
            let paths = self.path_averages(&network, all_busy, &mut blocking, &mut rows)?;
            let charged_revisits = if count_revisits { paths.revisits } else { 0.0 };
            let channel_rate = channel_rate(rate, network.hops, charged_revisits);
            let network_latency = network_latency(paths.setup, network.hops, network.len, self.reading.network_latency);
            if channel_rate * network_latency >= 1.0 {
                return None;
            }
            let next = all_vcs_busy(channel_rate, network_latency, network.vcs);
            Some((next, Round { channel_rate, paths, network_latency }))
        };
        let fixed_point = least_fixed_point(0.0, 1.0, round)?;
        let blocking_free_latency = network.blocking_free_latency();
        let source_wait = source_wait(rate, network.vcs, fixed_point.network_latency, blocking_free_latency)?;
        let occupancy = vc_occupancy(fixed_point.channel_rate, fixed_point.network_latency, network.vcs);
        Some(Solution {
            channel_rate: fixed_point.channel_rate,
            multiplexing: multiplexing_degree(&occupancy),
            occupancy,
            blocking_per_hop: fixed_point.paths.blocked_hops / network.hops,
            setup: fixed_point.paths.setup,
            network_latency: fixed_point.network_latency,
            blocking_free_latency,
            source_wait,
        })
    }
}

impl LatencyModel for ScoutingModel {
    fn name(&self) -> &'static str {
        "scouting"
    }

    fn describe(&self) -> &'static str {
        "Safaei et al. 2007 (scouting switching; “Communication–prediction of scouting switching in \
         adaptively-routed torus networks”, NPC 2007): scouting switching with probe lead K in a 2-D torus, \
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
        let Some(network) = Network::of(s, self.reading.distances) else {
            return 0.0;
        };
        let idle_latency = self.zero_load_network_latency(&network);
        let hi = (4.0 / (network.hops * idle_latency)).min(network.vcs as f64 / idle_latency);
        bisect_edge(0.0, hi, SATURATION_RELATIVE_WIDTH, |rate| self.solve(s, rate).is_some())
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

    type ReferenceRow = (u32, u32, u32, u32, f64, [f64; 7]);
    /// §7: k, V, M, K, rate, λ_c, P_V, C, S, W_s, V̄, latency.
    const REFERENCE: &[ReferenceRow] = &[
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

    type SaturationRow = (u32, u32, u32, u32, [f64; 4], Option<f64>);
    /// §7: k, V, M, K and the saturation rates of the default,
    /// `s_form=setup-includes-hops`, `source=retry` and `backtrack_traffic=scouting-only`
    /// readings, printed to six decimals, and of `mode=exact` where it was computed.
    const SATURATION: &[SaturationRow] = &[
        (8, 1, 32, 0, [0.010256, 0.011429, 0.009212, 0.025641], Some(0.008751)),
        (8, 1, 32, 1, [0.009620, 0.010644, 0.008655, 0.009620], Some(0.008218)),
        (8, 1, 32, 3, [0.008537, 0.009334, 0.007715, 0.008537], Some(0.007313)),
        (8, 1, 32, 6, [0.007272, 0.007843, 0.006632, 0.007272], Some(0.006255)),
        (8, 1, 64, 0, [0.005634, 0.005970, 0.005200, 0.014085], Some(0.004814)),
        (8, 1, 64, 1, [0.005436, 0.005749, 0.005013, 0.005436], Some(0.004648)),
        (8, 1, 64, 3, [0.005073, 0.005344, 0.004673, 0.005073], Some(0.004344)),
        (8, 1, 64, 6, [0.004598, 0.004819, 0.004239, 0.004598], Some(0.003948)),
        (8, 6, 32, 0, [0.015957, 0.017780, 0.015946, 0.025641], Some(0.015245)),
        (8, 6, 32, 1, [0.015151, 0.016786, 0.015141, 0.015151], Some(0.014481)),
        (8, 6, 32, 3, [0.013774, 0.015112, 0.013766, 0.013774], Some(0.013174)),
        (8, 6, 32, 6, [0.012136, 0.013163, 0.012130, 0.012136], Some(0.011614)),
        (8, 6, 64, 0, [0.008765, 0.009288, 0.008762, 0.014085], Some(0.008386)),
        (8, 6, 64, 1, [0.008516, 0.009009, 0.008513, 0.008516], Some(0.008150)),
        (8, 6, 64, 3, [0.008063, 0.008504, 0.008060, 0.008063], Some(0.007719)),
        (8, 6, 64, 6, [0.007472, 0.007849, 0.007470, 0.007472], Some(0.007155)),
        (16, 1, 32, 0, [0.002403, 0.002896, 0.002346, 0.010638], Some(0.00212)),
        (16, 1, 32, 1, [0.002283, 0.002724, 0.002233, 0.002283], None),
        (16, 1, 32, 3, [0.002078, 0.002436, 0.002037, 0.002078], None),
        (16, 1, 32, 6, [0.001832, 0.002106, 0.001803, 0.001832], Some(0.00162)),
        (16, 1, 64, 0, [0.001430, 0.001591, 0.001407, 0.006329], Some(0.00126)),
        (16, 1, 64, 1, [0.001386, 0.001537, 0.001365, 0.001386], None),
        (16, 1, 64, 3, [0.001307, 0.001441, 0.001289, 0.001307], None),
        (16, 1, 64, 6, [0.001205, 0.001318, 0.001190, 0.001205], Some(0.00107)),
        (16, 6, 32, 0, [0.006020, 0.007255, 0.006019, 0.010638], Some(0.00586)),
        (16, 6, 32, 1, [0.005771, 0.006896, 0.005770, 0.005771], None),
        (16, 6, 32, 3, [0.005330, 0.006276, 0.005329, 0.005330], None),
        (16, 6, 32, 6, [0.004784, 0.005532, 0.004783, 0.004784], Some(0.00466)),
        (16, 6, 64, 0, [0.003582, 0.003985, 0.003581, 0.006329], Some(0.00349)),
        (16, 6, 64, 1, [0.003492, 0.003874, 0.003491, 0.003492], None),
        (16, 6, 64, 3, [0.003325, 0.003671, 0.003325, 0.003325], None),
        (16, 6, 64, 6, [0.003104, 0.003403, 0.003104, 0.003104], Some(0.00303)),
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
        for &(k, vcs, len, probe_lead, expected, _) in SATURATION {
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
    fn exact_distance_saturation_rates_match_specification() {
        let model = ScoutingModel { reading: ScoutingReading { distances: Distances::Exact, ..Default::default() } };
        for &(k, vcs, len, probe_lead, _, exact) in SATURATION {
            let Some(want) = exact else { continue };
            let got = model.saturation_rate(&scenario(k, vcs, len, probe_lead));
            // The specification's exact-form rates carry its own ±10⁻⁵ relative tolerance on
            // top of the rounding of the printed digits (three significant figures at 16×16).
            let rounding = if k == 16 { 5e-6 } else { 5e-7 };
            assert!(
                (got - want).abs() <= rounding + 1e-5 * want,
                "k={k} V={vcs} M={len} K={probe_lead}: model {got}, specification {want}"
            );
        }
    }

    #[test]
    fn variant_latencies_match_specification() {
        let s = scenario(8, 6, 32, 3);
        let exact = ScoutingReading { distances: Distances::Exact, ..Default::default() };
        let readings = readings().into_iter().take(3).chain([exact]);
        // The exact-form latency is printed to five significant figures.
        for (reading, (want, tolerance)) in
            readings.zip([(97.67154, 1e-6), (82.81786, 1e-6), (97.67156, 1e-6), (99.429, 1e-5)])
        {
            let got = ScoutingModel { reading }.evaluate(&s, 0.008).latency.expect("below saturation");
            assert_relative(got, want, tolerance, &format!("{reading:?}"));
        }
    }

    #[test]
    fn zero_load_latency_is_the_blocking_free_latency() {
        // Printed eq. (4) counts the header's D hops twice: M + 2D + 2K − 1 (8×8: D = 4).
        for (probe_lead, want) in [(0, 39.0), (1, 41.0), (3, 45.0), (6, 51.0)] {
            let evaluation = ScoutingModel::default().evaluate(&scenario(8, 6, 32, probe_lead), 0.0);
            assert_eq!(evaluation.latency, Some(want));
            assert_eq!(evaluation.quantities["V_bar"], 1.0);
            assert_eq!(evaluation.quantities["W_s"], 0.0);
        }
        let reading = ScoutingReading { network_latency: NetworkLatencyForm::SetupIncludesHops, ..Default::default() };
        // M + D + 2K − 1 for 16×16 (D = 8), K = 3.
        assert_eq!(ScoutingModel { reading }.evaluate(&scenario(16, 1, 64, 3), 0.0).latency, Some(77.0));
    }

    #[test]
    fn latency_and_blocking_rise_with_rate_up_to_saturation() {
        for s in [scenario(8, 6, 32, 3), scenario(16, 1, 32, 6), scenario(8, 1, 64, 0)] {
            let model = ScoutingModel::default();
            let saturation = model.saturation_rate(&s);
            let mut previous = model.evaluate(&s, 0.0);
            for step in 1..=50 {
                let rate = saturation * step as f64 / 50.0 * 0.999;
                let evaluation = model.evaluate(&s, rate);
                let (Some(latency), Some(before)) = (evaluation.latency, previous.latency) else {
                    panic!("{s:?}: no latency at {rate}, below the saturation rate {saturation}");
                };
                assert!(latency > before, "{s:?}: latency fell from {before} to {latency} at rate {rate}");
                assert!(evaluation.quantities["P_V"] > previous.quantities["P_V"]);
                assert!(evaluation.quantities["lambda_c"] > previous.quantities["lambda_c"]);
                previous = evaluation;
            }
        }
    }

    #[test]
    fn saturation_rate_is_the_edge_of_finite_latency() {
        let model = ScoutingModel::default();
        for s in [scenario(8, 6, 64, 1), scenario(16, 6, 32, 3), scenario(8, 1, 32, 0), scenario(4, 2, 8, 2)] {
            let saturation = model.saturation_rate(&s);
            assert!(saturation > 0.0, "{s:?}");
            assert!(model.evaluate(&s, saturation * 0.9999).latency.is_some(), "{s:?} below {saturation}");
            for factor in [1.0001, 1.01, 1.5, 10.0] {
                assert_eq!(model.evaluate(&s, saturation * factor).latency, None, "{s:?} at {factor} × {saturation}");
            }
        }
    }

    #[test]
    fn probe_lead_zero_saturates_where_every_hop_blocks() {
        // §6: with K = 0 the re-visit term alone sets saturation, at P_V = 1 for 8×8, V = 1:
        // λ_c = λ_g (4 + 0 + 1 + 2 + 3)/4 = 2.5 λ_g and S = 39, so λ_g = 1/(2.5 × 39).
        let s = scenario(8, 1, 32, 0);
        let saturation = ScoutingModel::default().saturation_rate(&s);
        assert!((saturation - 1.0 / (2.5 * 39.0)).abs() < 1e-8, "{saturation}");
        // Without the term it is λ_c S = 1 with λ_c = λ_g D/4: 4/(D (M + 2D − 1)).
        let reading = ScoutingReading { backtrack_traffic: BacktrackTraffic::ScoutingOnly, ..Default::default() };
        let saturation = ScoutingModel { reading }.saturation_rate(&s);
        assert!((saturation - 4.0 / (4.0 * 39.0)).abs() < 1e-8, "{saturation}");
    }

    #[test]
    fn single_vc_never_multiplexes() {
        let evaluation = ScoutingModel::default().evaluate(&scenario(8, 1, 32, 1), 0.008);
        assert_eq!(evaluation.quantities["V_bar"], 1.0);
        let occupancy: f64 = (0..=1).map(|busy| evaluation.quantities[&format!("P_v[{busy}]")]).sum();
        assert!((occupancy - 1.0).abs() < 1e-12);
        assert_eq!(evaluation.quantities["P_v[1]"], evaluation.quantities["P_V"]);
    }

    #[test]
    fn exact_distances_handle_odd_radix_and_lower_saturation() {
        let exact = ScoutingModel { reading: ScoutingReading { distances: Distances::Exact, ..Default::default() } };
        let odd = scenario(9, 6, 32, 3);
        // Zero load: M + 2D + 2K − 1 with D the exact mean distance, N k̄·2/(N − 1) for odd k too.
        let hops = 2.0 * (9.0 - 1.0 / 9.0) / 4.0 * 81.0 / 80.0;
        let idle = exact.evaluate(&odd, 0.0).latency.expect("idle network");
        assert!((idle - (32.0 + 2.0 * hops + 5.0)).abs() < 1e-9, "{idle}");
        assert!(exact.saturation_rate(&odd) > 0.0);
        let even = scenario(8, 6, 32, 3);
        assert!(exact.saturation_rate(&even) < ScoutingModel::default().saturation_rate(&even));
    }

    #[test]
    fn scenarios_outside_the_model_give_no_latency_and_no_panic() {
        let model = ScoutingModel::default();
        let odd_radix = scenario(7, 6, 32, 3);
        let three_dimensional = Scenario { n: 3, ..scenario(8, 6, 32, 3) };
        for s in [&odd_radix, &three_dimensional] {
            assert_eq!(model.evaluate(s, 0.001).latency, None);
            assert_eq!(model.saturation_rate(s), 0.0);
        }
        let s = scenario(8, 6, 32, 3);
        for rate in [-0.001, f64::NAN, f64::INFINITY, 1.0] {
            assert_eq!(model.evaluate(&s, rate).latency, None, "rate {rate}");
        }
        // The smallest and the largest networks the scenario limits allow still solve.
        for s in [scenario(2, 1, 2, 1), scenario(128, 16, 4096, 64)] {
            let saturation = model.saturation_rate(&s);
            assert!(saturation > 0.0 && model.evaluate(&s, 0.5 * saturation).latency.is_some(), "{s:?}");
        }
    }

    #[test]
    fn assumptions_name_what_does_not_fit() {
        assert_eq!(assumptions_hold(&scenario(16, 6, 64, 6)), Ok(()));
        let s = scenario(8, 6, 32, 3);
        let cases = [
            (Scenario { traffic: TrafficKind::Tornado, ..s.clone() }, "tornado is not uniform"),
            (Scenario { switching: Switching::Wormhole, scout: 0, ..s.clone() }, "switching=wormhole"),
            (Scenario { routing: RoutingKind::Dor, ..s.clone() }, "routing=dor"),
            (Scenario { n: 3, ..s.clone() }, "n = 3"),
            (Scenario { k: 9, ..s.clone() }, "k = 9"),
            (Scenario { beta: 0.02, ..s.clone() }, "broadcasts"),
        ];
        for (s, reason) in cases {
            let message = assumptions_hold(&s).expect_err(reason);
            assert!(message.contains(reason), "{message:?} should say {reason:?}");
        }
    }
}
