//! The project's text stands alone: nothing in it points outside the repository, every relative
//! Markdown link leads to a file that exists, and every citation of a repository file, with or
//! without a section number, names a file (and a section) that exists.
//!
//! Four rules, applied to every text file of the scanned folders and files:
//! - **Outside paths:** absolute paths into the machine the project was built on, and the
//!   specifications and papers that lived beside the repository rather than in it.
//! - **Markdown links** (in `.md` files): a relative target must exist and stay inside the
//!   repository; web addresses and in-page anchors are not checked.
//! - **Repository paths** written out in text (a token starting `docs/`, `src/`, `tests/`,
//!   `scripts/` or `examples/` and ending in a file extension) must exist.
//! - **Section citations** (a Markdown page's name followed by § and a section number): the page
//!   must exist, relative to the citing file or to the repository root, and hold a heading with
//!   that number.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// What the check scans, relative to the repository root.
const SCANNED: &[&str] = &[
    "src", "tests", "www", "docs", "scripts", "examples", "fuzz", ".ci", "README.md", "Makefile", "Cargo.toml",
    "package.json",
];
/// Generated or vendored folders inside the scanned ones, never part of the repository.
const SKIPPED: &[&str] = &["www/pkg", "www/vendor", "fuzz/target", "fuzz/corpus", "fuzz/artifacts", "fuzz/coverage"];

/// Text that points outside the repository, with what it is. Spelled in pieces so that this
/// file does not match itself.
fn outside_markers() -> Vec<(String, &'static str)> {
    vec![
        (concat!("/wo", "rk/").to_string(), "an absolute path on the build machine"),
        (concat!("/ho", "me/").to_string(), "an absolute path on the build machine"),
        (concat!("shared", "/models").to_string(), "the model specifications outside the repository"),
        (concat!("shared", "/seeds").to_string(), "the seed papers outside the repository"),
        (concat!("shared", "/spec").to_string(), "the product specification outside the repository"),
        (concat!("../", "shared").to_string(), "a folder beside the repository"),
        (concat!("seeds", "/0").to_string(), "the seed papers' text, which the repository does not hold"),
        (concat!("spec", " §").to_string(), "a section of a specification the repository does not hold"),
    ]
}

/// The repository as the check sees it: which files exist and what the Markdown ones say.
trait Repository {
    /// The text of `path` (relative to the root, normalised), or `None` when no such file.
    fn text(&self, path: &Path) -> Option<String>;
    fn is_dir(&self, path: &Path) -> bool;
}

struct OnDisk(PathBuf);

impl Repository for OnDisk {
    fn text(&self, path: &Path) -> Option<String> {
        let full = self.0.join(path);
        if !full.is_file() {
            return None;
        }
        Some(std::fs::read_to_string(&full).unwrap_or_default())
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.0.join(path).is_dir()
    }
}

/// `path` with `.` and `..` resolved, or `None` when it climbs above the root.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')
}

/// Every maximal run of path characters in `line`, with its byte offset, trailing dots (the end
/// of a sentence) left off.
fn path_tokens(line: &str) -> Vec<(usize, &str)> {
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain(std::iter::once((line.len(), ' '))) {
        match (start, is_path_char(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let token = line[s..i].trim_end_matches('.');
                if !token.is_empty() {
                    tokens.push((s, token));
                }
                start = None;
            }
            _ => {}
        }
    }
    tokens
}

/// The section number right after a token ending at `end`: a § after optional backticks and
/// spaces, then digits and dots.
fn section_after(line: &str, end: usize) -> Option<&str> {
    let rest = line[end..].trim_start_matches('`').trim_start();
    let number = rest.strip_prefix('§')?.trim_start();
    let length = number.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(number.len());
    let number = number[..length].trim_end_matches('.');
    (!number.is_empty()).then_some(number)
}

/// Whether Markdown `text` has a heading numbered `section` ("## 4. …" or "### 4.3 …").
fn has_section(text: &str, section: &str) -> bool {
    text.lines().any(|line| {
        let heading = line.trim_start_matches('#');
        heading.len() < line.len()
            && heading.trim_start().strip_prefix(section).is_some_and(|rest| rest.starts_with(". ") || rest.starts_with(' '))
    })
}

/// The targets of the Markdown links `[text](target)` on `line`.
fn link_targets(line: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].split_whitespace().next().unwrap_or(""));
        rest = &after[end..];
    }
    targets
}

