//! Jobs: the runs of a many-run command (`sweep`, `saturation`, `experiment`, `validate`), each
//! self-contained, and the [`Runner`]s that carry them out.
//!
//! A command is written once, against a [`Runner`]: it hands its jobs over in batches and builds
//! its report from the outcomes. Which runner it gets decides what the command does:
//!
//! - [`Local`] runs every job here, on [`super::threads`] threads (the one-machine command);
//! - [`Planner`] runs nothing and records the jobs (`--plan`: one JSON line per job);
//! - [`Collector`] answers each job from result lines that `torus run --batch` printed,
//!   anywhere and in any order (`--collect`), so the report is built by the same code from the
//!   same numbers, byte for byte;
//! - [`Stored`] answers the jobs a results file holds and runs the others here, adding their
//!   result lines to the file as they end (`--results`): a stopped command goes on where it
//!   stopped, and a changed model is set against the same simulations in minutes.
//!
//! A job's id is its position in the command's job list, from 1. The planner and the collector
//! number the jobs the same way because the command hands over the same jobs in the same order
//! either way; the collector also checks that each result line's job is the job it numbers.
//! A command must therefore choose its jobs from its arguments alone, never from outcomes:
//! under the planner every outcome is a placeholder ([`Outcome::placeholder`]).

use super::saturation::{search, Criterion, Saturation, SearchOptions};
use crate::scenario::Scenario;
use crate::sim::{RunReport, Simulation};
use crate::topology::Torus;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The simulator this build runs: a hash of every source a job's result can depend on (all of
/// `src/` but what only plans jobs or reports on them, and `Cargo.lock`; `build.rs`).
/// Result lines carry it, and [`Stored`] reuses only the lines that carry this build's.
pub const SIMULATOR: &str = env!("TORUS_SIMULATOR_SOURCES");

/// One self-contained piece of work: everything it needs is in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "job", rename_all = "snake_case")]
pub enum Job {
    /// One simulation (`torus run`).
    Run { scenario: String },
    /// One saturation search (`torus saturation`).
    Search {
        scenario: String,
        criterion: String,
        latency_threshold: Option<f64>,
        tolerance: f64,
        range: Option<(f64, f64)>,
    },
    /// One simulation that tallies the latency and hop count of every labelled message sent to
    /// each of `offsets` from its source, running `drain` cycles past the window so that they
    /// are all delivered ([`deliveries`]).
    Deliveries { scenario: String, offsets: Vec<Vec<u32>>, drain: u64 },
    /// A saturation search on `scenario` (its window is the search's), then one run at each
    /// point's fraction of the rate found, in the point's own window: a curve whose load points
    /// are placed relative to the simulated saturation, so its runs cannot be planned apart from
    /// its search (`validate --channel-queue`).
    Curve { scenario: String, points: Vec<CurvePoint> },
}

/// One run of a [`Job::Curve`]: where, as a fraction of the simulated saturation rate, and
/// its warm-up and window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub fraction: f64,
    pub warmup: u64,
    pub cycles: u64,
}

/// What a [`Job::Curve`] produced: its search, and a run per point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveRuns {
    pub search: Saturation,
    pub runs: Vec<RunReport>,
}

/// What a job produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Run(RunReport),
    Search(Saturation),
    Deliveries(Vec<OffsetCounts>),
    Curve(CurveRuns),
}

/// The labelled messages to one offset: how many, and how many had each latency and hop count.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OffsetCounts {
    pub packets: u64,
    /// Latency (generation to the cycle after the tail's ejection, as `sim::stats` counts it)
    /// → messages.
    pub latency_counts: BTreeMap<u64, u64>,
    pub hop_counts: BTreeMap<u32, u64>,
}

impl Job {
    pub fn run(s: &Scenario) -> Job {
        Job::Run { scenario: s.canonical() }
    }

    pub fn search(s: &Scenario, options: &SearchOptions) -> Job {
        Job::Search {
            scenario: s.canonical(),
            criterion: options.criterion.name().to_string(),
            latency_threshold: match options.criterion {
                Criterion::Latency(t) => Some(t),
                _ => None,
            },
            tolerance: options.tolerance,
            range: options.range,
        }
    }

