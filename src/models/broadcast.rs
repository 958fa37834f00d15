//! Unicast latency under broadcast traffic, seed 003: Shahrabi, Ould-Khaoua and Mackenzie,
//! "Communication delay in wormhole-routed torus networks", SAC 2002, as described in
//! `docs/models/broadcast.md`; section numbers (§) are that page's, equation numbers the
//! paper's.
//!
//! A 2-D k × k torus with wormhole switching and Duato's fully adaptive routing: V − 2 adaptive
//! VCs and 2 deterministic (escape) VCs per channel. Each node generates Poisson messages at
//! λ_g; a fraction β are broadcasts, the rest unicasts to uniformly random destinations.
//! A broadcast follows the spanning tree of Bose et al.: every copy travels one hop, and each
//! tree node that must forward it re-injects copies through its own source queue. The model
//! gives the mean latency of the **unicast** messages.
//!
//! The equations are solved by the monotone fixed-point iteration of §4
//! on the mean channel service time S, from the zero-load value.
//!
//! # Quantities reported
//!
//! | key | meaning |
//! |---|---|
//! | `lambda_c` | messages per cycle on one channel: unicast, one-step and replicated copies |
//! | `P_v[v]` | probability that v VCs of a channel are busy |
//! | `P_a`, `P_d` | probability that every adaptive VC is busy; that the needed deterministic VC is too |
//! | `blocking_per_hop` | probability that a unicast is blocked at a hop, averaged over its hops |
//! | `W_c` | mean wait for a VC once blocked (cycles) |
//! | `S_u`, `S_b`, `S` | network latency of a unicast, of a one-hop copy, and their traffic-weighted mean (cycles) |
//! | `lambda_s`, `S_s`, `W_s` | rate into, mean service time of, and mean wait in one injection queue |
//! | `V_bar` | mean VC multiplexing degree |
//!
//! # Where the model differs from the simulator
//!
//! - **Unicasts only.** The latency is that of unicast messages; broadcasts and their copies
//!   only load the channels and source queues. Compare it with the simulator's unicast
//!   latency, not with the mean over every message.
//! - **Injection queues.** Eq. (26) spreads a node's unicasts over 2n = 4 injection queues,
//!   while the simulator has one source queue per node.
//! - **Replicated traffic.** The printed eq. (11) counts the replication probability twice
//!   and carries 25 % fewer replicated copies than the spanning tree sends at k = 8
//!   ([`ReplicatedTraffic::Copies`] carries them all).
//! - **Copies cost no hop.** A one-hop broadcast copy is charged M cycles, not M + 1
//!   ([`CopyHop::Charged`] adds the hop).
//! - **Mean path.** By default every unicast is given the mean distance d = 2k̄ (the average
//!   over all k² destinations, the source included; for odd k the last hop counts with weight
//!   d − ⌊d⌋). The simulator never sends a unicast to its own source and its routes have
//!   whole, unequal lengths; [`Distances::Exact`] averages over the real destinations.
//! - **Start-up and buffers.** The start-up latency of assumption (c) is taken as 0, and buffer
//!   depth and age-based arbitration do not appear in the model.

use super::shared::{destination_classes, least_fixed_point, multiplexing_degree, vc_occupancy, Distances};
use super::{bisect_edge, Evaluation, LatencyModel};
use crate::scenario::{RoutingKind, Scenario, Switching, TrafficKind};
use std::collections::BTreeMap;

/// Output channels per node of a 2-D torus, 2n.
const CHANNELS_PER_NODE: f64 = 4.0;
/// The saturation rate is bisected down to this relative width. Closer to the fold the fixed
/// point converges ever more slowly, and the specification gives four significant figures.
const SATURATION_RELATIVE_WIDTH: f64 = 1e-9;

/// How many replicated copies eq. (11) puts on a channel (§6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReplicatedTraffic {
    /// λ_{c_r} = (ω̄/2n) λ_{s_r}, as printed.
    #[default]
    Printed,
    /// λ_{c_r} = β λ_g (k² − 5)/4: every copy the spanning tree forwards.
    Copies,
}

/// When eq. (16) counts a message needing one deterministic VC as blocked (§6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeterministicBusy {
    /// P_d = P_V + 2 P_{V−1}/V, as printed.
    #[default]
    Printed,
    /// P_d = P_V + P_{V−1}/V: with V − 1 VCs busy, only the other deterministic VC being the
    /// free one blocks the message.
    OneVc,
}

/// Whether a one-hop broadcast copy is charged its hop (§6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CopyHop {
    /// S_b = M + B_b, as printed.
    #[default]
    Free,
    /// S_b = M + 1 + B_b.
    Charged,
}

/// One reading of the paper's ambiguous equations; the default is the specification's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BroadcastReading {
    /// `lam_r=`
    pub replicated_traffic: ReplicatedTraffic,
    /// `pd=`
    pub deterministic_busy: DeterministicBusy,
    /// `sb=`
    pub copy_hop: CopyHop,
    /// `mode=`
    pub distances: Distances,
}

