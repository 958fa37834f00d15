//! Scouting switching (seed 001, after Duato et al.): the header runs ahead of the data.
//!
//! - Every channel the header reserves returns a positive acknowledgement towards the data,
//!   which takes K cycles to arrive. The first data flit crosses its next channel j only once
//!   the acknowledgement of channel j + K has arrived (or that of the header's arrival at the
//!   destination). At zero load the data thus trails the header by 2K − 1 channels and a
//!   message takes M + H + 2K − 1 cycles, the blocking-free latency of the seed's model; K = 0
//!   is wormhole switching exactly (no acknowledgements, no backtracking).
//! - A header that finds no free VC on any of its candidates backtracks (a negative
//!   acknowledgement): if the data has not yet entered the channel it arrived on, it releases
//!   that channel's VC and returns to the previous router, where it is routed again next
//!   cycle, avoiding the port it came back from if another candidate has a free VC. A message
//!   backtracks at most K times (the model's t ≤ K); after that its header waits as in
//!   wormhole switching, so no header can bounce for ever.
//! - An acknowledgement still in flight for a channel the header has since given up is
//!   ignored on arrival (it is charged to the header's hop count at that time).

use super::faults::Detour;
use super::{Simulation, EJECT_VC, NONE, NO_PORT};

/// Acknowledgement of the header's arrival at the destination: every channel is reserved.
pub(super) const ACK_ALL: u32 = u32::MAX - 2;

/// A message's scouting state, beside its entry in the message table.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Probe {
    /// Channels crossed by the first data flit, channels whose positive acknowledgement has
    /// reached it, whether the header's arrival has been acknowledged.
    pub(super) data_hops: u32,
    pub(super) acked_hops: u32,
    pub(super) acked_all: bool,
    /// The port a backtracked header should avoid on its next try (`NO_PORT` if none).
    pub(super) avoid_port: u32,
    /// Backtracks made; at most K per message, as the seed's model assumes (t ≤ K), which also
    /// keeps a header from bouncing indefinitely between two routers.
    backtracks: u32,
    /// How it has gone round faults ([`super::faults`]).
    pub(super) detour: Detour,
}

impl Simulation {
    /// Message `slot` was just created: its probe starts afresh.
    pub(super) fn new_probe(&mut self, slot: u32) {
        let probe = Probe { data_hops: 0, acked_hops: 0, acked_all: false, avoid_port: NO_PORT, backtracks: 0, detour: Detour::NONE };
        if slot as usize == self.probes.len() {
            self.probes.push(probe);
        } else {
            self.probes[slot as usize] = probe;
        }
    }

    /// Whether the first data flit of message `slot` may cross its next channel.
    pub(super) fn data_may_advance(&self, slot: u32) -> bool {
        let p = &self.probes[slot as usize];
        p.acked_all || p.acked_hops >= p.data_hops + 1 + self.scout
    }

    fn bucket(&self, cycle: u64) -> usize {
        (cycle % (self.scout as u64 + 1)) as usize
    }

    /// Records a move of message `slot`: a header crossing a channel or arriving sends an
    /// acknowledgement back; the first data flit crossing a channel advances the data.
    pub(super) fn scouting_progress(&mut self, slot: u32, header: bool, to: u32, now: u64) {
        if header {
            let ack = if to == EJECT_VC { ACK_ALL } else { self.messages[slot as usize].hops + 1 };
            let b = self.bucket(now + self.scout as u64);
            self.acks[b].push((slot, ack));
        }
    }

    /// Acknowledgements arriving this cycle reach the data. Called at the start of a cycle, so
    /// one sent in cycle t is usable from cycle t + K.
    pub(super) fn deliver_acks(&mut self) {
        let b = self.bucket(self.cycle);
        for i in 0..self.acks[b].len() {
            let (slot, hop) = self.acks[b][i];
            let hops = self.messages[slot as usize].hops;
            let p = &mut self.probes[slot as usize];
            if hop == ACK_ALL {
                p.acked_all = true;
            } else if hop <= hops {
                p.acked_hops = p.acked_hops.max(hop);
            }
        }
        self.acks[b].clear();
    }

