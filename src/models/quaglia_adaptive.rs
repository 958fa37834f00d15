//! Seed 002: F. Quaglia et al., analytical model of minimal fully adaptive wormhole routing in
//! a 2-D torus with bidirectional links, *Parallel Computing* 28 (2002) 485–501
//! (`routing=adaptive`). Equation numbers below are the paper's; section numbers (§) are those of
//! `docs/models/quaglia-adaptive.md`, the full restatement, with the readings chosen where the
//! extracted text is ambiguous.
//!
//! The model follows one *average message* through a quadrant of the torus: from router
//! `N[1,1]` to `N[K+1,K+1]`, `K = k/4` hops in each dimension. Adaptive messages take X when it
//! is free, otherwise Y, otherwise wait for the output whose mean wait is smaller. Every link is
//! a multi-class M/G/1 queue; the waits, the channel-busy probabilities `p_X`, `p_Y` and the
//! residual transmission times depend on one another and are solved by Jacobi iteration.
//!
//! Where the model differs from the simulator:
//! - The model has **no virtual channels**: a message holds a whole physical channel from
//!   header to tail. The paper's own simulator used 4 virtual channels, and so does this crate's
//!   default for `routing=adaptive`; `vcs` and `buf` are ignored here. That, the zero-covariance
//!   and the exponential-wait assumptions make the model underestimate latency at medium and
//!   high load (−10 % to −13 % against the paper's simulation at λ = 0.015).
//! - It assumes uniform traffic, single-flit headers, one flit per link per cycle, Poisson
//!   sources and `k` a multiple of 4, in two dimensions only (see [`assumptions_hold`]).
//! - Its saturation comes from the holding times feeding back into the waits, well below the
//!   channel-load bound. §7 defines it operationally (no convergence within 5000
//!   iterations), so a rate within about 0.1 % of [`LatencyModel::saturation_rate`] costs
//!   thousands of iterations; elsewhere a rate takes 5–150.

use super::{saturation_by_bisection, Evaluation, LatencyModel};
use crate::scenario::{RoutingKind, Scenario, Switching, TrafficKind};
use std::collections::BTreeMap;

/// Convergence threshold on the summed change of the unknowns (§7, step 3).
const TOLERANCE: f64 = 1e-10;
/// Iterations after which the rate is declared saturated (§7, step 4).
const MAX_ITERATIONS: usize = 5000;
/// A wait this large means the iterates are running away.
const RUNAWAY_WAIT: f64 = 1e6;
/// Longest period of the selector flip cycles that are accepted as an answer (§7, step 5).
const LONGEST_FLIP_CYCLE: usize = 4;

/// Seed 002's path-hole/data-trail model of minimal fully adaptive wormhole routing.
#[derive(Clone, Copy, Debug, Default)]
pub struct QuagliaAdaptive;

/// Why the model does not describe scenario `s`, if it does not.
pub fn assumptions_hold(s: &Scenario) -> Result<(), String> {
    if s.routing != RoutingKind::Adaptive {
        return Err(format!(
            "the Quaglia model describes minimal fully adaptive routing (routing=adaptive), not routing={}",
            s.routing
        ));
    }
    if s.switching != Switching::Wormhole {
        return Err("the Quaglia model assumes wormhole switching; scouting is not modelled".into());
    }
    if s.n != 2 {
        return Err(format!("the Quaglia model is defined for a 2-D torus only (n = 2), got n = {}", s.n));
    }
    if s.k < 4 || !s.k.is_multiple_of(4) {
        return Err(format!(
            "the Quaglia model needs k to be a multiple of 4 (K = k/4 hops per dimension), got k = {}",
            s.k
        ));
    }
    if s.traffic != TrafficKind::Uniform {
        return Err(format!("the Quaglia model assumes uniform traffic; {} is not uniform", s.traffic));
    }
    if s.beta > 0.0 {
        return Err("the Quaglia model has unicast messages only; broadcasts (beta > 0) are not modelled".into());
    }
    Ok(())
}