    pub fn deliveries(s: &Scenario, offsets: &[Vec<u32>], drain: u64) -> Job {
        Job::Deliveries { scenario: s.canonical(), offsets: offsets.to_vec(), drain }
    }

    pub fn curve(s: &Scenario, points: &[CurvePoint]) -> Job {
        Job::Curve { scenario: s.canonical(), points: points.to_vec() }
    }

    fn scenario(&self) -> &str {
        match self {
            Job::Run { scenario }
            | Job::Search { scenario, .. }
            | Job::Deliveries { scenario, .. }
            | Job::Curve { scenario, .. } => scenario,
        }
    }

    /// Carries the job out; a bad job (one edited by hand, or from another version) gives a
    /// one-line reason.
    pub fn execute(&self) -> Result<Outcome, String> {
        let s = Scenario::parse(self.scenario()).map_err(|e| e.to_string())?;
        let simulation = Simulation::new(&s).map_err(|e| e.to_string())?;
        Ok(match self {
            Job::Run { .. } => Outcome::Run(simulation.run()),
            Job::Search { criterion, latency_threshold, tolerance, range, .. } => {
                let criterion = Criterion::from_name(criterion, latency_threshold.unwrap_or(super::saturation::DEFAULT_LATENCY_THRESHOLD))
                    .ok_or_else(|| format!("unknown criterion `{criterion}`"))?;
                Outcome::Search(search(&s, &SearchOptions { criterion, tolerance: *tolerance, range: *range }))
            }
            Job::Deliveries { offsets, drain, .. } => {
                if offsets.iter().any(|o| o.len() != s.n as usize) {
                    return Err(format!("every offset needs {} coordinates", s.n));
                }
                Outcome::Deliveries(deliveries(&s, offsets, *drain))
            }
            Job::Curve { points, .. } => {
                let search = search(&s, &SearchOptions::default());
                let mut runs = Vec::with_capacity(points.len());
                for p in points {
                    let at = Scenario { rate: p.fraction * search.saturation_rate, warmup: p.warmup, cycles: p.cycles, ..s.clone() };
                    runs.push(Simulation::new(&at).map_err(|e| e.to_string())?.run());
                }
                Outcome::Curve(CurveRuns { search, runs })
            }
        })
    }
}

impl Outcome {
    /// What a job that has not run stands for while a [`Planner`] records the jobs (or a
    /// [`Collector`] lacks its result): zeros, never read into a report that is written.
    pub fn placeholder(job: &Job) -> Outcome {
        match job {
            Job::Run { scenario } => Outcome::Run(RunReport { scenario: scenario.clone(), ..RunReport::default() }),
            Job::Search { scenario, .. } => {
                let s = Scenario::parse(scenario).unwrap_or_default();
                Outcome::Search(Saturation::placeholder(&s))
            }
            Job::Deliveries { offsets, .. } => Outcome::Deliveries(vec![OffsetCounts::default(); offsets.len()]),
            Job::Curve { scenario, points } => {
                let s = Scenario::parse(scenario).unwrap_or_default();
                let run = RunReport { scenario: scenario.clone(), ..RunReport::default() };
                Outcome::Curve(CurveRuns { search: Saturation::placeholder(&s), runs: vec![run; points.len()] })
            }
        }
    }

    pub fn into_run(self) -> RunReport {
        match self {
            Outcome::Run(r) => r,
            other => panic!("a run job's outcome is a run report, not {other:?}"),
        }
    }

    pub fn into_search(self) -> Saturation {
        match self {
            Outcome::Search(r) => r,
            other => panic!("a search job's outcome is a search, not {other:?}"),
        }
    }

    pub fn into_curve(self) -> CurveRuns {
        match self {
            Outcome::Curve(r) => r,
            other => panic!("a curve job's outcome is its search and runs, not {other:?}"),
        }
    }

    pub fn into_deliveries(self) -> Vec<OffsetCounts> {
        match self {
            Outcome::Deliveries(r) => r,
            other => panic!("a deliveries job's outcome is its counts, not {other:?}"),
        }
    }

