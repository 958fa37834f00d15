//! Minimal adaptive routing with *-channels (MIN AD; seed 004 §4.1 and Table 1, after Linder &
//! Harden / Dally's *-channels). Always in the minimal quadrant; at each hop the productive
//! dimension with the shortest output queue is taken. Each channel has a non-* VC (fully
//! adaptive) and two *-channels *0/*1, usable only on the lowest productive dimension (dimension
//! order), *1 once the message has crossed the wrap-around link of that dimension.
//!
//! Unlike [`super::duato`], the *-channel competes at the same priority as the non-* VCs: the
//! port is chosen by queue length first, and on the chosen port a free non-* VC is taken before
//! a *-channel.
//!
//! `routing=minad&vcs=3` (VCs above 3 are added to the non-* set).

use super::duato::productive_ports;
use super::{dimension_order_hop, escape_pair_classes, minimal_directions, Candidates, RoutePlan, Routing, VcClass, VcSets, EJECT};
use crate::rng::Draw;
use crate::topology::{Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct MinAd {
    pub sets: VcSets,
}

/// Every productive port of the plan's quadrant on the non-* VCs, and the *-channel of the
/// lowest productive dimension, all at one priority. Shared with [`super::goal`], which differs
/// only in the quadrant it plans.
pub(super) fn star_channel_candidates(sets: &VcSets, t: &Torus, at: Node, plan: &RoutePlan, out: &mut Candidates) {
    match dimension_order_hop(t, at, plan) {
        Some((port, wrapped)) => {
            productive_ports(t, at, plan, sets.adaptive(), 0, out);
            out.push(port, sets.escape(wrapped), 0);
        }
        None => out.push(EJECT, 0, 0),
    }
}

impl Routing for MinAd {
    fn vc_classes(&self, _vcs: u32, _n: u32) -> Vec<VcClass> {
        escape_pair_classes(&self.sets, "*-channel", "non-* (adaptive)")
    }

    fn plan(&self, t: &Torus, src: Node, dest: Node, rng: &mut impl Draw) -> RoutePlan {
        RoutePlan::towards(t, src, dest, dest, minimal_directions(t, src, dest, rng), 0)
    }

    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        star_channel_candidates(&self.sets, t, at, plan, out);
    }

    fn atomic_vcs(&self) -> u32 {
        self.sets.adaptive()
    }
}