impl LatencyModel for QuagliaAdaptive {
    fn name(&self) -> &'static str {
        "quaglia-adaptive"
    }

    fn describe(&self) -> &'static str {
        "Quaglia et al. 2002 (“Performance analysis of adaptive wormhole routing in a two-dimensional \
         torus”, Parallel Computing 28): minimal fully adaptive wormhole routing in a 2-D torus, uniform traffic, k a multiple of 4, links as multi-class M/G/1 queues, no \
         virtual channels"
    }

    /// Solves the fixed point of §7 at `rate`. Uses only `k` and `len` of the scenario, as a 2-D
    /// torus; gives no latency when `k` is not a positive multiple of 4 (the average-message
    /// diagram needs an integer `K`), and empty quantities whenever the latency is `None`.
    fn evaluate(&self, s: &Scenario, rate: f64) -> Evaluation {
        if !(rate >= 0.0 && rate.is_finite()) || s.k < 4 || !s.k.is_multiple_of(4) || s.len == 0 {
            return Evaluation::default();
        }
        let mut diagram = AverageMessage::new(s.k as usize / 4, s.k as f64, s.len as f64, rate);
        diagram.solve()
    }

    fn saturation_rate(&self, s: &Scenario) -> f64 {
        saturation_by_bisection(|rate| self.evaluate(s, rate).latency.is_some(), s)
    }
}

/// The unknowns of the fixed point: the four mean waits and the channel-busy probabilities.
#[derive(Clone, Copy, Debug, Default)]
struct Unknowns {
    wait_we: f64,
    wait_ne: f64,
    wait_ns: f64,
    wait_ws: f64,
    p_x: f64,
    p_y: f64,
}

impl Unknowns {
    fn distance(&self, other: &Unknowns) -> f64 {
        (self.wait_we - other.wait_we).abs()
            + (self.wait_ne - other.wait_ne).abs()
            + (self.wait_ns - other.wait_ns).abs()
            + (self.wait_ws - other.wait_ws).abs()
            + (self.p_x - other.p_x).abs()
            + (self.p_y - other.p_y).abs()
    }

    /// Whether the new iterate still describes a stable network (§7, step 4).
    fn is_stable(&self) -> bool {
        let waits = [self.wait_we, self.wait_ne, self.wait_ns, self.wait_ws];
        waits.iter().all(|w| w.is_finite() && *w >= 0.0 && *w < RUNAWAY_WAIT)
            && (0.0..1.0).contains(&self.p_x)
            && (0.0..1.0).contains(&self.p_y)
    }
}

/// Everything one Jacobi iteration derives from the current unknowns.
#[derive(Clone, Copy, Debug)]
struct Iterate {
    next: Unknowns,
    latency: f64,
    adaptive_latency: f64,
    share_x: f64,
    share_y: f64,
    rho_we: f64,
    rho_ne: f64,
    rho_ns: f64,
    rho_ws: f64,
    wait_for_x_coming_west: bool,
    wait_for_y_coming_north: bool,
    source_waits_for_x: bool,
}

/// Per-class sums of one M/G/1 queue: `Σ γ T̄` and `Σ γ M₂`.
#[derive(Clone, Copy, Debug, Default)]
struct ContentionClasses {
    busy_time: f64,
    second_moment: f64,
}

impl ContentionClasses {
    /// Adds a class of rate `rate` whose messages hold the channel as one with residual time
    /// `residual` and `hops_left` hops still to make.
    fn add(&mut self, rate: f64, residual: f64, hops_left: usize) {
        let holding = holding_time(residual, hops_left);
        self.busy_time += rate * holding;
        self.second_moment += rate * holding_second_moment(residual, holding);
    }

    /// Eq. (18) of seed 002 with the mirror-image flow doubling every class (eqs. (23)–(27)):
    /// returns `(ρ, W) = (2 Σ γ T̄, Σ γ M₂ / (1 − ρ))`.
    fn utilisation_and_wait(&self) -> (f64, f64) {
        let rho = 2.0 * self.busy_time;
        (rho, self.second_moment / (1.0 - rho))
    }
}

/// Eqs. (28)–(31) of seed 002: link utilisation (holding) time, the residual transmission time
/// less the header's remaining hop cycles.
fn holding_time(residual: f64, hops_left: usize) -> f64 {
    residual - hops_left as f64
}

