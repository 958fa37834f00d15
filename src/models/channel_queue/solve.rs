//! The fixed point of §5 at one rate, and the latency of §6.
//!
//! Unknowns: the hold time S of every resource (network VC class and injection VC). One round:
//! - from S, every resource's occupancy (Dally's chain), the probability P_V that all its VCs
//!   are busy, and how long a header it blocks waits (§4);
//! - every decision's delay: waiting for a VC (P_b · wait, the same-input exclusion), waiting
//!   behind the previous message of its own input, waiting for the channel's flit slots while
//!   worms on its other VCs stream, and at the destination the ejection port; for adaptive
//!   decisions the split among the options, which moves the flows (§3);
//! - new hold times, from the delays met in the routers ahead while the worm still holds the
//!   resource (§5).
//!
//! "The routers ahead" follow the routes one decision at a time: after an edge (decision,
//! option), the next decision is drawn from the flows that really follow that edge, and after
//! that from the flows that follow the next edge. That keeps the route's direction and class
//! across each hop, and forgets where it came from two hops back.
//!
//! Where this departs from §4–§6, and why (each measured against the simulator; §11 of
//! `docs/models/channel-queue.md`):
//! - A VC is held until the tail has left its buffer downstream: ⌈M/B⌉ routers after the
//!   channel, and one cycle more. But the simulator gives the VC to the next header from the
//!   cycle after the tail has crossed the channel (that header queues behind the tail in the
//!   same buffer), so the VC is *busy*, for its occupancy, its waits and λ S < 1, for one cycle
//!   less ([`busy_hold`]). With the whole hold there, one-flit messages saturated at half the
//!   simulated rate.
//! - A blocked header waits for the residual hold of the VCs it may take and for a full hold
//!   per older header waiting from *another* input, R/(1 − S·Σ_others λ_i (1 − λ_i/λ_c)), in
//!   place of the M/G/1 W/ρ = R/(1 − ρ): at most one header per input waits, and the inputs of
//!   a torus channel are few (§10's finite-source suggestion). The M/G/1 form saturated tornado
//!   and transpose 30 % early.
//! - The same-input exclusion leaves out the previous message of the header's own input, but
//!   a header that waited for its input follows that message closely, and waits for the part
//!   of its hold beyond its M flits when it is still ahead.
//! - An injection VC's hold counts of each wait in the routers ahead only what the buffers
//!   between cannot absorb: while the header waits, the worm packs into them ([`past_slack`]).
//!   The simulator's source wait under nearest-neighbour traffic falls steadily as B grows;
//!   counting the waits in full kept the model's flat until ⌈M/B⌉ = 1, 40–60 % too long.
//!   Network VCs keep counting them in full: with the slack there too, the saturation rates
//!   came out late (31 of the 63 of 8 × 8, M = 16 within ±10 %, against 46).
//! - Worms on different VCs of a channel share its flit slots, oldest first: a header whose
//!   channel is streaming another input's worm waits for the residual M/2 of that worm, queued
//!   behind the others' flits. With one VC per class this is rare (a second worm of the class
//!   is blocked at the VC instead); with many VCs it is most of the delay. It replaces V̄ in
//!   the latency, which it models hop by hop.
//! - The allocators serve the oldest header first, so a message that queued at its source
//!   waits downstream only for the residual part of each wait (R/V at a VC, ρM/2 at the
//!   ejection port, the residual M/2 of the flit slots' wait rather than its mean), and
//!   one that found its queue empty takes the rest (conservation: S₀ = (S − ρ S₁)/(1 − ρ),
//!   its second moment likewise). The injection VC's hold is found for both, with per-part
//!   second moments summed over the window, and the source wait is Welch's M/G/1 with an
//!   exceptional first service ([`welch_wait`]). Draper & Ghosh's M/G/1 with S₀ = S₁ left
//!   nearest-neighbour traffic 8.4 % long at 50–80 % of saturation, against 1.8 %. Network
//!   VCs do not need these parts, which are swept over the decisions of the source windows
//!   only ([`Round::injection_ahead`]).

use super::queueing::{
    behind_own_input, channel_slot_mean, channel_slot_wait, convolve, ejection_wait, other_inputs_share, priority_wait_ratio, queued_wait, residual_hold, welch_wait,
};
use super::at;
use super::routes::{Flows, ResourceKind, Routes, NONE};
use crate::models::shared::{occupancy_ends, vc_occupancy};
use crate::routing::MAX_CANDIDATES;
use crate::scenario::Scenario;
use crate::topology::Torus;
use rustc_hash::FxHashMap as HashMap;
use std::cell::{OnceCell, RefCell};

/// Relative change of every hold time below which the fixed point counts as converged.
pub const TOLERANCE: f64 = 1e-6;
/// Rounds after which a rate counts as saturated.
pub const MAX_ROUNDS: usize = 500;
/// Rounds without a change smaller than every earlier one after which a solve counts as
/// saturated: the split circling a limit cycle that even damped rounds ([`DAMPED_AFTER`]) do
/// not leave.
const STALLED_ROUNDS: usize = 150;
/// The round from which a solve is watched for a stall. Until then a round only asks whether
/// every hold is within the tolerance, which stops at the first hold outside it; the watch needs
/// the largest change, which reads every hold. Most solves converge before this round.
const STALL_WATCHED_FROM: usize = 20;
/// Rounds without a new least change, once watched, after which the rounds are damped: each
/// moves the hold times only [`DAMPING`] of the way to the round's result. An adaptive split
/// can circle its fixed point without reaching it; `adaptive` under transpose on 8 × 8 circled
/// within 2·10⁻⁶ of it for 500 rounds at 0.0234 messages/node/cycle, and the model called that
/// saturation, 25 % short of the simulator's. Damped, the rounds reach the same fixed point.
const DAMPED_AFTER: usize = 10;
/// The share of a damped round's change that is taken. A circling split turns the change by
/// an angle θ each round; damped by w, the turn shrinks by |1 − w + w·e^{iθ}| < 1.
const DAMPING: f64 = 0.25;
/// A hold time past which the rounds are diverging, not converging: the fixed points found
/// near saturation hold a VC for at most a few hundred cycles (400 over the scenarios of
/// `scripts/same-model.py`), and rounds that passed 10⁶ cycles went on to 10¹⁹ and beyond, or
/// to infinity, within a few rounds and never came back. Stopping there spares the
/// [`MAX_ROUNDS`] such a solve would otherwise run: most of the rounds of a saturation search
/// under hot-spot traffic.
const DIVERGED_HOLD: f64 = 1e12;
/// The wait given to a resource at or past saturation while an adaptive split is still moving
/// away from it: large enough that the split leaves it, finite so that the rounds go on.
const OVERLOADED_WAIT: f64 = 1e6;

/// E[w²]/E[w] over the waits that occur, per unit of their mean, for a header's wait for a VC
/// (the residual hold of a near-deterministic hold: 4/3 m, where an exponential wait gives 2 m).
const VC_WAIT_SPREAD: f64 = 4.0 / 3.0;

/// What the rate does not change: the routes and the scenario's sizes.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub routes: Routes,
    pub len: f64,
    /// Cycles a header spends per hop beyond the one it crosses in: `ldelay` + `rdelay`
    /// (added to the zero-load term only).
    pub hop_delay: f64,
    /// ⌈M/B⌉: the routers after a channel whose delays its VC waits for.
    pub window: usize,
    /// B − 1: the flits a VC buffer behind a blocked header can take beyond the one it holds
    /// while the worm streams.
    buffer_slack: f64,
    pub nodes: usize,
    /// Per channel: its resources (one per VC class used on it).
    pub channel_resources: Vec<Vec<u32>>,
    /// Per resource: its channel, or NONE.
    resource_channel: Vec<u32>,
    /// Per node: its injection resource (NONE when the node sends nothing).
    pub injection: Vec<u32>,
    /// Per injection resource: the decisions made at its source.
    source_decisions: Vec<Vec<u32>>,
    /// Per position j < ⌈M/B⌉: the decisions a header makes j routers after its source (0: at
    /// it), in order, `source_reach[source_reach_start[j]..source_reach_start[j + 1]]`. Only
    /// these carry the parts of an injection VC's hold that network VCs do not need.
    source_reach_start: Vec<u32>,
    source_reach: Vec<u32>,
    /// Per resource: the edges that take it.
    resource_edges: Vec<Vec<u32>>,
    /// Per transition: its (input port, channel) pair, and its (input port, resource) pair. For
    /// an oblivious route a network input's port is its channel, every class of it: the worms
    /// of one input channel already took turns on it, one flit a cycle, so they do not contend
    /// again for the channel they leave by (§11, "The channel's flit slots"). An injection VC,
    /// and every input of an adaptive route, whose split and age order were fitted to it, is a
    /// port of its own.
    transition_pair: Vec<u32>,
    pairs: usize,
    transition_port_resource: Vec<u32>,
    port_resources: usize,
    /// Per option: what a round reads of it, gathered in one place.
    option_info: Vec<OptionInfo>,
    /// Per option e: the earlier options of its decision on the same channel,
    /// `same_channel_earlier[same_channel_start[e]..same_channel_start[e + 1]]`.
    same_channel_start: Vec<u32>,
    same_channel_earlier: Vec<u32>,
    /// Per decision d: its priority groups, lowest first,
    /// `split_groups[split_group_start[d]..split_group_start[d + 1]]` (none for one option).
    split_group_start: Vec<u32>,
    split_groups: Vec<SplitGroup>,
    /// Per group option: its index in the decision and its channel's place in the group.
    split_group_options: Vec<(u8, u8)>,
    /// Per group: its channels (`NONE` for an ejection port) in order of first appearance,
    /// and whether an earlier group of the decision has the channel too: a header that reaches
    /// this group found that group's options busy, so the channel is not idle.
    split_group_channels: Vec<u32>,
    split_group_channel_passed: Vec<bool>,
    /// Per ejection port: the transitions into it in levels of age, eldest first (§11, "The
    /// ejection port by age"): an input's zero-load flow orders it, equal flows share a level.
    ejection_ages: Vec<Vec<Vec<u32>>>,
    /// For an oblivious route, what its rounds read of its flows, which neither the rate nor
    /// the round changes: found at the first solve, and kept for every later one.
    fixed_terms: OnceCell<FixedTerms>,
    /// The last solve's rounds, whose scratch the next solve takes over: allocating and
    /// zeroing it afresh was a tenth of the time of an oblivious route's curve.
    scratch: RefCell<Option<Round>>,
}

/// An oblivious route's terms at one message per node per cycle (the rate scales each).
#[derive(Clone, Debug)]
struct FixedTerms {
    /// Per decision: its terms.
    decisions: Vec<FixedDecision>,
    /// The busiest channel's flow.
    busiest_channel: f64,
    /// Per follower entry: the share of its edge's flow that makes its decision next.
    follower_weight: Vec<f64>,
}

/// The options of one priority of a decision, in order
/// (`split_group_options[options.0..options.1]`), and their channels
/// (`split_group_channels[channels.0..channels.1]`).
#[derive(Clone, Copy, Debug)]
struct SplitGroup {
    options: (u32, u32),
    channels: (u32, u32),
}

/// An option's resource, transition, (input port, channel) and (input port, resource) pairs
/// and channel (`NONE` for an ejection port), and the VCs of its class.
#[derive(Clone, Copy, Debug)]
struct OptionInfo {
    resource: u32,
    transition: u32,
    pair: u32,
    port_resource: u32,
    channel: u32,
    vcs: f64,
    ejects: bool,
}

/// The model at one rate.
#[derive(Clone, Debug)]
pub struct Solution {
    pub rate: f64,
    /// Mean latency, cycles (§6).
    pub latency: f64,
    /// S per resource (0 for ejection ports).
    pub hold: Vec<f64>,
    /// The hold times one round on from `hold`, nearer the fixed point by the round's
    /// contraction: where the next rate of a branch starts.
    pub hold_after: Vec<f64>,
    /// Per option, for adaptive routes only: the split the last round's delays give (the
    /// probability that a header making its decision takes the option), before the half-way
    /// step the rounds take to it: nearer the fixed point than the split the round used, which
    /// lags by the steps and is not kept.
    pub split_target: Option<Vec<f64>>,
    /// Messages/cycle per resource and per decision (at this rate). The round's other flows
    /// (per edge, follower and transition) are not kept: nothing reads them from a solution,
    /// and copying them was a tenth of an oblivious curve's time.
    pub resource_flow: Vec<f64>,
    pub decision_flow: Vec<f64>,
    /// Per decision: probability of waiting for a VC (P_b), the mean of that wait, and the
    /// whole delay (VC, own input, channel slots, ejection).
    pub block: Vec<f64>,
    pub vc_wait: Vec<f64>,
    pub delay: Vec<f64>,
    /// Per decision: the wait for the channel's flit slots, and for the ejection port.
    pub channel_wait: Vec<f64>,
    pub ejection_wait: Vec<f64>,
    /// Per node: the wait in its source queue.
    pub source_wait: Vec<f64>,
    pub rounds: usize,
    pub mean_source_wait: f64,
    pub mean_delay: f64,
    pub mean_hops: f64,
}