    fn to_json(&self) -> Value {
        let value = match self {
            Outcome::Run(r) => serde_json::to_value(r),
            Outcome::Search(r) => serde_json::to_value(r),
            Outcome::Deliveries(r) => serde_json::to_value(r),
            Outcome::Curve(r) => serde_json::to_value(r),
        };
        value.expect("outcomes serialise")
    }

    fn from_json(job: &Job, value: Value) -> Result<Outcome, String> {
        let e = |e: serde_json::Error| e.to_string();
        Ok(match job {
            Job::Run { .. } => Outcome::Run(serde_json::from_value(value).map_err(e)?),
            Job::Search { .. } => Outcome::Search(serde_json::from_value(value).map_err(e)?),
            Job::Deliveries { .. } => Outcome::Deliveries(serde_json::from_value(value).map_err(e)?),
            Job::Curve { .. } => Outcome::Curve(serde_json::from_value(value).map_err(e)?),
        })
    }
}

/// Simulates `s` with every labelled delivery recorded and counts those whose destination lies
/// at one of `offsets` from their source (the torus is vertex-transitive, so every source's
/// messages to the same offset sample the same distribution).
pub fn deliveries(s: &Scenario, offsets: &[Vec<u32>], drain: u64) -> Vec<OffsetCounts> {
    let mut sim = Simulation::new(s).expect("a validated scenario");
    let torus = Torus::new(s.k, s.n);
    let mut counts = vec![OffsetCounts::default(); offsets.len()];
    sim.record_deliveries();
    let end = s.warmup + s.cycles + drain;
    while sim.cycle() < end {
        sim.step();
        for d in sim.take_deliveries() {
            if !d.labelled {
                continue;
            }
            let offset: Vec<u32> = (0..s.n).map(|dim| torus.offset(d.src, d.dest, dim)).collect();
            if let Some(i) = offsets.iter().position(|o| *o == offset) {
                let c = &mut counts[i];
                c.packets += 1;
                *c.latency_counts.entry(d.delivered + 1 - d.generated).or_default() += 1;
                *c.hop_counts.entry(d.hops).or_default() += 1;
            }
        }
    }
    counts
}

/// Carries out a command's jobs.
pub trait Runner: Sync {
    /// The outcomes of `jobs`, in their order.
    fn run(&self, jobs: Vec<Job>) -> Vec<Outcome>;
    /// Seconds of work so far, and the threads it ran on: for a [`Local`] runner the wall time
    /// since it started; for a [`Collector`], the jobs' own times summed, as on one thread.
    fn elapsed(&self) -> (f64, usize);
}

/// Runs every job on this machine, in parallel, with a progress line on a terminal.
pub struct Local {
    start: Instant,
    progress: bool,
}

impl Local {
    /// Progress (jobs done of total, time left) on standard error when it is a terminal.
    pub fn new() -> Local {
        Local { start: Instant::now(), progress: std::io::stderr().is_terminal() }
    }

    /// No progress line, whatever standard error is.
    pub fn quiet() -> Local {
        Local { start: Instant::now(), progress: false }
    }
}

impl Default for Local {
    fn default() -> Self {
        Local::new()
    }
}

impl Runner for Local {
    fn run(&self, jobs: Vec<Job>) -> Vec<Outcome> {
        let progress = self.progress.then(|| Progress::new(jobs.len()));
        super::parallel_map(&jobs, |job| {
            let outcome = job.execute().unwrap_or_else(|e| panic!("job {job:?}: {e}"));
            if let Some(p) = &progress {
                p.done();
            }
            outcome
        })
    }

    fn elapsed(&self) -> (f64, usize) {
        (self.start.elapsed().as_secs_f64(), super::threads())
    }
}

/// Jobs done of total and an estimate of the time left, redrawn on one line of standard error.
pub struct Progress {
    total: usize,
    done: AtomicUsize,
    start: Instant,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress { total, done: AtomicUsize::new(0), start: Instant::now() }
    }

    /// Counts one job done and redraws the line (a newline after the last).
    pub fn done(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let elapsed = self.start.elapsed().as_secs_f64();
        let left = elapsed / done as f64 * (self.total - done.min(self.total)) as f64;
        eprint!("\r{}\x1b[K{}", progress_line(done, self.total, left), if done >= self.total { "\n" } else { "" });
    }
}