/// Second moment of the holding time in eqs. (19)–(27), `S² = T² + σ²` with the holding time
/// taken as exponential (`σ = T̄`); §8, reading 1.
fn holding_second_moment(residual: f64, holding: f64) -> f64 {
    residual * residual + holding * holding
}

/// Theorem 1 (eqs. (3)–(5)) of seed 002, the bifurcation rule: shares `(f_X, f_Y)` of the
/// adaptive flow that leave a router on X and on Y.
fn bifurcation(p_x: f64, p_y: f64) -> (f64, f64) {
    let both_free_or_one = 1.0 - p_x * p_y;
    ((1.0 - p_x) / both_free_or_one, p_x * (1.0 - p_y) / both_free_or_one)
}

/// Expected time past a router where an adaptive message may go either way: X when X is free,
/// Y when only Y is free, and `when_both_busy` otherwise (the bracket of eqs. (35), (39), (46)).
fn over_output_choices(p_x: f64, p_y: f64, via_x: f64, via_y: f64, when_both_busy: f64) -> f64 {
    (1.0 - p_x) * via_x + p_x * (1.0 - p_y) * via_y + p_x * p_y * when_both_busy
}

/// The average message's diagram (Fig. 1 of seed 002): flows and residual times of every
/// channel, on `(K+2)²` grids indexed `[i][j]` from 1 as in the paper.
struct AverageMessage {
    /// `K`, hops per dimension.
    hops: usize,
    /// Message length `L` in flits, equal to the data-trail time `T_DT`.
    length: f64,
    /// `α`, share of destinations reached adaptively (eq. (1)).
    alpha: f64,
    /// `β_X = β_Y`, share of destinations in the same row, or in the same column (eq. (2)).
    beta: f64,
    /// `q = λ/4`, rate of the analysed quadrant flow (the paper's `1/s`).
    quadrant_rate: f64,
    flow_x: Vec<f64>,
    flow_y: Vec<f64>,
    time_x: Vec<f64>,
    time_y: Vec<f64>,
    /// `T^{bX}_n`, `T^{bY}_n` of the one-dimension streams, indexed by routers left `n = 1..K`.
    time_row: Vec<f64>,
    time_column: Vec<f64>,
}

impl AverageMessage {
    fn new(hops: usize, k: f64, length: f64, rate: f64) -> AverageMessage {
        let cells = (hops + 2) * (hops + 2);
        AverageMessage {
            hops,
            length,
            alpha: (k - 1.0) / (k + 1.0),
            beta: 1.0 / (k + 1.0),
            quadrant_rate: rate / 4.0,
            flow_x: vec![0.0; cells],
            flow_y: vec![0.0; cells],
            time_x: vec![0.0; cells],
            time_y: vec![0.0; cells],
            time_row: vec![0.0; hops + 1],
            time_column: vec![0.0; hops + 1],
        }
    }

    fn at(&self, i: usize, j: usize) -> usize {
        i * (self.hops + 2) + j
    }

    /// Hops still to make from a channel leaving router `N[i,j]`, counting that channel.
    fn hops_left(&self, i: usize, j: usize) -> usize {
        2 * self.hops + 2 - i - j
    }

    /// §7: Jacobi iteration from zero, with saturation and flip-cycle detection.
    fn solve(&mut self) -> Evaluation {
        let mut current = Unknowns::default();
        // The last few iterations' inputs and latencies, to recognise a selector flip cycle.
        let mut recent = [(Unknowns::default(), 0.0); LONGEST_FLIP_CYCLE];
        for iteration in 0..MAX_ITERATIONS {
            let step = self.iterate(&current);
            if !step.next.is_stable() || [step.rho_we, step.rho_ne, step.rho_ns, step.rho_ws].iter().any(|r| *r >= 1.0)
            {
                return Evaluation::default();
            }
            recent[iteration % LONGEST_FLIP_CYCLE] = (current, step.latency);
            if step.next.distance(&current) < TOLERANCE {
                return self.evaluation(&current, &step, step.latency, iteration + 1, 1);
            }
            for period in 2..=LONGEST_FLIP_CYCLE.min(iteration + 1) {
                let period_start = (iteration + 1 - period) % LONGEST_FLIP_CYCLE;
                if step.next.distance(&recent[period_start].0) < TOLERANCE {
                    let mean_latency =
                        (0..period).map(|back| recent[(iteration - back) % LONGEST_FLIP_CYCLE].1).sum::<f64>()
                            / period as f64;
                    return self.evaluation(&current, &step, mean_latency, iteration + 1, period);
                }
            }
            current = step.next;
        }
        Evaluation::default()
    }

