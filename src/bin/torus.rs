//! `torus`: the command-line tool. Argument parsing and printing only; the work is in the
//! library. Bad input exits with code 2 and one line on stderr.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;
use torus_explorer::bench::{self, BENCH_SCENARIOS};
use torus_explorer::experiment::jobs::{self, Collector, Local, Planner, Runner, Stored};
use torus_explorer::experiment;
use torus_explorer::experiment::faults as fault_experiment;
use torus_explorer::sim::Simulation;
use torus_explorer::validation;
use torus_explorer::output::{self, Printer, Record};
use torus_explorer::{command_line, seed004, RoutingKind, Scenario};

/// The experiment of faulty links, beside seed 004's.
const FAULTS: &str = "faults";

const USAGE: &str = "usage:
  torus run <scenario> [--seeds N] [--detail] [--csv] [--fields a,b,..]
                                         simulate; one JSON object of statistics (or CSV)
  torus run --batch [--part I/N]         run the job lines on stdin (from --plan), all of them
                                         or every N-th from the I-th (0 <= I < N); one JSON
                                         line per job: its id and result, or an error
  torus sweep <scenario> --rates a:b:n|r1,r2,.. [--seeds N] [--stop-at-saturation] [--csv] [--fields ..]
                                         one JSON line per rate (n rates from a to b, or the
                                         listed ones); --stop-at-saturation: none after the
                                         first saturated
  torus saturation <scenario> [--criterion source-shortfall|accepted|latency]
        [--latency-threshold CYCLES] [--tolerance F] [--range a:b] [--seeds N]
                                         saturation throughput by bisection on the rate
  torus model <scenario>                 the applicable analytical model and the throughput bound
  torus bench [--json] [--cycles N] [--scaling [--svg DIR]] [--scenario \"<scenario>\"] [--models]
                                         simulator speed on fixed scenarios (--scaling: cost
                                         against network size and load, --svg: its two curves
                                         as DIR/scaling-*.svg; --scenario: that one; --models:
                                         a 100-point curve of each analytical model, or of
                                         --scenario's)
  torus validate [--quick] [--channel-queue] [--out DIR]
                                         model against simulation for every paper's set-up;
                                         writes DIR/validation.md and DIR/validation/*.svg
                                         (DIR defaults to docs), then the channel-queue model
                                         over every routing x pattern:
                                         DIR/validation/channel-queue.md (--channel-queue: only
                                         that); --grid: the channel-queue model on every k and M
                                         of its grid, DIR/validation/channel-queue-grid.md
  torus experiment <saturation|permutations|histograms|stability|faults|router|all>
        [--quick] [--permutations N] [--routings a,b,..] [--out DIR]
                                         the experiments of Singh et al. 2003 (GOAL):
                                         DIR/<name>.csv and .md (DIR defaults to docs/experiments);
                                         faults: latency and delivered throughput against random
                                         link faults, DIR/faults.md, .csv and faults-*.svg
  torus coverage [--seeds N] [--out DIR] how often the within-run 95 % interval covers the mean
                                         of N seeds (default 300): DIR/coverage.md and .csv
                                         (DIR defaults to docs)
  torus help [<command>]                 this text, or one command's (also: torus <command> --help)
  torus --version                        the tool's version

sweep, saturation, validate and experiment take --plan: print their runs as job lines, one
self-contained JSON job per line, and run nothing; and --collect FILE... (last; - for stdin):
build the same output from the result lines of torus run --batch, in any order, from any
number of files. docs/cluster.md: GNU parallel, ssh and Slurm. --results FILE runs them here
but keeps every result in FILE: jobs it already holds from this build's simulator are not run
again, and each job run is added as it ends. A stopped command then goes on where it stopped,
and one whose model changed (the simulator unchanged) is rebuilt in minutes.

--seeds N runs N replications, seeded from the scenario's seed (the first is the scenario's
own), and adds each one's result and the mean and 95 % confidence interval across them.
run, sweep, saturation, validate, experiment and coverage take --threads N: worker threads (default: one
per core); the results are the same for every N, only the wall time changes.";

/// How a scenario is given, the end of the overview and of every scenario command's help
/// (before and after the list of keys, which [`scenario_help`] spells from [`scenario::KEYS`]).
const SCENARIO: &str = "A scenario is key=value pairs, given in any of three forms, which mix:
  one quoted string joined by '&'  torus run \"k=8&routing=dor&traffic=tornado&rate=0.02\"
  separate arguments, no quotes    torus run k=8 routing=dor traffic=tornado rate=0.02
  @FILE: one key=value a line      torus run @goal.txt rate=0.02     ('#' starts a comment)
A key given again in a later argument replaces the earlier one. Unquoted, a '&' ends the command
for the shell, which runs `torus run k=8` in the background with the other keys lost: quote the
string, or separate the keys with spaces.";
const SCENARIO_END: &str = "(warmup=auto and cycles=auto decide the warm-up and the window as the run goes; rate is in
messages/node/cycle, or give frate, the offered load in flits/node/cycle: frate=0.2 with len=16
is rate=0.0125, and the scenario string the tool prints spells rate)";

/// [`SCENARIO`], the scenario keys in canonical order and [`SCENARIO_END`].
fn scenario_help() -> String {
    let mut keys = String::from("keys:");
    let mut width = keys.len();
    for key in torus_explorer::scenario::KEYS {
        if width + 1 + key.len() > 96 {
            keys.push_str("\n     ");
            width = 5;
        }
        keys.push(' ');
        keys.push_str(key);
        width += 1 + key.len();
    }
    format!("{SCENARIO}\n{keys}\n{SCENARIO_END}")
}

/// `torus help <command>` and `torus <command> --help`.
fn command_help(command: &str) -> Option<String> {
    let text = match command {
        "run" => "torus run <scenario> [--seeds N] [--detail] [--csv] [--fields a,b,..] [--threads N]
  Simulates the scenario: warm-up, measurement window, drain of the messages generated in the
  window. Prints one JSON object: the scenario, its latency (mean and 95 % interval), its
  throughput (offered and accepted, flits/node/cycle), whether it saturated or deadlocked, and
  the measured quantities the models use. docs/output.md defines every field.
  --seeds N    N replications (seeds derived from the scenario's); adds each one's result and
               the mean and 95 % interval across them
  --threads N  worker threads for the replications (default: one per core)
  --detail     add every node's latency and throughput and the per-pair accepted matrix
  --csv        a header line and one row instead of JSON (fields holding one value)
  --fields a,b these fields only, in this order (JSON or CSV; a.b reaches inside an object),
               e.g. rate,frate,latency_mean,latency_ci95,accepted_flits_per_node_cycle

torus run --batch [--part I/N] [--threads N]
  Runs the job lines on standard input (from --plan; docs/cluster.md), every N-th from the I-th
  with --part; prints one JSON line per job.",
        "sweep" => "torus sweep <scenario> --rates a:b:n|r1,r2,.. [--seeds N] [--stop-at-saturation] [--csv] [--fields a,b,..] [--threads N]
        [--plan | --results FILE | --collect FILE...]
  One simulation per rate, one JSON line each: the fields of `torus run`, the rate, and the
  latency the analytical models predict at it (model_latency, channel_queue_latency).
  --rates a:b:n   n rates from a to b (messages/node/cycle), as the decimals typed: 0.005:0.035:7
                  gives 0.005, 0.01, .., 0.035
  --rates r1,r2   the rates listed, in that order: 0.01,0.02,0.05
  --stop-at-saturation  no rate after the first saturated one
  --seeds N       N replications per rate
  --csv, --fields as for `torus run`: one header line, then one row per rate",
        "saturation" => "torus saturation <scenario> [--criterion source-shortfall|accepted|latency]
        [--latency-threshold CYCLES] [--tolerance F] [--range a:b] [--seeds N] [--threads N]
        [--plan | --results FILE | --collect FILE...]
  The saturation throughput, by bisection on the rate. One JSON object.
  --criterion          source-shortfall (default: no source more than 5 % behind its offered
                       load), accepted (accepted at least 95 % of offered), latency (mean latency
                       at most --latency-threshold, default 500 cycles)
  --tolerance F        stop when the bracket is this fraction of the rate (default 0.01)
  --range a:b          search rates from a to b (default up to the injection limit)
  docs/statistics.md says what each criterion measures.",
        "model" => "torus model <scenario>
  The analytical model that applies to the scenario (a paper's, else the channel-queue model,
  or why none does): latency, saturation rate and intermediate quantities at the scenario's
  rate, the channel-load bound, and the channel-queue model's prediction. One JSON object.
  docs/models/README.md describes every model.",
        "bench" => "torus bench [--json] [--cycles N] [--scaling [--svg DIR]] [--scenario \"<scenario>\"] [--models]
  Times the simulator on fixed scenarios: cycles per second, ns per flit-hop, ns per cycle.
  --json        one JSON object per scenario
  --cycles N    cycles to time (default 200000)
  --scaling     cost against network size and load; --svg DIR plots its two curves
  --scenario S  time this scenario only (with --models, its model only)
  --models      time a 100-point curve of each analytical model instead",
        "validate" => "torus validate [--quick] [--channel-queue | --grid [--k a,b,..] [--len a,b,..]] [--out DIR] [--threads N] [--plan | --results FILE | --collect FILE...]
  Every paper's model against the simulator on the paper's set-ups: DIR/validation.md and
  DIR/validation/*.svg (DIR defaults to docs), then the channel-queue model over every routing
  and pattern: DIR/validation/channel-queue.md (--channel-queue: only that). --grid: only the
  channel-queue model, over every routing and pattern on every torus size k = 4, 8, 16 and
  message length M = 1, 16, 32 of its accuracy targets, DIR/validation/channel-queue-grid.md
  (567 configurations: hours on two cores; plan and collect spread them, docs/cluster.md);
  --k a,b,.. and --len a,b,.. run only those sizes and lengths.
  --quick runs shortened. DIR must be writable: it is checked before the first simulation.",
        "experiment" => "torus experiment <saturation|permutations|histograms|stability|faults|router|all>
        [--quick] [--permutations N] [--routings a,b,..] [--out DIR] [--threads N] [--plan | --results FILE | --collect FILE...]
  The experiments of Singh et al. 2003 (GOAL), each written as DIR/<name>.csv and DIR/<name>.md
  (DIR defaults to docs/experiments; it must be writable: it is checked before the first
  simulation). faults: latency and delivered throughput against random link faults.
  --quick           shortened runs
  --permutations N  random permutations of the permutations experiment
  --routings a,b    only these routing algorithms",
        "coverage" => "torus coverage [--seeds N] [--out DIR] [--threads N]
  How often the within-run 95 % interval covers the mean of N seeds (default 300):
  DIR/coverage.md and DIR/coverage.csv (DIR defaults to docs).",
        "help" => "torus help [<command>]
  The overview of every command, or one command's help (also: torus <command> --help).",
        _ => return None,
    };
    let scenario = ["run", "sweep", "saturation", "model"].contains(&command);
    Some(if scenario { format!("{text}\n\n{}", scenario_help()) } else { text.to_string() })
}

/// The commands, in the order the overview gives them.
const COMMANDS: &[&str] = &["run", "sweep", "saturation", "model", "bench", "validate", "experiment", "coverage", "help"];

/// Prints one line on stdout. A reader that has gone (`torus bench | head -1`) ends the
/// program quietly, as a closed pipe ends other command-line tools, instead of a panic.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// A usage or input error: printed on one line, exit code 2.
struct Fail(String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(message)) => {
            eprintln!("torus: {message}");
            ExitCode::from(2)
        }
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("reports serialise")
}

/// The scenario of a command, from its positional arguments: quoted strings, `key=value`
/// arguments and `@file`s ([`command_line::scenario_text`]).
fn scenario_arg(command: &str, positional: &[&str]) -> Result<Scenario, Fail> {
    if positional.is_empty() {
        return Err(Fail(format!(
            "`{command}` needs a scenario: a quoted string, key=value arguments or @FILE (\"\" for the defaults); see `torus help {command}`"
        )));
    }
    let text = command_line::scenario_text(positional, |path| std::fs::read_to_string(path).map_err(|e| e.to_string()))?;
    if command_line::started_in_background() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        eprintln!(
            "torus: warning: started in the background with the scenario `{text}`: if you typed it without quotes, the \
             shell cut it at the first '&' and dropped the rest; quote it or give its keys as separate arguments (k=8 routing=dor)"
        );
    }
    Ok(Scenario::parse(&text)?)
}

/// The scenario of a command that simulates it, its warnings printed on stderr.
fn simulated_scenario_arg(command: &str, positional: &[&str]) -> Result<Scenario, Fail> {
    let s = scenario_arg(command, positional)?;
    for warning in s.warnings() {
        eprintln!("torus: warning: {warning}");
    }
    Ok(s)
}

/// The value after `--name`, if given.
fn option<'a>(args: &'a [String], name: &str) -> Result<Option<&'a str>, Fail> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args.get(i + 1).map(|v| Some(v.as_str())).ok_or_else(|| Fail(format!("{name} needs a value"))),
    }
}

/// The positional arguments of a command (after its name), every option checked against
/// `allowed` (a trailing `=` marks one that takes a value, which is skipped).
fn positional<'a>(args: &'a [String], allowed: &[&str]) -> Result<Vec<&'a str>, Fail> {
    let mut found = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        if !a.starts_with('-') || a.len() < 2 {
            found.push(a);
            i += 1;
            continue;
        }
        match allowed.iter().find(|o| o.trim_end_matches('=') == a) {
            Some(o) if o.ends_with('=') => i += 2,
            Some(_) => i += 1,
            None => return Err(Fail(format!("unexpected argument `{a}` for `{}`; see `torus help {}`", args[0], args[0]))),
        }
    }
    Ok(found)
}

/// Checks that a command given no positional arguments has none.
fn no_positional(args: &[String], allowed: &[&str]) -> Result<(), Fail> {
    match positional(args, allowed)?.first() {
        Some(a) => Err(Fail(format!("unexpected argument `{a}` for `{}`; see `torus help {}`", args[0], args[0]))),
        None => Ok(()),
    }
}

/// `--csv` and `--fields LIST`: how `run` and `sweep` print their records.
fn printer_option(args: &[String]) -> Result<Printer, Fail> {
    Ok(Printer::new(output::Format::new(args.iter().any(|a| a == "--csv"), option(args, "--fields")?)?))
}

/// Prints a record's lines (a CSV header before the first row).
fn print(printer: &mut Printer, record: &Record) -> Result<(), Fail> {
    for line in printer.lines(record)? {
        out!("{line}");
    }
    Ok(())
}

/// `--seeds N`: replications, 1 when not given.
fn seeds_option(args: &[String]) -> Result<usize, Fail> {
    match option(args, "--seeds")? {
        None => Ok(1),
        Some(v) => v
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| Fail(format!("--seeds must be an integer from 1 to 1000, got `{v}`"))),
    }
}

/// The saturation search's `--criterion`, `--latency-threshold`, `--tolerance` and `--range`.
fn search_options(args: &[String]) -> Result<experiment::SearchOptions, Fail> {
    let defaults = experiment::SearchOptions::default();
    let threshold = match option(args, "--latency-threshold")? {
        None => experiment::saturation::DEFAULT_LATENCY_THRESHOLD,
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t > 0.0)
            .ok_or_else(|| Fail(format!("--latency-threshold must be a number of cycles above 0, got `{v}`")))?,
    };
    let criterion = match option(args, "--criterion")? {
        None => defaults.criterion,
        Some(name) => experiment::Criterion::from_name(name, threshold).ok_or_else(|| {
            Fail(format!("--criterion must be one of {}, got `{name}`", experiment::Criterion::NAMES.join(", ")))
        })?,
    };
    if option(args, "--latency-threshold")?.is_some() && !matches!(criterion, experiment::Criterion::Latency(_)) {
        return Err(Fail("--latency-threshold belongs to --criterion latency".into()));
    }
    let tolerance = match option(args, "--tolerance")? {
        None => defaults.tolerance,
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|t| (0.0001..=0.5).contains(t))
            .ok_or_else(|| Fail(format!("--tolerance must be a fraction from 0.0001 to 0.5, got `{v}`")))?,
    };
    let range = match option(args, "--range")? {
        None => None,
        Some(spec) => {
            let bad = || Fail(format!("--range must be a:b, rates with 0 <= a < b <= 1, got `{spec}`"));
            let (a, b) = spec.split_once(':').ok_or_else(bad)?;
            let (a, b): (f64, f64) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
            if !(a >= 0.0 && a < b && b <= 1.0) {
                return Err(bad());
            }
            Some((a, b))
        }
    };
    Ok(experiment::SearchOptions { criterion, tolerance, range })
}

/// `--threads N`, where given: the worker threads of every batch of runs.
fn threads_option(args: &[String]) -> Result<(), Fail> {
    if let Some(v) = option(args, "--threads")? {
        let n = v.parse::<usize>().ok().filter(|n| (1..=1024).contains(n));
        experiment::set_threads(n.ok_or_else(|| Fail(format!("--threads must be an integer from 1 to 1024, got `{v}`")))?);
    }
    Ok(())
}

fn dispatch(args: &[String]) -> Result<(), Fail> {
    let Some(command) = args.first() else {
        return Err(Fail(format!("no command given; commands: {}; see `torus help`", COMMANDS.join(", "))));
    };
    if COMMANDS.contains(&command.as_str()) && args[1..].iter().any(|a| a == "--help" || a == "-h") {
        out!("{}", command_help(command).unwrap_or_default());
        return Ok(());
    }
    match command.as_str() {
        "run" if args.iter().any(|a| a == "--batch") => batch(args)?,
        "run" => {
            let scenario = positional(args, &["--seeds=", "--threads=", "--csv", "--fields=", "--detail"])?;
            threads_option(args)?;
            let mut printer = printer_option(args)?;
            let s = simulated_scenario_arg(command, &scenario)?;
            let seeds = seeds_option(args)?;
            let detail = args.iter().any(|a| a == "--detail");
            if detail && seeds > 1 {
                return Err(Fail("--detail reports one run: it takes no --seeds".into()));
            }
            let start = Instant::now();
            let simulation = Simulation::new(&s)?;
            let mut record = match (seeds, detail) {
                (1, false) => Record::of_run(&simulation.run(), &s),
                (1, true) => {
                    let (report, figures) = simulation.run_with_detail();
                    let mut record = Record::of_run(&report, &s);
                    record.extend(&figures);
                    record
                }
                _ => Record::of_run(&experiment::replicate(&s, seeds), &s),
            };
            record.set("wall_seconds", start.elapsed().as_secs_f64().into());
            print(&mut printer, &record)?;
        }
        "sweep" => {
            if args.iter().any(|a| a == "--detail") {
                return Err(Fail(
                    "--detail gives one run's per-node and per-pair figures: use `torus run <scenario> rate=R --detail` at each \
                     rate you want them for"
                        .into(),
                ));
            }
            let (args, mode) = split_mode(args)?;
            let scenario =
                positional(args, &["--rates=", "--threads=", "--seeds=", "--stop-at-saturation", "--plan", "--results=", "--csv", "--fields="])?;
            threads_option(args)?;
            let mut printer = printer_option(args)?;
            let s = simulated_scenario_arg(command, &scenario)?;
            let seeds = seeds_option(args)?;
            let spec = option(args, "--rates")?.ok_or_else(|| Fail("sweep needs --rates a:b:n or a list r1,r2,..; see `torus help sweep`".into()))?;
            let rates = command_line::parse_rates(spec)?;
            let stop = args.iter().any(|a| a == "--stop-at-saturation");
            Simulation::new(&s)?;
            let curves = torus_explorer::models::curves(&s, &rates);
            let Some(points) = mode.carry_out(|runner| experiment::sweep_replicated(runner, &s, &rates, seeds, stop))? else {
                return Ok(());
            };
            for (i, (rate, point)) in rates.iter().zip(&points).enumerate() {
                let at_rate = experiment::at_rate(&s, *rate);
                let mut record = if seeds == 1 { Record::of_run(&point.first, &at_rate) } else { Record::of_run(point, &at_rate) };
                record.set("model_latency", curves.curve[i].into());
                record.set("channel_queue_latency", curves.channel_queue_curve[i].into());
                print(&mut printer, &record)?;
                if point.saturated() {
                    let why = match (seeds, &point.first.saturation_reason) {
                        (1, Some(reason)) => reason.clone(),
                        (1, None) => "deadlock".to_string(),
                        _ => format!("{} of {seeds} replications saturated or deadlocked", point.saturated_replications),
                    };
                    eprintln!("torus: rate {rate} is past saturation ({why}): its latency measures the run's length, not the network");
                }
            }
            if points.len() < rates.len() {
                eprintln!("torus: --stop-at-saturation: stopped after rate {}; {} higher rates not run", rates[points.len() - 1], rates.len() - points.len());
            }
        }
        "model" => {
            let scenario = positional(args, &[])?;
            let s = scenario_arg(command, &scenario)?;
            out!("{}", json(&torus_explorer::models::report(&s)));
        }
        "saturation" => {
            let (args, mode) = split_mode(args)?;
            let scenario = positional(
                args,
                &["--threads=", "--seeds=", "--criterion=", "--latency-threshold=", "--tolerance=", "--range=", "--plan", "--results="],
            )?;
            threads_option(args)?;
            let s = simulated_scenario_arg(command, &scenario)?;
            let seeds = seeds_option(args)?;
            let options = search_options(args)?;
            Simulation::new(&s)?;
            let report = mode.carry_out(|runner| {
                if seeds == 1 {
                    json(&experiment::search_on(runner, &s, &options))
                } else {
                    json(&experiment::search_replicated(runner, &s, &options, seeds))
                }
            })?;
            if let Some(report) = report {
                out!("{report}");
            }
        }
        "bench" => {
            no_positional(args, &["--json", "--cycles=", "--scaling", "--scenario=", "--svg=", "--models"])?;
            if args.iter().any(|a| a == "--models") {
                if let Some(other) = args.iter().find(|a| ["--cycles", "--scaling", "--svg"].contains(&a.as_str())) {
                    return Err(Fail(format!("--models times the analytical models only; it does not take {other}")));
                }
                let only = option(args, "--scenario")?.map(Scenario::parse).transpose()?;
                return bench_models(only, args.iter().any(|a| a == "--json"));
            }
            let cycles = match option(args, "--cycles")? {
                Some(v) => v.parse::<u64>().ok().filter(|&c| c >= 10).ok_or_else(|| Fail(format!("--cycles must be an integer >= 10, got `{v}`")))?,
                None => 200_000,
            };
            let as_json = args.iter().any(|a| a == "--json");
            let svg_dir = option(args, "--svg")?;
            if svg_dir.is_some() && !args.iter().any(|a| a == "--scaling") {
                return Err(Fail("--svg plots the scaling curves: use it with --scaling".into()));
            }
            let mut results = Vec::new();
            let scenarios: Vec<String> = if let Some(text) = option(args, "--scenario")? {
                vec![text.to_string()]
            } else if args.iter().any(|a| a == "--scaling") {
                bench::scaling_scenarios()
            } else {
                BENCH_SCENARIOS.iter().map(|s| s.to_string()).collect()
            };
            for text in &scenarios {
                let s = Scenario::parse(text)?;
                let r = bench::bench(&s, cycles);
                results.push(r.clone());
                if as_json {
                    out!("{}", json(&r));
                } else {
                    out!(
                        "{:>12.0} cycles/s {:>8.1} ns/flit-hop {:>10.0} ns/cycle  {}",
                        r.cycles_per_second, r.ns_per_flit_hop, r.ns_per_cycle, text
                    );
                }
            }
            if let Some(dir) = svg_dir {
                std::fs::create_dir_all(dir).map_err(|e| Fail(format!("cannot create `{dir}`: {e}")))?;
                for (name, plot) in bench::scaling_plots(&results) {
                    let path = std::path::Path::new(dir).join(name);
                    std::fs::write(&path, plot.render()).map_err(|e| Fail(format!("cannot write `{}`: {e}", path.display())))?;
                    eprintln!("wrote {}", path.display());
                }
            }
        }
        "validate" => {
            let (args, mode) = split_mode(args)?;
            no_positional(args, &["--quick", "--out=", "--threads=", "--plan", "--results=", "--channel-queue", "--grid", "--k=", "--len="])?;
            threads_option(args)?;
            let quick = args.iter().any(|a| a == "--quick");
            let out = option(args, "--out")?.unwrap_or("docs");
            if !matches!(mode, Mode::Plan) {
                command_line::check_output_dir(std::path::Path::new(out))?;
            }
            if args.iter().any(|a| a == "--grid") {
                validate_grid(quick, out, grid_sizes(args)?, mode)?;
            } else if let Some(option) = args.iter().find(|a| *a == "--k" || *a == "--len") {
                return Err(Fail(format!("{option} chooses sizes of the grid: give it with --grid")));
            } else {
                validate(quick, out, args.iter().any(|a| a == "--channel-queue"), mode)?;
            }
        }
        "experiment" => experiment_command(args)?,
        "coverage" => coverage_command(args)?,
        "help" | "--help" | "-h" => match positional(args, &[])?.as_slice() {
            [] => out!("{USAGE}\n\n{}", scenario_help()),
            [name] => out!("{}", command_help(name).ok_or_else(|| unknown_command(name))?),
            [_, extra, ..] => return Err(Fail(format!("unexpected argument `{extra}` for `help`; see `torus help`"))),
        },
        "--version" | "-V" => out!("torus {}", env!("CARGO_PKG_VERSION")),
        other => return Err(unknown_command(other)),
    }
    Ok(())
}

fn unknown_command(name: &str) -> Fail {
    Fail(format!("unknown command `{name}`; commands: {}; see `torus help`", COMMANDS.join(", ")))
}

/// `torus bench --models [--scenario S]`: the time of a 100-point curve of each analytical
/// model (of S's only).
fn bench_models(only: Option<Scenario>, as_json: bool) -> Result<(), Fail> {
    let mut slowest: Option<bench::ModelBenchResult> = None;
    for s in only.map_or_else(bench::model_bench_scenarios, |s| vec![s]) {
        let r = bench::bench_model(&s).map_err(Fail)?;
        if as_json {
            out!("{}", json(&r));
        } else {
            out!(
                "{:>8.2} ms per {}-point curve {:>8.2} ms saturation rate  {:<28} {}",
                r.curve_ms, r.points, r.saturation_ms, r.model, r.scenario
            );
        }
        if slowest.as_ref().is_none_or(|w| r.curve_ms > w.curve_ms) {
            slowest = Some(r);
        }
    }
    if let (Some(w), false) = (slowest, as_json) {
        out!("slowest curve: {:.2} ms ({}, {})", w.curve_ms, w.model, w.scenario);
    }
    Ok(())
}

/// `torus experiment <name|all> [--quick] [--permutations N] [--routings a,b] [--out DIR]`:
/// runs seed 004's experiments, writes DIR/<name>.csv and DIR/<name>.md, progress on stderr.
fn experiment_command(args: &[String]) -> Result<(), Fail> {
    let (args, mode) = split_mode(args)?;
    let named = positional(args, &["--quick", "--permutations=", "--routings=", "--out=", "--threads=", "--plan", "--results="])?;
    threads_option(args)?;
    let which = match named.as_slice() {
        [which] => *which,
        [] => return Err(Fail("`experiment` needs a name or `all`; see `torus help experiment`".into())),
        [_, extra, ..] => return Err(Fail(format!("unexpected argument `{extra}` for `experiment`; see `torus help experiment`"))),
    };
    let names: Vec<&str> = if which == "all" {
        seed004::EXPERIMENTS.iter().copied().chain([FAULTS]).collect()
    } else if seed004::EXPERIMENTS.contains(&which) || which == FAULTS {
        vec![which]
    } else {
        return Err(Fail(format!("unknown experiment `{which}`; experiments: {}, {FAULTS}, all", seed004::EXPERIMENTS.join(", "))));
    };
    let mut effort = if args.iter().any(|a| a == "--quick") { seed004::Effort::quick() } else { seed004::Effort::full() };
    if let Some(v) = option(args, "--permutations")? {
        effort.permutations = v.parse().ok().filter(|&n| n >= 1).ok_or_else(|| Fail(format!("--permutations must be an integer >= 1, got `{v}`")))?;
    }
    let routings = match option(args, "--routings")? {
        Some(list) => Some(
            list.split(',')
                .map(|name| {
                    RoutingKind::ALL
                        .iter()
                        .copied()
                        .find(|r| r.name() == name)
                        .ok_or_else(|| Fail(format!("--routings: unknown routing `{name}`")))
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    let dir = std::path::PathBuf::from(option(args, "--out")?.unwrap_or("docs/experiments"));
    if !matches!(mode, Mode::Plan) {
        command_line::check_output_dir(&dir)?;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let fault_effort = if quick { fault_experiment::Effort::quick() } else { fault_experiment::Effort::full() };
    let fault_command = format!("torus experiment faults{}", if quick { " --quick" } else { "" });
    let Some(outputs) = mode.carry_out(|runner| {
        names
            .iter()
            .map(|&name| {
                if name == FAULTS {
                    return fault_experiment::run(&fault_effort, &fault_command, runner).files;
                }
                let out = seed004::run(name, routings.as_deref(), &effort, runner).expect("a known experiment");
                vec![(format!("{}.csv", out.name), out.csv), (format!("{}.md", out.name), out.markdown)]
            })
            .collect::<Vec<_>>()
    })?
    else {
        return Ok(());
    };
    std::fs::create_dir_all(&dir).map_err(|e| Fail(format!("cannot create {}: {e}", dir.display())))?;
    for files in outputs {
        for (file, text) in files {
            let path = dir.join(file);
            std::fs::write(&path, text).map_err(|e| Fail(format!("cannot write {}: {e}", path.display())))?;
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// `torus coverage [--seeds N] [--out DIR]`: the coverage experiment of the within-run
/// confidence interval; writes DIR/coverage.md and DIR/coverage.csv, progress on stderr.
fn coverage_command(args: &[String]) -> Result<(), Fail> {
    no_positional(args, &["--seeds=", "--out=", "--threads="])?;
    threads_option(args)?;
    let seeds = match option(args, "--seeds")? {
        None => 300,
        Some(v) => v.parse::<usize>().ok().filter(|n| (2..=10_000).contains(n)).ok_or_else(|| Fail(format!("--seeds must be an integer from 2 to 10000, got `{v}`")))?,
    };
    let dir = std::path::PathBuf::from(option(args, "--out")?.unwrap_or("docs"));
    command_line::check_output_dir(&dir)?;
    let start = Instant::now();
    let progress = |line: &str| eprintln!("[{:>6.0} s] {line}", start.elapsed().as_secs_f64());
    let c = experiment::coverage::coverage(seeds, &progress);
    let mut command = String::from("torus coverage");
    if seeds != 300 {
        command += &format!(" --seeds {seeds}");
    }
    let markdown = experiment::coverage::coverage_markdown(&c, &command, start.elapsed().as_secs_f64(), experiment::threads());
    std::fs::create_dir_all(&dir).map_err(|e| Fail(format!("cannot create {}: {e}", dir.display())))?;
    for (name, text) in [("coverage.md", markdown), ("coverage.csv", experiment::coverage::coverage_csv(&c))] {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| Fail(format!("cannot write {}: {e}", path.display())))?;
        eprintln!("[{:>6.0} s] wrote {}", start.elapsed().as_secs_f64(), path.display());
    }
    Ok(())
}

/// `torus validate`: runs (or plans, or collects) the report and the channel-queue model's
/// page (only the latter with `--channel-queue`), and writes them under `out`.
fn validate(quick: bool, out: &str, only_channel_queue: bool, mode: Mode) -> Result<(), Fail> {
    use validation::channel_queue as cq;
    let length = if quick { validation::RunLength::quick() } else { validation::RunLength::full() };
    let cq_length = if quick { cq::Length::quick() } else { cq::Length::full() };
    let Some((report, curves, cq_seconds)) = mode.carry_out(|runner| {
        let report = (!only_channel_queue).then(|| validation::run(&length, runner));
        let before = runner.elapsed().0;
        let curves = cq::simulate(&cq_length, runner);
        (report, curves, runner.elapsed().0 - before)
    })?
    else {
        return Ok(());
    };
    if let Some(report) = report {
        let command = if quick { format!("torus validate --quick --out {out}") } else { format!("torus validate --out {out}") };
        validation::write(&report, &command, std::path::Path::new(out)).map_err(|e| Fail(format!("writing {out}: {e}")))?;
        eprintln!("wrote {out}/validation.md and its plots in {:.0} s", report.wall_seconds);
    }
    let results = cq::compare_all(&cq_length, &curves);
    let command = match quick {
        true => format!("torus validate --channel-queue --quick --out {out}"),
        false => format!("torus validate --channel-queue --out {out}"),
    };
    cq::write(&results, &cq_length, cq_seconds, &command, std::path::Path::new(out)).map_err(|e| Fail(format!("writing {out}: {e}")))?;
    eprintln!("wrote {out}/validation/channel-queue.md and its plots in {cq_seconds:.0} s");
    Ok(())
}

/// `torus validate --grid`: the channel-queue model over every torus size and message length
/// of its §8, written to `out`/validation/channel-queue-grid.md.
fn validate_grid(quick: bool, out: &str, (radices, message_lengths): (Vec<u32>, Vec<u32>), mode: Mode) -> Result<(), Fail> {
    use validation::channel_queue as cq;
    let length = if quick { cq::Length::quick() } else { cq::Length::full() };
    let lengths = length.grid_of(&radices, &message_lengths).map_err(Fail)?;
    let Some((curves, seconds)) = mode.carry_out(|runner| (cq::simulate_all(&lengths, runner), runner.elapsed().0))? else {
        return Ok(());
    };
    let sizes: Vec<_> = lengths
        .into_iter()
        .zip(&curves)
        .map(|(length, curves)| {
            let results = cq::compare_all(&length, curves);
            (length, results)
        })
        .collect();
    let list = |name: &str, values: &[u32], whole: &[u32]| {
        let spelled: Vec<String> = values.iter().map(u32::to_string).collect();
        if values == whole { String::new() } else { format!(" {name} {}", spelled.join(",")) }
    };
    let command = format!(
        "torus validate --grid{}{}{} --out {out}",
        if quick { " --quick" } else { "" },
        list("--k", &radices, &cq::GRID_RADICES),
        list("--len", &message_lengths, &cq::GRID_LENGTHS)
    );
    cq::write_grid(&sizes, seconds, &command, std::path::Path::new(out)).map_err(|e| Fail(format!("writing {out}: {e}")))?;
    eprintln!("wrote {out}/validation/channel-queue-grid.md in {seconds:.0} s");
    Ok(())
}

/// `--k a,b,..` and `--len a,b,..` of `validate --grid`: the torus sizes and message lengths, by
/// default the whole grid's (with `--quick`, too).
fn grid_sizes(args: &[String]) -> Result<(Vec<u32>, Vec<u32>), Fail> {
    use validation::channel_queue::{GRID_LENGTHS, GRID_RADICES};
    let list = |name: &str, default: &[u32], least: u32| -> Result<Vec<u32>, Fail> {
        let Some(text) = option(args, name)? else { return Ok(default.to_vec()) };
        text.split(',')
            .map(|v| match v.trim().parse::<u32>() {
                Ok(n) if n >= least => Ok(n),
                _ => Err(Fail(format!("{name} takes a comma-separated list of whole numbers from {least}, got `{v}`"))),
            })
            .collect()
    };
    Ok((list("--k", &GRID_RADICES, 2)?, list("--len", &GRID_LENGTHS, 1)?))
}

/// How a many-run command carries out its jobs: here, as a plan, from collected results, or
/// here past the results a file holds.
enum Mode {
    Local,
    Plan,
    Collect(Vec<String>),
    Stored(String),
}

/// Splits off `--collect FILE...` (the last option) and reads `--plan`.
fn split_mode(args: &[String]) -> Result<(&[String], Mode), Fail> {
    if let Some(i) = args.iter().position(|a| a == "--collect") {
        let files = args[i + 1..].to_vec();
        if files.is_empty() {
            return Err(Fail("--collect needs result files (- for standard input), after every other option".into()));
        }
        if let Some(option) = files.iter().find(|f| f.starts_with("--")) {
            return Err(Fail(format!("--collect takes result files and comes after every other option: move {option} before it")));
        }
        if args[..i].iter().any(|a| a == "--plan") {
            return Err(Fail("--plan and --collect are two steps: give one".into()));
        }
        if args[..i].iter().any(|a| a == "--results") {
            return Err(Fail("--results runs the jobs here and --collect reads results run elsewhere: give one (append the collected files to the results file to use both)".into()));
        }
        return Ok((&args[..i], Mode::Collect(files)));
    }
    let plan = args.iter().any(|a| a == "--plan");
    Ok(match option(args, "--results")? {
        Some(_) if plan => return Err(Fail("--plan runs nothing, so it keeps no --results: give one".into())),
        Some(file) => (args, Mode::Stored(file.to_string())),
        None if plan => (args, Mode::Plan),
        None => (args, Mode::Local),
    })
}

impl Mode {
    /// Runs `command` on this mode's runner. `None` after a plan, whose job lines it prints:
    /// the command's own output is then nothing to show.
    fn carry_out<T>(self, command: impl FnOnce(&dyn Runner) -> T) -> Result<Option<T>, Fail> {
        match self {
            Mode::Local => Ok(Some(command(&Local::new()))),
            Mode::Plan => {
                let planner = Planner::new();
                command(&planner);
                for line in planner.lines() {
                    out!("{line}");
                }
                Ok(None)
            }
            Mode::Collect(files) => {
                let mut sources = Vec::new();
                for file in files {
                    let text = if file == "-" {
                        std::io::read_to_string(std::io::stdin()).map_err(|e| Fail(format!("reading standard input: {e}")))?
                    } else {
                        std::fs::read_to_string(&file).map_err(|e| Fail(format!("cannot read {file}: {e}")))?
                    };
                    sources.push((file, text));
                }
                let collector = Collector::read(&sources).map_err(Fail)?;
                let result = command(&collector);
                collector.finish().map_err(Fail)?;
                Ok(Some(result))
            }
            Mode::Stored(file) => {
                let (stored, held) = Stored::open(Path::new(&file)).map_err(Fail)?;
                if held.other_simulator > 0 || held.passed_over > 0 {
                    eprintln!(
                        "{file}: {} results of this simulator; passing over {} of another build's simulator and {} failed or unreadable lines",
                        held.usable, held.other_simulator, held.passed_over
                    );
                }
                let result = command(&stored);
                let (reused, ran) = stored.counts();
                eprintln!("{file}: {reused} jobs answered from it, {ran} run and added to it");
                Ok(Some(result))
            }
        }
    }
}

/// `torus run --batch [--part I/N]`: the job lines on stdin (every N-th from the I-th), on
/// `--threads` threads, each result line printed as its job ends. A job that fails prints an
/// error line and the batch goes on; the exit code then says that some failed.
fn batch(args: &[String]) -> Result<(), Fail> {
    no_positional(args, &["--batch", "--part=", "--threads="])?;
    threads_option(args)?;
    let (part, parts) = match option(args, "--part")? {
        None => (0, 1),
        Some(spec) => {
            let bad = || Fail(format!("--part must be I/N with 0 <= I < N (e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT), got `{spec}`"));
            let (i, n) = spec.split_once('/').ok_or_else(bad)?;
            let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
            if i >= n {
                return Err(bad());
            }
            (i, n)
        }
    };
    let input = std::io::read_to_string(std::io::stdin()).map_err(|e| Fail(format!("reading job lines from standard input: {e}")))?;
    let lines: Vec<&str> = input.lines().filter(|l| !l.trim().is_empty()).skip(part).step_by(parts).collect();
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr()).then(|| jobs::Progress::new(lines.len()));
    let ok = experiment::parallel_map(&lines, |line| {
        let start = Instant::now();
        let (result, ok) = match jobs::parse_job_line(line) {
            Err(e) => {
                let id = serde_json::from_str::<serde_json::Value>(line).ok().and_then(|v| v.get("id").cloned()).unwrap_or_default();
                (serde_json::json!({ "id": id, "error": e }).to_string(), false)
            }
            Ok((id, job)) => {
                let outcome = std::panic::catch_unwind(|| job.execute()).unwrap_or_else(|panic| {
                    Err(panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_else(|| "the job panicked".into()))
                });
                let ok = outcome.is_ok();
                (jobs::result_line(id, &job, outcome, start.elapsed().as_secs_f64()), ok)
            }
        };
        out!("{result}");
        if let Some(p) = &progress {
            p.done();
        }
        ok
    });
    let failed = ok.iter().filter(|ok| !**ok).count();
    if failed > 0 {
        return Err(Fail(format!("{failed} of {} jobs failed; their error lines say why", lines.len())));
    }
    Ok(())
}
