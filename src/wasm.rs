//! The WebAssembly boundary: thin `#[wasm_bindgen]` wrappers over the scenario parser and the
//! simulator. No logic lives here. Structured results cross as JSON text produced by the same
//! serde code as the CLI, so the page and `torus run` agree field for field; per-cycle state
//! crosses as pointers into wasm memory that the page reads through typed-array views.

use crate::broadcast;
use crate::models::{self, channel_queue::routes};
use crate::output;
use crate::rng::{self, Samplers};
use crate::scenario::{limits, RouterOrganisation, RoutingKind, Scenario, Switching, TrafficKind, KEYS};
use crate::sim::{self, Simulation, VcSnapshot};
use serde::Serialize;
use wasm_bindgen::prelude::*;

fn parse(input: &str) -> Result<Scenario, JsError> {
    Scenario::parse(input).map_err(|e| JsError::new(&e.to_string()))
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("statistics serialise to JSON")
}

/// The canonical form of a scenario string, or an error naming the offending key.
#[wasm_bindgen]
pub fn canonical(input: &str) -> Result<String, JsError> {
    Ok(parse(input)?.canonical())
}

/// The default scenario, canonical.
/// A fresh seed from the browser's entropy (getrandom's `crypto.getRandomValues` backend), as
/// decimal text: the page's New seed, by the code `seed=random` runs in the CLI.
#[wasm_bindgen]
pub fn fresh_seed() -> Result<String, JsError> {
    rng::fresh_seed().map(|seed| seed.to_string()).map_err(|e| JsError::new(&e))
}

#[wasm_bindgen]
pub fn default_scenario() -> String {
    Scenario::default().canonical()
}

#[derive(Serialize)]
struct Schema {
    keys: &'static [&'static str],
    routing: Vec<&'static str>,
    switching: Vec<&'static str>,
    traffic: Vec<&'static str>,
    /// The router organisations offered by name (any other combination a link names is valid).
    router: Vec<String>,
    /// The generations of the samplers (`rng=`).
    rng: Vec<String>,
    k: (u32, u32),
    n: (u32, u32),
    len: (u32, u32),
    vcs: (u32, u32),
    buf: (u32, u32),
    scout: (u32, u32),
    mq: (u32, u32),
    qcap: (u32, u32),
    misroute: (u32, u32),
    warmup: (u64, u64),
    cycles: (u64, u64),
    /// `rdelay`, `ldelay` and `cdelay`.
    delay: (u32, u32),
}

/// The scenario keys in canonical order, the names each enumerated key accepts and the integer
/// ranges, as JSON, so the page's controls follow the parser.
#[wasm_bindgen]
pub fn scenario_schema() -> String {
    json(&Schema {
        keys: KEYS,
        routing: RoutingKind::ALL.iter().map(|r| r.name()).collect(),
        switching: Switching::ALL.iter().map(|s| s.name()).collect(),
        traffic: TrafficKind::ALL.iter().map(|t| t.name()).collect(),
        router: RouterOrganisation::OFFERED.iter().map(|r| r.name()).collect(),
        rng: [Samplers::Inversion, Samplers::RandDistr].iter().map(|v| v.to_string()).collect(),
        k: limits::K,
        n: limits::N,
        len: limits::LEN,
        vcs: limits::VCS,
        buf: limits::BUF,
        scout: limits::SCOUT,
        mq: limits::MQ,
        qcap: limits::QCAP,
        misroute: limits::MISROUTE,
        warmup: limits::WARMUP,
        cycles: limits::CYCLES,
        delay: limits::DELAY,
    })
}

/// Capacity of the scenario's torus under uniform traffic, flits/node/cycle.
#[wasm_bindgen]
pub fn capacity_flits(input: &str) -> Result<f64, JsError> {
    Ok(parse(input)?.capacity_flits())
}

/// Runs a scenario exactly as `torus run` does (warm-up, measurement, drain) and returns the
/// record `torus run` prints, as JSON.
#[wasm_bindgen]
pub fn run(input: &str) -> Result<String, JsError> {
    let s = parse(input)?;
    let report = sim::run(&s).map_err(|e| JsError::new(&e.to_string()))?;
    Ok(output::Record::of_run(&report, &s).json())
}

/// What `torus model` reports for the scenario (applicable model or why none, latency,
/// intermediate quantities, saturation rate, channel-load bound), as JSON.
#[wasm_bindgen]
pub fn model(input: &str) -> Result<String, JsError> {
    Ok(json(&models::report(&parse(input)?)))
}

