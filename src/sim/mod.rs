//! The cycle-accurate, flit-level simulator.
//!
//! State lives in flat arrays indexed by virtual channel: network VC `channel · V + v` (its
//! buffer sits at the downstream router of `channel`), then the injection VCs (`i · N + node` for
//! the i-th of the node's W, one but under `router=...wide`), then the
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
//!    crosses the next channel in the cycle it arrives (a header refused every VC it may take
//!    is parked until a tail leaves its router, see [`parking`]; no result changes);
//! 3. apply the granted moves: flits arrive, credits return (usable next cycle), tails release
//!    their VCs.
//!
//! With no contention a message of M flits over H hops has latency exactly M + H, provided the
//! buffers hold at least 2 flits (credits come back one cycle after a flit leaves, so a 1-flit
//! buffer passes a flit every other cycle).

mod arrivals;
mod chaos;
mod deadlock;
mod faults;
mod parking;
mod pipeline;
pub mod run_length;
mod router;
mod saved;
mod scouting;
pub mod stats;
mod table;
mod view;

use crate::routing::{self, Algorithm, Candidate, Candidates, RoutePlan, Routing, VcSets, EJECT};
use crate::with_algorithm;
use crate::rng::{Rng, Stream};
use crate::traffic::injection::Arrivals;
use crate::traffic::MessageLengths;
use rand::distr::Distribution;
use crate::scenario::{RouterOrganisation, RoutingKind, Scenario, ScenarioError};
use crate::topology::{Node, Port, Torus};
use crate::traffic::Pattern;
use serde::{Deserialize, Serialize};
pub use deadlock::DeadlockCycle;
pub use faults::{NamedStuckHeader, StuckAt, StuckHeader};
pub use saved::RestoreError;
pub use view::VcSnapshot;
use scouting::Probe;
use stats::{multiplexing_degree, Delivery, Histogram, Stats};
use arrivals::Calendar;
use run_length::{RunLength, Stop};
use router::{QueuedFlit, Request};
pub use table::Table;
use std::collections::VecDeque;
use pipeline::Pipeline;

const NONE: u32 = u32::MAX;
/// `out[vc]` of a VC whose message leaves through the ejection channel.
const EJECT_VC: u32 = u32::MAX - 1;
/// `owner` of every VC of a failed channel: never free, so no header is ever given one, and a
/// routing algorithm meets a fault as a channel that never frees ([`crate::faults`]).
const FAILED: u32 = u32::MAX - 3;

/// Deadlock watchdog: flits are buffered in the network and none has moved for this many
/// cycles. A deadlock-free network under any load moves some flit every few cycles.
pub const DEADLOCK_CYCLES: u64 = 2_000;
/// After the measurement window the run keeps loading the network until every labelled message
/// is delivered, for at most this many cycles (or `cycles`, if longer); then generation stops
/// and the network drains.
const DRAIN_UNDER_LOAD_MIN: u64 = 20_000;

/// One message in flight or queued.
///
/// One cache line, what a header's hop reads (its age, plan, hops and ready cycle) first;
/// scouting's per-message state is kept apart ([`scouting::Probe`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[repr(C, align(64))]
struct Message {
    /// Generation order: the age used by every arbiter (smaller is older).
    id: u64,
    /// Cycle from which its header can be routed at its current router.
    header_ready: u64,
    plan: RoutePlan,
    hops: u32,
    /// The source node: at most 2^16 nodes ([`crate::scenario::limits::MAX_NODES`]).
    src: u16,
    /// M, the message's length in flits: `len`, or drawn under `lengths=`.
    len: u16,
    /// The broadcast this message is a one-hop copy of (`NONE` for a unicast message).
    broadcast: u32,
    generated: u64,
    injected: u64,
}

const _: () = assert!(std::mem::size_of::<Message>() == 64);

const NO_PORT: u32 = u32::MAX;

/// A broadcast on its way over the spanning tree: every node but the source receives one copy.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
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

/// An input VC whose front flit could move this cycle, at the router being allocated.
#[derive(Clone, Copy, Debug)]
struct Contender {
    /// The front message's age (its id; under chaos, during VC allocation, with its input's
    /// class above [`AGE_MASK`]).
    age: u64,
    vc: u32,
    /// The front message.
    slot: u32,
    /// The VC's output (`NONE` until its header is allocated one).
    out: u32,
    /// The switch input port the VC sits at.
    port: u8,
}

/// The switch ports granted so far this cycle at the router being allocated, one bit each:
/// input port `p` is bit `p`, output port `p` bit `32 + p`, so that one test covers both.
#[derive(Clone, Copy, Debug, Default)]
struct PortsUsed(u64);

impl PortsUsed {
    /// The bits of a request from input port `input` to output port `output`.
    #[inline(always)]
    fn request(input: u32, output: u32) -> u64 {
        1 << input | 1 << (32 + output)
    }
}

/// Bits of a contender's age that hold the message id; chaos's allocation classes sit above.
const CLASS_SHIFT: u32 = 62;
const AGE_MASK: u64 = (1 << CLASS_SHIFT) - 1;

/// Whether flits sent to output `out` spend a credit: a network VC's buffer is finite, while
/// the ejection channel and a chaos shared-queue slot always take the flit.
#[inline]
fn is_credited<const CHAOS: bool>(out: u32, net_vcs: u32) -> bool {
    if CHAOS {
        out < net_vcs
    } else {
        out != EJECT_VC
    }
}

/// Live statistics for the page.
#[derive(Clone, Debug, Serialize)]
pub struct LiveStats {
    pub cycle: u64,
    pub measuring: bool,
    pub messages_measured: u64,
    /// Messages generated during the warm-up and delivered so far, and their mean latency:
    /// drawn apart by the page before measurement starts, never part of the measured figures.
    pub warmup_messages: u64,
    pub warmup_latency_mean: f64,
    pub latency_mean: f64,
    pub latency_ci95: f64,
    pub network_latency_mean: f64,
    pub source_queue_mean: f64,
    pub hops_mean: f64,
    pub offered_flits_per_node_cycle: f64,
    pub accepted_flits_per_node_cycle: f64,
    /// The least accepted throughput of any source so far in the window (see
    /// [`RunReport::accepted_min_source`]).
    pub accepted_min_source: f64,
    pub flits_in_network: u64,
    pub messages_queued: u64,
    /// A source queue has reached its cap and the network is still moving: the offered load is
    /// past saturation. Never set together with `deadlock`.
    pub saturated: bool,
    pub deadlock: bool,
    /// Misroutes so far (see [`RunReport::misroutes`]).
    pub misroutes: u64,
    /// With faults: messages whose header waits now at a failed link or node with no way
    /// round ([`Simulation::stuck_headers`]).
    pub stuck_at_faults: u64,
    /// With faults: messages so far whose destination the surviving network cannot reach.
    pub messages_unreachable: u64,
    /// With faults: the network stopped, and no VCs wait for each other in a cycle (see
    /// [`RunReport::fault_stall`]). Never set together with `deadlock` or `saturated`.
    pub fault_stall: bool,
}

/// The result of a full run (`torus run`): warm-up, measurement window, drain.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunReport {
    pub scenario: String,
    pub latency_mean: f64,
    /// Half-width of the 95 % confidence interval of `latency_mean`, by batch means with batches
    /// lengthened until their means are nearly uncorrelated ([`stats::latency_interval`]; 0 when
    /// fewer than two batches hold messages). The next four fields say how it was built.
    pub latency_ci95: f64,
    pub latency_ci95_batches: usize,
    pub latency_ci95_batch_cycles: f64,
    /// Lag-1 autocorrelation of the batch means used.
    pub latency_ci95_lag1: f64,
    /// The batch means were still correlated at the fewest batches allowed, and the interval
    /// was widened to allow for it: the run is too short for an interval of its own to be
    /// trusted (replicate it with `--seeds`, or run it longer).
    pub latency_ci95_widened: bool,
    /// The warm-up and the measurement window, cycles, and what ended each: `fixed` (the
    /// scenario's `warmup` and `cycles`), `settled` (`warmup=auto`: the transient is over),
    /// `target` (`cycles=auto`: the interval reached the relative half-width `ci`), `cap` (the
    /// automatic length's limit), `saturated` (`cycles=auto`: a source queue filled) or
    /// `unfinished` (the run deadlocked first).
    pub warmup_cycles: u64,
    pub warmup_stop: Stop,
    pub window_cycles: u64,
    pub window_stop: Stop,
    pub network_latency_mean: f64,
    pub source_queue_mean: f64,
    pub hops_mean: f64,
    pub offered_flits_per_node_cycle: f64,
    pub accepted_flits_per_node_cycle: f64,
    pub accepted_min_pair: f64,
    /// The least accepted throughput of any source that offered traffic in the window, in flits
    /// per cycle of that source: past saturation a starved source shows here while the mean
    /// looks healthy (unlike `accepted_min_pair`, short runs under uniform traffic do not push
    /// it towards zero, as each source's flits are many more than each pair's).
    pub accepted_min_source: f64,
    pub messages_measured: u64,
    pub messages_labelled: u64,
    /// Cycles simulated in all: warm-up, window and drain.
    pub cycles: u64,
    /// The network kept moving but did not carry the offered load (a source queue reached its
    /// cap, the drain had to stop generation, less than 95% of the offered flits were
    /// accepted, or some source fell more than 5% behind its own offered load). Never set
    /// together with `deadlock`, where nothing moves at all.
    pub saturated: bool,
    /// When `saturated`: which of those conditions held, in words, `; `-separated. Past
    /// saturation the latency measures how long the run was, not the network.
    pub saturation_reason: Option<String>,
    /// Messages a source queue held at most in this run (`qcap`, or fewer on very large
    /// networks, see [`Scenario::source_queue_cap`]).
    pub source_queue_cap: u64,
    /// A full source queue held arrivals back at some point: the offered load was throttled
    /// below the scenario's rate, and `offered_flits_per_node_cycle` says by how much.
    pub throttled: bool,
    /// Source-cycles in which a full queue held an arrival back, in the whole run.
    pub throttled_source_cycles: u64,
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
    /// Misroutes in the whole run: under `routing=chaos` packets deflected off their minimal
    /// paths from a full shared queue; under scouting switching with faults (`misroute` > 0)
    /// headers sent off their minimal paths round a fault.
    pub misroutes: u64,
    /// Faults (`flinks`, `fnodes`, `frandom`): the fraction of the messages generated in the
    /// window that were delivered, counting those for unreachable destinations; 1 when every
    /// one arrived (or none was generated).
    pub delivered_fraction: f64,
    /// Faults: messages generated in the window for a destination the surviving network cannot
    /// reach (it is split in parts); never injected, and not in `messages_labelled`.
    pub messages_unreachable: u64,
    /// Faults: messages whose header waits at a failed link or node with no way round when
    /// the run ended ([`Simulation::stuck_headers`]), and how many wait at each fault, named as
    /// in `flinks` (`27x`) or as a failed node (`node 12`).
    pub messages_stuck_at_faults: u64,
    pub stuck_at: Vec<StuckAt>,
    /// Faults: the network stopped moving with flits in it, and no VCs wait for each other in
    /// a cycle: every waiting worm waits, directly or behind others, on a header stuck at a
    /// fault. The run ends there, as at a deadlock. Never set together with `deadlock` or
    /// `saturated`.
    pub fault_stall: bool,
    /// Misroutes per message generated (all of them, as `backtracks_per_message`).
    pub misroutes_per_message: f64,
}