/// Every problem in `text`, the file at `path` (relative to the root), one line each.
fn problems(repository: &dyn Repository, path: &Path, text: &str) -> Vec<String> {
    let here = path.parent().unwrap_or(Path::new(""));
    let markdown = path.extension().is_some_and(|e| e == "md");
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), number + 1);
        for (marker, what) in outside_markers() {
            if line.contains(&marker) {
                found.push(format!("{at}: `{marker}` points at {what}"));
            }
        }
        if markdown {
            for target in link_targets(line) {
                if target.is_empty() || target.starts_with('#') || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let file = target.split(['#', '?']).next().unwrap_or(target);
                match normalise(&here.join(file)) {
                    None => found.push(format!("{at}: link `{target}` leads outside the repository")),
                    Some(resolved) if repository.text(&resolved).is_none() && !repository.is_dir(&resolved) => {
                        found.push(format!("{at}: link `{target}` leads to {}, which does not exist", resolved.display()))
                    }
                    Some(_) => {}
                }
            }
        }
        for (start, token) in path_tokens(line) {
            let cites_repository = ["docs/", "src/", "tests/", "scripts/", "examples/"].iter().any(|p| token.starts_with(p))
                && Path::new(token).extension().is_some();
            if cites_repository && repository.text(Path::new(token)).is_none() {
                found.push(format!("{at}: `{token}` does not exist in the repository"));
            }
            if let Some(section) = token.ends_with(".md").then(|| section_after(line, start + token.len())).flatten() {
                let cited = [here.join(token), PathBuf::from(token)]
                    .iter()
                    .filter_map(|candidate| normalise(candidate))
                    .find_map(|candidate| repository.text(&candidate).map(|text| (candidate, text)));
                match cited {
                    None => found.push(format!(
                        "{at}: `{token}` §{section} cites a page the repository does not have (write its path from the root, \
                         e.g. docs/models/…)"
                    )),
                    Some((file, text)) if !has_section(&text, section) => {
                        found.push(format!("{at}: {} has no section {section}", file.display()))
                    }
                    Some(_) => {}
                }
            }
        }
    }
    found
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every scanned file, relative to the root.
fn scanned_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending: Vec<PathBuf> = SCANNED.iter().map(PathBuf::from).collect();
    while let Some(relative) = pending.pop() {
        if SKIPPED.iter().any(|s| relative == Path::new(s)) || relative.ends_with("node_modules") {
            continue;
        }
        let full = root.join(&relative);
        if full.is_dir() {
            for entry in std::fs::read_dir(&full).expect("readable folder") {
                pending.push(relative.join(entry.expect("readable entry").file_name()));
            }
        } else if full.is_file() {
            files.push(relative);
        }
    }
    files.sort();
    files
}

#[test]
fn nothing_points_outside_the_repository_and_every_link_resolves() {
    let root = root();
    let repository = OnDisk(root.clone());
    let mut all = Vec::new();
    let mut read = 0;
    for path in scanned_files(&root) {
        // Binary files (screenshots) are not text and cite nothing.
        let Ok(text) = std::fs::read_to_string(root.join(&path)) else { continue };
        read += 1;
        all.extend(problems(&repository, &path, &text));
    }
    assert!(read > 100, "only {read} text files found under {}", root.display());
    assert!(all.is_empty(), "{} problem(s):\n{}", all.len(), all.join("\n"));
}

#[test]
fn the_validation_report_cites_the_model_pages_its_generator_writes() {
    // docs/validation.md is generated by `torus validate`; its model lines were last edited by
    // hand (a rerun takes most of an hour), so check they are exactly what the generator prints.
    let report = std::fs::read_to_string(root().join("docs/validation.md")).expect("docs/validation.md");
    for seed in torus_explorer::validation::SEEDS.iter() {
        let line = torus_explorer::validation::model_page_line(seed);
        assert!(report.lines().any(|l| l == line), "docs/validation.md lacks the line\n{line}");
        assert!(root().join("docs/models").join(seed.spec).is_file(), "no page docs/models/{}", seed.spec);
    }
}

/// A made-up repository for the check's own tests.
struct Fake(HashMap<PathBuf, String>);

impl Repository for Fake {
    fn text(&self, path: &Path) -> Option<String> {
        self.0.get(path).cloned()
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.0.keys().any(|file| file.starts_with(path) && file != path)
    }
}

fn fake() -> Fake {
    let page = "# A model\n\n## 4. Solving\n\n### 4.3 Ideal balance\n\n## 7. Reference values\n";
    Fake(HashMap::from([
        (PathBuf::from("docs/models/bounds.md"), page.to_string()),
        (PathBuf::from("docs/models/README.md"), "[bounds](bounds.md)\n".to_string()),
        (PathBuf::from("src/models/bounds.rs"), String::new()),
    ]))
}

fn check(path: &str, text: &str) -> Vec<String> {
    problems(&fake(), Path::new(path), text)
}