/// `12/40 jobs done, about 3 min 5 s left`.
pub fn progress_line(done: usize, total: usize, seconds_left: f64) -> String {
    let s = seconds_left.round() as u64;
    let left = if s >= 60 { format!("{} min {} s", s / 60, s % 60) } else { format!("{s} s") };
    format!("{done}/{total} jobs done, about {left} left")
}

/// Records the jobs instead of running them (`--plan`).
#[derive(Default)]
pub struct Planner {
    jobs: Mutex<Vec<Job>>,
}

impl Planner {
    pub fn new() -> Planner {
        Planner::default()
    }

    /// The job lines: `{"id":1,"job":"run","scenario":"…"}`, one per job, ids from 1.
    pub fn lines(&self) -> Vec<String> {
        self.jobs.lock().expect("planner").iter().enumerate().map(|(i, job)| job_line(i + 1, job)).collect()
    }
}

impl Runner for Planner {
    fn run(&self, jobs: Vec<Job>) -> Vec<Outcome> {
        let outcomes = jobs.iter().map(Outcome::placeholder).collect();
        self.jobs.lock().expect("planner").extend(jobs);
        outcomes
    }

    fn elapsed(&self) -> (f64, usize) {
        (0.0, 1)
    }
}

/// A job line: the job with its id.
pub fn job_line(id: usize, job: &Job) -> String {
    let mut value = serde_json::to_value(job).expect("jobs serialise");
    value["id"] = id.into();
    value.to_string()
}

/// Reads one job line: its id and job.
pub fn parse_job_line(line: &str) -> Result<(usize, Job), String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not a job line ({e})"))?;
    let id = value.get("id").and_then(Value::as_u64).ok_or("a job line needs an \"id\"")? as usize;
    let job = serde_json::from_value(value).map_err(|e| format!("job {id}: {e}"))?;
    Ok((id, job))
}

/// What `torus run --batch` prints for one job: the job line's fields, then `result` (the
/// outcome, as the one-machine command would print it), `wall_seconds` and `simulator` (the
/// build's [`SIMULATOR`]), or `error`.
pub fn result_line(id: usize, job: &Job, outcome: Result<Outcome, String>, wall_seconds: f64) -> String {
    let mut value = serde_json::to_value(job).expect("jobs serialise");
    value["id"] = id.into();
    match outcome {
        Ok(outcome) => {
            value["result"] = outcome.to_json();
            value["wall_seconds"] = wall_seconds.into();
            value["simulator"] = SIMULATOR.into();
        }
        Err(e) => value["error"] = e.into(),
    }
    value.to_string()
}

/// One job's result as collected.
struct Collected {
    job: Job,
    result: Value,
    wall_seconds: f64,
}

/// Answers jobs from `torus run --batch` result lines (`--collect`).
pub struct Collector {
    results: HashMap<usize, Collected>,
    /// Jobs that failed wherever they ran, with the reason, and none succeeded.
    failed: HashMap<usize, String>,
    state: Mutex<CollectorState>,
}

#[derive(Default)]
struct CollectorState {
    next_id: usize,
    missing: Vec<usize>,
    /// Ids whose line holds another job than the command's: results of another plan.
    foreign: Vec<usize>,
    wall_seconds: f64,
}