/// The unicast-under-broadcast model of seed 003 under one reading of its equations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BroadcastModel {
    pub reading: BroadcastReading,
}

/// How a reason names the model: it describes Duato's routing with β = 0 too, where "the
/// broadcast model" would leave a reader wondering which broadcasts.
const MODEL: &str = "Shahrabi et al. 2002's model of Duato's routing (with or without broadcasts)";

/// Why the broadcast model does not describe `s`, or `Ok` when its assumptions hold.
pub fn assumptions_hold(s: &Scenario) -> Result<(), String> {
    if s.routing != RoutingKind::Duato {
        return Err(format!(
            "{MODEL} is for routing=duato (V − 2 adaptive + 2 deterministic VCs); routing={} is not",
            s.routing
        ));
    }
    if s.switching != Switching::Wormhole {
        return Err(format!("{MODEL} assumes wormhole switching; switching={}", s.switching));
    }
    if s.traffic != TrafficKind::Uniform {
        return Err(format!("{MODEL} assumes uniform unicast destinations; {} is not uniform", s.traffic));
    }
    if s.n != 2 {
        return Err(format!("{MODEL} is for 2-D tori; n = {}", s.n));
    }
    if s.k < 3 {
        return Err(format!("{MODEL} needs k ≥ 3 for its broadcast spanning tree; k = {}", s.k));
    }
    if s.vcs < 3 {
        return Err(format!(
            "Duato's routing in the model needs 2 deterministic VCs and at least one adaptive VC; \
             vcs = {}",
            s.vcs
        ));
    }
    Ok(())
}

/// Eq. (2) of seed 003: N_r^i, the non-source tree nodes that forward i = 0..3 copies of a
/// broadcast: 2k, k² − 3k, 2 and k − 3 (k ≥ 3). N_r^4 = 0.
fn replication_counts(k: f64) -> [f64; 4] {
    [2.0 * k, k * k - 3.0 * k, 2.0, k - 3.0]
}

/// Eqs. (9)–(10) of seed 003: ω̄ = Σ i P_{r_i}, P_{r_i} = N_r^i/(k² − 1), the mean number of
/// copies a non-source node forwards; (k² − 5)/(k² − 1).
fn mean_copies_forwarded(counts: &[f64; 4], nodes: f64) -> f64 {
    counts.iter().enumerate().map(|(copies, count)| copies as f64 * count / (nodes - 1.0)).sum()
}

/// Eqs. (5)–(6) of seed 003: k̄ = k/4 for even k and (k − 1/k)/4 for odd k, the mean ring
/// distance over all k offsets; d = 2k̄.
fn mean_hops_per_dimension(k: f64, even: bool) -> f64 {
    if even {
        k / 4.0
    } else {
        (k - 1.0 / k) / 4.0
    }
}

/// Every rate of the model divided by λ_g: they are all proportional to it.
#[derive(Clone, Copy, Debug)]
struct TrafficPerUnitRate {
    /// λ_{c_u}, λ_{c_b}, λ_{c_r}: unicast, one-step and replicated messages per channel.
    unicast_channel: f64,
    one_step_channel: f64,
    replicated_channel: f64,
    /// λ_{s_u}, λ_{s_b}, λ_{s_r}: unicasts, one-step broadcasts and replication events per node.
    unicast_source: f64,
    one_step_source: f64,
    replicated_source: f64,
    /// λ_s: messages into one injection queue.
    injection_queue: f64,
}

impl TrafficPerUnitRate {
    /// Eqs. (3), (7), (8), (11) and (26) of seed 003, per unit λ_g:
    /// λ_{s_r} = β Σ_{i≥1} N_r^i, λ_{s_u} = 1 − β, λ_{s_b} = β;
    /// λ_{c_u} = (1 − β) d/2n, λ_{c_b} = β, λ_{c_r} = (ω̄/2n) λ_{s_r} (or β(k² − 5)/2n with
    /// [`ReplicatedTraffic::Copies`]); λ_s = λ_{s_u}/2n + λ_{s_b} + (ω̄/2n) λ_{s_r}.
    fn new(k: f64, beta: f64, mean_distance: f64, replicated: ReplicatedTraffic) -> TrafficPerUnitRate {
        let counts = replication_counts(k);
        let nodes = k * k;
        let forwarding_nodes: f64 = counts[1..].iter().sum();
        let copies_per_node = mean_copies_forwarded(&counts, nodes);
        let unicast_source = 1.0 - beta;
        let one_step_source = beta;
        let replicated_source = beta * forwarding_nodes;
        let replicated_channel = match replicated {
            ReplicatedTraffic::Printed => copies_per_node / CHANNELS_PER_NODE * replicated_source,
            ReplicatedTraffic::Copies => beta * (nodes - 5.0) / CHANNELS_PER_NODE,
        };
        TrafficPerUnitRate {
            unicast_channel: unicast_source * mean_distance / CHANNELS_PER_NODE,
            one_step_channel: one_step_source,
            replicated_channel,
            unicast_source,
            one_step_source,
            replicated_source,
            injection_queue: unicast_source / CHANNELS_PER_NODE
                + one_step_source
                + copies_per_node / CHANNELS_PER_NODE * replicated_source,
        }
    }

