//! Router organisations other than the input-queued router (`router=`, see
//! [`RouterOrganisation`]): the allocation and the moves of a cycle when any of these is on.
//!
//! - **maxmatch**: switch allocation finds a maximum-size matching of input ports to output
//!   ports. The input-queued router's single pass in age order already finds a *maximal* one (a
//!   request is refused only when its input or its output is taken), which is what a separable
//!   allocator reaches after enough iterations and what a wavefront allocator finds; the most any
//!   switch allocator can add to it is the difference between maximal and maximum.
//! - **damq**: a VC's buffer is not a FIFO. While no message is leaving it, any message it holds
//!   whole may be routed first (oldest first, as every arbiter here); the chosen message's flits
//!   move to the front of the buffer, as a dynamically allocated multi-queue would link them.
//! - **speedup2**: each switch input and output port carries up to two flits a cycle (one per
//!   VC), and each output port keeps a queue of the flits its channel cannot send at once. A flit
//!   takes its downstream credit as it enters the queue, so a queue never holds more than the
//!   downstream buffers (V · buf flits) and every queued flit can go; the channel sends the
//!   oldest queued flit each cycle. A flit that finds the queue empty crosses the channel in the
//!   same cycle, so zero-load latency stays M + H.
//! - **wide**: 2n injection VCs per node, each a switch input of its own, take messages from the
//!   node's source queue in order; and the ejection port takes up to 2n flits a cycle.
//! - **voq** (with `wide`): the source queue is split into a virtual output queue per network
//!   port. A message joins the queue of its first hop, the first candidate its routing
//!   algorithm gives at the source, and the injection VC of that port takes the oldest message
//!   of its queue; so a message never waits at the source behind messages bound another way,
//!   which under `wide` alone it does whenever two of the four injection VCs hold messages bound
//!   the same way (nearest-neighbour traffic stops at 0.83 of its bound; docs/experiments/
//!   router.md). The header then routes as under `wide`, from its own injection VC.
//!
//! The input-queued router's own allocation and moves ([`Simulation::step_with`]) are untouched:
//! these run instead, for every algorithm but chaos, under wormhole switching. They also run the
//! input-queued router itself when message lengths vary (`lengths=`): with none of the features
//! they allocate exactly as it does (a test below compares the two), and they read each
//! message's length where the input-queued router's moves take every message to be `len`.

use super::{is_credited, Contender, Move, Simulation, EJECT_VC, NONE};
use crate::routing::{Candidates, Routing};
use crate::topology::Node;
use serde::{Deserialize, Serialize};

/// A request for the switch at the router being allocated: a message that could move this cycle.
#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    /// The message's age (its id).
    age: u64,
    vc: u32,
    slot: u32,
    /// The VC's output (`NONE` while the message's header is unrouted).
    out: u32,
    /// The switch input port the VC sits at.
    port: u8,
    /// Where the message's flits start in the VC's buffer, counted from its front (0 but under
    /// `damq`).
    offset: u16,
    /// The message's length in flits.
    len: u16,
}

/// A flit waiting at an output for its channel ([`super::Simulation::out_queue`]): its VC
/// downstream, with [`HEADER_BIT`] set for a header and [`RELEASE_BIT`] for a tail that frees
/// its VC on arrival, and its message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct QueuedFlit {
    to: u32,
    slot: u32,
}

const HEADER_BIT: u32 = 1 << 31;
const RELEASE_BIT: u32 = 1 << 30;

/// Input ports of a router: 2n network ports and at most 2n injection channels.
const MAX_INPUTS: usize = 12;
/// Output ports: 2n network ports and the ejection port.
const MAX_OUTPUTS: usize = 7;
/// Requests at one router under maxmatch: one per input VC, at most 128.
const MAX_REQUESTS: usize = 128;