/// One virtual channel: its buffer and routing state, what a flit's move reads and writes, in
/// one 16-byte record (four to a cache line), so that a move touches one record per VC rather
/// than one entry in each of six arrays.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[repr(C)]
struct Vc {
    /// Output VC allocated to the front message (`NONE` until its header is routed,
    /// [`EJECT_VC`] for the ejection channel).
    out: u32,
    /// The message the VC is allocated to, from header allocation until its tail is sent
    /// across; for an injection VC, the message being injected (`NONE` when free).
    owner: u32,
    flits: u16,
    /// Flits of the front message that have left the VC.
    sent: u16,
    /// Ring position of the front flit in the VC's FIFO (`buf` ≤ 256 slots).
    head: u8,
    /// 1 while the front flit is a header that found no free VC.
    blocked: u8,
    /// Fixed: the VC's local index at its router (its bit in the router's active words).
    local: u8,
    /// Fixed: the VC's switch port. A network VC's channel leaves the router upstream through
    /// port `p` and enters its own router through input port `p`; a shared-queue slot is read
    /// and written through its own port `2n + 1 + q`; so one number serves as the VC's output
    /// port upstream and its input port at its router. The injection VC's is the injection
    /// input `2n` (it is never an output), the sentinel's the ejection port `2n`.
    port: u8,
}

const _: () = assert!(std::mem::size_of::<Vc>() == 16);

impl Vc {
    const FREE: Vc = Vc { out: NONE, owner: NONE, flits: 0, sent: 0, head: 0, blocked: 0, local: 0, port: 0 };
}

/// Where a VC sits (fixed at construction).
#[derive(Clone, Copy, Debug)]
struct Place {
    /// The word of `active_vcs` that holds the VC's bit: its router `<< active_shift`, plus the
    /// word of its local index.
    word: u32,
    /// A network VC's channel (`NONE` for other VCs).
    channel: u32,
}

pub struct Simulation {
    scenario: Scenario,
    torus: Torus,
    routing: Algorithm,
    /// VCs reallocated only once empty ([`Routing::atomic_vcs`]).
    atomic_vcs: u32,
    /// Bit `v` set for every VC `v < V` of a channel.
    all_vcs_mask: u32,
    /// The router organisation, and whether the allocation and moves of [`router`] run instead
    /// of the input-queued router's own: for any other organisation, and for messages of
    /// varying length (the input-queued router's moves take every message to be `len` flits).
    router: RouterOrganisation,
    organised: bool,
    /// Injection VCs per node, each a switch input of its own: W = 1, or 2n under `wide`; the
    /// i-th of node u is VC `net_vcs + i · N + u`.
    injection_channels: u32,
    pattern: Pattern,
    traffic_rng: Rng,
    /// When each node's messages arrive (`inject=`).
    arrivals: Arrivals,
    routing_rng: Rng,
    /// Draws message lengths under `lengths=` (none when fixed: every message is `len` flits).
    length_rng: Rng,
    lengths: MessageLengths,
    cycle: u64,
    len: u16,
    buf: u16,
    vcs: u32,
    ports: u32,
    net_vcs: u32,
    /// Chaos's shared queue: Q packet slots per node (0 without one), VC index of the first
    /// slot (after the W injection VCs of each node), and each router's free slots as a bit
    /// mask.
    mq: u32,
    mq_base: u32,
    mq_free: Table<u64>,
    /// Credits a header needs on an output VC: a whole packet under chaos's virtual cut-through,
    /// none under wormhole switching.
    cut_through: u16,
    /// Chaos's per-source limit of packets in the network, and each source's count
    /// ([`routing::chaos::outstanding_limit`]).
    outstanding_limit: u32,
    outstanding: Table<u32>,
    misroutes: u64,
    /// Every VC (network VCs `channel · V + v`, one injection VC per node, then the shared-queue
    /// slots), and a sentinel at index `all_vcs` standing for the outputs that are not VCs
    /// (none yet, or ejection): no flits, the ejection port.
    vc: Table<Vc>,
    place: Table<Place>,
    /// Per network and injection VC: a FIFO of `buf` message slots, one per flit, starting at
    /// the VC's `head` (an injection VC holds its one message at the front, so every front is
    /// found alike).
    fifo: Table<u32>,
    all_vcs: u32,
    /// Per channel: VCs allocated; and the number of channels with each count, `0..=V`, which
    /// the statistics add up once per measured cycle (P_v).
    busy_vcs: Table<u8>,
    channels_at_level: Table<u64>,
    /// `in_channel[node · 2n + p]`: the channel entering `node` through its input port `p`.
    in_channel: Table<u32>,
    /// Under `speedup2` ([`router`]): per VC, the credits held by flits queued at the output of
    /// the router upstream; per channel, that output's queue (a ring of V · buf flits from
    /// `out_head`, `out_len` long); and a bit per channel whose queue holds flits. Empty
    /// otherwise, except `reserved`, all zero.
    reserved: Table<u16>,
    out_queue: Table<QueuedFlit>,
    out_head: Table<u16>,
    out_len: Table<u16>,
    queued_channels: Table<u64>,
    /// Router, link and credit delays ([`pipeline`]), and whether the scenario has any (then
    /// the input-queued router runs its delayed variant).
    pipeline: Pipeline,
    delayed: bool,

