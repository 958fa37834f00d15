//! Read-only views of the simulation for the page: what it draws beyond the per-VC arrays.
//! Kept apart from the stepping code so that the page's needs never touch the hot loop.

use super::scouting::ACK_ALL;
use super::{Simulation, FAILED, NONE};
use crate::routing::{Routing, VcClass};

/// In [`Simulation::worm_runs`]' third word of a VC: the front run's flits are the low
/// `RUN_BITS` bits, the back run's the next `RUN_BITS`, then one bit each for "the front
/// message is a broadcast copy", "the back message is" and "the owner is" (`buf` ≤ 256 < 2^10).
pub const RUN_BITS: u32 = 10;
pub const FRONT_BROADCAST: u32 = 1 << (2 * RUN_BITS);
pub const BACK_BROADCAST: u32 = 1 << (2 * RUN_BITS + 1);
pub const OWNER_BROADCAST: u32 = 1 << (2 * RUN_BITS + 2);

/// In [`VcSnapshot::blocked`]: a blocked header, and a header in its router's pipeline.
pub const BLOCKED: u8 = 1;
pub const IN_ROUTER: u8 = 2;

/// The network VCs' state as the page draws it, one flat array per field, indexed
/// `channel · V + v`: a copy taken by [`Simulation::snapshot_vcs`], so that the page can read it
/// straight out of wasm memory while the simulator keeps each VC's state in one record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VcSnapshot {
    /// Flits buffered in each VC.
    pub flits: Vec<u16>,
    /// The message each VC is allocated to (its slot in the message table), `u32::MAX` when free
    /// or failed ([`Simulation::failed_channels`]).
    pub owner: Vec<u32>,
    /// The VC's front flit: [`BLOCKED`] where it is a header that found no free VC in the last
    /// cycle, [`IN_ROUTER`] where it is a header that has crossed its channel and waits out its
    /// router's delay (`rdelay`), 0 otherwise.
    pub blocked: Vec<u8>,
}

impl Simulation {
    /// Copies the network VCs' state into `into`, reusing its memory.
    pub fn snapshot_vcs(&self, into: &mut VcSnapshot) {
        let vcs = &self.vc[..self.net_vcs as usize];
        into.flits.clear();
        into.flits.extend(vcs.iter().map(|v| v.flits));
        into.owner.clear();
        into.owner.extend(vcs.iter().map(|v| if v.owner == FAILED { NONE } else { v.owner }));
        into.blocked.clear();
        into.blocked.extend(vcs.iter().enumerate().map(|(vc, v)| {
            if v.blocked == 0 && self.header_in_router(vc as u32) {
                IN_ROUTER
            } else {
                v.blocked * BLOCKED
            }
        }));
    }

    /// The network VCs' state now.
    pub fn vc_snapshot(&self) -> VcSnapshot {
        let mut snapshot = VcSnapshot::default();
        self.snapshot_vcs(&mut snapshot);
        snapshot
    }

    /// Flits each channel (`node · 2n + port`) has carried since the start, wrapping at 2^32.
    pub fn channel_flits_total(&self) -> &[u32] {
        self.stats.channel_flits_total()
    }

    /// Scouting backtracks so far (negative acknowledgements).
    pub fn backtracks(&self) -> u64 {
        self.backtracks
    }

    /// The most recent scouting backtracks, oldest first, as (cycle, network VC the header
    /// released: `channel · V + v`).
    pub fn recent_backtracks(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.stats.recent_backtracks()
    }

    /// Chaos deflections so far.
    pub fn misroutes(&self) -> u64 {
        self.misroutes
    }

    /// The most recent chaos deflections, oldest first, as (cycle, network VC the packet was
    /// sent into).
    pub fn recent_deflections(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.stats.recent_deflections()
    }

