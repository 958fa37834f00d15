//! Seed 000: F. Safaei, A. Khonsari, M. Fathy, M. Ould-Khaoua, "Performance Evaluation of
//! Fully Adaptive Routing for the Torus Interconnect Networks", ICCS 2007 (`routing=nbc`).
//! Equation numbers below are the paper's; section numbers (§) are those of `docs/models/nbc.md`,
//! the full restatement, with the readings chosen where the extracted text is ambiguous.
//!
//! Duato's methodology on a 2-D torus: of the `V` virtual channels of every physical channel,
//! `V1` are fully adaptive and `V2` are escape channels run by the negative-hop scheme with bonus
//! cards (Nbc). The mean network latency `S̄` solves a fixed point through the blocking
//! probabilities (11)–(16), the channel wait `W_c` (18) and the VC occupancy chain (20); the
//! latency is then `(S̄ + W_s) V̄` (1).
//!
//! Where the model differs from the simulator:
//! - It is defined for a **2-D** torus (`n = 2`) under **uniform** traffic with Poisson
//!   sources, unicast wormhole switching and `V1 ≥ 1` (see [`assumptions_hold`]); for other `n`
//!   [`LatencyModel::evaluate`] still solves the 2-D model of radix `k`.
//! - The split of `V` is not stated by the paper; the default takes `V2 = ⌊k/2⌋ + 1` escape
//!   levels and `V1 = V − V2` (§5, item 5: 5 + 5 for k = 8, 1 + 9 for k = 16), which the
//!   simulator's negative-hop escape layer need not match; [`Nbc::escape_vcs`] overrides it.
//! - Flit buffers are not modelled (`buf` is ignored): a blocked message is charged the M/G/1
//!   wait `W_c` for a whole channel, and virtual-channel multiplexing enters only through `V̄`.
//! - By default every destination is replaced by one at the mean distance `d̄ = k/2`
//!   ([`DestinationAveraging::MeanDistance`]), the paper's mean-value form.

use super::{Evaluation, LatencyModel};
use crate::scenario::{RoutingKind, Scenario, Switching, TrafficKind};
use std::collections::BTreeMap;

/// Relative convergence threshold on `S̄` (§4, step 3.4).
const RELATIVE_TOLERANCE: f64 = 1e-12;
/// Rounds after which the rate is declared saturated (§4, step 3.5).
const MAX_ROUNDS: usize = 1_000_000;
/// Relative width at which the saturation-rate bisection stops (§4).
const SATURATION_TOLERANCE: f64 = 1e-7;

/// How eq. (17) averages the network latency over destinations (§6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DestinationAveraging {
    /// Every destination replaced by one at the mean distance `d̄` (`mode="mean"`).
    #[default]
    MeanDistance,
    /// Eq. (17) taken literally over every destination's `(h_x, h_y)` (`mode="exact"`).
    EveryDestination,
}

/// How eq. (11) combines the blocking of the output channels still allowed (§5, item 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpenDimensions {
    /// The printed superscript: the bracket raised to the real power `φ_h`.
    #[default]
    Exponent,
    /// Expectation over the number of open dimensions, `(1 − P_φ)x² + P_φ x`
    /// (`combine="mixture"`).
    Mixture,
}

/// Which VC counts eqs. (14), (15) use (§5, item 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EscapeCounts {
    /// The counts the paper's text states, `V1 + V2 − c − l + 1` and `V1 + V2 − c − l + 2`.
    #[default]
    Stated,
    /// The binomials as printed, which amount to `V1 + c + l` and `V1 + c + l + 1`
    /// (`binom="printed"`).
    Printed,
}

/// Seed 000's Duato-Nbc latency model. `Nbc::default()` is the default reading (§5, §6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nbc {
    pub destinations: DestinationAveraging,
    pub open_dimensions: OpenDimensions,
    pub escape_counts: EscapeCounts,
    /// `V2`, the number of escape VCs; `None` takes `⌊k/2⌋ + 1`.
    pub escape_vcs: Option<u32>,
}

/// Why the model does not describe scenario `s` (with the default VC split), if it does not.
pub fn assumptions_hold(s: &Scenario) -> Result<(), String> {
    if s.routing != RoutingKind::Nbc {
        return Err(format!(
            "the Duato-Nbc model describes Duato's routing with negative-hop escape channels \
             (routing=nbc), not routing={}",
            s.routing
        ));
    }
    if s.switching != Switching::Wormhole {
        return Err("the Duato-Nbc model assumes wormhole switching; scouting is not modelled".into());
    }
    if s.n != 2 {
        return Err(format!("the Duato-Nbc model is defined for a 2-D torus only (n = 2), got n = {}", s.n));
    }
    if s.traffic != TrafficKind::Uniform {
        return Err(format!("the Duato-Nbc model assumes uniform traffic; {} is not uniform", s.traffic));
    }
    if s.beta > 0.0 {
        return Err("the Duato-Nbc model has unicast messages only; broadcasts (beta > 0) are not modelled".into());
    }
    Setup::new(&Nbc::default(), s).map(|_| ())
}

