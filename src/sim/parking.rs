//! Parking: a header refused every VC it may take is not routed again until one of its
//! router's output VCs is released.
//!
//! Allocation only ever takes VCs; they are released when the moves are applied, as a tail
//! crosses a channel. So a header that found no free VC among its candidates at router `u`
//! would be refused again, cycle after cycle, until a tail leaves `u`. Routing it again each
//! cycle is most of what a saturated network with long messages costs; instead its input VC
//! is *parked*: its bit moves from the router's active words (which the allocation sweeps) to
//! its parked words, and the next tail to leave `u` puts every parked VC of `u` back. Flits
//! arriving behind a parked header leave it parked. Results are the same as routing every
//! header every cycle: debug builds check each cycle that every parked header would be refused
//! ([`Simulation::check_parked`]).
//!
//! It is used where it pays (`parks`): with messages of more than one flit (with single
//! flits every move releases a VC, so almost nothing would stay parked, and the bookkeeping
//! would cost), for algorithms whose VCs are free as soon as the tail has passed (not those
//! with atomic VCs, which free a VC only once it is empty, an event at another router), and
//! without chaos or scouting, whose headers move for other reasons.

use super::{Simulation, NO_PORT};
use crate::routing::{Candidates, Routing};
use crate::topology::Node;

impl Simulation {
    /// The header at the front of input VC `vc` was refused every VC it may take.
    // Out of line: inlined, it cost the allocator registers on every algorithm, parking or not.
    #[inline(never)]
    pub(super) fn park(&mut self, vc: u32) {
        if !self.parks {
            return;
        }
        let w = self.place[vc as usize].word as usize;
        let bit = 1u64 << (self.vc[vc as usize].local % 64);
        self.active_vcs[w] &= !bit;
        self.parked_vcs[w] |= bit;
    }

    /// A tail left router `u`, releasing one of its output VCs: its parked VCs are active again
    /// (and so is the router, which has just sent the tail).
    #[inline(always)]
    pub(super) fn wake_router(&mut self, u: Node) {
        let first = (u << self.active_shift) as usize;
        for w in first..first + (1 << self.active_shift) {
            self.active_vcs[w] |= std::mem::take(&mut self.parked_vcs[w]);
        }
    }

    /// Every parked VC's front flit is a header that would be refused if it were routed now, so
    /// that skipping it changes nothing.
    pub(super) fn check_parked<R: Routing>(&self, r: &R) {
        let mut candidates = Candidates::default();
        for vc in 0..self.all_vcs {
            let v = &self.vc[vc as usize];
            if self.parked_vcs[self.place[vc as usize].word as usize] >> (v.local % 64) & 1 == 0 {
                continue;
            }
            assert!(
                (v.out, v.sent, v.blocked) == (super::NONE, 0, 1) && v.flits > 0,
                "cycle {}: VC {vc} is parked but its front is no blocked header",
                self.cycle
            );
            let u = self.vc_router(vc);
            let mut plan = self.messages[self.front(vc) as usize].plan;
            candidates.clear();
            r.candidates(&self.torus, u, &mut plan, &mut candidates);
            let chosen = self.select::<false>(u, candidates.as_slice(), NO_PORT);
            assert_eq!(chosen, None, "cycle {}: VC {vc} is parked but a VC is free for its header", self.cycle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn parked(sim: &Simulation, vc: u32) -> bool {
        sim.parked_vcs[sim.place[vc as usize].word as usize] >> (sim.vc[vc as usize].local % 64) & 1 == 1
    }

    /// (source, hops, latency) of each delivery so far.
    fn delivered(sim: &mut Simulation) -> Vec<(Node, u32, u64)> {
        sim.take_deliveries().iter().map(|d| (d.src, d.hops, d.delivered + 1 - d.generated)).collect()
    }

    #[test]
    fn a_refused_header_is_parked_until_a_tail_leaves_its_router() {
        // A ring of 8 under DOR, 4-flit messages. Network VC `(2·node + port)·2 + v`: VC 0 is
        // channel 0→1 (buffered at node 1), VC 4 channel 1→2.
        let s = Scenario::parse("k=8&n=1&routing=dor&len=4&buf=4&vcs=2&warmup=0&cycles=100").unwrap();
        let mut sim = Simulation::new(&s).unwrap();
        sim.set_traffic(false);
        sim.record_deliveries();
        let a = sim.send(0, 2);
        let b = sim.send(1, 2);
        // Cycle 0: A's header crosses 0→1, B's 1→2.
        sim.step();
        assert_eq!((sim.vc[0].owner, sim.vc[4].owner), (a, b));
        // Cycle 1: at node 1, A's header finds 1→2's class-0 VC taken by B: parked.
        sim.step();
        assert!(parked(&sim, 0));
        // Cycles 2 and 3: A's body arrives behind its header and it stays parked; B's tail
        // crosses 1→2 in cycle 3 and wakes node 1.
        sim.step();
        assert!(parked(&sim, 0));
        assert_eq!(sim.vc[0].flits, 3);
        sim.step();
        assert!(!parked(&sim, 0));
        assert_eq!(sim.vc[0].flits, 4);
        while sim.flits_in_network > 0 {
            sim.step();
        }
        // B: M + H = 5. A: M + H = 6, plus the three cycles it waited at node 1.
        assert_eq!(delivered(&mut sim), [(1, 1, 5), (0, 2, 9)]);
    }

    /// The report of a run with parking on or off.
    fn report(text: &str, parking: bool) -> (crate::sim::RunReport, bool) {
        let mut sim = Simulation::new(&Scenario::parse(text).unwrap()).unwrap();
        assert!(sim.parks, "{text} parks");
        sim.parks = parking;
        let mut parked_some = false;
        for _ in 0..1_000 {
            sim.step();
            parked_some |= sim.parked_vcs.iter().any(|&w| w != 0);
        }
        (sim.run(), parked_some)
    }

    #[test]
    fn parking_changes_no_result() {
        for text in [
            "k=8&routing=dor&traffic=uniform&len=16&rate=0.03&warmup=500&cycles=2000&seed=3",
            "k=8&routing=dor&traffic=transpose&len=8&rate=0.05&vcs=4&buf=4&warmup=500&cycles=2000",
            "k=6&n=3&routing=val&traffic=uniform&len=4&rate=0.04&vcs=4&warmup=500&cycles=2000",
            "k=8&routing=romm&traffic=tornado&len=16&rate=0.03&vcs=4&warmup=500&cycles=2000",
            // 73 inputs per router: two active words each.
            "k=4&n=3&routing=dor&traffic=uniform&len=8&rate=0.08&vcs=12&warmup=500&cycles=1500",
        ] {
            let (with, parked_some) = report(text, true);
            let (without, parked_none) = report(text, false);
            assert!(parked_some && !parked_none, "{text}: parking never happened");
            assert_eq!(with, without, "{text}");
        }
    }
}
