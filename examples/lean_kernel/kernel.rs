//! The simulator stripped to one scenario, to measure how fast this kind of simulator can be.
//!
//! `k=8&routing=dor&traffic=uniform&len=1&vcs=2&buf=8` at any rate and seed: the scenario of
//! issue 6's native target. It simulates exactly what `torus_explorer::sim::Simulation` does
//! (the same Poisson arrivals and destinations from the same random streams, dimension-order
//! routing with dateline VCs, VC and switch allocation oldest message first, credits, a VC
//! reallocated behind a tail) and nothing else: no statistics but flit-hops and latencies, no
//! other algorithm, message length, network size or feature, every constant fixed at compile
//! time. `tests/lean_kernel.rs` checks that it moves the same flits in every cycle as the
//! simulator; `main.rs` times the two side by side. What it shows is in `docs/performance.md`
//! ("A lower bound").

use std::collections::VecDeque;
use rand::distr::Distribution;
use torus_explorer::rng::{Exponential, Rng, Samplers, Stream};
use torus_explorer::sim::Table;
use torus_explorer::topology::Torus;

const K: u32 = 8;
const NODES: u32 = K * K;
const PORTS: u32 = 4;
const VCS: u32 = 2;
const BUF: u32 = 8;
const NETWORK_VCS: u32 = NODES * PORTS * VCS;
/// Input VCs per router: two per input port, then the injection VC.
const LOCALS: u32 = PORTS * VCS + 1;
const NONE: u32 = u32::MAX;
/// The ejection channel, as a VC index past the injection VCs: never full, switch port 4.
const EJECT: u32 = NETWORK_VCS + NODES;
/// Where an ejecting header's owner write goes, so that it needs no branch.
const SCRATCH: u32 = EJECT + 1;
const ALL_VCS: usize = (SCRATCH + 1) as usize;

#[derive(Clone, Copy, Default)]
struct Message {
    /// Generation order: the age every arbiter compares.
    id: u64,
    generated: u64,
    /// Hops left in x and y.
    remaining: [u8; 2],
    /// Bit d: travelling − in dimension d.
    minus: u8,
    /// Bit d: has crossed dimension d's wrap-around channel (dateline VC class 1).
    wrapped: u8,
}

pub struct LeanDor {
    interarrival: Exponential,
    traffic_rng: Rng,
    routing_rng: Rng,
    cycle: u64,
    next_arrival: Table<f64>,
    // Per VC: network VCs `channel · 2 + v`, one injection VC per node, EJECT, SCRATCH.
    flits: Table<u8>,
    head: Table<u8>,
    /// Output VC allocated to the front message (`NONE` until its header is routed).
    out: Table<u32>,
    /// The message a VC is allocated to, until its flit has crossed.
    owner: Table<u32>,
    fifo: Table<u32>,
    router_of: Table<u32>,
    local_of: Table<u8>,
    /// The switch port a VC is reached through (4 for EJECT).
    port_of: Table<u8>,
    /// Per channel: 1 for a wrap-around channel.
    wrap: Table<u8>,
    input_vcs: Table<u32>,
    /// Per router: bit per local input VC that holds flits.
    active: Table<u16>,
    active_routers: u64,
    messages: Table<Message>,
    free_messages: Vec<u32>,
    source_queue: Table<VecDeque<u32>>,
    next_id: u64,
    moves: Table<(u32, u32, u32)>,
    move_count: usize,
    /// The router being allocated: (input VC, message, output VC, input port) per local, and
    /// the keys `age · 16 + local` of its contenders in ascending order.
    contenders: [(u32, u32, u32, u32); LOCALS as usize],
    order: [u64; LOCALS as usize],
    flit_hops: u64,
    delivered: u64,
    latency_sum: u64,
}