/// Flits granted through each switch port so far this cycle, at the router being allocated.
#[derive(Clone, Copy, Debug, Default)]
struct PortLoad {
    inputs: [u8; MAX_INPUTS],
    outputs: [u8; MAX_OUTPUTS],
}

impl Simulation {
    /// One cycle under an organised router (see the module documentation); the same phases as
    /// [`Simulation::step_with`].
    #[inline(never)] // as step_with
    pub(super) fn step_organised<R: Routing>(&mut self, r: &R) {
        self.stats.begin_cycle(self.cycle);
        if self.generating {
            self.generate(r);
        }
        self.move_count = 0;
        let mut candidates = Candidates::default();
        for w in 0..self.active_routers.len() {
            let mut routers = self.active_routers[w];
            while routers != 0 {
                let bit = routers.trailing_zeros();
                routers &= routers - 1;
                let u = w as u32 * 64 + bit;
                if self.router_idle(u) {
                    self.active_routers[w] &= !(1 << bit);
                    continue;
                }
                self.allocate_organised(r, u, &mut candidates);
            }
        }
        self.count_busy_vcs();
        self.apply_organised_moves(r);
        if self.flits_in_network > 0 && self.cycle - self.last_move >= super::DEADLOCK_CYCLES {
            self.deadlock = true;
        }
        if cfg!(debug_assertions) {
            self.check_invariants();
        }
        self.cycle += 1;
    }

    /// Flits each output port of router `u` may take per cycle: `speedup` for a network port,
    /// and for the ejection port (index 2n) 2n under `wide`.
    fn output_capacity(&self, port: usize) -> u8 {
        if port == self.ports as usize && self.router.wide {
            self.ports as u8
        } else {
            self.router.speedup() as u8
        }
    }

    /// Allocation at router `u`, in age order as the input-queued router does: each unrouted
    /// header is allocated a VC, each routed message requests the switch, with this
    /// organisation's port capacities. Under `maxmatch` every header is routed first and the
    /// switch is then matched at maximum size.
    fn allocate_organised<R: Routing>(&mut self, r: &R, u: Node, candidates: &mut Candidates) {
        let mut requests = std::mem::take(&mut self.requests);
        self.collect_requests(u, &mut requests);
        let mut load = PortLoad::default();
        let mut deflection_tried = false;
        for i in 0..requests.len() {
            let mut q = requests[i];
            if q.out == NONE {
                // Under damq an older message of the same VC may have been routed already.
                if self.vc[q.vc as usize].out != NONE {
                    continue;
                }
                let c = Contender { age: q.age, vc: q.vc, slot: q.slot, out: NONE, port: q.port };
                q.out = self.allocate_vc::<R, false, false>(r, u, c, candidates, &mut deflection_tried);
                if q.out != NONE && q.offset > 0 {
                    self.bring_forward(q.vc, q.offset as u32, q.slot, q.len as u32);
                }
                requests[i].out = q.out;
            }
            if !self.router.maxmatch {
                self.request_switch_organised(q, &mut load);
            }
        }
        if self.router.maxmatch {
            self.match_maximum(&requests);
        }
        requests.clear();
        self.requests = requests;
    }

