//! The cycle-accurate, flit-level simulator.
//!
//! State lives in flat arrays indexed by virtual channel: network VC `channel · V + v` (its
//! buffer sits at the downstream router of `channel`), then one injection VC per node, then the
//! Q packet slots of each node's shared queue (`routing=chaos` only, see
//! [`crate::routing::chaos`]).
//!
//! Wormhole switching: a header allocates an output VC, which then belongs to its message until
//! the tail has been sent across it; from the next cycle the upstream router may allocate it to
//! another message, whose flits queue behind the tail in the same FIFO buffer (BookSim's
//! reallocation) — except the VCs a routing algorithm declares atomic, which wait until empty. A VC's buffer is a FIFO of message slots (one entry per flit);
//! `sent` counts the flits of the front message that have left, so the front flit is a header
//! when `sent == 0` and the front message's tail leaves when `sent` reaches M.
//!
//! One [`Simulation::step`] is one cycle, in fixed phases:
//! 1. generate: Poisson arrivals join the source queues;
//! 2. at every busy router: VC allocation (headers, oldest message first, candidates from the
//!    routing algorithm; under chaos the shared queue first, injection last, and a header no
//!    output can take moves into the shared queue or is deflected), then switch allocation (one
//!    flit per input port and per output port, matched oldest first) — a header is routed and
//!    crosses the next channel in the cycle it arrives;
//! 3. apply the granted moves: flits arrive, credits return (usable next cycle), tails release
//!    their VCs.
//!
//! With no contention a message of M flits over H hops has latency exactly M + H, provided the
//! buffers hold at least 2 flits (credits come back one cycle after a flit leaves, so a 1-flit
//! buffer passes a flit every other cycle).

mod chaos;
mod deadlock;
mod scouting;
pub mod stats;
mod view;

use crate::routing::{self, Candidates, RoutePlan, Routing, VcSets, EJECT};
use crate::rng::{Rng, Stream};
use crate::scenario::{RoutingKind, Scenario, ScenarioError};
use crate::topology::{Node, Port, Torus};
use crate::traffic::Pattern;
use serde::Serialize;
pub use deadlock::DeadlockCycle;
use stats::{multiplexing_degree, Delivery, Histogram, Stats};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const NONE: u32 = u32::MAX;
/// `out[vc]` of a VC whose message leaves through the ejection channel.
const EJECT_VC: u32 = u32::MAX - 1;

/// Deadlock watchdog: flits are buffered in the network and none has moved for this many
/// cycles. A deadlock-free network under any load moves some flit every few cycles.
pub const DEADLOCK_CYCLES: u64 = 2_000;
/// Saturation cut-off: a source whose queue holds this many messages stops generating until
/// it has room (the processor stalls; nothing is dropped). Shrinks for very large networks so
/// that all source queues together stay under about a million messages.
pub const SOURCE_QUEUE_CAP: usize = 1_000;
const TOTAL_QUEUE_CAP: usize = 1 << 20;
/// After the measurement window the run keeps loading the network until every labelled message
/// is delivered, for at most this many cycles (or `cycles`, if longer); then generation stops
/// and the network drains.
const DRAIN_UNDER_LOAD_MIN: u64 = 20_000;
/// Messages per node per cycle from which generation sweeps every node each cycle instead of
/// keeping an arrival calendar (a sweep costs a few instructions per node, the calendar about
/// a hundred per message).
const SCAN_ARRIVALS_RATE: f64 = 0.05;

/// One message in flight or queued.
#[derive(Clone, Copy, Debug)]
struct Message {
    /// Generation order: the age used by every arbiter (smaller is older).
    id: u64,
    src: Node,
    plan: RoutePlan,
    generated: u64,
    injected: u64,
    /// Cycle from which its header can be routed at its current router.
    header_ready: u64,
    hops: u32,
    labelled: bool,
    /// Scouting switching: channels crossed by the first data flit, channels whose positive
    /// acknowledgement has reached it, whether the header's arrival has been acknowledged, the
    /// port a backtracked header should avoid on its next try (`NO_PORT` if none).
    data_hops: u32,
    acked_hops: u32,
    acked_all: bool,
    avoid_port: u32,
    /// The broadcast this message is a one-hop copy of (`NONE` for a unicast message).
    broadcast: u32,
    /// Backtracks made; at most K per message, as the seed's model assumes (t ≤ K), which also
    /// keeps a header from bouncing indefinitely between two routers.
    backtracks: u32,
}

const NO_PORT: u32 = u32::MAX;

/// A broadcast on its way over the spanning tree: every node but the source receives one copy.
#[derive(Clone, Copy, Debug)]
struct BroadcastState {
    source: Node,
    generated: u64,
    received: u32,
    labelled: bool,
}

/// A flit crossing from one VC to the next (or to the ejection channel) this cycle.
#[derive(Clone, Copy, Debug)]
struct Move {
    from: u32,
    to: u32,
    /// The message the flit belongs to (the front message of `from`).
    slot: u32,
}

/// Live statistics for the page.
#[derive(Clone, Debug, Serialize)]
pub struct LiveStats {
    pub cycle: u64,
    pub measuring: bool,
    pub messages_measured: u64,
    pub latency_mean: f64,
    pub latency_ci95: f64,
    pub network_latency_mean: f64,
    pub source_queue_mean: f64,
    pub hops_mean: f64,
    pub offered_flits_per_node_cycle: f64,
    pub accepted_flits_per_node_cycle: f64,
    pub flits_in_network: u64,
    pub messages_queued: u64,
    /// A source queue has reached its cap and the network is still moving: the offered load is
    /// past saturation. Never set together with `deadlock`.
    pub saturated: bool,
    pub deadlock: bool,
    /// `routing=chaos`: deflections so far (see [`RunReport::misroutes`]).
    pub misroutes: u64,
}

