//! Stamps the build with a hash of the sources a job's result can depend on: every file under
//! `src/` but those that only plan jobs or report on their results ([`PLANNING_ONLY`]), and
//! `Cargo.lock` (the generator's crate, serde's number printing). `--results FILE` reuses a
//! stored result only when its stamp is this build's, so a changed model or report is rebuilt
//! from stored simulations while a changed simulator runs them again. A job line holds all it
//! needs, so a change to what a command plans gives other jobs, never a stale match. Hashing too
//! much only costs a rerun; hashing too little would reuse a stale result.

use std::path::{Path, PathBuf};

/// Sources no job runs: the analytical models and the pages set against them, the CLI and the
/// wasm bindings (a job runs in the library), the benchmarks, the plots and seed 004's
/// experiment definitions.
const PLANNING_ONLY: &[&str] =
    &["src/models", "src/validation", "src/bin", "src/wasm.rs", "src/bench.rs", "src/svg.rs", "src/seed004"];

/// FNV-1a, 64 bits: stable across Rust versions and machines, unlike `DefaultHasher`.
fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("src entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let relative = path
            .strip_prefix(root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        if PLANNING_ONLY.iter().any(|skip| relative == *skip || relative.starts_with(&format!("{skip}/")) || relative.starts_with(&format!("{skip}."))) {
            continue;
        }
        if path.is_dir() {
            sources(&path, root, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &root, &mut files);
    files.push(root.join("Cargo.lock"));
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        fnv1a(&mut hash, relative.as_bytes());
        fnv1a(&mut hash, &[0]);
        fnv1a(&mut hash, &std::fs::read(file).unwrap_or_default());
        fnv1a(&mut hash, &[0]);
    }
    println!("cargo:rustc-env=TORUS_SIMULATOR_SOURCES={hash:016x}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.lock");
}