    /// One Jacobi iteration (§7, step 2): flows, times, latency and new unknowns.
    fn iterate(&mut self, u: &Unknowns) -> Iterate {
        let (share_x, share_y) = bifurcation(u.p_x, u.p_y);
        self.compute_flows(share_x, share_y);
        // Selectors r, s of eqs. (35), (39): a blocked message waits for the output whose mean
        // wait is smaller, X on a tie for r and Y on a tie for s, as the paper states them.
        let wait_for_x_coming_west = u.wait_ws >= u.wait_we;
        let wait_for_y_coming_north = u.wait_ne >= u.wait_ns;
        self.compute_residual_times(u, wait_for_x_coming_west, wait_for_y_coming_north);
        let source_waits_for_x = u.wait_we + u.wait_ne < u.wait_ns + u.wait_ws;
        let adaptive_latency = self.adaptive_latency(u, source_waits_for_x);
        let latency = self.latency(u, adaptive_latency);
        let (rho_we, wait_we) = self.classes_west_east(share_x).utilisation_and_wait();
        let (rho_ne, wait_ne) = self.classes_north_east(share_x).utilisation_and_wait();
        let (rho_ns, wait_ns) = self.classes_north_south(share_y).utilisation_and_wait();
        let (rho_ws, wait_ws) = self.classes_west_south(share_y).utilisation_and_wait();
        let (p_x, p_y) = self.contention_probabilities();
        Iterate {
            next: Unknowns { wait_we, wait_ne, wait_ns, wait_ws, p_x, p_y },
            latency,
            adaptive_latency,
            share_x,
            share_y,
            rho_we,
            rho_ne,
            rho_ns,
            rho_ws,
            wait_for_x_coming_west,
            wait_for_y_coming_north,
            source_waits_for_x,
        }
    }

    /// Eqs. (6)–(17) of seed 002: adaptive-stream rates `F^X[i,j]`, `F^Y[i,j]`, forward from
    /// `N[1,1]`. In the last row and column the message has no choice left, so the whole
    /// arriving flow goes on.
    fn compute_flows(&mut self, share_x: f64, share_y: f64) {
        let k = self.hops;
        for i in 1..=k + 1 {
            for j in 1..=k + 1 {
                if i == k + 1 && j == k + 1 {
                    continue;
                }
                let arriving = if i == 1 && j == 1 {
                    self.alpha * self.quadrant_rate
                } else {
                    let from_west = if j > 1 { self.flow_x[self.at(i, j - 1)] } else { 0.0 };
                    let from_north = if i > 1 { self.flow_y[self.at(i - 1, j)] } else { 0.0 };
                    from_west + from_north
                };
                let here = self.at(i, j);
                if i == k + 1 {
                    self.flow_x[here] = arriving;
                } else if j == k + 1 {
                    self.flow_y[here] = arriving;
                } else {
                    self.flow_x[here] = share_x * arriving;
                    self.flow_y[here] = share_y * arriving;
                }
            }
        }
    }