/// The result of a full run (`torus run`): warm-up, measurement window, drain.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunReport {
    pub scenario: String,
    pub latency_mean: f64,
    pub latency_ci95: f64,
    pub network_latency_mean: f64,
    pub source_queue_mean: f64,
    pub hops_mean: f64,
    pub offered_flits_per_node_cycle: f64,
    pub accepted_flits_per_node_cycle: f64,
    pub accepted_min_pair: f64,
    pub messages_measured: u64,
    pub messages_labelled: u64,
    /// Cycles simulated in all: warm-up, window and drain.
    pub cycles: u64,
    /// The network kept moving but did not carry the offered load (a source queue reached its
    /// cap, the drain had to stop generation, or less than 95% of the offered flits were
    /// accepted). Never set together with `deadlock`, where nothing moves at all.
    pub saturated: bool,
    pub deadlock: bool,
    /// When `deadlock`: one cycle of network VCs (`channel · V + v`) waiting for each other,
    /// in waiting order (each waits for the next, the last for the first); see
    /// [`Simulation::deadlock_cycle`].
    pub deadlock_vcs: Vec<u32>,
    /// The channel (`node · 2n + port`) of each VC in `deadlock_vcs`.
    pub deadlock_channels: Vec<u32>,
    pub latency_histogram: Histogram,
    /// Per channel (`node · 2n + port`): fraction of the window's cycles it carried a flit.
    pub channel_utilisation: Vec<f64>,
    /// P_v, v = 0..=V: fraction of channel-cycles with exactly v VCs allocated.
    pub busy_vc_probability: Vec<f64>,
    /// V̄ = Σ v² P_v / Σ v P_v.
    pub multiplexing_degree: f64,
    /// Probability that a header waits for a VC, overall and at each hop index (0 = source).
    pub blocking_probability: f64,
    pub blocking_per_hop: Vec<f64>,
    /// Mean cycles a blocked header waits for its VC.
    pub mean_wait_when_blocked: f64,
    /// Flit-hops moved over network channels in the whole run (the unit of `torus bench`).
    pub flit_hops: u64,
    /// Scouting switching: headers that backtracked (negative acknowledgements), in the whole
    /// run and per message generated.
    pub backtracks: u64,
    pub backtracks_per_message: f64,
    /// Broadcasts (β > 0): how many started in the window, how many of those reached every
    /// node, and the mean time from generation until the last node received its copy. The
    /// latency fields above are over unicast messages only.
    pub broadcasts_labelled: u64,
    pub broadcasts_measured: u64,
    pub broadcast_completion_mean: f64,
    /// `routing=chaos`: packets deflected off their minimal paths from a full shared queue, in
    /// the whole run.
    pub misroutes: u64,
}

pub struct Simulation {
    scenario: Scenario,
    torus: Torus,
    routing: Box<dyn Routing>,
    /// VCs reallocated only once empty ([`Routing::atomic_vcs`]).
    atomic_vcs: u32,
    /// Bit `v` set for every VC `v < V` of a channel.
    all_vcs_mask: u32,
    pattern: Pattern,
    traffic_rng: Rng,
    routing_rng: Rng,
    cycle: u64,
    len: u16,
    buf: u16,
    vcs: u32,
    ports: u32,
    net_vcs: u32,
    /// Chaos's shared queue: Q packet slots per node (0 without one), VC index of the first
    /// slot (after the injection VCs), and each router's free slots as a bit mask.
    mq: u32,
    mq_base: u32,
    mq_free: Vec<u64>,
    /// Credits a header needs on an output VC: a whole packet under chaos's virtual cut-through,
    /// none under wormhole switching.
    cut_through: u16,
    /// Chaos's per-source limit of packets in the network, and each source's count
    /// ([`routing::chaos::outstanding_limit`]).
    outstanding_limit: u32,
    outstanding: Vec<u32>,
    misroutes: u64,
    // Per VC (network VCs, then one injection VC per node).
    /// The message the VC is allocated to (from header allocation until its tail is sent
    /// across); for an injection VC, the message being injected.
    owner: Vec<u32>,
    flits: Vec<u16>,
    /// Flits of the front message that have left the VC.
    sent: Vec<u16>,
    /// Output VC allocated to the front message (`NONE` until its header is routed).
    out: Vec<u32>,
    blocked: Vec<u8>,
    // Per network VC: a FIFO of `buf` message slots starting at `fifo_head`.
    fifo: Vec<u32>,
    fifo_head: Vec<u16>,
    // Per network VC, at the sender: free slots downstream (a shared-queue slot always has
    // room for the one packet it is allocated to).
    credits: Vec<u16>,
    // Per channel: VCs allocated, and since when (for P_v).
    busy_vcs: Vec<u8>,
    busy_since: Vec<u64>,
    /// `in_channel[node · 2n + p]`: the channel entering `node` through its input port `p`.
    in_channel: Vec<u32>,
    /// The router each VC's buffer belongs to (network VCs, then injection VCs).
    router_of_vc: Vec<Node>,

    // Per node.
    source_queue: Vec<VecDeque<u32>>,
    next_arrival: Vec<f64>,
    /// Arrival calendar: each node's next arrival as `cycle · 2¹⁶ + node` (at most 2¹⁶
    /// nodes), so that generation costs what arrives rather than a look at every node every
    /// cycle. Popping in order visits the nodes of one cycle in ascending order, as a sweep
    /// over all nodes would.
    arrivals: BinaryHeap<Reverse<u64>>,
    /// At a rate where a node has a message every few cycles, a sweep over `next_arrival`
    /// costs less than the calendar's pop and push per message; it visits the nodes in the
    /// same order, so either way generates the same messages. The calendar is empty then.
    scan_arrivals: bool,
    // Active lists, so that a cycle costs what moves rather than the size of the network. A
    // router's input VCs (network input ports in port order, then injection) have local
    // indices `port · V + v`, the injection VC `2n · V`.
    /// Per router: its input VCs by local index.
    input_vcs: Vec<u32>,
    /// Per VC: its local index at its router.
    local_index: Vec<u8>,
    /// Input VCs per router (2n · V + 1, at most 97; 2n + 1 + Q, at most 71, under chaos).
    locals: u32,
    /// Switch input port of each local index: the network input ports, injection `2n`, and
    /// each shared-queue slot its own port `2n + 1 + q`.
    local_port: Vec<u8>,
    /// Allocation class of each local index, added to message ages so that headers are served
    /// class by class: 0 for every input except under chaos, whose shared queue comes first,
    /// then its input buffers, injection last ([`routing::chaos`]).
    local_class: Vec<u64>,
    /// Per network VC: its channel (a table rather than divisions by V in the inner loop).
    channel_of_vc: Vec<u32>,
    /// Per VC a header can be sent to: the output port at the router it leaves (for a
    /// network VC, its channel's port at the upstream router; for a shared-queue slot, the
    /// slot's own write port `2n + 1 + q`). Injection VCs are never an output (0).
    port_of_vc: Vec<u8>,
    /// Per router: bit `i` set while local input VC `i` holds flits.
    active_vcs: Vec<u128>,
    /// Bit per router: set while it has an active input VC.
    active_routers: Vec<u64>,
    /// Per channel: flits in the downstream buffers of its VCs (spent credits), for the
    /// selection policy.
    channel_queued: Vec<u16>,
    /// At the router being allocated: input VCs whose front message has an output (routed
    /// earlier, or just now), with their input port and that message (`NONE` until needed).
    routed: Vec<(u32, u8, u32)>,
    queue_cap: usize,
    messages: Vec<Message>,
    free_messages: Vec<u32>,
    next_id: u64,
    moves: Vec<Move>,
    candidates: Candidates,
    /// At the router being allocated: headers waiting for an output (age, input VC, message).
    waiting: Vec<(u64, u32, u32)>,
    /// Switch requests at one router: (age, input VC, input port, output port, message).
    requests: Vec<(u64, u32, u8, u8, u32)>,
    stats: Stats,
    /// Broadcasts in progress (seed 003), and the free slots of that table.
    broadcasts: Vec<BroadcastState>,
    free_broadcasts: Vec<u32>,
    tree_ports: Vec<Port>,
    /// Scouting switching's probe lead K (0: wormhole).
    scout: u32,
    /// Positive acknowledgements in flight, by the cycle they arrive (mod K + 1): (message
    /// slot, channels acknowledged, or `ACK_ALL` for the header's arrival).
    acks: Vec<Vec<(u32, u32)>>,
    backtracks: u64,
    generating: bool,
    saturated: bool,
    deadlock: bool,
    last_move: u64,
    flits_in_network: u64,
    messages_queued: u64,
    flit_hops: u64,
    labelled_outstanding: u64,
    /// Unicast deliveries since the last [`Simulation::take_deliveries`], kept only after
    /// [`Simulation::record_deliveries`]: per-message data the aggregate statistics do not keep
    /// (seed 004's latency histograms of single source–destination offsets).
    delivery_log: Option<Vec<Delivery>>,
    // Conservation ledger, checked every cycle in debug builds.
    flits_generated: u64,
    flits_delivered: u64,
}

