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
    #[cold]
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
            if self.vc[vc as usize].owner == NONE && self.credits(vc as usize) >= self.cut_through {
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
        let vc = self.torus.channel(u, room.trailing_zeros()) * self.vcs;
        self.stats.deflected(self.cycle, vc);
        Some(vc)
    }

    /// A flit of message `slot` arrives in shared-queue slot `to`; a header is routed from the
    /// next cycle. It is still in the network but has not crossed a channel.
    #[cold]
    pub(super) fn enter_shared_queue(&mut self, to: u32, slot: u32, header: bool, now: u64) {
        self.vc[to as usize].flits += 1;
        self.mark_filled(to, false);
        self.flits_in_network += 1;
        if header {
            self.messages[slot as usize].header_ready = now + 1;
        }
    }

    /// The tail left shared-queue slot `vc`: the slot is free for the next blocked header.
    #[cold]
    pub(super) fn leave_shared_queue(&mut self, vc: u32) {
        self.vc[vc as usize].owner = NONE;
        let u = self.vc_router(vc);
        let q = vc - self.mq_base - u * self.mq;
        self.mq_free[u as usize] |= 1 << q;
    }

    /// Debug invariants of the shared queues and the injection limit; returns the flits the
    /// queues hold.
    pub(super) fn check_shared_queues(&self) -> u64 {
        let cycle = self.cycle;
        let mut held = 0u64;
        for vc in self.mq_base..self.all_vcs {
            let v = &self.vc[vc as usize];
            let u = self.vc_router(vc);
            let q = vc - self.mq_base - u * self.mq;
            let free = self.mq_free[u as usize] >> q & 1 == 1;
            assert_eq!(free, v.owner == NONE, "cycle {cycle}: slot {q} of router {u}: free bit and owner disagree");
            assert!(v.sent + v.flits <= self.len, "cycle {cycle}: slot {q} of router {u} holds more than a packet");
            if v.flits > 0 || v.sent > 0 {
                assert!(!free, "cycle {cycle}: free slot {q} of router {u} holds flits");
            }
            held += v.flits as u64;
        }
        // Every message whose header has left its injection VC is outstanding until delivered.
        let live = (self.messages.len() - self.free_messages.len()) as u64;
        let unrouted_injections =
            (self.net_vcs..self.mq_base).filter(|&vc| self.vc[vc as usize].owner != NONE && self.vc[vc as usize].out == NONE).count() as u64;
        let outstanding: u64 = self.outstanding.iter().map(|&o| o as u64).sum();
        assert_eq!(outstanding, live - self.messages_queued - unrouted_injections, "cycle {cycle}: outstanding count is stale");
        assert!(self.outstanding.iter().all(|&o| o <= self.outstanding_limit), "cycle {cycle}: injection limit exceeded");
        // Virtual cut-through: from the header's allocation until the tail is sent, nothing else
        // enters the output VC, so it keeps room for the rest of the packet.
        for vc in 0..self.all_vcs as usize {
            let out = self.vc[vc].out;
            if out < self.net_vcs {
                assert!(
                    self.credits(out as usize) >= self.len - self.vc[vc].sent,
                    "cycle {cycle}: VC {vc} forwards a packet its next buffer cannot hold"
                );
            }
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn quiet(text: &str) -> Simulation {
        let mut sim = Simulation::new(&Scenario::parse(text).unwrap()).unwrap();
        sim.set_traffic(false);
        sim.record_deliveries();
        sim
    }

    /// The shared-queue slots of router `u` that hold flits: (message, flits).
    fn queue(sim: &Simulation, u: Node) -> Vec<(u32, u16)> {
        let slots = sim.mq_base + u * sim.mq..sim.mq_base + (u + 1) * sim.mq;
        slots.filter(|&vc| sim.vc[vc as usize].flits > 0).map(|vc| (sim.vc[vc as usize].owner, sim.vc[vc as usize].flits)).collect()
    }

    #[test]
    fn chaos_queues_a_blocked_header_and_deflects_it_when_the_queue_is_full() {
        // A ring of 8, 2-flit packets, 2-flit buffers, a 1-packet shared queue. Network VC
        // `2·node + port`: VC 2 is channel 1→2 (buffered at node 2), VC 4 channel 2→3, VC 5
        // channel 2→1 (buffered at node 1).
        let mut sim = quiet("k=8&n=1&routing=chaos&len=2&buf=2&mq=1&warmup=0&cycles=100");
        let a = sim.send(1, 3);
        let b = sim.send(2, 3);
        // Cycle 0: A's header crosses 1→2, B's 2→3.
        sim.step();
        assert_eq!((sim.vc[2].owner, sim.vc[4].owner), (a, b));
        // Cycle 1: 2→3 still belongs to B (its tail crosses now), so A's header moves into
        // node 2's shared queue, and A's tail follows it to node 2.
        sim.step();
        assert_eq!(queue(&sim, 2), [(a, 1)]);
        assert_eq!((sim.vc[2].flits, sim.vc[4].flits), (1, 1));
        assert_eq!(sim.misroutes, 0);
        // Cycle 2: 2→3 is free, but B's tail still fills half its buffer: no room for the whole
        // of A. The queue is full, so A, its oldest packet, is deflected onto the only output
        // with room, 2→1; its tail moves into the queue behind it. B's tail is delivered.
        sim.step();
        assert_eq!(sim.misroutes, 1);
        assert_eq!((sim.vc[5].owner, sim.vc[5].flits), (a, 1));
        assert_eq!(queue(&sim, 2), [(a, 1)]);
        let delivered = sim.take_deliveries();
        assert_eq!(delivered.iter().map(|d| (d.src, d.hops, d.delivered)).collect::<Vec<_>>(), [(2, 1, 2)]);
        // Cycle 3: A's header turns back minimally into 1→2, emptied by A's tail a cycle ago;
        // the tail leaves the queue for 2→1 and the slot is free again.
        sim.step();
        assert_eq!((sim.vc[2].owner, sim.vc[2].flits, sim.vc[5].flits), (a, 1, 1));
        assert!(queue(&sim, 2).is_empty());
        assert_eq!(sim.mq_free[2], 1);
        while sim.flits_in_network > 0 {
            sim.step();
        }
        // A went 1→2→1 and then minimally 1→2→3: two hops more than its distance.
        let a_delivered = sim.take_deliveries();
        assert_eq!(a_delivered.iter().map(|d| (d.src, d.hops)).collect::<Vec<_>>(), [(1, 4)]);
        assert_eq!(sim.misroutes, 1);
    }

    #[test]
    fn chaos_deflections_each_add_two_hops_on_a_ring() {
        // More packets on the same ring: node 2's queue keeps filling. A deflection from node 2
        // lands two hops from node 3, one hop farther, so each costs exactly two hops.
        let mut sim = quiet("k=8&n=1&routing=chaos&len=2&buf=2&mq=1&warmup=0&cycles=100");
        for _ in 0..3 {
            sim.send(1, 3);
            sim.send(2, 3);
        }
        while sim.messages_queued > 0 || sim.flits_in_network > 0 || sim.active_routers[0] != 0 {
            sim.step();
        }
        let delivered = sim.take_deliveries();
        assert_eq!(delivered.len(), 6);
        let extra: u32 = delivered.iter().map(|d| d.hops - sim.torus.distance(d.src, d.dest)).sum();
        assert!(sim.misroutes > 0);
        assert_eq!(extra as u64, 2 * sim.misroutes);
    }

    #[test]
    fn chaos_takes_minimal_paths_at_low_load() {
        // At 5% of capacity the 64-packet queues never fill: no deflection, every packet minimal.
        let s = Scenario::parse("k=8&routing=chaos&traffic=uniform&len=1&buf=8&rate=0.05&warmup=0&cycles=3000&seed=5").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        sim.record_deliveries();
        for _ in 0..3000 {
            sim.step();
        }
        let delivered = sim.take_deliveries();
        assert!(delivered.len() > 5000, "{}", delivered.len());
        assert!(delivered.iter().all(|d| d.hops == sim.torus.distance(d.src, d.dest)));
        assert_eq!(sim.misroutes, 0);
    }

    #[test]
    fn chaos_runs_are_a_function_of_the_seed() {
        // Past saturation on bit-complement traffic with small queues, where deflections (drawn
        // from the routing stream) happen.
        let run = |seed| {
            let text = format!("k=4&routing=chaos&traffic=bitcomp&len=2&buf=2&mq=2&rate=0.4&warmup=200&cycles=1500&seed={seed}");
            crate::sim::run(&Scenario::parse(&text).unwrap()).unwrap()
        };
        let (first, again, other) = (run(3), run(3), run(4));
        assert!(first.misroutes > 0 && !first.deadlock);
        assert_eq!(first, again);
        assert_ne!(first.misroutes, other.misroutes);
    }
}
