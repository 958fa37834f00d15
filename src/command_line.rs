//! What the command line reads besides its options: a scenario given as a quoted string, as
//! separate `key=value` arguments or as `@file`s, and the rates of a sweep. The `torus` binary
//! only hands its arguments over and prints what comes back.

/// The scenario string of a command's scenario arguments, in the order given. Each argument is
/// a scenario string (`key=value` pairs joined by `&`, or one pair alone) or `@path`: a file of
/// `key=value` lines, `#` starting a comment, read by `read_file`. A key given in a later
/// argument replaces the same key of an earlier one (`@base.txt rate=0.02` changes the rate
/// only); a key given twice within one argument is left for [`crate::Scenario::parse`] to refuse.
pub fn scenario_text(arguments: &[&str], read_file: impl Fn(&str) -> Result<String, String>) -> Result<String, String> {
    let mut pairs: Vec<(usize, String, String)> = Vec::new();
    for (index, argument) in arguments.iter().enumerate() {
        let text = match argument.strip_prefix('@') {
            Some(path) => file_pairs(&read_file(path).map_err(|e| format!("cannot read scenario file `{path}`: {e}"))?),
            None => argument.to_string(),
        };
        for pair in text.split('&').map(str::trim).filter(|p| !p.is_empty()) {
            let key = pair.split_once('=').map_or(pair, |(k, _)| k).trim().to_string();
            pairs.retain(|(earlier, k, _)| !(*earlier < index && *k == key));
            pairs.push((index, key, pair.to_string()));
        }
    }
    Ok(pairs.into_iter().map(|(_, _, pair)| pair).collect::<Vec<_>>().join("&"))
}

/// A scenario file's pairs joined by `&`: one `key=value` per line (or several joined by `&`),
/// blank lines and everything from a `#` to the end of its line ignored.
fn file_pairs(text: &str) -> String {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("&")
}

/// The most rates one `--rates` gives.
pub const MAX_RATES: usize = 1000;

/// `--rates`: `a:b:n` (n rates from a to b inclusive, evenly spaced) or a comma-separated list
/// (`0.01,0.02,0.05`), every rate in (0, 1] messages/node/cycle, at most [`MAX_RATES`] of them.
/// The rates of `a:b:n` are the decimals the user meant: each is rounded to the decimal places
/// of a, b and the step, so 0.005:0.035:7 gives 0.035, not 0.034999999999999996.
pub fn parse_rates(spec: &str) -> Result<Vec<f64>, String> {
    let bad = || {
        format!(
            "--rates must be a:b:n with 0 < a <= b <= 1 and n from 1 to {MAX_RATES}, or a list of rates in (0, 1] such as \
             0.01,0.02,0.05, got `{spec}`"
        )
    };
    let rate = |text: &str| text.trim().parse::<f64>().ok().filter(|r| *r > 0.0 && *r <= 1.0).ok_or_else(bad);
    if spec.contains(':') {
        let parts: Vec<&str> = spec.split(':').collect();
        let [a_text, b_text, n] = parts.as_slice() else { return Err(bad()) };
        let (a, b) = (rate(a_text)?, rate(b_text)?);
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if a > b || !(1..=MAX_RATES).contains(&n) {
            return Err(bad());
        }
        let grid = crate::experiment::rate_grid(a, b, n);
        let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
        let places = [decimal_places(a_text), decimal_places(b_text), step_places(step)];
        return Ok(match places.iter().copied().collect::<Option<Vec<_>>>() {
            Some(places) => {
                let places = places.into_iter().max().unwrap_or(0);
                grid.into_iter().map(|r| round_to(r, places)).collect()
            }
            None => grid,
        });
    }
    let rates = spec.split(',').map(rate).collect::<Result<Vec<_>, _>>()?;
    if rates.len() > MAX_RATES {
        return Err(bad());
    }
    Ok(rates)
}

/// Digits after the decimal point of a number as written, `None` in exponent form.
fn decimal_places(text: &str) -> Option<usize> {
    let text = text.trim();
    if text.contains(['e', 'E']) {
        return None;
    }
    Some(text.split_once('.').map_or(0, |(_, fraction)| fraction.len()))
}

/// The fewest decimal places (at most 12) that write `step` to within rounding noise, `None`
/// when none do (a step of a third).
fn step_places(step: f64) -> Option<usize> {
    (0..=12).find(|&places| (round_to(step, places) - step).abs() <= 1e-12 * step.abs().max(1e-12))
}

/// `x` rounded to `places` decimals: the double nearest that decimal, as if typed.
fn round_to(x: f64, places: usize) -> f64 {
    format!("{x:.places$}").parse().expect("a formatted number parses")
}

/// Checks, before the first simulation, that a report can be written into `dir`: a file is
/// written into it and removed, in folders created for the check and removed after it, so
/// that a run that fails later leaves nothing behind. One line saying why not.
pub fn check_output_dir(dir: &std::path::Path) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write into {}: {e}", dir.display());
    let created = dir.ancestors().take_while(|d| !d.as_os_str().is_empty() && !d.exists()).last().map(std::path::Path::to_path_buf);
    let probe = dir.join(format!(".torus-write-check-{}", std::process::id()));
    let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&probe, b"")).and_then(|()| std::fs::remove_file(&probe));
    if let Some(top) = created.filter(|top| top.exists()) {
        std::fs::remove_dir_all(top).map_err(cannot)?;
    }
    written.map_err(cannot)
}