impl LatencyModel for Nbc {
    fn name(&self) -> &'static str {
        "nbc"
    }

    fn describe(&self) -> &'static str {
        "Safaei et al. 2007 (Duato-Nbc; “Performance evaluation of fully adaptive routing for the torus \
         interconnect networks”, ICCS 2007): Duato's fully adaptive routing with negative-hop (Nbc) \
         escape channels in a 2-D torus, uniform traffic, V1 adaptive + V2 escape virtual channels"
    }

    /// Solves the fixed point of §4 at `rate`, from `k`, `len` and `vcs` as a 2-D torus.
    /// Gives no latency when the VC split is impossible (`V1 < 1`, or fewer escape levels than
    /// the longest route needs), and empty quantities whenever the latency is `None`.
    fn evaluate(&self, s: &Scenario, rate: f64) -> Evaluation {
        if !(rate >= 0.0 && rate.is_finite()) {
            return Evaluation::default();
        }
        match Setup::new(self, s) {
            Ok(setup) => setup.solve(self, rate),
            Err(_) => Evaluation::default(),
        }
    }

    /// Bisection between 0 and `4 / (d̄ (M + d̄))`, where `λ_c S̄ ≥ 1` already holds at the
    /// zero-load `S̄` (§4); 0 when the model does not apply to the VC count.
    fn saturation_rate(&self, s: &Scenario) -> f64 {
        let Ok(setup) = Setup::new(self, s) else {
            return 0.0;
        };
        let finite = |rate: f64| setup.solve(self, rate).latency.is_some();
        let mut below = 0.0;
        let mut above = 4.0 / (setup.mean_hops * (setup.length + setup.mean_hops));
        while above - below > SATURATION_TOLERANCE * above {
            let middle = 0.5 * (below + above);
            if finite(middle) {
                below = middle;
            } else {
                above = middle;
            }
        }
        below
    }
}

/// One kind of hop in the sum of eq. (5): its share of a message's hops, the negative hops
/// `c = ⌈Δ/2⌉` it may still need, and the probability `P_φ,h` that only one dimension is left.
#[derive(Clone, Copy, Debug)]
struct HopClass {
    weight: f64,
    negative_hops_left: usize,
    one_dimension_left: f64,
}

/// The state of the iteration of §4 at one rate; at its end, the solution.
struct FixedPoint {
    /// `S̄`, mean network latency and mean channel service time.
    service: f64,
    /// `W_c` of eq. (18).
    channel_wait: f64,
    /// `Σ_h P_block,h`, expected blocked hops per message.
    blocked_hops: f64,
    /// `P_v`, `v = 0..V`, of eq. (20).
    occupancy: Vec<f64>,
    /// `A(n)`, `n = 0..V+2` (zero past `V`).
    all_busy: Vec<f64>,
    /// The bracket of eq. (11) by negative hops still needed, `c = 1..`.
    bracket: Vec<f64>,
    rounds: usize,
}

/// How one run of the iteration ended.
enum Outcome {
    Converged(FixedPoint),
    /// No fixed point was reached; `after_extrapolation` says whether an Aitken jump may have
    /// carried the iterate past the least fixed point.
    Saturated {
        after_extrapolation: bool,
    },
}

/// What the rate does not change: VC split, hop table, and the ratio `C(V−n, v−n)/C(V, v)`.
struct Setup {
    vcs: usize,
    adaptive_vcs: usize,
    escape_vcs: usize,
    length: f64,
    /// `d̄`, mean hops per message (the exact mean distance in the every-destination form).
    mean_hops: f64,
    hops: Vec<HopClass>,
    most_negative_hops: usize,
    /// `busy_given[n * (V + 1) + v]`: probability that `n` particular VCs are all busy when `v`
    /// random VCs of the `V` are.
    busy_given: Vec<f64>,
}

