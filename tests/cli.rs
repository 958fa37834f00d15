//! The `torus` command as a user runs it: JSON out, exit code 2 and one line on bad input.

use std::process::Command;

fn torus(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_torus")).args(args).output().expect("torus runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn run_prints_the_documented_fields() {
    let (code, out, _) = torus(&["run", "k=4&rate=0.01&len=4&warmup=100&cycles=2000"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for field in [
        "scenario", "latency_mean", "latency_ci95", "network_latency_mean", "source_queue_mean", "hops_mean",
        "offered_flits_per_node_cycle", "accepted_flits_per_node_cycle", "accepted_min_pair", "messages_measured",
        "cycles", "saturated", "deadlock", "wall_seconds",
    ] {
        assert!(v.get(field).is_some(), "missing {field}");
    }
    assert!(v["scenario"].as_str().unwrap().starts_with("k=4&n=2&routing=dor"));
    assert!(v["latency_mean"].as_f64().unwrap() > 4.0);
}

#[test]
fn sweep_prints_one_line_per_rate_with_the_model() {
    let (code, out, _) = torus(&["sweep", "k=4&len=4&warmup=100&cycles=1000", "--rates", "0.01:0.03:3"]);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["rate"].as_f64().unwrap(), 0.03);
    assert!(lines.iter().all(|l| l.get("model_latency").is_some()));
    assert!(lines.iter().all(|l| l["channel_queue_latency"].as_f64().is_some()));
}

#[test]
fn model_reports_the_bound_and_the_channel_queue_model_where_no_papers_model_applies() {
    let (code, out, _) = torus(&["model", "routing=dor&traffic=tornado&len=1&rate=0.1"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["model"], "channel-queue");
    assert!(v["reason"].is_null());
    assert_eq!(v["latency"], v["channel_queue"]["latency"]);
    assert!(v["channel_queue"]["saturation_rate"].as_f64().unwrap() > 0.1);
    assert_eq!(v["channel_utilisation_predicted"].as_array().unwrap().len(), 256);
    assert!((v["bound_saturation_fraction_of_capacity"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    // A seed model keeps its place; the channel-queue model is reported beside it.
    let (_, out, _) = torus(&["model", "routing=nbc&rate=0.005"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["model"], "nbc");
    assert!(v["channel_queue"]["latency"].as_f64().unwrap() > 16.0);
    assert_ne!(v["latency"], v["channel_queue"]["latency"]);
    // Chaos has neither: one reason for each.
    let (_, out, _) = torus(&["model", "routing=chaos"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["model"].is_null());
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("routing=chaos") && reason.contains("deflects"), "{reason}");
    assert!(v["channel_queue"]["reason"].as_str().unwrap().contains("chaos"));
    assert!(v["channel_utilisation_predicted"].as_array().unwrap().is_empty());
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for args in [
        vec!["run", "k=1"],
        vec!["run", "rate=abc"],
        vec!["run"],
        vec!["frobnicate"],
        vec!["sweep", "k=4", "--rates", "0.5:0.1:3"],
        vec!["sweep", "k=4"],
        vec!["bench", "--cycles", "x"],
        vec!["bench", "--svg", "plots"],
        vec!["bench", "--models", "--scaling"],
        vec!["run", "k=4", "--extra"],
        vec!["validate", "--fast"],
        vec!["validate", "--out"],
        vec!["saturation", "k=4", "--threads", "0"],
        vec!["sweep", "k=4", "--rates", "0.01:0.02:2", "--threads", "many"],
        vec!["run", "k=4", "--seeds", "0"],
        vec!["sweep", "k=4", "--rates", "0.01:0.02:2", "--seeds", "x"],
        vec!["saturation", "k=4", "--criterion", "average"],
        vec!["saturation", "k=4", "--latency-threshold", "300"],
        vec!["saturation", "k=4", "--criterion", "latency", "--latency-threshold", "-1"],
        vec!["saturation", "k=4", "--tolerance", "0"],
        vec!["saturation", "k=4", "--range", "0.2:0.1"],
        vec!["saturation", "k=4", "--range", "0.1"],
        vec!["saturation", "k=4&routing=dor&vcs=1&unsafe=1&n=3&k=64"],
        vec!["run", "k=4", "rate=0.01", "k=8&k=4"],
        vec!["run", "k=4", "dor"],
        vec!["run", "@/nonexistent/scenario.txt"],
        vec!["sweep", "k=4", "--rates", "0.01,,0.02"],
        vec!["sweep", "k=4", "--rates", "0.01,2"],
        vec!["help", "run", "sweep"],
        vec!["bench", "extra"],
        vec!["model"],
        vec!["validate", "--quick", "--out", "/proc/nope"],
        vec!["experiment", "all", "--quick", "--out", "/proc/nope"],
        vec!["coverage", "--seeds", "2", "--out", "/proc/nope"],
    ] {
        let (code, out, err) = torus(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("torus: "), "{args:?}: {err}");
    }
}

#[test]
fn bench_scaling_writes_its_two_curves() {
    let dir = std::env::temp_dir().join(format!("torus-scaling-{}", std::process::id()));
    let (code, out, err) = torus(&["bench", "--scaling", "--cycles", "200", "--svg", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 10, "one line per scaling scenario: {out}");
    for name in ["scaling-size.svg", "scaling-load.svg"] {
        let svg = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("nanoseconds per simulated cycle"), "{name}: {svg}");
        assert!(err.contains(name), "the path written goes to stderr: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_models_times_a_curve_of_every_model() {
    let (code, out, err) = torus(&["bench", "--models", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let models: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["model"].as_str().unwrap()).collect();
    assert_eq!(models.into_iter().collect::<Vec<_>>(), ["broadcast", "channel-queue", "nbc", "quaglia-adaptive", "scouting"]);
    for r in &rows {
        assert_eq!(r["points"], 100);
        assert!(r["curve_ms"].as_f64().unwrap() > 0.0 && r["saturation_rate"].as_f64().unwrap() > 0.0, "{r}");
    }
}

#[test]
fn bench_models_with_a_scenario_times_that_scenario_s_model_only() {
    let (code, out, err) = torus(&["bench", "--models", "--json", "--scenario", "k=4&routing=dor&traffic=tornado"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert_eq!(rows[0]["model"], "channel-queue");
    assert!(rows[0]["scenario"].as_str().unwrap().starts_with("k=4&n=2&routing=dor&"), "{out}");
    assert!(rows[0]["curve_ms"].as_f64().unwrap() > 0.0);
}

#[test]
fn experiment_writes_csv_and_markdown() {
    let dir = std::env::temp_dir().join(format!("torus-experiment-{}", std::process::id()));
    let (code, _, err) = torus(&["experiment", "histograms", "--quick", "--routings", "dor", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote ") && !err.contains("jobs done"), "no progress when stderr is not a terminal: {err}");
    let csv = std::fs::read_to_string(dir.join("histograms.csv")).unwrap();
    assert!(csv.starts_with("routing,pair,latency,packets\ndor,"), "{csv}");
    let md = std::fs::read_to_string(dir.join("histograms.md")).unwrap();
    assert!(md.contains("| dor | A→C(1,3) |"), "{md}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn experiment_rejects_unknown_names_and_bad_options() {
    for args in [
        &["experiment", "bogus"][..],
        &["experiment"],
        &["experiment", "permutations", "--permutations", "0"],
        &["experiment", "stability", "--routings", "dor,nonsense"],
        &["experiment", "stability", "--fast"],
    ] {
        let (code, out, err) = torus(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty() && err.lines().count() == 1, "{args:?}: {err}");
    }
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // The reader goes away before the first benchmark line is printed, as `| head -1` would
    // after its line: the write fails with a broken pipe, which must not become a panic.
    let mut child = Command::new(env!("CARGO_BIN_EXE_torus"))
        .args(["bench", "--cycles", "2000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.status.success(), "{:?} {stderr}", output.status);
}

/// `--threads N` changes the wall time only: a saturation search, a sweep and a small experiment
/// give the same bytes on 1, 2 and 7 threads, except the line that reports the wall time.
#[test]
fn results_do_not_depend_on_the_thread_count() {
    let outputs = |threads: &str| {
        let (code, saturation, err) =
            torus(&["saturation", "k=8&routing=dor&traffic=tornado&len=2&warmup=300&cycles=1500", "--seeds", "3", "--threads", threads]);
        assert_eq!(code, 0, "{err}");
        let (code, sweep, err) = torus(&["sweep", "k=4&len=4&warmup=200&cycles=1000", "--rates", "0.02:0.2:5", "--threads", threads]);
        assert_eq!(code, 0, "{err}");
        let dir = std::env::temp_dir().join(format!("torus-threads-{}-{threads}", std::process::id()));
        let (code, _, err) =
            torus(&["experiment", "saturation", "--quick", "--routings", "dor", "--out", dir.to_str().unwrap(), "--threads", threads]);
        assert_eq!(code, 0, "{err}");
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        let markdown: String = read("saturation.md").lines().filter(|l| !l.starts_with("Wall time:")).map(|l| l.to_string() + "\n").collect();
        assert!(read("saturation.md").contains("Wall time: "), "the wall-time line is the one set aside");
        let csv = read("saturation.csv");
        std::fs::remove_dir_all(&dir).unwrap();
        (saturation, sweep, markdown, csv)
    };
    let one = outputs("1");
    assert!(one.0.contains("saturation_rate") && one.1.lines().count() == 5 && one.3.lines().count() == 8, "{one:?}");
    for threads in ["2", "7"] {
        let other = outputs(threads);
        assert_eq!(one.0, other.0, "saturation on {threads} threads");
        assert_eq!(one.1, other.1, "sweep on {threads} threads");
        assert_eq!(one.2, other.2, "saturation.md on {threads} threads");
        assert_eq!(one.3, other.3, "saturation.csv on {threads} threads");
    }
}

#[test]
fn seeds_replicate_a_run_and_a_sweep_point_beside_the_plain_result() {
    let s = "k=4&len=4&rate=0.03&seed=5&warmup=200&cycles=1500";
    let (code, plain, _) = torus(&["run", s]);
    assert_eq!(code, 0);
    let (code, out, err) = torus(&["run", s, "--seeds", "4"]);
    assert_eq!(code, 0, "{err}");
    let plain: serde_json::Value = serde_json::from_str(&plain).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // The fields of one run keep their meaning: they are the first replication's, whose seed is
    // the scenario's own.
    for field in ["scenario", "latency_mean", "latency_ci95", "accepted_flits_per_node_cycle", "latency_histogram"] {
        assert_eq!(v[field], plain[field], "{field}");
    }
    let seeds: Vec<u64> = v["seeds"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    assert_eq!((seeds.len(), seeds[0]), (4, 5));
    let replications = v["replications"].as_array().unwrap();
    let latencies: Vec<f64> = replications.iter().map(|r| r["latency_mean"].as_f64().unwrap()).collect();
    // Each replication is the plain run of its seed.
    let (_, third, _) = torus(&["run", &format!("k=4&len=4&rate=0.03&seed={}&warmup=200&cycles=1500", seeds[2])]);
    let third: serde_json::Value = serde_json::from_str(&third).unwrap();
    assert_eq!(replications[2]["latency_mean"], third["latency_mean"]);
    let mean = latencies.iter().sum::<f64>() / 4.0;
    let across = &v["across_seeds"]["latency_mean"];
    assert!((across["mean"].as_f64().unwrap() - mean).abs() < 1e-9, "{across}");
    let sd = (latencies.iter().map(|l| (l - mean) * (l - mean)).sum::<f64>() / 3.0).sqrt();
    assert!((across["ci95"].as_f64().unwrap() - 3.1824 * sd / 2.0).abs() < 1e-6, "t(0.975, 3) = 3.1824: {across}");

    let (code, out, _) = torus(&["sweep", "k=4&len=4&warmup=200&cycles=1000", "--rates", "0.01:0.03:3", "--seeds", "2"]);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| l["replications"].as_array().unwrap().len() == 2 && l.get("model_latency").is_some()));
}

#[test]
fn a_sweep_marks_saturated_points_and_can_stop_at_the_first() {
    let s = "k=8&len=4&traffic=tornado&warmup=200&cycles=1000";
    let (code, out, err) = torus(&["sweep", s, "--rates", "0.01:0.2:4"]);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4);
    assert!(!lines[0]["saturated"].as_bool().unwrap() && lines[0]["saturation_reason"].is_null());
    let first_saturated = lines.iter().position(|l| l["saturated"].as_bool().unwrap()).expect("0.2 messages of 4 flits is past the tornado bound");
    for (i, l) in lines.iter().enumerate().skip(first_saturated) {
        assert!(l["saturation_reason"].as_str().unwrap().contains("accepted"), "{l}");
        assert!(err.contains(&format!("rate {} is past saturation", l["rate"])), "point {i} marked on stderr: {err}");
    }
    let (code, stopped, err) = torus(&["sweep", s, "--rates", "0.01:0.2:4", "--stop-at-saturation"]);
    assert_eq!(code, 0);
    assert_eq!(stopped.lines().collect::<Vec<_>>(), out.lines().take(first_saturated + 1).collect::<Vec<_>>());
    assert!(err.contains("--stop-at-saturation: stopped after rate"), "{err}");
}

#[test]
fn saturation_states_its_criterion_and_a_result_at_its_precision() {
    let s = "k=8&routing=dor&traffic=permutation&len=1&buf=8&warmup=1000&cycles=3000&seed=2";
    let value = |args: &[&str]| -> serde_json::Value {
        let (code, out, err) = torus(args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let shortfall = value(&["saturation", s]);
    let accepted = value(&["saturation", s, "--criterion", "accepted"]);
    let latency = value(&["saturation", s, "--criterion", "latency", "--latency-threshold", "40", "--tolerance", "0.02"]);
    assert_eq!((shortfall["criterion"].as_str(), accepted["criterion"].as_str(), latency["criterion"].as_str()), (Some("source-shortfall"), Some("accepted"), Some("latency")));
    assert_eq!((latency["latency_threshold"].as_f64(), latency["tolerance"].as_f64()), (Some(40.0), Some(0.02)));
    let rate = |v: &serde_json::Value| v["saturation_flits_per_node_cycle"].as_f64().unwrap();
    // Under a permutation the per-source rule is the strictest: the sources crossing the busiest
    // channel fall behind while the average still keeps up.
    assert!(rate(&shortfall) <= rate(&accepted), "{} {}", rate(&shortfall), rate(&accepted));
    // The result is written to the decimal of the bracket's width, not to 17 digits.
    let result = shortfall["result"].as_str().unwrap();
    let width = shortfall["saturation_rate_upper"].as_f64().unwrap() - shortfall["saturation_rate"].as_f64().unwrap();
    let decimals = (-width.log10()).ceil() as usize;
    assert!(result.starts_with(&format!("saturation {:.decimals$} flits/node/cycle", rate(&shortfall))), "{result} (width {width})");
    assert!(result.contains("criterion source-shortfall"), "{result}");
    let ranged = value(&["saturation", s, "--range", "0.01:0.05"]);
    assert_eq!(ranged["outside_range"].as_str(), Some("above"), "{ranged}");
    let seeds = value(&["saturation", s, "--seeds", "3", "--criterion", "accepted"]);
    assert_eq!(seeds["replications"].as_array().unwrap().len(), 3);
    assert!(seeds["result"].as_str().unwrap().contains(" ± ") && seeds["across_seeds"]["saturation_flits_per_node_cycle"]["ci95"].as_f64().is_some(), "{seeds}");
}

#[test]
fn warmup_0_warns_and_auto_lengths_say_what_ended_them() {
    let (code, out, err) = torus(&["run", "k=4&len=4&rate=0.02&warmup=0&cycles=500"]);
    assert_eq!(code, 0);
    assert!(err.starts_with("torus: warning: warmup=0") && err.lines().count() == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["warmup_cycles"].as_u64(), v["warmup_stop"].as_str(), v["window_stop"].as_str()), (Some(0), Some("fixed"), Some("fixed")));
    let (_, _, err) = torus(&["run", "k=4&len=4&rate=0.02&warmup=100&cycles=500"]);
    assert!(err.is_empty(), "no warning with a warm-up: {err}");
    let (code, out, err) = torus(&["run", "k=4&len=4&rate=0.02&warmup=auto&cycles=auto&ci=0.05"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["scenario"].as_str().unwrap().contains("&warmup=auto&cycles=auto&"), "{v}");
    assert_eq!((v["warmup_stop"].as_str(), v["window_stop"].as_str()), (Some("settled"), Some("target")));
    let relative = v["latency_ci95"].as_f64().unwrap() / v["latency_mean"].as_f64().unwrap();
    assert!(relative <= 0.06 && v["window_cycles"].as_u64().unwrap() >= 10_000, "{v}");
}

/// The JSON of a run without its wall time, which is the one field that differs between runs.
fn without_wall_time(out: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    v.as_object_mut().unwrap().remove("wall_seconds").expect("a wall time");
    v
}

#[test]
fn separate_key_value_arguments_and_a_scenario_file_run_as_the_quoted_string() {
    let quoted = "k=4&routing=duato&traffic=tornado&rate=0.02&len=4&seed=3&warmup=100&cycles=1000";
    let (code, out, err) = torus(&["run", quoted]);
    assert_eq!(code, 0, "{err}");
    let expected = without_wall_time(&out);
    let separate = ["k=4", "routing=duato", "traffic=tornado", "rate=0.02", "len=4", "seed=3", "warmup=100", "cycles=1000"];
    let (code, out, err) = torus(&[&["run"][..], &separate].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(without_wall_time(&out), expected);
    // Mixed: a quoted string, and a later key that replaces its own.
    let (_, out, _) = torus(&["run", "k=4&routing=duato&traffic=tornado&rate=0.5&len=4", "seed=3", "warmup=100", "cycles=1000", "rate=0.02"]);
    assert_eq!(without_wall_time(&out), expected);
    // A file: one key a line, comments, and a key on the command line after it.
    let file = std::env::temp_dir().join(format!("torus-scenario-{}.txt", std::process::id()));
    std::fs::write(&file, "# tornado on a 4-ary 2-cube\nk=4\nrouting=duato   # Duato's protocol\n\ntraffic=tornado\nrate=0.05\nlen=4\nseed=3\nwarmup=100&cycles=1000\n").unwrap();
    let (code, out, err) = torus(&["run", &format!("@{}", file.display()), "rate=0.02"]);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(code, 0, "{err}");
    assert_eq!(without_wall_time(&out), expected);
    // The model reads the same forms.
    let (_, quoted_model, _) = torus(&["model", "k=8&routing=nbc&rate=0.005"]);
    let (_, separate_model, _) = torus(&["model", "k=8", "routing=nbc", "rate=0.005"]);
    assert_eq!(quoted_model, separate_model);
}

#[test]
fn help_on_every_command_and_the_version() {
    let (code, overview, _) = torus(&["help"]);
    assert_eq!(code, 0);
    for command in ["run", "sweep", "saturation", "model", "bench", "validate", "experiment", "coverage", "help"] {
        let (code, help, err) = torus(&["help", command]);
        assert_eq!(code, 0, "{command}: {err}");
        assert!(help.starts_with(&format!("torus {command} ")), "{command}: {help}");
        assert!(overview.contains(&format!("torus {command} ")), "the overview lists {command}");
        let (code, flag, _) = torus(&[command, "--help"]);
        assert_eq!((code, &flag), (0, &help), "{command} --help");
        let (code, flag, _) = torus(&[command, "-h"]);
        assert_eq!((code, &flag), (0, &help), "{command} -h");
    }
    // A scenario command's help says how to give a scenario.
    let (_, help, _) = torus(&["run", "k=4", "--help"]);
    assert!(help.contains("separate arguments") && help.contains("@FILE") && help.contains("frate"), "{help}");
    // It lists every scenario key, in canonical order.
    let listed: Vec<&str> = help
        .split("keys:")
        .nth(1)
        .expect("a list of keys")
        .lines()
        .take_while(|l| !l.starts_with('('))
        .flat_map(str::split_whitespace)
        .collect();
    assert_eq!(listed, torus_explorer::scenario::KEYS, "{help}");
    // Without a command: a one-line error that names the commands.
    let (code, _, err) = torus(&[]);
    assert_eq!(code, 2);
    assert!(err.contains("no command given") && err.contains("run, sweep, saturation"), "{err}");
    let (code, version, _) = torus(&["--version"]);
    assert_eq!((code, version.trim()), (0, concat!("torus ", env!("CARGO_PKG_VERSION"))));
    let (code, _, err) = torus(&["help", "frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown command `frobnicate`"), "{err}");
}

#[test]
fn sweep_rates_as_a_list_and_as_the_decimals_typed() {
    let s = "k=4&len=4&warmup=100&cycles=500";
    let rates = |spec: &str| -> Vec<String> {
        let (code, out, err) = torus(&["sweep", s, "--rates", spec]);
        assert_eq!(code, 0, "{err}");
        out.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["rate"].to_string()).collect()
    };
    assert_eq!(rates("0.005:0.035:7"), ["0.005", "0.01", "0.015", "0.02", "0.025", "0.03", "0.035"]);
    assert_eq!(rates("0.03,0.01,0.02"), ["0.03", "0.01", "0.02"]);
    // Each point's scenario spells its rate as typed.
    let (_, out, _) = torus(&["sweep", s, "--rates", "0.005:0.035:7"]);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert!(last["scenario"].as_str().unwrap().contains("&rate=0.035&"), "{last}");
}

#[test]
fn frate_is_a_rate_in_flits() {
    let (_, in_flits, _) = torus(&["run", "k=4", "len=4", "frate=0.08", "warmup=100", "cycles=1000"]);
    let (_, in_messages, _) = torus(&["run", "k=4", "len=4", "rate=0.02", "warmup=100", "cycles=1000"]);
    assert_eq!(without_wall_time(&in_flits), without_wall_time(&in_messages));
    let (code, _, err) = torus(&["run", "k=4", "rate=0.02", "frate=0.08"]);
    assert_eq!(code, 2);
    assert!(err.contains("frate") && err.contains("give one of them"), "{err}");
}

/// The rows of a CSV text (no quoted commas in the fields these tests read).
fn csv_rows(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let header = lines.next().expect("a header line").split(',').map(String::from).collect();
    (header, lines.map(|l| l.split(',').map(String::from).collect()).collect())
}

/// The names of a JSON object's own fields, in the order the text gives them (a parsed value
/// sorts them).
fn top_level_names(line: &str) -> Vec<String> {
    let (mut names, mut depth, mut in_string, mut escaped, mut start) = (Vec::new(), 0, false, false, 0);
    for (i, c) in line.char_indices() {
        match (in_string, c) {
            (true, _) if escaped => escaped = false,
            (true, '\\') => escaped = true,
            (true, '"') => {
                in_string = false;
                if depth == 1 && line[i + 1..].starts_with(':') {
                    names.push(line[start..i].to_string());
                }
            }
            (false, '"') => {
                in_string = true;
                start = i + 1;
            }
            (false, '{' | '[') => depth += 1,
            (false, '}' | ']') => depth -= 1,
            _ => {}
        }
    }
    names
}

#[test]
fn csv_gives_the_numbers_json_gives() {
    let s = "k=4&routing=duato&traffic=tornado&len=4&warmup=100&cycles=800&seed=2";
    let (code, json, err) = torus(&["sweep", s, "--rates", "0.01,0.05,0.2"]);
    assert_eq!(code, 0, "{err}");
    let (code, csv, _) = torus(&["sweep", s, "--rates", "0.01,0.05,0.2", "--csv"]);
    assert_eq!(code, 0);
    let (header, rows) = csv_rows(&csv);
    assert_eq!(rows.len(), 3, "one header line, one row per rate: {csv}");
    assert!(header.iter().all(|h| !h.contains("channel_utilisation")), "lists are left out of CSV: {header:?}");
    for (line, row) in json.lines().zip(&rows) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let fields: Vec<&String> = v.as_object().unwrap().keys().collect();
        let mut compared = 0;
        for (name, cell) in header.iter().zip(row) {
            if name.contains('.') || name == "scenario" || name == "saturation_reason" {
                continue;
            }
            let expected = match &v[name] {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(cell, &expected, "{name}");
            compared += 1;
        }
        assert!(compared > 30, "{compared} of {fields:?}");
    }
    // Chosen fields, in the order chosen, in both forms.
    let fields = "rate,frate,latency_mean,model_latency,accepted_flits_per_node_cycle,saturated";
    let (_, csv, _) = torus(&["sweep", s, "--rates", "0.01,0.05,0.2", "--csv", "--fields", fields]);
    let (_, chosen, _) = torus(&["sweep", s, "--rates", "0.01,0.05,0.2", "--fields", fields]);
    let (header, rows) = csv_rows(&csv);
    assert_eq!(header.join(","), fields);
    for ((line, row), full) in chosen.lines().zip(&rows).zip(json.lines()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let full: serde_json::Value = serde_json::from_str(full).unwrap();
        assert_eq!(top_level_names(line).join(","), fields, "JSON keeps the order chosen");
        for (name, cell) in header.iter().zip(row) {
            assert_eq!(v[name], full[name], "{name}");
            let expected = if v[name].is_null() { String::new() } else { v[name].to_string() };
            assert_eq!(cell, &expected, "{name}");
        }
    }
    assert!(rows.iter().map(|r| &r[0]).eq(["0.01", "0.05", "0.2"].iter()), "{rows:?}");
    assert!(rows.iter().map(|r| &r[1]).eq(["0.04", "0.2", "0.8"].iter()), "frate = rate · len: {rows:?}");
}

#[test]
fn json_fields_come_grouped_with_the_version_and_both_rates() {
    let (code, out, _) = torus(&["run", "k=4&rate=0.02&len=8&warmup=100&cycles=1000"]);
    assert_eq!(code, 0);
    let names = top_level_names(&out);
    assert_eq!(names[..4], ["scenario", "version", "rate", "frate"]);
    let place = |name: &str| names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no {name}"));
    // Scenario, run lengths, latency, throughput, state, details.
    let order = ["frate", "window_cycles", "latency_mean", "hops_mean", "accepted_flits_per_node_cycle", "saturated", "deadlock", "busy_vc_probability", "channel_utilisation"];
    for pair in order.windows(2) {
        assert!(place(pair[0]) < place(pair[1]), "{} before {}: {names:?}", pair[0], pair[1]);
    }
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["version"].as_str(), v["rate"].as_f64(), v["frate"].as_f64()), (Some(env!("CARGO_PKG_VERSION")), Some(0.02), Some(0.16)));
}

#[test]
fn detail_adds_every_node_and_pair() {
    let s = "k=4&n=1&routing=dor&traffic=uniform&rate=0.05&len=2&warmup=200&cycles=4000&seed=3";
    let (code, out, err) = torus(&["run", s, "--detail"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = |name: &str| -> Vec<f64> { v[name].as_array().unwrap_or_else(|| panic!("{name}")).iter().map(|x| x.as_f64().unwrap()).collect() };
    let (latency, measured) = (list("node_latency_mean"), list("node_messages_measured"));
    assert_eq!((latency.len(), measured.len()), (4, 4));
    // The nodes' means, weighted by their messages, are the run's mean.
    let total: f64 = measured.iter().sum();
    assert_eq!(total, v["messages_measured"].as_f64().unwrap());
    let weighted: f64 = latency.iter().zip(&measured).map(|(l, m)| l * m).sum::<f64>() / total;
    assert!((weighted - v["latency_mean"].as_f64().unwrap()).abs() < 1e-9, "{weighted} {v}");
    // The accepted throughput per node is its row of the pair matrix, and their mean the run's.
    let pairs: Vec<Vec<f64>> = v["pair_accepted_flits_per_cycle"].as_array().unwrap().iter().map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()).collect();
    let accepted = list("node_accepted_flits_per_cycle");
    for (node, row) in pairs.iter().enumerate() {
        assert_eq!(row.len(), 4);
        assert_eq!(row[node], 0.0, "uniform traffic sends nothing to the source itself");
        assert!((row.iter().sum::<f64>() - accepted[node]).abs() < 1e-12, "node {node}");
    }
    let mean = accepted.iter().sum::<f64>() / 4.0;
    assert!((mean - v["accepted_flits_per_node_cycle"].as_f64().unwrap()).abs() < 1e-12);
    let offered = list("node_offered_flits_per_cycle").iter().sum::<f64>() / 4.0;
    assert!((offered - v["offered_flits_per_node_cycle"].as_f64().unwrap()).abs() < 1e-12);
    // Without --detail the same run, without those fields.
    let (_, plain, _) = torus(&["run", s]);
    let mut detailed = without_wall_time(&out);
    for name in ["node_latency_mean", "node_messages_measured", "node_offered_flits_per_cycle", "node_accepted_flits_per_cycle", "pair_accepted_flits_per_cycle"] {
        detailed.as_object_mut().unwrap().remove(name);
    }
    assert_eq!(detailed, without_wall_time(&plain));
    let sweep_detail = ["sweep", s, "--rates", "0.01,0.02", "--detail"];
    for args in [&["run", s, "--detail", "--seeds", "2"][..], &["run", s, "--csv", "--fields", "node_latency_mean", "--detail"], &["run", s, "--fields", "latency"], &sweep_detail] {
        let (code, out, err) = torus(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let (_, _, err) = torus(&sweep_detail);
    assert!(err.contains("torus run") && err.contains("--detail"), "sweep points at run for the per-node figures: {err}");
}

#[test]
fn model_quantities_come_in_index_order() {
    let (_, out, _) = torus(&["model", "k=8&routing=nbc&rate=0.005"]);
    let at = |key: &str| out.find(&format!("\"{key}\"")).unwrap_or_else(|| panic!("{key}: {out}"));
    assert!(at("P_v[2]") < at("P_v[9]") && at("P_v[9]") < at("P_v[10]"), "{out}");
}

#[test]
fn docs_output_defines_every_field_printed() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/output.md")).unwrap();
    let mut printed = std::collections::BTreeSet::new();
    let s = "k=4&len=4&rate=0.02&warmup=100&cycles=600";
    for args in [
        &["run", s, "--detail"][..],
        &["run", s, "--seeds", "2"],
        &["sweep", s, "--rates", "0.02", "--seeds", "2"],
        &["run", "k=4&len=4&rate=0.02&warmup=100&cycles=600&flinks=0x&routing=duato&vcs=3"],
    ] {
        let (code, out, err) = torus(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        fn names(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
            match v {
                serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| {
                    out.insert(k.clone());
                    names(v, out);
                }),
                serde_json::Value::Array(items) => items.iter().for_each(|v| names(v, out)),
                _ => {}
            }
        }
        names(&serde_json::from_str(&out).unwrap(), &mut printed);
    }
    let missing: Vec<&String> = printed.iter().filter(|name| !doc.contains(&format!("`{name}`"))).collect();
    assert!(missing.is_empty(), "docs/output.md does not define {missing:?}");
}