    /// Whose flits each network VC holds, so that the page can draw each worm whole, from its
    /// header back to its tail: three words per VC `channel · V + v`, the message of its front
    /// flit, the message of its back flit (both `u32::MAX` when empty) and the lengths of the
    /// two runs with the broadcast bits ([`RUN_BITS`]). A VC holding one message's flits has
    /// front = back and both runs equal to its flits; flits between two runs (short messages
    /// queued three deep) belong to neither.
    pub fn worm_runs(&self) -> Vec<u32> {
        let buf = self.buf as u32;
        // A failed channel's VCs are owned by FAILED, no message.
        let broadcast = |slot: u32, bit: u32| if slot != NONE && slot != FAILED && self.messages[slot as usize].broadcast != NONE { bit } else { 0 };
        let mut runs = Vec::with_capacity(3 * self.net_vcs as usize);
        for vc in 0..self.net_vcs {
            let v = &self.vc[vc as usize];
            let owner = broadcast(v.owner, OWNER_BROADCAST);
            if v.flits == 0 {
                runs.extend([NONE, NONE, owner]);
                continue;
            }
            let at = |i: u32| self.fifo[(vc * buf + (v.head as u32 + i) % buf) as usize];
            let flits = v.flits as u32;
            let (front, back) = (at(0), at(flits - 1));
            let front_run = (0..flits).take_while(|&i| at(i) == front).count() as u32;
            let back_run = (0..flits).rev().take_while(|&i| at(i) == back).count() as u32;
            let bits = front_run | back_run << RUN_BITS | broadcast(front, FRONT_BROADCAST) | broadcast(back, BACK_BROADCAST) | owner;
            runs.extend([front, back, bits]);
        }
        runs
    }

    /// Each node's injection VCs: two words per node, the message being injected (`u32::MAX`
    /// when none) and its flits still at the source. Under `router=…wide` a node has 2n
    /// injection VCs: the first that holds a message names it, and the flits are all of theirs.
    pub fn source_flits(&self) -> Vec<u32> {
        let nodes = self.torus.nodes();
        (0..nodes)
            .flat_map(|u| {
                let vcs = (0..self.injection_channels).map(|i| &self.vc[(self.net_vcs + u + i * nodes) as usize]);
                let owner = vcs.clone().map(|v| v.owner).find(|&o| o != NONE).unwrap_or(NONE);
                [owner, vcs.map(|v| v.flits as u32).sum()]
            })
            .collect()
    }

    /// `routing=chaos`: each node's shared-queue slots, `mq` per node in node order, two words
    /// each: the packet the slot is allocated to (`u32::MAX` when free) and the flits it holds
    /// (with [`FRONT_BROADCAST`] set for a broadcast copy). Empty for other algorithms.
    pub fn shared_queue_slots(&self) -> Vec<u32> {
        (self.mq_base..self.all_vcs)
            .flat_map(|vc| {
                let v = &self.vc[vc as usize];
                let broadcast = if v.owner != NONE && self.messages[v.owner as usize].broadcast != NONE { FRONT_BROADCAST } else { 0 };
                [v.owner, v.flits as u32 | broadcast]
            })
            .collect()
    }

    /// Scouting switching: where each message's probe and data are, four words per message in
    /// the network, `[message, channels its header has crossed, channels its first data flit
    /// has crossed, channels acknowledged to the data]` (the last is the header's count once
    /// its arrival at the destination is acknowledged). Empty without scouting.
    pub fn scouting_probes(&self) -> Vec<u32> {
        if self.scout == 0 {
            return Vec::new();
        }
        let mut free = vec![false; self.messages.len()];
        for &slot in &self.free_messages {
            free[slot as usize] = true;
        }
        let mut probes = Vec::new();
        for (slot, m) in self.messages.iter().enumerate() {
            if free[slot] || m.hops == 0 {
                continue;
            }
            let p = &self.probes[slot];
            probes.extend([slot as u32, m.hops, p.data_hops, if p.acked_all { m.hops } else { p.acked_hops }]);
        }
        probes
    }

    /// Scouting switching: the acknowledgements on their way from a probe back to its data,
    /// three words each, `[message, channel number along its path (1 = the first channel the
    /// header crossed), cycles until it reaches the data (0 = at the start of the next
    /// cycle)]`; the acknowledgement of the header's arrival carries the header's channel
    /// count. Each takes K cycles from the probe to the data.
    pub fn acknowledgements(&self) -> Vec<u32> {
        let period = self.scout as u64 + 1;
        let mut acks = Vec::new();
        for (b, bucket) in self.acks.iter().enumerate() {
            let left = ((b as u64 + period - self.cycle % period) % period) as u32;
            for &(slot, hop) in bucket {
                let hop = if hop == ACK_ALL { self.messages[slot as usize].hops } else { hop };
                acks.extend([slot, hop, left]);
            }
        }
        acks
    }

