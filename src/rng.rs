//! The simulator's random numbers: a seeded PCG generator (`rand_pcg`), portable bit for bit
//! between native and WebAssembly builds (unlike `SmallRng`), used through `rand`'s traits and
//! samplers; and [`fresh_seed`], the one place entropy comes from.

use rand::distr::{Distribution, Uniform};
use rand::{Rng as _, RngExt as _, SeedableRng, TryRng};
use rand_pcg::Pcg64Mcg;
use std::convert::Infallible;
use std::fmt;

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

/// The generation of the samplers that draw real numbers (`rng=`). The generator and its
/// uniform integer draws are the same in both; they differ in the exponential inter-arrival
/// times and the geometric message lengths, so a link keeps its run only with its generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Samplers {
    /// `rng=1`, what every link before the key ran: both by inversion of one uniform draw,
    /// with `libm`'s `log`.
    #[default]
    Inversion,
    /// `rng=2`: `rand_distr`'s samplers, `Exp` (ziggurat) and `Geometric` (Bringmann and
    /// Friedrich's exact method), built on `libm` (see Cargo.toml) so that native and wasm
    /// agree.
    RandDistr,
}

impl Samplers {
    pub const ALLOWED: &'static str = "1 (inversion, every link before rng=) or 2 (rand_distr)";

    pub fn from_name(name: &str) -> Option<Samplers> {
        match name {
            "1" => Some(Samplers::Inversion),
            "2" => Some(Samplers::RandDistr),
            _ => None,
        }
    }
}

impl fmt::Display for Samplers {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Samplers::Inversion => "1",
            Samplers::RandDistr => "2",
        })
    }
}

impl serde::Serialize for Samplers {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(match self {
            Samplers::Inversion => 1,
            Samplers::RandDistr => 2,
        })
    }
}

/// A seed from the operating system's entropy (the browser's `crypto.getRandomValues` in
/// wasm), for `seed=random` and the page's New seed.
pub fn fresh_seed() -> Result<u64, String> {
    getrandom::u64().map_err(|e| format!("no entropy for a random seed: {e}"))
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Rng(Pcg64Mcg);

/// `rand`'s generator interface. A `u32` is the high half of a 64-bit output: the simulator's
/// uniform draws have always used those bits (PCG's strongest), so `rand`'s `Uniform` (Lemire's
/// exact multiply-and-reject, the same arithmetic as the sampler it replaced) gives every
/// earlier link its draws unchanged.
impl TryRng for Rng {
    type Error = Infallible;

    #[inline(always)]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.0.next_u64() >> 32) as u32)
    }

    #[inline(always)]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            chunk.copy_from_slice(&self.0.next_u64().to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

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

    /// Uniform in `0..n` (n > 0).
    #[inline(always)]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        // `new_inclusive(0, ·)` cannot fail, so no error branch is left in the inner loop.
        Uniform::new_inclusive(0, n - 1).map_or(0, |uniform| uniform.sample(self))
    }

    /// Uniform in `[0, 1)` with 53 random bits (the high bits of one output).
    #[inline(always)]
    pub fn unit(&mut self) -> f64 {
        self.random::<f64>()
    }

    /// True with probability `p`. Drawn as `unit() < p`, not `rand`'s `random_bool` (which
    /// compares 64 bits with `p · 2^64` and so differs, rarely, from the draws of earlier links).
    #[inline(always)]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// Exponentially distributed times with rate λ (mean 1/λ): the gaps between a node's Poisson
/// arrivals.
#[derive(Clone, Copy, Debug)]
pub enum Exponential {
    /// −ln(1 − U)/λ with `libm`'s `log`: std's `ln` differs from wasm's by an ulp now and then.
    Inversion { rate: f64 },
    RandDistr(rand_distr::Exp<f64>),
}

impl Exponential {
    pub fn new(rate: f64, samplers: Samplers) -> Exponential {
        match (samplers, rand_distr::Exp::new(rate)) {
            (Samplers::RandDistr, Ok(exp)) => Exponential::RandDistr(exp),
            _ => Exponential::Inversion { rate },
        }
    }
}

impl Distribution<f64> for Exponential {
    #[inline(always)]
    fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            Exponential::Inversion { rate } => -libm::log(1.0 - rng.random::<f64>()) / rate,
            Exponential::RandDistr(exp) => exp.sample(rng),
        }
    }
}

/// Geometric on 1, 2, … with a given mean (≥ 1): the number of trials up to the first success
/// of probability 1/mean, at most `longest`.
#[derive(Clone, Copy, Debug)]
pub enum GeometricLength {
    /// Always 1 (mean 1).
    One,
    /// 1 + ⌊ln(1 − U) / ln(1 − 1/mean)⌋, with `libm`'s `log` (as [`Exponential::Inversion`]).
    Inversion { mean: f64, longest: u32 },
    /// 1 + the failures before the first success, from `rand_distr`.
    RandDistr { failures: rand_distr::Geometric, longest: u32 },
}

impl GeometricLength {
    pub fn new(mean: f64, longest: u32, samplers: Samplers) -> GeometricLength {
        if mean <= 1.0 {
            return GeometricLength::One;
        }
        match (samplers, rand_distr::Geometric::new(1.0 / mean)) {
            (Samplers::RandDistr, Ok(failures)) => GeometricLength::RandDistr { failures, longest },
            _ => GeometricLength::Inversion { mean, longest },
        }
    }
}