impl Prepared {
    /// The model of a scenario on its routes folded by their mirror symmetries
    /// ([`Routes::folded`]): the same fixed point, at a fraction of the work per round.
    pub fn new(s: &Scenario) -> Result<Prepared, String> {
        Ok(Prepared::on(s, Routes::new(s)?.folded(&Torus::new(s.k, s.n))))
    }

    /// The model of a scenario on the given routes.
    pub fn on(s: &Scenario, routes: Routes) -> Prepared {
        let nodes = routes.nodes as usize;
        let mut channel_resources = vec![Vec::new(); routes.channels as usize];
        let mut resource_channel = vec![NONE; routes.resources.len()];
        let mut injection = vec![NONE; nodes];
        for (r, res) in routes.resources.iter().enumerate() {
            match res.kind {
                ResourceKind::Network { channel, .. } => {
                    channel_resources[channel as usize].push(r as u32);
                    resource_channel[r] = channel;
                }
                ResourceKind::Injection(node) => injection[node as usize] = r as u32,
                ResourceKind::Ejection(_) => {}
            }
        }
        let mut source_decisions = vec![Vec::new(); routes.resources.len()];
        for (d, decision) in routes.decisions.iter().enumerate() {
            if matches!(routes.resources[decision.input as usize].kind, ResourceKind::Injection(_)) {
                source_decisions[decision.input as usize].push(d as u32);
            }
        }
        let window = s.len.div_ceil(s.buf) as usize;
        let (mut source_reach_start, mut source_reach) = (vec![0u32], Vec::new());
        let mut reached = vec![false; routes.decisions.len()];
        for decisions in &source_decisions {
            decisions.iter().for_each(|&d| reached[d as usize] = true);
        }
        for position in 0..window {
            if position > 0 {
                let mut next = vec![false; routes.decisions.len()];
                for &d in &source_reach[source_reach_start[position - 1] as usize..] {
                    let decision = routes.decisions[d as usize];
                    for e in decision.first as usize..(decision.first + decision.len) as usize {
                        routes.followers_of(e).for_each(|f| next[routes.followers[f] as usize] = true);
                    }
                }
                reached = next;
            }
            source_reach.extend((0..routes.decisions.len() as u32).filter(|&d| reached[d as usize]));
            source_reach_start.push(source_reach.len() as u32);
        }
        let mut resource_edges = vec![Vec::new(); routes.resources.len()];
        for (e, option) in routes.options.iter().enumerate() {
            resource_edges[option.resource as usize].push(e as u32);
        }
        let port = |input: u32| match resource_channel[input as usize] {
            channel if channel != NONE && !routes.adaptive => channel,
            _ => routes.channels + input,
        };
        let mut pair_ids: HashMap<(u32, u32), u32> = HashMap::default();
        let mut port_resource_ids: HashMap<(u32, u32), u32> = HashMap::default();
        let (mut transition_pair, mut transition_port_resource) = (Vec::new(), Vec::new());
        for &(input, b) in &routes.transitions {
            let next = pair_ids.len() as u32;
            transition_pair.push(*pair_ids.entry((port(input), resource_channel[b as usize])).or_insert(next));
            let next = port_resource_ids.len() as u32;
            transition_port_resource.push(*port_resource_ids.entry((port(input), b)).or_insert(next));
        }
        let option_info: Vec<OptionInfo> = routes
            .options
            .iter()
            .zip(&routes.option_transition)
            .map(|(option, &transition)| {
                let b = option.resource as usize;
                OptionInfo {
                    resource: option.resource,
                    transition,
                    pair: transition_pair[transition as usize],
                    port_resource: transition_port_resource[transition as usize],
                    channel: resource_channel[b],
                    vcs: routes.resources[b].vcs as f64,
                    ejects: matches!(routes.resources[b].kind, ResourceKind::Ejection(_)),
                }
            })
            .collect();
        let mut same_channel_start = vec![0u32];
        let mut same_channel_earlier = Vec::new();
        for (e, info) in option_info.iter().enumerate() {
            let first = routes.decisions[routes.option_decision[e] as usize].first as usize;
            if info.channel != NONE {
                same_channel_earlier.extend((first..e).filter(|&x| option_info[x].channel == info.channel).map(|x| x as u32));
            }
            same_channel_start.push(same_channel_earlier.len() as u32);
        }
        let mut split_group_start = vec![0u32];
        let (mut split_groups, mut split_group_options, mut split_group_channels) = (Vec::new(), Vec::new(), Vec::new());
        let mut split_group_channel_passed = Vec::new();
        for decision in &routes.decisions {
            let options = &routes.options[decision.first as usize..(decision.first + decision.len) as usize];
            let decision_channels = split_group_channels.len();
            if options.len() > 1 {
                let mut priorities: Vec<u8> = options.iter().map(|o| o.priority).collect();
                priorities.sort_unstable();
                priorities.dedup();
                for priority in priorities {
                    let (options_start, channels_start) = (split_group_options.len() as u32, split_group_channels.len() as u32);
                    for (i, option) in options.iter().enumerate().filter(|(_, o)| o.priority == priority) {
                        let c = resource_channel[option.resource as usize];
                        let channels = &mut split_group_channels[channels_start as usize..];
                        let k = match channels.iter().position(|&x| x == c) {
                            Some(k) => k,
                            None => {
                                split_group_channel_passed.push(split_group_channels[decision_channels..channels_start as usize].contains(&c));
                                split_group_channels.push(c);
                                split_group_channels.len() - 1 - channels_start as usize
                            }
                        };
                        split_group_options.push((i as u8, k as u8));
                    }
                    split_groups.push(SplitGroup {
                        options: (options_start, split_group_options.len() as u32),
                        channels: (channels_start, split_group_channels.len() as u32),
                    });
                }
            }
            split_group_start.push(split_groups.len() as u32);
        }
        let ejection_ages = ejection_ages(&routes);
        Prepared {
            len: s.len as f64,
            hop_delay: (s.link_delay + s.router_delay) as f64,
            window,
            buffer_slack: s.buf as f64 - 1.0,
            nodes,
            channel_resources,
            resource_channel,
            injection,
            source_decisions,
            source_reach_start,
            source_reach,
            resource_edges,
            transition_pair,
            pairs: pair_ids.len(),
            transition_port_resource,
            port_resources: port_resource_ids.len(),
            option_info,
            same_channel_start,
            same_channel_earlier,
            split_group_start,
            split_groups,
            split_group_options,
            split_group_channels,
            split_group_channel_passed,
            ejection_ages,
            fixed_terms: OnceCell::new(),
            scratch: RefCell::new(None),
            routes,
        }
    }

    /// An oblivious route's [`FixedTerms`], found once. One option per decision, taken with
    /// probability 1: no option passed over, so its wait for the flit slots depends on the
    /// flows and the rate alone.
    fn fixed_terms(&self) -> &FixedTerms {
        self.fixed_terms.get_or_init(|| {
            let r = &self.routes;
            let mut round = Round::new(self);
            round.flow_sums(self, 1.0);
            let decisions = r
                .decisions
                .iter()
                .map(|decision| {
                    let e = decision.first as usize;
                    let info = self.option_info[e];
                    let b = info.resource as usize;
                    let from = round.flows.transition[info.transition as usize];
                    let share = other_inputs_share(from, round.flows.resource[b]);
                    let input = decision.input as usize;
                    FixedDecision {
                        resource: info.resource,
                        transition: info.transition,
                        input: decision.input,
                        ejects: info.ejects,
                        share,
                        others: (round.contention[b] - from * share).max(0.0),
                        streaming: if info.ejects { 0.0 } else { round.channel_others(self, e) * self.len },
                        same_way: if round.flows.resource[input] > 0.0 { from / round.flows.resource[input] } else { f64::NAN },
                    }
                })
                .collect();
            let busiest_channel = round.channel_flow.iter().copied().fold(0.0, f64::max);
            let mut follower_weight = round.flows.follower.clone();
            for e in 0..r.options.len() {
                let flow = round.flows.edge[e];
                for f in r.followers_of(e) {
                    follower_weight[f] = if flow > 0.0 { follower_weight[f] / flow } else { 0.0 };
                }
            }
            FixedTerms { decisions, busiest_channel, follower_weight }
        })
    }

    /// The hold times of an idle network: M + 1 for a network VC (its tail leaves its buffer
    /// one cycle after crossing), M for an injection VC.
    pub fn idle_hold(&self) -> Vec<f64> {
        self.routes
            .resources
            .iter()
            .map(|r| match r.kind {
                ResourceKind::Network { .. } => self.len + 1.0,
                ResourceKind::Injection(_) => self.len,
                ResourceKind::Ejection(_) => 0.0,
            })
            .collect()
    }

    /// Solves the fixed point at `rate` from `start` (a nearby rate's solution, which saves
    /// rounds), or from an idle network with the zero-load split. `None` when saturated: some
    /// resource at ρ ≥ 1, or no convergence in [`MAX_ROUNDS`] rounds.
    pub fn solve(&self, rate: f64, start: Option<&Start>) -> Option<Solution> {
        match start {
            Some(start) => self.solve_from(rate, start),
            None => self.solve_from(rate, &self.idle_start()),
        }
    }

    fn idle_start(&self) -> Start {
        Start { hold: self.idle_hold(), split: None, block: None }
    }

    /// A start for `rate` on the polynomial through the hold times, split and blocking of
    /// `points` (solutions at distinct rates; two give the line through them): where a curve's
    /// next point lies to the order of the polynomial in the step. The split and the blocking
    /// are kept probabilities. The hold times go through their reciprocals: near saturation a
    /// hold grows like 1/(λ* − λ), which no polynomial in λ follows across a step of the curve,
    /// while its reciprocal falls almost linearly to 0. The last point of a 100-point DOR
    /// uniform curve then starts 1.2·10⁻⁴ from its fixed point rather than 5·10⁻⁴, and the
    /// curve takes 178 rounds rather than 223.
    pub fn extrapolate(&self, points: &[&Solution], rate: f64) -> Start {
        // Lagrange's weights: Σ_i w_i f(x_i) is the polynomial through the points at `rate`.
        let weights: Vec<f64> = (0..points.len())
            .map(|i| {
                (0..points.len()).filter(|&j| j != i).map(|j| (rate - points[j].rate) / (points[i].rate - points[j].rate)).product()
            })
            .collect();
        let through = |value: &dyn Fn(&Solution) -> &[f64]| -> Vec<f64> {
            let mut out = vec![0.0; value(points[0]).len()];
            for (point, w) in points.iter().zip(&weights) {
                for (o, x) in out.iter_mut().zip(value(point)) {
                    *o += w * x;
                }
            }
            out
        };
        let mut hold = through(&|p| &p.hold_after);
        for (i, h) in hold.iter_mut().enumerate() {
            // An ejection port's hold is 0, and has no reciprocal.
            if *h <= 0.0 {
                continue;
            }
            // Σ_k w_k / x_k = sum / product, product = Π_k x_k and sum = Σ_k w_k Π_(j≠k) x_j:
            // one division rather than one per point.
            let (mut product, mut sum) = (1.0, 0.0);
            for (point, w) in points.iter().zip(&weights) {
                let x = point.hold_after[i];
                sum = sum * x + w * product;
                product *= x;
            }
            if sum > 0.0 {
                *h = product / sum;
            }
        }
        let split = points.iter().all(|p| p.split_target.is_some()).then(|| {
            let mut split = through(&|p| p.split_target.as_deref().unwrap_or_default());
            for d in &self.routes.decisions {
                let options = &mut split[d.first as usize..(d.first + d.len) as usize];
                options.iter_mut().for_each(|x| *x = x.max(0.0));
                let total: f64 = options.iter().sum();
                options.iter_mut().for_each(|x| *x /= total);
            }
            split
        });
        let block = Some(through(&|p| &p.block).into_iter().map(|p| p.clamp(0.0, 1.0)).collect());
        Start { hold, split, block }
    }