impl Simulation {
    pub fn new(s: &Scenario) -> Result<Simulation, ScenarioError> {
        s.validate()?;
        crate::support::check_supported(s)?;
        let torus = Torus::new(s.k, s.n);
        let pattern = Pattern::new(s, &torus)?;
        let nodes = torus.nodes();
        let ports = torus.ports();
        let channels = torus.channels();
        let net_vcs = channels * s.vcs;
        let mq_base = net_vcs + nodes;
        let all_vcs = (mq_base + nodes * s.mq) as usize;
        let mut in_channel = Vec::with_capacity(channels as usize);
        for u in 0..nodes {
            for p in 0..ports {
                in_channel.push(torus.channel(torus.neighbour(u, p ^ 1), p));
            }
        }
        let router_of_vc: Vec<Node> = (0..net_vcs)
            .map(|vc| torus.neighbour(torus.channel_source(vc / s.vcs), (vc / s.vcs) % ports))
            .chain(0..nodes)
            .chain((0..nodes).flat_map(|u| std::iter::repeat_n(u, s.mq as usize)))
            .collect();
        let locals = ports * s.vcs + 1 + s.mq;
        debug_assert!(locals <= u128::BITS, "a router's inputs must fit its active mask");
        let mut input_vcs = Vec::with_capacity((nodes * locals) as usize);
        let mut local_index = vec![0u8; all_vcs];
        for u in 0..nodes {
            for port in 0..ports {
                for v in 0..s.vcs {
                    let vc = in_channel[(u * ports + port) as usize] * s.vcs + v;
                    local_index[vc as usize] = (port * s.vcs + v) as u8;
                    input_vcs.push(vc);
                }
            }
            local_index[(net_vcs + u) as usize] = (ports * s.vcs) as u8;
            input_vcs.push(net_vcs + u);
            for q in 0..s.mq {
                let vc = mq_base + u * s.mq + q;
                local_index[vc as usize] = (ports * s.vcs + 1 + q) as u8;
                input_vcs.push(vc);
            }
        }
        let injection_local = ports * s.vcs;
        let local_port: Vec<u8> = (0..locals)
            .map(|i| if i < injection_local { i / s.vcs } else { ports + i - injection_local } as u8)
            .collect();
        let chaos = s.routing == RoutingKind::Chaos;
        const CLASS: u32 = 62;
        let local_class: Vec<u64> = (0..locals)
            .map(|i| match (chaos, i.cmp(&injection_local)) {
                (false, _) | (true, std::cmp::Ordering::Greater) => 0,
                (true, std::cmp::Ordering::Less) => 1 << CLASS,
                (true, std::cmp::Ordering::Equal) => 2 << CLASS,
            })
            .collect();
        let port_of_vc: Vec<u8> = (0..net_vcs)
            .map(|vc| (vc / s.vcs % ports) as u8)
            .chain((0..nodes).map(|_| 0))
            .chain((0..nodes).flat_map(|_| (0..s.mq).map(|q| (ports + 1 + q) as u8)))
            .collect();
        let mut traffic_rng = Rng::new(s.seed, Stream::Traffic);
        let next_arrival: Vec<f64> = (0..nodes).map(|_| traffic_rng.exponential(s.rate)).collect();
        let scan_arrivals = s.rate >= SCAN_ARRIVALS_RATE;
        let window_end = s.warmup + s.cycles;
        let routing = routing::build(s);
        Ok(Simulation {
            scenario: s.clone(),
            atomic_vcs: routing.atomic_vcs(),
            all_vcs_mask: VcSets { vcs: s.vcs }.all(),
            routing,
            pattern,
            traffic_rng,
            routing_rng: Rng::new(s.seed, Stream::Routing),
            cycle: 0,
            len: s.len as u16,
            buf: s.buf as u16,
            vcs: s.vcs,
            ports,
            net_vcs,
            mq: s.mq,
            mq_base,
            mq_free: vec![if s.mq == 64 { u64::MAX } else { (1u64 << s.mq) - 1 }; if chaos { nodes as usize } else { 0 }],
            cut_through: if chaos { s.len as u16 } else { 0 },
            outstanding_limit: if chaos { routing::chaos::outstanding_limit(s.mq, ports) } else { u32::MAX },
            outstanding: vec![0; if chaos { nodes as usize } else { 0 }],
            misroutes: 0,
            owner: vec![NONE; all_vcs],
            flits: vec![0; all_vcs],
            sent: vec![0; all_vcs],
            out: vec![NONE; all_vcs],
            blocked: vec![0; all_vcs],
            fifo: vec![NONE; (net_vcs * s.buf) as usize],
            fifo_head: vec![0; net_vcs as usize],
            credits: vec![s.buf as u16; net_vcs as usize],
            busy_vcs: vec![0; channels as usize],
            busy_since: vec![s.warmup; channels as usize],
            in_channel,
            router_of_vc,
            source_queue: (0..nodes).map(|_| VecDeque::new()).collect(),
            arrivals: if scan_arrivals {
                BinaryHeap::new()
            } else {
                next_arrival.iter().enumerate().map(|(u, &t)| Reverse(arrival_key(t, u as Node))).collect()
            },
            scan_arrivals,
            next_arrival,
            input_vcs,
            local_index,
            locals,
            local_port,
            local_class,
            channel_of_vc: (0..net_vcs).map(|vc| vc / s.vcs).collect(),
            port_of_vc,
            active_vcs: vec![0; nodes as usize],
            active_routers: vec![0; nodes.div_ceil(64) as usize],
            channel_queued: vec![0; channels as usize],
            routed: Vec::with_capacity(locals as usize),
            queue_cap: SOURCE_QUEUE_CAP.min(TOTAL_QUEUE_CAP / nodes as usize).max(1),
            messages: Vec::new(),
            free_messages: Vec::new(),
            next_id: 0,
            moves: Vec::with_capacity(nodes as usize * (ports as usize + 1)),
            candidates: Candidates::default(),
            waiting: Vec::with_capacity(locals as usize),
            requests: Vec::with_capacity(locals as usize),
            stats: Stats::new(s.warmup, window_end, nodes as usize, channels as usize, s.vcs as usize),
            broadcasts: Vec::new(),
            free_broadcasts: Vec::new(),
            tree_ports: Vec::with_capacity(2 * ports as usize),
            scout: s.scout,
            acks: (0..=s.scout).map(|_| Vec::new()).collect(),
            backtracks: 0,
            generating: true,
            saturated: false,
            deadlock: false,
            last_move: 0,
            flits_in_network: 0,
            messages_queued: 0,
            flit_hops: 0,
            labelled_outstanding: 0,
            delivery_log: None,
            flits_generated: 0,
            flits_delivered: 0,
            torus,
        })
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn torus(&self) -> &Torus {
        &self.torus
    }
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
    pub fn vcs(&self) -> u32 {
        self.vcs
    }
    /// Flits buffered in each network VC (`channel · V + v`).
    pub fn vc_flits(&self) -> &[u16] {
        &self.flits[..self.net_vcs as usize]
    }
    /// Message each network VC is allocated to (its slot in the message table), `u32::MAX`
    /// when free.
    pub fn vc_owner(&self) -> &[u32] {
        &self.owner[..self.net_vcs as usize]
    }
    /// 1 where the VC's front flit is a header that found no free VC in the last cycle.
    pub fn vc_blocked(&self) -> &[u8] {
        &self.blocked[..self.net_vcs as usize]
    }
    /// Flit-hops moved over network channels so far.
    pub fn flit_hops(&self) -> u64 {
        self.flit_hops
    }
    pub fn deadlocked(&self) -> bool {
        self.deadlock
    }

    fn injection_vc(&self, node: Node) -> u32 {
        self.net_vcs + node
    }

    fn is_injection(&self, vc: u32) -> bool {
        vc >= self.net_vcs && vc < self.mq_base
    }

    /// The message whose flit is at the front of a VC that holds flits (an injection VC or a
    /// shared-queue slot holds only the message it is allocated to).
    fn front(&self, vc: u32) -> u32 {
        if vc >= self.net_vcs {
            self.owner[vc as usize]
        } else {
            self.fifo[(vc * self.buf as u32 + self.fifo_head[vc as usize] as u32) as usize]
        }
    }

    /// The router a VC's buffer belongs to.
    fn vc_router(&self, vc: u32) -> Node {
        self.router_of_vc[vc as usize]
    }

    /// Advances one cycle.
    pub fn step(&mut self) {
        if self.generating {
            self.generate();
        }
        if self.scout > 0 {
            self.deliver_acks();
        }
        self.moves.clear();
        // Chaos's shared queue and cut-through run in their own instance of the allocation and
        // movement code, so that the other algorithms pay nothing for them.
        if self.mq > 0 {
            self.allocate_routers::<true>();
            self.apply_moves::<true>();
        } else {
            self.allocate_routers::<false>();
            self.apply_moves::<false>();
        }
        if self.flits_in_network > 0 && self.cycle - self.last_move >= DEADLOCK_CYCLES {
            self.deadlock = true;
        }
        if cfg!(debug_assertions) {
            self.check_invariants();
        }
        self.cycle += 1;
        if self.cycle == self.stats.window_start || self.cycle == self.stats.window_end {
            self.flush_busy_time();
        }
    }

    /// Allocation at every router with an active input VC.
    fn allocate_routers<const CHAOS: bool>(&mut self) {
        for w in 0..self.active_routers.len() {
            // Routers that become active during the sweep (a backtracked header) have nothing
            // to do before the next cycle.
            let mut routers = self.active_routers[w];
            while routers != 0 {
                let u = w as u32 * 64 + routers.trailing_zeros();
                routers &= routers - 1;
                self.allocate::<CHAOS>(u);
            }
        }
    }

    /// Turns the Poisson sources on or off (the page's "one message" demonstrations turn them
    /// off and [`Simulation::send`] messages by hand).
    pub fn set_traffic(&mut self, on: bool) {
        self.generating = on;
    }

    /// From now on, keep every unicast delivery for [`Simulation::take_deliveries`].
    pub fn record_deliveries(&mut self) {
        self.delivery_log = Some(Vec::new());
    }

    /// The unicast deliveries recorded since the last call (none unless recording).
    pub fn take_deliveries(&mut self) -> Vec<Delivery> {
        self.delivery_log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Generates one message from `src` to `dest` now, as if it had just arrived. Returns its
    /// slot in the message table (the id [`Simulation::vc_owner`] shows).
    pub fn send(&mut self, src: Node, dest: Node) -> u32 {
        assert!(src < self.torus.nodes() && dest < self.torus.nodes(), "send: node out of range");
        self.create_message(src, dest, NONE)
    }

    fn generate(&mut self) {
        let now = self.cycle;
        if self.scan_arrivals {
            let due = (now + 1) as f64;
            for u in 0..self.next_arrival.len() {
                if self.next_arrival[u] < due {
                    self.arrive(u as Node);
                }
            }
            return;
        }
        while let Some(&Reverse(key)) = self.arrivals.peek() {
            if key >> 16 > now {
                break;
            }
            self.arrivals.pop();
            let u = (key & 0xffff) as Node;
            self.arrive(u);
            self.arrivals.push(Reverse(arrival_key(self.next_arrival[u as usize], u)));
        }
    }

    /// The messages of node `u` that arrive in this cycle join its source queue.
    fn arrive(&mut self, u: Node) {
        let now = self.cycle;
        while self.next_arrival[u as usize] < (now + 1) as f64 {
            if self.source_queue[u as usize].len() >= self.queue_cap {
                self.saturated = true;
                self.next_arrival[u as usize] = (now + 1) as f64;
                break;
            }
            self.next_arrival[u as usize] += self.traffic_rng.exponential(self.scenario.rate);
            if self.scenario.beta > 0.0 && self.traffic_rng.chance(self.scenario.beta) {
                self.start_broadcast(u);
            } else {
                let dest = self.pattern.destination(&self.torus, u, &mut self.traffic_rng);
                self.create_message(u, dest, NONE);
            }
        }
    }

    /// A new message joins the source queue of `src` in the current cycle: a unicast message,
    /// or a one-hop copy of `broadcast`.
    fn create_message(&mut self, src: Node, dest: Node, broadcast: u32) -> u32 {
        let now = self.cycle;
        let plan = self.routing.plan(&self.torus, src, dest, &mut self.routing_rng);
        let labelled = broadcast == NONE && self.stats.in_window(now);
        let m = Message {
            id: self.next_id,
            src,
            plan,
            generated: now,
            injected: now,
            header_ready: now,
            hops: 0,
            labelled,
            data_hops: 0,
            acked_hops: 0,
            acked_all: false,
            avoid_port: NO_PORT,
            backtracks: 0,
            broadcast,
        };
        self.next_id += 1;
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
        self.stats.generated(now, src, self.len as u32, broadcast == NONE);
        self.flits_generated += self.len as u64;
        if labelled {
            self.labelled_outstanding += 1;
        }
        self.source_queue[src as usize].push_back(slot);
        self.messages_queued += 1;
        if self.owner[self.injection_vc(src) as usize] == NONE {
            self.start_injection(src, now);
        }
        slot
    }

    /// A broadcast starts at `source`: one copy to each of its children in the spanning tree.
    fn start_broadcast(&mut self, source: Node) {
        let labelled = self.stats.in_window(self.cycle);
        let state = BroadcastState { source, generated: self.cycle, received: 0, labelled };
        let id = match self.free_broadcasts.pop() {
            Some(id) => {
                self.broadcasts[id as usize] = state;
                id
            }
            None => {
                self.broadcasts.push(state);
                self.broadcasts.len() as u32 - 1
            }
        };
        if labelled {
            self.labelled_outstanding += 1;
            self.stats.broadcast_started();
        }
        self.replicate(id, source);
    }

    /// `node` forwards broadcast `id` to its children, through its own source queue.
    fn replicate(&mut self, id: u32, node: Node) {
        let source = self.broadcasts[id as usize].source;
        let mut ports = std::mem::take(&mut self.tree_ports);
        crate::broadcast::children(&self.torus, source, node, &mut ports);
        for &p in &ports {
            let child = self.torus.neighbour(node, p);
            self.create_message(node, child, id);
        }
        self.tree_ports = ports;
    }

    /// A copy of broadcast `id` reached `node`: count it and pass the broadcast on.
    fn broadcast_received(&mut self, id: u32, node: Node, now: u64) {
        let b = &mut self.broadcasts[id as usize];
        b.received += 1;
        debug_assert!(b.received < self.torus.nodes(), "a node received broadcast {id} twice");
        if b.received == self.torus.nodes() - 1 {
            let b = *b;
            if b.labelled {
                self.labelled_outstanding -= 1;
                self.stats.broadcast_completed(now + 1 - b.generated);
            }
            self.free_broadcasts.push(id);
        }
        self.replicate(id, node);
    }

    /// Moves the next queued message of `node` onto its injection VC.
    fn start_injection(&mut self, node: Node, ready: u64) {
        if let Some(slot) = self.source_queue[node as usize].pop_front() {
            self.messages_queued -= 1;
            let vc = self.injection_vc(node) as usize;
            self.owner[vc] = slot;
            self.flits[vc] = self.len;
            self.sent[vc] = 0;
            self.out[vc] = NONE;
            self.messages[slot as usize].header_ready = ready;
            self.mark_active(vc as u32);
        }
    }

    /// A VC's buffer received its first flit: its router has work.
    #[inline]
    fn mark_active(&mut self, vc: u32) {
        let u = self.router_of_vc[vc as usize] as usize;
        if self.active_vcs[u] == 0 {
            self.active_routers[u / 64] |= 1 << (u % 64);
        }
        self.active_vcs[u] |= 1 << self.local_index[vc as usize];
    }

    /// A VC's buffer became empty.
    #[inline]
    fn mark_idle(&mut self, vc: u32) {
        let u = self.router_of_vc[vc as usize] as usize;
        self.active_vcs[u] &= !(1 << self.local_index[vc as usize]);
        if self.active_vcs[u] == 0 {
            self.active_routers[u / 64] &= !(1 << (u % 64));
        }
    }

    /// The input VCs of router `u` (network input ports, then injection), as a range per port.
    fn input_port_vcs(&self, u: Node, port: u32) -> std::ops::Range<u32> {
        if port == self.ports {
            let vc = self.injection_vc(u);
            vc..vc + 1
        } else {
            let base = self.in_channel[(u * self.ports + port) as usize] * self.vcs;
            base..base + self.vcs
        }
    }

    /// Allocation at router `u`, over its input VCs that hold flits.
    ///
    /// 1. VC allocation: headers at the front of their input VC, oldest first, each take the
    ///    preferred free VC among the routing algorithm's candidates.
    /// 2. Switch allocation: a maximal matching of input ports to output ports (and the
    ///    ejection channel) built in age order. Every VC with a flit, an allocated output and
    ///    a credit requests; requests are granted oldest first while both its input port and
    ///    its output are still unused this cycle.
    fn allocate<const CHAOS: bool>(&mut self, u: Node) {
        self.waiting.clear();
        self.routed.clear();
        let base = (u * self.locals) as usize;
        let mut active = self.active_vcs[u as usize];
        while active != 0 {
            let local = active.trailing_zeros();
            active &= active - 1;
            let vc = self.input_vcs[base + local as usize];
            if self.out[vc as usize] == NONE {
                let slot = self.front(vc);
                let m = &self.messages[slot as usize];
                // A header that backtracked into this router this cycle moves again next cycle.
                if m.header_ready <= self.cycle {
                    let age = if CHAOS { m.id | self.local_class[local as usize] } else { m.id };
                    self.waiting.push((age, vc, slot));
                }
            } else {
                self.routed.push((vc, self.local_port[local as usize], NONE));
            }
        }
        if !self.waiting.is_empty() {
            self.allocate_vcs::<CHAOS>(u);
        }
        self.allocate_switch::<CHAOS>();
    }

    /// VC allocation for the headers in `waiting`. Under chaos a header no output can take
    /// falls back on the router's shared queue ([`Simulation::shared_queue_fallback`]).
    fn allocate_vcs<const CHAOS: bool>(&mut self, u: Node) {
        if self.waiting.len() > 1 {
            self.waiting.sort_unstable();
        }
        let mut deflection_tried = false;
        for w in 0..self.waiting.len() {
            let (_, vc, slot) = self.waiting[w];
            let s = slot as usize;
            if CHAOS && self.is_injection(vc) && self.outstanding[u as usize] >= self.outstanding_limit {
                self.blocked[vc as usize] = 1;
                continue;
            }
            self.candidates.clear();
            self.routing.candidates(&self.torus, u, &mut self.messages[s].plan, &mut self.candidates);
            match self.select::<CHAOS>(u, self.messages[s].avoid_port) {
                Some(chosen) => {
                    self.messages[s].avoid_port = NO_PORT;
                    let m = &self.messages[s];
                    self.stats.header_routed(self.cycle, m.hops, self.cycle - m.header_ready);
                    self.grant::<CHAOS>(u, vc, slot, chosen);
                }
                None if CHAOS => match self.shared_queue_fallback(u, vc, &mut deflection_tried) {
                    Some(chosen) => self.grant::<CHAOS>(u, vc, slot, chosen),
                    None => self.blocked[vc as usize] = 1,
                },
                None => {
                    if !(self.scout > 0 && self.backtrack(vc, slot)) {
                        self.blocked[vc as usize] = 1;
                    }
                }
            }
        }
    }

    /// The header of message `slot` at the front of input VC `vc` of router `u` takes output
    /// `chosen` (a network VC, the ejection channel or a shared-queue slot).
    #[inline]
    fn grant<const CHAOS: bool>(&mut self, u: Node, vc: u32, slot: u32, chosen: u32) {
        let i = vc as usize;
        self.out[i] = chosen;
        self.blocked[i] = 0;
        if chosen != EJECT_VC {
            self.owner[chosen as usize] = slot;
            if !CHAOS || chosen < self.net_vcs {
                self.change_busy(self.channel_of_vc[chosen as usize], 1, self.cycle);
            }
        }
        if CHAOS && self.is_injection(vc) {
            self.outstanding[u as usize] += 1;
        }
        let port = self.local_port[self.local_index[i] as usize];
        self.routed.push((vc, port, slot));
    }

    /// Selection among the candidates: lowest priority value first; among equals, the port
    /// with the fewest flits queued downstream (ties to the earlier candidate); on that port the
    /// lowest-numbered free VC of the candidate's set. A header that has just backtracked off
    /// `avoid` takes that port again only if no other candidate has a free VC.
    fn select<const CHAOS: bool>(&self, u: Node, avoid: Port) -> Option<u32> {
        if avoid != NO_PORT {
            if let Some(vc) = self.select_among::<CHAOS>(u, avoid) {
                return Some(vc);
            }
        }
        self.select_among::<CHAOS>(u, NO_PORT)
    }

    fn select_among<const CHAOS: bool>(&self, u: Node, skip: Port) -> Option<u32> {
        let candidates = self.candidates.as_slice();
        // Oblivious routing's one candidate (and every last hop) needs no comparison.
        if let [c] = candidates {
            return match c.port {
                EJECT => Some(EJECT_VC),
                port if port == skip => None,
                port => self.free_vc::<CHAOS>(self.torus.channel(u, port), c.vcs),
            };
        }
        // (priority, free VC, channel, flits queued downstream once needed)
        let mut best: Option<(u8, u32, u32, Option<u16>)> = None;
        for c in candidates {
            if c.port == EJECT {
                return Some(EJECT_VC);
            }
            if c.port == skip {
                continue;
            }
            if let Some((priority, ..)) = best {
                if c.priority > priority {
                    break;
                }
            }
            let channel = self.torus.channel(u, c.port);
            let Some(vc) = self.free_vc::<CHAOS>(channel, c.vcs) else { continue };
            // The queue lengths matter only between candidates of equal priority.
            best = match best {
                Some((p, _, _, _)) if c.priority < p => Some((c.priority, vc, channel, None)),
                Some((p, best_vc, best_channel, best_queued)) => {
                    let best_queued = best_queued.unwrap_or(self.channel_queued[best_channel as usize]);
                    let queued = self.channel_queued[channel as usize];
                    if queued < best_queued {
                        Some((p, vc, channel, Some(queued)))
                    } else {
                        Some((p, best_vc, best_channel, Some(best_queued)))
                    }
                }
                None => Some((c.priority, vc, channel, None)),
            };
        }
        best.map(|(_, vc, _, _)| vc)
    }

    /// The lowest-numbered VC of `channel` in the set `vcs` that a header may take now.
    #[inline]
    fn free_vc<const CHAOS: bool>(&self, channel: u32, vcs: u32) -> Option<u32> {
        let base = channel * self.vcs;
        let mut mask = vcs & self.all_vcs_mask;
        while mask != 0 {
            let v = mask.trailing_zeros();
            let i = (base + v) as usize;
            if self.owner[i] == NONE
                && (self.atomic_vcs >> v & 1 == 0 || self.flits[i] == 0)
                && (!CHAOS || self.credits[i] >= self.cut_through)
            {
                return Some(base + v);
            }
            mask &= mask - 1;
        }
        None
    }

    /// Switch allocation over the VCs in `routed`.
    fn allocate_switch<const CHAOS: bool>(&mut self) {
        self.requests.clear();
        for r in 0..self.routed.len() {
            let (vc, port, slot) = self.routed[r];
            let i = vc as usize;
            let out = self.out[i];
            // Only network VCs have credits: the ejection channel and a shared-queue slot always
            // take the flit.
            if (if CHAOS { out < self.net_vcs } else { out != EJECT_VC }) && self.credits[out as usize] == 0 {
                continue;
            }
            // The front message is looked up only for a VC that can move.
            let slot = if slot == NONE { self.front(vc) } else { slot };
            if self.scout > 0 && self.sent[i] == 1 && !self.data_may_advance(slot) {
                continue;
            }
            let out_port = if out == EJECT_VC { self.ports as u8 } else { self.port_of_vc[out as usize] };
            let id = self.messages[slot as usize].id;
            self.requests.push((id, vc, port, out_port, slot));
        }
        if self.requests.len() > 1 {
            self.requests.sort_unstable();
        }
        let (mut inputs_used, mut outputs_used) = (0u32, 0u32);
        for r in 0..self.requests.len() {
            let (_, vc, in_port, out_port, slot) = self.requests[r];
            let (in_bit, out_bit) = if CHAOS {
                (self.port_bit(in_port), self.port_bit(out_port))
            } else {
                (1 << in_port, 1 << out_port)
            };
            if inputs_used & in_bit == 0 && outputs_used & out_bit == 0 {
                inputs_used |= in_bit;
                outputs_used |= out_bit;
                self.moves.push(Move { from: vc, to: self.out[vc as usize], slot });
            }
        }
    }

    /// A switch port's bit in the matching's masks: none for a shared-queue slot's port, which
    /// only the slot's one packet ever uses, so that the masks stay 32 bits wide.
    fn port_bit(&self, port: u8) -> u32 {
        if port as u32 > self.ports {
            0
        } else {
            1 << port
        }
    }

    /// Applies the cycle's moves: departures, arrivals, credit returns, tail releases.
    fn apply_moves<const CHAOS: bool>(&mut self) {
        let now = self.cycle;
        if !self.moves.is_empty() {
            self.last_move = now;
        }
        for i in 0..self.moves.len() {
            let Move { from, to, slot } = self.moves[i];
            let header = self.sent[from as usize] == 0;
            let tail = self.sent[from as usize] + 1 == self.len;
            let first_data_flit = self.sent[from as usize] == 1;
            self.depart::<CHAOS>(from, tail, now);
            if header && from >= self.net_vcs && (!CHAOS || from < self.mq_base) {
                self.messages[slot as usize].injected = now;
            }
            if self.scout > 0 {
                self.scouting_progress(slot, header, to, now);
                if first_data_flit && to != EJECT_VC {
                    self.data_crossed(slot);
                }
            }
            if to == EJECT_VC {
                self.stats.ejected_flit(now);
                self.flits_delivered += 1;
                if tail {
                    self.deliver(slot, now);
                }
                continue;
            }
            if CHAOS && to >= self.mq_base {
                self.enter_shared_queue(to, slot, header, now);
                continue;
            }
            let t = to as usize;
            let buf = self.buf as u32;
            let mut at = self.fifo_head[t] as u32 + self.flits[t] as u32;
            if at >= buf {
                at -= buf;
            }
            let at = to * buf + at;
            self.fifo[at as usize] = slot;
            if self.flits[t] == 0 {
                self.mark_active(to);
            }
            self.flits[t] += 1;
            self.credits[t] -= 1;
            let channel = self.channel_of_vc[t] as usize;
            self.channel_queued[channel] += 1;
            self.flits_in_network += 1;
            self.flit_hops += 1;
            self.stats.channel_flit(now, channel);
            if header {
                let m = &mut self.messages[slot as usize];
                m.hops += 1;
                m.header_ready = now + 1;
            }
            if tail {
                self.owner[t] = NONE;
                self.change_busy(channel as u32, -1, now + 1);
            }
        }
    }

    /// The front flit leaves `vc`: its credit goes back upstream (usable next cycle), and when
    /// it is the tail the VC's routing state is cleared for the next message.
    fn depart<const CHAOS: bool>(&mut self, vc: u32, tail: bool, now: u64) {
        let v = vc as usize;
        self.flits[v] -= 1;
        if self.flits[v] == 0 {
            self.mark_idle(vc);
        }
        self.sent[v] += 1;
        if vc < self.net_vcs {
            let head = self.fifo_head[v] + 1;
            self.fifo_head[v] = if head == self.buf { 0 } else { head };
            self.credits[v] += 1;
            self.channel_queued[self.channel_of_vc[v] as usize] -= 1;
            self.flits_in_network -= 1;
        } else if CHAOS && vc >= self.mq_base {
            self.flits_in_network -= 1;
        }
        if tail {
            self.sent[v] = 0;
            self.out[v] = NONE;
            if CHAOS && vc >= self.mq_base {
                self.leave_shared_queue(vc);
            } else if vc >= self.net_vcs {
                self.owner[v] = NONE;
                self.start_injection(self.vc_router(vc), now + 1);
            }
        }
    }

    fn deliver(&mut self, slot: u32, now: u64) {
        let m = self.messages[slot as usize];
        if self.mq > 0 {
            self.outstanding[m.src as usize] -= 1;
        }
        if m.broadcast != NONE {
            self.stats.copy_delivered(now, m.src, self.len as u32);
            self.free_messages.push(slot);
            self.broadcast_received(m.broadcast, m.plan.dest, now);
            return;
        }
        if cfg!(debug_assertions) && self.scenario.routing.is_minimal() {
            assert_eq!(m.hops, self.torus.distance(m.src, m.plan.dest), "{} took a non-minimal path", self.scenario.routing);
        }
        let delivery = Delivery {
            src: m.src,
            dest: m.plan.dest,
            generated: m.generated,
            injected: m.injected,
            delivered: now,
            hops: m.hops,
            labelled: m.labelled,
            flits: self.len as u32,
        };
        self.stats.delivered(&delivery);
        if let Some(log) = &mut self.delivery_log {
            log.push(delivery);
        }
        if m.labelled {
            self.labelled_outstanding -= 1;
        }
        self.free_messages.push(slot);
    }

    /// A channel's count of allocated VCs changes at cycle `at`: account the time spent at the
    /// old count inside the measurement window.
    fn change_busy(&mut self, channel: u32, delta: i8, at: u64) {
        let c = channel as usize;
        let (start, end) = (self.stats.window_start, self.stats.window_end);
        let from = self.busy_since[c].max(start);
        let to = at.min(end);
        if to > from {
            self.stats.busy_vcs(self.busy_vcs[c] as usize, to - from);
        }
        self.busy_since[c] = at;
        self.busy_vcs[c] = (self.busy_vcs[c] as i8 + delta) as u8;
    }

    /// At the window's edges every channel's current count is accounted up to now.
    fn flush_busy_time(&mut self) {
        for c in 0..self.busy_vcs.len() as u32 {
            self.change_busy(c, 0, self.cycle);
        }
    }

    /// Flit and credit conservation, one message per VC, no buffer over capacity.
    fn check_invariants(&self) {
        let mut buffered = 0u64;
        for vc in 0..self.net_vcs as usize {
            let (f, c) = (self.flits[vc], self.credits[vc]);
            assert_eq!(f + c, self.buf, "cycle {}: VC {vc}: {f} flits + {c} credits != buffer {}", self.cycle, self.buf);
            // Routing state belongs to the front message: set once its header has been routed,
            // kept while the rest of it passes (the VC may be empty in between).
            if self.sent[vc] > 0 {
                assert_ne!(self.out[vc], NONE, "cycle {}: VC {vc} forwards a message without a route", self.cycle);
            } else if f == 0 {
                assert_eq!(self.out[vc], NONE, "cycle {}: empty VC {vc} keeps a route", self.cycle);
            }
            self.check_fifo(vc as u32);
            buffered += f as u64;
        }
        if self.mq > 0 {
            buffered += self.check_shared_queues();
        }
        assert_eq!(buffered, self.flits_in_network);
        for vc in 0..self.flits.len() as u32 {
            let u = self.vc_router(vc) as usize;
            let active = self.active_vcs[u] >> self.local_index[vc as usize] & 1 == 1;
            assert_eq!(active, self.flits[vc as usize] > 0, "cycle {}: VC {vc}'s active bit is stale", self.cycle);
            assert_eq!(self.active_routers[u / 64] >> (u % 64) & 1 == 1, self.active_vcs[u] != 0, "cycle {}: router {u}'s active bit is stale", self.cycle);
        }
        for (channel, &queued) in self.channel_queued.iter().enumerate() {
            let vcs = channel as u32 * self.vcs..(channel as u32 + 1) * self.vcs;
            let spent: u32 = vcs.map(|vc| (self.buf - self.credits[vc as usize]) as u32).sum();
            assert_eq!(queued as u32, spent, "cycle {}: channel {channel}'s queue count is stale", self.cycle);
        }
        let injecting: u64 = (self.net_vcs as usize..self.mq_base as usize).map(|vc| self.flits[vc] as u64).sum();
        let queued = self.messages_queued * self.len as u64;
        assert_eq!(
            self.flits_generated,
            self.flits_delivered + buffered + injecting + queued,
            "cycle {}: flits not conserved",
            self.cycle
        );
    }

    /// A VC's buffer holds whole runs of flits, message after message, in order: the front
    /// message's remaining flits, then complete or still-arriving messages; only the last run
    /// may belong to the message the VC is allocated to.
    fn check_fifo(&self, vc: u32) {
        let buf = self.buf as u32;
        let (head, count) = (self.fifo_head[vc as usize] as u32, self.flits[vc as usize] as u32);
        let mut run_left = (self.len - self.sent[vc as usize]) as u32;
        let mut run = NONE;
        for i in 0..count {
            let slot = self.fifo[(vc * buf + (head + i) % buf) as usize];
            if run_left == 0 || run == NONE {
                if run != NONE {
                    run_left = self.len as u32;
                }
                run = slot;
            }
            assert_eq!(slot, run, "cycle {}: VC {vc} interleaves messages", self.cycle);
            run_left -= 1;
        }
        if run_left > 0 && run != NONE {
            assert_eq!(self.owner[vc as usize], run, "cycle {}: VC {vc}'s unfinished message does not own it", self.cycle);
        }
    }

    /// Runs warm-up, the measurement window and the drain, and reports (`torus run`).
    pub fn run(mut self) -> RunReport {
        let window_end = self.stats.window_end;
        while self.cycle < window_end && !self.deadlock {
            self.step();
        }
        let drain_limit = window_end + self.scenario.cycles.max(DRAIN_UNDER_LOAD_MIN);
        while self.labelled_outstanding > 0 && !self.deadlock {
            if self.cycle >= drain_limit && self.generating {
                self.generating = false;
                self.saturated = true;
            }
            self.step();
        }
        self.report()
    }

    fn report(&self) -> RunReport {
        let s = &self.stats;
        let offered = s.offered_flits_per_node_cycle();
        let accepted = s.accepted_flits_per_node_cycle();
        let pv = s.busy_vc_distribution();
        let deadlock_cycle = if self.deadlock { self.deadlock_cycle() } else { DeadlockCycle::default() };
        RunReport {
            scenario: self.scenario.canonical(),
            latency_mean: s.latency_mean(),
            latency_ci95: s.latency_ci95(),
            network_latency_mean: s.network_latency_mean(),
            source_queue_mean: s.source_queue_mean(),
            hops_mean: s.hops_mean(),
            offered_flits_per_node_cycle: offered,
            accepted_flits_per_node_cycle: accepted,
            accepted_min_pair: s.accepted_min_pair(|src, dest| {
                self.pattern.row(&self.torus, src).iter().filter(|r| r.0 == dest).map(|r| r.1).sum()
            }),
            messages_measured: s.labelled_delivered,
            messages_labelled: s.labelled_generated,
            cycles: self.cycle,
            saturated: !self.deadlock
                && (self.saturated || accepted < 0.95 * offered || s.some_source_fell_behind(self.len as u32)),
            deadlock: self.deadlock,
            deadlock_vcs: deadlock_cycle.vcs,
            deadlock_channels: deadlock_cycle.channels,
            latency_histogram: s.histogram(),
            channel_utilisation: s.channel_utilisation(),
            multiplexing_degree: multiplexing_degree(&pv),
            busy_vc_probability: pv,
            blocking_probability: s.blocking_probability(),
            blocking_per_hop: s.blocking_per_hop(),
            mean_wait_when_blocked: s.mean_wait_when_blocked(),
            flit_hops: self.flit_hops,
            backtracks: self.backtracks,
            backtracks_per_message: self.backtracks as f64 / self.next_id.max(1) as f64,
            broadcasts_labelled: s.broadcasts_labelled,
            broadcasts_measured: s.broadcasts_completed,
            broadcast_completion_mean: s.broadcast_completion_mean(),
            misroutes: self.misroutes,
        }
    }

    /// Statistics so far, for the page (the window counts from `warmup` to now).
    pub fn live_stats(&self) -> LiveStats {
        // Read in place, not cloned: the page asks several times a second and the statistics
        // hold the latency histogram and per-pair counters.
        let s = &self.stats;
        let measuring = self.cycle > s.window_start;
        let now = self.cycle.min(s.window_end);
        LiveStats {
            cycle: self.cycle,
            measuring,
            messages_measured: s.labelled_delivered,
            latency_mean: s.latency_mean(),
            latency_ci95: s.latency_ci95(),
            network_latency_mean: s.network_latency_mean(),
            source_queue_mean: s.source_queue_mean(),
            hops_mean: s.hops_mean(),
            offered_flits_per_node_cycle: if measuring { s.offered_flits_per_node_cycle_until(now) } else { 0.0 },
            accepted_flits_per_node_cycle: if measuring { s.accepted_flits_per_node_cycle_until(now) } else { 0.0 },
            flits_in_network: self.flits_in_network,
            messages_queued: self.messages_queued,
            saturated: self.saturated && !self.deadlock,
            deadlock: self.deadlock,
            misroutes: self.misroutes,
        }
    }
}

/// The calendar key of an arrival at time `t` at `node`: the cycle in which it is generated
/// (the first `c` with `t < c + 1`; capped for the infinite gap of a zero rate), then the node.
fn arrival_key(t: f64, node: Node) -> u64 {
    const NEVER: u64 = (1 << 47) - 1;
    (t as u64).min(NEVER) << 16 | node as u64
}

/// Simulates a scenario from start to finish, exactly as `torus run` does.
pub fn run(s: &Scenario) -> Result<RunReport, ScenarioError> {
    Ok(Simulation::new(s)?.run())
}