impl Setup {
    fn new(model: &Nbc, s: &Scenario) -> Result<Setup, String> {
        if s.k < 2 || s.len == 0 {
            return Err(format!("the Duato-Nbc model needs k ≥ 2 and len ≥ 1, got k = {}, len = {}", s.k, s.len));
        }
        let vcs = s.vcs as usize;
        let escape_vcs = model.escape_vcs.unwrap_or(s.k / 2 + 1) as usize;
        if escape_vcs + 1 > vcs {
            return Err(format!(
                "the Duato-Nbc model needs at least one adaptive VC besides the {escape_vcs} negative-hop \
                 escape VCs (V ≥ {}), got vcs = {vcs}",
                escape_vcs + 1
            ));
        }
        let (mean_hops, hops) = match model.destinations {
            DestinationAveraging::MeanDistance => mean_distance_hops(s.k),
            DestinationAveraging::EveryDestination => every_destination_hops(s.k),
        };
        let most_negative_hops = hops.iter().map(|h| h.negative_hops_left).max().unwrap_or(1);
        if escape_vcs < most_negative_hops {
            return Err(format!(
                "the Duato-Nbc model needs as many escape VCs as negative hops a route may take \
                 ({most_negative_hops}), got {escape_vcs}"
            ));
        }
        let mut busy_given = vec![0.0; (vcs + 1) * (vcs + 1)];
        for n in 0..=vcs {
            for v in n..=vcs {
                busy_given[n * (vcs + 1) + v] = (0..n).map(|i| (v - i) as f64 / (vcs - i) as f64).product();
            }
        }
        Ok(Setup {
            vcs,
            adaptive_vcs: vcs - escape_vcs,
            escape_vcs,
            length: s.len as f64,
            mean_hops,
            hops,
            most_negative_hops,
            busy_given,
        })
    }

    /// §4, steps 2–4: the least fixed point of `S̄`, then `W_s`, `V̄` and the latency.
    fn solve(&self, model: &Nbc, rate: f64) -> Evaluation {
        match self.least_fixed_point(model, rate) {
            Some(point) if rate / self.vcs as f64 * point.service < 1.0 => self.evaluation(model, rate, &point),
            _ => Evaluation::default(),
        }
    }

    /// §4, steps 2–3: the least fixed point of `S̄ ↦ M + d̄ + W_c Σ_h P_block,h`, or `None`
    /// when there is none below `λ_c S̄ = 1` (saturation).
    ///
    /// Near the fold the plain iteration needs ~10⁴ rounds, so it is first run with Aitken
    /// extrapolation (Steffensen's method), which lands on the same fixed point. A jump could in
    /// principle carry the iterate past both the least and the unstable fixed point, making a
    /// stable rate look saturated; a saturation found after a jump is therefore confirmed by
    /// the plain, monotone iteration of §4.
    fn least_fixed_point(&self, model: &Nbc, rate: f64) -> Option<FixedPoint> {
        match self.iterate(model, rate, true) {
            Outcome::Converged(point) => Some(point),
            Outcome::Saturated { after_extrapolation: false } => None,
            Outcome::Saturated { after_extrapolation: true } => match self.iterate(model, rate, false) {
                Outcome::Converged(point) => Some(point),
                Outcome::Saturated { .. } => None,
            },
        }
    }

    /// Iterates from the zero-load value `M + d̄`, with or without Aitken jumps.
    fn iterate(&self, model: &Nbc, rate: f64, extrapolate: bool) -> Outcome {
        let channel_rate = channel_rate(rate, self.mean_hops);
        let mut point = FixedPoint {
            service: self.length + self.mean_hops,
            channel_wait: 0.0,
            blocked_hops: 0.0,
            occupancy: vec![0.0; self.vcs + 1],
            all_busy: vec![0.0; self.vcs + 3],
            bracket: vec![0.0; self.most_negative_hops + 1],
            rounds: 0,
        };
        let mut jumped = false;
        // The iterate before `point.service` when that one came from a plain step.
        let mut previous: Option<f64> = None;
        while point.rounds < MAX_ROUNDS {
            if channel_rate * point.service >= 1.0 {
                return Outcome::Saturated { after_extrapolation: jumped };
            }
            let next = self.update(model, channel_rate, &mut point);
            if (next - point.service).abs() <= RELATIVE_TOLERANCE * next {
                point.service = next;
                return Outcome::Converged(point);
            }
            let jump = previous
                .filter(|_| extrapolate)
                .and_then(|first| aitken_extrapolation(first, point.service, next))
                .filter(|x| channel_rate * x < 1.0);
            match jump {
                Some(x) => {
                    previous = None;
                    point.service = x;
                    jumped = true;
                }
                None => {
                    previous = Some(point.service);
                    point.service = next;
                }
            }
        }
        Outcome::Saturated { after_extrapolation: jumped }
    }

