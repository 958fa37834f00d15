//! Bytes, read as lossy UTF-8 the way a pasted link is, through `Scenario::parse` and, when
//! accepted, `Simulation::new` (no cycles are run): the properties of
//! tests/support/scenario_properties.rs, shared with the deterministic fuzzer.

#![no_main]

#[path = "../../tests/support/scenario_properties.rs"]
mod properties;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    if let Some(scenario) = properties::check_parse(&input) {
        properties::check_setup(&input, &scenario);
    }
});