impl Collector {
    /// Reads result lines from several sources (name, text), in any order. Duplicates of a job
    /// must agree (their wall times aside); blank lines are skipped.
    pub fn read(sources: &[(String, String)]) -> Result<Collector, String> {
        let mut results: HashMap<usize, Collected> = HashMap::new();
        let mut failed = HashMap::new();
        for (name, text) in sources {
            for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let at = || format!("{name}:{}", n + 1);
                let mut value: Value = serde_json::from_str(line).map_err(|e| format!("{}: not a result line ({e})", at()))?;
                let id = value.get("id").and_then(Value::as_u64).map(|id| id as usize);
                if let Some(error) = value.get("error") {
                    // A line the batch could not read has no id: its job shows as missing.
                    if let Some(id) = id {
                        failed.insert(id, error.as_str().unwrap_or_default().to_string());
                    }
                    continue;
                }
                let id = id.ok_or_else(|| format!("{}: a result line needs an \"id\"", at()))?;
                let result = value.get_mut("result").map(Value::take).ok_or_else(|| format!("{}: job {id} has neither \"result\" nor \"error\"", at()))?;
                let wall_seconds = value.get("wall_seconds").and_then(Value::as_f64).unwrap_or(0.0);
                let job: Job = serde_json::from_value(value).map_err(|e| format!("{}: job {id}: {e}", at()))?;
                match results.get(&id) {
                    Some(earlier) if earlier.job != job || earlier.result != result => {
                        return Err(format!("{}: job {id} appears twice with different results", at()));
                    }
                    Some(_) => {}
                    None => {
                        results.insert(id, Collected { job, result, wall_seconds });
                    }
                }
            }
        }
        failed.retain(|id, _| !results.contains_key(id));
        Ok(Collector { results, failed, state: Mutex::new(CollectorState::default()) })
    }

    /// After the command has run: an error naming every job without a result (and why, where
    /// a batch said), or one whose result line holds another job.
    pub fn finish(&self) -> Result<(), String> {
        let state = self.state.lock().expect("collector");
        if !state.foreign.is_empty() {
            return Err(format!(
                "the results of job{} {} are of other jobs than this command plans: collect with the arguments the plan was made with",
                if state.foreign.len() == 1 { "" } else { "s" },
                id_ranges(&state.foreign)
            ));
        }
        if state.missing.is_empty() {
            return Ok(());
        }
        let failed: Vec<usize> = state.missing.iter().copied().filter(|id| self.failed.contains_key(id)).collect();
        let why = match failed.first() {
            Some(id) => format!(" ({} failed, job {id}: {})", failed.len(), self.failed[id]),
            None => String::new(),
        };
        Err(format!(
            "missing {} of {} job results, ids {}{why}; run those jobs again and collect all the results",
            state.missing.len(),
            state.next_id,
            id_ranges(&state.missing)
        ))
    }
}

impl Runner for Collector {
    fn run(&self, jobs: Vec<Job>) -> Vec<Outcome> {
        let mut state = self.state.lock().expect("collector");
        jobs.iter()
            .map(|job| {
                state.next_id += 1;
                let id = state.next_id;
                match self.results.get(&id) {
                    Some(c) if c.job != *job => {
                        state.foreign.push(id);
                        Outcome::placeholder(job)
                    }
                    Some(c) => match Outcome::from_json(job, c.result.clone()) {
                        Ok(outcome) => {
                            state.wall_seconds += c.wall_seconds;
                            outcome
                        }
                        Err(_) => {
                            state.foreign.push(id);
                            Outcome::placeholder(job)
                        }
                    },
                    None => {
                        state.missing.push(id);
                        Outcome::placeholder(job)
                    }
                }
            })
            .collect()
    }

    fn elapsed(&self) -> (f64, usize) {
        (self.state.lock().expect("collector").wall_seconds, 1)
    }
}

/// A job's identity in a results file: the job itself, whatever its id there.
fn job_key(job: &Job) -> String {
    serde_json::to_string(job).expect("jobs serialise")
}

/// Answers every job a results file holds from this build's simulator, runs the others here
/// (as [`Local`] does) and appends each one's result line to the file as it ends (`--results`).
/// Jobs are matched by what they are, not by their id, so one file serves any number of
/// commands (`validate`, `validate --grid` and their `--plan` result lines together); lines of
/// another build's simulator, failed jobs and a line cut short by a kill are passed over.
pub struct Stored {
    path: PathBuf,
    held: HashMap<String, Collected>,
    file: Mutex<File>,
    progress: bool,
    state: Mutex<StoredState>,
}