    /// What each VC index is for under this scenario's routing algorithm.
    pub fn vc_classes(&self) -> Vec<VcClass> {
        self.routing.vc_classes(self.vcs, self.torus.n)
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;
    use crate::sim::Simulation;

    #[test]
    fn the_snapshot_is_the_network_vcs_state() {
        let s = Scenario::parse("k=4&routing=dor&rate=0.08&len=4&buf=2&warmup=0").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        let mut snapshot = sim.vc_snapshot();
        assert_eq!(snapshot.flits.len(), sim.network_vcs() as usize);
        assert!(snapshot.owner.iter().all(|&o| o == u32::MAX) && snapshot.flits.iter().all(|&f| f == 0));
        let mut seen_blocked = false;
        for _ in 0..300 {
            sim.step();
            sim.snapshot_vcs(&mut snapshot);
            assert_eq!(snapshot, sim.vc_snapshot(), "a reused snapshot equals a fresh one");
            for vc in 0..sim.network_vcs() as usize {
                let v = &sim.vc[vc];
                assert_eq!((snapshot.flits[vc], snapshot.owner[vc], snapshot.blocked[vc]), (v.flits, v.owner, v.blocked));
            }
            let buffered: u64 = snapshot.flits.iter().map(|&f| f as u64).sum();
            assert_eq!(buffered, sim.flits_in_network);
            seen_blocked |= snapshot.blocked.contains(&1);
        }
        assert!(seen_blocked, "at this load some header waits for a VC");
    }

    #[test]
    fn channel_totals_add_up_to_the_flit_hops() {
        let s = Scenario::parse("k=4&routing=dor&rate=0.05&len=4&warmup=100").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        for _ in 0..500 {
            sim.step();
        }
        let total: u64 = sim.channel_flits_total().iter().map(|&f| f as u64).sum();
        assert!(total > 0);
        assert_eq!(total, sim.flit_hops());
    }

    #[test]
    fn the_backtrack_log_keeps_the_latest_backtracks() {
        let s = Scenario::parse("k=8&routing=duato&switching=scouting&scout=3&rate=0.03&len=16&seed=5").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        while sim.backtracks() < 100 && sim.cycle() < 20_000 {
            sim.step();
        }
        assert!(sim.backtracks() >= 100, "only {} backtracks", sim.backtracks());
        let log: Vec<(u64, u32)> = sim.recent_backtracks().collect();
        assert_eq!(log.len(), super::super::stats::EVENT_LOG);
        assert!(log.windows(2).all(|w| w[0].0 <= w[1].0), "oldest first: {log:?}");
        assert!(log.last().unwrap().0 <= sim.cycle());
        assert!(log.iter().all(|&(_, vc)| vc < sim.network_vcs()));
    }

    /// Flits of `message` the worm view places in network VCs and at its source.
    fn flits_of(sim: &Simulation, message: u32) -> u32 {
        use super::{RUN_BITS, NONE};
        let runs = sim.worm_runs();
        let mask = (1 << RUN_BITS) - 1;
        let mut flits = 0;
        for vc in runs.chunks(3) {
            let (front, back, bits) = (vc[0], vc[1], vc[2]);
            if front == message {
                flits += bits & mask;
            }
            if back == message && back != front {
                flits += bits >> RUN_BITS & mask;
            }
            assert!(front != NONE || bits & mask == 0);
        }
        let sources = sim.source_flits();
        for u in sources.chunks(2) {
            if u[0] == message {
                flits += u[1];
            }
        }
        flits
    }

    #[test]
    fn the_worm_view_holds_every_flit_of_a_message_until_it_leaves() {
        // One 16-flit message alone, 4-flit buffers: its flits are in the source, then spread
        // over several VCs, never lost, until the tail is delivered.
        let s = Scenario::parse("k=8&routing=dor&len=16&buf=4&warmup=0").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        sim.set_traffic(false);
        sim.record_deliveries();
        let m = sim.send(0, 3 + 8 * 2);
        assert_eq!(flits_of(&sim, m), 16);
        let mut spread = 0;
        let mut delivered = 0;
        while delivered == 0 {
            sim.step();
            let ejected = sim.take_deliveries().len() as u32;
            delivered += ejected;
            let runs = sim.worm_runs();
            let held = runs.chunks(3).filter(|vc| vc[0] == m).count();
            spread = spread.max(held);
            if delivered == 0 {
                let here = flits_of(&sim, m);
                assert!(here >= 1 && here <= 16, "cycle {}: {here} flits", sim.cycle());
                let buffered: u64 = runs.chunks(3).map(|vc| (vc[2] & ((1 << super::RUN_BITS) - 1)) as u64).sum();
                assert_eq!(buffered, sim.flits_in_network, "every buffered flit is in some run");
            }
        }
        assert!(spread >= 4, "a 16-flit worm in 4-flit buffers spans at least 4 VCs ({spread})");
        assert_eq!(flits_of(&sim, m), 0, "delivered: nothing left");
    }

    #[test]
    fn runs_of_queued_messages_split_a_vc_between_its_front_and_back() {
        use super::{NONE, RUN_BITS};
        let s = Scenario::parse("k=4&routing=dor&rate=0.2&len=2&buf=8&warmup=0&seed=3").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        let mask = (1 << RUN_BITS) - 1;
        let mut shared = 0;
        for _ in 0..400 {
            sim.step();
            let snapshot = sim.vc_snapshot();
            for (vc, r) in sim.worm_runs().chunks(3).enumerate() {
                let (front_run, back_run) = (r[2] & mask, r[2] >> RUN_BITS & mask);
                let flits = snapshot.flits[vc] as u32;
                if flits == 0 {
                    assert_eq!((r[0], r[1], front_run, back_run), (NONE, NONE, 0, 0));
                } else if r[0] == r[1] {
                    assert_eq!((front_run, back_run), (flits, flits));
                } else {
                    shared += 1;
                    assert!(front_run + back_run <= flits && front_run > 0 && back_run > 0);
                    assert!(front_run <= 2 && back_run <= 2, "a message has 2 flits");
                }
            }
        }
        assert!(shared > 0, "short messages queue behind each other in a VC");
    }

    #[test]
    fn a_failed_channel_is_drawn_as_an_empty_vc_with_no_owner() {
        use super::NONE;
        let s = Scenario::parse("k=4&routing=dor&rate=0.1&len=4&flinks=1x,6y&warmup=0").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        let failed: Vec<u32> = sim.failed_channels();
        assert_eq!(failed.len(), 4);
        for _ in 0..200 {
            sim.step();
            let (runs, snapshot) = (sim.worm_runs(), sim.vc_snapshot());
            for &c in &failed {
                for vc in c * sim.vcs..(c + 1) * sim.vcs {
                    assert_eq!(&runs[3 * vc as usize..3 * vc as usize + 3], [NONE, NONE, 0]);
                    assert_eq!((snapshot.owner[vc as usize], snapshot.flits[vc as usize]), (NONE, 0));
                }
            }
        }
    }

    #[test]
    fn probes_lead_their_data_and_acknowledgements_take_k_cycles() {
        let s = Scenario::parse("k=8&routing=adaptive&switching=scouting&scout=3&rate=0.008&len=32&seed=2").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        let mut seen_lead = 0;
        let mut seen_acks = 0;
        for _ in 0..3000 {
            sim.step();
            let probes = sim.scouting_probes();
            for p in probes.chunks(4) {
                let (hops, data, acked) = (p[1], p[2], p[3]);
                assert!(data <= hops && acked <= hops, "{p:?}");
                seen_lead = seen_lead.max(hops - data);
            }
            let acks = sim.acknowledgements();
            for a in acks.chunks(3) {
                assert!(a[2] <= 3, "an acknowledgement arrives within K cycles: {a:?}");
                let probe = probes.chunks(4).find(|p| p[0] == a[0]);
                if let Some(p) = probe {
                    assert!(a[1] >= 1 && a[1] <= p[1] + 1, "ack {a:?} of probe {p:?}");
                }
                seen_acks += 1;
            }
        }
        // At zero load the data trails the header by 2K − 1 = 5 channels.
        assert!(seen_lead >= 5, "lead {seen_lead}");
        assert!(seen_acks > 100);
        let wormhole = Simulation::new(&Scenario::parse("k=8&routing=adaptive&rate=0.008&len=32").unwrap()).unwrap();
        assert!(wormhole.scouting_probes().is_empty() && wormhole.acknowledgements().is_empty());
    }

    #[test]
    fn deflections_are_logged_with_the_vc_they_entered_and_queues_reported() {
        let s = Scenario::parse("k=4&routing=chaos&traffic=bitcomp&len=2&buf=2&mq=2&rate=0.4&warmup=0&seed=3").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        let mut queued = 0;
        while sim.misroutes < 100 && sim.cycle() < 20_000 {
            sim.step();
            let slots = sim.shared_queue_slots();
            assert_eq!(slots.len(), 2 * 16 * 2, "two words per slot, two slots per node");
            queued += slots.chunks(2).filter(|q| q[0] != super::NONE).count();
        }
        assert!(sim.misroutes >= 100 && queued > 0);
        let log: Vec<(u64, u32)> = sim.recent_deflections().collect();
        assert_eq!(log.len(), super::super::stats::EVENT_LOG);
        assert!(log.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(log.iter().all(|&(cycle, vc)| cycle < sim.cycle() && vc < sim.network_vcs() && vc % sim.vcs() == 0));
        let dor = Simulation::new(&Scenario::parse("k=4&routing=dor&rate=0.01").unwrap()).unwrap();
        assert!(dor.shared_queue_slots().is_empty() && dor.recent_deflections().next().is_none());
    }
}