/// `model` with route graphs of up to 2.5 million states, as `torus model` builds them: seconds
/// to a minute on a 16 × 16 torus, so the page asks for it after its load sweep, where `model`'s
/// `channel_queue.past_page_budget` says the page's first budget was not enough.
#[wasm_bindgen]
pub fn model_full(input: &str) -> Result<String, JsError> {
    routes::with_full_state_budget(|| model(input))
}

/// `channel_queue_curve` with route graphs of up to 2.5 million states (see `model_full`).
#[wasm_bindgen]
pub fn channel_queue_curve_full(input: &str, rates: Vec<f64>) -> Result<String, JsError> {
    routes::with_full_state_budget(|| channel_queue_curve(input, rates))
}

/// The applicable model's latency at each rate (`null` where saturated or where no model
/// applies), as a JSON array.
#[wasm_bindgen]
pub fn model_curve(input: &str, rates: Vec<f64>) -> Result<String, JsError> {
    Ok(json(&models::curve(&parse(input)?, &rates)))
}

/// The channel-queue model's latency at each rate, also where a paper's model applies (`null`
/// where saturated or where the model does not apply), as a JSON array. Where no paper's model
/// applies it is `model_curve`'s.
#[wasm_bindgen]
pub fn channel_queue_curve(input: &str, rates: Vec<f64>) -> Result<String, JsError> {
    Ok(json(&models::channel_queue_curve(&parse(input)?, &rates)))
}

/// The channel-queue model's flits/cycle on every channel at the scenario's rate, in the order
/// of `Explorer.channel_flits` (empty where the model does not apply; past saturation, the
/// offered load).
#[wasm_bindgen]
pub fn predicted_channel_utilisation(input: &str) -> Result<Vec<f64>, JsError> {
    Ok(models::channel_queue::predicted_utilisation(&parse(input)?))
}

/// A simulation the page steps and draws.
#[wasm_bindgen]
pub struct Explorer {
    sim: Simulation,
    /// The network VCs' state as of the last step, which the page reads in place.
    vcs: VcSnapshot,
}

#[wasm_bindgen]
impl Explorer {
    #[wasm_bindgen(constructor)]
    pub fn new(input: &str) -> Result<Explorer, JsError> {
        let s = parse(input)?;
        let sim = Simulation::new(&s).map_err(|e| JsError::new(&e.to_string()))?;
        let vcs = sim.vc_snapshot();
        Ok(Explorer { sim, vcs })
    }

    /// The simulation's state, for [`Explorer::restore`] in this page or one of its workers.
    pub fn save_state(&self) -> Vec<u8> {
        self.sim.save()
    }

    /// The simulation `save_state` wrote, going on from where it was saved.
    pub fn restore(state: &[u8]) -> Result<Explorer, JsError> {
        let sim = Simulation::restore(state).map_err(|e| JsError::new(&e.to_string()))?;
        let vcs = sim.vc_snapshot();
        Ok(Explorer { sim, vcs })
    }

    /// Advances `cycles` cycles.
    pub fn step(&mut self, cycles: u32) {
        for _ in 0..cycles {
            self.sim.step();
        }
        self.sim.snapshot_vcs(&mut self.vcs);
    }

    /// Cycles simulated so far (exact below 2^53).
    pub fn cycle(&self) -> f64 {
        self.sim.cycle() as f64
    }

    pub fn k(&self) -> u32 {
        self.sim.torus().k
    }

    pub fn n(&self) -> u32 {
        self.sim.torus().n
    }

    pub fn vcs(&self) -> u32 {
        self.sim.vcs()
    }

    /// Entries in each per-VC array: channels × VCs, indexed `channel * vcs + vc`.
    pub fn vc_count(&self) -> usize {
        self.vcs.flits.len()
    }

    /// Address of the flits-buffered-per-VC array (`u16` each).
    pub fn vc_flits_ptr(&self) -> *const u16 {
        self.vcs.flits.as_ptr()
    }

    /// Address of the owning-message-per-VC array (`u32` each, `u32::MAX` when free).
    pub fn vc_owner_ptr(&self) -> *const u32 {
        self.vcs.owner.as_ptr()
    }

    /// Address of the blocked-header-per-VC array (`u8` each).
    pub fn vc_blocked_ptr(&self) -> *const u8 {
        self.vcs.blocked.as_ptr()
    }

    /// Copies of the per-VC arrays and the channel counters, for a page that cannot read this
    /// module's memory (fast mode runs in a worker and posts them).
    pub fn vc_flits(&self) -> Vec<u16> {
        self.vcs.flits.clone()
    }