    /// Eqs. (32)–(42) of seed 002: residual transmission times, backward from the data trail.
    /// The "+1" is the header's cycle on the link; the pairing of waits and times in (39)
    /// follows (35) (§8, readings 5 and 6).
    fn compute_residual_times(&mut self, u: &Unknowns, wait_for_x_coming_west: bool, wait_for_y_coming_north: bool) {
        let k = self.hops;
        let data_trail = self.length + 1.0;
        for i in (1..=k + 1).rev() {
            for j in (1..=k + 1).rev() {
                if j <= k {
                    let time = if i == k + 1 {
                        if j == k {
                            data_trail
                        } else {
                            u.wait_we + self.time_x[self.at(k + 1, j + 1)] + 1.0
                        }
                    } else if j == k {
                        u.wait_ws + self.time_y[self.at(i, k + 1)] + 1.0
                    } else {
                        let via_x = self.time_x[self.at(i, j + 1)];
                        let via_y = self.time_y[self.at(i, j + 1)];
                        let blocked = if wait_for_x_coming_west { u.wait_we + via_x } else { u.wait_ws + via_y };
                        over_output_choices(u.p_x, u.p_y, via_x, via_y, blocked) + 1.0
                    };
                    let here = self.at(i, j);
                    self.time_x[here] = time;
                }
                if i <= k {
                    let time = if j == k + 1 {
                        if i == k {
                            data_trail
                        } else {
                            u.wait_ns + self.time_y[self.at(i + 1, k + 1)] + 1.0
                        }
                    } else if i == k {
                        u.wait_ne + self.time_x[self.at(k + 1, j)] + 1.0
                    } else {
                        let via_x = self.time_x[self.at(i + 1, j)];
                        let via_y = self.time_y[self.at(i + 1, j)];
                        let blocked = if wait_for_y_coming_north { u.wait_ns + via_y } else { u.wait_ne + via_x };
                        over_output_choices(u.p_x, u.p_y, via_x, via_y, blocked) + 1.0
                    };
                    let here = self.at(i, j);
                    self.time_y[here] = time;
                }
            }
        }
        self.time_row[1] = data_trail;
        self.time_column[1] = data_trail;
        for n in 2..=k {
            self.time_row[n] = u.wait_we + self.time_row[n - 1] + 1.0;
            self.time_column[n] = u.wait_ns + self.time_column[n - 1] + 1.0;
        }
    }

    /// Eq. (23) with (19)–(22) of seed 002: classes contending with a west-to-east message for
    /// a horizontal channel (`β_X` time at `b^X_K`, §8 reading 7).
    fn classes_west_east(&self, share_x: f64) -> ContentionClasses {
        let k = self.hops;
        let mut classes = ContentionClasses::default();
        for j in 1..=k {
            classes.add(self.flow_y[self.at(k, j)], self.time_x[self.at(k + 1, j)], self.hops_left(k + 1, j));
        }
        for i in 2..=k {
            for j in 1..=k {
                let rate = share_x * self.flow_y[self.at(i - 1, j)];
                classes.add(rate, self.time_x[self.at(i, j)], self.hops_left(i, j));
            }
        }
        classes.add(self.beta * self.quadrant_rate, self.time_row[k], k);
        classes.add(self.alpha * share_x * self.quadrant_rate, self.time_x[self.at(1, 1)], self.hops_left(1, 1));
        classes
    }

    /// Eq. (25) of seed 002: classes contending with a message that turns from north to east,
    /// as printed (`f_X F^Y`, §8 reading 2) but with the `β_X` sum running to `K`
    /// (reading 3).
    fn classes_north_east(&self, share_x: f64) -> ContentionClasses {
        let k = self.hops;
        let mut classes = ContentionClasses::default();
        for j in 1..k {
            classes.add(
                self.flow_x[self.at(k + 1, j)],
                self.time_x[self.at(k + 1, j + 1)],
                self.hops_left(k + 1, j + 1),
            );
        }
        for i in 1..=k {
            for j in 1..k {
                let rate = share_x * self.flow_y[self.at(i, j)];
                classes.add(rate, self.time_x[self.at(i, j + 1)], self.hops_left(i, j + 1));
            }
        }
        for n in 1..=k {
            classes.add(self.beta * self.quadrant_rate, self.time_row[n], n);
        }
        classes.add(self.alpha * share_x * self.quadrant_rate, self.time_x[self.at(1, 1)], self.hops_left(1, 1));
        classes
    }

    /// Eq. (26) of seed 002: classes contending with a north-to-south message for a vertical
    /// channel.
    fn classes_north_south(&self, share_y: f64) -> ContentionClasses {
        let k = self.hops;
        let mut classes = ContentionClasses::default();
        for i in 1..=k {
            classes.add(self.flow_x[self.at(i, k)], self.time_y[self.at(i, k + 1)], self.hops_left(i, k + 1));
        }
        for i in 1..=k {
            for j in 1..k {
                let rate = share_y * self.flow_x[self.at(i, j)];
                classes.add(rate, self.time_y[self.at(i, j + 1)], self.hops_left(i, j + 1));
            }
        }
        classes.add(self.beta * self.quadrant_rate, self.time_column[k], k);
        classes.add(self.alpha * share_y * self.quadrant_rate, self.time_y[self.at(1, 1)], self.hops_left(1, 1));
        classes
    }

