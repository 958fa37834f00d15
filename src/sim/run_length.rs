//! When the measurement window starts and ends: at fixed cycles (`warmup`, `cycles`), or
//! decided as the run goes (`warmup=auto`, `cycles=auto`).
//!
//! **Warm-up (`warmup=auto`).** Every [`SAMPLE_CYCLES`] cycles the messages in the system (at
//! their sources or in the network) are counted; by Little's law their number follows the mean
//! latency, and reading it costs nothing per flit. At cycle [`MIN_WARMUP`] and each doubling of
//! it (1,000, 2,000, 4,000, …) the mean count over the latest half of the warm-up so far is
//! compared with the mean over the quarter before it, as BookSim compares successive sample
//! periods: once they differ by at most [`WARMUP_CHANGE`] of the latest, the counts have
//! levelled off and the window starts. Comparing halves that double keeps the test steady on a
//! noisy network: near saturation the count climbs for thousands of cycles, slowly, under
//! fluctuations larger than the climb over any short stretch. At [`WARMUP_CAP`] the window
//! starts anyway, and the report says so.
//!
//! **Length (`cycles=auto`).** The window's base batches are `width` cycles of generation time;
//! when the window has filled [`BASE_BATCHES`] of them, pairs are merged and `width` doubles. At
//! every batch boundary the labelled messages generated so far are recorded, so a batch is
//! complete once all of its messages are delivered. Each time the batches fill, that is each
//! time the window has doubled from [`MIN_WINDOW`], the confidence interval of the complete
//! batches ([`super::stats::latency_interval`]) is computed. Once its half-width is at most `ci`
//! times the mean latency, without widening, the window runs as long again and ends at the next
//! doubling. It also ends at [`WINDOW_CAP`], and when a source queue fills (the network is past
//! saturation, and its latency would not settle). A window that ended where its interval first
//! looked narrow enough would end where the latency happened to vary least, which near
//! saturation is where it was low: such windows report too low a mean with too narrow an
//! interval. Looking only at each doubling keeps the looks few, and the second half, run
//! whatever it shows, dilutes the lucky first one (docs/statistics.md, docs/coverage.md).

use super::stats::{Stats, BASE_BATCHES};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// Cycles between two counts of the messages in the system during an automatic warm-up.
pub const SAMPLE_CYCLES: u64 = 10;
/// An automatic warm-up lasts at least this long; it is checked here and at each doubling.
pub const MIN_WARMUP: u64 = 1_000;
/// The largest relative change between the last two periods of a warm-up that has settled.
pub const WARMUP_CHANGE: f64 = 0.05;
/// An automatic warm-up ends here at the latest (`MIN_WARMUP` · 2¹⁰).
pub const WARMUP_CAP: u64 = MIN_WARMUP << 10;
/// An automatic window lasts at least about this long (its first check comes when its base
/// batches, of `MIN_WINDOW / BASE_BATCHES` cycles, are all filled), and at most [`WINDOW_CAP`].
pub const MIN_WINDOW: u64 = 10_000;
pub const WINDOW_CAP: u64 = 1_000_000;

/// Why the warm-up or the window ended where it did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// At the scenario's fixed length.
    #[default]
    Fixed,
    /// Warm-up: the messages in the system levelled off.
    Settled,
    /// Window: the interval reached its target width.
    Target,
    /// At the automatic length's cap.
    Cap,
    /// Window: a source queue filled, the network is past saturation.
    Saturated,
    /// The run stopped first (a deadlock).
    Unfinished,
}

impl Stop {
    /// This stop as a report gives it at cycle `now`: a fixed phase whose `end` a halted run (a
    /// deadlock or a fault stall) never reached did not end at the scenario's length; it is
    /// [`Stop::Unfinished`], as an automatic one would be.
    pub fn as_reported(self, end: u64, now: u64, halted: bool) -> Stop {
        if self == Stop::Fixed && halted && now < end {
            Stop::Unfinished
        } else {
            self
        }
    }
}

/// The run-length controller's state (saved with the simulation).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunLength {
    /// The window's length when fixed (`None` for `cycles=auto`).
    fixed_window: Option<u64>,
    /// Target relative half-width of the interval (`ci`).
    target: f64,
    /// Warm-up: the counts of messages in the system, one every [`SAMPLE_CYCLES`].
    samples: Vec<u32>,
    /// Window (`cycles=auto`): labelled messages generated before each base batch boundary.
    generated_at_boundary: Vec<u64>,
    /// Cycles per base batch (`cycles=auto`).
    width: u64,
    /// The interval reached its target at the last check: the window runs as long again.
    target_reached: bool,
    pub warmup_stop: Stop,
    pub window_stop: Stop,
}

impl RunLength {
    /// The controller for `s`, and the statistics' window as far as it is known at cycle 0.
    pub fn new(s: &Scenario) -> (RunLength, u64, u64) {
        let warmup = (!s.warmup_auto()).then_some(s.warmup);
        let fixed_window = (!s.cycles_auto()).then_some(s.cycles);
        let start = warmup.unwrap_or(u64::MAX);
        let end = match (warmup, fixed_window) {
            (Some(w), Some(c)) => w + c,
            _ => u64::MAX,
        };
        let controller = RunLength {
            fixed_window,
            target: s.ci,
            samples: Vec::new(),
            generated_at_boundary: Vec::new(),
            width: MIN_WINDOW.div_ceil(BASE_BATCHES as u64),
            target_reached: false,
            warmup_stop: if warmup.is_some() { Stop::Fixed } else { Stop::Unfinished },
            window_stop: if fixed_window.is_some() { Stop::Fixed } else { Stop::Unfinished },
        };
        (controller, start, end)
    }