    /// Fills `requests` with the messages at router `u` that could move this cycle, oldest
    /// first: each routed front message with a credit downstream, each unrouted front header,
    /// and under `damq` every message held whole behind an unrouted front.
    fn collect_requests(&self, u: Node, requests: &mut Vec<Request>) {
        let buf = self.buf as u32;
        let base = (u * self.locals) as usize;
        let first_word = (u << self.active_shift) as usize;
        for word in 0..1usize << self.active_shift {
            let mut active = self.active_vcs[first_word + word];
            while active != 0 {
                let local = word * 64 + active.trailing_zeros() as usize;
                active &= active - 1;
                let vc = self.input_vcs[base + local];
                let v = &self.vc[vc as usize];
                let request = |slot: u32, offset: u32| {
                    let m = &self.messages[slot as usize];
                    Request { age: m.id, vc, slot, out: v.out, port: v.port, offset: offset as u16, len: self.messages[slot as usize].len }
                };
                if v.out != NONE {
                    if !self.has_credit(v.out) {
                        continue;
                    }
                    requests.push(request(self.front(vc), 0));
                    continue;
                }
                let many = self.router.damq && vc < self.net_vcs;
                let mut offset = 0;
                while offset < v.flits as u32 {
                    let slot = self.fifo[(vc * buf + (v.head as u32 + offset) % buf) as usize];
                    let run = self.messages[slot as usize].len as u32 - if offset == 0 { v.sent as u32 } else { 0 };
                    if offset > 0 && offset + run > v.flits as u32 {
                        break; // the last message, still arriving
                    }
                    debug_assert!(self.messages[slot as usize].header_ready <= self.cycle);
                    requests.push(request(slot, offset));
                    if !many {
                        break;
                    }
                    offset += run;
                }
            }
        }
        requests.sort_unstable_by_key(|q| (q.age, q.vc));
    }

    /// Whether a flit sent to output `out` would find a buffer slot: always for the ejection
    /// channel, and for a network VC while its flits and the credits held for it upstream leave
    /// room.
    fn has_credit(&self, out: u32) -> bool {
        !is_credited::<false>(out, self.net_vcs) || self.vc[out as usize].flits + self.reserved[out as usize] < self.buf
    }

    /// Under `damq`: the whole message `slot`, `offset` flits behind the front of `vc`, moves to
    /// the front; the flits before it move back behind it, in their order.
    fn bring_forward(&mut self, vc: u32, offset: u32, slot: u32, run: u32) {
        let buf = self.buf as u32;
        let (base, head) = (vc * buf, self.vc[vc as usize].head as u32);
        let at = |i: u32| (base + (head + i) % buf) as usize;
        for i in (0..offset).rev() {
            self.fifo[at(i + run)] = self.fifo[at(i)];
        }
        for i in 0..run {
            self.fifo[at(i)] = slot;
        }
    }

    /// Grants request `q` the switch if it is routed, has a credit, and its input port and
    /// output port have room left this cycle.
    fn request_switch_organised(&mut self, q: Request, load: &mut PortLoad) {
        if q.out == NONE || !self.has_credit(q.out) {
            return;
        }
        let out_port = self.vc[q.out.min(self.all_vcs) as usize].port as usize;
        if load.inputs[q.port as usize] >= self.router.speedup() as u8 || load.outputs[out_port] >= self.output_capacity(out_port) {
            return;
        }
        load.inputs[q.port as usize] += 1;
        load.outputs[out_port] += 1;
        self.grant_move(q);
    }

    /// `q` crosses the switch this cycle; under `speedup2` it takes its downstream credit now.
    fn grant_move(&mut self, q: Request) {
        self.moves[self.move_count] = Move { from: q.vc, to: q.out, slot: q.slot };
        self.move_count += 1;
        if self.router.speedup2 && q.out != EJECT_VC {
            self.reserved[q.out as usize] += 1;
        }
    }

    /// Under `maxmatch`: grants a maximum-size set of the routed requests with a credit, no
    /// port beyond its capacity ([`maximum_matching`]).
    fn match_maximum(&mut self, requests: &[Request]) {
        // One request per VC (maxmatch excludes damq): at most MAX_REQUESTS.
        let mut ports = [(0u8, 0u8); MAX_REQUESTS];
        let mut eligible = [0u8; MAX_REQUESTS];
        let mut n = 0;
        for (i, q) in requests.iter().enumerate() {
            if q.out != NONE && self.has_credit(q.out) {
                ports[n] = (q.port, self.vc[q.out.min(self.all_vcs) as usize].port);
                eligible[n] = i as u8;
                n += 1;
            }
        }
        let output_capacity: [u8; MAX_OUTPUTS] = std::array::from_fn(|p| self.output_capacity(p));
        let mut granted = [false; MAX_REQUESTS];
        maximum_matching(&ports[..n], self.router.speedup() as u8, &output_capacity, &mut granted[..n]);
        for i in 0..n {
            if granted[i] {
                self.grant_move(requests[eligible[i] as usize]);
            }
        }
    }
}

