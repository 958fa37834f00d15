//! The saturation search (`torus saturation`): the highest offered load a network keeps up
//! with, under a stated criterion, to a stated tolerance, optionally over several seeds.
//!
//! One search is one job: it bisects the rate one run at a time, so the rates it tries are
//! the same on every machine. Several searches (seeds, experiments) run in parallel.

use super::replication::{replication_scenarios, seeds, AcrossSeeds};
use super::at_rate;
use super::jobs::{Job, Outcome, Runner};
use crate::scenario::Scenario;
use crate::sim::{RunReport, Simulation};
use serde::{Deserialize, Deserializer, Serialize};

/// BookSim's default `latency_thres`, cycles: the latency criterion's default threshold.
pub const DEFAULT_LATENCY_THRESHOLD: f64 = 500.0;

/// What counts as keeping up with the offered load (`--criterion`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Criterion {
    /// The run is neither saturated nor deadlocked: no source fell more than 5 % behind its own
    /// offered load, the accepted throughput was at least 95 % of the offered, no source queue
    /// reached its cap and the drain was not cut short. The default, and the strictest: under
    /// a permutation the few sources that cross the busiest channel fall behind while the
    /// average still keeps up.
    SourceShortfall,
    /// The average accepted throughput is at least 95 % of the offered load, no source queue
    /// throttled it, and no deadlock.
    Accepted,
    /// The mean latency is at most this many cycles (BookSim's `latency_thres`), no source queue
    /// throttled the load (a small `qcap` would cap the latency too), and no deadlock.
    Latency(f64),
}

impl Criterion {
    /// The names `--criterion` takes.
    pub const NAMES: [&'static str; 3] = ["source-shortfall", "accepted", "latency"];

    /// The criterion called `name`, with `latency_threshold` for `latency`.
    pub fn from_name(name: &str, latency_threshold: f64) -> Option<Criterion> {
        match name {
            "source-shortfall" => Some(Criterion::SourceShortfall),
            "accepted" => Some(Criterion::Accepted),
            "latency" => Some(Criterion::Latency(latency_threshold)),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Criterion::SourceShortfall => "source-shortfall",
            Criterion::Accepted => "accepted",
            Criterion::Latency(_) => "latency",
        }
    }

    /// The rule in words, as reports quote it.
    pub fn rule(self) -> String {
        match self {
            Criterion::SourceShortfall => "a run keeps up unless some source falls more than 5 % (plus two messages) behind its own \
                 offered load, the accepted throughput summed over all nodes falls below 95 % of the offered load, a source queue reaches its cap, the drain \
                 after the window is cut short, or the network deadlocks"
                .into(),
            Criterion::Accepted => "a run keeps up while its average accepted throughput is at least 95 % of the offered load, \
                 no source queue throttled the offered load and the network did not deadlock"
                .into(),
            Criterion::Latency(threshold) => format!(
                "a run keeps up while its mean latency is at most {threshold} cycles, no source queue throttled the offered \
                 load and the network did not deadlock"
            ),
        }
    }

    /// Whether a report taken at the end of the measurement window already fails the criterion
    /// whatever the drain after it brings ([`Simulation::run_for_verdict`]): the window's
    /// throughput, per-source shortfall and throttling are final then; the latency is not.
    pub fn lost_at_window_end(self, r: &RunReport) -> bool {
        match self {
            Criterion::SourceShortfall => r.saturated || r.deadlock,
            Criterion::Accepted => r.deadlock || r.throttled || r.accepted_flits_per_node_cycle < 0.95 * r.offered_flits_per_node_cycle,
            Criterion::Latency(_) => r.deadlock || r.throttled,
        }
    }

    pub fn keeps_up(self, r: &RunReport) -> bool {
        match self {
            Criterion::SourceShortfall => !r.saturated && !r.deadlock,
            Criterion::Accepted => {
                !r.deadlock && !r.throttled && r.accepted_flits_per_node_cycle >= 0.95 * r.offered_flits_per_node_cycle
            }
            Criterion::Latency(threshold) => !r.deadlock && !r.throttled && r.latency_mean <= threshold,
        }
    }
}

/// How a search runs: its criterion, when it stops, and where it looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    pub criterion: Criterion,
    /// The search stops once the bracket is at most this fraction of its upper end.
    pub tolerance: f64,
    /// The rates searched, messages/node/cycle: the lower end is taken to keep up and the upper
    /// not, neither is run. `None`: from 0 to W/len, the limit of the node's W injection
    /// channels (one, or 2n under `router=...wide`).
    pub range: Option<(f64, f64)>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { criterion: Criterion::SourceShortfall, tolerance: 0.01, range: None }
    }
}