    /// Eq. (4) of seed 003: λ_c = λ_{c_u} + λ_{c_b} + λ_{c_r}, per unit λ_g.
    fn channel(&self) -> f64 {
        self.unicast_channel + self.one_step_channel + self.replicated_channel
    }

    /// Eq. (21) of seed 003: S = ((λ_{c_b} + λ_{c_r}) S_b + λ_{c_u} S_u)/λ_c, the mean channel
    /// service time weighted by each kind's share of the channel traffic.
    fn channel_service_time(&self, unicast_latency: f64, copy_latency: f64) -> f64 {
        let copies = self.one_step_channel + self.replicated_channel;
        (copies * copy_latency + self.unicast_channel * unicast_latency) / self.channel()
    }

    /// Eq. (27) of seed 003: S_s = ((λ_{s_b} + λ_{s_r}) S_b + λ_{s_u} S_u)/(λ_{s_u} + λ_{s_b} + λ_{s_r}),
    /// the mean service time of an injection queue, weighted by the unsplit source rates.
    fn injection_service_time(&self, unicast_latency: f64, copy_latency: f64) -> f64 {
        let copies = self.one_step_source + self.replicated_source;
        (copies * copy_latency + self.unicast_source * unicast_latency) / (copies + self.unicast_source)
    }
}

/// Where a unicast's hops fall, averaged over its destinations.
#[derive(Clone, Copy, Debug)]
struct HopProfile {
    /// d, the mean number of hops.
    hops: f64,
    /// The fraction of those hops taken with only one dimension left (P_{c_j} averaged).
    one_dimension_left: f64,
}

impl HopProfile {
    fn new(k: u32, distances: Distances) -> HopProfile {
        match distances {
            Distances::Mean => HopProfile::mean_path(k),
            Distances::Exact => HopProfile::exact(k),
        }
    }

    /// Eqs. (5), (6) and (13) of seed 003 along the mean path of d = 2k̄ hops:
    /// P_{c_j} = 0 while j ≤ k̄ and 2/(d − j + 2) after (1-based j). For odd k, d is
    /// fractional: its last hop counts with weight d − ⌊d⌋, and P_{c_j} is capped at 1 there.
    fn mean_path(k: u32) -> HopProfile {
        let hops_per_dimension = mean_hops_per_dimension(k as f64, k.is_multiple_of(2));
        let hops = 2.0 * hops_per_dimension;
        let one_left: f64 = (1..=hops.ceil() as usize)
            .map(|hop| {
                let hop = hop as f64;
                let weight = (hops - hop + 1.0).min(1.0);
                let one_left = if hop <= hops_per_dimension { 0.0 } else { (2.0 / (hops - hop + 2.0)).min(1.0) };
                weight * one_left
            })
            .sum();
        HopProfile { hops, one_dimension_left: one_left / hops }
    }

    /// Eqs. (12)–(13) of seed 003 averaged over the exact destination classes (`mode="exact"`,
    /// §6): each class (h_x, h_y) takes h_x + h_y hops, and P_{c_j}
    /// counts the splits of its first j − 1 hops that finish a dimension.
    fn exact(k: u32) -> HopProfile {
        let (hops, one_left) = destination_classes(k).iter().fold((0.0, 0.0), |(hops, one_left), class| {
            let one_left_on_route: f64 = (0..class.hops()).map(|done| class.one_dimension_left(done)).sum();
            (hops + class.probability * class.hops() as f64, one_left + class.probability * one_left_on_route)
        });
        HopProfile { hops, one_dimension_left: one_left / hops }
    }
}

/// Eqs. (15)–(16) of seed 003: P_a = P_V + 2P_{V−1}/C(V, V−1) + P_{V−2}/C(V, V−2), the
/// probability that every adaptive VC is busy, and P_d = P_V + 2P_{V−1}/C(V, V−1) (or
/// P_V + P_{V−1}/V with [`DeterministicBusy::OneVc`]), that the needed deterministic VC is
/// busy as well. `occupancy` holds P_0..P_V, V ≥ 3.
fn busy_probabilities(occupancy: &[f64], reading: DeterministicBusy) -> (f64, f64) {
    let vcs = occupancy.len() - 1;
    let v = vcs as f64;
    let all = occupancy[vcs];
    let one_free = occupancy[vcs - 1];
    let two_free = occupancy[vcs - 2];
    let adaptive = all + 2.0 * one_free / v + two_free / (v * (v - 1.0) / 2.0);
    let deterministic = match reading {
        DeterministicBusy::Printed => all + 2.0 * one_free / v,
        DeterministicBusy::OneVc => all + one_free / v,
    };
    (adaptive, deterministic)
}