/// Whether this process was started in the background of a terminal (`command &`), read from
/// `/proc/self/stat` on Linux; false where that cannot be told. A scenario typed without quotes
/// is cut by the shell at its first `&`, and the command then runs in the background with the
/// first pair only.
pub fn started_in_background() -> bool {
    std::fs::read_to_string("/proc/self/stat").is_ok_and(|stat| in_background(&stat))
}

/// Whether a `/proc/<pid>/stat` line is of a process with a controlling terminal whose
/// foreground process group is not its own.
fn in_background(stat: &str) -> bool {
    // The command name, in parentheses, may hold spaces: the fields are counted after it.
    let Some((_, after_name)) = stat.rsplit_once(')') else { return false };
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // After the name: state, ppid, pgrp, session, tty_nr, tpgid.
    let number = |i: usize| fields.get(i).and_then(|f| f.parse::<i64>().ok());
    match (number(2), number(4), number(5)) {
        (Some(group), Some(terminal), Some(foreground)) => terminal != 0 && foreground > 0 && foreground != group,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_files(path: &str) -> Result<String, String> {
        Err(format!("no file {path} here"))
    }

    #[test]
    fn separate_pairs_join_and_later_arguments_replace_earlier_keys() {
        assert_eq!(scenario_text(&["k=8", "routing=dor", "rate=0.01"], no_files).unwrap(), "k=8&routing=dor&rate=0.01");
        assert_eq!(scenario_text(&["k=8&rate=0.01", "rate=0.02"], no_files).unwrap(), "k=8&rate=0.02");
        // Twice within one argument stays twice, for the parser to refuse.
        assert_eq!(scenario_text(&["k=8&k=4"], no_files).unwrap(), "k=8&k=4");
        assert_eq!(scenario_text(&[], no_files).unwrap(), "");
    }

    #[test]
    fn a_file_gives_its_lines_without_comments() {
        let read = |path: &str| {
            assert_eq!(path, "base.txt");
            Ok("# the GOAL set-up\nk=8\n\nrouting=goal   # Singh et al.\n  len=16&vcs=4\nrate=0.01\n".to_string())
        };
        assert_eq!(scenario_text(&["@base.txt", "rate=0.02"], read).unwrap(), "k=8&routing=goal&len=16&vcs=4&rate=0.02");
        let err = scenario_text(&["@gone.txt"], no_files).unwrap_err();
        assert!(err.contains("gone.txt") && err.contains("no file"), "{err}");
    }

    #[test]
    fn rates_from_a_range_are_the_decimals_meant() {
        assert_eq!(parse_rates("0.005:0.035:7").unwrap(), [0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035]);
        assert_eq!(parse_rates("0.01:0.03:3").unwrap(), [0.01, 0.02, 0.03]);
        assert_eq!(parse_rates("0.1:0.1:1").unwrap(), [0.1]);
        // A step of a third has no decimals: the grid as computed.
        assert_eq!(parse_rates("0.01:0.02:4").unwrap(), crate::experiment::rate_grid(0.01, 0.02, 4));
        // The printed form is the typed one.
        let printed: Vec<String> = parse_rates("0.002:0.012:6").unwrap().iter().map(f64::to_string).collect();
        assert_eq!(printed, ["0.002", "0.004", "0.006", "0.008", "0.01", "0.012"]);
    }

    #[test]
    fn rates_as_a_list_and_bad_rates() {
        assert_eq!(parse_rates("0.01,0.02,0.05").unwrap(), [0.01, 0.02, 0.05]);
        assert_eq!(parse_rates("0.3").unwrap(), [0.3]);
        for bad in ["", "0.5:0.1:3", "0.1:0.2", "0.1:0.2:0", "0:0.1:2", "0.01,,0.02", "0.01,x", "1.5", "-0.1", "0.1:0.2:1001"] {
            let err = parse_rates(bad).unwrap_err();
            assert!(err.contains(&format!("`{bad}`")), "{bad}: {err}");
        }
    }

    #[test]
    fn an_output_folder_is_checked_and_nothing_left_behind() {
        let top = std::env::temp_dir().join(format!("torus-out-check-{}", std::process::id()));
        check_output_dir(&top.join("deeper")).unwrap();
        assert!(!top.exists(), "the folders made for the check are gone");
        std::fs::create_dir(&top).unwrap();
        check_output_dir(&top).unwrap();
        assert!(top.is_dir() && std::fs::read_dir(&top).unwrap().next().is_none(), "an existing folder stays, empty");
        std::fs::remove_dir_all(&top).unwrap();
        let err = check_output_dir(std::path::Path::new("/proc/nope")).unwrap_err();
        assert!(err.starts_with("cannot write into /proc/nope: ") && !err.contains('\n'), "{err}");
    }

    #[test]
    fn background_from_the_stat_line() {
        // pid (name) state ppid pgrp session tty_nr tpgid ...
        assert!(in_background("4242 (torus) R 100 4242 100 34816 100 4194304 0"));
        assert!(!in_background("4242 (torus) R 100 4242 100 34816 4242 4194304 0"));
        // No terminal (a script, a batch job).
        assert!(!in_background("4242 (torus) R 100 4242 100 0 -1 4194304 0"));
        // A name with spaces and parentheses.
        assert!(in_background("4242 (my (odd) tool) R 100 4242 100 34816 100 0"));
        assert!(!in_background("garbage"));
    }
}