impl LeanDor {
    pub fn new(rate: f64, seed: u64) -> LeanDor {
        // The set-up takes the simulator's topology (ports 2d and 2d + 1 go + and − along
        // dimension d); only the cycle loop is the kernel's own.
        let torus = Torus::new(K, 2);
        let mut traffic_rng = Rng::new(seed, Stream::Traffic);
        let interarrival = Exponential::new(rate, Samplers::Inversion);
        let next_arrival: Vec<f64> = (0..NODES).map(|_| interarrival.sample(&mut traffic_rng)).collect();
        let mut router_of = vec![0; ALL_VCS];
        let mut local_of = vec![0; ALL_VCS];
        let mut input_vcs = vec![0; (NODES * LOCALS) as usize];
        for u in 0..NODES {
            for p in 0..PORTS {
                // The channel entering u through input port p leaves its neighbour through p.
                let channel = torus.channel(torus.neighbour(u, p ^ 1), p);
                for v in 0..VCS {
                    let vc = channel * VCS + v;
                    router_of[vc as usize] = u;
                    local_of[vc as usize] = (p * VCS + v) as u8;
                    input_vcs[(u * LOCALS + p * VCS + v) as usize] = vc;
                }
            }
            let injection = NETWORK_VCS + u;
            router_of[injection as usize] = u;
            local_of[injection as usize] = (PORTS * VCS) as u8;
            input_vcs[(u * LOCALS + PORTS * VCS) as usize] = injection;
        }
        let port_of: Vec<u8> = (0..ALL_VCS as u32).map(|vc| if vc < NETWORK_VCS { (vc / VCS % PORTS) as u8 } else { PORTS as u8 }).collect();
        let wrap: Vec<u8> = (0..NODES * PORTS).map(|channel| torus.is_wrap_channel(channel / PORTS, channel % PORTS) as u8).collect();
        LeanDor {
            interarrival,
            traffic_rng,
            routing_rng: Rng::new(seed, Stream::Routing),
            cycle: 0,
            next_arrival: next_arrival.into(),
            flits: vec![0; ALL_VCS].into(),
            head: vec![0; ALL_VCS].into(),
            out: vec![NONE; ALL_VCS].into(),
            owner: vec![NONE; ALL_VCS].into(),
            fifo: vec![NONE; ALL_VCS * BUF as usize].into(),
            router_of: router_of.into(),
            local_of: local_of.into(),
            port_of: port_of.into(),
            wrap: wrap.into(),
            input_vcs: input_vcs.into(),
            active: vec![0; NODES as usize].into(),
            active_routers: 0,
            messages: Table::default(),
            free_messages: Vec::new(),
            source_queue: (0..NODES).map(|_| VecDeque::new()).collect(),
            next_id: 0,
            moves: vec![(0, 0, 0); (NODES * (PORTS + 1)) as usize].into(),
            move_count: 0,
            contenders: [(0, 0, 0, 0); LOCALS as usize],
            order: [0; LOCALS as usize],
            flit_hops: 0,
            delivered: 0,
            latency_sum: 0,
        }
    }

    pub fn flit_hops(&self) -> u64 {
        self.flit_hops
    }

    /// Messages delivered, and the sum of their latencies (generation to tail delivered).
    pub fn delivered(&self) -> (u64, u64) {
        (self.delivered, self.latency_sum)
    }

    pub fn step(&mut self) {
        self.generate();
        self.allocate();
        self.apply_moves();
        self.cycle += 1;
    }

    fn inject(&mut self, u: u32, slot: u32) {
        let vc = (NETWORK_VCS + u) as usize;
        self.fifo[vc * BUF as usize] = slot;
        self.flits[vc] = 1;
        self.owner[vc] = slot;
        self.active[u as usize] |= 1 << (PORTS * VCS);
        self.active_routers |= 1 << u;
    }

    fn generate(&mut self) {
        let now = self.cycle;
        for u in 0..NODES {
            while self.next_arrival[u as usize] < (now + 1) as f64 {
                self.next_arrival[u as usize] += self.interarrival.sample(&mut self.traffic_rng);
                let d = self.traffic_rng.below(NODES - 1);
                let dest = if d >= u { d + 1 } else { d };
                let mut m = Message { id: self.next_id, generated: now, ..Message::default() };
                self.next_id += 1;
                for (dim, (from, to)) in [(u % K, dest % K), (u / K, dest / K)].into_iter().enumerate() {
                    let offset = (to + K - from) % K;
                    let mut minus = 2 * offset > K;
                    if 2 * offset == K {
                        minus = self.routing_rng.below(2) == 1;
                    }
                    m.remaining[dim] = if minus { K - offset } else { offset } as u8;
                    m.minus |= (minus as u8) << dim;
                }
                let slot = match self.free_messages.pop() {
                    Some(slot) => {
                        self.messages[slot as usize] = m;
                        slot
                    }
                    None => {
                        self.messages.push(m);
                        self.messages.len() as u32 - 1
                    }
                };
                if self.owner[(NETWORK_VCS + u) as usize] == NONE {
                    self.inject(u, slot);
                } else {
                    self.source_queue[u as usize].push_back(slot);
                }
            }
        }
    }