impl SearchOptions {
    /// The rates searched for `s`.
    pub fn range_for(&self, s: &Scenario) -> (f64, f64) {
        self.range.unwrap_or((0.0, s.router.injection_channels(s.n) as f64 / s.len as f64))
    }
}

/// A name from a fixed list. Spelled `&'static str` in a field, serde's derive would borrow
/// it from the input and tie every reader to 'static input; the alias keeps it to
/// `deserialize_with`, which picks the static name.
type StaticName = &'static str;

/// One saturation search's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saturation {
    /// The scenario at `saturation_rate`.
    pub scenario: String,
    /// Highest rate tried that kept up (the bracket's lower end), or the range's lower end
    /// when none did.
    pub saturation_rate: f64,
    pub saturation_flits_per_node_cycle: f64,
    /// Relative to the uniform-traffic capacity 8/k flits/node/cycle.
    pub saturation_fraction_of_capacity: f64,
    /// Accepted throughput measured at `saturation_rate` (0 when no rate kept up).
    pub accepted_flits_per_node_cycle: f64,
    /// Runs simulated in the search.
    pub runs: usize,
    /// Lowest rate tried that did not keep up (the bracket's upper end); `None` when every rate
    /// tried kept up.
    pub saturation_rate_upper: Option<f64>,
    /// `"below"` when no rate tried kept up, `"above"` when every rate did: the saturation rate
    /// lies outside the range searched (or within the tolerance of its end).
    #[serde(deserialize_with = "outside_range_name")]
    pub outside_range: Option<StaticName>,
    /// The criterion's name (`criterion_rule` says it in words) and, for `latency`, its
    /// threshold in cycles.
    #[serde(deserialize_with = "criterion_name")]
    pub criterion: StaticName,
    pub criterion_rule: String,
    pub latency_threshold: Option<f64>,
    pub tolerance: f64,
    /// The rates searched, messages/node/cycle.
    pub rate_range: (f64, f64),
    /// The result in words, to the digits the search justifies (with several seeds, the
    /// spread across them), with the criterion.
    pub result: String,
}

/// One of `names`, read back from a result line (the static names a search reports).
fn known_name<'de, D: Deserializer<'de>>(d: D, names: &[&'static str]) -> Result<&'static str, D::Error> {
    let name = String::deserialize(d)?;
    names.iter().copied().find(|n| *n == name).ok_or_else(|| serde::de::Error::custom(format!("unknown name `{name}`")))
}

fn criterion_name<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    known_name(d, &Criterion::NAMES)
}

fn outside_range_name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'static str>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(name) => ["below", "above"]
            .into_iter()
            .find(|n| *n == name)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown side `{name}`"))),
    }
}

impl Saturation {
    /// A search not run (see `jobs::Outcome::placeholder`): zeros at the default options.
    pub fn placeholder(s: &Scenario) -> Saturation {
        let options = SearchOptions::default();
        Saturation {
            scenario: s.canonical(),
            saturation_rate: 0.0,
            saturation_flits_per_node_cycle: 0.0,
            saturation_fraction_of_capacity: 0.0,
            accepted_flits_per_node_cycle: 0.0,
            runs: 0,
            saturation_rate_upper: None,
            outside_range: None,
            criterion: options.criterion.name(),
            criterion_rule: String::new(),
            latency_threshold: None,
            tolerance: options.tolerance,
            rate_range: options.range_for(s),
            result: String::new(),
        }
    }
}

