//! The torus explorer: a cycle-accurate, flit-level simulator of wormhole-switched k-ary n-cube
//! torus networks, and the analytical latency models of the papers it comes from.
//!
//! Data flows one way: a scenario string is parsed into a [`Scenario`], which builds a
//! [`sim::Simulation`] (stepped cycle by cycle into [`sim::stats`]) and is also the only input
//! of the analytical [`models`].
//!
//! Modules depend on each other one way (checked by `tests/layers.rs`): [`topology`],
//! [`traffic`] and [`scenario`] at the bottom; [`models`] and [`sim`] above them, side by side;
//! [`experiment`] (many runs: sweeps, replications, saturation searches, jobs) above those;
//! the experiment suites [`seed004`] and [`validation`] and what the command line reads
//! ([`command_line`]) and prints ([`output`]) above it; [`bench`] and the wasm
//! bindings at the top.

pub mod bench;
pub mod broadcast;
pub mod command_line;
pub mod experiment;
pub mod faults;
pub mod models;
pub mod output;
pub mod rng;
pub mod routing;
pub mod scenario;
pub mod seed004;
pub mod sim;
pub mod support;
pub mod svg;
pub mod topology;
pub mod traffic;
pub mod validation;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use scenario::{RoutingKind, Scenario, ScenarioError, Switching, TrafficKind};
