//! A simulation's state as bytes, to be carried on elsewhere: the page hands its simulation to
//! a worker for fast mode and takes it back when fast mode ends, and the run continues exactly
//! as if it had never moved (same scenario and seed, same results).
//!
//! Only what changes as the simulation runs is kept; the rest (topology, routing tables, the
//! places of the VCs) is built again from the scenario. [`Simulation::save`] names every field
//! of [`Simulation`] without `..`, so a field added later does not compile until it is either
//! saved or said to be rebuilt.
//!
//! The lists of fields are checked by the compiler both ways: `save` destructures the whole
//! simulation and `restore` the whole saved state, each under `deny(unused_variables)`.
//!
//! The bytes are meant for the build that wrote them (the page and its workers load one
//! module); other bytes get an error, not a panic, as far as their shape shows.

use super::arrivals::Calendar;
use super::scouting::Probe;
use super::stats::{Delivery, Stats};
use super::table::Table;
use super::{BroadcastState, Message, Simulation, Vc};
use crate::rng::Rng;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt;

/// Bumped whenever the saved fields change.
const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct SavedState {
    format: u32,
    /// The canonical scenario string.
    scenario: String,
    traffic_rng: Rng,
    routing_rng: Rng,
    cycle: u64,
    mq_free: Table<u64>,
    outstanding: Table<u32>,
    misroutes: u64,
    vc: Table<Vc>,
    fifo: Table<u32>,
    busy_vcs: Table<u8>,
    channels_at_level: Table<u64>,
    source_queue: Vec<VecDeque<u32>>,
    next_arrival: Table<f64>,
    calendar: Calendar,
    active_vcs: Table<u64>,
    parked_vcs: Table<u64>,
    active_routers: Table<u64>,
    messages: Table<Message>,
    free_messages: Vec<u32>,
    next_id: u64,
    stats: Stats,
    broadcasts: Vec<BroadcastState>,
    free_broadcasts: Vec<u32>,
    probes: Vec<Probe>,
    acks: Vec<Vec<(u32, u32)>>,
    backtracks: u64,
    generating: bool,
    saturated: bool,
    deadlock: bool,
    last_move: u64,
    flits_in_network: u64,
    messages_queued: u64,
    flit_hops: u64,
    labelled_outstanding: u64,
    delivery_log: Option<Vec<Delivery>>,
    flits_generated: u64,
    flits_delivered: u64,
}

/// Bytes that are not a state saved by this build.
#[derive(Debug, Clone, PartialEq)]
pub struct RestoreError(String);

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a saved simulation of this version: {}", self.0)
    }
}

impl std::error::Error for RestoreError {}

impl Simulation {
    /// The state, as bytes for [`Simulation::restore`]. Between cycles only.
    pub fn save(&self) -> Vec<u8> {
        #[deny(unused_variables)]
        let Simulation {
            scenario,
            torus: _,
            routing: _,
            atomic_vcs: _,
            all_vcs_mask: _,
            pattern: _,
            traffic_rng,
            routing_rng,
            cycle,
            len: _,
            buf: _,
            vcs: _,
            ports: _,
            net_vcs: _,
            mq: _,
            mq_base: _,
            mq_free,
            cut_through: _,
            outstanding_limit: _,
            outstanding,
            misroutes,
            vc,
            place: _,
            fifo,
            all_vcs: _,
            busy_vcs,
            channels_at_level,
            in_channel: _,
            source_queue,
            next_arrival,
            calendar,
            // Scratch: empty between cycles.
            due: _,
            input_vcs: _,
            locals: _,
            local_class: _,
            active_vcs,
            active_shift: _,
            parked_vcs,
            parks: _,
            active_routers,
            queue_cap: _,
            messages,
            free_messages,
            next_id,
            moves: _,
            move_count: _,
            contenders: _,
            stats,
            broadcasts,
            free_broadcasts,
            tree_ports: _,
            scout: _,
            probes,
            acks,
            backtracks,
            generating,
            saturated,
            deadlock,
            last_move,
            flits_in_network,
            messages_queued,
            flit_hops,
            labelled_outstanding,
            delivery_log,
            flits_generated,
            flits_delivered,
        } = self;
        let saved = SavedState {
            format: FORMAT,
            scenario: scenario.canonical(),
            traffic_rng: traffic_rng.clone(),
            routing_rng: routing_rng.clone(),
            cycle: *cycle,
            mq_free: mq_free.clone(),
            outstanding: outstanding.clone(),
            misroutes: *misroutes,
            vc: vc.clone(),
            fifo: fifo.clone(),
            busy_vcs: busy_vcs.clone(),
            channels_at_level: channels_at_level.clone(),
            source_queue: source_queue.clone(),
            next_arrival: next_arrival.clone(),
            calendar: calendar.clone(),
            active_vcs: active_vcs.clone(),
            parked_vcs: parked_vcs.clone(),
            active_routers: active_routers.clone(),
            messages: messages.clone(),
            free_messages: free_messages.clone(),
            next_id: *next_id,
            stats: stats.clone(),
            broadcasts: broadcasts.clone(),
            free_broadcasts: free_broadcasts.clone(),
            probes: probes.clone(),
            acks: acks.clone(),
            backtracks: *backtracks,
            generating: *generating,
            saturated: *saturated,
            deadlock: *deadlock,
            last_move: *last_move,
            flits_in_network: *flits_in_network,
            messages_queued: *messages_queued,
            flit_hops: *flit_hops,
            labelled_outstanding: *labelled_outstanding,
            delivery_log: delivery_log.clone(),
            flits_generated: *flits_generated,
            flits_delivered: *flits_delivered,
        };
        postcard::to_allocvec(&saved).expect("a simulation's state always serialises")
    }

