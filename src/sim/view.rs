//! Read-only views of the simulation for the page: what it draws beyond the per-VC arrays.
//! Kept apart from the stepping code so that the page's needs never touch the hot loop.

use super::Simulation;
use crate::routing::{Routing, VcClass};

impl Simulation {
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