/// A maximum-size set of requests, each `(input port, output port)` and listed oldest first,
/// such that no input port carries more than `input_capacity` of them and no output port `b`
/// more than `output_capacity[b]`: the flow network source → input ports → output ports → sink.
/// It starts from the maximal set the age-ordered pass takes and grows it along augmenting
/// paths, which keep every port already used in use; among requests between the same two
/// ports the oldest are granted. Sets `granted[i]` for each request granted.
pub(super) fn maximum_matching(requests: &[(u8, u8)], input_capacity: u8, output_capacity: &[u8; MAX_OUTPUTS], granted: &mut [bool]) {
    let mut offered = [[0u8; MAX_OUTPUTS]; MAX_INPUTS];
    let mut flow = [[0u8; MAX_OUTPUTS]; MAX_INPUTS];
    let mut load = PortLoad::default();
    for &(a, b) in requests {
        let (a, b) = (a as usize, b as usize);
        offered[a][b] += 1;
        if load.inputs[a] < input_capacity && load.outputs[b] < output_capacity[b] {
            flow[a][b] += 1;
            load.inputs[a] += 1;
            load.outputs[b] += 1;
        }
    }
    loop {
        let mut seen_inputs = [false; MAX_INPUTS];
        let mut seen_outputs = [false; MAX_OUTPUTS];
        let grown = (0..MAX_INPUTS).find_map(|a| {
            if load.inputs[a] >= input_capacity {
                return None;
            }
            augment(a, &offered, &mut flow, &load, output_capacity, &mut seen_inputs, &mut seen_outputs).map(|b| (a, b))
        });
        let Some((a, b)) = grown else { break };
        load.inputs[a] += 1;
        load.outputs[b] += 1;
    }
    let mut taken = [[0u8; MAX_OUTPUTS]; MAX_INPUTS];
    for (&(a, b), granted) in requests.iter().zip(granted) {
        let (a, b) = (a as usize, b as usize);
        *granted = taken[a][b] < flow[a][b];
        taken[a][b] += *granted as u8;
    }
}

/// One augmenting path from input port `a`, which has room: to an output with room, or to a
/// full output and on from one of the inputs it takes flits from, which moves to another
/// output. Returns the output that gained a flit.
fn augment(
    a: usize,
    offered: &[[u8; MAX_OUTPUTS]; MAX_INPUTS],
    flow: &mut [[u8; MAX_OUTPUTS]; MAX_INPUTS],
    load: &PortLoad,
    output_capacity: &[u8],
    seen_inputs: &mut [bool; MAX_INPUTS],
    seen_outputs: &mut [bool; MAX_OUTPUTS],
) -> Option<usize> {
    seen_inputs[a] = true;
    for b in 0..MAX_OUTPUTS {
        if flow[a][b] >= offered[a][b] || seen_outputs[b] {
            continue;
        }
        seen_outputs[b] = true;
        if load.outputs[b] < output_capacity[b] {
            flow[a][b] += 1;
            return Some(b);
        }
        for other in 0..MAX_INPUTS {
            if flow[other][b] > 0 && !seen_inputs[other] {
                if let Some(end) = augment(other, offered, flow, load, output_capacity, seen_inputs, seen_outputs) {
                    flow[other][b] -= 1;
                    flow[a][b] += 1;
                    return Some(end);
                }
            }
        }
    }
    None
}