    /// One round of §4, step 3: eqs. (20), (18), (12)–(16) and (11) at `point.service`,
    /// stored in `point`; returns the new `S̄` of eq. (5).
    fn update(&self, model: &Nbc, channel_rate: f64, point: &mut FixedPoint) -> f64 {
        point.rounds += 1;
        vc_occupancy(channel_rate, point.service, &mut point.occupancy);
        point.channel_wait = channel_wait(channel_rate, point.service, self.length);
        for (n, value) in point.all_busy.iter_mut().enumerate() {
            *value = self.all_busy(n, &point.occupancy);
        }
        for c in 1..point.bracket.len() {
            point.bracket[c] = self.blocking_bracket(model.escape_counts, c, &point.all_busy);
        }
        point.blocked_hops = self
            .hops
            .iter()
            .map(|h| {
                h.weight
                    * blocking_probability(
                        model.open_dimensions,
                        point.bracket[h.negative_hops_left],
                        h.one_dimension_left,
                    )
            })
            .sum();
        self.length + self.mean_hops + point.channel_wait * point.blocked_hops
    }

    /// Eq. (12)–(16) of seed 000: the bracket `P_b1 + ½(P_b2 + P_b3)` of eq. (11) for a message
    /// that may still need `c` negative hops, from the table `all_busy[n] = A(n)`.
    fn blocking_bracket(&self, counts: EscapeCounts, c: usize, all_busy: &[f64]) -> f64 {
        let v2 = self.escape_vcs;
        let usable_after_adaptive = self.vcs - c + 1;
        let level_share = 1.0 / usable_after_adaptive as f64;
        let adaptive_share = self.adaptive_vcs as f64 * level_share;
        let class_1 = adaptive_share * all_busy[usable_after_adaptive];
        let class_2: f64 =
            (1..=v2 - c).map(|l| level_share * all_busy[self.usable_from_escape(counts, c, l, false)]).sum();
        let class_3: f64 =
            (1..=v2 - c + 1).map(|l| level_share * all_busy[self.usable_from_escape(counts, c, l, true)]).sum();
        class_1 + 0.5 * (class_2 + class_3)
    }

    /// VCs that a message coming off escape level `l` may use when its next hop is negative
    /// (class 2, eq. (14)) or positive (class 3, eq. (15)).
    fn usable_from_escape(&self, counts: EscapeCounts, c: usize, l: usize, next_hop_positive: bool) -> usize {
        let positive = next_hop_positive as usize;
        match counts {
            EscapeCounts::Stated => self.vcs - c - l + 1 + positive,
            EscapeCounts::Printed => self.adaptive_vcs + c + l + positive,
        }
    }

    /// `A(n)` of eqs. (12)–(15), seed 000: probability that `n` particular VCs of a channel
    /// are all busy, zero when the channel has fewer than `n`.
    fn all_busy(&self, n: usize, occupancy: &[f64]) -> f64 {
        if n > self.vcs {
            return 0.0;
        }
        let row = &self.busy_given[n * (self.vcs + 1)..(n + 1) * (self.vcs + 1)];
        (n..=self.vcs).map(|v| occupancy[v] * row[v]).sum()
    }

    fn evaluation(&self, model: &Nbc, rate: f64, point: &FixedPoint) -> Evaluation {
        let source_wait = source_wait(rate, self.vcs, point.service, self.length);
        let multiplexing = multiplexing_degree(&point.occupancy);
        let mut quantities = BTreeMap::new();
        let mut put = |name: String, value: f64| {
            quantities.insert(name, value);
        };
        put("V1".into(), self.adaptive_vcs as f64);
        put("V2".into(), self.escape_vcs as f64);
        put("d_bar".into(), self.mean_hops);
        put("lambda_c".into(), channel_rate(rate, self.mean_hops));
        put("S".into(), point.service);
        put("W_c".into(), point.channel_wait);
        put("W_s".into(), source_wait);
        put("V_bar".into(), multiplexing);
        put("blocking_probability".into(), point.blocked_hops / self.hops.iter().map(|h| h.weight).sum::<f64>());
        put("blocking_delay".into(), point.channel_wait * point.blocked_hops);
        put("iterations".into(), point.rounds as f64);
        for (v, p) in point.occupancy.iter().enumerate() {
            put(format!("P_v[{v}]"), *p);
        }
        if model.destinations == DestinationAveraging::MeanDistance {
            for (h, hop) in self.hops.iter().enumerate() {
                let p = blocking_probability(
                    model.open_dimensions,
                    point.bracket[hop.negative_hops_left],
                    hop.one_dimension_left,
                );
                put(format!("P_block[{}]", h + 1), p);
            }
        }
        Evaluation { latency: Some(latency(point.service, source_wait, multiplexing)), quantities }
    }
}

/// Eq. (2) of seed 000 (odd `k` from seed 003): mean hops per dimension `k̄`.
fn mean_hops_per_dimension(k: u32) -> f64 {
    let radix = k as f64;
    if k.is_multiple_of(2) {
        radix / 4.0
    } else {
        (radix - 1.0 / radix) / 4.0
    }
}