    fn solve_from(&self, rate: f64, start: &Start) -> Option<Solution> {
        let mut round = self.scratch.take().unwrap_or_else(|| Round::new(self));
        round.restart(self, start);
        let solution = round.rounds(self, rate, start.hold.clone());
        self.scratch.replace(Some(round));
        solution
    }
}

/// Where the rounds of a solve start: hold times; for adaptive routes the split (else the
/// zero-load split, every header taking its first option); the probability that a header
/// waits at each decision, which tells how closely it follows the previous message of its
/// input (else none waits).
#[derive(Clone, Debug)]
pub struct Start {
    pub hold: Vec<f64>,
    pub split: Option<Vec<f64>>,
    pub block: Option<Vec<f64>>,
}

impl Solution {
    /// The bytes its vectors hold.
    pub fn bytes(&self) -> usize {
        let options = |x: &Option<Vec<f64>>| x.as_ref().map_or(0, Vec::len);
        let values = [&self.hold, &self.hold_after, &self.decision_flow, &self.resource_flow, &self.block]
            .iter()
            .chain([&self.vc_wait, &self.delay, &self.channel_wait, &self.ejection_wait, &self.source_wait].iter())
            .map(|v| v.len())
            .sum::<usize>()
            + options(&self.split_target);
        values * std::mem::size_of::<f64>()
    }

    /// A start at this solution.
    pub fn start(&self) -> Start {
        Start { hold: self.hold_after.clone(), split: self.split_target.clone(), block: Some(self.block.clone()) }
    }

    /// Per channel: its busy-VC distribution (P_v, v = 0..), the classes convolved.
    pub fn channel_occupancy(&self, p: &Prepared) -> Vec<Vec<f64>> {
        p.channel_resources
            .iter()
            .map(|resources| {
                resources.iter().fold(vec![1.0], |acc, &i| {
                    let busy = busy_hold(p.routes.resources[i as usize].kind, self.hold[i as usize]);
                    convolve(&acc, &vc_occupancy(self.resource_flow[i as usize], busy, p.routes.resources[i as usize].vcs as usize))
                })
            })
            .collect()
    }
}

/// Per ejection port, its inputs in levels of age, eldest first. The simulator's port moves the
/// oldest flit first, and under minimal routing the input that gathers the most flow gathers it
/// from the farthest sources: DOR's hot node on 8 × 8 takes 32 sources' messages over +y, 24
/// over −y, 4 over +x and 3 over −x, and the simulator's worms wait about 3, 7, 14 and 18 cycles
/// there in that order. The zero-load flows are fixed, so the order does not flip between
/// rounds as the split moves (ordered by the current flows, NBC's hot spot did not settle).
fn ejection_ages(routes: &Routes) -> Vec<Vec<Vec<u32>>> {
    let mut inputs = vec![Vec::new(); routes.resources.len()];
    for (t, &(_, b)) in routes.transitions.iter().enumerate() {
        if matches!(routes.resources[b as usize].kind, ResourceKind::Ejection(_)) {
            inputs[b as usize].push(t as u32);
        }
    }
    let zero_load = &routes.fixed.transition;
    inputs
        .into_iter()
        .filter(|port| !port.is_empty())
        .map(|mut port| {
            port.sort_by(|&a, &b| zero_load[b as usize].total_cmp(&zero_load[a as usize]));
            let mut levels: Vec<Vec<u32>> = Vec::new();
            for t in port {
                let flow = zero_load[t as usize];
                match levels.last_mut() {
                    Some(level) if (zero_load[level[0] as usize] - flow).abs() <= 1e-9 * flow.abs().max(f64::MIN_POSITIVE) => level.push(t),
                    _ => levels.push(vec![t]),
                }
            }
            levels
        })
        .collect()
}

/// The source load past which [`Round::age_order_in_channels`] stops following a source queue's
/// wait towards infinity: the spread of ages it gives is already far wider than M.
const MAX_SOURCE_LOAD: f64 = 0.99;

/// w, the spread of the ages of two headers that meet at a channel, the age being the time
/// since generation: its part that varies from message to message, the mean source wait
/// `source_wait`, half the mean `header_delay` over a route (a meeting is half way along it, on
/// average) and half the mean route's `route_time` at zero load. Two exponential ages of mean w
/// differ by a Laplace law of mean absolute value w.
fn age_spread(source_wait: f64, header_delay: f64, route_time: f64) -> f64 {
    source_wait + 0.5 * (header_delay + route_time)
}

/// The chance that a header is older than the worm it finds streaming on its channel. It
/// arrived Δ after that worm's header, Δ uniform over the M cycles the worm streams, and is the
/// older if its age exceeds the other's by more than Δ: with the difference of ages spread as a
/// Laplace law of mean absolute value `spread` (w), P = E[e^(−Δ/w)]/2 = (w/2M)(1 − e^(−M/w)),
/// with `libm`'s `exp`: std's differs from wasm's by an ulp now and then, and the page's model
/// must be the CLI's bit for bit.
fn older_than_streaming(spread: f64, len: f64) -> f64 {
    if spread <= 0.0 {
        return 0.0;
    }
    0.5 * (spread / len) * (1.0 - libm::exp(-len / spread))
}

/// The part of a decision's delay that holds the resource a window starts at, the decision
/// being the window's `position`-th router after its first: while the header waits, the worm
/// behind it packs into the `position` buffers between, each taking B − 1 flits more than the
/// one it held while streaming, so the resource is held for max(0, w − position · (B − 1)) of
/// a wait w. For waits of mean m̄ spread as a Lomax law of shape 2 (heavier-tailed than
/// exponential, as waits behind waits are), E[max(0, w − x)] = delay · m̄/(m̄ + x):
/// delay / (1 + position · `buffers`), with `buffers` = (B − 1)/m̄.
fn past_slack(delay: f64, buffers: f64, position: i32) -> f64 {
    delay / (1.0 + position as f64 * buffers)
}

/// (B − 1)/m̄ for a decision whose delay is made of parts delay_i, each the chance of a wait
/// times its mean m_i: m̄ = Σ delay_i · m_i / Σ delay_i (`moment` / `delay`), the mean of the
/// waits that occur.
fn slack_in_waits(delay: f64, moment: f64, slack: f64) -> f64 {
    if delay > 0.0 && moment > 0.0 { slack * delay / moment } else { 0.0 }
}

/// E[w²]/E[w] of a wait for the residual of an M-flit worm, uniform on (0, M): 2M/3 (a
/// multiplication where `2.0 * len / 3.0` inside a loop is a division per decision).
fn residual_spread(len: f64) -> f64 {
    len * (2.0 / 3.0)
}

/// Σ_f weight[f] · values[followers[f]] over the follower entries `entries`, four lanes at once.
#[inline(always)]
fn followers_mix(entries: std::ops::Range<usize>, weight: &[f64], followers: &[u32], values: &[[f64; 4]]) -> [f64; 4] {
    let mut mix = [0.0; 4];
    for f in entries {
        let (w, g) = (at(weight, f), at(values, at(followers, f) as usize));
        for k in 0..4 {
            mix[k] += w * g[k];
        }
    }
    mix
}

/// How long a resource is unavailable to the next header: a network VC from its allocation
/// until the tail has crossed the channel (its hold S less the cycle the tail then spends in
/// the buffer downstream, since the simulator reallocates the VC from the next cycle); an
/// injection VC for its whole hold.
fn busy_hold(kind: ResourceKind, hold: f64) -> f64 {
    match kind {
        ResourceKind::Network { .. } => hold - 1.0,
        _ => hold,
    }
}

/// What a decision of an oblivious route keeps from round to round and rate to rate: its one
/// option's resource, the share of that resource's traffic from other inputs, their
/// contention and the flits/cycle other inputs' worms stream on its channel (both at one
/// message per node per cycle), and the share of its input's traffic that goes the same way
/// (NaN when the input carries none).
#[derive(Clone, Copy, Debug)]
struct FixedDecision {
    resource: u32,
    transition: u32,
    input: u32,
    ejects: bool,
    share: f64,
    others: f64,
    streaming: f64,
    same_way: f64,
}

/// Scratch state of the rounds at one rate.
#[derive(Clone, Debug)]
struct Round {
    /// Whether some resource is at or past saturation this round. Oblivious routes then have no
    /// fixed point; adaptive ones go on, since their split may still leave it (it starts from
    /// the zero-load split), and are saturated only if it is still so once converged.
    overloaded: bool,
    split: Vec<f64>,
    /// Per option: the split this round's delays give, before the half-way step to it.
    split_target: Vec<f64>,
    /// Whether the split has been computed once: from then on it moves half way to each new
    /// value, or adaptive routes oscillate between rounds near saturation.
    split_started: bool,
    /// Per option of an adaptive decision: the part of its split taken because its channel
    /// was idle, which meets no other worm in the channel's flit slots.
    split_idle: Vec<f64>,
    flows: Flows,
    /// Per state of the route graph: messages/cycle reaching it (scratch of the flows).
    state_flow: Vec<f64>,
    /// Whether the terms of [`Round::flow_terms`] are computed (for oblivious routes, once).
    flow_terms_ready: bool,
    /// Per resource: P_V, the residual hold per VC (the ejection wait for an ejection port), and
    /// Σ_i λ_i (1 − λ_i/λ_c) over its inputs.
    all_busy: Vec<f64>,
    residual: Vec<f64>,
    contention: Vec<f64>,
    /// Per resource: P_0, the probability that none of its VCs is busy.
    no_vc_busy: Vec<f64>,
    /// Per resource of an adaptive route: 1/residual, the rate at which a busy one frees.
    freeing_rate: Vec<f64>,
    /// Per network resource: S/V and R/V, the terms of [`vc_wait`] that depend on its hold
    /// alone ([`queued_wait`]).
    hold_per_vc: Vec<f64>,
    residual_per_vc: Vec<f64>,
    /// Per resource: probability that a header entering it follows its previous holder closely.
    followed: Vec<f64>,
    /// Per (input port, channel) and per (input port, resource) pair: messages/cycle at one
    /// message per node per cycle.
    pair_flow: Vec<f64>,
    port_resource_flow: Vec<f64>,
    /// Per channel: messages/cycle at one message per node per cycle, and the probability that
    /// none of its VCs is busy (nothing queued downstream, for the selection).
    channel_flow: Vec<f64>,
    channel_idle: Vec<f64>,
    block: Vec<f64>,
    vc_wait: Vec<f64>,
    delay: Vec<f64>,
    /// Per decision: (B − 1)/m̄, m̄ the mean of its waits when there is one ([`past_slack`]).
    slack_in_waits: Vec<f64>,
    channel_wait: Vec<f64>,
    /// Per decision of an oblivious route: the mean wait for its channel's flit slots when
    /// there is one.
    channel_mean: Vec<f64>,
    /// Per transition into an ejection port: its wait there as a multiple of the port's
    /// first-come-first-served wait, the same-input exclusion and the age order both in it.
    ejection_by_age: Vec<f64>,
    ejection_wait: Vec<f64>,
    /// Per decision of an oblivious route: of the wait for its channel's flit slots, the part
    /// an old header meets (see `delay_parts`) and the second moment.
    channel_old: Vec<f64>,
    channel_second: Vec<f64>,
    /// Per decision: the delay of a header older than the others it meets there (one that
    /// queued at its source), which the age-ordered allocators serve first, so that it waits
    /// only for the residual part of each wait; the second moment of the delay, over every
    /// header; and over old ones. Per ejection port, the residual part of its wait, ρM/2.
    delay_parts: Vec<[f64; 3]>,
    residual_only: Vec<f64>,
    /// Per decision, G_j: the delay expected over its router and the j − 1 after it.
    ahead: Vec<f64>,
    /// Per edge, A_j: the delay expected over the j routers after it.
    after: Vec<f64>,
    next_after: Vec<f64>,
    /// For the injection VCs only, per decision j routers after a source
    /// ([`Prepared::source_reach`]): of G_j, the part that holds the VC (with a window of more
    /// than one router, less what the buffers between absorb), the same for an old header, and
    /// the second moments of both; per edge of such a decision, A_j of the same four (of an
    /// oblivious route, `injection_after` is G_j's second buffer instead).
    injection_ahead: Vec<[f64; 4]>,
    injection_after: Vec<[f64; 4]>,
    injection_next_after: Vec<[f64; 4]>,
    source_wait: Vec<f64>,
    /// Per decision of an adaptive route: the chance that its header finds another input's
    /// worm streaming in its channel's flit slots, which by symmetry is also how many such
    /// headers arrive while its own worm streams there ([`Round::age_order_in_channels`]).
    meets_streaming: Vec<f64>,
}

