//! Dependencies between the library's modules run one way: topology, traffic and the scenario at
//! the bottom; the analytical models and the simulator above them, neither using the other; the
//! many-run machinery (`experiment`) above those; the experiment suites and the validation report
//! above it; the benchmarks and the wasm bindings at the top. A module may use its own layer's
//! modules only where no cycle forms.
//!
//! Read from the source: every `crate::<module>` a file names (in `use` lines, paths and doc
//! links alike), with `super::` resolved inside the module's own folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and its layer, lowest first.
const LAYERS: &[(&str, u32)] = &[
    ("rng", 0),
    ("topology", 0),
    ("scenario", 0),
    ("routing", 0),
    ("support", 0),
    ("traffic", 0),
    ("broadcast", 0),
    ("faults", 0),
    ("svg", 0),
    ("models", 1),
    ("sim", 1),
    ("experiment", 2),
    ("seed004", 3),
    ("validation", 3),
    ("command_line", 3),
    ("output", 3),
    ("bench", 4),
    ("wasm", 4),
];

fn layer(module: &str) -> u32 {
    LAYERS.iter().find(|(m, _)| *m == module).unwrap_or_else(|| panic!("module `{module}` has no layer in tests/layers.rs")).1
}

/// The top-level module a source file belongs to (`src/models/bounds.rs` → `models`).
fn owner(path: &Path) -> Option<String> {
    let relative = path.strip_prefix("src").ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.trim_end_matches(".rs");
    (!["lib", "bin", "main"].contains(&name)).then(|| name.to_string())
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Which modules each module uses: (user, used) → a file where it does.
fn uses() -> BTreeMap<(String, String), String> {
    let mut all = Vec::new();
    files(Path::new("src"), &mut all);
    let mut edges = BTreeMap::new();
    for path in all {
        let Some(from) = owner(&path) else { continue };
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices("crate::") {
            let before = text[..i].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let to: String = text[i + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if LAYERS.iter().any(|(m, _)| *m == to) && to != from {
                edges.entry((from.clone(), to)).or_insert_with(|| path.display().to_string());
            }
        }
    }
    edges
}

#[test]
fn dependencies_run_one_way() {
    let edges = uses();
    assert!(edges.contains_key(&("validation".to_string(), "experiment".to_string())), "the scan sees `use crate::…`");
    let mut wrong = Vec::new();
    for ((from, to), file) in &edges {
        if layer(to) > layer(from) {
            wrong.push(format!("{file}: `{from}` (layer {}) uses `{to}` (layer {})", layer(from), layer(to)));
        }
    }
    assert!(wrong.is_empty(), "a module uses a module above it:\n{}", wrong.join("\n"));
}

#[test]
fn no_two_modules_use_each_other() {
    let edges = uses();
    let pairs: BTreeSet<String> = edges
        .keys()
        .filter(|(from, to)| from < to && edges.contains_key(&(to.clone(), from.clone())))
        .map(|(from, to)| format!("`{from}` and `{to}` ({} and {})", edges[&(from.clone(), to.clone())], edges[&(to.clone(), from.clone())]))
        .collect();
    let allowed = ["`routing` and `scenario`"];
    let cycles: Vec<&String> = pairs.iter().filter(|p| !allowed.iter().any(|a| p.starts_with(a))).collect();
    assert!(cycles.is_empty(), "modules that use each other: {cycles:?}");
    for (models, sim) in [("models", "sim"), ("sim", "models")] {
        assert!(!edges.contains_key(&(models.to_string(), sim.to_string())), "`{models}` uses `{sim}`: the models and the simulator stand side by side");
    }
}