/// Eq. (17) of seed 003: P_{b_j} = (1 − P_{c_j}) P_a P_d + P_{c_j} P_d, blocked on every
/// adaptive VC and the deterministic one while two dimensions are open, on the deterministic
/// one alone once one dimension is done (P_{c_j} = 0 for j ≤ k̄). Linear in P_{c_j}, so the
/// mean over a path's hops is this at the mean P_{c_j}.
fn blocking_probability(one_left: f64, adaptive_busy: f64, deterministic_busy: f64) -> f64 {
    (1.0 - one_left) * adaptive_busy * deterministic_busy + one_left * deterministic_busy
}

/// Eqs. (18)–(20), (22)–(23) of seed 003: W_c = λ_c (S² + (S − M)²)/(2(1 − λ_c S)), the
/// M/G/1 wait for a VC with the service-time variance taken as (S − M)². Needs λ_c S < 1.
fn vc_wait(channel_rate: f64, service_time: f64, len: f64) -> f64 {
    let spread = service_time - len;
    channel_rate * (service_time * service_time + spread * spread) / (2.0 * (1.0 - channel_rate * service_time))
}

/// Eq. (28) of seed 003: W_s = λ_s (S_s² + (S_s − M)²)/(2(1 − λ_s S_s)), the M/G/1 wait in an
/// injection queue. `None` when the queue is unstable.
fn source_wait(arrivals: f64, service_time: f64, len: f64) -> Option<f64> {
    let load = arrivals * service_time;
    if load >= 1.0 {
        return None;
    }
    let spread = service_time - len;
    Some(arrivals * (service_time * service_time + spread * spread) / (2.0 * (1.0 - load)))
}

/// The scenario's parameters as the model uses them.
struct Network {
    path: HopProfile,
    traffic: TrafficPerUnitRate,
    vcs: usize,
    /// M, flits per message.
    len: f64,
}

impl Network {
    /// `None` when the equations cannot be set up for `s` at all (see [`assumptions_hold`]).
    fn of(s: &Scenario, reading: BroadcastReading) -> Option<Network> {
        if s.n != 2 || s.k < 3 || s.vcs < 3 || s.len == 0 || !(0.0..=1.0).contains(&s.beta) {
            return None;
        }
        let path = HopProfile::new(s.k, reading.distances);
        let traffic = TrafficPerUnitRate::new(s.k as f64, s.beta, path.hops, reading.replicated_traffic);
        Some(Network { path, traffic, vcs: s.vcs as usize, len: s.len as f64 })
    }
}

/// What one round of the iteration derives from the mean service time S.
struct Round {
    occupancy: Vec<f64>,
    adaptive_busy: f64,
    deterministic_busy: f64,
    blocking_per_hop: f64,
    vc_wait: f64,
    unicast_latency: f64,
    copy_latency: f64,
}

/// The converged state of the equations at one rate.
struct Solution {
    channel_rate: f64,
    service_time: f64,
    round: Round,
    injection_rate: f64,
    injection_service_time: f64,
    source_wait: f64,
    multiplexing: f64,
}

impl Solution {
    /// Eq. (1) of seed 003: L_u = (S_u + W_s) V̄.
    fn latency(&self) -> f64 {
        (self.round.unicast_latency + self.source_wait) * self.multiplexing
    }

    fn quantities(&self) -> BTreeMap<String, f64> {
        let round = &self.round;
        let mut q = BTreeMap::new();
        q.insert("lambda_c".to_string(), self.channel_rate);
        for (busy, p) in round.occupancy.iter().enumerate() {
            q.insert(format!("P_v[{busy}]"), *p);
        }
        q.insert("P_a".to_string(), round.adaptive_busy);
        q.insert("P_d".to_string(), round.deterministic_busy);
        q.insert("blocking_per_hop".to_string(), round.blocking_per_hop);
        q.insert("W_c".to_string(), round.vc_wait);
        q.insert("S_u".to_string(), round.unicast_latency);
        q.insert("S_b".to_string(), round.copy_latency);
        q.insert("S".to_string(), self.service_time);
        q.insert("lambda_s".to_string(), self.injection_rate);
        q.insert("S_s".to_string(), self.injection_service_time);
        q.insert("W_s".to_string(), self.source_wait);
        q.insert("V_bar".to_string(), self.multiplexing);
        q
    }
}

impl BroadcastModel {
    /// One-hop copy latency with no blocking: M, or M + 1 when the hop is charged.
    fn unblocked_copy_latency(&self, len: f64) -> f64 {
        match self.reading.copy_hop {
            CopyHop::Free => len,
            CopyHop::Charged => len + 1.0,
        }
    }