/// Saturation throughput under the default criterion and tolerance, from 0 to W/len.
pub fn saturation(s: &Scenario) -> Saturation {
    search(s, &SearchOptions::default())
}

/// Bisects the rate within the options' range until the bracket is within the tolerance of its
/// upper end, one run at a time: trying several rates of a bracket at once (one per core) would
/// make the rates tried depend on the machine, and the runs past saturation, which cost the most
/// (their drain), are the ones a parallel round wastes.
pub fn search(s: &Scenario, options: &SearchOptions) -> Saturation {
    let range = options.range_for(s);
    let (mut lo, mut hi) = range;
    let mut kept: Option<RunReport> = None;
    let mut failed = None;
    let mut runs = 0;
    while hi - lo > options.tolerance * hi {
        let rate = 0.5 * (lo + hi);
        // Only the verdict of a run past saturation matters, and its drain cost the most.
        let r = Simulation::new(&at_rate(s, rate)).expect("validated scenario").run_for_verdict(|r| options.criterion.lost_at_window_end(r));
        runs += 1;
        if options.criterion.keeps_up(&r) {
            lo = rate;
            kept = Some(r);
        } else {
            hi = rate;
            failed = Some(rate);
        }
    }
    let rate = if kept.is_some() { lo } else { range.0 };
    let flits = rate * s.len as f64;
    let outside_range = match (&kept, failed) {
        (None, _) => Some("below"),
        (_, None) => Some("above"),
        _ => None,
    };
    let mut saturation = Saturation {
        scenario: at_rate(s, rate.max(f64::MIN_POSITIVE)).canonical(),
        saturation_rate: rate,
        saturation_flits_per_node_cycle: flits,
        saturation_fraction_of_capacity: flits / s.capacity_flits(),
        accepted_flits_per_node_cycle: kept.map_or(0.0, |r| r.accepted_flits_per_node_cycle),
        runs,
        saturation_rate_upper: failed,
        outside_range,
        criterion: options.criterion.name(),
        criterion_rule: options.criterion.rule(),
        latency_threshold: match options.criterion {
            Criterion::Latency(t) => Some(t),
            _ => None,
        },
        tolerance: options.tolerance,
        rate_range: range,
        result: String::new(),
    };
    saturation.result = saturation.in_words(s);
    saturation
}

/// The decimals at which a figure known to within `uncertainty` is written: down to the
/// uncertainty's leading digit.
fn decimals(uncertainty: f64) -> usize {
    let mut decimals = 0;
    let mut place = 1.0;
    while place > uncertainty && decimals < 12 {
        place /= 10.0;
        decimals += 1;
    }
    decimals
}

impl Saturation {
    /// The result in words: to the decimal of the bracket's width.
    fn in_words(&self, s: &Scenario) -> String {
        let flits = |rate: f64| rate * s.len as f64;
        let criterion = format!("criterion {}", self.criterion);
        match (self.outside_range, self.saturation_rate_upper) {
            (Some("below"), upper) => format!(
                "no rate tried kept up: saturation below {} flits/node/cycle, the lowest rate tried ({criterion})",
                flits(upper.unwrap_or(self.rate_range.1))
            ),
            (_, None) => format!(
                "every rate tried kept up: saturation at least {} flits/node/cycle, the highest rate tried ({criterion})",
                self.saturation_flits_per_node_cycle
            ),
            (_, Some(upper)) => {
                let width = flits(upper) - self.saturation_flits_per_node_cycle;
                let (d, e) = (decimals(width), decimals(width / s.capacity_flits()));
                format!(
                    "saturation {:.d$} flits/node/cycle, {:.e$} of capacity ({criterion}; kept up at {:.f$}, not at {:.f$} \
                     flits/node/cycle; bisected to {} % of the rate)",
                    self.saturation_flits_per_node_cycle,
                    self.saturation_fraction_of_capacity,
                    self.saturation_flits_per_node_cycle,
                    flits(upper),
                    100.0 * self.tolerance,
                    f = d + 1,
                )
            }
        }
    }
}