/// Eqs. (5), (9), (10) of seed 000 in the mean-value form (§6): hops `h = 1..⌈d̄⌉` of a
/// route of `d̄ = 2k̄` hops, the last one weighted `d̄ − ⌊d̄⌋` when `d̄` is fractional. Returns
/// `(d̄, hops)`.
fn mean_distance_hops(k: u32) -> (f64, Vec<HopClass>) {
    let per_dimension = mean_hops_per_dimension(k);
    let mean_hops = 2.0 * per_dimension;
    let last = mean_hops.ceil() as usize;
    let hops = (1..=last)
        .map(|h| {
            let done = (h - 1) as f64;
            let to_go = mean_hops - done;
            let one_dimension_left = if h == last {
                1.0
            } else if done < per_dimension {
                0.0
            } else {
                (2.0 / (to_go + 1.0)).min(1.0)
            };
            HopClass {
                weight: if done + 1.0 <= mean_hops { 1.0 } else { mean_hops - done },
                negative_hops_left: ((to_go / 2.0).ceil() as usize).max(1),
                one_dimension_left,
            }
        })
        .collect();
    (mean_hops, hops)
}

/// Eqs. (5), (6), (9), (17) of seed 000 taken over every destination (§6, `mode="exact"`):
/// each route `(h_x, h_y)` with its own `Δ`, and `P_φ,h` the share of the equally likely splits
/// `x + y = h − 1` (`x ≤ h_x`, `y ≤ h_y`) in which one dimension is finished. Hops with the same
/// `(c, P_φ)` are merged, with weights per destination. Returns `(exact mean distance, hops)`.
fn every_destination_hops(k: u32) -> (f64, Vec<HopClass>) {
    let half = (k / 2) as usize;
    let destinations = (k as f64).powi(2) - 1.0;
    let routes_with = |h: usize| if h == 0 || (k.is_multiple_of(2) && h == half) { 1.0 } else { 2.0 };
    let most_negative = half;
    let most_splits = half + 1;
    // Splits in which a dimension is finished: none, the one where x = h_x or y = h_y, or both
    // of those (two different splits) once h − 1 reaches max(h_x, h_y).
    let index = |c: usize, finished: usize, splits: usize| (c * 3 + finished) * (most_splits + 1) + splits;
    let mut weights = vec![0.0; index(most_negative + 1, 0, 0)];
    let mut total_hops = 0.0;
    for h_x in 0..=half {
        for h_y in 0..=half {
            let route_hops = h_x + h_y;
            if route_hops == 0 {
                continue;
            }
            let share = routes_with(h_x) * routes_with(h_y) / destinations;
            total_hops += share * route_hops as f64;
            for done in 0..route_hops {
                let splits = done.min(h_x) + 1 - done.saturating_sub(h_y);
                let finished = (done >= h_x) as usize + (done >= h_y) as usize;
                let c = (route_hops - done).div_ceil(2);
                weights[index(c, finished, splits)] += share;
            }
        }
    }
    let mut hops = Vec::new();
    for c in 1..=most_negative {
        for finished in 0..3 {
            for splits in 1..=most_splits {
                let weight = weights[index(c, finished, splits)];
                if weight > 0.0 {
                    hops.push(HopClass {
                        weight,
                        negative_hops_left: c,
                        one_dimension_left: finished as f64 / splits as f64,
                    });
                }
            }
        }
    }
    (total_hops, hops)
}

/// Aitken's Δ² extrapolation of three successive iterates, when they approach a limit
/// geometrically (ratio of successive steps in (0, 1)); the limit lies beyond `third`.
fn aitken_extrapolation(first: f64, second: f64, third: f64) -> Option<f64> {
    let (step_1, step_2) = (second - first, third - second);
    let ratio = step_2 / step_1;
    (ratio > 0.0 && ratio < 1.0).then(|| third + step_2 * ratio / (1.0 - ratio)).filter(|x| x.is_finite())
}

/// Eq. (3) of seed 000: message rate `λ_c = λ_g d̄ / 4` at one unidirectional channel.
fn channel_rate(rate: f64, mean_hops: f64) -> f64 {
    rate * mean_hops / 4.0
}

