//! When each node's messages arrive (`inject=`): the arrival process of one node, drawn from
//! the traffic stream. Arrival times are reals; a message arriving at time t joins its source
//! queue in cycle ⌊t⌋.
//!
//! - Poisson (the default, and every link before the key): exponential gaps of mean 1/λ.
//! - Bernoulli: in each cycle a message with probability λ, so gaps are geometric on 1, 2, …
//!   with mean 1/λ, and at most one message arrives in a cycle.
//! - On/off (a two-state Markov-modulated Bernoulli process): a node alternates between bursts
//!   (ON) and silences (OFF) whose lengths in cycles are geometric with means `on` and `off`
//!   (after each cycle a burst ends with probability 1/`on`, a silence with 1/`off`); in each
//!   cycle of a burst a message arrives with probability p = λ·(`on` + `off`)/`on`, so the
//!   long-run rate is λ (p ≤ 1 is checked by the scenario).

use crate::rng::{Exponential, GeometricLength, Samplers};
use crate::scenario::Injection;
use rand::distr::Distribution;
use rand::RngExt as _;

/// The arrival process of every node under one scenario. The only per-node state is the end of
/// the current or next burst (on/off), which the simulator keeps with the node.
#[derive(Clone, Copy, Debug)]
pub enum Arrivals {
    Poisson(Exponential),
    Bernoulli(GeometricLength),
    OnOff {
        /// The gaps between arrivals within a burst (geometric, mean 1/p).
        in_burst: GeometricLength,
        on: GeometricLength,
        off: GeometricLength,
        /// The long-run fraction of cycles in a burst, `on`/(`on` + `off`): the chance that a
        /// node starts in one.
        on_fraction: f64,
    },
}

/// Gaps and periods are counted in cycles: far longer than any run is as good as never.
const LONGEST: u32 = u32::MAX;

impl Arrivals {
    pub fn new(injection: Injection, rate: f64, samplers: Samplers) -> Arrivals {
        let gaps = |mean: f64| GeometricLength::new(mean, LONGEST, samplers);
        match injection {
            Injection::Poisson => Arrivals::Poisson(Exponential::new(rate, samplers)),
            Injection::Bernoulli => Arrivals::Bernoulli(gaps(1.0 / rate)),
            Injection::OnOff { on, off } => {
                let on_fraction = on as f64 / (on + off) as f64;
                Arrivals::OnOff { in_burst: gaps(on_fraction / rate), on: gaps(on as f64), off: gaps(off as f64), on_fraction }
            }
        }
    }

    /// The first arrival at a node, at or after time 0; sets the node's `burst_end`.
    #[inline]
    pub fn first<R: rand::Rng + ?Sized>(&self, burst_end: &mut f64, rng: &mut R) -> f64 {
        match self {
            Arrivals::Poisson(gaps) => gaps.sample(rng),
            // The first cycle with a message: one geometric gap counted from cycle −1.
            Arrivals::Bernoulli(gaps) => (gaps.sample(rng) - 1) as f64,
            Arrivals::OnOff { on, on_fraction, .. } => {
                // The node starts in a burst with its long-run probability; periods are
                // memoryless, so the rest of a burst under way has the length of a whole one.
                *burst_end = if rng.random::<f64>() < *on_fraction { on.sample(rng) as f64 } else { 0.0 };
                self.next(-1.0, burst_end, rng)
            }
        }
    }