impl Simulation {
    /// Applies the cycle's moves: departures, then arrivals (or, under `speedup2`, the output
    /// queues: every granted flit joins its output's queue and each channel sends the oldest
    /// flit queued for it).
    fn apply_organised_moves<R: Routing>(&mut self, r: &R) {
        let now = self.cycle;
        if self.move_count > 0 {
            self.last_move = now;
        }
        for i in 0..self.move_count {
            let Move { from, to, slot } = self.moves[i];
            let sent = self.vc[from as usize].sent;
            let header = sent == 0;
            // Messages may differ in length here (`lengths=`).
            let tail = sent + 1 == self.messages[slot as usize].len;
            self.depart::<false>(from, tail, now);
            if header && from >= self.net_vcs {
                self.messages[slot as usize].injected = now;
            }
            if to == EJECT_VC {
                self.stats.ejected_flit();
                self.flits_delivered += 1;
                if tail {
                    self.deliver(r, slot, now);
                }
            } else if self.router.speedup2 {
                // A tail frees its VC for another message from the next cycle, as when it
                // arrives at once; an atomic VC ([`Routing::atomic_vcs`]) only once the tail is
                // in it, since it is reallocated only when empty.
                let atomic = self.atomic_vcs >> (to % self.vcs) & 1 == 1;
                self.enqueue(to, slot, header, tail && atomic);
                if tail && !atomic {
                    self.vc[to as usize].owner = NONE;
                    self.change_busy(self.place[to as usize].channel, -1);
                }
            } else {
                self.cross::<false>(from, to, slot, header, tail, now);
            }
        }
        if self.router.speedup2 {
            self.send_queued(now);
        }
    }

    fn enqueue(&mut self, to: u32, slot: u32, header: bool, release: bool) {
        let channel = self.place[to as usize].channel as usize;
        let depth = self.out_queue.len() / self.out_len.len();
        let at = channel * depth + (self.out_head[channel] as usize + self.out_len[channel] as usize) % depth;
        self.out_queue[at] = QueuedFlit { to: to | if header { HEADER_BIT } else { 0 } | if release { RELEASE_BIT } else { 0 }, slot };
        self.out_len[channel] += 1;
        self.queued_channels[channel / 64] |= 1 << (channel % 64);
    }

    /// Each channel with flits queued at its output sends the oldest across.
    fn send_queued(&mut self, now: u64) {
        let depth = self.out_queue.len() / self.out_len.len().max(1);
        for w in 0..self.queued_channels.len() {
            let mut channels = self.queued_channels[w];
            if channels != 0 {
                self.last_move = now;
            }
            while channels != 0 {
                let channel = w * 64 + channels.trailing_zeros() as usize;
                channels &= channels - 1;
                let head = self.out_head[channel] as usize;
                let QueuedFlit { to, slot } = self.out_queue[channel * depth + head];
                self.out_head[channel] = ((head + 1) % depth) as u16;
                self.out_len[channel] -= 1;
                if self.out_len[channel] == 0 {
                    self.queued_channels[w] &= !(1 << (channel % 64));
                }
                let (header, release, to) = (to & HEADER_BIT != 0, to & RELEASE_BIT != 0, to & !(HEADER_BIT | RELEASE_BIT));
                self.reserved[to as usize] -= 1;
                self.cross::<false>(NONE, to, slot, header, release, now);
            }
        }
    }