#[test]
fn the_check_passes_text_that_stays_inside() {
    let code = concat!(
        "//! As described in `docs/models/bounds.md` §4.3 and docs/models/bounds.md §7.\n",
        "// See src/models/bounds.rs; seed 004 §5.5 is the paper's section; DIR/validation.md is written.\n",
    );
    assert_eq!(check("src/routing/goal.rs", code), Vec::<String>::new());
    let page = concat!(
        "[the bounds](bounds.md), [its §4](bounds.md#4-solving), [up](../models/bounds.md), ",
        "[code](../../src/models/bounds.rs), [web](https://example.org/x.md), [here](#top)\n",
        concat!("[bounds.md ", "§4.3](bounds.md) and `docs/models/bounds.md` §4.\n"),
    );
    assert_eq!(check("docs/models/README.md", page), Vec::<String>::new());
}

#[test]
fn the_check_fails_on_paths_outside_the_repository() {
    for text in [
        concat!("Model specification: `", "shared", "/models/nbc.md`."),
        concat!("Source: `../seeds", "/0", "00_f643a689a85a7cbb.txt`"),
        concat!("see /wo", "rk/shared/toolchain.md"),
        concat!("as in the product spec", " §5"),
    ] {
        let found = check("src/models/nbc.rs", text);
        assert!(found.iter().any(|p| p.contains("points at")), "{text:?} passed: {found:?}");
    }
    let found = check("docs/models/README.md", concat!("[up](../../../", "elsewhere.md)"));
    assert!(found.iter().any(|p| p.contains("leads outside the repository")), "{found:?}");
}

#[test]
fn the_check_fails_on_links_and_citations_to_files_that_do_not_exist() {
    let found = check("docs/models/README.md", "[gone](channel-queue.md) and [deeper](../experiments/gone.md)");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|p| p.contains("does not exist")), "{found:?}");
    // A bare page name that resolves neither beside the citing file nor from the root: the
    // old habit of citing the specifications outside the repository.
    let found = check("src/routing/rlb.rs", concat!("// bounds.md ", "§4.1: 336 hops"));
    assert!(found.iter().any(|p| p.contains("cites a page the repository does not have")), "{found:?}");
    let found = check("src/models/nbc.rs", concat!("//! see `docs/models/", "nbc.md` for the readings"));
    assert!(found.iter().any(|p| p.contains("does not exist in the repository")), "{found:?}");
}

#[test]
fn the_check_fails_on_a_section_the_page_does_not_have() {
    let found = check("src/models/bounds.rs", concat!("// `docs/models/bounds.md` ", "§4.4 and §8"));
    assert_eq!(found, [concat!("src/models/bounds.rs:1: docs/models/bounds", ".md has no section 4.4")]);
    let found = check("docs/models/README.md", concat!("[bounds.md ", "§9](bounds.md)"));
    assert!(found.iter().any(|p| p.contains("has no section 9")), "{found:?}");
}

/// What the `torus` command prints, as a user reads it.
fn torus(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_torus")).args(args).output().expect("torus runs");
    assert!(out.status.success(), "torus {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn the_command_line_output_points_nowhere_outside_the_repository() {
    // Its help texts, and what `torus model` says of every model and bound: the descriptions,
    // notes and reasons are built as the program runs, so the source alone does not show them.
    let mut texts = vec![("torus help".to_string(), torus(&["help"]))];
    for command in ["run", "sweep", "saturation", "model", "bench", "validate", "experiment", "coverage", "help"] {
        texts.push((format!("torus help {command}"), torus(&["help", command])));
    }
    for routing in torus_explorer::RoutingKind::ALL {
        for traffic in ["uniform", "tornado"] {
            let scenario = format!("routing={}&traffic={traffic}&rate=0.002&unsafe=1", routing.name());
            if torus_explorer::Scenario::parse(&scenario).is_ok() {
                texts.push((format!("torus model {scenario}"), torus(&["model", &scenario])));
            }
        }
    }
    for scenario in ["routing=duato&switching=scouting&scout=2&len=16", "routing=duato&beta=0.05", "routing=nbc", "routing=adaptive&vcs=4"] {
        texts.push((format!("torus model {scenario}"), torus(&["model", scenario])));
    }
    let repository = OnDisk(root());
    let all: Vec<String> = texts
        .iter()
        .flat_map(|(command, text)| problems(&repository, Path::new("torus-output"), text).into_iter().map(move |p| format!("{command}: {p}")))
        .collect();
    assert!(texts.len() > 20, "{} outputs", texts.len());
    assert!(all.is_empty(), "{} problem(s):\n{}", all.len(), all.join("\n"));
}

#[test]
fn the_output_check_fails_on_a_path_outside_the_repository() {
    // The same check as above, on output that cites what the repository does not hold.
    for text in [
        concat!("{\"note\":\"see bounds.md ", "§4.1 for the loads\"}"),
        concat!("{\"description\":\"as in shared", "/models/nbc.md\"}"),
    ] {
        let found = problems(&fake(), Path::new("torus-output"), text);
        assert!(!found.is_empty(), "{text} passed");
    }
}