    /// Whether the controller acts at all: without it the window is fixed from the start.
    pub fn is_automatic(&self) -> bool {
        self.warmup_stop == Stop::Unfinished || self.window_stop == Stop::Unfinished
    }

    /// Acts at the start of cycle `now`, before its arrivals: `in_system` messages are at their
    /// sources or in the network, and `throttled` says whether a source queue has filled.
    /// Starts or ends the window in `stats` when it is time, and returns the next cycle at which
    /// it wants to act (`u64::MAX` for never).
    pub fn act(&mut self, now: u64, in_system: u64, throttled: bool, stats: &mut Stats) -> u64 {
        if self.warmup_stop == Stop::Unfinished {
            return self.warm_up(now, in_system, stats);
        }
        if self.window_stop == Stop::Unfinished && now < stats.window_end {
            return self.measure(now, throttled, stats);
        }
        u64::MAX
    }

    fn warm_up(&mut self, now: u64, in_system: u64, stats: &mut Stats) -> u64 {
        if now > 0 && now % SAMPLE_CYCLES == 0 {
            self.samples.push(in_system.min(u32::MAX as u64) as u32);
        }
        if now >= MIN_WARMUP && (now / MIN_WARMUP).is_power_of_two() && now % MIN_WARMUP == 0 {
            let settled = levelled_off(&self.samples);
            if settled || now >= WARMUP_CAP {
                self.warmup_stop = if settled { Stop::Settled } else { Stop::Cap };
                self.start_window(now, stats);
                return self.next_boundary(now, stats);
            }
        }
        now - now % SAMPLE_CYCLES + SAMPLE_CYCLES
    }

    fn start_window(&mut self, now: u64, stats: &mut Stats) {
        self.samples = Vec::new();
        match self.fixed_window {
            Some(cycles) => stats.set_window(now, now + cycles),
            None => {
                stats.set_window(now, u64::MAX);
                stats.set_batch_width(self.width);
                self.generated_at_boundary.clear();
            }
        }
    }

    /// The next cycle the window needs the controller: its next batch boundary (`cycles=auto`).
    fn next_boundary(&self, now: u64, stats: &Stats) -> u64 {
        if self.fixed_window.is_some() {
            return u64::MAX;
        }
        let into = now - stats.window_start;
        stats.window_start + (into / self.width + 1) * self.width
    }

    fn measure(&mut self, now: u64, throttled: bool, stats: &mut Stats) -> u64 {
        let elapsed = now - stats.window_start;
        if elapsed > 0 && elapsed % self.width == 0 {
            self.generated_at_boundary.push(stats.labelled_generated);
            let filled = self.generated_at_boundary.len() == BASE_BATCHES;
            let stop = if throttled {
                Some(Stop::Saturated)
            } else if elapsed >= WINDOW_CAP {
                Some(Stop::Cap)
            } else if filled && self.target_reached {
                Some(Stop::Target)
            } else {
                self.target_reached |= filled && self.precise_enough(stats);
                None
            };
            if let Some(stop) = stop {
                self.window_stop = stop;
                stats.end_window(now);
                return u64::MAX;
            }
            if filled {
                stats.merge_batch_pairs();
                self.generated_at_boundary = self.generated_at_boundary.iter().skip(1).step_by(2).copied().collect();
                self.width *= 2;
            }
        }
        self.next_boundary(now, stats)
    }

    /// The complete batches' interval is within the target and was not widened.
    fn precise_enough(&self, stats: &Stats) -> bool {
        let complete = stats.complete_batches(&self.generated_at_boundary);
        let interval = stats.latency_interval_of(complete);
        let mean = stats.latency_mean();
        !interval.widened && interval.batches >= 2 && mean > 0.0 && interval.half_width <= self.target * mean
    }
}

/// Whether counts taken at equal intervals have levelled off: the mean of the latest half
/// differs from the mean of the quarter before it by at most [`WARMUP_CHANGE`] of the latest.
pub fn levelled_off(samples: &[u32]) -> bool {
    let n = samples.len();
    if n < 4 {
        return false;
    }
    let mean = |s: &[u32]| s.iter().map(|&x| x as f64).sum::<f64>() / s.len() as f64;
    let (earlier, latest) = (mean(&samples[n / 4..n / 2]), mean(&samples[n / 2..]));
    (latest - earlier).abs() <= WARMUP_CHANGE * latest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_level_off_once_the_latest_half_matches_the_quarter_before() {
        // A climb over the first 400 counts to 100, then flat.
        let series = |n: usize| -> Vec<u32> { (0..n).map(|i| (i.min(400) / 4) as u32).collect() };
        // 800 counts: the quarter 200..400 averages 75, the half 400..800 100: still climbing.
        assert!(!levelled_off(&series(800)));
        // 1,600 counts: 400..800 and 800..1600 both 100.
        assert!(levelled_off(&series(1600)));
        // Within 5 %: 96 against 100 is level, 94 is not.
        let step = |earlier: u32| -> Vec<u32> { [vec![0; 25], vec![earlier; 25], vec![100; 50]].concat() };
        assert!(levelled_off(&step(96)) && !levelled_off(&step(94)));
        assert!(!levelled_off(&[5, 5, 5]), "too few counts to judge");
    }
}