/// Eq. (11) of seed 000: probability `P_block,h` that every allowed output refuses the message,
/// with `φ_h = 2 − P_φ,h` open dimensions (eqs. (8)–(10)).
fn blocking_probability(combine: OpenDimensions, bracket: f64, one_dimension_left: f64) -> f64 {
    match combine {
        // Most hops have both dimensions or exactly one open; powf would dominate the round.
        OpenDimensions::Exponent if one_dimension_left == 0.0 => bracket * bracket,
        OpenDimensions::Exponent if one_dimension_left == 1.0 => bracket,
        OpenDimensions::Exponent => bracket.powf(2.0 - one_dimension_left),
        OpenDimensions::Mixture => (1.0 - one_dimension_left) * bracket * bracket + one_dimension_left * bracket,
    }
}

/// Eq. (18) of seed 000: mean wait `W_c` for a VC, an M/G/1 queue with service mean `S̄` and
/// variance `(S̄ − M)²`.
fn channel_wait(channel_rate: f64, service: f64, length: f64) -> f64 {
    let excess = service - length;
    channel_rate * (service * service + excess * excess) / (2.0 * (1.0 - channel_rate * service))
}

/// Eq. (19) of seed 000: mean wait `W_s` in the source queue, M/G/1 with arrival rate `λ_g/V`.
fn source_wait(rate: f64, vcs: usize, service: f64, length: f64) -> f64 {
    channel_wait(rate / vcs as f64, service, length)
}

/// Eq. (20) of seed 000: probabilities `P_v` that `v` of the `V` VCs of a channel are busy, a
/// birth–death chain whose full state departs at the reduced rate `1/S̄ − λ_c` (§5, item 6).
/// Needs `λ_c S̄ < 1`.
fn vc_occupancy(channel_rate: f64, service: f64, occupancy: &mut [f64]) {
    let load = channel_rate * service;
    let full = occupancy.len() - 1;
    let mut weight = 1.0;
    for p in occupancy[..full].iter_mut() {
        *p = weight;
        weight *= load;
    }
    occupancy[full] = weight / (1.0 - load);
    let total: f64 = occupancy.iter().sum();
    occupancy.iter_mut().for_each(|p| *p /= total);
}

/// Eq. (21) of seed 000: mean VC multiplexing degree `V̄ = Σ v² P_v / Σ v P_v`, 1 at zero load.
fn multiplexing_degree(occupancy: &[f64]) -> f64 {
    let (squares, plain) = occupancy
        .iter()
        .enumerate()
        .skip(1)
        .fold((0.0, 0.0), |(sq, pl), (v, p)| (sq + (v * v) as f64 * p, pl + v as f64 * p));
    if plain > 0.0 {
        squares / plain
    } else {
        1.0
    }
}

