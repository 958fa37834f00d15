//! The Chaos router's shared multiqueue and deflection (`routing=chaos`; the model and its
//! deadlock argument are in [`crate::routing::chaos`]).
//!
//! Each node has Q packet slots after the injection VCs. A slot is a router input of its own
//! (local index `2n + 1 + q`, switch port `2n + 1 + q`) and, while a packet moves in, an output
//! of its own (write port `2n + 1 + q`), so entering or leaving the queue never competes with
//! another slot; a packet streams through it one flit per cycle like through any buffer. A slot
//! is allocated to one packet from the moment a header takes it until the tail leaves.

use super::{Simulation, NONE};
use crate::topology::Node;

impl Simulation {
    /// A header no output can take right now: one at a network input moves into a free slot of
    /// the shared queue; the oldest one waiting in a full queue (the first tried this cycle,
    /// since the queue is served first, oldest first) is deflected to a random output with room
    /// for the whole packet. Injection waits.
    pub(super) fn shared_queue_fallback(&mut self, u: Node, vc: u32, deflection_tried: &mut bool) -> Option<u32> {
        if vc < self.net_vcs {
            let free = self.mq_free[u as usize];
            if free == 0 {
                return None;
            }
            let q = free.trailing_zeros();
            self.mq_free[u as usize] &= free - 1;
            return Some(self.mq_base + u * self.mq + q);
        }
        if vc < self.mq_base || *deflection_tried || self.mq_free[u as usize] != 0 {
            return None;
        }
        *deflection_tried = true;
        self.deflect(u)
    }

    /// An output VC of router `u` chosen uniformly at random among those with room for a whole
    /// packet, with the routing random stream; `None` if there is none. The header's productive
    /// outputs have no room (it would have taken one), so this is a misroute.
    fn deflect(&mut self, u: Node) -> Option<u32> {
        let mut room = 0u32;
        for p in 0..self.ports {
            let vc = self.torus.channel(u, p) * self.vcs;
            if self.owner[vc as usize] == NONE && self.credits[vc as usize] >= self.cut_through {
                room |= 1 << p;
            }
        }
        if room == 0 {
            return None;
        }
        for _ in 0..self.routing_rng.below(room.count_ones()) {
            room &= room - 1;
        }
        self.misroutes += 1;
        Some(self.torus.channel(u, room.trailing_zeros()) * self.vcs)
    }

    /// A flit of message `slot` arrives in shared-queue slot `to`; a header is routed from the
    /// next cycle. It is still in the network but has not crossed a channel.
    pub(super) fn enter_shared_queue(&mut self, to: u32, slot: u32, header: bool, now: u64) {
        let t = to as usize;
        if self.flits[t] == 0 {
            self.mark_active(to);
        }
        self.flits[t] += 1;
        self.flits_in_network += 1;
        if header {
            self.messages[slot as usize].header_ready = now + 1;
        }
    }

    /// The tail left shared-queue slot `vc`: the slot is free for the next blocked header.
    pub(super) fn leave_shared_queue(&mut self, vc: u32) {
        self.owner[vc as usize] = NONE;
        let u = self.vc_router(vc);
        let q = vc - self.mq_base - u * self.mq;
        self.mq_free[u as usize] |= 1 << q;
    }

    /// Debug invariants of the shared queues and the injection limit; returns the flits the
    /// queues hold.
    pub(super) fn check_shared_queues(&self) -> u64 {
        let cycle = self.cycle;
        let mut held = 0u64;
        for vc in self.mq_base..self.flits.len() as u32 {
            let v = vc as usize;
            let u = self.vc_router(vc);
            let q = vc - self.mq_base - u * self.mq;
            let free = self.mq_free[u as usize] >> q & 1 == 1;
            assert_eq!(free, self.owner[v] == NONE, "cycle {cycle}: slot {q} of router {u}: free bit and owner disagree");
            assert!(self.sent[v] + self.flits[v] <= self.len, "cycle {cycle}: slot {q} of router {u} holds more than a packet");
            if self.flits[v] > 0 || self.sent[v] > 0 {
                assert!(!free, "cycle {cycle}: free slot {q} of router {u} holds flits");
            }
            held += self.flits[v] as u64;
        }
        // Every message whose header has left its injection VC is outstanding until delivered.
        let live = (self.messages.len() - self.free_messages.len()) as u64;
        let unrouted_injections =
            (self.net_vcs..self.mq_base).filter(|&vc| self.owner[vc as usize] != NONE && self.out[vc as usize] == NONE).count() as u64;
        let outstanding: u64 = self.outstanding.iter().map(|&o| o as u64).sum();
        assert_eq!(outstanding, live - self.messages_queued - unrouted_injections, "cycle {cycle}: outstanding count is stale");
        assert!(self.outstanding.iter().all(|&o| o <= self.outstanding_limit), "cycle {cycle}: injection limit exceeded");
        // Virtual cut-through: from the header's allocation until the tail is sent, nothing else
        // enters the output VC, so it keeps room for the rest of the packet.
        for vc in 0..self.flits.len() {
            let out = self.out[vc];
            if out < self.net_vcs {
                assert!(
                    self.credits[out as usize] >= self.len - self.sent[vc],
                    "cycle {cycle}: VC {vc} forwards a packet its next buffer cannot hold"
                );
            }
        }
        held
    }
}
