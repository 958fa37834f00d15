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
