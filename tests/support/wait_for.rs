//! Checks of a reported deadlock cycle against the public state of the stuck network, made
//! without the simulator's own wait-for graph.

use torus_explorer::sim::Simulation;

/// VC `a` waits for VC `b`: `b` is on a channel out of the router holding `a`'s buffer, `a`
/// holds flits, and `b` is either unavailable to a new message — taken by another, or not yet
/// empty where the algorithm reallocates only empty VCs — while `a`'s front header is blocked,
/// or full while `a`'s front message has no credit.
pub fn assert_each_waits_for_the_next(sim: &Simulation, vcs: &[u32]) {
    assert!(!vcs.is_empty(), "no cycle reported");
    let t = sim.torus();
    let snapshot = sim.vc_snapshot();
    let (flits, owner, blocked) = (&snapshot.flits, &snapshot.owner, &snapshot.blocked);
    let buf = sim.scenario().buf as u16;
    for (i, &a) in vcs.iter().enumerate() {
        let b = vcs[(i + 1) % vcs.len()];
        let (ca, cb) = (a / sim.vcs(), b / sim.vcs());
        let router = t.neighbour(t.channel_source(ca), t.channel_port(ca));
        assert_eq!(t.channel_source(cb), router, "VC {b} does not leave the router of VC {a}");
        assert!(flits[a as usize] > 0, "VC {a} is empty, so it waits for nothing");
        let header_blocked = blocked[a as usize] == 1 && (owner[b as usize] != u32::MAX || flits[b as usize] > 0);
        assert!(header_blocked || flits[b as usize] == buf, "VC {a} could move into VC {b}");
    }
}

/// The channels form a closed walk: each ends where the next begins, the last where the first
/// begins.
pub fn assert_channels_close(sim: &Simulation, channels: &[u32]) {
    let t = sim.torus();
    for (i, &c) in channels.iter().enumerate() {
        let next = channels[(i + 1) % channels.len()];
        assert_eq!(t.neighbour(t.channel_source(c), t.channel_port(c)), t.channel_source(next), "{channels:?}");
    }
}
