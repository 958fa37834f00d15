//! The properties every scenario string must have, shared by the deterministic fuzzer
//! (`tests/fuzz_scenario.rs`) and the cargo-fuzz target (`fuzz/fuzz_targets/scenario.rs`).
//! Each check panics with the offending input when a property fails.

use torus_explorer::scenario::{ScenarioError, FLIT_RATE_KEY, KEYS};
use torus_explorer::sim::Simulation;
use torus_explorer::Scenario;

/// Longest error line accepted: the parser shows at most 40 characters of each piece of user
/// text (up to 10 each once escaped, `\u{10ffff}`), at most twice, beside a fixed message.
const MAX_ERROR_CHARS: usize = 1000;

/// A rejected input's error is one line of bounded length that names a scenario key, the
/// user's own (unknown) key, or no key at all for whole-string problems, as `key: message`.
pub fn check_error(input: &str, e: &ScenarioError) {
    let line = e.to_string();
    assert!(!line.contains(['\n', '\r']), "error for {input:?} is not one line: {line:?}");
    assert!(line.chars().count() <= MAX_ERROR_CHARS, "error for {input:?} is {} chars long: {line:?}", line.chars().count());
    assert!(!e.message.is_empty(), "empty error message for {input:?}");
    if !e.key.is_empty() {
        assert!(line.starts_with(&format!("{}: ", e.key)), "error for {input:?} does not start with its key: {line:?}");
        let known = KEYS.contains(&e.key.as_str()) || e.key == FLIT_RATE_KEY;
        assert!(known || e.message.contains("key"), "error for {input:?} names neither a scenario key nor the user's: {line:?}");
    }
}

/// Parses `input`: an accepted scenario's canonical string parses back to the same scenario
/// and is a fixed point; a rejected one gets a well-formed error.
pub fn check_parse(input: &str) -> Option<Scenario> {
    match Scenario::parse(input) {
        Ok(s) => {
            let canonical = s.canonical();
            let again = Scenario::parse(&canonical).unwrap_or_else(|e| panic!("{input:?}: canonical {canonical:?} is rejected: {e}"));
            assert_eq!(again, s, "{input:?}: canonical {canonical:?} parses to another scenario");
            assert_eq!(again.canonical(), canonical, "{input:?}: canonical form is not a fixed point");
            Some(s)
        }
        Err(e) => {
            check_error(input, &e);
            None
        }
    }
}

/// Builds the simulator for an accepted scenario without running a cycle: it either builds or
/// refuses with a well-formed error (a feature not implemented yet).
pub fn check_setup(input: &str, s: &Scenario) -> bool {
    match Simulation::new(s) {
        Ok(_) => true,
        Err(e) => {
            check_error(input, &e);
            false
        }
    }
}