impl Round {
    fn new(p: &Prepared) -> Round {
        let r = &p.routes;
        let split: Vec<f64> =
            r.decisions.iter().flat_map(|d| (0..d.len).map(|i| if i == 0 { 1.0 } else { 0.0 })).collect();
        let (resources, decisions, edges) = (r.resources.len(), r.decisions.len(), r.options.len());
        Round {
            overloaded: false,
            flows: r.fixed.clone(),
            split_target: split.clone(),
            split,
            split_started: false,
            split_idle: vec![0.0; edges],
            state_flow: Vec::new(),
            flow_terms_ready: false,
            all_busy: vec![0.0; resources],
            residual: vec![0.0; resources],
            contention: vec![0.0; resources],
            no_vc_busy: vec![1.0; resources],
            freeing_rate: vec![0.0; if r.adaptive { resources } else { 0 }],
            hold_per_vc: vec![0.0; resources],
            residual_per_vc: vec![0.0; resources],
            followed: vec![0.0; resources],
            pair_flow: vec![0.0; p.pairs],
            // An adaptive route reads its transitions' own flows instead (`port_to_resource`).
            port_resource_flow: vec![0.0; if r.adaptive { 0 } else { p.port_resources }],
            channel_flow: vec![0.0; r.channels as usize],
            channel_idle: vec![1.0; r.channels as usize],
            block: vec![0.0; decisions],
            vc_wait: vec![0.0; decisions],
            delay: vec![0.0; decisions],
            slack_in_waits: vec![0.0; decisions],
            channel_wait: vec![0.0; decisions],
            channel_mean: vec![0.0; decisions],
            ejection_wait: vec![0.0; decisions],
            ejection_by_age: vec![0.0; r.transitions.len()],
            channel_old: vec![0.0; if r.adaptive { 0 } else { decisions }],
            channel_second: vec![0.0; if r.adaptive { 0 } else { decisions }],
            delay_parts: vec![[0.0; 3]; decisions],
            residual_only: vec![0.0; resources],
            ahead: vec![0.0; decisions],
            after: vec![0.0; edges],
            next_after: vec![0.0; edges],
            injection_ahead: vec![[0.0; 4]; decisions],
            injection_after: vec![[0.0; 4]; edges],
            injection_next_after: vec![[0.0; 4]; if r.adaptive { edges } else { 0 }],
            source_wait: vec![0.0; p.nodes],
            meets_streaming: vec![0.0; decisions],
        }
    }

    /// Readies the scratch of a solve from `start`. What a round reads before it writes is set
    /// here; the rest each round writes first.
    fn restart(&mut self, p: &Prepared, start: &Start) {
        let r = &p.routes;
        self.flow_terms_ready = false;
        self.split_started = start.split.is_some();
        match &start.split {
            Some(split) => {
                self.split.copy_from_slice(split);
                r.flows_into(split, &mut self.flows, &mut self.state_flow);
            }
            // Every header takes its first option. An oblivious route's split and flows
            // never move from it.
            None if r.adaptive => {
                for d in &r.decisions {
                    for i in 0..d.len {
                        self.split[(d.first + i) as usize] = if i == 0 { 1.0 } else { 0.0 };
                    }
                }
                for (to, from) in [
                    (&mut self.flows.decision, &r.fixed.decision),
                    (&mut self.flows.edge, &r.fixed.edge),
                    (&mut self.flows.follower, &r.fixed.follower),
                    (&mut self.flows.resource, &r.fixed.resource),
                    (&mut self.flows.transition, &r.fixed.transition),
                ] {
                    to.copy_from_slice(from);
                }
            }
            None => {}
        }
        match &start.block {
            Some(block) => self.block.copy_from_slice(block),
            None => self.block.iter_mut().for_each(|x| *x = 0.0),
        }
    }

    /// The rounds from hold times `hold` to the fixed point at `rate`; `None` when saturated.
    fn rounds(&mut self, p: &Prepared, rate: f64, mut hold: Vec<f64>) -> Option<Solution> {
        let mut next = vec![0.0; hold.len()];
        let (mut least_change, mut least_at) = (f64::INFINITY, 0);
        let mut damped = false;
        for rounds in 1..=MAX_ROUNDS {
            self.run(p, rate, &hold, &mut next)?;
            if !next.iter().all(|h| h.abs() < DIVERGED_HOLD) {
                return None;
            }
            let change = |(new, old): (&f64, &f64)| (new - old).abs() / new.abs().max(1.0);
            // Watched, the largest change answers the tolerance check too.
            let largest = (rounds >= STALL_WATCHED_FROM).then(|| next.iter().zip(&hold).map(change).fold(0.0, f64::max));
            // Converged: the round's delays, flows and split, computed from `hold`, are the
            // solution; `next` is within the tolerance of it.
            let converged = match largest {
                Some(largest) => largest <= TOLERANCE,
                None => next.iter().zip(&hold).all(|pair| change(pair) <= TOLERANCE),
            };
            if converged {
                return (!self.overloaded).then(|| self.solution(p, rate, hold, next, rounds));
            }
            if let Some(largest) = largest {
                if largest < least_change {
                    (least_change, least_at) = (largest, rounds);
                } else if rounds - least_at > STALLED_ROUNDS {
                    return None;
                } else if rounds - least_at > DAMPED_AFTER {
                    damped = true;
                }
            }
            if damped {
                for (new, old) in next.iter_mut().zip(&hold) {
                    *new = old + DAMPING * (*new - old);
                }
            }
            std::mem::swap(&mut hold, &mut next);
        }
        None
    }

    /// One round from hold times `hold`: the new hold times into `new_hold`, or `None` when
    /// some resource is at or past saturation.
    fn run(&mut self, p: &Prepared, rate: f64, hold: &[f64], new_hold: &mut [f64]) -> Option<()> {
        let r = &p.routes;
        let len = p.len;
        self.overloaded = false;
        for (i, res) in r.resources.iter().enumerate() {
            let lambda = rate * self.flows.resource[i];
            let busy = busy_hold(res.kind, hold[i]);
            if let ResourceKind::Network { .. } = res.kind {
                let vcs = res.vcs as f64;
                self.hold_per_vc[i] = busy / vcs;
                self.residual_per_vc[i] = residual_hold(busy, len) / vcs;
            }
            match res.kind {
                ResourceKind::Ejection(_) => {
                    self.residual[i] = ejection_wait(lambda, len);
                    if !self.residual[i].is_finite() {
                        self.overload(r.adaptive)?;
                        self.residual[i] = OVERLOADED_WAIT;
                    }
                    self.residual_only[i] = (0.5 * lambda * len * len).min(self.residual[i]);
                }
                _ if lambda * busy >= 1.0 => {
                    self.overload(r.adaptive)?;
                    self.all_busy[i] = 1.0;
                    self.residual[i] = OVERLOADED_WAIT;
                    self.no_vc_busy[i] = occupancy_ends(lambda, busy, res.vcs as usize).0;
                }
                _ => {
                    let (no_vc_busy, all_busy) = occupancy_ends(lambda, busy, res.vcs as usize);
                    self.no_vc_busy[i] = no_vc_busy;
                    self.all_busy[i] = all_busy;
                    self.residual[i] = queued_wait(self.residual_per_vc[i], self.hold_per_vc[i], 0.0);
                }
            }
        }
        // Oblivious flows do not move from round to round: what depends on them alone is
        // computed once per rate.
        if r.adaptive || !self.flow_terms_ready {
            self.flow_terms(p, rate)?;
        }
        self.follow_closely(p, rate, hold);
        if r.adaptive {
            for (c, resources) in p.channel_resources.iter().enumerate() {
                self.channel_idle[c] = resources.iter().map(|&i| self.no_vc_busy[i as usize]).product();
            }
            self.update_split(p);
            r.flows_into(&self.split, &mut self.flows, &mut self.state_flow);
            self.age_order_at_ejection(p, rate);
        }
        if r.adaptive {
            for d in 0..r.decisions.len() {
                self.decide(p, rate, hold, d);
            }
            self.age_order_in_channels(p, rate, hold, true);
        } else {
            self.decide_fixed(p, rate, hold);
            self.age_order_in_channels(p, rate, hold, false);
        }
        self.delays_ahead(p);
        if p.window > 1 {
            self.injection_ahead::<true>(p);
        } else {
            self.injection_ahead::<false>(p);
        }
        self.new_hold(p, rate, new_hold)
    }

    /// What depends on the flows and the rate only: per channel its flow (and whether it can
    /// carry it), per resource the contention of its inputs, per (input, channel) pair its
    /// flow; for oblivious routes, whose flows are fixed, every decision's wait for its
    /// channel's flit slots instead, from the terms of [`Prepared::fixed_terms`].
    fn flow_terms(&mut self, p: &Prepared, rate: f64) -> Option<()> {
        let r = &p.routes;
        if !r.adaptive {
            let fixed = p.fixed_terms();
            if rate * fixed.busiest_channel * p.len >= 1.0 {
                self.overload(false)?;
            }
            for (d, f) in fixed.decisions.iter().enumerate() {
                let streaming = rate * f.streaming;
                let (wait, mean) = if f.ejects {
                    (0.0, 0.0)
                } else {
                    (channel_slot_wait(streaming, 1.0, p.len).min(OVERLOADED_WAIT), channel_slot_mean(streaming, p.len).min(OVERLOADED_WAIT))
                };
                (self.channel_wait[d], self.channel_mean[d]) = (wait, mean);
                // The chance that the header finds another port's worm streaming.
                self.meets_streaming[d] = if mean > 0.0 { wait / mean } else { 0.0 };
                // As in `decide`: an old header's part, and the second moment.
                self.channel_old[d] = if mean > 0.0 { wait * (0.5 * p.len / mean).min(1.0) } else { wait };
                self.channel_second[d] = wait * (2.0 * (mean - 0.5 * p.len).max(0.0) + residual_spread(p.len));
            }
            self.age_order_at_ejection(p, rate);
            self.flow_terms_ready = true;
            return Some(());
        }
        self.flow_sums(p, rate);
        if self.channel_flow.iter().any(|&f| rate * f * p.len >= 1.0) {
            self.overload(r.adaptive)?;
        }
        Some(())
    }

    /// Per channel its flow, per resource Σ_i λ_i (1 − λ_i/λ) over its inputs (at `rate`), per
    /// (input, channel) pair its flow.
    fn flow_sums(&mut self, p: &Prepared, rate: f64) {
        let r = &p.routes;
        self.channel_flow.iter_mut().for_each(|x| *x = 0.0);
        for (i, &c) in p.resource_channel.iter().enumerate() {
            if c != NONE {
                self.channel_flow[c as usize] += self.flows.resource[i];
            }
        }
        self.contention.iter_mut().for_each(|x| *x = 0.0);
        self.pair_flow.iter_mut().for_each(|x| *x = 0.0);
        self.port_resource_flow.iter_mut().for_each(|x| *x = 0.0);
        for (t, &(_, b)) in r.transitions.iter().enumerate() {
            let (from, total) = (rate * self.flows.transition[t], rate * self.flows.resource[b as usize]);
            if total > 0.0 {
                self.contention[b as usize] += from * (1.0 - from / total);
            }
            self.pair_flow[p.transition_pair[t] as usize] += self.flows.transition[t];
            if !r.adaptive {
                self.port_resource_flow[p.transition_port_resource[t] as usize] += self.flows.transition[t];
            }
        }
    }