/// One replication of a replicated search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SaturationReplication {
    pub replication: usize,
    pub seed: u64,
    pub saturation_rate: f64,
    pub saturation_rate_upper: Option<f64>,
    pub saturation_flits_per_node_cycle: f64,
    pub saturation_fraction_of_capacity: f64,
    pub runs: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SaturationAcrossSeeds {
    pub saturation_flits_per_node_cycle: AcrossSeeds,
    pub saturation_fraction_of_capacity: AcrossSeeds,
}

/// A search repeated with seeds derived from the scenario's (`torus saturation --seeds N`): the
/// first replication's result, whose seed is the scenario's own, then each replication's and
/// the mean and 95 % confidence interval across them; `result` states that mean and interval.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicatedSaturation {
    #[serde(flatten)]
    pub first: Saturation,
    pub seeds: Vec<u64>,
    pub replications: Vec<SaturationReplication>,
    pub across_seeds: SaturationAcrossSeeds,
}

/// One search of `s` as a job of `runner` (`torus saturation`).
pub fn search_on(runner: &dyn Runner, s: &Scenario, options: &SearchOptions) -> Saturation {
    runner.run(vec![Job::search(s, options)]).remove(0).into_search()
}

/// `replications` searches of `s`, one per seed derived from its own, each a job of `runner`.
pub fn search_replicated(runner: &dyn Runner, s: &Scenario, options: &SearchOptions, replications: usize) -> ReplicatedSaturation {
    let results = runner.run(replicated_search_jobs(s, options, replications)).into_iter().map(Outcome::into_search).collect();
    replicated_saturation(s, results)
}

/// The jobs of a replicated search: one search per seed derived from the scenario's.
pub fn replicated_search_jobs(s: &Scenario, options: &SearchOptions, replications: usize) -> Vec<Job> {
    replication_scenarios(s, replications).iter().map(|s| Job::search(s, options)).collect()
}

/// A replicated search of `s` from its searches' `results`, in the order of
/// [`replicated_search_jobs`].
pub fn replicated_saturation(s: &Scenario, results: Vec<Saturation>) -> ReplicatedSaturation {
    let seeds = seeds(s, results.len());
    let replications: Vec<SaturationReplication> = results
        .iter()
        .zip(&seeds)
        .enumerate()
        .map(|(replication, (r, &seed))| SaturationReplication {
            replication,
            seed,
            saturation_rate: r.saturation_rate,
            saturation_rate_upper: r.saturation_rate_upper,
            saturation_flits_per_node_cycle: r.saturation_flits_per_node_cycle,
            saturation_fraction_of_capacity: r.saturation_fraction_of_capacity,
            runs: r.runs,
        })
        .collect();
    let across = |f: fn(&SaturationReplication) -> f64| AcrossSeeds::of(&replications.iter().map(f).collect::<Vec<_>>());
    let across_seeds = SaturationAcrossSeeds {
        saturation_flits_per_node_cycle: across(|r| r.saturation_flits_per_node_cycle),
        saturation_fraction_of_capacity: across(|r| r.saturation_fraction_of_capacity),
    };
    let mut first = results.into_iter().next().expect("at least one replication");
    first.result = across_in_words(&across_seeds, &first, &replications, s);
    ReplicatedSaturation { first, seeds, replications, across_seeds }
}