    /// Eqs. (12), (14), (23)–(25) and (29)–(30) of seed 003 at service time S: the VC
    /// occupancy, the blocking per hop, the wait W_c, and from them
    /// S_u = M + d + Σ_j P_{b_j} W_c and S_b = M + P_V W_c. `None` when λ_c S ≥ 1.
    fn round(&self, network: &Network, channel_rate: f64, service_time: f64) -> Option<Round> {
        if channel_rate * service_time >= 1.0 {
            return None;
        }
        let occupancy = vc_occupancy(channel_rate, service_time, network.vcs);
        let vc_wait = vc_wait(channel_rate, service_time, network.len);
        let (adaptive_busy, deterministic_busy) = busy_probabilities(&occupancy, self.reading.deterministic_busy);
        let path = &network.path;
        let blocking_per_hop = blocking_probability(path.one_dimension_left, adaptive_busy, deterministic_busy);
        let unicast_latency = network.len + path.hops + path.hops * blocking_per_hop * vc_wait;
        let copy_latency = self.unblocked_copy_latency(network.len) + occupancy[network.vcs] * vc_wait;
        Some(Round {
            occupancy,
            adaptive_busy,
            deterministic_busy,
            blocking_per_hop,
            vc_wait,
            unicast_latency,
            copy_latency,
        })
    }

    /// §4: iterate on S from its zero-load value; at the fixed point the
    /// injection queue gives W_s, the occupancy V̄, and eq. (1) the unicast latency.
    fn solve(&self, s: &Scenario, rate: f64) -> Option<Solution> {
        let network = Network::of(s, self.reading)?;
        if !(rate >= 0.0 && rate.is_finite()) {
            return None;
        }
        let traffic = network.traffic;
        let channel_rate = rate * traffic.channel();
        let idle_service_time = self.zero_load_service_time(&network);
        let round = least_fixed_point(idle_service_time, f64::INFINITY, |service_time| {
            let round = self.round(&network, channel_rate, service_time)?;
            let next = traffic.channel_service_time(round.unicast_latency, round.copy_latency);
            Some((next, (service_time, round)))
        });
        let (service_time, round) = round?;
        let injection_rate = rate * traffic.injection_queue;
        let injection_service_time = traffic.injection_service_time(round.unicast_latency, round.copy_latency);
        let source_wait = source_wait(injection_rate, injection_service_time, network.len)?;
        Some(Solution {
            channel_rate,
            service_time,
            injection_rate,
            injection_service_time,
            source_wait,
            multiplexing: multiplexing_degree(&round.occupancy),
            round,
        })
    }

    /// S with no blocking: the traffic-weighted mean of M + d and the unblocked copy latency.
    fn zero_load_service_time(&self, network: &Network) -> f64 {
        let unicast = network.len + network.path.hops;
        network.traffic.channel_service_time(unicast, self.unblocked_copy_latency(network.len))
    }
}