    /// Delays over the routers ahead, one more router per step: G_j per decision (its router
    /// and the j − 1 after it), A_j per edge (the j routers after it), in full, for the network
    /// VCs. Leaves G_w in `ahead` and A_w in `after`.
    #[allow(clippy::needless_range_loop)]
    fn delays_ahead(&mut self, p: &Prepared) {
        let r = &p.routes;
        // Local slices: the loops below then keep their bases in registers.
        let (delay, split) = (&self.delay[..], &self.split[..]);
        let (edge, follower) = (&self.flows.edge[..], &self.flows.follower[..]);
        let (followers, follower_start) = (&r.followers[..], &r.follower_start[..]);
        let (ahead, mut after, mut next_after) = (&mut self.ahead[..], &mut self.after[..], &mut self.next_after[..]);
        after.iter_mut().for_each(|a| *a = 0.0);
        for _ in 0..p.window {
            if r.adaptive {
                // A decision's options follow the previous decision's.
                let mut first = 0;
                for (d, decision) in r.decisions.iter().enumerate() {
                    let end = first + decision.len as usize;
                    let mut sum = delay[d];
                    for (split, after) in split[first..end].iter().zip(&after[first..end]) {
                        sum += split * after;
                    }
                    first = end;
                    ahead[d] = sum;
                }
            } else {
                // One option per decision: edge d is decision d's, taken with probability 1.
                for d in 0..delay.len() {
                    ahead[d] = delay[d] + split[d] * after[d];
                }
            }
            // Edge e's followers run from where edge e − 1's ended to follower_start[e + 1].
            let mut first = 0;
            for e in 0..next_after.len() {
                let end = at(follower_start, e + 1) as usize;
                let flow = at(edge, e);
                let mut a = 0.0;
                if flow > 0.0 {
                    for f in first..end {
                        a += at(follower, f) * at(ahead, at(followers, f) as usize);
                    }
                    a /= flow;
                }
                first = end;
                next_after[e] = a;
            }
            std::mem::swap(&mut after, &mut next_after);
        }
        if p.window % 2 == 1 {
            // `after` is the other buffer after an odd number of steps.
            std::mem::swap(&mut self.after, &mut self.next_after);
        }
    }

    /// What the injection VCs' holds need of the routers ahead, as [`Round::delays_ahead`]
    /// sweeps them but over the decisions a header makes in the window after its source only
    /// ([`Prepared::source_reach`]), the network VCs not needing it: of G_j, the part that
    /// holds the VC, with `SLACK` (a window of more than one router) each delay counted only
    /// for what the buffers behind the header cannot absorb ([`past_slack`]); the same for an
    /// old header; and the second moments of both, each delay's own and twice its product with
    /// the part ahead (the routers ahead taken as independent of it). Leaves them in
    /// `injection_ahead` for the source decisions.
    #[allow(clippy::needless_range_loop)]
    fn injection_ahead<const SLACK: bool>(&mut self, p: &Prepared) {
        let r = &p.routes;
        let (delay, slack_in_waits, split, delay_parts) = (&self.delay[..], &self.slack_in_waits[..], &self.split[..], &self.delay_parts[..]);
        let (edge, follower) = (&self.flows.edge[..], &self.flows.follower[..]);
        let (followers, follower_start) = (&r.followers[..], &r.follower_start[..]);
        let (source_reach, source_reach_start) = (&p.source_reach[..], &p.source_reach_start[..]);
        // G_j of decision d, `position` routers after the source, from the mix of A_j over its
        // options (`ahead`).
        let parts = |d: usize, position: usize, ahead: [f64; 4]| -> [f64; 4] {
            // What the buffers between leave of each wait: the same share of each, and of its
            // second moment.
            let kept = if SLACK { past_slack(1.0, at(slack_in_waits, d), position as i32) } else { 1.0 };
            let [old, second, second_old] = at(delay_parts, d);
            let (own, own_old) = (at(delay, d) * kept, old * kept);
            [own + ahead[0], own_old + ahead[1], second * kept + 2.0 * own * ahead[0] + ahead[2], second_old * kept + 2.0 * own_old * ahead[1] + ahead[3]]
        };
        let reach = |position: usize| &source_reach[at(source_reach_start, position) as usize..at(source_reach_start, position + 1) as usize];
        if !r.adaptive {
            // One option per decision, edge d decision d's, and its followers' weights found
            // once: G_j from G_(j+1) of the followers directly, the two in turn in the two
            // buffers.
            let weight = &p.fixed_terms().follower_weight[..];
            let (mut ahead, mut next) = (&mut self.injection_ahead[..], &mut self.injection_after[..]);
            for step in 0..p.window {
                let position = p.window - 1 - step;
                for &d in reach(position) {
                    let d = d as usize;
                    let mut mix = [0.0; 4];
                    // Nothing ahead of the window's last router.
                    if step > 0 {
                        mix = followers_mix(at(follower_start, d) as usize..at(follower_start, d + 1) as usize, weight, followers, next);
                        let share = at(split, d);
                        mix.iter_mut().for_each(|x| *x *= share);
                    }
                    ahead[d] = parts(d, position, mix);
                }
                std::mem::swap(&mut ahead, &mut next);
            }
            if p.window.is_multiple_of(2) {
                // The last step's G_j are in the other buffer after an even number of steps.
                std::mem::swap(&mut self.injection_ahead, &mut self.injection_after);
            }
            return;
        }
        let ahead = &mut self.injection_ahead[..];
        let (mut after, mut next_after) = (&mut self.injection_after[..], &mut self.injection_next_after[..]);
        for step in 0..p.window {
            let position = p.window - 1 - step;
            for &d in reach(position) {
                let d = d as usize;
                let decision = at(&r.decisions, d);
                let mut mix = [0.0; 4];
                // Nothing ahead of the window's last router.
                if step > 0 {
                    for e in decision.first as usize..(decision.first + decision.len) as usize {
                        let (share, a) = (at(split, e), at(after, e));
                        for k in 0..4 {
                            mix[k] += share * a[k];
                        }
                    }
                }
                ahead[d] = parts(d, position, mix);
            }
            if position > 0 {
                // A_j for the edges of the decisions one router nearer the source.
                for &d in reach(position - 1) {
                    let decision = at(&r.decisions, d as usize);
                    for e in decision.first as usize..(decision.first + decision.len) as usize {
                        let flow = at(edge, e);
                        let mut a = [0.0; 4];
                        if flow > 0.0 {
                            a = followers_mix(at(follower_start, e) as usize..at(follower_start, e + 1) as usize, follower, followers, ahead);
                            let per_flow = 1.0 / flow;
                            a.iter_mut().for_each(|x| *x *= per_flow);
                        }
                        next_after[e] = a;
                    }
                }
                std::mem::swap(&mut after, &mut next_after);
            }
        }
    }

    /// The hold times the delays ahead give (§5), and the source queues' waits.
    fn new_hold(&mut self, p: &Prepared, rate: f64, new_hold: &mut [f64]) -> Option<()> {
        let r = &p.routes;
        let len = p.len;
        for (i, res) in r.resources.iter().enumerate() {
            if !matches!(res.kind, ResourceKind::Network { .. }) {
                new_hold[i] = 0.0;
                continue;
            }
            let (mut total, mut flow) = (0.0, 0.0);
            for &e in &p.resource_edges[i] {
                total += self.flows.edge[e as usize] * self.after[e as usize];
                flow += self.flows.edge[e as usize];
            }
            new_hold[i] = len + 1.0 + if flow > 0.0 { total / flow } else { 0.0 };
        }
        // Injection VCs: the delays at the source router and the ⌈M/B⌉ − 1 after it.
        let mut overloaded = false;
        for (node, &inj) in p.injection.iter().enumerate() {
            if inj == NONE {
                continue;
            }
            let (mut total, mut total_old, mut flow) = (0.0, 0.0, 0.0);
            let (mut total_sq, mut total_sq_old) = (0.0, 0.0);
            for &d in &p.source_decisions[inj as usize] {
                let (decision, parts) = (self.flows.decision[d as usize], self.injection_ahead[d as usize]);
                total += decision * parts[0];
                total_old += decision * parts[1];
                total_sq += decision * parts[2];
                total_sq_old += decision * parts[3];
                flow += decision;
            }
            let s = len + if flow > 0.0 { total / flow } else { 0.0 };
            new_hold[inj as usize] = s;
            // A message that queued is older than the headers it meets and waits only for their
            // residual holds: its hold S₁ (at most S) and second moment E₁. The mean over
            // every message is S and E, so a message that found its queue empty, a share 1 − ρ
            // of them, takes S₀ = (S − ρ S₁)/(1 − ρ) and E₀ likewise (at least S₀²).
            let wait = if flow > 0.0 {
                let lambda = rate * flow;
                let rho = lambda * s;
                let s1 = (len + total_old / flow).min(s);
                let (excess, excess_old) = (s - len, s1 - len);
                let second = len * len + 2.0 * len * excess + (total_sq / flow).max(excess * excess);
                let second_old = len * len + 2.0 * len * excess_old + (total_sq_old / flow).max(excess_old * excess_old);
                if rho < 1.0 {
                    let s0 = (s - rho * s1) / (1.0 - rho);
                    let second_fresh = ((second - rho * second_old) / (1.0 - rho)).max(s0 * s0);
                    welch_wait(lambda, s0, second_fresh, s1, second_old)
                } else {
                    f64::INFINITY
                }
            } else {
                0.0
            };
            self.source_wait[node] = if wait.is_finite() { wait } else { OVERLOADED_WAIT };
            overloaded |= !wait.is_finite();
        }
        if overloaded {
            self.overload(r.adaptive)?;
        }
        Some(())
    }

    /// The switch's age order in the flit slots of a channel (§11, "The age order in the flit
    /// slots"). A header that finds another input's worm streaming on its channel sends first
    /// if it is the older, which it is with the chance [`older_than_streaming`] gives from the
    /// spread of the ages, and the worm it passes loses the slots for the M cycles of its
    /// flits, a lag its tail carries to the destination and the VCs behind it hold. Each
    /// decision's delay gains M times the older headers that arrive while its own worm streams,
    /// as many, by symmetry, as the headers it finds streaming. When `header_saves`, an
    /// adaptive route's, it also loses that share of its flit-slot wait; an oblivious route's
    /// header keeps the whole first-come-first-served wait, which is what the simulator's
    /// headers wait (the older worms they meet leave gaps as often as they are passed).
    fn age_order_in_channels(&mut self, p: &Prepared, rate: f64, hold: &[f64], header_saves: bool) {
        let len = p.len;
        let nodes = p.nodes as f64;
        // The source queues' waits, as M/D/1 queues at the injection VCs' holds.
        let mut source_wait = 0.0;
        for &inj in &p.injection {
            if inj == NONE {
                continue;
            }
            let lambda = rate * p.source_decisions[inj as usize].iter().map(|&d| self.flows.decision[d as usize]).sum::<f64>();
            let s = hold[inj as usize];
            let rho = (lambda * s).min(MAX_SOURCE_LOAD);
            source_wait += lambda * s * s / (2.0 * (1.0 - rho));
        }
        let (mut decisions, mut header_delay) = (0.0, 0.0);
        for (flow, delay) in self.flows.decision.iter().zip(&self.delay) {
            decisions += flow;
            header_delay += flow * delay;
        }
        // A message makes one decision per hop and one more to eject.
        let hops = (decisions / nodes - 1.0).max(0.0);
        let spread = age_spread(source_wait / nodes, header_delay / nodes, hops * (1.0 + p.hop_delay));
        let older = older_than_streaming(spread, len);
        let saved = if header_saves { older } else { 0.0 };
        for ((delay, channel), meets) in self.delay.iter_mut().zip(&self.channel_wait).zip(&self.meets_streaming) {
            *delay += len * older * meets - saved * channel;
        }
    }

    /// Notes that a resource is at or past saturation: `None` (no fixed point) unless the split
    /// may still move away from it.
    fn overload(&mut self, adaptive: bool) -> Option<()> {
        self.overloaded = true;
        adaptive.then_some(())
    }

    /// How often a header follows the previous holder of its input closely: it waited for that
    /// input (blocked at the decision that took it, or queued at its source).
    fn follow_closely(&mut self, p: &Prepared, rate: f64, hold: &[f64]) {
        let r = &p.routes;
        self.followed.iter_mut().for_each(|x| *x = 0.0);
        for (e, option) in r.options.iter().enumerate() {
            let d = r.option_decision[e] as usize;
            self.followed[option.resource as usize] += self.flows.edge[e] * self.block[d];
        }
        for (i, res) in r.resources.iter().enumerate() {
            let total = self.flows.resource[i];
            self.followed[i] = match res.kind {
                ResourceKind::Injection(_) => (rate * total * hold[i]).min(1.0),
                _ if total > 0.0 => self.followed[i] / total,
                _ => 0.0,
            };
        }
    }