/// Eq. (1) of seed 000: mean message latency `(S̄ + W_s) V̄`.
fn latency(service: f64, source_wait: f64, multiplexing: f64) -> f64 {
    (service + source_wait) * multiplexing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn torus(k: u32, len: u32) -> Scenario {
        Scenario { k, len, routing: RoutingKind::Nbc, vcs: 10, ..Scenario::default() }
    }

    fn quantity(e: &Evaluation, name: &str) -> f64 {
        e.quantities[name]
    }

    fn assert_close(got: f64, want: f64, relative: f64, what: &str) {
        assert!((got - want).abs() <= relative * want.abs(), "{what}: {got} vs {want}");
    }

    /// §7: (k, M, rate, λ_c, S, W_c, W_s, V̄, latency).
    type ReferenceRow = (u32, u32, f64, f64, f64, f64, f64, f64, f64);

    const REFERENCE: [ReferenceRow; 17] = [
        (8, 32, 0.002, 0.002, 36.0, 1.413793, 0.1321515, 1.155172, 41.73886),
        (8, 32, 0.005, 0.005, 36.0, 4.0, 0.3340122, 1.439024, 52.2855),
        (8, 32, 0.01, 0.01, 36.00051, 10.2504, 0.6805194, 2.124294, 77.92127),
        (8, 32, 0.015, 0.015, 36.05682, 21.50537, 1.043872, 3.312968, 122.9134),
        (8, 32, 0.018, 0.018, 36.78372, 36.64867, 1.326138, 4.589877, 174.9195),
        (8, 64, 0.002, 0.002, 68.0, 5.37037, 0.4703974, 1.314815, 90.02589),
        (8, 64, 0.005, 0.005, 68.00051, 17.5761, 1.200847, 2.029902, 140.472),
        (8, 64, 0.008, 0.008, 68.11667, 40.93316, 1.970088, 3.348673, 234.6977),
        (8, 64, 0.0095, 0.0095, 69.37279, 67.44776, 2.461941, 4.551821, 326.9788),
        (16, 32, 0.002, 0.004, 40.00037, 3.961995, 0.1677455, 1.380956, 55.47041),
        (16, 32, 0.004, 0.008, 40.0069, 9.792929, 0.338347, 1.94119, 78.31779),
        (16, 32, 0.006, 0.012, 40.08662, 19.33477, 0.5140634, 2.84058, 115.3295),
        (16, 32, 0.0075, 0.015, 40.83475, 33.78631, 0.6752541, 4.011784, 166.5292),
        (16, 64, 0.001, 0.002, 72.00044, 6.130929, 0.2643065, 1.336451, 96.57828),
        (16, 64, 0.002, 0.004, 72.00724, 14.74543, 0.5325858, 1.809024, 131.2263),
        (16, 64, 0.003, 0.006, 72.06969, 27.79771, 0.806307, 2.519148, 183.5854),
        (16, 64, 0.004, 0.008, 72.85398, 51.64435, 1.109553, 3.703357, 273.9134),
    ];

    #[test]
    fn reproduces_the_reference_table() {
        // §7's values carry 7 significant digits; 1e-6 relative leaves room for rounding.
        for (k, len, rate, lambda_c, s, w_c, w_s, v_bar, latency) in REFERENCE {
            let e = Nbc::default().evaluate(&torus(k, len), rate);
            let case = format!("k={k} M={len} rate={rate}");
            assert_close(e.latency.expect("below saturation"), latency, 1e-6, &format!("{case} latency"));
            assert_close(quantity(&e, "lambda_c"), lambda_c, 1e-9, &format!("{case} lambda_c"));
            assert_close(quantity(&e, "S"), s, 1e-6, &format!("{case} S"));
            assert_close(quantity(&e, "W_c"), w_c, 1e-6, &format!("{case} W_c"));
            assert_close(quantity(&e, "W_s"), w_s, 1e-6, &format!("{case} W_s"));
            assert_close(quantity(&e, "V_bar"), v_bar, 1e-6, &format!("{case} V_bar"));
        }
    }

    fn variants() -> [(&'static str, Nbc); 5] {
        [
            ("default", Nbc::default()),
            ("exact", Nbc { destinations: DestinationAveraging::EveryDestination, ..Nbc::default() }),
            ("mixture", Nbc { open_dimensions: OpenDimensions::Mixture, ..Nbc::default() }),
            ("printed binomials", Nbc { escape_counts: EscapeCounts::Printed, ..Nbc::default() }),
            ("V1 = V2 = 5", Nbc { escape_vcs: Some(5), ..Nbc::default() }),
        ]
    }

    #[test]
    fn saturation_rates_match_the_reference_for_every_variant() {
        // §7, columns in the order of `variants()`.
        let reference = [
            (8, 32, [0.018601, 0.018077, 0.018301, 0.018810, 0.018601]),
            (8, 64, [0.009857, 0.009587, 0.009699, 0.009968, 0.009857]),
            (16, 32, [0.007891, 0.007733, 0.007596, 0.008192, 0.008213]),
            (16, 64, [0.004396, 0.004310, 0.004234, 0.004562, 0.004573]),
        ];
        for (k, len, rates) in reference {
            for ((name, model), expected) in variants().into_iter().zip(rates) {
                let s = torus(k, len);
                let saturation = model.saturation_rate(&s);
                // The reference has six digits: half a unit in the last place.
                assert!((saturation - expected).abs() <= 5.01e-7, "{name} k={k} M={len}: {saturation} vs {expected}");
                assert!(model.evaluate(&s, 0.999 * saturation).latency.is_some(), "{name} k={k} M={len}");
                assert!(model.evaluate(&s, 1.001 * saturation).latency.is_none(), "{name} k={k} M={len}");
            }
        }
    }

    #[test]
    fn variant_latencies_match_the_reference() {
        // §7: (k = 8, M = 32, rate 0.01) and (k = 16, M = 64, rate 0.003).
        let reference = [
            [77.92127, 183.5854],
            [79.21038, 184.6485],
            [77.92251, 184.0279],
            [77.92073, 183.3152],
            [77.92127, 183.2626],
        ];
        for ((name, model), [small, large]) in variants().into_iter().zip(reference) {
            let at_8 = model.evaluate(&torus(8, 32), 0.01).latency.expect("below saturation");
            let at_16 = model.evaluate(&torus(16, 64), 0.003).latency.expect("below saturation");
            assert_close(at_8, small, 1e-6, &format!("{name} k=8"));
            assert_close(at_16, large, 1e-6, &format!("{name} k=16"));
        }
    }

    #[test]
    fn extrapolation_reaches_the_fixed_point_of_the_plain_iteration() {
        for (k, len) in [(8, 32), (16, 64)] {
            let s = torus(k, len);
            let model = Nbc::default();
            let setup = Setup::new(&model, &s).expect("valid split");
            let saturation = model.saturation_rate(&s);
            for fraction in [0.3, 0.9, 0.999, 0.999_999] {
                let rate = fraction * saturation;
                let (Outcome::Converged(fast), Outcome::Converged(plain)) =
                    (setup.iterate(&model, rate, true), setup.iterate(&model, rate, false))
                else {
                    panic!("k={k} M={len}: no fixed point at {fraction} of saturation");
                };
                assert_close(fast.service, plain.service, 1e-8, &format!("k={k} M={len} at {fraction}"));
                if fraction > 0.9999 {
                    assert!(
                        10 * fast.rounds < plain.rounds,
                        "k={k} M={len}: {} vs {} rounds",
                        fast.rounds,
                        plain.rounds
                    );
                }
            }
        }
    }

    #[test]
    fn zero_load_latency_is_length_plus_mean_distance() {
        for (k, len, expected) in [(8, 32, 36.0), (8, 64, 68.0), (16, 32, 40.0), (16, 64, 72.0)] {
            let e = Nbc::default().evaluate(&torus(k, len), 0.0);
            assert_eq!(e.latency, Some(expected));
            assert_eq!(quantity(&e, "V_bar"), 1.0);
            assert_eq!(quantity(&e, "P_v[0]"), 1.0);
        }
    }

    #[test]
    fn latency_and_multiplexing_rise_with_rate_up_to_saturation() {
        for (k, len) in [(8, 32), (8, 64), (16, 32), (12, 16), (7, 16)] {
            let s = Scenario { vcs: 16, ..torus(k, len) };
            let saturation = Nbc::default().saturation_rate(&s);
            assert!(saturation > 0.0, "k={k} M={len}");
            let mut previous = (0.0, 0.0);
            for step in 0..50 {
                let e = Nbc::default().evaluate(&s, saturation * step as f64 / 50.0);
                let now = (e.latency.expect("below saturation"), quantity(&e, "V_bar"));
                assert!(now.0 > previous.0 && now.1 >= previous.1, "k={k} M={len} step {step}");
                previous = now;
            }
        }
    }

    #[test]
    fn occupancy_probabilities_sum_to_one() {
        let e = Nbc::default().evaluate(&torus(8, 32), 0.015);
        let total: f64 = (0..=10).map(|v| quantity(&e, &format!("P_v[{v}]"))).sum();
        assert!((total - 1.0).abs() < 1e-12);
        let blocking = quantity(&e, "blocking_probability");
        assert!(blocking > 0.0 && blocking < 1.0);
    }

    #[test]
    fn rates_past_saturation_and_invalid_rates_give_no_latency() {
        let s = torus(8, 32);
        for rate in [0.019, 0.03, 1.0, f64::INFINITY, f64::NAN, -0.001] {
            assert_eq!(Nbc::default().evaluate(&s, rate).latency, None, "rate {rate}");
        }
    }

    #[test]
    fn too_few_virtual_channels_give_no_latency_and_fail_the_assumptions() {
        // k = 16 needs V2 = 9 escape levels plus one adaptive VC.
        let s = Scenario { vcs: 9, allow_unsafe: true, ..torus(16, 32) };
        assert_eq!(Nbc::default().evaluate(&s, 0.001).latency, None);
        assert_eq!(Nbc::default().saturation_rate(&s), 0.0);
        assert!(assumptions_hold(&s).is_err());
        assert!(assumptions_hold(&Scenario { k: 32, vcs: 16, ..torus(16, 32) }).is_err());
    }

    #[test]
    fn assumptions_reject_each_unmodelled_feature() {
        assert_eq!(assumptions_hold(&torus(8, 32)), Ok(()));
        let broken = [
            Scenario { routing: RoutingKind::Duato, ..torus(8, 32) },
            Scenario { n: 3, ..torus(8, 32) },
            Scenario { traffic: TrafficKind::Tornado, ..torus(8, 32) },
            Scenario { beta: 0.1, ..torus(8, 32) },
            Scenario { switching: Switching::Scouting, scout: 2, ..torus(8, 32) },
        ];
        for s in broken {
            assert!(assumptions_hold(&s).is_err(), "{}", s.canonical());
        }
    }

    #[test]
    fn small_and_odd_radices_evaluate_without_panicking() {
        for k in [2, 3, 4, 5, 9, 15, 28] {
            let s = Scenario { vcs: 16, ..torus(k, 8) };
            for model in
                [Nbc::default(), Nbc { destinations: DestinationAveraging::EveryDestination, ..Nbc::default() }]
            {
                let e = model.evaluate(&s, 0.001);
                let latency = e.latency.expect("light load");
                assert!(latency >= 8.0, "k={k}: {latency}");
                assert!(model.saturation_rate(&s) > 0.001, "k={k}");
            }
        }
    }
}