    /// Eq. (27) of seed 002: classes contending with a message that turns from west to south,
    /// with the second term on the vertical channel `Y[i+1,j]` (§8 reading 4).
    fn classes_west_south(&self, share_y: f64) -> ContentionClasses {
        let k = self.hops;
        let mut classes = ContentionClasses::default();
        for i in 1..k {
            classes.add(
                self.flow_y[self.at(i, k + 1)],
                self.time_y[self.at(i + 1, k + 1)],
                self.hops_left(i + 1, k + 1),
            );
        }
        for i in 1..k {
            for j in 1..=k {
                let rate = share_y * self.flow_y[self.at(i, j)];
                classes.add(rate, self.time_y[self.at(i + 1, j)], self.hops_left(i + 1, j));
            }
        }
        for n in 1..=k {
            classes.add(self.beta * self.quadrant_rate, self.time_column[n], n);
        }
        classes.add(self.alpha * share_y * self.quadrant_rate, self.time_y[self.at(1, 1)], self.hops_left(1, 1));
        classes
    }

    /// Eqs. (43), (44) of seed 002: probabilities `(p_X, p_Y)` that a horizontal or vertical
    /// channel is busy, the analysed quadrant's utilisation doubled for the other quadrant that
    /// shares the direction.
    fn contention_probabilities(&self) -> (f64, f64) {
        let k = self.hops;
        let one_dimension_rate = self.beta * self.quadrant_rate;
        let mut p_x = 0.0;
        let mut p_y = 0.0;
        for i in 1..=k + 1 {
            for j in 1..=k {
                p_x += self.flow_x[self.at(i, j)] * holding_time(self.time_x[self.at(i, j)], self.hops_left(i, j));
            }
        }
        for i in 1..=k {
            for j in 1..=k + 1 {
                p_y += self.flow_y[self.at(i, j)] * holding_time(self.time_y[self.at(i, j)], self.hops_left(i, j));
            }
        }
        for n in 1..=k {
            p_x += one_dimension_rate * holding_time(self.time_row[n], n);
            p_y += one_dimension_rate * holding_time(self.time_column[n], n);
        }
        (2.0 * p_x, 2.0 * p_y)
    }

    /// Eq. (46) of seed 002: mean latency `T_α` of an adaptive message from its source.
    fn adaptive_latency(&self, u: &Unknowns, source_waits_for_x: bool) -> f64 {
        let via_x = self.time_x[self.at(1, 1)];
        let via_y = self.time_y[self.at(1, 1)];
        let blocked = if source_waits_for_x { u.wait_we + u.wait_ne + via_x } else { u.wait_ns + u.wait_ws + via_y };
        over_output_choices(u.p_x, u.p_y, via_x, via_y, blocked)
    }

    /// Eq. (45) of seed 002: mean message latency `T_lat`, the one-dimension streams paying
    /// the source waits as printed (§8 reading 11).
    fn latency(&self, u: &Unknowns, adaptive_latency: f64) -> f64 {
        let k = self.hops;
        self.alpha * adaptive_latency
            + self.beta * (self.time_row[k] + u.wait_we + u.wait_ne)
            + self.beta * (self.time_column[k] + u.wait_ns + u.wait_ws)
    }