#[derive(Default)]
struct StoredState {
    next_id: usize,
    reused: usize,
    ran: usize,
    wall_seconds: f64,
}

/// What a results file held when it was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// Results of this build's simulator.
    pub usable: usize,
    /// Results of another build's (or of a version without the stamp).
    pub other_simulator: usize,
    /// Error lines, and lines that are not result lines (one cut short, say).
    pub passed_over: usize,
}

impl Stored {
    /// Opens `path` (created if it does not exist) and reads the results it holds. Two lines of
    /// one job with different results are an error: a simulation of this build is deterministic.
    pub fn open(path: &Path) -> Result<(Stored, Held), String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut held: HashMap<String, Collected> = HashMap::new();
        let mut counts = Held::default();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(line) else {
                counts.passed_over += 1;
                continue;
            };
            if fields.get("simulator").and_then(Value::as_str) != Some(SIMULATOR) {
                counts.other_simulator += 1;
                continue;
            }
            let (Some(result), Some(wall_seconds)) = (fields.remove("result"), fields.get("wall_seconds").and_then(Value::as_f64)) else {
                counts.passed_over += 1;
                continue;
            };
            let Ok(job) = serde_json::from_value::<Job>(Value::Object(fields)) else {
                counts.passed_over += 1;
                continue;
            };
            match held.get(&job_key(&job)) {
                Some(earlier) if earlier.result != result => {
                    return Err(format!("{}:{}: this job appears earlier with another result", path.display(), n + 1));
                }
                Some(_) => {}
                None => {
                    counts.usable += 1;
                    held.insert(job_key(&job), Collected { job, result, wall_seconds });
                }
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot write to {}: {e}", path.display()))?;
        if !text.is_empty() && !text.ends_with('\n') {
            // A line cut short by a kill: the next result starts on a line of its own.
            file.write_all(b"\n").map_err(|e| format!("cannot write to {}: {e}", path.display()))?;
        }
        let stored = Stored {
            path: path.to_path_buf(),
            held,
            file: Mutex::new(file),
            progress: std::io::stderr().is_terminal(),
            state: Mutex::new(StoredState::default()),
        };
        Ok((stored, counts))
    }

    /// Jobs answered from the file and jobs run (and added to it) so far.
    pub fn counts(&self) -> (usize, usize) {
        let state = self.state.lock().expect("stored");
        (state.reused, state.ran)
    }

    fn held_outcome(&self, job: &Job) -> Option<(Outcome, f64)> {
        let c = self.held.get(&job_key(job))?;
        Outcome::from_json(job, c.result.clone()).ok().map(|outcome| (outcome, c.wall_seconds))
    }
}

impl Runner for Stored {
    fn run(&self, jobs: Vec<Job>) -> Vec<Outcome> {
        let first_id = {
            let mut state = self.state.lock().expect("stored");
            state.next_id += jobs.len();
            state.next_id - jobs.len() + 1
        };
        let mut outcomes: Vec<Option<Outcome>> = Vec::with_capacity(jobs.len());
        let mut to_run = Vec::new();
        for (i, job) in jobs.iter().enumerate() {
            match self.held_outcome(job) {
                Some((outcome, wall_seconds)) => {
                    let mut state = self.state.lock().expect("stored");
                    state.reused += 1;
                    state.wall_seconds += wall_seconds;
                    outcomes.push(Some(outcome));
                }
                None => {
                    to_run.push(i);
                    outcomes.push(None);
                }
            }
        }
        let progress = (self.progress && !to_run.is_empty()).then(|| Progress::new(to_run.len()));
        let ran = super::parallel_map(&to_run, |&i| {
            let start = Instant::now();
            let outcome = jobs[i].execute().unwrap_or_else(|e| panic!("job {:?}: {e}", jobs[i]));
            let wall_seconds = start.elapsed().as_secs_f64();
            let line = result_line(first_id + i, &jobs[i], Ok(outcome.clone()), wall_seconds);
            self.file
                .lock()
                .expect("results file")
                .write_all(format!("{line}\n").as_bytes())
                .unwrap_or_else(|e| panic!("cannot add a result to {}: {e}", self.path.display()));
            let mut state = self.state.lock().expect("stored");
            state.ran += 1;
            state.wall_seconds += wall_seconds;
            drop(state);
            if let Some(p) = &progress {
                p.done();
            }
            outcome
        });
        for (i, outcome) in to_run.into_iter().zip(ran) {
            outcomes[i] = Some(outcome);
        }
        outcomes.into_iter().map(|o| o.expect("every job answered or run")).collect()
    }