    /// The first data flit of message `slot` crossed a channel.
    pub(super) fn data_crossed(&mut self, slot: u32) {
        self.probes[slot as usize].data_hops += 1;
    }

    /// The VC the header of `slot`, blocked at the front of network VC `vc`, may step back to
    /// now: the one it came from, if it has a backtrack left (out of a `dead_end` at a fault,
    /// or for a busy channel), the data has not entered `vc` and there is room behind.
    pub(super) fn backtrack_target(&self, vc: u32, slot: u32, dead_end: bool) -> Option<u32> {
        let m = &self.messages[slot as usize];
        let p = &self.probes[slot as usize];
        let made = if dead_end { p.detour.backtracks } else { p.backtracks };
        if vc >= self.net_vcs || made >= self.scout || p.data_hops >= m.hops || self.vc[vc as usize].flits != 1 {
            return None;
        }
        let previous_router = self.torus.channel_source(vc / self.vcs);
        let previous = self.previous_vc(previous_router, vc, slot)?;
        let injecting = previous >= self.net_vcs;
        if !injecting && self.credits(previous as usize) == 0 {
            return None;
        }
        Some(previous)
    }

    /// The header of `slot`, blocked at the front of network VC `vc`, steps back to the VC it
    /// came from ([`Simulation::backtrack_target`]). Returns whether it did.
    pub(super) fn backtrack(&mut self, vc: u32, slot: u32, dead_end: bool) -> bool {
        let Some(previous) = self.backtrack_target(vc, slot, dead_end) else {
            return false;
        };
        let channel = vc / self.vcs;
        let p = previous as usize;
        let injecting = previous >= self.net_vcs;
        // Leave `vc`: the slot goes back upstream and the VC is free for others.
        let buf = self.buf as u32;
        let v = &mut self.vc[vc as usize];
        v.flits = 0;
        v.head = ((v.head as u32 + 1) % buf) as u8;
        v.owner = NONE;
        self.flits_in_network -= 1;
        self.mark_drained(vc, true);
        self.change_busy(channel, -1);
        // Re-enter `previous` at the front, to be routed again.
        let back = &mut self.vc[p];
        if !injecting {
            back.head = ((back.head as u32 + buf - 1) % buf) as u8;
            self.fifo[(previous * buf + back.head as u32) as usize] = slot;
            self.flits_in_network += 1;
        }
        back.flits += 1;
        back.sent = 0;
        back.out = NONE;
        self.mark_filled(previous, false);
        let m = &mut self.messages[slot as usize];
        m.hops -= 1;
        m.header_ready = self.cycle + 1;
        let hops = m.hops;
        let p = &mut self.probes[slot as usize];
        p.acked_hops = p.acked_hops.min(hops);
        p.avoid_port = self.torus.channel_port(channel);
        if dead_end {
            p.detour.backtracks += 1;
        } else {
            p.backtracks += 1;
        }
        self.backtracks += 1;
        self.stats.backtracked(self.cycle, vc);
        true
    }

    /// The VC at `router` from which message `slot` was forwarded into `vc`.
    fn previous_vc(&self, router: u32, vc: u32, slot: u32) -> Option<u32> {
        (0..=self.ports)
            .flat_map(|port| self.input_port_vcs(router, port))
            .find(|&p| self.vc[p as usize].out == vc && self.owner_of_route(p) == slot)
    }

    /// The message whose route a VC holds: its front message while flits remain, else the
    /// message it is allocated to (whose remaining flits are still upstream).
    fn owner_of_route(&self, vc: u32) -> u32 {
        if self.vc[vc as usize].flits > 0 {
            self.front(vc)
        } else {
            self.vc[vc as usize].owner
        }
    }
}