    fn evaluation(&self, u: &Unknowns, step: &Iterate, latency: f64, iterations: usize, period: usize) -> Evaluation {
        let k = self.hops;
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let quantities: BTreeMap<String, f64> = [
            ("alpha", self.alpha),
            ("beta_X", self.beta),
            ("quadrant_rate", self.quadrant_rate),
            ("W_WE", u.wait_we),
            ("W_NE", u.wait_ne),
            ("W_NS", u.wait_ns),
            ("W_WS", u.wait_ws),
            ("p_X", u.p_x),
            ("p_Y", u.p_y),
            ("f_X", step.share_x),
            ("f_Y", step.share_y),
            ("rho_WE", step.rho_we),
            ("rho_NE", step.rho_ne),
            ("rho_NS", step.rho_ns),
            ("rho_WS", step.rho_ws),
            ("r", flag(step.wait_for_x_coming_west)),
            ("s", flag(step.wait_for_y_coming_north)),
            ("v", flag(step.source_waits_for_x)),
            ("T_X[1,1]", self.time_x[self.at(1, 1)]),
            ("T_Y[1,1]", self.time_y[self.at(1, 1)]),
            ("T_bX[K]", self.time_row[k]),
            ("T_bY[K]", self.time_column[k]),
            ("T_alpha", step.adaptive_latency),
            ("holding_time_X[1,1]", holding_time(self.time_x[self.at(1, 1)], self.hops_left(1, 1))),
            ("holding_time_Y[1,1]", holding_time(self.time_y[self.at(1, 1)], self.hops_left(1, 1))),
            ("iterations", iterations as f64),
            ("flip_cycle_period", period as f64),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
        Evaluation { latency: Some(latency), quantities }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn torus(k: u32) -> Scenario {
        Scenario { k, routing: RoutingKind::Adaptive, vcs: 4, len: 12, ..Scenario::default() }
    }

    fn latency(k: u32, rate: f64) -> f64 {
        QuagliaAdaptive.evaluate(&torus(k), rate).latency.expect("below saturation")
    }

    /// §10: (rate, 4×4 paper model, 4×4 this page, 8×8 paper model, 8×8 this page).
    const TABLE_1: [(f64, f64, f64, f64, f64); 12] = [
        (0.001, 13.65, 13.6523, 15.73, 15.7340),
        (0.002, 13.70, 13.7056, 15.92, 15.9179),
        (0.003, 13.75, 13.7601, 16.11, 16.1078),
        (0.004, 13.81, 13.8159, 16.31, 16.3045),
        (0.005, 13.87, 13.8728, 16.51, 16.5087),
        (0.006, 13.93, 13.9310, 16.72, 16.7214),
        (0.007, 13.98, 13.9904, 16.94, 16.9438),
        (0.008, 14.04, 14.0512, 17.18, 17.1775),
        (0.009, 14.10, 14.1134, 17.42, 17.4241),
        (0.010, 14.17, 14.1769, 17.69, 17.6860),
        (0.011, 14.23, 14.2419, 17.97, 17.9659),
        (0.015, 14.50, 14.5174, 19.39, 19.3548),
    ];

    #[test]
    fn reproduces_the_spec_values_of_table_1() {
        for (rate, _, spec_4, _, spec_8) in TABLE_1 {
            let (model_4, model_8) = (latency(4, rate), latency(8, rate));
            assert!((model_4 - spec_4).abs() < 1e-4, "4×4 at {rate}: {model_4} vs {spec_4}");
            assert!((model_8 - spec_8).abs() < 1e-4, "8×8 at {rate}: {model_8} vs {spec_8}");
        }
    }

    #[test]
    fn lies_within_one_percent_of_the_papers_model_column() {
        for (rate, paper_4, _, paper_8, _) in TABLE_1 {
            let (model_4, model_8) = (latency(4, rate), latency(8, rate));
            assert!((model_4 / paper_4 - 1.0).abs() < 0.01, "4×4 at {rate}: {model_4} vs {paper_4}");
            assert!((model_8 / paper_8 - 1.0).abs() < 0.01, "8×8 at {rate}: {model_8} vs {paper_8}");
        }
    }

    #[test]
    fn intermediate_quantities_at_rate_0_01_match_the_spec() {
        // §10: name, 4×4 value, 8×8 value.
        let expected = [
            ("W_WE", 0.71311, 1.24363),
            ("W_NE", 0.68905, 1.27526),
            ("W_NS", 0.66228, 1.09111),
            ("W_WS", 0.18522, 0.84895),
            ("p_X", 0.04853, 0.12066),
            ("p_Y", 0.04810, 0.11168),
            ("f_X", 0.95370, 0.89135),
            ("T_X[1,1]", 14.1852, 17.8278),
            ("T_Y[1,1]", 14.6891, 17.1204),
            ("r", 0.0, 0.0),
            ("s", 1.0, 1.0),
        ];
        for (k, column) in [(4, 0), (8, 1)] {
            let q = QuagliaAdaptive.evaluate(&torus(k), 0.010).quantities;
            for (name, at_4, at_8) in expected {
                let want = if column == 0 { at_4 } else { at_8 };
                let got = q[name];
                assert!((got - want).abs() <= 1e-5 * want.abs().max(1.0), "{k}×{k} {name}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn zero_load_latency_is_length_plus_mean_distance() {
        // α(L + 2K) + 2β(L + K): 13.6 for 4×4, 15.5556 for 8×8.
        for (k, expected) in
            [(4, 13.6), (8, 7.0 / 9.0 * 16.0 + 2.0 / 9.0 * 14.0), (16, 15.0 / 17.0 * 20.0 + 2.0 / 17.0 * 16.0)]
        {
            let got = latency(k, 0.0);
            assert!((got - expected).abs() < 1e-9, "{k}×{k}: {got} vs {expected}");
        }
    }

    #[test]
    fn latency_rises_with_rate_up_to_saturation() {
        for k in [4, 8, 12, 16] {
            let saturation = QuagliaAdaptive.saturation_rate(&torus(k));
            let mut previous = latency(k, 0.0);
            for step in 1..40 {
                let now = latency(k, saturation * step as f64 / 40.0);
                assert!(now > previous, "{k}×{k}: latency fell at step {step}");
                previous = now;
            }
        }
    }

    #[test]
    fn saturation_rates_match_the_spec_and_bound_evaluate() {
        for (k, expected) in [(4, 0.0711), (8, 0.0225)] {
            let s = torus(k);
            let saturation = QuagliaAdaptive.saturation_rate(&s);
            assert!((saturation / expected - 1.0).abs() < 0.01, "{k}×{k}: {saturation} vs {expected}");
            assert!(QuagliaAdaptive.evaluate(&s, 0.999 * saturation).latency.is_some());
            assert!(QuagliaAdaptive.evaluate(&s, 1.001 * saturation).latency.is_none());
        }
    }

    #[test]
    fn selector_flip_cycles_near_saturation_are_averaged() {
        // In 4×4 above about 0.06 the waits W_WS and W_WE are nearly equal and r changes on
        // every iteration (§7, step 5); without averaging there would be no answer.
        let e = QuagliaAdaptive.evaluate(&torus(4), 0.065);
        assert_eq!(e.quantities["flip_cycle_period"], 2.0);
        let averaged = e.latency.expect("below saturation");
        assert!(averaged > latency(4, 0.06) && averaged < latency(4, 0.07));
    }

    #[test]
    fn rates_far_past_saturation_and_invalid_rates_give_no_latency() {
        let s = torus(8);
        for rate in [0.1, 1.0, 1e6, f64::INFINITY, f64::NAN, -0.01] {
            assert_eq!(QuagliaAdaptive.evaluate(&s, rate).latency, None, "rate {rate}");
        }
    }

    #[test]
    fn radix_not_a_multiple_of_four_gives_no_latency_and_fails_the_assumptions() {
        for k in [2, 3, 5, 6, 10] {
            let s = torus(k);
            assert_eq!(QuagliaAdaptive.evaluate(&s, 0.001).latency, None, "k = {k}");
            assert!(assumptions_hold(&s).is_err(), "k = {k}");
        }
    }

    #[test]
    fn assumptions_reject_each_unmodelled_feature() {
        assert_eq!(assumptions_hold(&torus(8)), Ok(()));
        let broken = [
            Scenario { routing: RoutingKind::Duato, ..torus(8) },
            Scenario { n: 3, ..torus(8) },
            Scenario { traffic: TrafficKind::Tornado, ..torus(8) },
            Scenario { beta: 0.1, ..torus(8) },
            Scenario { switching: Switching::Scouting, scout: 2, ..torus(8) },
        ];
        for s in broken {
            assert!(assumptions_hold(&s).is_err(), "{}", s.canonical());
        }
    }

    #[test]
    fn large_radix_evaluates_without_panicking() {
        let s = torus(128);
        assert!(QuagliaAdaptive.evaluate(&s, 1e-5).latency.is_some());
        assert_eq!(QuagliaAdaptive.evaluate(&s, 0.05).latency, None);
    }
}
