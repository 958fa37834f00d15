//! A simulation's state as bytes, to be carried on elsewhere: the page hands its simulation to
//! a worker for fast mode and takes it back when fast mode ends, and the run continues exactly
//! as if it had never moved (same scenario and seed, same results).
//!
//! Only what changes as the simulation runs is kept; the rest (topology, routing tables, the
//! places of the VCs) is built again from the scenario. The two lists in [`saved_state!`]
//! name every field of [`Simulation`] once, which the compiler checks: a field added later
//! does not compile until it is either saved or said to be rebuilt.
//!
//! The bytes are meant for the build that wrote them (the page and its workers load one
//! module); other bytes get an error, not a panic, as far as their shape shows.

use super::arrivals::Calendar;
use super::scouting::Probe;
use super::run_length::RunLength;
use super::stats::{Delivery, Stats};
use super::table::Table;
use super::router::QueuedFlit;
use super::pipeline::Pipeline;
use super::{BroadcastState, Message, Simulation, Vc};
use crate::rng::Rng;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt;

/// Bumped whenever the saved fields change.
const FORMAT: u32 = 5;

/// Declares the saved state from two lists that together name every field of [`Simulation`]
/// once: the fields saved (with their types) and the fields rebuilt from the scenario. A field
/// missing from both, or named twice, does not compile.
macro_rules! saved_state {
    (saved { $($field:ident: $ty:ty,)* } rebuilt { $($rebuilt:ident,)* }) => {
        #[derive(Serialize, Deserialize)]
        struct SavedState {
            format: u32,
            /// The canonical scenario string.
            scenario: String,
            $($field: $ty,)*
        }

        impl SavedState {
            fn of(sim: &Simulation) -> SavedState {
                let Simulation { $($field: _,)* $($rebuilt: _,)* } = sim;
                SavedState { format: FORMAT, scenario: sim.scenario.canonical(), $($field: sim.$field.clone(),)* }
            }

            fn restore_into(self, sim: &mut Simulation) {
                $(sim.$field = self.$field;)*
            }
        }
    };
}

