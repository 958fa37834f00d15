//! The simulator's random numbers: a seeded PCG generator, portable bit for bit between native
//! and WebAssembly builds (unlike `SmallRng`), with `libm` for the one transcendental function.

use rand_core::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Independent streams drawn from one scenario seed, so that changing the routing algorithm
/// leaves the generated traffic (arrival times and destinations) unchanged.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Traffic = 1,
    Routing = 2,
    Pattern = 3,
    /// The random link faults of `frandom`.
    Faults = 4,
    /// Message lengths (`lengths=`), apart so that they leave the arrivals and destinations of
    /// fixed-length traffic unchanged.
    Lengths = 5,
}

/// The seed of replication `i` of a scenario seeded `seed` (`--seeds N`): the seed itself for
/// the first, so that one replication is the plain run; then SplitMix64's finaliser of the seed
/// plus `i` golden-ratio steps, so that the replications of nearby seeds do not overlap (with
/// `seed + i`, seed 1's second replication would be seed 2's first).
pub fn replication_seed(seed: u64, i: u64) -> u64 {
    if i == 0 {
        return seed;
    }
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Rng(Pcg64Mcg);

/// The draws a routing algorithm makes when it plans a message. The simulator answers them from
/// its [`Rng`]; the channel-queue model answers them from a script, so that it can run an
/// algorithm's own `plan` once for every outcome and weigh each by its probability
/// (`models::channel_queue::routes`).
pub trait Draw {
    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u32) -> u32;

    /// True with probability `numerator / n`, drawn as `below(n) < numerator`: one draw with
    /// two outcomes, however large `n` is.
    fn below_is_under(&mut self, n: u32, numerator: u32) -> bool {
        self.below(n) < numerator
    }
}

impl Draw for Rng {
    #[inline(always)]
    fn below(&mut self, n: u32) -> u32 {
        Rng::below(self, n)
    }
}

impl Rng {
    pub fn new(seed: u64, stream: Stream) -> Rng {
        // SplitMix-style mixing keeps the streams of nearby seeds unrelated.
        let mixed = seed ^ (stream as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Rng(Pcg64Mcg::seed_from_u64(mixed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (n > 0), without modulo bias (Lemire's multiply-and-reject).
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let n = n as u64;
        let threshold = (1u64 << 32) % n;
        loop {
            let product = (self.next_u64() >> 32) * n;
            if (product & 0xFFFF_FFFF) >= threshold {
                return (product >> 32) as u32;
            }
        }
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Exponentially distributed with the given rate (mean `1/rate`), by inversion.
    pub fn exponential(&mut self, rate: f64) -> f64 {
        -libm::log(1.0 - self.unit()) / rate
    }

    /// Geometric on 1, 2, … with the given mean (≥ 1): the number of trials up to the first
    /// success of probability 1/mean, by inversion, at most `longest`.
    pub fn geometric(&mut self, mean: f64, longest: u32) -> u32 {
        if mean <= 1.0 {
            return 1;
        }
        let failures = libm::log(1.0 - self.unit()) / libm::log(1.0 - 1.0 / mean);
        1 + failures.min((longest - 1) as f64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_uniform_and_in_range() {
        let mut rng = Rng::new(7, Stream::Traffic);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[rng.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut rng = Rng::new(3, Stream::Traffic);
        let mean = (0..200_000).map(|_| rng.exponential(0.25)).sum::<f64>() / 200_000.0;
        assert!((mean - 4.0).abs() < 0.05, "{mean}");
    }

    #[test]
    fn geometric_has_the_requested_mean_and_shape() {
        let mut rng = Rng::new(5, Stream::Lengths);
        let draws: Vec<u32> = (0..200_000).map(|_| rng.geometric(12.0, 4096)).collect();
        let mean = draws.iter().map(|&d| d as f64).sum::<f64>() / draws.len() as f64;
        assert!((mean - 12.0).abs() < 0.1, "{mean}");
        // P(L = 1) = 1/12, and P(L > 12) = (11/12)^12.
        let ones = draws.iter().filter(|&&d| d == 1).count() as f64 / draws.len() as f64;
        let long = draws.iter().filter(|&&d| d > 12).count() as f64 / draws.len() as f64;
        assert!((ones - 1.0 / 12.0).abs() < 0.003, "{ones}");
        assert!((long - (11.0f64 / 12.0).powi(12)).abs() < 0.004, "{long}");
        assert!(draws.iter().all(|&d| d >= 1));
        assert!((0..1000).all(|_| rng.geometric(1.0, 4096) == 1));
        assert!((0..10_000).all(|_| rng.geometric(3000.0, 4096) <= 4096));
    }

    #[test]
    fn streams_differ_and_seeds_reproduce() {
        let a: Vec<u64> = { let mut r = Rng::new(1, Stream::Traffic); (0..4).map(|_| r.next_u64()).collect() };
        let b: Vec<u64> = { let mut r = Rng::new(1, Stream::Traffic); (0..4).map(|_| r.next_u64()).collect() };
        let c: Vec<u64> = { let mut r = Rng::new(1, Stream::Routing); (0..4).map(|_| r.next_u64()).collect() };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