    /// The jobs' own times summed, stored and run alike, as on one thread (as [`Collector`]):
    /// the report then says what its simulations cost, however many were stored.
    fn elapsed(&self) -> (f64, usize) {
        (self.state.lock().expect("stored").wall_seconds, 1)
    }
}

/// `3, 7-9, 12`.
pub fn id_ranges(ids: &[usize]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if j == i { sorted[i].to_string() } else { format!("{}-{}", sorted[i], sorted[j]) });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(rate: f64) -> Scenario {
        Scenario::parse(&format!("k=4&len=4&traffic=tornado&rate={rate}&warmup=100&cycles=800")).unwrap()
    }

    fn jobs() -> Vec<Job> {
        vec![
            Job::run(&tiny(0.01)),
            Job::search(&tiny(0.01), &SearchOptions { tolerance: 0.05, ..SearchOptions::default() }),
            Job::deliveries(&tiny(0.02), &[vec![1, 0], vec![2, 1]], 500),
            Job::curve(&tiny(0.01), &[CurvePoint { fraction: 0.5, warmup: 100, cycles: 400 }]),
        ]
    }

    /// Runs the jobs as `torus run --batch` would and returns its lines.
    fn batch(jobs: &[Job]) -> Vec<String> {
        jobs.iter().enumerate().map(|(i, job)| result_line(i + 1, job, job.execute(), 0.5)).collect()
    }

    #[test]
    fn collected_outcomes_are_the_local_ones_bit_for_bit_in_any_order() {
        let local = Local::quiet().run(jobs());
        let mut lines = batch(&jobs());
        lines.reverse();
        let collector = Collector::read(&[("a".into(), lines[..2].join("\n")), ("b".into(), lines[1..].join("\n"))]).unwrap();
        assert_eq!(collector.run(jobs()), local, "duplicates that agree are accepted");
        collector.finish().unwrap();
        assert_eq!(collector.elapsed(), (2.0, 1), "the jobs' own times, summed");
        let counts = local[2].clone().into_deliveries();
        assert!(counts[0].packets > 0 && counts[0].hop_counts.keys().eq([1].iter()), "{counts:?}");
        let curve = local[3].clone().into_curve();
        let found = curve.search.saturation_rate;
        assert!(found > 0.0 && curve.runs.len() == 1, "{curve:?}");
        let run = Scenario::parse(&curve.runs[0].scenario).unwrap();
        assert_eq!((run.rate, run.warmup, run.cycles), (0.5 * found, 100, 400), "the run sits at its fraction of the rate found");
    }

    #[test]
    fn a_planner_numbers_the_jobs_as_the_collector_does() {
        let planner = Planner::new();
        let placeholders = planner.run(jobs());
        assert_eq!(placeholders.len(), 4);
        let lines = planner.lines();
        let parsed: Vec<(usize, Job)> = lines.iter().map(|l| parse_job_line(l).unwrap()).collect();
        assert_eq!(parsed, jobs().into_iter().enumerate().map(|(i, j)| (i + 1, j)).collect::<Vec<_>>());
        assert!(lines[0].contains("\"job\":\"run\"") && lines[0].contains("\"id\":1"), "{}", lines[0]);
    }

    #[test]
    fn missing_failed_foreign_and_disagreeing_results_are_named() {
        let lines = batch(&jobs());
        let failed = result_line(2, &jobs()[1], Err("killed".into()), 0.0);
        let collector = Collector::read(&[("x".into(), format!("{}\n{failed}\n", lines[0]))]).unwrap();
        collector.run(jobs());
        let e = collector.finish().unwrap_err();
        assert!(e.starts_with("missing 3 of 4 job results, ids 2-4 (1 failed, job 2: killed)"), "{e}");
        assert!(!e.contains('\n'));

        let collector = Collector::read(&[("x".into(), lines.join("\n"))]).unwrap();
        collector.run(vec![jobs()[1].clone(), jobs()[0].clone(), jobs()[2].clone()]);
        assert!(collector.finish().unwrap_err().contains("jobs 1-2 are of other jobs"));

        let other = result_line(1, &jobs()[0], Job::run(&tiny(0.02)).execute(), 0.1);
        let e = Collector::read(&[("x".into(), lines[0].clone()), ("y".into(), other)]).err().unwrap();
        assert_eq!(e, "y:1: job 1 appears twice with different results");
        let e = Collector::read(&[("x".into(), "{\"id\":1}".into())]).err().unwrap();
        assert_eq!(e, "x:1: job 1 has neither \"result\" nor \"error\"");
    }

    fn scratch_file(name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("torus-stored-{name}-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    }

    #[test]
    fn a_results_file_answers_its_jobs_and_only_the_others_run_and_join_it() {
        let path = scratch_file("answers");
        let lines = batch(&jobs());
        let mut other_build: Value = serde_json::from_str(&lines[1]).unwrap();
        other_build["simulator"] = "0000000000000000".into();
        let cut_short = &lines[3][..lines[3].len() / 2];
        std::fs::write(&path, format!("{}\n{other_build}\n{}\n{cut_short}", lines[0], lines[2])).unwrap();

        let (stored, held) = Stored::open(&path).unwrap();
        assert_eq!(held, Held { usable: 2, other_simulator: 1, passed_over: 1 });
        let local = Local::quiet().run(jobs());
        assert_eq!(stored.run(jobs()), local, "stored and fresh outcomes alike are the local ones");
        assert_eq!(stored.counts(), (2, 2), "jobs 1 and 3 answered, 2 and 4 run");
        assert!(stored.elapsed().0 >= 1.0 && stored.elapsed().1 == 1, "the stored jobs' 0.5 s each, and the runs' own");
        drop(stored);

        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(&format!("{cut_short}\n")), "the cut line is ended before the first added one");
        let (again, held) = Stored::open(&path).unwrap();
        assert_eq!(held, Held { usable: 4, other_simulator: 1, passed_over: 1 });
        assert_eq!(again.run(jobs()), local);
        assert_eq!(again.counts(), (4, 0), "nothing left to run");
        let added: Vec<Value> = text.lines().skip(4).map(|l| serde_json::from_str(l).unwrap()).collect();
        let mut ids: Vec<u64> = added.iter().map(|v| v["id"].as_u64().unwrap()).collect();
        ids.sort_unstable();
        assert_eq!(ids, [2, 4], "numbered by their place in the command's jobs");
        assert!(added.iter().all(|v| v["simulator"] == SIMULATOR), "{added:?}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_results_file_with_two_results_for_one_job_is_refused() {
        let path = scratch_file("disagree");
        let first = batch(&jobs()[..1]).remove(0);
        let other = result_line(1, &jobs()[0], Job::run(&tiny(0.02)).execute(), 0.1);
        std::fs::write(&path, format!("{first}\n{other}\n")).unwrap();
        let e = Stored::open(&path).err().unwrap();
        assert!(e.ends_with(":2: this job appears earlier with another result"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_bad_job_fails_with_its_reason() {
        let bad = Job::Run { scenario: "k=1".into() };
        assert!(bad.execute().unwrap_err().contains('k'));
        let line = result_line(4, &bad, bad.execute(), 0.0);
        assert!(line.contains("\"error\"") && line.contains("\"id\":4"), "{line}");
        assert!(parse_job_line("{\"id\":2,\"job\":\"fly\"}").unwrap_err().starts_with("job 2:"));
    }

    #[test]
    fn ranges_and_progress_read_well() {
        assert_eq!(id_ranges(&[12, 3, 7, 8, 9, 3]), "3, 7-9, 12");
        assert_eq!(progress_line(12, 40, 185.2), "12/40 jobs done, about 3 min 5 s left");
    }
}