    pub fn vc_owner(&self) -> Vec<u32> {
        self.vcs.owner.clone()
    }

    pub fn vc_blocked(&self) -> Vec<u8> {
        self.vcs.blocked.clone()
    }

    pub fn channel_flits(&self) -> Vec<u32> {
        self.sim.channel_flits_total().to_vec()
    }

    /// Flit-hops moved over network channels so far (the unit of `torus bench`).
    pub fn flit_hops(&self) -> f64 {
        self.sim.flit_hops() as f64
    }

    /// Live statistics as JSON.
    pub fn live_stats(&self) -> String {
        json(&self.sim.live_stats())
    }

    /// Channels: per-channel arrays have this many entries, indexed `node · 4 + port`.
    pub fn channel_count(&self) -> usize {
        self.sim.channel_flits_total().len()
    }

    /// Address of the flits-carried-per-channel counters since the start (`u32` each, wrapping).
    pub fn channel_flits_ptr(&self) -> *const u32 {
        self.sim.channel_flits_total().as_ptr()
    }

    /// One cycle of the wait-for graph as JSON `{"vcs": [...], "channels": [...]}`, in waiting
    /// order; empty lists when nothing waits in a cycle.
    pub fn deadlock_cycle(&self) -> String {
        json(&self.sim.deadlock_cycle())
    }

    /// What each VC index is for under the routing algorithm, as a JSON array of
    /// `{"name", "escape", "after_dateline"}`.
    pub fn vc_classes(&self) -> String {
        json(&self.sim.vc_classes())
    }

    /// Scouting backtracks so far.
    pub fn backtracks(&self) -> f64 {
        self.sim.backtracks() as f64
    }

    /// The most recent backtracks, oldest first, flattened as (cycle, network VC released) pairs.
    pub fn recent_backtracks(&self) -> Vec<f64> {
        self.sim.recent_backtracks().flat_map(|(cycle, vc)| [cycle as f64, vc as f64]).collect()
    }

    /// Chaos deflections so far.
    pub fn misroutes(&self) -> f64 {
        self.sim.misroutes() as f64
    }

    /// The most recent chaos deflections, oldest first, flattened as (cycle, network VC entered)
    /// pairs.
    pub fn recent_deflections(&self) -> Vec<f64> {
        self.sim.recent_deflections().flat_map(|(cycle, vc)| [cycle as f64, vc as f64]).collect()
    }

    /// Whose flits each network VC holds, three words per VC (see `Simulation::worm_runs`).
    pub fn worm_runs(&self) -> Vec<u32> {
        self.sim.worm_runs()
    }

    /// Each node's injection VC: the message being injected and its flits still at the source.
    pub fn source_flits(&self) -> Vec<u32> {
        self.sim.source_flits()
    }

    /// `routing=chaos`: each node's shared-queue slots, the packet and its flits.
    pub fn shared_queue_slots(&self) -> Vec<u32> {
        self.sim.shared_queue_slots()
    }

    /// Scouting switching: each message's header, data and acknowledged channel counts.
    pub fn scouting_probes(&self) -> Vec<u32> {
        self.sim.scouting_probes()
    }

    /// Scouting switching: the acknowledgements on their way back to the data.
    pub fn acknowledgements(&self) -> Vec<u32> {
        self.sim.acknowledgements()
    }

    /// The failed channels (`node · 2n + port`), ascending; empty without faults.
    pub fn failed_channels(&self) -> Vec<u32> {
        self.sim.failed_channels()
    }

    /// The failed nodes, ascending; empty without faults.
    pub fn failed_nodes(&self) -> Vec<u32> {
        self.sim.failed_nodes()
    }

    /// The headers stuck at faults now, as JSON `[{"vc", "message", "channel", "fault"}]`: the
    /// VC whose front it is (network VCs `channel · V + v`, then one injection VC per node), its
    /// message, the failed channel it waits for and that fault's name.
    pub fn stuck_headers(&self) -> String {
        json(&self.sim.stuck_headers_named())
    }

    /// The channels of the broadcast spanning tree from `source`, breadth first (each channel's
    /// tail is the source or the head of an earlier one); empty for a node not in the torus.
    pub fn broadcast_tree(&self, source: u32) -> Vec<u32> {
        let torus = self.sim.torus();
        if source < torus.nodes() {
            broadcast::tree_channels(torus, source)
        } else {
            Vec::new()
        }
    }
}