saved_state! {
    saved {
        traffic_rng: Rng,
        routing_rng: Rng,
        length_rng: Rng,
        cycle: u64,
        mq_free: Table<u64>,
        outstanding: Table<u32>,
        misroutes: u64,
        vc: Table<Vc>,
        fifo: Table<u32>,
        busy_vcs: Table<u8>,
        channels_at_level: Table<u64>,
        source_queue: Vec<VecDeque<u32>>,
        first_port: Table<u8>,
        next_arrival: Table<f64>,
        burst_end: Table<f64>,
        calendar: Calendar,
        active_vcs: Table<u64>,
        parked_vcs: Table<u64>,
        active_routers: Table<u64>,
        messages: Table<Message>,
        free_messages: Vec<u32>,
        next_id: u64,
        stats: Stats,
        run_length: RunLength,
        next_event: u64,
        broadcasts: Vec<BroadcastState>,
        free_broadcasts: Vec<u32>,
        probes: Vec<Probe>,
        acks: Vec<Vec<(u32, u32)>>,
        backtracks: u64,
        generating: bool,
        throttled_source_cycles: u64,
        drain_cut: bool,
        deadlock: bool,
        unreachable: u64,
        unreachable_labelled: u64,
        labelled_stuck: u64,
        fault_stall: bool,
        last_move: u64,
        flits_in_network: u64,
        messages_queued: u64,
        flit_hops: u64,
        labelled_outstanding: u64,
        delivery_log: Option<Vec<Delivery>>,
        flits_generated: u64,
        flits_delivered: u64,
        reserved: Table<u16>,
        out_queue: Table<QueuedFlit>,
        out_head: Table<u16>,
        out_len: Table<u16>,
        queued_channels: Table<u64>,
        pipeline: Pipeline,
    }
    rebuilt {
        scenario,
        torus,
        routing,
        atomic_vcs,
        all_vcs_mask,
        pattern,
        len,
        buf,
        vcs,
        ports,
        net_vcs,
        mq,
        mq_base,
        cut_through,
        outstanding_limit,
        place,
        all_vcs,
        in_channel,
        input_vcs,
        locals,
        local_class,
        active_shift,
        parks,
        queue_cap,
        scout,
        misroute,
        probing,
        faults,
        router,
        organised,
        lengths,
        arrivals,
        injection_channels,
        delayed,
        // Scratch, empty between cycles.
        due,
        moves,
        move_count,
        contenders,
        tree_ports,
        requests,
    }
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
        postcard::to_allocvec(&SavedState::of(self)).expect("a simulation's state always serialises")
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
            && saved.burst_end.len() == sim.burst_end.len()
            && saved.active_vcs.len() == sim.active_vcs.len()
            && saved.parked_vcs.len() == sim.parked_vcs.len()
            && saved.active_routers.len() == sim.active_routers.len()
            && saved.reserved.len() == sim.reserved.len()
            && saved.out_queue.len() == sim.out_queue.len()
            && saved.out_head.len() == sim.out_head.len()
            && saved.out_len.len() == sim.out_len.len()
            && saved.queued_channels.len() == sim.queued_channels.len()
            && saved.acks.len() == sim.acks.len()
            && saved.probes.len() == if sim.probing { saved.messages.len() } else { 0 };
        if !same_shape {
            return Err(RestoreError(format!("its tables do not fit its scenario {}", saved.scenario)));
        }
        saved.restore_into(&mut sim);
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
        // An automatic warm-up or window ends within this many cycles in these scenarios.
        let total = s.warmup.saturating_add(s.cycles).min(30_000);
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
        continues_exactly("k=8&routing=dor&len=8&rate=0.02&frandom=0.1&fnodes=12&warmup=200&cycles=900", 160);
        continues_exactly("k=8&routing=duato&switching=scouting&scout=2&misroute=2&vcs=4&len=8&rate=0.02&frandom=0.08&warmup=200&cycles=900", 130);
        // The run-length controller's state moves with the simulation: the warm-up and the
        // window end where they would have.
        continues_exactly("k=4&routing=dor&len=4&rate=0.05&warmup=auto&cycles=auto&ci=0.1", 777);
        // Every router organisation, with flits in output queues and DAMQ buffers reordered.
        continues_exactly("k=8&routing=goal&vcs=3&buf=8&len=1&rate=0.6&router=damq+speedup2+wide&warmup=200&cycles=600", 77);
        continues_exactly("k=8&routing=dor&len=4&rate=0.3&router=speedup2&warmup=200&cycles=600", 130);
        continues_exactly("k=4&n=3&routing=minad&vcs=3&len=2&rate=0.5&router=maxmatch+wide&warmup=200&cycles=600", 99);
        continues_exactly("k=8&routing=val&vcs=4&buf=4&len=3&rate=0.1&router=damq&warmup=200&cycles=600", 150);
        // Bursts under way move with the simulation; and the second generation of samplers.
        continues_exactly("k=8&routing=dor&len=4&rate=0.05&inject=onoff:20-60&warmup=200&cycles=600", 140);
        continues_exactly("k=8&routing=duato&vcs=4&len=8&rate=0.02&lengths=geometric&rng=2&inject=bernoulli&warmup=200&cycles=600", 120);
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

    /// Random bytes, and saved states with bytes overwritten or cut short, give an error or a
    /// simulation, never a panic while reading them.
    #[test]
    fn damaged_bytes_never_panic() {
        let mut sim = Simulation::new(&Scenario::parse("k=4&routing=dor&len=4&rate=0.1").unwrap()).unwrap();
        for _ in 0..300 {
            sim.step();
        }
        let bytes = sim.save();
        use rand::Rng as _;
        let mut rng = crate::rng::Rng::new(5, crate::rng::Stream::Traffic);
        let mut refused = 0;
        for _ in 0..2_000 {
            let mut damaged = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(damaged.len() as u32) as usize;
                damaged[at] = rng.next_u64() as u8;
            }
            damaged.truncate(damaged.len() - rng.below(3) as usize);
            refused += Simulation::restore(&damaged).is_err() as u32;
            let noise: Vec<u8> = (0..rng.below(200)).map(|_| rng.next_u64() as u8).collect();
            assert!(Simulation::restore(&noise).is_err());
        }
        assert!(refused > 1_000, "most damaged states are refused ({refused} of 2000)");
    }
}