    /// The ejection ports' waits by input (§11, "The ejection port by age"): Cobham's priorities by age over
    /// the levels of [`Prepared::ejection_ages`], each input's share of the FCFS wait
    /// (1 − λ_u/λ_e, the same-input exclusion) times its priority's ratio to FCFS, scaled so
    /// that Σ λ_u · factor_u is unchanged: age divides the port's wait among the inputs, and
    /// leaves its total as the model had it.
    fn age_order_at_ejection(&mut self, p: &Prepared, rate: f64) {
        let r = &p.routes;
        for levels in &p.ejection_ages {
            let port = r.transitions[levels[0][0] as usize].1 as usize;
            let total = self.flows.resource[port];
            let load = rate * total * p.len;
            let (mut elders, mut fcfs, mut by_age) = (0.0, 0.0, 0.0);
            for level in levels {
                let through = elders + rate * p.len * level.iter().map(|&t| self.flows.transition[t as usize]).sum::<f64>();
                // Overloaded, the port's wait is infinite whatever the order.
                let ratio = if load < 1.0 { priority_wait_ratio(elders, through, load) } else { 1.0 };
                for &t in level {
                    let from = self.flows.transition[t as usize];
                    let share = other_inputs_share(from, total);
                    self.ejection_by_age[t as usize] = share * ratio;
                    fcfs += from * share;
                    by_age += from * share * ratio;
                }
                elders = through;
            }
            if by_age > 0.0 {
                let scale = fcfs / by_age;
                levels.iter().flatten().for_each(|&t| self.ejection_by_age[t as usize] *= scale);
            }
        }
    }

    /// [`Round::decide`] for every decision of an oblivious route, from the terms its fixed
    /// flows give (the same arithmetic, without recomputing them).
    fn decide_fixed(&mut self, p: &Prepared, rate: f64, hold: &[f64]) {
        let len = p.len;
        let (all_busy, residual, followed) = (&self.all_busy[..], &self.residual[..], &self.followed[..]);
        let ejection_by_age = &self.ejection_by_age[..];
        let (hold_per_vc, residual_per_vc) = (&self.hold_per_vc[..], &self.residual_per_vc[..]);
        let slack = p.buffer_slack;
        let residual_only = &self.residual_only[..];
        let (channel_old, channel_second) = (&self.channel_old[..], &self.channel_second[..]);
        let spread = residual_spread(len);
        let decisions = p.fixed_terms().decisions.iter().zip(self.channel_wait.iter().zip(&self.channel_mean)).zip(self.slack_in_waits.iter_mut().zip(self.delay_parts.iter_mut())).zip(
            self.block.iter_mut().zip(self.vc_wait.iter_mut()).zip(self.ejection_wait.iter_mut().zip(self.delay.iter_mut())),
        );
        for (d, (((f, (&channel, &channel_mean)), (slack_d, parts_d)), ((block, vc_wait_d), (ejection_d, delay_d)))) in decisions.enumerate() {
            let b = f.resource as usize;
            let (blocked, waits, ejection) = if f.ejects {
                (0.0, 0.0, residual[b] * ejection_by_age[f.transition as usize])
            } else {
                (all_busy[b] * f.share, queued_wait(residual_per_vc[b], hold_per_vc[b], rate * f.others).min(OVERLOADED_WAIT), 0.0)
            };
            let vc_wait = if blocked > 0.0 { waits } else { 0.0 };
            let mut delay = ejection + blocked * vc_wait + channel;
            // An M/D/1 port's wait W, when there is one, is W/ρ = M/2 + W on average.
            let mut moment = ejection * (0.5 * len + residual[b]) + blocked * vc_wait * vc_wait + channel * channel_mean;
            // Second moments: a wait for a VC spread as a residual hold (E[w²] = 4/3 m² when it
            // waits), the ejection port's and the flit slots' as an M/D/1's (a residual M/2,
            // uniform, behind the queue).
            let mut second = ejection * (2.0 * residual[b] + spread) + VC_WAIT_SPREAD * blocked * vc_wait * vc_wait + at(channel_second, d);
            // An old header: the residual parts alone, ρM/2 at the ejection port, R/V at a VC,
            // (1 − u) of the flit slots' wait.
            let ejection_old = if f.ejects { residual_only[b] * f.share } else { 0.0 };
            let vc_old = residual_per_vc[b].min(vc_wait);
            let residual_parts = ejection_old + at(channel_old, d);
            let mut old = residual_parts + blocked * vc_old;
            let mut second_old = residual_parts * spread + VC_WAIT_SPREAD * blocked * vc_old * vc_old;
            if ejection == 0.0 && !f.same_way.is_nan() {
                let behind = behind_own_input(followed[f.input as usize], f.same_way, hold[b], len);
                delay += behind;
                old += behind;
                let behind_moment = behind * (hold[b] - len - 1.0);
                moment += behind_moment;
                second += 2.0 * behind_moment;
                second_old += 2.0 * behind_moment;
            }
            *parts_d = [old.min(delay), second, second_old];
            *slack_d = slack_in_waits(delay, moment, slack);
            *block = blocked;
            *vc_wait_d = vc_wait;
            *ejection_d = ejection;
            *delay_d = delay;
        }
    }

    /// The delay of decision `d` of an adaptive route at the current flows and hold times.
    fn decide(&mut self, p: &Prepared, rate: f64, hold: &[f64], d: usize) {
        let r = &p.routes;
        let len = p.len;
        let decision = r.decisions[d];
        let options = decision.first as usize..(decision.first + decision.len) as usize;
        let input = decision.input as usize;
        let mut ejection_share = 1.0;
        let (mut blocked, mut waits, mut ejection, mut channel, mut channel_moment) = (1.0, 0.0, 0.0, 0.0, 0.0);
        // As in `decide_fixed`: an old header's parts, and the second moments.
        let (mut waits_old, mut ejection_old, mut channel_old, mut channel_second) = (0.0, 0.0, 0.0, 0.0);
        let mut meets_streaming = 0.0;
        for (e, info) in options.clone().zip(&p.option_info[options.clone()]) {
            let b = info.resource as usize;
            let from = self.flows.transition[info.transition as usize];
            let share = other_inputs_share(from, self.flows.resource[b]);
            if info.ejects {
                // No VC to win: the ejection port serves the messages of other inputs first.
                ejection = self.residual[b] * self.ejection_by_age[info.transition as usize];
                ejection_old = self.residual_only[b] * share;
                ejection_share = share;
                blocked = 0.0;
                break;
            }
            blocked *= self.all_busy[b] * share;
            let others = (self.contention[b] - rate * from * share).max(0.0);
            let w = queued_wait(self.residual_per_vc[b], self.hold_per_vc[b], others).min(OVERLOADED_WAIT);
            waits += w;
            waits_old += self.residual_per_vc[b].min(w);
            let (wait, mean) = self.channel_slots(p, rate, hold, e);
            // The flit slots as the header that made this choice finds them (§11, "Flit slots
            // as the choice finds them"): one that took the option because its channel was
            // idle meets no worm there; one that took it with the channel busy meets another
            // input's worm streaming with the chance that a busy channel streams one, and
            // surely when it passed over a busy option on the same channel. The round's own
            // split, not the damped one: with it the rounds converged slower than the split's
            // half steps allow.
            let weighted = if decision.len > 1 && mean > 0.0 {
                let not_idle = 1.0 - self.channel_idle[info.channel as usize];
                let streaming = wait / mean;
                let passed_busy_option = p.same_channel_start[e] < p.same_channel_start[e + 1];
                let given_busy = if !passed_busy_option && not_idle > streaming { streaming / not_idle } else { 1.0 };
                (self.split_target[e] - self.split_idle[e]).max(0.0) * given_busy * mean
            } else {
                self.split[e] * wait
            };
            if mean > 0.0 {
                meets_streaming += weighted / mean;
            }
            channel += weighted;
            channel_old += if mean > 0.0 { weighted * (0.5 * len / mean).min(1.0) } else { weighted };
            channel_second += weighted * (2.0 * (mean - 0.5 * len).max(0.0) + residual_spread(len));
            channel_moment += weighted * mean;
        }
        let m = decision.len as f64;
        let vc_wait = if blocked > 0.0 { waits / (m * m) } else { 0.0 };
        let mut delay = ejection + blocked * vc_wait + channel;
        let mut moment = blocked * vc_wait * vc_wait + channel_moment;
        let vc_old = if blocked > 0.0 { waits_old / (m * m) } else { 0.0 };
        let mut old = ejection_old + blocked * vc_old + channel_old;
        let mut second_old = (ejection_old + channel_old) * residual_spread(len) + VC_WAIT_SPREAD * blocked * vc_old * vc_old;
        let mut second = VC_WAIT_SPREAD * blocked * vc_wait * vc_wait + channel_second;
        if ejection > 0.0 {
            second += ejection * (2.0 * ejection / ejection_share + residual_spread(len));
        }
        if ejection > 0.0 {
            // As in `decide_fixed`: the port's wait, when there is one, is M/2 + W on average.
            moment += ejection * (0.5 * len + ejection / ejection_share);
        }
        if decision.len == 1 && ejection == 0.0 && self.flows.resource[input] > 0.0 {
            // Behind the previous message of the same input, which also went this way: wait for
            // the part of its hold beyond the M + 1 cycles of its flits.
            let e = decision.first as usize;
            let b = p.option_info[e].resource as usize;
            let same_way = self.flows.transition[p.option_info[e].transition as usize] / self.flows.resource[input];
            let behind = behind_own_input(self.followed[input], same_way, hold[b], len);
            delay += behind;
            old += behind;
            moment += behind * (hold[b] - len - 1.0);
            second += 2.0 * behind * (hold[b] - len - 1.0);
            second_old += 2.0 * behind * (hold[b] - len - 1.0);
        }
        self.meets_streaming[d] = meets_streaming;
        self.delay_parts[d] = [old.min(delay), second, second_old];
        self.slack_in_waits[d] = slack_in_waits(delay, moment, p.buffer_slack);
        self.block[d] = blocked;
        self.vc_wait[d] = vc_wait;
        self.channel_wait[d] = channel;
        self.ejection_wait[d] = ejection;
        self.delay[d] = delay;
    }

    /// The wait for the flit slots of option `e`'s channel: another input's worm streaming on
    /// another VC of it sends first. An option taken because the earlier ones on the same
    /// channel were busy finds their worms on the channel, streaming for M of their S cycles.
    fn channel_slots(&self, p: &Prepared, rate: f64, hold: &[f64], e: usize) -> (f64, f64) {
        let len = p.len;
        if p.option_info[e].channel == NONE {
            return (0.0, 0.0);
        }
        let mut others = self.channel_others(p, e);
        let mut idle = 1.0;
        let earlier = p.same_channel_start[e] as usize..p.same_channel_start[e + 1] as usize;
        for &earlier in &p.same_channel_earlier[earlier] {
            let info2 = p.option_info[earlier as usize];
            let b2 = info2.resource as usize;
            others = (others - (self.flows.resource[b2] - self.port_to_resource(p, info2))).max(0.0);
            idle *= 1.0 - (len / busy_hold(p.routes.resources[b2].kind, hold[b2])).min(1.0);
        }
        let streaming = rate * others * len;
        (channel_slot_wait(streaming, idle, len).min(OVERLOADED_WAIT), channel_slot_mean(streaming, len).min(OVERLOADED_WAIT))
    }

    /// The flow of the worms that stream on option `e`'s channel from input ports other than
    /// its own.
    fn channel_others(&self, p: &Prepared, e: usize) -> f64 {
        let info = p.option_info[e];
        let b = info.resource as usize;
        let from_port = self.pair_flow[info.pair as usize];
        // With one VC in its class, a worm of the class holds the VC and blocks there instead.
        let same_class = if info.vcs == 1.0 { self.flows.resource[b] - self.port_to_resource(p, info) } else { 0.0 };
        (self.channel_flow[info.channel as usize] - from_port - same_class).max(0.0)
    }

    /// The flow into an option's resource from the option's input port. An adaptive route's
    /// port is its input's class, so that is the option's own transition, at this round's flows.
    fn port_to_resource(&self, p: &Prepared, info: OptionInfo) -> f64 {
        if p.routes.adaptive {
            self.flows.transition[info.transition as usize]
        } else {
            self.port_resource_flow[info.port_resource as usize]
        }
    }

