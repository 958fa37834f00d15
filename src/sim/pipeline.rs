//! Router, link and credit delays (`rdelay`, `ldelay`, `cdelay`): a flit that crosses a channel
//! can leave its new buffer 1 + `ldelay` cycles later (a header `rdelay` more, its router's
//! pipeline), and the credit it frees there can be spent upstream 1 + `ldelay` + `cdelay`
//! cycles after it leaves.
//!
//! A flit still on the wire is kept in its downstream buffer already, with the cycle from which
//! it may leave: that is where its credit went, so buffer occupancy and credits stay the same
//! counts as without delays, and a flit sits in one place. Without delays none of this runs:
//! the input-queued router is compiled once with and once without it ([`Simulation::step`]).

use super::table::Table;
use super::{Simulation, Vc, NONE};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Pipeline {
    /// Cycles from a flit's crossing until it may leave its new buffer: 1 + `ldelay`, and a
    /// header's, 1 + `ldelay` + `rdelay`.
    flit_lag: u64,
    header_lag: u64,
    /// Cycles from a flit leaving a network VC until upstream may spend its credit.
    credit_lag: u32,
    /// Per network VC buffer slot (parallel to the FIFOs): the cycle from which its flit may
    /// leave.
    ready: Table<u64>,
    /// Per network VC: credits on their way back upstream (slots empty, not yet usable).
    owed: Table<u16>,
    /// Credits in flight, a ring of `credit_lag` cycles: the VCs whose credits become usable at
    /// the start of that cycle, at most `per_cycle` each.
    returns: Table<u32>,
    returning: Table<u32>,
    per_cycle: u32,
}

impl Pipeline {
    /// The delays of a scenario: empty when it has none. `moves` is the most flits that can
    /// move in one cycle.
    pub(super) fn new(s: &Scenario, net_vcs: u32, moves: usize) -> Pipeline {
        if !s.has_delays() {
            return Pipeline::default();
        }
        let credit_lag = 1 + s.link_delay + s.credit_delay;
        Pipeline {
            flit_lag: 1 + s.link_delay as u64,
            header_lag: 1 + (s.link_delay + s.router_delay) as u64,
            credit_lag,
            ready: vec![0; (net_vcs * s.buf) as usize].into(),
            owed: vec![0; net_vcs as usize].into(),
            returns: vec![0; credit_lag as usize * moves].into(),
            returning: vec![0; credit_lag as usize].into(),
            per_cycle: moves as u32,
        }
    }

    /// Whether the flit at FIFO position `index` of a network VC may leave in cycle `now`.
    #[inline(always)]
    pub(super) fn flit_ready(&self, index: usize, now: u64) -> bool {
        self.ready[index] <= now
    }

    /// Whether network VC `vc`'s sender holds no credit: its buffer is full, or the rest of its
    /// free slots' credits are still on their way back.
    #[inline(always)]
    pub(super) fn no_credit(&self, vcs: &Table<Vc>, vc: u32, buf: u16) -> bool {
        vcs[vc as usize].flits + self.owed[vc as usize] >= buf
    }

    /// Credits owed to network VC `vc`'s sender.
    pub(super) fn owed(&self, vc: u32) -> u16 {
        self.owed.get(vc as usize).copied().unwrap_or(0)
    }
}

impl Simulation {
    /// Whether network VC `vc`'s front flit is a header that has crossed its channel and waits
    /// out its router's delay (the page draws it in the router).
    pub(super) fn header_in_router(&self, vc: u32) -> bool {
        let v = &self.vc[vc as usize];
        if !self.delayed || v.flits == 0 || v.sent != 0 || v.out != NONE {
            return false;
        }
        let p = &self.pipeline;
        let ready = p.ready[(vc * self.buf as u32 + v.head as u32) as usize];
        ready > self.cycle && ready - (p.header_lag - p.flit_lag) <= self.cycle
    }

    /// The credits that come back upstream at the start of this cycle become usable.
    #[inline(always)]
    pub(super) fn return_credits(&mut self) {
        let p = &mut self.pipeline;
        let at = (self.cycle % p.credit_lag as u64) as usize;
        let first = at * p.per_cycle as usize;
        for i in first..first + p.returning[at] as usize {
            let vc = p.returns[i] as usize;
            p.owed[vc] -= 1;
        }
        p.returning[at] = 0;
    }

    /// A flit left network VC `vc` this cycle: its credit is on its way back.
    #[inline(always)]
    pub(super) fn send_credit(&mut self, vc: u32) {
        let p = &mut self.pipeline;
        p.owed[vc as usize] += 1;
        // The slot of this cycle has been emptied at its start; it comes round again
        // `credit_lag` cycles on.
        let at = (self.cycle % p.credit_lag as u64) as usize;
        p.returns[at * p.per_cycle as usize + p.returning[at] as usize] = vc;
        p.returning[at] += 1;
    }

    /// A flit of message `slot` has just crossed into network VC `to` (the last flit of its
    /// buffer): it may leave from `flit_lag` cycles on, a header from `header_lag`.
    #[inline(always)]
    pub(super) fn delay_arrival(&mut self, to: u32, slot: u32, header: bool) {
        let buf = self.buf as u32;
        let Vc { head, flits, .. } = self.vc[to as usize];
        let at = (head as u32 + flits as u32 - 1) % buf;
        let p = &mut self.pipeline;
        let ready = self.cycle + if header { p.header_lag } else { p.flit_lag };
        p.ready[(to * buf + at) as usize] = ready;
        if header {
            self.messages[slot as usize].header_ready = ready;
        }
    }
}