    fn allocate(&mut self) {
        let mut routers = self.active_routers;
        while routers != 0 {
            let u = routers.trailing_zeros();
            routers &= routers - 1;
            let n = self.collect_contenders(u);
            let mut ports_used = 0u64;
            for i in 0..n {
                let local = (self.order[i] & 15) as usize;
                let (vc, slot, mut out, in_port) = self.contenders[local];
                if out == NONE {
                    let m = &self.messages[slot as usize];
                    let dim = (m.remaining[0] == 0) as u32;
                    let eject = m.remaining[dim as usize] == 0;
                    let port = 2 * dim + (m.minus >> dim & 1) as u32;
                    let class = (m.wrapped >> dim & 1) as u32;
                    let next = ((u * PORTS + port) * VCS + class).min(NETWORK_VCS - 1);
                    if !eject & (self.owner[next as usize] != NONE) {
                        continue;
                    }
                    out = if eject { EJECT } else { next };
                    self.owner[if eject { SCRATCH } else { next } as usize] = slot;
                    self.out[vc as usize] = out;
                }
                let request = 1u64 << in_port | 1u64 << (32 + self.port_of[out as usize]);
                let granted = (self.flits[out as usize] < BUF as u8) & (ports_used & request == 0);
                ports_used |= request & (granted as u64).wrapping_neg();
                self.moves[self.move_count] = (vc, out, slot);
                self.move_count += granted as usize;
            }
        }
    }

    /// The input VCs of router `u` whose front flit could move, ordered oldest first in
    /// `order`; returns how many. A router found idle drops out of the active set.
    fn collect_contenders(&mut self, u: u32) -> usize {
        let mut active = self.active[u as usize];
        if active == 0 {
            self.active_routers &= !(1 << u);
        }
        let mut n = 0;
        while active != 0 {
            let local = active.trailing_zeros();
            active &= active - 1;
            let vc = self.input_vcs[(u * LOCALS + local) as usize];
            let out = self.out[vc as usize];
            if self.flits[out.min(EJECT) as usize] == BUF as u8 {
                continue;
            }
            let slot = self.fifo[(vc * BUF + self.head[vc as usize] as u32) as usize];
            self.contenders[local as usize] = (vc, slot, out, local / VCS);
            // Bubbled into place by compare-and-swap: no branch on where it lands.
            self.order[n] = self.messages[slot as usize].id << 4 | local as u64;
            for i in (0..n).rev() {
                let (a, b) = (self.order[i], self.order[i + 1]);
                self.order[i] = a.min(b);
                self.order[i + 1] = a.max(b);
            }
            n += 1;
        }
        n
    }

    fn apply_moves(&mut self) {
        let now = self.cycle;
        for i in 0..self.move_count {
            let (from, to, slot) = self.moves[i];
            let f = from as usize;
            let u = self.router_of[f];
            self.flits[f] -= 1;
            self.out[f] = NONE;
            if from < NETWORK_VCS {
                self.head[f] = ((self.head[f] as u32 + 1) % BUF) as u8;
                let empty = (self.flits[f] == 0) as u16;
                self.active[u as usize] &= !((1 << self.local_of[f]) & empty.wrapping_neg());
            } else {
                self.owner[f] = NONE;
                self.active[u as usize] &= !(1 << self.local_of[f]);
                if let Some(next) = self.source_queue[u as usize].pop_front() {
                    self.inject(u, next);
                }
            }
            if to == EJECT {
                self.latency_sum += now + 1 - self.messages[slot as usize].generated;
                self.delivered += 1;
                self.free_messages.push(slot);
                continue;
            }
            let t = to as usize;
            let at = (self.head[t] as u32 + self.flits[t] as u32) % BUF;
            self.fifo[(to * BUF + at) as usize] = slot;
            self.flits[t] += 1;
            self.owner[t] = NONE;
            let v = self.router_of[t];
            self.active[v as usize] |= 1 << self.local_of[t];
            self.active_routers |= 1 << v;
            let channel = to / VCS;
            let dim = (channel % PORTS / 2) as usize;
            let m = &mut self.messages[slot as usize];
            m.remaining[dim] -= 1;
            m.wrapped |= self.wrap[channel as usize] << dim;
            self.flit_hops += 1;
        }
        self.move_count = 0;
    }
}