    /// The split of every adaptive decision among its options (§3): the lowest
    /// priority with a free option is served; within it the simulator takes the free option
    /// whose channel has the fewest flits queued downstream, the earlier on a tie, so an idle
    /// channel (every VC free, P_0 of each class) goes before any later one, by its first
    /// option, and among channels with flits queued the split is even; on one channel the
    /// earlier class first. A channel is idle only when its options are free, so the chance of
    /// that is P_0 itself: taken as independent of them, a channel found free through a second
    /// class (its first one busy, streaming) counted as idle, and MIN AD and GOAL sent headers
    /// onto a *-channel behind a streaming worm where the simulator takes the idle channel of
    /// another dimension. A header that finds every option busy takes the first to free, in
    /// proportion to how fast each frees.
    fn update_split(&mut self, p: &Prepared) {
        let r = &p.routes;
        for (rate, residual) in self.freeing_rate.iter_mut().zip(&self.residual) {
            *rate = 1.0 / residual.max(1e-12);
        }
        for (d, decision) in r.decisions.iter().enumerate() {
            if decision.len == 1 {
                continue;
            }
            let first = decision.first as usize;
            let n = decision.len as usize;
            let infos = &p.option_info[first..first + n];
            let mut free = [0.0f64; MAX_CANDIDATES];
            for (f, info) in free.iter_mut().zip(infos) {
                let b = info.resource as usize;
                let from = self.flows.transition[info.transition as usize];
                *f = 1.0 - self.all_busy[b] * other_inputs_share(from, self.flows.resource[b]);
            }
            let mut taken = [0.0f64; MAX_CANDIDATES];
            let mut taken_idle = [0.0f64; MAX_CANDIDATES];
            let mut reach = 1.0;
            let groups = &p.split_groups[p.split_group_start[d] as usize..p.split_group_start[d + 1] as usize];
            for group in groups {
                // The group's options in order, and its channels in order of first appearance.
                let options = &p.split_group_options[group.options.0 as usize..group.options.1 as usize];
                let group_channels = group.channels.0 as usize..group.channels.1 as usize;
                let channels = &p.split_group_channels[group_channels.clone()];
                let mut idle = [0.0f64; MAX_CANDIDATES];
                for ((idle, &c), &passed) in idle.iter_mut().zip(channels).zip(&p.split_group_channel_passed[group_channels]) {
                    *idle = if c == NONE {
                        1.0
                    } else if passed {
                        0.0
                    } else {
                        self.channel_idle[c as usize]
                    };
                }
                reach *= split_group_taken(options, &idle[..channels.len()], &free, reach, &mut taken, &mut taken_idle);
            }
            // Every option busy: the first to free, at rate 1/residual.
            let mut rates = [0.0f64; MAX_CANDIDATES];
            for (rate, info) in rates.iter_mut().zip(infos) {
                *rate = self.freeing_rate[info.resource as usize];
            }
            let per_rate = reach / rates[..n].iter().sum::<f64>();
            for i in 0..n {
                let computed = taken[i] + rates[i] * per_rate;
                let e = first + i;
                self.split_target[e] = computed;
                self.split[e] = if self.split_started { 0.5 * (self.split[e] + computed) } else { computed };
                self.split_idle[e] = taken_idle[i];
            }
        }
        self.split_started = true;
    }

    fn solution(&self, p: &Prepared, rate: f64, hold: Vec<f64>, hold_after: Vec<f64>, rounds: usize) -> Solution {
        let r = &p.routes;
        let hops: f64 = self.flows.edge.iter().zip(&r.options).filter(|(_, o)| p.resource_channel[o.resource as usize] != NONE).map(|(f, _)| f).sum();
        let mean_hops = hops / p.nodes as f64;
        let at_rate = |flows: &[f64]| -> Vec<f64> { flows.iter().map(|x| x * rate).collect() };
        let (resource_flow, decision_flow) = (at_rate(&self.flows.resource), at_rate(&self.flows.decision));
        let nodes = p.nodes as f64;
        let messages = rate * nodes;
        let mean_source_wait = self.source_wait.iter().sum::<f64>() / nodes;
        let mean_delay = if messages > 0.0 { decision_flow.iter().zip(&self.delay).map(|(f, d)| f * d).sum::<f64>() / messages } else { 0.0 };
        Solution {
            rate,
            latency: mean_source_wait + mean_delay + p.len + mean_hops * (1.0 + p.hop_delay),
            hold,
            hold_after,
            split_target: r.adaptive.then(|| self.split_target.clone()),
            resource_flow,
            decision_flow,
            block: self.block.clone(),
            vc_wait: self.vc_wait.clone(),
            delay: self.delay.clone(),
            channel_wait: self.channel_wait.clone(),
            ejection_wait: self.ejection_wait.clone(),
            source_wait: self.source_wait.clone(),
            rounds,
            mean_source_wait,
            mean_delay,
            mean_hops,
        }
    }
}

