//! Read-only views of the simulation for the page: what it draws beyond the per-VC arrays.
//! Kept apart from the stepping code so that the page's needs never touch the hot loop.

use super::Simulation;
use crate::routing::{Routing, VcClass};

/// The network VCs' state as the page draws it, one flat array per field, indexed
/// `channel · V + v`: a copy taken by [`Simulation::snapshot_vcs`], so that the page can read it
/// straight out of wasm memory while the simulator keeps each VC's state in one record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VcSnapshot {
    /// Flits buffered in each VC.
    pub flits: Vec<u16>,
    /// The message each VC is allocated to (its slot in the message table), `u32::MAX` when free.
    pub owner: Vec<u32>,
    /// 1 where the VC's front flit is a header that found no free VC in the last cycle.
    pub blocked: Vec<u8>,
}

impl Simulation {
    /// Copies the network VCs' state into `into`, reusing its memory.
    pub fn snapshot_vcs(&self, into: &mut VcSnapshot) {
        let vcs = &self.vc[..self.net_vcs as usize];
        into.flits.clear();
        into.flits.extend(vcs.iter().map(|v| v.flits));
        into.owner.clear();
        into.owner.extend(vcs.iter().map(|v| v.owner));
        into.blocked.clear();
        into.blocked.extend(vcs.iter().map(|v| v.blocked));
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

    /// The most recent scouting backtracks, oldest first, as (cycle, channel backtracked over).
    pub fn recent_backtracks(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.stats.recent_backtracks()
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
        assert_eq!(log.len(), super::super::stats::BACKTRACK_LOG);
        assert!(log.windows(2).all(|w| w[0].0 <= w[1].0), "oldest first: {log:?}");
        assert!(log.last().unwrap().0 <= sim.cycle());
        assert!(log.iter().all(|&(_, c)| c < sim.torus().channels()));
    }
}