/// Mean ± 95 % interval across seeds: the interval to two significant digits and the mean to
/// the same decimal (to the searches' own bracket when every seed gave the same value).
fn across_in_words(across: &SaturationAcrossSeeds, first: &Saturation, replications: &[SaturationReplication], s: &Scenario) -> String {
    let widest_bracket = replications
        .iter()
        .filter_map(|r| r.saturation_rate_upper.map(|u| (u - r.saturation_rate) * s.len as f64))
        .fold(0.0, f64::max);
    let describe = |a: &AcrossSeeds, scale: f64| {
        let ci = a.ci95.unwrap_or(0.0);
        let d = if ci > 0.0 { decimals(ci) + 1 } else { decimals(widest_bracket / scale) };
        format!("{:.d$} ± {:.d$}", a.mean, ci)
    };
    let outside = replications.iter().filter(|r| r.saturation_rate_upper.is_none() || r.saturation_rate == first.rate_range.0).count();
    format!(
        "saturation {} flits/node/cycle, {} of capacity (mean ± 95 % confidence interval over {} seeds; criterion {}; each search \
         bisected to {} % of the rate{})",
        describe(&across.saturation_flits_per_node_cycle, 1.0),
        describe(&across.saturation_fraction_of_capacity, s.capacity_flits()),
        replications.len(),
        first.criterion,
        100.0 * first.tolerance,
        if outside > 0 { format!("; {outside} of them ended at an end of the range searched") } else { String::new() }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(latency: f64, offered: f64, accepted: f64, saturated: bool, throttled: bool) -> RunReport {
        let s = Scenario::parse("k=4&len=4&rate=0.01&warmup=10&cycles=100").unwrap();
        let mut r = Simulation::new(&s).unwrap().run();
        r.latency_mean = latency;
        r.offered_flits_per_node_cycle = offered;
        r.accepted_flits_per_node_cycle = accepted;
        r.saturated = saturated;
        r.throttled = throttled;
        r
    }

    #[test]
    fn each_criterion_reads_its_own_figures() {
        // A permutation's bottleneck sources behind while the average keeps up.
        let behind = report(80.0, 0.5, 0.49, true, false);
        assert!(!Criterion::SourceShortfall.keeps_up(&behind));
        assert!(Criterion::Accepted.keeps_up(&behind));
        assert!(Criterion::Latency(100.0).keeps_up(&behind) && !Criterion::Latency(50.0).keeps_up(&behind));
        let short = report(80.0, 0.5, 0.47, true, false);
        assert!(!Criterion::Accepted.keeps_up(&short), "below 95 % of offered");
        // Throttled source queues hide a shortfall from the offered load and cap the latency.
        let throttled = report(40.0, 0.3, 0.3, true, true);
        assert!(!Criterion::Accepted.keeps_up(&throttled) && !Criterion::Latency(500.0).keeps_up(&throttled));
        let fine = report(30.0, 0.3, 0.3, false, false);
        for c in [Criterion::SourceShortfall, Criterion::Accepted, Criterion::Latency(500.0)] {
            assert!(c.keeps_up(&fine), "{}", c.name());
            assert_eq!(Criterion::from_name(c.name(), 500.0), Some(c));
            assert!(c.rule().starts_with("a run keeps up"));
        }
        assert_eq!(Criterion::from_name("average", 1.0), None);
    }

    #[test]
    fn decimals_follow_the_leading_digit_of_the_uncertainty() {
        assert_eq!([decimals(0.0032), decimals(0.01), decimals(0.099), decimals(2.0), decimals(0.0)], [3, 2, 2, 0, 12]);
    }

    /// A search's bracket holds the criterion's boundary: its lower end kept up, its upper did
    /// not, and they are within the tolerance.
    #[test]
    fn the_bracket_holds_the_boundary_under_every_criterion() {
        let s = Scenario::parse("k=8&routing=dor&traffic=tornado&len=2&warmup=300&cycles=1500").unwrap();
        for criterion in [Criterion::SourceShortfall, Criterion::Accepted, Criterion::Latency(60.0)] {
            let options = SearchOptions { criterion, tolerance: 0.02, range: None };
            let r = search(&s, &options);
            let upper = r.saturation_rate_upper.expect("the injection limit is past saturation");
            assert!(r.outside_range.is_none() && upper > r.saturation_rate && upper - r.saturation_rate <= 0.02 * upper, "{r:?}");
            let run = |rate| Simulation::new(&at_rate(&s, rate)).unwrap().run();
            assert!(criterion.keeps_up(&run(r.saturation_rate)) && !criterion.keeps_up(&run(upper)), "{}", criterion.name());
            assert_eq!((r.criterion, r.tolerance, r.rate_range), (criterion.name(), 0.02, (0.0, 0.5)));
            assert!(r.result.contains(&format!("criterion {}", criterion.name())), "{}", r.result);
        }
    }

    /// A run stopped once its verdict is known judges as the whole run would, under every
    /// criterion, on both sides of saturation; past it, most stop early.
    #[test]
    fn a_run_stopped_at_its_verdict_judges_as_the_whole_run() {
        let mut stopped_early = [0; 2];
        for text in [
            "k=8&routing=dor&traffic=tornado&len=2&warmup=300&cycles=1500",
            "k=4&routing=minad&traffic=uniform&len=4&warmup=200&cycles=1000&qcap=8",
            "k=8&routing=val&traffic=transpose&len=1&vcs=4&buf=6&warmup=300&cycles=1500&router=damq+speedup2+wide",
        ] {
            let s = Scenario::parse(text).unwrap();
            let top = SearchOptions::default().range_for(&s).1;
            for criterion in [Criterion::SourceShortfall, Criterion::Accepted, Criterion::Latency(60.0)] {
                for fraction in [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0] {
                    let at = at_rate(&s, fraction * top);
                    let whole = Simulation::new(&at).unwrap().run();
                    let verdict = Simulation::new(&at).unwrap().run_for_verdict(|r| criterion.lost_at_window_end(r));
                    assert_eq!(criterion.keeps_up(&verdict), criterion.keeps_up(&whole), "{text} at {fraction} of {top}, {}", criterion.name());
                    if verdict.cycles < whole.cycles {
                        stopped_early[verdict.throttled as usize] += 1;
                    } else {
                        assert_eq!(verdict, whole, "a run not stopped early is the whole run");
                    }
                }
            }
        }
        assert!(stopped_early.iter().all(|&n| n >= 3), "stopped at the window's end, at a full queue: {stopped_early:?}");
    }

    #[test]
    fn a_range_without_the_boundary_says_which_side_it_lies() {
        let s = Scenario::parse("k=8&routing=dor&traffic=tornado&len=2&warmup=300&cycles=1500").unwrap();
        let sat = saturation(&s).saturation_rate;
        let below = search(&s, &SearchOptions { range: Some((0.001, 0.3 * sat)), ..SearchOptions::default() });
        assert_eq!((below.outside_range, below.saturation_rate_upper), (Some("above"), None));
        assert!(below.result.starts_with("every rate tried kept up"), "{}", below.result);
        let above = search(&s, &SearchOptions { range: Some((2.0 * sat, 0.5)), ..SearchOptions::default() });
        assert_eq!((above.outside_range, above.saturation_rate, above.accepted_flits_per_node_cycle), (Some("below"), 2.0 * sat, 0.0));
        assert!(above.result.starts_with("no rate tried kept up"), "{}", above.result);
    }

    #[test]
    fn replicated_searches_give_each_seed_and_their_interval() {
        let s = Scenario::parse("k=8&routing=dor&traffic=tornado&len=2&warmup=300&cycles=1500&seed=3").unwrap();
        let r = search_replicated(&crate::experiment::Local::quiet(), &s, &SearchOptions::default(), 3);
        assert_eq!(r.seeds, seeds(&s, 3));
        assert_eq!(r.first.saturation_rate, saturation(&s).saturation_rate, "the first is the plain search");
        let own: Vec<f64> = r.seeds.iter().map(|&seed| saturation(&Scenario { seed, ..s.clone() }).saturation_flits_per_node_cycle).collect();
        assert_eq!(r.replications.iter().map(|x| x.saturation_flits_per_node_cycle).collect::<Vec<_>>(), own);
        assert_eq!(r.across_seeds.saturation_flits_per_node_cycle, AcrossSeeds::of(&own));
        assert!(r.first.result.contains("± ") && r.first.result.contains("over 3 seeds"), "{}", r.first.result);
    }
}