    // Per node.
    source_queue: Vec<VecDeque<u32>>,
    /// Under `router=...voq`: the port of each message slot's first hop, which picks its
    /// virtual output queue and injection channel (empty under every other organisation).
    first_port: Table<u8>,
    next_arrival: Table<f64>,
    /// The end of each node's current or next burst (`inject=onoff`; unused otherwise).
    burst_end: Table<f64>,
    /// Which nodes have arrivals in which cycle, so that generation costs what arrives rather
    /// than a look at every node every cycle; and the nodes due in the current cycle.
    calendar: Calendar,
    due: Vec<Node>,
    // Active lists, so that a cycle costs what moves rather than the size of the network. A
    // router's input VCs (network input ports in port order, then injection) have local
    // indices `port · V + v`, the injection VC `2n · V`.
    /// Per router: its input VCs by local index.
    input_vcs: Table<u32>,
    /// Input VCs per router (2n · V + 1, at most 97; 2n + 1 + Q, at most 71, under chaos).
    locals: u32,
    /// Allocation class of each local index, added to message ages so that headers are served
    /// class by class: 0 for every input except under chaos, whose shared queue comes first,
    /// then its input buffers, injection last ([`routing::chaos`]).
    local_class: Table<u64>,
    /// Per router, `1 << active_shift` words (one, or two for more than 64 inputs): bit `i % 64`
    /// of word `i / 64` set while local input VC `i` holds flits and is not parked.
    active_vcs: Table<u64>,
    active_shift: u32,
    /// Per router, the same words as `active_vcs`: its parked input VCs ([`parking`]); and
    /// whether this scenario parks at all.
    parked_vcs: Table<u64>,
    parks: bool,
    /// Bit per router: set when an input VC receives flits, cleared by the sweep that finds
    /// none left (an idle router would have nothing to do), so emptying a VC costs one bit.
    active_routers: Table<u64>,
    queue_cap: usize,
    messages: Table<Message>,
    free_messages: Vec<u32>,
    next_id: u64,
    /// The cycle's granted moves: `moves[..move_count]`, in allocation order. Each switch input
    /// port sends at most one flit a cycle, so there is room for one per input port.
    moves: Table<Move>,
    move_count: usize,
    /// At the router being allocated: its input VCs whose front flit could move this cycle,
    /// oldest message first (one entry per input VC, the first few in use).
    contenders: Table<Contender>,
    /// The same for the organised router ([`router`]): a request per message that could move,
    /// several per VC under `damq`.
    requests: Vec<Request>,
    stats: Stats,
    /// When the measurement window starts and ends ([`run_length`]), and the next cycle at
    /// which the window or the controller needs attention: every other cycle costs one test.
    run_length: RunLength,
    next_event: u64,
    /// Broadcasts in progress (seed 003), and the free slots of that table.
    broadcasts: Vec<BroadcastState>,
    free_broadcasts: Vec<u32>,
    tree_ports: Vec<Port>,
    /// Scouting switching's probe lead K (0: wormhole); m, the misroutes a header may make
    /// round faults; whether headers are probes (K > 0 or m > 0); and the probe state of each
    /// message slot (empty unless they are).
    scout: u32,
    misroute: u32,
    probing: bool,
    probes: Vec<Probe>,
    /// Positive acknowledgements in flight, by the cycle they arrive (mod K + 1): (message
    /// slot, channels acknowledged, or `ACK_ALL` for the header's arrival).
    acks: Vec<Vec<(u32, u32)>>,
    backtracks: u64,
    generating: bool,
    /// Source-cycles in which a full source queue held an arrival back ([`Scenario::qcap`]).
    throttled_source_cycles: u64,
    /// The drain after the window reached its limit and stopped generation.
    drain_cut: bool,
    deadlock: bool,
    /// The scenario's faults (`None` without any). The failed channels are also folded into
    /// `vc` (their VCs are owned by [`FAILED`]), which is all the routers ever read; this keeps
    /// the rest: failed nodes, reachability, the faults' names.
    faults: Option<Box<crate::faults::Faults>>,
    /// Messages generated for a destination the surviving network cannot reach: all of them,
    /// and those in the window.
    unreachable: u64,
    unreachable_labelled: u64,
    /// Labelled messages stuck at faults, as last counted during the drain ([`Simulation::run`]).
    labelled_stuck: u64,
    /// See [`RunReport::fault_stall`].
    fault_stall: bool,
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
        let faults = s.faults()?.map(Box::new);
        let nodes = torus.nodes();
        let ports = torus.ports();
        let channels = torus.channels();
        let net_vcs = channels * s.vcs;
        let injection_channels = s.router.injection_channels(s.n);
        let mq_base = net_vcs + nodes * injection_channels;
        let all_vcs = (mq_base + nodes * s.mq) as usize;
        let mut in_channel = Vec::with_capacity(channels as usize);
        for u in 0..nodes {
            for p in 0..ports {
                in_channel.push(torus.channel(torus.neighbour(u, p ^ 1), p));
            }
        }
        let locals = ports * s.vcs + injection_channels + s.mq;
        assert!(locals <= 128, "a router's inputs must fit two active words");
        let active_shift = (locals > 64) as u32;
        let mut vc = vec![Vc::FREE; all_vcs + 1];
        let mut place = vec![Place { word: 0, channel: NONE }; all_vcs];
        let mut input_vcs = Vec::with_capacity((nodes * locals) as usize);
        let mut sit = |v: u32, u: Node, local: u32| {
            vc[v as usize].local = local as u8;
            place[v as usize].word = u << active_shift | local / 64;
        };
        for u in 0..nodes {
            for port in 0..ports {
                for v in 0..s.vcs {
                    let network_vc = in_channel[(u * ports + port) as usize] * s.vcs + v;
                    sit(network_vc, u, port * s.vcs + v);
                    input_vcs.push(network_vc);
                }
            }
            for i in 0..injection_channels {
                let injection_vc = net_vcs + i * nodes + u;
                sit(injection_vc, u, ports * s.vcs + i);
                input_vcs.push(injection_vc);
            }
            for q in 0..s.mq {
                let slot_vc = mq_base + u * s.mq + q;
                sit(slot_vc, u, ports * s.vcs + injection_channels + q);
                input_vcs.push(slot_vc);
            }
        }
        for network_vc in 0..net_vcs {
            let channel = network_vc / s.vcs;
            place[network_vc as usize].channel = channel;
            vc[network_vc as usize].port = torus.channel_port(channel) as u8;
        }
        for slot_vc in mq_base..all_vcs as u32 {
            vc[slot_vc as usize].port = (ports + 1 + (slot_vc - mq_base) % s.mq) as u8;
        }
        for injection_vc in net_vcs..mq_base {
            vc[injection_vc as usize].port = (ports + (injection_vc - net_vcs) / nodes) as u8;
        }
        let mut channels_at_level: Vec<u64> = (0..=s.vcs).map(|v| if v == 0 { channels as u64 } else { 0 }).collect();
        if let Some(f) = &faults {
            for channel in f.failed_channels() {
                for v in 0..s.vcs {
                    vc[(channel * s.vcs + v) as usize].owner = FAILED;
                }
                // A failed channel is no channel: P_v counts the working ones.
                channels_at_level[0] -= 1;
            }
        }
        vc[all_vcs].port = ports as u8;
        let injection_local = ports * s.vcs;
        let chaos = s.routing == RoutingKind::Chaos;
        let local_class: Vec<u64> = (0..locals)
            .map(|i| match (chaos, i.cmp(&injection_local)) {
                (false, _) | (true, std::cmp::Ordering::Greater) => 0,
                (true, std::cmp::Ordering::Less) => 1 << CLASS_SHIFT,
                (true, std::cmp::Ordering::Equal) => 2 << CLASS_SHIFT,
            })
            .collect();
        let mut traffic_rng = Rng::new(s.seed, Stream::Traffic);
        let arrivals = Arrivals::new(s.inject, s.rate, s.rng);
        let mut burst_end = vec![0.0; nodes as usize];
        let next_arrival: Vec<f64> = burst_end.iter_mut().map(|end| arrivals.first(end, &mut traffic_rng)).collect();
        let mut calendar = Calendar::new(nodes);
        for (u, &t) in next_arrival.iter().enumerate() {
            if faults::sends(&faults, &pattern, &torus, u as Node) {
                calendar.schedule(u as Node, t, 0);
            }
        }
        let (run_length, window_start, window_end) = RunLength::new(s);
        let routing = routing::build(s);
        let probing = s.scout > 0 || s.misroute > 0;
        let input_ports = ((ports + injection_channels) * s.router.speedup() + s.mq) as usize;
        let speedup2 = s.router.speedup2;
        let queue_depth = if speedup2 { (s.vcs * s.buf) as usize } else { 0 };
        Ok(Simulation {
            scenario: s.clone(),
            atomic_vcs: routing.atomic_vcs(),
            all_vcs_mask: VcSets { vcs: s.vcs }.all(),
            router: s.router,
            organised: !s.router.is_iq() || !s.lengths.is_fixed(),
            injection_channels,
            routing,
            pattern,
            traffic_rng,
            arrivals,
            routing_rng: Rng::new(s.seed, Stream::Routing),
            length_rng: Rng::new(s.seed, Stream::Lengths),
            lengths: MessageLengths::new(s.lengths, s.len, s.rng),
            cycle: 0,
            len: s.len as u16,
            buf: s.buf as u16,
            vcs: s.vcs,
            ports,
            net_vcs,
            mq: s.mq,
            mq_base,
            mq_free: vec![if s.mq == 64 { u64::MAX } else { (1u64 << s.mq) - 1 }; if chaos { nodes as usize } else { 0 }].into(),
            cut_through: if chaos { s.len as u16 } else { 0 },
            outstanding_limit: if chaos { routing::chaos::outstanding_limit(s.mq, ports) } else { u32::MAX },
            outstanding: vec![0; if chaos { nodes as usize } else { 0 }].into(),
            misroutes: 0,
            vc: vc.into(),
            place: place.into(),
            fifo: vec![NONE; (mq_base * s.buf) as usize].into(),
            all_vcs: all_vcs as u32,
            busy_vcs: vec![0; channels as usize].into(),
            channels_at_level: channels_at_level.into(),
            in_channel: in_channel.into(),
            reserved: vec![0; all_vcs + 1].into(),
            out_queue: vec![QueuedFlit::default(); channels as usize * queue_depth].into(),
            out_head: vec![0; if speedup2 { channels as usize } else { 0 }].into(),
            out_len: vec![0; if speedup2 { channels as usize } else { 0 }].into(),
            queued_channels: vec![0; if speedup2 { channels.div_ceil(64) as usize } else { 0 }].into(),
            pipeline: Pipeline::new(s, net_vcs, nodes as usize * input_ports),
            delayed: s.has_delays(),
            source_queue: (0..nodes).map(|_| VecDeque::new()).collect(),
            first_port: Vec::new().into(),
            calendar,
            due: Vec::with_capacity(nodes as usize),
            next_arrival: next_arrival.into(),
            burst_end: burst_end.into(),
            input_vcs: input_vcs.into(),
            locals,
            local_class: local_class.into(),
            active_vcs: vec![0; (nodes << active_shift) as usize].into(),
            parked_vcs: vec![0; (nodes << active_shift) as usize].into(),
            parks: s.len > 1 && !chaos && !probing && routing.atomic_vcs() == 0 && s.router.is_iq() && s.lengths.is_fixed(),
            active_shift,
            active_routers: vec![0; nodes.div_ceil(64) as usize].into(),
            queue_cap: s.source_queue_cap(),
            messages: Vec::new().into(),
            free_messages: Vec::new(),
            next_id: 0,
            moves: vec![Move { from: 0, to: 0, slot: 0 }; nodes as usize * input_ports].into(),
            move_count: 0,
            contenders: vec![Contender { age: 0, vc: 0, slot: 0, out: NONE, port: 0 }; locals as usize].into(),
            // One request per input VC, or one per buffered message under damq: never grown.
            requests: Vec::with_capacity(if s.router.damq { (locals * s.buf) as usize } else { locals as usize }),
            stats: Stats::new(window_start, window_end, nodes as usize, channels as usize, s.vcs as usize),
            run_length,
            next_event: 0,
            broadcasts: Vec::new(),
            free_broadcasts: Vec::new(),
            tree_ports: Vec::with_capacity(2 * ports as usize),
            scout: s.scout,
            misroute: s.misroute,
            probing,
            probes: Vec::new(),
            acks: (0..=s.scout).map(|_| Vec::new()).collect(),
            backtracks: 0,
            generating: true,
            throttled_source_cycles: 0,
            drain_cut: false,
            deadlock: false,
            faults,
            unreachable: 0,
            unreachable_labelled: 0,
            labelled_stuck: 0,
            fault_stall: false,
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
    /// Network VCs (`channel · V + v`).
    pub fn network_vcs(&self) -> u32 {
        self.net_vcs
    }
    /// Flit-hops moved over network channels so far.
    pub fn flit_hops(&self) -> u64 {
        self.flit_hops
    }
    pub fn deadlocked(&self) -> bool {
        self.deadlock
    }
    /// With faults: the network stopped, with no deadlock ([`RunReport::fault_stall`]).
    pub fn fault_stalled(&self) -> bool {
        self.fault_stall
    }

    /// A free injection VC of `node`, the lowest-numbered.
    #[inline(always)]
    fn free_injection_vc(&self, node: Node) -> Option<u32> {
        let first = self.net_vcs + node;
        if self.vc[first as usize].owner == NONE {
            Some(first)
        } else if self.injection_channels > 1 {
            self.other_free_injection_vc(first)
        } else {
            None
        }
    }

    /// Under `wide`: a free injection VC of the node whose first is `first` (in flight).
    #[cold]
    #[inline(never)]
    fn other_free_injection_vc(&self, first: u32) -> Option<u32> {
        let nodes = self.torus.nodes();
        (1..self.injection_channels).map(|i| first + i * nodes).find(|&vc| self.vc[vc as usize].owner == NONE)
    }

    fn is_injection(&self, vc: u32) -> bool {
        vc >= self.net_vcs && vc < self.mq_base
    }

    /// The message whose flit is at the front of a VC that holds flits (an injection VC or a
    /// shared-queue slot holds only the message it is allocated to).
    fn front(&self, vc: u32) -> u32 {
        if vc >= self.mq_base {
            self.vc[vc as usize].owner
        } else {
            self.fifo[(vc * self.buf as u32 + self.vc[vc as usize].head as u32) as usize]
        }
    }

    /// Credits the sender of network VC `vc` holds: free slots in its buffer. A flit leaving
    /// returns its credit in the same phase of the cycle as it frees the slot, so the two are
    /// the same count, usable from the next cycle.
    #[inline]
    fn credits(&self, vc: usize) -> u16 {
        self.buf - self.vc[vc].flits
    }

    /// Messages generated in the measurement window are labelled (seed 004's method), unicast
    /// ones only: a broadcast is labelled as a whole.
    fn labelled(&self, m: &Message) -> bool {
        m.broadcast == NONE && self.stats.in_window(m.generated)
    }

    /// The router a VC's buffer belongs to.
    fn vc_router(&self, vc: u32) -> Node {
        self.place[vc as usize].word >> self.active_shift
    }

    /// Advances one cycle.
    pub fn step(&mut self) {
        // The allocator and the moves are compiled for each algorithm and for what the scenario
        // switches on (chaos's shared queue, scouting), so that the plain wormhole router
        // carries no branch for either.
        match self.routing {
            Algorithm::Chaos(r) => self.step_with::<_, true, false, false>(&r),
            routing if self.probing => with_algorithm!(routing, r => self.step_with::<_, false, true, false>(&r)),
            routing if self.organised => with_algorithm!(routing, r => self.step_organised(&r)),
            routing if self.delayed => with_algorithm!(routing, r => self.step_with::<_, false, false, true>(&r)),
            routing => with_algorithm!(routing, r => self.step_with::<_, false, false, false>(&r)),
        }
    }

    /// One cycle under routing algorithm `r` (the scenario's, unwrapped), with chaos's shared
    /// queue and virtual cut-through (`CHAOS`), scouting switching (`SCOUT`), or router, link
    /// and credit delays (`DELAY`, [`pipeline`]).
    // This and the two phases below are kept out of line so that each is a function of its own
    // in WebAssembly too: V8 compiles a function beyond a size limit with a weaker register
    // allocator, and the whole cycle inlined into one function was 27% slower in Node (see the
    // Makefile's WASM_OPT_INLINING).
    #[inline(never)]
    fn step_with<R: Routing, const CHAOS: bool, const SCOUT: bool, const DELAY: bool>(&mut self, r: &R) {
        if self.cycle == self.next_event {
            self.event();
        }
        if self.generating {
            self.generate(r);
        }
        if SCOUT {
            self.deliver_acks();
        }
        if DELAY {
            self.return_credits();
        }
        self.move_count = 0;
        self.allocate_routers::<R, CHAOS, SCOUT, DELAY>(r);
        self.count_busy_vcs();
        if !CHAOS && !SCOUT && self.parks {
            self.apply_moves::<R, false, false, true, DELAY>(r);
        } else {
            self.apply_moves::<R, CHAOS, SCOUT, false, DELAY>(r);
        }
        if self.flits_in_network > 0 && self.cycle - self.last_move >= DEADLOCK_CYCLES {
            self.stopped();
        }
        if cfg!(debug_assertions) {
            self.check_invariants();
            self.check_parked(r);
        }
        self.cycle += 1;
    }

    /// At the start of a cycle in which the window starts or ends, or the run-length controller
    /// wants to look ([`run_length`]); between two, nothing about the window changes.
    #[cold]
    #[inline(never)]
    fn event(&mut self) {
        let now = self.cycle;
        let in_system = (self.messages.len() - self.free_messages.len()) as u64;
        let control = self.run_length.act(now, in_system, self.throttled_source_cycles > 0, &mut self.stats);
        self.stats.begin_cycle(now);
        let s = &self.stats;
        self.next_event = [s.window_start, s.window_end, control].into_iter().filter(|&c| c > now).min().unwrap_or(u64::MAX);
    }

    /// Allocation at every router with an active input VC.
    #[inline(never)] // see step_with
    fn allocate_routers<R: Routing, const CHAOS: bool, const SCOUT: bool, const DELAY: bool>(&mut self, r: &R) {
        let mut candidates = Candidates::default();
        for w in 0..self.active_routers.len() {
            // Routers that become active during the sweep (a backtracked header) have nothing
            // to do before the next cycle.
            let mut routers = self.active_routers[w];
            while routers != 0 {
                let bit = routers.trailing_zeros();
                routers &= routers - 1;
                let u = w as u32 * 64 + bit;
                if self.router_idle(u) {
                    self.active_routers[w] &= !(1 << bit);
                    continue;
                }
                self.allocate::<R, CHAOS, SCOUT, DELAY>(r, u, &mut candidates);
            }
        }
    }

    /// Router `u` has no active input VC.
    #[inline(always)]
    fn router_idle(&self, u: Node) -> bool {
        let first = (u << self.active_shift) as usize;
        // Both words, or the one word twice.
        self.active_vcs[first] | self.active_vcs[first + self.active_shift as usize] == 0
    }

    /// Turns the Poisson sources on or off (the page's "one message" demonstrations turn them
    /// off and [`Simulation::send`] messages by hand).
    pub fn set_traffic(&mut self, on: bool) {
        if on && !self.generating {
            // Arrivals that fell due while the sources were off are generated now.
            let now = self.cycle;
            self.calendar = Calendar::new(self.torus.nodes());
            for (u, &t) in self.next_arrival.iter().enumerate() {
                if faults::sends(&self.faults, &self.pattern, &self.torus, u as Node) {
                    self.calendar.schedule(u as Node, t.max(now as f64), now);
                }
            }
        }
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
    /// slot in the message table (the id [`VcSnapshot::owner`] shows).
    pub fn send(&mut self, src: Node, dest: Node) -> u32 {
        assert!(src < self.torus.nodes() && dest < self.torus.nodes(), "send: node out of range");
        let routing = self.routing;
        with_algorithm!(routing, r => self.create_message(&r, src, dest, NONE))
    }

    fn generate<R: Routing>(&mut self, r: &R) {
        let now = self.cycle;
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        self.calendar.take_due(now, &mut due);
        for &u in &due {
            self.arrive(r, u);
            self.calendar.schedule(u, self.next_arrival[u as usize], now + 1);
        }
        self.due = due;
    }

    /// The messages of node `u` that arrive in this cycle join its source queue.
    fn arrive<R: Routing>(&mut self, r: &R, u: Node) {
        let now = self.cycle;
        let i = u as usize;
        while self.next_arrival[i] < (now + 1) as f64 {
            if self.source_queue[i].len() >= self.queue_cap {
                self.throttled_source_cycles += 1;
                self.next_arrival[i] = (now + 1) as f64;
                break;
            }
            self.next_arrival[i] = self.arrivals.next(self.next_arrival[i], &mut self.burst_end[i], &mut self.traffic_rng);
            if self.scenario.beta > 0.0 && self.traffic_rng.chance(self.scenario.beta) {
                self.start_broadcast(r, u);
            } else {
                let dest = if self.faults.is_none() {
                    self.pattern.destination(&self.torus, u, &mut self.traffic_rng)
                } else {
                    match self.destination_with_faults(u) {
                        Some(dest) => dest,
                        None => continue,
                    }
                };
                self.create_message(r, u, dest, NONE);
            }
        }
    }

    /// A new message joins the source queue of `src` in the current cycle: a unicast message,
    /// or a one-hop copy of `broadcast`.
    #[inline(always)]
    fn create_message<R: Routing>(&mut self, r: &R, src: Node, dest: Node, broadcast: u32) -> u32 {
        let now = self.cycle;
        let plan = r.plan(&self.torus, src, dest, &mut self.routing_rng);
        let len = if self.lengths.is_fixed() { self.len } else { self.draw_length() };
        let m = Message { id: self.next_id, header_ready: now, plan, hops: 0, src: src as u16, len, broadcast, generated: now, injected: now };
        let labelled = self.labelled(&m);
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
        if self.probing {
            self.new_probe(slot);
        }
        self.stats.generated(now, src, len as u32, broadcast == NONE);
        self.flits_generated += len as u64;
        if labelled {
            self.labelled_outstanding += 1;
        }
        if self.router.voq {
            self.queue_by_first_hop(r, src, slot, now);
        } else if let Some(injection) = self.free_injection_vc(src) {
            // A free injection VC has an empty queue: the tail that freed it took the next.
            debug_assert!(self.source_queue[src as usize].is_empty());
            self.inject(injection, slot, now);
        } else {
            self.source_queue[src as usize].push_back(slot);
            self.messages_queued += 1;
        }
        slot
    }

    /// A new message's length under `lengths=` other than fixed.
    #[cold]
    #[inline(never)]
    fn draw_length(&mut self) -> u16 {
        self.lengths.sample(&mut self.length_rng) as u16
    }

    /// A broadcast starts at `source`: one copy to each of its children in the spanning tree.
    fn start_broadcast<R: Routing>(&mut self, r: &R, source: Node) {
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
        self.replicate(r, id, source);
    }

    /// `node` forwards broadcast `id` to its children, through its own source queue.
    fn replicate<R: Routing>(&mut self, r: &R, id: u32, node: Node) {
        let source = self.broadcasts[id as usize].source;
        let mut ports = std::mem::take(&mut self.tree_ports);
        crate::broadcast::children(&self.torus, source, node, &mut ports);
        for &p in &ports {
            let child = self.torus.neighbour(node, p);
            self.create_message(r, node, child, id);
        }
        self.tree_ports = ports;
    }

    /// A copy of broadcast `id` reached `node`: count it and pass the broadcast on.
    fn broadcast_received<R: Routing>(&mut self, r: &R, id: u32, node: Node, now: u64) {
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
        self.replicate(r, id, node);
    }

    /// Under `voq`: new message `slot` of `src` joins the virtual output queue of its first hop,
    /// the first candidate its routing algorithm gives at the source (port 0 for a message to
    /// its own node), and takes that port's injection VC if it is free.
    #[cold]
    #[inline(never)]
    fn queue_by_first_hop<R: Routing>(&mut self, r: &R, src: Node, slot: u32, now: u64) {
        let mut plan = self.messages[slot as usize].plan;
        let mut candidates = Candidates::default();
        r.candidates(&self.torus, src, &mut plan, &mut candidates);
        let port = candidates.as_slice()[0].port;
        let port = if port < self.ports { port } else { 0 };
        if self.first_port.len() <= slot as usize {
            self.first_port.resize(slot as usize + 1, 0);
        }
        self.first_port[slot as usize] = port as u8;
        let vc = self.net_vcs + port * self.torus.nodes() + src;
        if self.vc[vc as usize].owner == NONE {
            // A free injection VC has an empty virtual output queue: the tail that freed it
            // took the next.
            debug_assert!(!self.source_queue[src as usize].iter().any(|&q| self.first_port[q as usize] as u32 == port));
            self.inject(vc, slot, now);
        } else {
            self.source_queue[src as usize].push_back(slot);
            self.messages_queued += 1;
        }
    }

    /// Under `voq`: the oldest queued message of `node` whose first hop is the port of its
    /// injection VC `vc`, just freed, takes it.
    #[cold]
    #[inline(never)]
    fn start_injection_by_first_hop(&mut self, node: Node, vc: u32, ready: u64) {
        let port = (vc - self.net_vcs) / self.torus.nodes();
        let queue = &self.source_queue[node as usize];
        if let Some(at) = queue.iter().position(|&q| self.first_port[q as usize] as u32 == port) {
            let slot = self.source_queue[node as usize].remove(at).unwrap();
            self.messages_queued -= 1;
            self.inject(vc, slot, ready);
        }
    }

    /// Moves the next queued message of `node` onto its injection VC `vc`, just freed.
    fn start_injection(&mut self, node: Node, vc: u32, ready: u64) {
        if self.router.voq {
            self.start_injection_by_first_hop(node, vc, ready);
        } else if let Some(slot) = self.source_queue[node as usize].pop_front() {
            self.messages_queued -= 1;
            self.inject(vc, slot, ready);
        }
    }

    /// Message `slot` takes the free injection VC `vc`; its header can be routed from cycle
    /// `ready`.
    #[inline(always)]
    fn inject(&mut self, vc: u32, slot: u32, ready: u64) {
        self.fifo[(vc * self.buf as u32) as usize] = slot;
        let v = &mut self.vc[vc as usize];
        v.owner = slot;
        v.flits = self.messages[slot as usize].len;
        v.sent = 0;
        v.out = NONE;
        self.messages[slot as usize].header_ready = ready;
        self.mark_filled(vc, false);
    }

    /// A VC's buffer received flits: its router has work (unless the VC is parked, which only
    /// happens with `parking`: flits arriving behind a parked header do not free a VC for it).
    #[inline(always)]
    fn mark_filled(&mut self, vc: u32, parking: bool) {
        let w = self.place[vc as usize].word as usize;
        let parked = if parking { self.parked_vcs[w] } else { 0 };
        self.active_vcs[w] |= 1u64 << (self.vc[vc as usize].local % 64) & !parked;
        let u = w >> self.active_shift;
        self.active_routers[u / 64] |= 1 << (u % 64);
    }

    /// Flits left a VC's buffer; if it is now `empty`, it drops out of its router's active
    /// words (the router's own bit is cleared by the sweep that finds it idle). Computed rather
    /// than branched on: whether a buffer just emptied is as random as the traffic.
    #[inline(always)]
    fn mark_drained(&mut self, vc: u32, empty: bool) {
        let w = self.place[vc as usize].word as usize;
        let bit = 1u64 << (self.vc[vc as usize].local % 64);
        self.active_vcs[w] &= !(bit & (empty as u64).wrapping_neg());
    }

    /// The input VCs of router `u` (network input ports, then injection), as a range per port.
    fn input_port_vcs(&self, u: Node, port: u32) -> std::ops::Range<u32> {
        if port >= self.ports {
            let vc = self.net_vcs + (port - self.ports) * self.torus.nodes() + u;
            vc..vc + 1
        } else {
            let base = self.in_channel[(u * self.ports + port) as usize] * self.vcs;
            base..base + self.vcs
        }
    }

    /// Allocation at router `u`, over its input VCs that hold flits.
    ///
    /// The VCs whose front flit could move this cycle contend, oldest message first (ties, a
    /// message at two inputs of one router, by VC):
    /// 1. VC allocation: each header without an output takes the preferred free VC among the
    ///    routing algorithm's candidates;
    /// 2. switch allocation: a maximal matching of input ports to output ports (and the
    ///    ejection channel) built in age order: every contender with an output and a credit is
    ///    granted while both its input port and its output are still unused this cycle.
    ///
    /// VC allocation never reads what switch allocation decides, and a contender's switch
    /// request reads only its own output and that output's credits, which no VC allocation can
    /// change; so one pass in age order, each contender allocated a VC and then the switch, is
    /// the same as allocating every VC first. Chaos orders the two steps differently (its
    /// classes order VC allocation only), and a scouting backtrack can change a message that
    /// is also at another input of the router, so those two take two passes.
    #[inline(always)]
    fn allocate<R: Routing, const CHAOS: bool, const SCOUT: bool, const DELAY: bool>(&mut self, r: &R, u: Node, candidates: &mut Candidates) {
        let n = self.collect_contenders::<CHAOS, SCOUT, DELAY>(u);
        let mut deflection_tried = false;
        let mut ports_used = PortsUsed::default();
        if !CHAOS && !SCOUT {
            for w in 0..n {
                let mut c = self.contenders[w];
                if c.out == NONE {
                    c.out = self.allocate_vc::<R, CHAOS, SCOUT>(r, u, c, candidates, &mut deflection_tried);
                }
                self.request_switch::<CHAOS, SCOUT, DELAY>(c, &mut ports_used);
            }
            return;
        }
        for w in 0..n {
            let c = self.contenders[w];
            if c.out == NONE {
                self.contenders[w].out = self.allocate_vc::<R, CHAOS, SCOUT>(r, u, c, candidates, &mut deflection_tried);
            }
        }
        if CHAOS {
            // Chaos's classes order its VC allocation only; the switch goes by age alone.
            let contenders = &mut self.contenders[..n];
            for c in contenders.iter_mut() {
                c.age &= AGE_MASK;
            }
            contenders.sort_unstable_by_key(|c| (c.age, c.vc));
        }
        for w in 0..n {
            self.request_switch::<CHAOS, SCOUT, DELAY>(self.contenders[w], &mut ports_used);
        }
    }

    /// Fills `contenders` with the input VCs of router `u` whose front flit could move this
    /// cycle, oldest first; returns how many.
    #[inline(always)]
    fn collect_contenders<const CHAOS: bool, const SCOUT: bool, const DELAY: bool>(&mut self, u: Node) -> usize {
        let (cycle, buf, net_vcs, mq_base, sentinel) = (self.cycle, self.buf, self.net_vcs, self.mq_base, self.all_vcs);
        let base = (u * self.locals) as usize;
        let (input_vcs, state, fifo, contenders) = (&self.input_vcs, &self.vc, &self.fifo, &mut self.contenders);
        let mut n = 0;
        let first_word = (u << self.active_shift) as usize;
        for word in 0..1usize << self.active_shift {
            let mut active = self.active_vcs[first_word + word];
            while active != 0 {
                let local = word * 64 + active.trailing_zeros() as usize;
                active &= active - 1;
                let vc = input_vcs[base + local];
                let v = &state[vc as usize];
                let out = v.out;
                // A routed front flit with no credit downstream cannot move, and a VC's credits
                // change only when the cycle's moves are applied. (Outputs that are not VCs read
                // the sentinel, which has room; whether there is a route is as random as the
                // traffic, so it is not branched on.)
                let no_credit = if CHAOS {
                    out != NONE && is_credited::<CHAOS>(out, net_vcs) && state[out as usize].flits == buf
                } else if DELAY {
                    out < net_vcs && self.pipeline.no_credit(state, out, buf)
                } else {
                    state[out.min(sentinel) as usize].flits == buf
                };
                if no_credit {
                    continue;
                }
                // A flit still on the wire, or a header in its router's pipeline, waits.
                if DELAY && vc < net_vcs && !self.pipeline.flit_ready((vc * buf as u32 + v.head as u32) as usize, cycle) {
                    continue;
                }
                let slot = if CHAOS && vc >= mq_base { v.owner } else { fifo[(vc * buf as u32 + v.head as u32) as usize] };
                let m = &self.messages[slot as usize];
                // A header that backtracked into this router this cycle moves again next cycle;
                // without scouting every header is ready by the time its router is swept.
                if SCOUT && (out == NONE) & (m.header_ready > cycle) {
                    continue;
                }
                debug_assert!(out != NONE || m.header_ready <= cycle);
                let age = if CHAOS && out == NONE { m.id | self.local_class[local] } else { m.id };
                let c = Contender { age, vc, slot, out, port: v.port };
                let mut j = n;
                while j > 0 && (contenders[j - 1].age, contenders[j - 1].vc) > (age, vc) {
                    contenders[j] = contenders[j - 1];
                    j -= 1;
                }
                contenders[j] = c;
                n += 1;
            }
        }
        n
    }

    /// VC allocation for contender `c`, a header without an output at router `u`: returns the
    /// output it is granted, or `NONE`. Under chaos a header no output can take falls back on
    /// the router's shared queue ([`Simulation::shared_queue_fallback`]).
    #[inline(always)]
    fn allocate_vc<R: Routing, const CHAOS: bool, const SCOUT: bool>(
        &mut self,
        r: &R,
        u: Node,
        c: Contender,
        candidates: &mut Candidates,
        deflection_tried: &mut bool,
    ) -> u32 {
        let Contender { vc, slot, .. } = c;
        let s = slot as usize;
        if CHAOS && self.is_injection(vc) && self.outstanding[u as usize] >= self.outstanding_limit {
            self.vc[vc as usize].blocked = 1;
            return NONE;
        }
        candidates.clear();
        r.candidates(&self.torus, u, &mut self.messages[s].plan, candidates);
        if SCOUT && self.faults.is_some() && self.prune_at_faults(u, slot, candidates) {
            return self.detour(r, u, c);
        }
        let avoid = if SCOUT { self.probes[s].avoid_port } else { NO_PORT };
        match self.select::<CHAOS>(u, candidates.as_slice(), avoid) {
            Some(chosen) => {
                if SCOUT {
                    self.probes[s].avoid_port = NO_PORT;
                    self.probes[s].detour.shun = NO_PORT;
                }
                let m = &self.messages[s];
                self.stats.header_routed(m.hops, self.cycle - m.header_ready);
                self.grant::<CHAOS>(u, vc, slot, chosen);
                chosen
            }
            None if CHAOS => match self.shared_queue_fallback(u, vc, deflection_tried) {
                Some(chosen) => {
                    self.grant::<CHAOS>(u, vc, slot, chosen);
                    chosen
                }
                None => {
                    self.vc[vc as usize].blocked = 1;
                    NONE
                }
            },
            None => {
                // A header that shuns the way back (it has just gone round a dead end) waits
                // for a busy channel rather than backtrack into the dead end.
                if !(SCOUT && self.probes[s].detour.shun == NO_PORT && self.backtrack(vc, slot, false)) {
                    self.vc[vc as usize].blocked = 1;
                    self.park(vc);
                }
                NONE
            }
        }
    }

    /// The header of message `slot` at the front of input VC `vc` of router `u` takes output
    /// `chosen` (a network VC, the ejection channel or a shared-queue slot).
    #[inline(always)]
    fn grant<const CHAOS: bool>(&mut self, u: Node, vc: u32, slot: u32, chosen: u32) {
        let v = &mut self.vc[vc as usize];
        v.out = chosen;
        v.blocked = 0;
        if chosen != EJECT_VC {
            self.vc[chosen as usize].owner = slot;
            if !CHAOS || chosen < self.net_vcs {
                self.change_busy(self.place[chosen as usize].channel, 1);
            }
        }
        if CHAOS && self.is_injection(vc) {
            self.outstanding[u as usize] += 1;
        }
    }

    /// Selection among the candidates: lowest priority value first; among equals, the port
    /// with the fewest flits queued downstream (ties to the earlier candidate); on that port the
    /// lowest-numbered free VC of the candidate's set. A header that has just backtracked off
    /// `avoid` takes that port again only if no other candidate has a free VC.
    #[inline(always)]
    fn select<const CHAOS: bool>(&self, u: Node, candidates: &[Candidate], avoid: Port) -> Option<u32> {
        if avoid != NO_PORT {
            if let Some(vc) = self.select_among::<CHAOS>(u, candidates, avoid) {
                return Some(vc);
            }
        }
        self.select_among::<CHAOS>(u, candidates, NO_PORT)
    }

    #[inline(always)]
    fn select_among<const CHAOS: bool>(&self, u: Node, candidates: &[Candidate], skip: Port) -> Option<u32> {
        // Oblivious routing's one candidate (and every last hop) needs no comparison.
        if let [c] = candidates {
            return match c.port {
                EJECT => Some(EJECT_VC),
                port if port == skip => None,
                port => self.free_vc::<CHAOS>(self.torus.channel(u, port), c.vcs),
            };
        }
        // (priority, free VC, channel, flits queued downstream once needed)
        let mut best: Option<(u8, u32, u32, Option<u32>)> = None;
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
                    let best_queued = best_queued.unwrap_or_else(|| self.queued(best_channel));
                    let queued = self.queued(channel);
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

    /// Flits in the downstream buffers of a channel's VCs (its spent credits), for selection.
    // Always inlined: with a second caller (a misroute round a fault) it was not, in selection.
    #[inline(always)]
    fn queued(&self, channel: u32) -> u32 {
        let base = (channel * self.vcs) as usize;
        self.vc[base..base + self.vcs as usize].iter().map(|v| v.flits as u32).sum()
    }

    /// The lowest-numbered VC of `channel` in the set `vcs` that a header may take now.
    #[inline(always)]
    fn free_vc<const CHAOS: bool>(&self, channel: u32, vcs: u32) -> Option<u32> {
        let base = channel * self.vcs;
        let mut mask = vcs & self.all_vcs_mask;
        while mask != 0 {
            let v = mask.trailing_zeros();
            let candidate = &self.vc[(base + v) as usize];
            if candidate.owner == NONE
                && (self.atomic_vcs >> v & 1 == 0 || candidate.flits == 0)
                && (!CHAOS || self.buf - candidate.flits >= self.cut_through)
            {
                return Some(base + v);
            }
            mask &= mask - 1;
        }
        None
    }

    /// Switch allocation for contender `c`, in age order: it is granted if it has an output
    /// with a credit and both its input port and its output port are still unused.
    ///
    /// Without chaos the decision is computed, not branched on: which contender wins is as
    /// random as the traffic, so a branch per contender would be mispredicted about as often
    /// as not. Outputs that are not VCs (none, ejection) read the sentinel entry.
    #[inline(always)]
    fn request_switch<const CHAOS: bool, const SCOUT: bool, const DELAY: bool>(&mut self, c: Contender, used: &mut PortsUsed) {
        let Contender { vc, slot, out, port: in_port, .. } = c;
        debug_assert_eq!(out, self.vc[vc as usize].out);
        let granted = if CHAOS {
            if out == NONE || (is_credited::<CHAOS>(out, self.net_vcs) && self.vc[out as usize].flits == self.buf) {
                return;
            }
            let out_port = if out == EJECT_VC { self.ports as u8 } else { self.vc[out as usize].port };
            let request = (self.port_bit(in_port) as u64) | (self.port_bit(out_port) as u64) << 32;
            if used.0 & request != 0 {
                return;
            }
            used.0 |= request;
            true
        } else {
            let o = &self.vc[out.min(self.all_vcs) as usize];
            let request = PortsUsed::request(in_port as u32, o.port as u32);
            let credit = if DELAY { out >= self.net_vcs || !self.pipeline.no_credit(&self.vc, out, self.buf) } else { o.flits < self.buf };
            let mut granted = (out != NONE) & credit & (used.0 & request == 0);
            if SCOUT && self.vc[vc as usize].sent == 1 {
                granted &= self.data_may_advance(slot);
            }
            used.0 |= request & (granted as u64).wrapping_neg();
            granted
        };
        self.moves[self.move_count] = Move { from: vc, to: out, slot };
        self.move_count += granted as usize;
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
    #[inline(never)] // see step_with
    fn apply_moves<R: Routing, const CHAOS: bool, const SCOUT: bool, const PARKING: bool, const DELAY: bool>(&mut self, r: &R) {
        let now = self.cycle;
        if self.move_count > 0 {
            self.last_move = now;
        }
        for i in 0..self.move_count {
            let Move { from, to, slot } = self.moves[i];
            let sent = self.vc[from as usize].sent;
            let header = sent == 0;
            let tail = sent + 1 == self.len;
            self.depart::<CHAOS>(from, tail, now);
            if DELAY && from < self.net_vcs {
                self.send_credit(from);
            }
            if header && from >= self.net_vcs && (!CHAOS || from < self.mq_base) {
                self.messages[slot as usize].injected = now;
            }
            if SCOUT {
                self.scouting_progress(slot, header, to, now);
                if sent == 1 && to != EJECT_VC {
                    self.data_crossed(slot);
                }
            }
            if to == EJECT_VC {
                self.stats.ejected_flit();
                self.flits_delivered += 1;
                if tail {
                    self.deliver(r, slot, now);
                }
                continue;
            }
            if CHAOS && to >= self.mq_base {
                self.enter_shared_queue(to, slot, header, now);
                continue;
            }
            self.cross::<PARKING>(from, to, slot, header, tail, now);
            if DELAY {
                self.delay_arrival(to, slot, header);
            }
        }
    }

    /// A flit of message `slot` from `from` crosses the channel into network VC `to`; when
    /// `release`, it is the tail, and `to` is free for another message from the next cycle.
    #[inline(always)]
    fn cross<const PARKING: bool>(&mut self, from: u32, to: u32, slot: u32, header: bool, release: bool, now: u64) {
        let t = to as usize;
        let buf = self.buf as u32;
        let v = &mut self.vc[t];
        let mut at = v.head as u32 + v.flits as u32;
        if at >= buf {
            at -= buf;
        }
        v.flits += 1;
        if release {
            v.owner = NONE;
        }
        self.fifo[(to * buf + at) as usize] = slot;
        self.mark_filled(to, PARKING);
        let channel = self.place[t].channel;
        self.flits_in_network += 1;
        self.flit_hops += 1;
        self.stats.channel_flit(channel as usize);
        if header {
            let m = &mut self.messages[slot as usize];
            m.hops += 1;
            m.header_ready = now + 1;
        }
        if release {
            self.change_busy(channel, -1);
            if PARKING {
                self.wake_router(self.vc_router(from));
            }
        }
    }

    /// The front flit leaves `vc`: its credit goes back upstream (usable next cycle), and when
    /// it is the tail the VC's routing state is cleared for the next message.
    #[inline(always)]
    fn depart<const CHAOS: bool>(&mut self, vc: u32, tail: bool, now: u64) {
        let network = vc < self.net_vcs;
        let buf = self.buf;
        let v = &mut self.vc[vc as usize];
        v.flits -= 1;
        let holds_flits = v.flits != 0;
        v.sent += 1;
        if !CHAOS || vc < self.mq_base {
            // The ring moves on; an injection VC keeps its one message at the front.
            let head = v.head as u16 + 1;
            v.head = (head & ((head != buf && network) as u16).wrapping_neg()) as u8;
        }
        if tail {
            v.sent = 0;
            v.out = NONE;
        }
        self.mark_drained(vc, !holds_flits);
        self.flits_in_network -= (network || (CHAOS && vc >= self.mq_base)) as u64;
        if tail {
            if CHAOS && vc >= self.mq_base {
                self.leave_shared_queue(vc);
            } else if !network {
                self.vc[vc as usize].owner = NONE;
                self.start_injection(self.vc_router(vc), vc, now + 1);
            }
        }
    }

    fn deliver<R: Routing>(&mut self, r: &R, slot: u32, now: u64) {
        let m = &self.messages[slot as usize];
        let (src, dest, broadcast) = (m.src as Node, m.plan.dest, m.broadcast);
        if self.mq > 0 {
            self.outstanding[src as usize] -= 1;
        }
        if broadcast != NONE {
            self.stats.copy_delivered(now, src, self.len as u32);
            self.free_messages.push(slot);
            self.broadcast_received(r, broadcast, dest, now);
            return;
        }
        if cfg!(debug_assertions) && self.scenario.routing.is_minimal() && !self.misrouted(slot) {
            assert_eq!(m.hops, self.torus.distance(src, dest), "{} took a non-minimal path", self.scenario.routing);
        }
        let delivery = Delivery {
            src,
            dest,
            generated: m.generated,
            injected: m.injected,
            delivered: now,
            hops: m.hops,
            labelled: self.stats.in_window(m.generated),
            flits: m.len as u32,
        };
        self.stats.delivered(&delivery);
        if let Some(log) = &mut self.delivery_log {
            log.push(delivery);
        }
        self.labelled_outstanding -= delivery.labelled as u64;
        self.free_messages.push(slot);
    }

    /// A channel's count of allocated VCs changes: from this cycle's count on when a header takes
    /// a VC (or a scouting header gives one back) during allocation, from the next cycle's when
    /// a tail leaves as the moves are applied.
    #[inline(always)]
    fn change_busy(&mut self, channel: u32, delta: i8) {
        let c = channel as usize;
        let level = self.busy_vcs[c];
        self.channels_at_level[level as usize] -= 1;
        let level = (level as i8 + delta) as u8;
        self.busy_vcs[c] = level;
        self.channels_at_level[level as usize] += 1;
    }

    /// P_v: within the measurement window, each cycle's allocated VCs are counted once, after
    /// allocation and before the moves release VCs.
    fn count_busy_vcs(&mut self) {
        if self.stats.in_window(self.cycle) {
            self.stats.busy_vcs(&self.channels_at_level);
        }
    }

    /// Flit and credit conservation, one message per VC, no buffer over capacity.
    fn check_invariants(&self) {
        let mut buffered = 0u64;
        for vc in 0..self.net_vcs as usize {
            let v = &self.vc[vc];
            let f = v.flits;
            let held = f + self.reserved[vc] + self.pipeline.owed(vc as u32);
            assert!(held <= self.buf, "cycle {}: VC {vc} holds {f} flits and {} credits in a buffer of {}", self.cycle, self.reserved[vc], self.buf);
            // Routing state belongs to the front message: set once its header has been routed,
            // kept while the rest of it passes (the VC may be empty in between).
            if v.sent > 0 {
                assert_ne!(v.out, NONE, "cycle {}: VC {vc} forwards a message without a route", self.cycle);
            } else if f == 0 {
                assert_eq!(v.out, NONE, "cycle {}: empty VC {vc} keeps a route", self.cycle);
            }
            self.check_fifo(vc as u32);

            buffered += f as u64;
        }
        if self.mq > 0 {
            buffered += self.check_shared_queues();
        }
        assert_eq!(buffered, self.flits_in_network);
        let sentinel = &self.vc[self.all_vcs as usize];
        assert_eq!((sentinel.flits, sentinel.port as u32), (0, self.ports), "cycle {}: the sentinel VC changed", self.cycle);
        for vc in 0..self.all_vcs {
            let u = self.vc_router(vc) as usize;
            let v = &self.vc[vc as usize];
            let local = v.local as usize;
            let word = self.place[vc as usize].word as usize;
            let active = self.active_vcs[word] >> (local % 64) & 1 == 1;
            let parked = self.parked_vcs[word] >> (local % 64) & 1 == 1;
            assert_eq!(active || parked, v.flits > 0, "cycle {}: VC {vc}'s active bit is stale", self.cycle);
            assert!(!(active && parked), "cycle {}: VC {vc} is both active and parked", self.cycle);
            if active {
                assert_eq!(self.active_routers[u / 64] >> (u % 64) & 1, 1, "cycle {}: router {u} has work but no active bit", self.cycle);
            }
        }
        let injecting: u64 = (self.net_vcs as usize..self.mq_base as usize).map(|vc| self.vc[vc].flits as u64).sum();
        let queued: u64 = self.source_queue.iter().flatten().map(|&slot| self.messages[slot as usize].len as u64).sum();
        assert_eq!(self.source_queue.iter().map(|q| q.len() as u64).sum::<u64>(), self.messages_queued);
        let at_outputs = self.check_output_queues();
        assert_eq!(
            self.flits_generated,
            self.flits_delivered + buffered + injecting + queued + at_outputs,
            "cycle {}: flits not conserved",
            self.cycle
        );
    }

    /// A VC's buffer holds whole runs of flits, message after message, in order: the front
    /// message's remaining flits, then complete or still-arriving messages; only the last run
    /// may belong to the message the VC is allocated to.
    fn check_fifo(&self, vc: u32) {
        let buf = self.buf as u32;
        let v = &self.vc[vc as usize];
        let (head, count) = (v.head as u32, v.flits as u32);
        let mut run_left = 0;
        let mut run = NONE;
        for i in 0..count {
            let slot = self.fifo[(vc * buf + (head + i) % buf) as usize];
            if run_left == 0 || run == NONE {
                run_left = (self.messages[slot as usize].len - if run == NONE { v.sent } else { 0 }) as u32;
                run = slot;
            }
            assert_eq!(slot, run, "cycle {}: VC {vc} interleaves messages", self.cycle);
            run_left -= 1;
        }
        // (Under speedup2 the rest may still wait in the output queue upstream, holding credits,
        // and the VC may already be another message's.)
        if run_left > 0 && run != NONE && self.reserved[vc as usize] == 0 {
            assert_eq!(v.owner, run, "cycle {}: VC {vc}'s unfinished message does not own it", self.cycle);
        }
    }

    /// Runs warm-up, the measurement window and the drain, and reports (`torus run`).
    ///
    /// With faults the drain does not wait for labelled messages stuck at faults, which will
    /// never arrive, and a network that stops moving ends the run as a deadlock does.
    pub fn run(mut self) -> RunReport {
        self.run_to_end();
        self.report()
    }

    /// [`Simulation::run`], and every node's and pair's figures (`torus run --detail`).
    pub fn run_with_detail(mut self) -> (RunReport, stats::Detail) {
        self.run_to_end();
        (self.report(), self.stats.detail())
    }

    /// Runs like [`Simulation::run`] where only whether the run keeps up matters (a saturation
    /// search), and stops once the drain can no longer change that: as soon as a source queue
    /// reaches its cap (every criterion fails a throttled run), or at the window's end when
    /// `lost` finds the report then already failing. The window's figures are final at its end:
    /// the drain only adds the reason "cut short". A run that stops early reports the cycles it
    /// ran; a run that is not lost runs its drain and reports exactly as [`Simulation::run`].
    pub fn run_for_verdict(mut self, lost: impl Fn(&RunReport) -> bool) -> RunReport {
        while self.cycle < self.stats.window_end && !self.halted() && self.throttled_source_cycles == 0 {
            self.step();
        }
        if self.throttled_source_cycles == 0 && !self.halted() && !lost(&self.report()) {
            self.drain();
        }
        self.report()
    }

    fn run_to_end(&mut self) {
        // The window's end moves while an automatic warm-up or window decides it.
        while self.cycle < self.stats.window_end && !self.halted() {
            self.step();
        }
        self.drain();
    }

    /// After the window: runs until every labelled message is delivered, stopping generation
    /// once the drain has lasted as long as the window (at least [`DRAIN_UNDER_LOAD_MIN`]).
    fn drain(&mut self) {
        let window_end = self.stats.window_end;
        let window = window_end.saturating_sub(self.stats.window_start);
        let drain_limit = window_end.saturating_add(window.max(DRAIN_UNDER_LOAD_MIN));
        let mut progress = faults::DrainProgress::new(self.labelled_outstanding, self.cycle);
        while self.labelled_outstanding > self.labelled_stuck && !self.halted() {
            if self.cycle >= drain_limit && self.generating {
                self.generating = false;
                self.drain_cut = true;
            }
            self.step();
            if self.faults.is_some() {
                self.watch_drain_at_faults(&mut progress);
            }
        }
    }

    /// The run cannot go on: a deadlock, or with faults a stall.
    fn halted(&self) -> bool {
        self.deadlock || self.fault_stall
    }

    /// Nothing has moved for [`DEADLOCK_CYCLES`] cycles: a deadlock, or with faults, when no
    /// VCs wait for each other with no way out ([`Simulation::has_knot`]), a stall behind
    /// headers stuck at faults.
    #[cold]
    #[inline(never)]
    fn stopped(&mut self) {
        if self.halted() {
            return;
        }
        if self.faults.is_some() && !self.has_knot() {
            self.fault_stall = true;
        } else {
            self.deadlock = true;
        }
    }

    fn report(&self) -> RunReport {
        let s = &self.stats;
        let offered = s.offered_flits_per_node_cycle();
        let accepted = s.accepted_flits_per_node_cycle();
        let pv = s.busy_vc_distribution();
        let deadlock_cycle = if self.deadlock { self.deadlock_cycle() } else { DeadlockCycle::default() };
        let reasons = self.saturation_reasons(offered, accepted);
        let stuck = self.stuck_at();
        let interval = s.latency_interval();
        RunReport {
            scenario: self.scenario.canonical(),
            latency_mean: s.latency_mean(),
            latency_ci95: interval.half_width,
            latency_ci95_batches: interval.batches,
            latency_ci95_batch_cycles: interval.batch_cycles,
            latency_ci95_lag1: interval.lag1,
            latency_ci95_widened: interval.widened,
            warmup_cycles: s.window_start.min(self.cycle),
            warmup_stop: self.run_length.warmup_stop.as_reported(s.window_start, self.cycle, self.halted()),
            window_cycles: s.window_end.min(self.cycle).saturating_sub(s.window_start),
            window_stop: self.run_length.window_stop.as_reported(s.window_end, self.cycle, self.halted()),
            network_latency_mean: s.network_latency_mean(),
            source_queue_mean: s.source_queue_mean(),
            hops_mean: s.hops_mean(),
            offered_flits_per_node_cycle: offered,
            accepted_flits_per_node_cycle: accepted,
            accepted_min_pair: s.accepted_min_pair(|src| self.working_row(src)),
            accepted_min_source: s.accepted_min_source(),
            messages_measured: s.labelled_delivered,
            messages_labelled: s.labelled_generated,
            cycles: self.cycle,
            saturated: !self.halted() && !reasons.is_empty(),
            saturation_reason: (!self.halted() && !reasons.is_empty()).then(|| reasons.join("; ")),
            source_queue_cap: self.queue_cap as u64,
            throttled: self.throttled_source_cycles > 0,
            throttled_source_cycles: self.throttled_source_cycles,
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
            delivered_fraction: self.delivered_fraction(),
            messages_unreachable: self.unreachable_labelled,
            messages_stuck_at_faults: stuck.iter().map(|s| s.messages).sum(),
            stuck_at: stuck,
            fault_stall: self.fault_stall,
            misroutes_per_message: self.misroutes as f64 / self.next_id.max(1) as f64,
        }
    }

    /// Why the run did not carry its offered load, one phrase per condition that holds (none
    /// when it did): the conditions of [`RunReport::saturated`].
    fn saturation_reasons(&self, offered: f64, accepted: f64) -> Vec<String> {
        let mut reasons = Vec::new();
        if self.throttled_source_cycles > 0 {
            reasons.push(format!(
                "source queues full at their cap of {} messages held arrivals back in {} source-cycles",
                self.queue_cap, self.throttled_source_cycles
            ));
        }
        if self.drain_cut {
            reasons.push("the drain after the window stopped generation with measured messages undelivered".to_string());
        }
        if accepted < 0.95 * offered {
            reasons.push(format!("accepted {:.1} % of the offered load", 100.0 * accepted / offered));
        }
        let behind = self.stats.sources_behind(self.len as u32);
        if behind > 0 {
            reasons.push(format!("{behind} of {} sources fell more than 5 % behind their own offered load", self.torus.nodes()));
        }
        reasons
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
            warmup_messages: s.warmup_delivered,
            warmup_latency_mean: s.warmup_latency_mean(),
            latency_mean: s.latency_mean(),
            latency_ci95: s.latency_ci95(),
            network_latency_mean: s.network_latency_mean(),
            source_queue_mean: s.source_queue_mean(),
            hops_mean: s.hops_mean(),
            offered_flits_per_node_cycle: if measuring { s.offered_flits_per_node_cycle_until(now) } else { 0.0 },
            accepted_flits_per_node_cycle: if measuring { s.accepted_flits_per_node_cycle_until(now) } else { 0.0 },
            accepted_min_source: if measuring { s.accepted_min_source_until(now) } else { 0.0 },
            flits_in_network: self.flits_in_network,
            messages_queued: self.messages_queued,
            saturated: (self.throttled_source_cycles > 0 || self.drain_cut) && !self.halted(),
            deadlock: self.deadlock,
            misroutes: self.misroutes,
            stuck_at_faults: if self.faults.is_some() { self.stuck_headers().len() as u64 } else { 0 },
            messages_unreachable: self.unreachable,
            fault_stall: self.fault_stall,
        }
    }
}

/// Simulates a scenario from start to finish, exactly as `torus run` does.
pub fn run(s: &Scenario) -> Result<RunReport, ScenarioError> {
    Ok(Simulation::new(s)?.run())
}