impl Distribution<u32> for GeometricLength {
    #[inline]
    fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        match *self {
            GeometricLength::One => 1,
            GeometricLength::Inversion { mean, longest } => {
                let failures = libm::log(1.0 - rng.random::<f64>()) / libm::log(1.0 - 1.0 / mean);
                1 + failures.min((longest - 1) as f64) as u32
            }
            GeometricLength::RandDistr { failures, longest } => 1 + failures.sample(rng).min((longest - 1) as u64) as u32,
        }
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

    /// The draws of links before `rand` came in: Lemire's multiply-and-reject on the high half
    /// of each output, and 53 high bits for a real in [0, 1). `rand`'s samplers must give
    /// exactly these.
    #[test]
    fn rand_gives_the_draws_of_earlier_links() {
        let mut old = Rng::new(11, Stream::Routing);
        let mut old_below = |n: u32| -> u32 {
            let n = n as u64;
            let threshold = (1u64 << 32) % n;
            loop {
                let product = (old.0.next_u64() >> 32) * n;
                if (product & 0xFFFF_FFFF) >= threshold {
                    return (product >> 32) as u32;
                }
            }
        };
        let mut new = Rng::new(11, Stream::Routing);
        for i in 0..200_000u32 {
            // Small ranges, and ranges just above 2^31 where half the draws are rejected.
            let n = if i % 3 == 0 { (1 << 31) + i } else { 1 + i % 97 };
            assert_eq!(new.below(n), old_below(n), "draw {i}, n = {n}");
        }
        let mut old = Rng::new(12, Stream::Traffic);
        let mut new = Rng::new(12, Stream::Traffic);
        for _ in 0..10_000 {
            assert_eq!(new.unit().to_bits(), ((old.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)).to_bits());
        }
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        for samplers in [Samplers::Inversion, Samplers::RandDistr] {
            let mut rng = Rng::new(3, Stream::Traffic);
            let gaps = Exponential::new(0.25, samplers);
            let draws: Vec<f64> = (0..200_000).map(|_| gaps.sample(&mut rng)).collect();
            let mean = draws.iter().sum::<f64>() / draws.len() as f64;
            assert!((mean - 4.0).abs() < 0.05, "{samplers:?}: {mean}");
            // P(X > 8) = e^-2.
            let long = draws.iter().filter(|&&d| d > 8.0).count() as f64 / draws.len() as f64;
            assert!((long - (-2.0f64).exp()).abs() < 0.003, "{samplers:?}: {long}");
        }
    }

    #[test]
    fn geometric_has_the_requested_mean_and_shape() {
        for samplers in [Samplers::Inversion, Samplers::RandDistr] {
            let mut rng = Rng::new(5, Stream::Lengths);
            let lengths = GeometricLength::new(12.0, 4096, samplers);
            let draws: Vec<u32> = (0..200_000).map(|_| lengths.sample(&mut rng)).collect();
            let mean = draws.iter().map(|&d| d as f64).sum::<f64>() / draws.len() as f64;
            assert!((mean - 12.0).abs() < 0.1, "{samplers:?}: {mean}");
            // P(L = 1) = 1/12, and P(L > 12) = (11/12)^12.
            let ones = draws.iter().filter(|&&d| d == 1).count() as f64 / draws.len() as f64;
            let long = draws.iter().filter(|&&d| d > 12).count() as f64 / draws.len() as f64;
            assert!((ones - 1.0 / 12.0).abs() < 0.003, "{samplers:?}: {ones}");
            assert!((long - (11.0f64 / 12.0).powi(12)).abs() < 0.004, "{samplers:?}: {long}");
            assert!(draws.iter().all(|&d| d >= 1));
            let one = GeometricLength::new(1.0, 4096, samplers);
            assert!((0..1000).all(|_| one.sample(&mut rng) == 1));
            let capped = GeometricLength::new(3000.0, 4096, samplers);
            let draws: Vec<u32> = (0..10_000).map(|_| capped.sample(&mut rng)).collect();
            assert!(draws.iter().all(|&d| d <= 4096) && draws.contains(&4096), "{samplers:?}");
        }
    }

    #[test]
    fn the_two_generations_draw_differently() {
        let draws = |samplers| {
            let mut rng = Rng::new(8, Stream::Traffic);
            let gaps = Exponential::new(0.1, samplers);
            (0..8).map(|_| gaps.sample(&mut rng).to_bits()).collect::<Vec<u64>>()
        };
        assert_ne!(draws(Samplers::Inversion), draws(Samplers::RandDistr));
        for samplers in [Samplers::Inversion, Samplers::RandDistr] {
            assert_eq!(Samplers::from_name(&samplers.to_string()), Some(samplers));
        }
        assert_eq!(Samplers::from_name("3"), None);
    }

    #[test]
    fn fresh_seeds_differ() {
        // Two equal 64-bit seeds from the OS: a chance of 2^-64.
        assert_ne!(fresh_seed().unwrap(), fresh_seed().unwrap());
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
