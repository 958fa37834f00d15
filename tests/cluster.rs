//! Plan, run, collect (docs/cluster.md) as a user drives it: the collected output is the
//! one-machine output byte for byte (wall-time lines aside), whatever the order and split of
//! the result files; a missing job is named, a failed job does not stop its batch, and
//! re-running the missing jobs completes the report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn torus_with_input(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_torus"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("torus runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn torus(args: &[&str]) -> (i32, String, String) {
    torus_with_input(args, "")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("torus-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, lines: &[&str]) -> String {
    std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path.to_str().unwrap().to_string()
}

/// A file's text without its wall-time lines.
fn without_wall_time(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.contains("Wall time")).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_sweep_collected_from_shuffled_split_results_is_the_one_machine_sweep() {
    let sweep = ["sweep", "k=4&len=4&traffic=tornado&warmup=100&cycles=800", "--rates", "0.01:0.4:5", "--seeds", "2"];
    let (code, one_machine, _) = torus(&sweep);
    assert_eq!(code, 0);
    let (code, plan, _) = torus(&[&sweep[..], &["--plan"]].concat());
    assert_eq!(code, 0);
    let jobs: Vec<&str> = plan.lines().collect();
    assert_eq!(jobs.len(), 10, "5 rates × 2 seeds: {plan}");
    let (code, results, err) = torus_with_input(&["run", "--batch", "--threads", "2"], &plan);
    assert_eq!((code, err.as_str()), (0, ""));
    let mut lines: Vec<&str> = results.lines().collect();
    lines.reverse();
    let dir = scratch("sweep");
    let a = write(&dir.join("a.jsonl"), &lines[..6]);
    let b = write(&dir.join("b.jsonl"), &lines[4..]);
    let (code, collected, err) = torus(&[&sweep[..], &["--collect", &a, &b]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(collected, one_machine, "byte-identical, duplicates that agree accepted");

    // Stopping at saturation: the plan lists every rate, the collected sweep stops as the
    // one-machine sweep does.
    let stop = [&sweep[..], &["--stop-at-saturation"]].concat();
    let (_, stopped, _) = torus(&stop);
    assert!(stopped.lines().count() < 5, "the high rates saturate: {stopped}");
    let (_, collected, _) = torus(&[&stop[..], &["--collect", &a, &b]].concat());
    assert_eq!(collected, stopped);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_and_failed_jobs_are_named_and_a_rerun_completes_the_report() {
    let command = ["saturation", "k=4&len=2&traffic=tornado&warmup=100&cycles=600", "--seeds", "3", "--tolerance", "0.05"];
    let (_, one_machine, _) = torus(&command);
    let (_, plan, _) = torus(&[&command[..], &["--plan"]].concat());
    let jobs: Vec<&str> = plan.lines().collect();
    assert_eq!(jobs.len(), 3);
    // Part 1 of 2 is every other line from the second: job 2 only.
    let (code, part, _) = torus_with_input(&["run", "--batch", "--part", "1/2"], &plan);
    assert_eq!(code, 0);
    let ran: Vec<serde_json::Value> = part.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(ran.iter().map(|v| v["id"].as_u64().unwrap()).collect::<Vec<_>>(), [2]);

    // Job 3 fails (its line edited into a bad scenario), job 1 is lost.
    let broken = jobs[2].replace("k=4&", "k=1&");
    let (code, out, err) = torus_with_input(&["run", "--batch"], &format!("{}\n{broken}\n", jobs[1]));
    assert_eq!(code, 2, "the exit code says a job failed");
    assert!(err.starts_with("torus: 1 of 2 jobs failed"), "{err}");
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "the batch went on after the failure: {out}");
    let failed = lines.iter().find(|v| v["id"] == 3).unwrap();
    assert!(failed["error"].as_str().unwrap().contains('k'), "{failed}");

    let dir = scratch("missing");
    let first = write(&dir.join("first.jsonl"), &out.lines().collect::<Vec<_>>());
    let (code, stdout, err) = torus(&[&command[..], &["--collect", &first]].concat());
    assert_eq!((code, stdout.as_str()), (2, ""), "nothing written when jobs are missing");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing 2 of 3 job results, ids 1, 3") && err.contains("job 3:"), "{err}");

    let (_, rerun, _) = torus_with_input(&["run", "--batch"], &format!("{}\n{}\n", jobs[0], jobs[2]));
    let second = write(&dir.join("second.jsonl"), &rerun.lines().collect::<Vec<_>>());
    let (code, collected, err) = torus(&[&command[..], &["--collect", &first, &second]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(collected, one_machine);

    // Results of another plan are refused.
    let other = ["saturation", "k=4&len=2&traffic=tornado&warmup=100&cycles=600", "--seeds", "3"];
    let (code, _, err) = torus(&[&other[..], &["--collect", &first, &second]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("other jobs than this command plans"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_experiment_collected_from_a_batch_writes_the_one_machine_files() {
    let dir = scratch("experiment");
    let one = dir.join("one");
    let collected = dir.join("collected");
    let experiment = ["experiment", "histograms", "--quick", "--routings", "dor,minad"];
    let (code, _, err) = torus(&[&experiment[..], &["--out", one.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    let (_, plan, _) = torus(&[&experiment[..], &["--plan"]].concat());
    assert_eq!(plan.lines().count(), 2, "one deliveries job per algorithm: {plan}");
    let (_, results, _) = torus_with_input(&["run", "--batch"], &plan);
    let results = write(&dir.join("results.jsonl"), &results.lines().rev().collect::<Vec<_>>());
    let (code, _, err) = torus(&[&experiment[..], &["--out", collected.to_str().unwrap(), "--collect", &results]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(collected.join("histograms.csv")).unwrap(), std::fs::read(one.join("histograms.csv")).unwrap());
    assert_eq!(without_wall_time(&collected.join("histograms.md")), without_wall_time(&one.join("histograms.md")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_results_file_keeps_every_run_and_a_second_command_runs_only_what_it_lacks() {
    let sweep = ["sweep", "k=4&len=4&traffic=tornado&warmup=100&cycles=800", "--rates", "0.01:0.4:5", "--seeds", "2"];
    let (_, one_machine, _) = torus(&sweep);
    let dir = scratch("results");
    let file = dir.join("results.jsonl");
    let stored = [&sweep[..], &["--results", file.to_str().unwrap()]].concat();
    let (code, first, err) = torus(&stored);
    assert_eq!(code, 0, "{err}");
    assert_eq!(first, one_machine, "the same sweep, its runs kept");
    assert!(err.contains("0 jobs answered from it, 10 run and added to it"), "{err}");
    let kept = std::fs::read_to_string(&file).unwrap();
    assert_eq!(kept.lines().count(), 10);

    // Stopped after six runs: the second command runs the four it lacks, and adds them.
    std::fs::write(&file, kept.lines().take(6).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let (code, second, err) = torus(&stored);
    assert_eq!((code, second.as_str()), (0, one_machine.as_str()), "{err}");
    assert!(err.contains("6 jobs answered from it, 4 run and added to it"), "{err}");
    let (_, third, err) = torus(&stored);
    assert_eq!(third, one_machine);
    assert!(err.contains("10 jobs answered from it, 0 run"), "{err}");

    // The file is made of result lines: the same command collects from it as from a batch's.
    let (code, collected, err) = torus(&[&sweep[..], &["--collect", file.to_str().unwrap()]].concat());
    assert_eq!((code, collected.as_str()), (0, one_machine.as_str()), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plan_and_collect_refuse_what_they_cannot_use() {
    for args in [
        &["sweep", "k=4", "--rates", "0.01:0.02:2", "--collect"][..],
        &["sweep", "k=4", "--rates", "0.01:0.02:2", "--plan", "--collect", "x"],
        &["validate", "--collect", "/nonexistent/results.jsonl"],
        &["experiment", "saturation", "--collect", "results.jsonl", "--out", "x"],
        &["validate", "--grid", "--k", "5", "--plan"],
        &["validate", "--grid", "--len", "2,x", "--plan"],
        &["validate", "--k", "4", "--plan"],
        &["run", "--batch", "--part", "3/3"],
        &["sweep", "k=4", "--rates", "0.01:0.02:2", "--plan", "--results", "r.jsonl"],
        &["validate", "--results", "r.jsonl", "--collect", "x"],
        &["validate", "--results"],
        &["validate", "--results", "/nonexistent/dir/r.jsonl"],
    ] {
        let (code, out, err) = torus(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty() && err.lines().count() == 1, "{args:?}: {err}");
    }
    let (_, _, err) = torus(&["experiment", "saturation", "--collect", "results.jsonl", "--out", "x"]);
    assert!(err.contains("move --out before it"), "an option after the result files is named: {err}");
    let (code, out, _) = torus_with_input(&["run", "--batch"], "not json\n");
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["error"].as_str().unwrap().starts_with("not a job line"), "{v}");
}

#[test]
fn validation_plans_the_channel_queue_grid_as_one_curve_job_per_configuration() {
    let (code, cq_plan, err) = torus(&["validate", "--channel-queue", "--quick", "--plan"]);
    assert_eq!(code, 0, "{err}");
    let jobs: Vec<serde_json::Value> = cq_plan.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(jobs.len(), 63, "nine algorithms by seven patterns");
    assert!(jobs.iter().all(|j| j["job"] == "curve" && j["points"].as_array().unwrap().len() == 3), "{}", jobs[0]);

    // The grid: the same curve per configuration on each of its sizes.
    let (code, grid_plan, err) = torus(&["validate", "--grid", "--quick", "--k", "4", "--len", "1,8", "--plan"]);
    assert_eq!(code, 0, "{err}");
    let grid: Vec<serde_json::Value> = grid_plan.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(grid.len(), 2 * 63, "the quick grid's two sizes");
    let length = |j: &serde_json::Value| {
        let s = j["scenario"].as_str().unwrap();
        assert!(j["job"] == "curve" && s.starts_with("k=4&n=2&"), "{j}");
        s.split('&').find(|kv| kv.starts_with("len=")).unwrap().to_string()
    };
    assert!(grid[..63].iter().all(|j| length(j) == "len=1") && grid[63..].iter().all(|j| length(j) == "len=8"));

    // The whole validation plans the papers' runs first, then the same curves.
    let (_, plan, _) = torus(&["validate", "--quick", "--plan"]);
    let lines: Vec<&str> = plan.lines().collect();
    let papers = lines.len() - jobs.len();
    assert!(papers > 0 && !lines[..papers].iter().any(|l| l.contains("\"job\":\"curve\"")));
    for (line, planned) in lines[papers..].iter().zip(&jobs) {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["id"] = planned["id"].clone();
        assert_eq!(&v, planned, "the same curve jobs, numbered after the papers' ones");
    }

    // One curve run in a batch carries its search and a run per point; the rest are missing.
    let (code, one, err) = torus_with_input(&["run", "--batch"], cq_plan.lines().next().unwrap());
    assert_eq!(code, 0, "{err}");
    let result: serde_json::Value = serde_json::from_str(one.trim()).unwrap();
    let found = result["result"]["search"]["saturation_rate"].as_f64().unwrap();
    assert!(found > 0.0 && result["result"]["runs"].as_array().unwrap().len() == 3, "{result}");
    let dir = scratch("curves");
    let results = write(&dir.join("one.jsonl"), &[one.trim()]);
    let out = dir.join("out");
    let (code, _, err) = torus(&["validate", "--channel-queue", "--quick", "--out", out.to_str().unwrap(), "--collect", &results]);
    assert_eq!(code, 2);
    assert!(err.contains("missing 62 of 63 job results, ids 2-63"), "{err}");
    assert!(!out.exists(), "nothing written when jobs are missing");
    std::fs::remove_dir_all(&dir).unwrap();
}