    /// The arrival after the one at time `t` at a node whose burst ends at `burst_end`.
    #[inline]
    pub fn next<R: rand::Rng + ?Sized>(&self, t: f64, burst_end: &mut f64, rng: &mut R) -> f64 {
        match self {
            Arrivals::Poisson(gaps) => t + gaps.sample(rng),
            Arrivals::Bernoulli(gaps) => t + gaps.sample(rng) as f64,
            Arrivals::OnOff { in_burst, on, off, .. } => {
                let mut t = t;
                loop {
                    let candidate = t + in_burst.sample(rng) as f64;
                    if candidate < *burst_end {
                        return candidate;
                    }
                    // The burst ends with no more arrivals: a silence, then the next burst,
                    // whose first cycle may already hold a message. (An arrival held back by a
                    // full source queue may come after the burst's end: the silence then
                    // counts from the burst's end, and arrivals never go back in time.)
                    let start = *burst_end + off.sample(rng) as f64;
                    *burst_end = start + on.sample(rng) as f64;
                    t = (start - 1.0).max(t);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};

    /// Arrival times at one node over `cycles` cycles.
    fn arrivals(injection: Injection, rate: f64, cycles: f64, seed: u64) -> Vec<f64> {
        let process = Arrivals::new(injection, rate, Samplers::Inversion);
        let mut rng = Rng::new(seed, Stream::Traffic);
        let mut burst_end = 0.0;
        let mut t = process.first(&mut burst_end, &mut rng);
        let mut times = Vec::new();
        while t < cycles {
            times.push(t);
            t = process.next(t, &mut burst_end, &mut rng);
        }
        times
    }

    /// Messages per window of `window` cycles: their mean and variance.
    fn window_counts(times: &[f64], cycles: f64, window: f64) -> (f64, f64) {
        let mut counts = vec![0.0; (cycles / window) as usize];
        for &t in times {
            counts[(t / window) as usize] += 1.0;
        }
        let mean = counts.iter().sum::<f64>() / counts.len() as f64;
        let variance = counts.iter().map(|c| (c - mean) * (c - mean)).sum::<f64>() / (counts.len() - 1) as f64;
        (mean, variance)
    }

    #[test]
    fn poisson_is_the_exponential_gaps_of_every_earlier_link() {
        let process = Arrivals::new(Injection::Poisson, 0.05, Samplers::Inversion);
        let gaps = Exponential::new(0.05, Samplers::Inversion);
        let (mut a, mut b) = (Rng::new(3, Stream::Traffic), Rng::new(3, Stream::Traffic));
        let mut burst_end = 0.0;
        let mut t = process.first(&mut burst_end, &mut a);
        let mut u = gaps.sample(&mut b);
        for _ in 0..1000 {
            assert_eq!(t.to_bits(), u.to_bits());
            t = process.next(t, &mut burst_end, &mut a);
            u += gaps.sample(&mut b);
        }
    }

    #[test]
    fn bernoulli_gives_at_most_one_message_a_cycle_with_probability_the_rate() {
        let (rate, cycles) = (0.3, 400_000.0);
        let times = arrivals(Injection::Bernoulli, rate, cycles, 1);
        assert!(times.iter().all(|t| t.fract() == 0.0 && *t >= 0.0), "whole cycles");
        assert!(times.windows(2).all(|w| w[1] > w[0]), "at most one a cycle");
        let measured = times.len() as f64 / cycles;
        assert!((measured - rate).abs() < 0.003, "{measured}");
        // Counts per window of 10 cycles are binomial(10, λ): variance 10·λ·(1 − λ) = 2.1,
        // below Poisson's 3.
        let (mean, variance) = window_counts(&times, cycles, 10.0);
        assert!((mean - 3.0).abs() < 0.03 && (variance - 2.1).abs() < 0.06, "{mean} {variance}");
        // Cycle 0 holds a message with probability λ, like every other cycle.
        let first_in_cycle_0 = (0..20_000).filter(|&seed| arrivals(Injection::Bernoulli, rate, 1.0, seed).len() == 1).count();
        assert!((first_in_cycle_0 as f64 / 20_000.0 - rate).abs() < 0.012, "{first_in_cycle_0}");
    }

    #[test]
    fn on_off_keeps_the_mean_rate_and_is_bursty() {
        let (rate, cycles) = (0.05, 2_000_000.0);
        let times = arrivals(Injection::OnOff { on: 20, off: 80 }, rate, cycles, 2);
        let measured = times.len() as f64 / cycles;
        assert!((measured - rate).abs() < 0.002, "mean rate {measured}");
        assert!(times.iter().all(|t| t.fract() == 0.0) && times.windows(2).all(|w| w[1] > w[0]));
        // Counts per window of 100 cycles vary far more than Poisson's (variance = mean) and
        // Bernoulli's (less).
        let (mean, variance) = window_counts(&times, cycles, 100.0);
        assert!((mean - 5.0).abs() < 0.2 && variance > 2.0 * mean, "{mean} {variance}");
    }

    #[test]
    fn on_off_bursts_last_on_cycles_on_average() {
        // With p = 1 every cycle of a burst holds a message, so the runs of consecutive
        // messages are the bursts themselves (two touching bursts need a silence of 0 cycles,
        // which never happens: silences last at least one cycle).
        let (on, off) = (8, 24);
        let rate = on as f64 / (on + off) as f64;
        let times = arrivals(Injection::OnOff { on, off }, rate, 1_000_000.0, 4);
        let mut runs = vec![1.0];
        let mut silences = Vec::new();
        for w in times.windows(2) {
            if w[1] - w[0] == 1.0 {
                *runs.last_mut().unwrap() += 1.0;
            } else {
                runs.push(1.0);
                silences.push(w[1] - w[0] - 1.0);
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean(&runs) - on as f64).abs() < 0.15, "burst {}", mean(&runs));
        assert!((mean(&silences) - off as f64).abs() < 0.4, "silence {}", mean(&silences));
        // Geometric: P(burst = 1 cycle) = 1/on.
        let single = runs.iter().filter(|&&r| r == 1.0).count() as f64 / runs.len() as f64;
        assert!((single - 1.0 / on as f64).abs() < 0.01, "{single}");
    }
}