/// One priority group of an adaptive decision: adds to `taken[i]` the chance that option `i` is
/// taken, given the chance `reach` that no earlier group had a free option, and returns the
/// chance that none of this group's options is free. `options` are (option, channel in the
/// group) pairs in the routing's order, `idle[k]` is the chance that the group's channel `k` is
/// idle (every VC free), and `free[i]` the chance that option `i` is free. Of `taken[i]`, the
/// part taken because its channel was idle is added to `taken_idle[i]` too.
fn split_group_taken(options: &[(u8, u8)], idle: &[f64], free: &[f64], reach: f64, taken: &mut [f64], taken_idle: &mut [f64]) -> f64 {
    let count = idle.len();
    let mut port_free = [0.0f64; MAX_CANDIDATES];
    let mut none_free = 1.0;
    for &(i, k) in options {
        none_free *= 1.0 - free[i as usize];
        // The channel is free when any of its options is.
        port_free[k as usize] = 1.0 - (1.0 - port_free[k as usize]) * (1.0 - free[i as usize]);
    }
    // An idle channel has every VC free, so its first option is taken. The chance that it is
    // idle is not independent of its options being free: it is part of it.
    let mut idle_free = [0.0f64; MAX_CANDIDATES];
    let mut chosen = [0.0f64; MAX_CANDIDATES];
    let mut no_idle_before = 1.0;
    let mut queued = [0.0f64; MAX_CANDIDATES];
    for k in 0..count {
        idle_free[k] = idle[k].min(port_free[k]);
        chosen[k] = idle_free[k] * no_idle_before;
        no_idle_before *= 1.0 - idle_free[k];
        queued[k] = if idle_free[k] < 1.0 { (port_free[k] - idle_free[k]) / (1.0 - idle_free[k]) } else { 0.0 };
    }
    let any_queued = 1.0 - queued[..count].iter().map(|q| 1.0 - q).product::<f64>();
    let total: f64 = queued[..count].iter().sum();
    let per_queued = if total > 0.0 { no_idle_before * any_queued / total } else { 0.0 };
    for k in 0..count {
        // Free but not idle: the first free option of the channel, the idle cases (its first
        // option's) taken out.
        let per_busy_free = if port_free[k] > idle_free[k] { reach * queued[k] * per_queued / (port_free[k] - idle_free[k]) } else { 0.0 };
        let mut none_before = 1.0;
        for (n, &(i, _)) in options.iter().filter(|&&(_, on)| on as usize == k).enumerate() {
            let i = i as usize;
            let first_free = free[i] * none_before;
            if n == 0 {
                taken_idle[i] += reach * chosen[k];
            }
            taken[i] += if n == 0 { reach * chosen[k] + per_busy_free * (first_free - idle_free[k]).max(0.0) } else { per_busy_free * first_free };
            none_before *= 1.0 - free[i];
        }
    }
    none_free
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(text: &str) -> Prepared {
        Prepared::new(&Scenario::parse(text).unwrap()).unwrap()
    }

    const ADAPTIVE: [&str; 5] = [
        "k=4&routing=minad&traffic=uniform",
        "k=4&routing=goal&traffic=transpose",
        "k=4&routing=duato&traffic=uniform&vcs=5",
        "k=4&routing=nbc&traffic=tornado",
        "k=3&n=3&routing=adaptive&traffic=uniform&vcs=4",
    ];

    #[test]
    fn a_newcomer_is_older_than_the_worm_it_finds_streaming_more_often_as_ages_spread() {
        // By hand, M = 16: w = 16 gives (1/2)(1 − e^(−1)) = 0.31606; w = 1 gives nearly
        // w/2M = 1/32, since a difference of ages past Δ is then rare; ages spread far wider
        // than M make the two equally likely to be the older.
        assert!((older_than_streaming(16.0, 16.0) - 0.5 * (1.0 - (-1.0f64).exp())).abs() < 1e-12);
        assert!((older_than_streaming(1.0, 16.0) - (1.0 - (-16.0f64).exp()) / 32.0).abs() < 1e-12);
        assert_eq!(older_than_streaming(0.0, 16.0), 0.0);
        assert!((older_than_streaming(1e6, 16.0) - 0.5).abs() < 1e-5);
        // Source wait 2, header delays of 4 over the route, 6 cycles of route at zero load:
        // 2 + 2 + 3 = 7. An idle network: the ages differ by the routes' lengths alone.
        assert_eq!(age_spread(2.0, 4.0, 6.0), 7.0);
        assert_eq!(age_spread(0.0, 0.0, 6.0), 3.0);
    }

    #[test]
    fn a_split_circling_its_fixed_point_is_damped_onto_it_not_called_saturated() {
        // Undamped, `adaptive`'s split under transpose circles its fixed point at 0.0239
        // messages/node/cycle for all of MAX_ROUNDS, and the branch ends at 0.02389. Damped
        // after a stall, the rounds converge there (in 52 rounds) and the branch goes on.
        let s = Scenario::parse("k=8&routing=adaptive&traffic=transpose&len=16&buf=4").unwrap();
        let model = crate::models::channel_queue::Model::new(&s).unwrap();
        let solution = model.solve(0.0239).expect("converged at 0.0239");
        assert!(solution.rounds > STALL_WATCHED_FROM + DAMPED_AFTER, "damped: {} rounds", solution.rounds);
        let close = solution.hold.iter().zip(&solution.hold_after).all(|(a, b)| (a - b).abs() <= TOLERANCE * b.abs().max(1.0));
        assert!(close, "a fixed point");
        assert!(solution.latency.is_finite() && solution.latency > 50.0, "loaded: {}", solution.latency);
        assert!(model.saturation_rate() > 0.0239, "{}", model.saturation_rate());
    }

    #[test]
    fn routes_folded_by_their_mirrors_give_the_fixed_point_of_the_whole_torus() {
        // Folded, the rounds work on one node of each set of mirror images (2 or 4 here); the
        // fixed point must be the whole torus's, channel by channel, but for the order sums run in.
        for (text, images) in [
            ("k=4&routing=minad&traffic=uniform", 4),
            ("k=4&routing=goal&traffic=bitcomp", 4),
            ("k=4&routing=nbc&traffic=uniform", 2),
            ("k=4&routing=duato&traffic=tornado&vcs=5", 2),
            ("k=6&routing=dor&traffic=uniform&len=4", 4),
            ("k=4&routing=romm&traffic=transpose", 2),
        ] {
            let s = Scenario::parse(text).unwrap();
            let folded = Prepared::new(&s).unwrap();
            let whole = Prepared::on(&s, Routes::new(&s).unwrap());
            assert_eq!(folded.routes.mirrors.as_ref().map(|m| m.images), Some(images), "{text}");
            assert!(whole.routes.mirrors.is_none());
            let per_channel = |p: &Prepared, solution: &Solution| {
                let mut flow = vec![0.0; p.routes.channels as usize];
                for (r, res) in p.routes.resources.iter().enumerate() {
                    if let Some(c) = res.channel() {
                        flow[c as usize] += solution.resource_flow[r] * solution.hold[r];
                    }
                }
                p.routes.per_torus_channel(flow)
            };
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1e-3);
            let saturation = crate::models::channel_queue::Model::new(&s).unwrap().saturation_rate();
            for rate in [0.3 * saturation, 0.8 * saturation] {
                let (a, b) = (folded.solve(rate, None).unwrap(), whole.solve(rate, None).unwrap());
                assert!(close(a.latency, b.latency), "{text} at {rate}: latency {} folded, {} whole", a.latency, b.latency);
                assert!(close(a.mean_source_wait, b.mean_source_wait) && close(a.mean_hops, b.mean_hops), "{text} at {rate}");
                assert!(b.latency > a.mean_hops + s.len as f64 + 0.5, "{text} at {rate}: loaded");
                for (c, (x, y)) in per_channel(&folded, &a).iter().zip(per_channel(&whole, &b)).enumerate() {
                    assert!(close(*x, y), "{text} at {rate}: channel {c} busy {x} folded, {y} whole");
                }
            }
        }
    }

    #[test]
    fn the_hot_nodes_port_serves_its_busiest_input_first_and_keeps_its_total_wait() {
        // DOR's hot node 10 of a 4 × 4 torus takes most of its messages over +y (the sources of
        // two rows) and the fewest over −x: its port's waits fall in the order of the inputs'
        // flows. Under MIN AD too, Σ λ_u W_u stays the FCFS port's with the same-input
        // exclusion, Σ λ_u (1 − λ_u/λ) λM²/(2(1 − λM)).
        for text in ["k=4&routing=dor&traffic=hotspot&hot=10&len=8", "k=4&routing=minad&traffic=hotspot&hot=10&len=8"] {
            let s = Scenario::parse(text).unwrap();
            let p = Prepared::new(&s).unwrap();
            let saturation = crate::models::channel_queue::Model::new(&s).unwrap().saturation_rate();
            let solution = p.solve(0.7 * saturation, None).unwrap();
            let r = &p.routes;
            let at_hot: Vec<usize> = (0..r.decisions.len())
                .filter(|&d| matches!(r.resources[r.options[r.decisions[d].first as usize].resource as usize].kind, ResourceKind::Ejection(10)))
                .collect();
            // One decision per input into the port (each input carries its own messages only).
            for &d in &at_hot {
                assert_eq!(at_hot.iter().filter(|&&e| r.decisions[e].input == r.decisions[d].input).count(), 1, "{text}");
            }
            let mut inputs: Vec<(f64, f64)> = at_hot.iter().map(|&d| (solution.decision_flow[d], solution.ejection_wait[d])).collect();
            assert!(inputs.len() >= 4, "{text}: {} inputs", inputs.len());
            let total: f64 = inputs.iter().map(|x| x.0).sum();
            let fcfs = ejection_wait(total, p.len);
            let kept: f64 = inputs.iter().map(|&(f, _)| f * (1.0 - f / total) * fcfs).sum();
            let by_age: f64 = inputs.iter().map(|&(f, w)| f * w).sum();
            assert!((by_age - kept).abs() < 1e-9 * kept, "{text}: {by_age} against {kept}");
            if r.adaptive {
                // Ordered by their zero-load flows, which the split has since moved from.
                continue;
            }
            inputs.sort_by(|a, b| b.0.total_cmp(&a.0));
            for pair in inputs.windows(2) {
                if pair[0].0 > pair[1].0 * (1.0 + 1e-6) {
                    assert!(pair[0].1 < pair[1].1, "{text}: input of flow {} waits {}, of {} waits {}", pair[0].0, pair[0].1, pair[1].0, pair[1].1);
                }
            }
            // Beyond the exclusion, which already lets the busiest input wait least: the eldest
            // waits less than its FCFS share, the youngest more.
            let (eldest, youngest) = (inputs[0], inputs[inputs.len() - 1]);
            assert!(eldest.1 < 0.9 * fcfs * (1.0 - eldest.0 / total), "{text}: eldest {eldest:?}, FCFS {fcfs}");
            assert!(youngest.1 > 1.1 * fcfs * (1.0 - youngest.0 / total), "{text}: youngest {youngest:?}, FCFS {fcfs}");
        }
    }

    #[test]
    fn a_wait_ahead_holds_the_injection_vc_less_what_the_buffers_between_take() {
        // A decision waits 8 cycles for a VC half the time (4) and 4 for the ejection port half
        // the time (2): delay 6, Σ delay_i · m_i = 4 · 8 + 2 · 4 = 40, so m̄ = 40/6. With B = 4
        // each buffer behind the header takes 3 flits more: 3/m̄ = 0.45.
        let buffers = slack_in_waits(6.0, 40.0, 3.0);
        assert!((buffers - 0.45).abs() < 1e-15);
        // At the window's first router nothing is between; two routers on, 6 flits are:
        // E[max(0, w − 6)] = 6 · m̄/(m̄ + 6) = 6/(1 + 0.9).
        assert_eq!(past_slack(6.0, buffers, 0), 6.0);
        assert!((past_slack(6.0, buffers, 2) - 6.0 / 1.9).abs() < 1e-12);
        // One-flit buffers take nothing more; no delay, nothing to absorb.
        assert_eq!(past_slack(6.0, slack_in_waits(6.0, 40.0, 0.0), 3), 6.0);
        assert_eq!(past_slack(0.0, slack_in_waits(0.0, 0.0, 3.0), 3), 0.0);
    }

    #[test]
    fn a_split_group_takes_an_idle_channel_by_its_first_option_and_a_busy_free_one_by_its_first_free() {
        // Channel x offers adaptive option 0 (free 0.5) and escape option 1 (free 0.8), and is
        // idle 0.3 of the time; channel y offers option 2 (free 0.6), idle 0.4. By hand:
        // - x idle: 0.3, taken by option 0; y idle, x not: 0.7 · 0.4 = 0.28, taken by option 2.
        // - Neither idle: 0.42. Free but busy, given not idle: x (0.9 − 0.3)/0.7 = 6/7,
        //   y (0.6 − 0.4)/0.6 = 1/3. Some such channel: 19/21, shared in proportion 6/7 : 1/3,
        //   so per unit of `queued` 0.42 · (19/21)/(25/21) = 0.3192.
        // - x's busy-free share 6/7 · 0.3192 = 0.2736 goes to its first free option over the
        //   0.6 of x free but busy: option 0 gets (0.5 − 0.3)/0.6, option 1 gets 0.2 · 0.8/0.6.
        // - y's share 1/3 · 0.3192 = 0.1064 goes to option 2.
        let options = [(0u8, 0u8), (1, 0), (2, 1)];
        let (mut taken, mut taken_idle) = ([0.0; 3], [0.0; 3]);
        let none_free = split_group_taken(&options, &[0.3, 0.4], &[0.5, 0.8, 0.6], 1.0, &mut taken, &mut taken_idle);
        let expected = [0.3 + 0.2736 * 0.2 / 0.6, 0.2736 * 0.4 / 0.6, 0.28 + 0.1064];
        for (t, e) in taken.iter().zip(expected) {
            assert!((t - e).abs() < 1e-12, "taken {taken:?}, expected {expected:?}");
        }
        // Of those, the idle channels' first options: x idle 0.3, y idle while x is not 0.28.
        for (t, e) in taken_idle.iter().zip([0.3, 0.0, 0.28]) {
            assert!((t - e).abs() < 1e-12, "taken idle {taken_idle:?}");
        }
        assert!((none_free - 0.5 * 0.2 * 0.4).abs() < 1e-15);
        assert!((taken.iter().sum::<f64>() + none_free - 1.0).abs() < 1e-12, "every case is counted once");

        // A later group is reached only when every earlier option was busy: `reach` scales it.
        let mut later = [0.0; 3];
        split_group_taken(&options, &[0.3, 0.4], &[0.5, 0.8, 0.6], 0.25, &mut later, &mut [0.0; 3]);
        for (l, t) in later.iter().zip(taken) {
            assert!((l - 0.25 * t).abs() < 1e-12);
        }
    }

    #[test]
    fn a_split_group_with_an_always_idle_channel_sends_everything_to_its_first_option() {
        // An ejection port (idle 1) listed first takes every header that reaches the group.
        let mut taken = [0.0; 2];
        split_group_taken(&[(0, 0), (1, 1)], &[1.0, 0.5], &[1.0, 0.7], 0.6, &mut taken, &mut [0.0; 2]);
        assert_eq!(taken, [0.6, 0.0]);
    }

    #[test]
    fn split_groups_hold_each_priority_of_a_decision_with_its_channels_in_order() {
        for text in ADAPTIVE {
            let p = prepared(text);
            let r = &p.routes;
            let mut several = 0;
            for (d, decision) in r.decisions.iter().enumerate() {
                let options = &r.options[decision.first as usize..(decision.first + decision.len) as usize];
                let groups = &p.split_groups[p.split_group_start[d] as usize..p.split_group_start[d + 1] as usize];
                if options.len() == 1 {
                    assert!(groups.is_empty(), "{text}: decision {d}");
                    continue;
                }
                several += 1;
                let mut priorities: Vec<u8> = options.iter().map(|o| o.priority).collect();
                priorities.sort_unstable();
                priorities.dedup();
                assert_eq!(groups.len(), priorities.len(), "{text}: decision {d}");
                for (group, &priority) in groups.iter().zip(&priorities) {
                    let members = &p.split_group_options[group.options.0 as usize..group.options.1 as usize];
                    let channels = &p.split_group_channels[group.channels.0 as usize..group.channels.1 as usize];
                    // Every option of this priority, in order, none other.
                    let expected: Vec<u8> = (0..options.len() as u8).filter(|&i| options[i as usize].priority == priority).collect();
                    assert_eq!(members.iter().map(|m| m.0).collect::<Vec<u8>>(), expected, "{text}: decision {d}");
                    // Its channels in order of first appearance, each option pointing at its own.
                    let mut seen: Vec<u32> = Vec::new();
                    for &(i, k) in members {
                        let c = p.resource_channel[options[i as usize].resource as usize];
                        if !seen.contains(&c) {
                            seen.push(c);
                        }
                        assert_eq!(channels[k as usize], c, "{text}: decision {d} option {i}");
                    }
                    assert_eq!(channels, &seen[..], "{text}: decision {d}");
                    // A channel an earlier priority offered too is passed: not idle here.
                    let earlier: Vec<u32> = options.iter().filter(|o| o.priority < priority).map(|o| p.resource_channel[o.resource as usize]).collect();
                    let passed = &p.split_group_channel_passed[group.channels.0 as usize..group.channels.1 as usize];
                    for (&c, &passed) in channels.iter().zip(passed) {
                        assert_eq!(passed, earlier.contains(&c), "{text}: decision {d} channel {c}");
                    }
                }
            }
            assert!(several > 0, "{text}: some decision offers a choice");
        }
    }

    #[test]
    fn an_oblivious_route_counts_its_input_channel_as_one_port_and_an_adaptive_one_each_class() {
        // Two transitions share an (input port, channel) pair exactly when their outputs are on
        // one channel and their inputs on one port: for an oblivious route a network input's
        // channel (VAL's four classes, DOR's two), for an adaptive route its class.
        for (text, by_channel) in [("k=4&routing=dor&traffic=uniform", true), ("k=4&routing=val&traffic=tornado", true), ("k=4&routing=minad&traffic=uniform", false)] {
            let p = prepared(text);
            let r = &p.routes;
            let port = |input: u32| match p.resource_channel[input as usize] {
                c if c != NONE && by_channel => (0, c),
                _ => (1, input),
            };
            let mut merged = 0;
            for (t, &(input, b)) in r.transitions.iter().enumerate() {
                for (u, &(input2, b2)) in r.transitions.iter().enumerate() {
                    let same_pair = port(input) == port(input2) && p.resource_channel[b as usize] == p.resource_channel[b2 as usize];
                    assert_eq!(p.transition_pair[t] == p.transition_pair[u], same_pair, "{text}: transitions {t}, {u}");
                    let same_port_resource = port(input) == port(input2) && b == b2;
                    assert_eq!(p.transition_port_resource[t] == p.transition_port_resource[u], same_port_resource, "{text}: transitions {t}, {u}");
                    merged += (same_pair && input != input2) as usize;
                }
            }
            assert_eq!(merged > 0, by_channel, "{text}: classes of one input channel merged");
        }
    }

    #[test]
    fn option_facts_are_the_routes_own_and_list_the_earlier_options_on_the_same_channel() {
        for text in ADAPTIVE.iter().chain(&["k=4&routing=dor&traffic=uniform", "k=4&routing=val&traffic=tornado"]) {
            let p = prepared(text);
            let r = &p.routes;
            let mut shared = 0;
            for (e, info) in p.option_info.iter().enumerate() {
                let b = r.options[e].resource;
                assert_eq!(info.resource, b);
                assert_eq!(info.transition, r.option_transition[e]);
                assert_eq!(info.pair, p.transition_pair[r.option_transition[e] as usize]);
                assert_eq!(info.channel, p.resource_channel[b as usize]);
                assert_eq!(info.vcs, r.resources[b as usize].vcs as f64);
                assert_eq!(info.ejects, matches!(r.resources[b as usize].kind, ResourceKind::Ejection(_)));
                let first = r.decisions[r.option_decision[e] as usize].first as usize;
                let expected: Vec<u32> = if info.channel == NONE {
                    Vec::new()
                } else {
                    (first..e).filter(|&x| p.resource_channel[r.options[x].resource as usize] == info.channel).map(|x| x as u32).collect()
                };
                let listed = &p.same_channel_earlier[p.same_channel_start[e] as usize..p.same_channel_start[e + 1] as usize];
                assert_eq!(listed, &expected[..], "{text}: option {e}");
                shared += listed.len();
            }
            // Duato's and NBC's adaptive and escape VCs share a channel within one decision.
            if text.contains("duato") || text.contains("nbc") {
                assert!(shared > 0, "{text}");
            }
        }
    }
}