impl LatencyModel for BroadcastModel {
    fn name(&self) -> &'static str {
        "broadcast"
    }

    fn describe(&self) -> &'static str {
        "Shahrabi et al. 2002 (“Communication delay in wormhole-routed torus networks”, ACM SAC 2002): \
         mean unicast latency in a 2-D torus with wormhole \
         switching and Duato's routing when a fraction β of messages are spanning-tree \
         broadcasts; uniform Poisson traffic"
    }

    fn evaluate(&self, s: &Scenario, rate: f64) -> Evaluation {
        match self.solve(s, rate) {
            Some(solution) => Evaluation { latency: Some(solution.latency()), quantities: solution.quantities() },
            None => Evaluation::default(),
        }
    }

    /// Bisection below 1/((λ_c/λ_g) S_0), S_0 the zero-load service time: there λ_c S reaches 1
    /// even without blocking (§4).
    fn saturation_rate(&self, s: &Scenario) -> f64 {
        let Some(network) = Network::of(s, self.reading) else {
            return 0.0;
        };
        let hi = 1.0 / (network.traffic.channel() * self.zero_load_service_time(&network));
        bisect_edge(0.0, hi, SATURATION_RELATIVE_WIDTH, |rate| self.solve(s, rate).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(k: u32, vcs: u32, len: u32, beta: f64) -> Scenario {
        Scenario { k, vcs, len, beta, routing: RoutingKind::Duato, ..Scenario::default() }
    }

    type ReferenceRow = (u32, u32, u32, f64, f64, [f64; 8]);
    /// §7: k, V, M, β, rate, then λ_c, S_u, S_b, S, W_c, W_s, V̄ and the
    /// unicast latency.
    const REFERENCE: &[ReferenceRow] = &[
        (8, 4, 32, 0.02, 0.002, [0.002440159, 36.00096, 32.00009, 35.21369, 1.668909, 0.5826624, 1.187573, 43.44572]),
        (8, 4, 32, 0.02, 0.005, [0.006100397, 36.0499, 32.01042, 35.25504, 4.871086, 1.538226, 1.530844, 57.54155]),
        (8, 4, 32, 0.02, 0.008, [0.009760635, 36.47937, 32.14027, 35.62555, 9.594388, 2.650768, 1.947507, 76.20622]),
        (8, 4, 32, 0.02, 0.01, [0.01220079, 37.87757, 32.62491, 36.84398, 15.30372, 3.673205, 2.292655, 95.26159]),
        (8, 3, 16, 0.04, 0.004, [0.005760635, 20.01645, 16.00143, 18.67782, 1.149125, 0.4585465, 1.233655, 25.25907]),
        (8, 3, 16, 0.04, 0.008, [0.01152127, 20.17267, 16.02692, 18.79045, 2.653221, 0.9767052, 1.491113, 31.5361]),
        (8, 3, 16, 0.04, 0.012, [0.0172819, 20.8819, 16.18533, 19.31603, 4.982172, 1.623847, 1.770366, 39.84341]),
        (8, 3, 16, 0.04, 0.014, [0.02016222, 22.10654, 16.49428, 20.23537, 7.278182, 2.121196, 1.941159, 47.02989]),
        (10, 5, 48, 0.02, 0.002, [0.003248081, 53.00457, 48.00071, 51.77508, 5.261461, 1.716411, 1.402991, 76.77306]),
        (10, 5, 48, 0.02, 0.004, [0.006496162, 53.22863, 48.05832, 51.95824, 13.31319, 3.705896, 1.975, 112.4457]),
        (10, 5, 48, 0.02, 0.006, [0.009744242, 58.56834, 49.76464, 56.40519, 35.18204, 6.920241, 2.912691, 190.748]),
        (16, 5, 64, 0.04, 0.0005, [0.00207751, 72.00271, 64.00031, 67.69815, 5.556322, 2.822796, 1.326773, 99.27643]),
        (16, 5, 64, 0.04, 0.001, [0.00415502, 72.12361, 64.02358, 67.76653, 13.32078, 6.191464, 1.766123, 138.3141]),
        (16, 5, 64, 0.04, 0.0015, [0.006232529, 73.53031, 64.36772, 68.60168, 25.73505, 10.43517, 2.348869, 197.2239]),
        (16, 4, 32, 0.02, 0.001, [0.00307751, 40.00521, 32.00041, 37.0985, 2.435894, 0.7995046, 1.256413, 51.26756]),
        (16, 4, 32, 0.02, 0.002, [0.00615502, 40.10929, 32.0154, 37.17022, 5.619993, 1.682559, 1.571328, 65.6687]),
        (16, 4, 32, 0.02, 0.003, [0.009232529, 40.81263, 32.1502, 37.66712, 10.26906, 2.699642, 1.947622, 84.74547]),
        (16, 4, 32, 0.02, 0.0035, [0.01077128, 42.10705, 32.42168, 38.59008, 14.12573, 3.337123, 2.176529, 98.91054]),
    ];
    const REFERENCE_KEYS: [&str; 8] = ["lambda_c", "S_u", "S_b", "S", "W_c", "W_s", "V_bar", "latency"];

    /// §7: k, V, β and the default saturation rates for M = 16, 32, 48 and 64.
    const SATURATION: &[(u32, u32, f64, [f64; 4])] = &[
        (8, 3, 0.02, [0.016598, 0.009121, 0.006286, 0.004795]),
        (8, 3, 0.04, [0.014922, 0.008081, 0.005540, 0.004214]),
        (8, 4, 0.02, [0.019952, 0.010941, 0.007535, 0.005746]),
        (8, 4, 0.04, [0.017738, 0.009590, 0.006570, 0.004996]),
        (8, 5, 0.02, [0.022196, 0.012159, 0.008370, 0.006381]),
        (8, 5, 0.04, [0.019631, 0.010604, 0.007262, 0.005522]),
        (10, 3, 0.02, [0.011596, 0.006465, 0.004480, 0.003427]),
        (10, 3, 0.04, [0.010219, 0.005585, 0.003841, 0.002927]),
        (10, 4, 0.02, [0.014080, 0.007830, 0.005421, 0.004145]),
        (10, 4, 0.04, [0.012235, 0.006674, 0.004587, 0.003494]),
        (10, 5, 0.02, [0.015756, 0.008751, 0.006055, 0.004629]),
        (10, 5, 0.04, [0.013599, 0.007410, 0.005091, 0.003878]),
        (16, 3, 0.02, [0.005506, 0.003167, 0.002221, 0.001710]),
        (16, 3, 0.04, [0.004641, 0.002581, 0.001787, 0.001367]),
        (16, 4, 0.02, [0.006803, 0.003901, 0.002733, 0.002102]),
        (16, 4, 0.04, [0.005617, 0.003117, 0.002156, 0.001648]),
        (16, 5, 0.02, [0.007665, 0.004387, 0.003071, 0.002363]),
        (16, 5, 0.04, [0.006266, 0.003473, 0.002402, 0.001835]),
    ];

    /// §7: k, V, M, β and the saturation rates of the default, `lam_r=copies`, `pd=one-vc`,
    /// `sb=hop` and `mode=exact` readings.
    const VARIANT_SATURATION: &[(u32, u32, u32, f64, [f64; 5])] = &[
        (8, 3, 32, 0.02, [0.009121, 0.008723, 0.009557, 0.009067, 0.008772]),
        (8, 4, 32, 0.04, [0.009590, 0.008829, 0.009789, 0.009494, 0.009281]),
        (8, 5, 64, 0.02, [0.006381, 0.006055, 0.006468, 0.006362, 0.006172]),
        (10, 4, 48, 0.04, [0.004587, 0.004246, 0.004687, 0.004549, 0.004521]),
        (16, 3, 16, 0.02, [0.005506, 0.005353, 0.005798, 0.005404, 0.005374]),
        (16, 5, 64, 0.04, [0.001835, 0.001722, 0.001857, 0.001820, 0.001805]),
    ];

    fn readings() -> [BroadcastReading; 5] {
        let default = BroadcastReading::default();
        [
            default,
            BroadcastReading { replicated_traffic: ReplicatedTraffic::Copies, ..default },
            BroadcastReading { deterministic_busy: DeterministicBusy::OneVc, ..default },
            BroadcastReading { copy_hop: CopyHop::Charged, ..default },
            BroadcastReading { distances: Distances::Exact, ..default },
        ]
    }

    fn assert_relative(got: f64, want: f64, tolerance: f64, what: &str) {
        let error = (got - want).abs() / want.abs();
        assert!(error <= tolerance, "{what}: model {got}, specification {want}, relative error {error:e}");
    }

    /// The specification prints saturation rates to six decimals.
    fn assert_printed_rate(got: f64, want: f64, what: &str) {
        assert!((got - want).abs() <= 6e-7, "{what}: model {got}, specification {want}");
    }

    #[test]
    fn reference_values_match_specification() {
        let model = BroadcastModel::default();
        for &(k, vcs, len, beta, rate, expected) in REFERENCE {
            let evaluation = model.evaluate(&scenario(k, vcs, len, beta), rate);
            let latency = evaluation.latency.expect("every reference rate is below saturation");
            for (key, want) in REFERENCE_KEYS.iter().zip(expected) {
                let got = if *key == "latency" { latency } else { evaluation.quantities[*key] };
                // The specification prints seven significant figures.
                assert_relative(got, want, 1e-6, &format!("k={k} V={vcs} M={len} β={beta} rate={rate} {key}"));
            }
        }
    }

    #[test]
    fn saturation_rates_match_specification() {
        let model = BroadcastModel::default();
        for &(k, vcs, beta, expected) in SATURATION {
            for (len, want) in [16, 32, 48, 64].into_iter().zip(expected) {
                let got = model.saturation_rate(&scenario(k, vcs, len, beta));
                assert_printed_rate(got, want, &format!("k={k} V={vcs} M={len} β={beta}"));
            }
        }
    }

    #[test]
    fn variant_saturation_rates_match_specification() {
        for &(k, vcs, len, beta, expected) in VARIANT_SATURATION {
            for (reading, want) in readings().into_iter().zip(expected) {
                let got = BroadcastModel { reading }.saturation_rate(&scenario(k, vcs, len, beta));
                assert_printed_rate(got, want, &format!("k={k} V={vcs} M={len} β={beta} {reading:?}"));
            }
        }
    }

    #[test]
    fn traffic_coefficients_match_specification() {
        // §3: λ_c/λ_g and the unicast share of λ_c for k = 8.
        for (beta, per_unit_rate, unicast_share) in [(0.02, 1.22008, 0.80323), (0.04, 1.44016, 0.66659)] {
            let traffic = TrafficPerUnitRate::new(8.0, beta, 4.0, ReplicatedTraffic::Printed);
            assert_relative(traffic.channel(), per_unit_rate, 5e-6, "λ_c/λ_g");
            assert_relative(traffic.unicast_channel / traffic.channel(), unicast_share, 1e-5, "unicast share");
        }
        // Eq. (2): the counts cover the k² − 1 non-source nodes and forward k² − 5 copies.
        let counts = replication_counts(8.0);
        assert_eq!(counts.iter().sum::<f64>(), 63.0);
        assert_eq!(counts.iter().enumerate().map(|(i, n)| i as f64 * n).sum::<f64>(), 59.0);
        assert_relative(mean_copies_forwarded(&counts, 64.0), 59.0 / 63.0, 1e-15, "ω̄");
    }

    #[test]
    fn zero_load_latency_is_message_length_plus_mean_distance() {
        let model = BroadcastModel::default();
        // d = k/2 for even k, (k − 1/k)/2 for odd k.
        for (k, beta, want) in [(8, 0.02, 36.0), (10, 0.0, 37.0), (16, 0.04, 40.0), (5, 0.02, 32.0 + 2.4)] {
            let evaluation = model.evaluate(&scenario(k, 4, 32, beta), 0.0);
            assert_relative(evaluation.latency.expect("idle network"), want, 1e-12, &format!("k={k}"));
            assert_eq!(evaluation.quantities["V_bar"], 1.0);
        }
    }

    #[test]
    fn latency_rises_with_rate_and_with_broadcast_fraction() {
        let model = BroadcastModel::default();
        for s in
            [scenario(8, 3, 16, 0.04), scenario(10, 5, 48, 0.0), scenario(7, 4, 32, 0.02), scenario(16, 5, 64, 0.04)]
        {
            let saturation = model.saturation_rate(&s);
            let mut previous = model.evaluate(&s, 0.0);
            for step in 1..=50 {
                let rate = saturation * step as f64 / 50.0 * 0.999;
                let evaluation = model.evaluate(&s, rate);
                let (Some(latency), Some(before)) = (evaluation.latency, previous.latency) else {
                    panic!("{s:?}: no latency at {rate}, below the saturation rate {saturation}");
                };
                assert!(latency > before, "{s:?}: latency fell from {before} to {latency} at rate {rate}");
                assert!(evaluation.quantities["W_c"] > previous.quantities["W_c"]);
                previous = evaluation;
            }
        }
        let at = |beta| model.evaluate(&scenario(16, 4, 32, beta), 0.002).latency.expect("below saturation");
        assert!(at(0.0) < at(0.02) && at(0.02) < at(0.04));
    }

    #[test]
    fn saturation_rate_is_the_edge_of_finite_latency() {
        let model = BroadcastModel::default();
        for s in [scenario(8, 4, 32, 0.02), scenario(10, 3, 64, 0.04), scenario(3, 3, 1, 1.0), scenario(9, 16, 8, 0.0)]
        {
            let saturation = model.saturation_rate(&s);
            assert!(saturation > 0.0, "{s:?}");
            assert!(model.evaluate(&s, saturation * 0.9999).latency.is_some(), "{s:?} below {saturation}");
            for factor in [1.0001, 1.01, 1.5, 10.0] {
                assert_eq!(model.evaluate(&s, saturation * factor).latency, None, "{s:?} at {factor} × {saturation}");
            }
        }
    }

    #[test]
    fn scenarios_outside_the_model_give_no_latency_and_no_panic() {
        let model = BroadcastModel::default();
        let too_few_vcs = Scenario { allow_unsafe: true, ..scenario(8, 2, 32, 0.02) };
        let too_small = scenario(2, 4, 32, 0.02);
        let three_dimensional = Scenario { n: 3, ..scenario(8, 4, 32, 0.02) };
        for s in [&too_few_vcs, &too_small, &three_dimensional] {
            assert_eq!(model.evaluate(s, 0.001).latency, None, "{s:?}");
            assert_eq!(model.saturation_rate(s), 0.0, "{s:?}");
        }
        let s = scenario(8, 4, 32, 0.02);
        for rate in [-0.001, f64::NAN, f64::INFINITY, 1.0] {
            assert_eq!(model.evaluate(&s, rate).latency, None, "rate {rate}");
        }
        let largest = scenario(128, 16, 4096, 1.0);
        let saturation = model.saturation_rate(&largest);
        assert!(saturation > 0.0 && model.evaluate(&largest, 0.5 * saturation).latency.is_some());
    }

    #[test]
    fn assumptions_name_what_does_not_fit() {
        assert_eq!(assumptions_hold(&scenario(10, 5, 48, 0.02)), Ok(()));
        assert_eq!(assumptions_hold(&scenario(8, 3, 16, 0.0)), Ok(()));
        let s = scenario(8, 4, 32, 0.02);
        let cases = [
            (Scenario { traffic: TrafficKind::Tornado, ..s.clone() }, "tornado is not uniform"),
            (Scenario { routing: RoutingKind::Nbc, ..s.clone() }, "routing=nbc"),
            (Scenario { switching: Switching::Scouting, ..s.clone() }, "switching=scouting"),
            (Scenario { n: 3, ..s.clone() }, "n = 3"),
            (Scenario { k: 2, ..s.clone() }, "k = 2"),
            (Scenario { vcs: 2, allow_unsafe: true, ..s.clone() }, "vcs = 2"),
        ];
        for (s, reason) in cases {
            let message = assumptions_hold(&s).expect_err(reason);
            assert!(message.contains(reason), "{message:?} should say {reason:?}");
            assert!(message.contains("Duato's routing"), "{message:?} should name the routing the model is of");
        }
    }
}