    /// The simulation [`Simulation::save`] wrote into `bytes`, ready to go on from the cycle
    /// it was saved at.
    pub fn restore(bytes: &[u8]) -> Result<Simulation, RestoreError> {
        let saved: SavedState = postcard::from_bytes(bytes).map_err(|e| RestoreError(e.to_string()))?;
        if saved.format != FORMAT {
            return Err(RestoreError(format!("format {}, expected {FORMAT}", saved.format)));
        }
        let scenario = Scenario::parse(&saved.scenario).map_err(|e| RestoreError(e.to_string()))?;
        let mut sim = Simulation::new(&scenario).map_err(|e| RestoreError(e.to_string()))?;
        let same_shape = saved.vc.len() == sim.vc.len()
            && saved.fifo.len() == sim.fifo.len()
            && saved.mq_free.len() == sim.mq_free.len()
            && saved.outstanding.len() == sim.outstanding.len()
            && saved.busy_vcs.len() == sim.busy_vcs.len()
            && saved.channels_at_level.len() == sim.channels_at_level.len()
            && saved.source_queue.len() == sim.source_queue.len()
            && saved.next_arrival.len() == sim.next_arrival.len()
            && saved.active_vcs.len() == sim.active_vcs.len()
            && saved.parked_vcs.len() == sim.parked_vcs.len()
            && saved.active_routers.len() == sim.active_routers.len()
            && saved.acks.len() == sim.acks.len()
            && saved.probes.len() == if sim.scout > 0 { saved.messages.len() } else { 0 };
        if !same_shape {
            return Err(RestoreError(format!("its tables do not fit its scenario {}", saved.scenario)));
        }
        #[deny(unused_variables)]
        let SavedState {
            format: _,
            scenario: _,
            traffic_rng,
            routing_rng,
            cycle,
            mq_free,
            outstanding,
            misroutes,
            vc,
            fifo,
            busy_vcs,
            channels_at_level,
            source_queue,
            next_arrival,
            calendar,
            active_vcs,
            parked_vcs,
            active_routers,
            messages,
            free_messages,
            next_id,
            stats,
            broadcasts,
            free_broadcasts,
            probes,
            acks,
            backtracks,
            generating,
            saturated,
            deadlock,
            last_move,
            flits_in_network,
            messages_queued,
            flit_hops,
            labelled_outstanding,
            delivery_log,
            flits_generated,
            flits_delivered,
        } = saved;
        sim.traffic_rng = traffic_rng;
        sim.routing_rng = routing_rng;
        sim.cycle = cycle;
        sim.mq_free = mq_free;
        sim.outstanding = outstanding;
        sim.misroutes = misroutes;
        sim.vc = vc;
        sim.fifo = fifo;
        sim.busy_vcs = busy_vcs;
        sim.channels_at_level = channels_at_level;
        sim.source_queue = source_queue;
        sim.next_arrival = next_arrival;
        sim.calendar = calendar;
        sim.active_vcs = active_vcs;
        sim.parked_vcs = parked_vcs;
        sim.active_routers = active_routers;
        sim.messages = messages;
        sim.free_messages = free_messages;
        sim.next_id = next_id;
        sim.stats = stats;
        sim.broadcasts = broadcasts;
        sim.free_broadcasts = free_broadcasts;
        sim.probes = probes;
        sim.acks = acks;
        sim.backtracks = backtracks;
        sim.generating = generating;
        sim.saturated = saturated;
        sim.deadlock = deadlock;
        sim.last_move = last_move;
        sim.flits_in_network = flits_in_network;
        sim.messages_queued = messages_queued;
        sim.flit_hops = flit_hops;
        sim.labelled_outstanding = labelled_outstanding;
        sim.delivery_log = delivery_log;
        sim.flits_generated = flits_generated;
        sim.flits_delivered = flits_delivered;
        Ok(sim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `scenario` whole, and again saved and restored after `at` cycles (and after each
    /// `at` cycles thereafter): the reports must be identical, every field.
    fn continues_exactly(scenario: &str, at: u64) {
        let s = Scenario::parse(scenario).unwrap();
        let straight = Simulation::new(&s).unwrap().run();
        let mut sim = Simulation::new(&s).unwrap();
        let total = s.warmup + s.cycles;
        while sim.cycle() < total && !sim.deadlocked() {
            for _ in 0..at.min(total - sim.cycle()) {
                sim.step();
            }
            sim = Simulation::restore(&sim.save()).unwrap();
        }
        assert_eq!(sim.run(), straight, "{scenario}");
    }

    #[test]
    fn a_restored_simulation_continues_exactly() {
        continues_exactly("k=8&routing=dor&traffic=uniform&len=16&rate=0.02&warmup=300&cycles=900", 250);
        continues_exactly("k=8&routing=dor&traffic=uniform&len=1&rate=0.6&warmup=200&cycles=600", 170);
        continues_exactly("k=4&n=3&routing=duato&vcs=3&traffic=uniform&len=4&rate=0.1&warmup=200&cycles=600", 333);
        continues_exactly("k=8&routing=chaos&traffic=uniform&len=4&rate=0.3&warmup=200&cycles=600", 150);
        continues_exactly("k=8&routing=minad&switching=scouting&scout=2&vcs=3&len=8&rate=0.05&warmup=200&cycles=600", 111);
        continues_exactly("k=4&routing=dor&len=2&rate=0.01&beta=0.2&warmup=200&cycles=600", 90);
        continues_exactly("k=8&routing=val&vcs=4&len=16&rate=0.3&warmup=200&cycles=600", 200);
    }

    #[test]
    fn a_deadlocked_simulation_stays_deadlocked() {
        let s = Scenario::parse("k=4&routing=dor&vcs=1&unsafe=1&traffic=uniform&len=16&rate=0.5&warmup=100&cycles=5000").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        while !sim.deadlocked() {
            sim.step();
        }
        let restored = Simulation::restore(&sim.save()).unwrap();
        assert!(restored.deadlocked());
        assert_eq!(restored.deadlock_cycle(), sim.deadlock_cycle());
    }

    #[test]
    fn other_bytes_are_refused() {
        let sim = Simulation::new(&Scenario::parse("k=4&routing=dor").unwrap()).unwrap();
        let bytes = sim.save();
        assert!(Simulation::restore(&[]).is_err());
        assert!(Simulation::restore(b"not a simulation").is_err());
        assert!(Simulation::restore(&bytes[..bytes.len() / 2]).is_err());
        let mut other_format = bytes.clone();
        other_format[0] = FORMAT as u8 + 1;
        let error = Simulation::restore(&other_format).err().expect("another format is refused");
        assert!(error.to_string().contains("format"), "{error}");
        // A state whose tables belong to another network.
        let mut bigger = postcard::from_bytes::<SavedState>(&bytes).unwrap();
        bigger.scenario = Scenario::parse("k=8&routing=dor").unwrap().canonical();
        let error = Simulation::restore(&postcard::to_allocvec(&bigger).unwrap()).err().expect("another network's tables are refused");
        assert!(error.to_string().contains("do not fit"), "{error}");
    }
}