    /// Flits waiting in output queues; checks that each holds a credit of its VC and that
    /// the queue bits are right (debug builds, every cycle).
    pub(super) fn check_output_queues(&self) -> u64 {
        let mut held = vec![0u16; self.reserved.len()];
        let depth = if self.out_len.is_empty() { 0 } else { self.out_queue.len() / self.out_len.len() };
        let mut queued = 0;
        for (channel, &len) in self.out_len.iter().enumerate() {
            let bit = self.queued_channels[channel / 64] >> (channel % 64) & 1 == 1;
            assert_eq!(bit, len > 0, "cycle {}: channel {channel}'s queue bit is stale", self.cycle);
            for i in 0..len as usize {
                let f = self.out_queue[channel * depth + (self.out_head[channel] as usize + i) % depth];
                let to = f.to & !(HEADER_BIT | RELEASE_BIT);
                assert_eq!(self.place[to as usize].channel as usize, channel, "cycle {}: a flit queued for the wrong channel", self.cycle);
                held[to as usize] += 1;
            }
            queued += len as u64;
        }
        assert_eq!(&held[..], &self.reserved[..], "cycle {}: credits held upstream differ from the flits queued", self.cycle);
        queued
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn simulation(text: &str) -> Simulation {
        let mut sim = Simulation::new(&Scenario::parse(text).unwrap()).unwrap();
        sim.set_traffic(false);
        sim.record_deliveries();
        sim
    }

    /// (source, latency) of each delivery so far.
    fn delivered(sim: &mut Simulation) -> Vec<(Node, u64)> {
        sim.take_deliveries().iter().map(|d| (d.src, d.delivered + 1 - d.generated)).collect()
    }

    #[test]
    fn with_no_feature_the_organised_router_allocates_as_the_input_queued_one() {
        // The same run through the input-queued router's own phases and through these (which
        // also carry messages of varying length): every field of the reports agrees.
        for text in [
            "k=8&routing=dor&traffic=uniform&len=1&rate=0.7&vcs=2&buf=8&warmup=300&cycles=1500",
            "k=8&routing=goal&traffic=tornado&len=1&rate=0.5&vcs=3&buf=8&warmup=300&cycles=1500",
            "k=8&routing=val&traffic=uniform&len=4&rate=0.08&vcs=4&buf=4&warmup=300&cycles=1500",
            "k=8&routing=duato&traffic=bitcomp&len=16&rate=0.03&vcs=4&buf=4&warmup=300&cycles=1500",
            "k=4&n=3&routing=rlb&traffic=uniform&len=3&rate=0.1&warmup=300&cycles=1500",
        ] {
            let s = Scenario::parse(text).unwrap();
            let plain = Simulation::new(&s).unwrap().run();
            let mut sim = Simulation::new(&s).unwrap();
            assert!(!sim.organised);
            sim.organised = true;
            sim.parks = false; // parking changes no result (sim::parking), and these phases do not park
            assert_eq!(sim.run(), plain, "{text}");
        }
    }

    #[test]
    fn a_maximum_matching_can_beat_the_age_ordered_one() {
        // Input 0 asks for outputs 0 (oldest) and 1, input 1 for output 0 only: the age-ordered
        // pass grants 0→0 and stops; the maximum grants 0→1 and 1→0.
        let one = [1; MAX_OUTPUTS];
        let maximum_matching = |requests: &[(u8, u8)], input_capacity: u8, output_capacity: &[u8; MAX_OUTPUTS]| {
            let mut granted = vec![false; requests.len()];
            super::maximum_matching(requests, input_capacity, output_capacity, &mut granted);
            granted
        };
        assert_eq!(maximum_matching(&[(0, 0), (0, 1), (1, 0)], 1, &one), [false, true, true]);
        // A chain of three: 0→{0,1}, 1→{1,2}, 2→{0}; oldest first 0→0, 1→1 leave 2 unmatched.
        assert_eq!(maximum_matching(&[(0, 0), (1, 1), (2, 0), (0, 1), (1, 2)], 1, &one), [false, false, true, true, true]);
        // Nothing to gain: the age-ordered grants stand, the oldest of two equal requests first.
        assert_eq!(maximum_matching(&[(0, 0), (1, 0), (1, 1)], 1, &one), [true, false, true]);
        assert_eq!(maximum_matching(&[(2, 3), (2, 3)], 1, &one), [true, false]);
        // With two flits per port: two from input 0 to output 0, and output 1 still free.
        assert_eq!(maximum_matching(&[(0, 0), (0, 0), (0, 1), (1, 1)], 2, &[2; MAX_OUTPUTS]), [true, true, false, true]);
        assert_eq!(maximum_matching(&[(0, 0), (1, 0), (0, 0), (2, 0)], 2, &[2; MAX_OUTPUTS]), [true, true, false, false]);
    }

    #[test]
    fn speedup2_takes_two_flits_through_one_output_and_queues_one() {
        // A ring of 8 under DOR with two VCs per dateline class, one-flit messages. Network VC
        // `(2·node + port)·4 + v`; channel 1→2 is channel 2 (node 1, port 0).
        let text = "k=8&n=1&routing=dor&len=1&vcs=4&buf=4&warmup=0&cycles=100";
        for (router, queued) in [("iq", 0), ("speedup2", 1)] {
            let mut sim = simulation(&format!("{text}&router={router}"));
            // Cycle 0: A crosses 0→1. Cycle 1: at node 1, A and the new B both want 1→2.
            sim.send(0, 3);
            sim.step();
            sim.send(1, 3);
            sim.step();
            let injection_b = sim.net_vcs + 1;
            if router == "iq" {
                assert_eq!(sim.vc[injection_b as usize].flits, 1, "iq: B waits for the switch");
            } else {
                assert_eq!((sim.vc[injection_b as usize].flits, sim.out_len[2]), (0, queued), "speedup2: B waits at the output");
                assert_eq!(sim.reserved[2 * 4 + 1], 1, "B holds a credit of VC 1 of 1→2");
            }
            while sim.flits_in_network > 0 || sim.out_len.iter().any(|&l| l > 0) || sim.vc[injection_b as usize].flits > 0 {
                sim.step();
            }
            // A: M + H = 4. B, generated in cycle 1, crosses 1→2 a cycle late either way: 1 + 2 + 1.
            assert_eq!(delivered(&mut sim), [(0, 4), (1, 4)], "{router}");
        }
    }

    #[test]
    fn wide_terminals_inject_several_messages_at_once() {
        // Node 0 of an 8×8 torus sends four messages, one to each neighbour: with one
        // injection channel they leave one a cycle, with four all at once.
        for (router, latencies) in [("iq", [2, 3, 4, 5]), ("wide", [2, 2, 2, 2])] {
            let mut sim = simulation(&format!("k=8&routing=dor&len=1&buf=4&warmup=0&cycles=100&router={router}"));
            for dest in [1, 7, 8, 56] {
                sim.send(0, dest);
            }
            for _ in 0..8 {
                sim.step();
            }
            let got: Vec<u64> = delivered(&mut sim).iter().map(|&(_, latency)| latency).collect();
            assert_eq!(got, latencies, "{router}");
        }
    }

    #[test]
    fn damq_lets_a_message_pass_a_blocked_one() {
        // A ring of 8 under DOR, one-flit messages. Channel 1→2's VC of the first dateline
        // class is held (as by a message stuck beyond it), so F, bound for node 2, waits at the
        // front of node 1's buffer from 0→1; G, bound for node 1, arrives behind it.
        for (router, g_latency, waiting) in [("iq", None, 2), ("damq", Some(2), 1)] {
            let mut sim = simulation(&format!("k=8&n=1&routing=dor&len=1&vcs=2&buf=4&warmup=0&cycles=100&router={router}"));
            let held = sim.torus.channel(1, 0) * 2;
            sim.vc[held as usize].owner = 12_345;
            sim.send(0, 2); // F crosses 0→1 in cycle 0
            sim.step();
            sim.send(0, 1); // G crosses 0→1 in cycle 1, behind F
            for _ in 0..10 {
                sim.step();
            }
            let g: Vec<u64> = delivered(&mut sim).iter().map(|&(_, latency)| latency).collect();
            assert_eq!(g.first().copied(), g_latency, "{router}: G (M + H = 2) passes F only under damq");
            assert_eq!(sim.vc[sim.torus.channel(0, 0) as usize * 2].flits, waiting, "{router}: F still waits");
        }
    }
}
