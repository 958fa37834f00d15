//! Where messages go: the route distribution of §3, built from the simulator's own
//! routing rules.
//!
//! Every choice an algorithm makes when it plans a message is a draw ([`Draw`]); [`outcomes`]
//! runs the algorithm's own `plan` once for every sequence of draws and weighs each plan by its
//! probability. Each plan is then followed hop by hop with the algorithm's own `candidates`,
//! exactly as the simulator's routers ask for them. Nothing here knows how any algorithm
//! routes.
//!
//! The routes become a graph of *states*: a header at a router, arrived through a given input
//! resource, with a given plan. Where the header goes next is a *decision*: its input and the
//! candidate resources the algorithm offers, each with its priority. A resource is a (channel,
//! VC class) pair, where a class is the set of VCs a candidate may take; an injection VC; or an
//! ejection port. The queueing model works on decisions and resources only; the state graph
//! carries the flows, once for oblivious algorithms and at every round of the fixed point for
//! adaptive ones, whose split among candidates depends on the load.
//!
//! States are merged when they lead to the same future: same router, input and plan, except the
//! plan's dateline reference (`RoutePlan::start`), of which only the dateline bits
//! (`RoutePlan::wrapped`) are kept. A plan reads its start only through that dateline test, and
//! since a phase is monotone and shorter than a ring in every dimension, the bits at a router
//! decide every later one ([`tests::merged_states_give_the_flows_of_every_route_followed_alone`]
//! checks it for every algorithm).

use super::{add_at, at};
use crate::rng::{Draw, Rng, Stream};
use crate::routing::{self, Algorithm, Candidates, RoutePlan, Routing, EJECT};
use crate::scenario::Scenario;
use crate::topology::{Node, Torus};
use crate::traffic::Pattern;
use rustc_hash::FxHashMap as HashMap;
use std::cell::Cell;

mod mirror;

/// "No state": where a candidate ejects.
pub const NONE: u32 = u32::MAX;

/// Most hops followed, over every plan of every (source, destination) pair, before the exact
/// enumeration gives way to sampled plans ([`Enumeration`]): about a tenth of a second.
pub const HOP_BUDGET: usize = 3_000_000;
/// Most states the route graph of an adaptive algorithm may hold, as `torus model` builds it:
/// the largest graphs of the validation grid (§8) fit, every adaptive algorithm under uniform
/// traffic on 16 × 16, NBC's with 2.33 million states before merging (about 0.55 GB and 20 s).
pub const STATE_BUDGET: usize = 2_500_000;
/// Most states of the page's first answer. Its load sweep waits for that answer, and in the
/// page's worker a graph of 2 million states takes a minute: so the page first keeps to graphs
/// every 8 × 8 scenario fits in, and builds a larger one ([`with_full_state_budget`]) once the
/// sweep is done.
pub const PAGE_STATE_BUDGET: usize = 400_000;
/// What a reason given past [`PAGE_STATE_BUDGET`] adds, before [`STATE_BUDGET`]: that the page
/// goes further later.
const PAST_PAGE_BUDGET: &str = ", the page's budget while its load sweep runs; once the sweep is done it builds up to";

thread_local! {
    /// The budget graphs are built within: [`STATE_BUDGET`] natively; in the page's worker
    /// [`PAGE_STATE_BUDGET`], but within [`with_full_state_budget`].
    static BUDGET: Cell<usize> = const {
        Cell::new(if cfg!(target_arch = "wasm32") { PAGE_STATE_BUDGET } else { STATE_BUDGET })
    };
}

/// Runs `work` with route graphs of up to [`STATE_BUDGET`] states, as `torus model` builds them
/// (the page asks for this after its load sweep where its first answer was past its budget).
pub fn with_full_state_budget<T>(work: impl FnOnce() -> T) -> T {
    /// Puts the budget back however `work` ends.
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUDGET.set(self.0);
        }
    }
    let _restore = Restore(BUDGET.replace(STATE_BUDGET));
    work()
}

/// Whether `reason` (of [`Routes::new`]) is that the graph is past the page's budget, so that
/// [`with_full_state_budget`] may still build it.
pub fn past_page_budget(reason: &str) -> bool {
    reason.contains(PAST_PAGE_BUDGET)
}

/// Fewest plans drawn per (source, destination) pair when sampling.
pub const MIN_SAMPLES_PER_PAIR: usize = 2;

/// What a resource is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// The VCs `mask` of network channel `channel`.
    Network { channel: u32, mask: u32 },
    /// The injection VC of a node: one message at a time, from its source queue.
    Injection(Node),
    /// The ejection port of a node.
    Ejection(Node),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resource {
    pub kind: ResourceKind,
    /// VCs a header may take (1 for injection and ejection).
    pub vcs: u32,
}

impl Resource {
    pub fn channel(&self) -> Option<u32> {
        match self.kind {
            ResourceKind::Network { channel, .. } => Some(channel),
            _ => None,
        }
    }
}

/// One candidate of a decision: the resource a header may take and its priority (lower first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Choice {
    pub resource: u32,
    pub priority: u8,
}

/// A header at `router`, arrived through resource `input`, choosing among `options`
/// (the edges `first..first + len` of [`Routes::options`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub router: Node,
    pub input: u32,
    pub first: u32,
    pub len: u32,
}

/// How the plans were obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enumeration {
    /// Every outcome of every draw, with its probability: exact.
    Exact,
    /// As many plans per pair as the budgets allow, drawn with the simulator's generator (too
    /// many outcomes to list: VAL and RLB on large tori).
    Sampled { per_pair: usize },
}

/// Message flows at one message per node per cycle (they scale with λ).
#[derive(Clone, Debug, Default)]
pub struct Flows {
    /// Per decision: messages/cycle that make it.
    pub decision: Vec<f64>,
    /// Per option (edge): messages/cycle that take it.
    pub edge: Vec<f64>,
    /// Per follower entry: messages/cycle that took its edge and then make its decision.
    pub follower: Vec<f64>,
    /// Per resource: messages/cycle that take it.
    pub resource: Vec<f64>,
    /// Per transition (input resource, taken resource): messages/cycle.
    pub transition: Vec<f64>,
}

/// The states of the route graph, kept for algorithms whose split is part of the fixed point;
/// numbered so that every state comes after all the states that lead into it.
#[derive(Clone, Debug, Default)]
struct StateGraph {
    decision: Vec<u32>,
    /// Per state: the next state of each option (`NONE` for ejection), from `next_start[x]`.
    next_start: Vec<u32>,
    next: Vec<u32>,
    /// Per (state, option): the follower entry it feeds (`NONE` for ejection).
    follower_slot: Vec<u32>,
    /// What the sweep of [`Routes::flows_into`] reads, gathered once the graph is sorted: per
    /// state its decision, first option and number of options; per (state, option), in the
    /// order of `next`, the next state and the follower entry.
    sweep_state: Vec<(u32, u32, u32)>,
    sweep_next: Vec<(u32, u32)>,
    /// Messages/cycle entering at each state (at one message per node per cycle).
    entry: Vec<f64>,
}

/// What the resources of a route distribution number: the torus's nodes and channels, or,
/// folded ([`Routes::folded`]), one node and one channel of each set of mirror images.
struct Network {
    nodes: u32,
    channels: u32,
    mirrors: Option<Mirrors>,
}

impl Network {
    fn whole(t: &Torus) -> Network {
        Network { nodes: t.nodes(), channels: t.channels(), mirrors: None }
    }
}

/// How folded routes stand for the whole torus.
#[derive(Clone, Debug, PartialEq)]
pub struct Mirrors {
    /// The images of each node, the node itself included: 2^m for m mirrors.
    pub images: u32,
    /// Per channel of the torus: the channel of the folded routes that stands for it.
    pub channel: Vec<u32>,
}

/// The route distribution of a scenario: resources, decisions and their flows.
#[derive(Clone, Debug)]
pub struct Routes {
    /// The nodes and channels the resources number: the torus's, or one of each set of mirror
    /// images when folded.
    pub nodes: u32,
    pub channels: u32,
    /// How folded routes stand for the torus; `None` for the torus's own.
    pub mirrors: Option<Mirrors>,
    pub resources: Vec<Resource>,
    pub decisions: Vec<Decision>,
    pub options: Vec<Choice>,
    /// Per option (edge): the decision it belongs to.
    pub option_decision: Vec<u32>,
    /// Per option: its transition (input, resource) index.
    pub option_transition: Vec<u32>,
    /// Per transition: (input resource, taken resource).
    pub transitions: Vec<(u32, u32)>,
    /// Per edge e, the decisions made next, `followers[follower_start[e]..follower_start[e + 1]]`.
    pub follower_start: Vec<u32>,
    pub followers: Vec<u32>,
    /// Whether some decision offers more than one option: the split is then part of the fixed
    /// point and the flows are recomputed from the state graph.
    pub adaptive: bool,
    pub enumeration: Enumeration,
    /// The flows with every decision taking its first option, for oblivious routes the flows.
    pub fixed: Flows,
    graph: StateGraph,
}

/// A scripted source of draws that lists every outcome: run the planner, then [`Script::advance`]
/// to the next sequence of choices, depth first.
#[derive(Default)]
struct Script {
    /// (choice taken, number of choices, probability of the choice taken) per draw so far.
    path: Vec<(u32, u32, f64)>,
    /// For two-outcome draws: the probability of the first outcome, per draw (else NaN).
    first: Vec<f64>,
    at: usize,
}

impl Script {
    fn probability(&self) -> f64 {
        self.path.iter().map(|c| c.2).product()
    }

    /// The next sequence of choices; false when every one has been run.
    fn advance(&mut self) -> bool {
        self.at = 0;
        while let Some(&(taken, options, _)) = self.path.last() {
            if taken + 1 < options {
                let i = self.path.len() - 1;
                let p = if self.first[i].is_nan() { 1.0 / options as f64 } else { 1.0 - self.first[i] };
                self.path[i] = (taken + 1, options, p);
                return true;
            }
            self.path.pop();
            self.first.pop();
        }
        false
    }

    fn draw(&mut self, options: u32, first_probability: f64, p_first: f64) -> u32 {
        if self.at == self.path.len() {
            self.path.push((0, options, p_first));
            self.first.push(first_probability);
        }
        self.at += 1;
        self.path[self.at - 1].0
    }
}

impl Draw for Script {
    fn below(&mut self, n: u32) -> u32 {
        self.draw(n, f64::NAN, 1.0 / n as f64)
    }

    fn below_is_under(&mut self, n: u32, numerator: u32) -> bool {
        let p = numerator.min(n) as f64 / n as f64;
        if p == 0.0 || p == 1.0 {
            return p == 1.0;
        }
        self.draw(2, p, p) == 0
    }
}

/// Calls `visit(plan, probability)` for every outcome of `routing.plan` from `src` to `dest`;
/// stops early, returning false, once `budget` outcomes have been visited.
fn outcomes(routing: &Algorithm, t: &Torus, src: Node, dest: Node, budget: &mut usize, mut visit: impl FnMut(RoutePlan, f64)) -> bool {
    let mut script = Script::default();
    loop {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let plan = routing.plan(t, src, dest, &mut script);
        visit(plan, script.probability());
        if !script.advance() {
            return true;
        }
    }
}

/// The state key: router, input resource, and the plan with its dateline reference replaced by
/// the dateline bits at the router (module documentation).
fn state_key(t: &Torus, at: Node, input: u32, plan: &RoutePlan) -> (Node, u32, RoutePlan) {
    let mut start = [0u8; 3];
    for (d, bit) in start.iter_mut().enumerate().take(t.n as usize) {
        *bit = plan.wrapped(t, at, d as u32) as u8;
    }
    (at, input, RoutePlan { start, ..*plan })
}

/// Interns resources and decisions, and accumulates the follower pairs.
struct Interner {
    all_vcs: u32,
    resources: Vec<Resource>,
    resource_ids: HashMap<ResourceKind, u32>,
    decisions: Vec<Decision>,
    options: Vec<Choice>,
    decision_ids: HashMap<(u32, Vec<Choice>), u32>,
}

impl Interner {
    fn new(vcs: u32) -> Interner {
        Interner {
            all_vcs: routing::VcSets { vcs }.all(),
            resources: Vec::new(),
            resource_ids: HashMap::default(),
            decisions: Vec::new(),
            options: Vec::new(),
            decision_ids: HashMap::default(),
        }
    }

    fn resource(&mut self, kind: ResourceKind) -> u32 {
        if let Some(&id) = self.resource_ids.get(&kind) {
            return id;
        }
        let vcs = match kind {
            ResourceKind::Network { mask, .. } => (mask & self.all_vcs).count_ones().max(1),
            _ => 1,
        };
        let id = self.resources.len() as u32;
        self.resources.push(Resource { kind, vcs });
        self.resource_ids.insert(kind, id);
        id
    }

    /// The options the algorithm offers at `at` to a header arrived through `input` with
    /// `plan` (which the algorithm may update), as resources, with the next router of each.
    fn candidates(
        &mut self,
        t: &Torus,
        routing: &Algorithm,
        at: Node,
        plan: &mut RoutePlan,
        scratch: &mut Candidates,
    ) -> Vec<(Choice, Option<Node>)> {
        scratch.clear();
        routing.candidates(t, at, plan, scratch);
        scratch
            .as_slice()
            .iter()
            .map(|c| {
                if c.port == EJECT {
                    (Choice { resource: self.resource(ResourceKind::Ejection(at)), priority: c.priority }, None)
                } else {
                    let kind = ResourceKind::Network { channel: t.channel(at, c.port), mask: c.vcs };
                    (Choice { resource: self.resource(kind), priority: c.priority }, Some(t.neighbour(at, c.port)))
                }
            })
            .collect()
    }

    fn decision(&mut self, router: Node, input: u32, options: Vec<Choice>) -> u32 {
        let key = (input, options);
        if let Some(&id) = self.decision_ids.get(&key) {
            return id;
        }
        let id = self.decisions.len() as u32;
        let first = self.options.len() as u32;
        self.options.extend_from_slice(&key.1);
        self.decisions.push(Decision { router, input, first, len: key.1.len() as u32 });
        self.decision_ids.insert(key, id);
        id
    }
}

/// The plans of one (source, destination) pair with their probabilities: every outcome, or
/// `samples` drawn ones. `None` when listing them would pass `budget` plans.
fn plans_of(
    routing: &Algorithm,
    t: &Torus,
    src: Node,
    dest: Node,
    samples: Option<usize>,
    rng: &mut Rng,
    budget: &mut usize,
) -> Option<Vec<(RoutePlan, f64)>> {
    let mut plans = Vec::new();
    match samples {
        None => outcomes(routing, t, src, dest, budget, |plan, p| plans.push((plan, p))).then_some(plans),
        Some(n) => Some((0..n).map(|_| (routing.plan(t, src, dest, rng), 1.0 / n as f64)).collect()),
    }
}

/// Why an attempt stopped: the hops or states it would need, per plan, to estimate how many
/// plans per pair a sampled attempt can afford.
struct TooLarge {
    work_per_plan: f64,
}

/// Every route followed alone, one plan at a time, taking the first option where a decision
/// offers several (an oblivious algorithm offers one): only the flows of decisions and of
/// consecutive pairs of them are kept, not the states.
fn follow_each_route(
    s: &Scenario,
    t: &Torus,
    routing: &Algorithm,
    pattern: &Pattern,
    samples: Option<usize>,
) -> Result<(Interner, HashMap<u32, f64>, HashMap<(u32, u32), f64>), TooLarge> {
    let mut interner = Interner::new(s.vcs);
    let mut decision_flow: HashMap<u32, f64> = HashMap::default();
    let mut follower_flow: HashMap<(u32, u32), f64> = HashMap::default();
    let mut scratch = Candidates::default();
    let mut rng = Rng::new(s.seed, Stream::Routing);
    let (mut hops, mut plans_followed) = (0usize, 0usize);
    let mut plan_budget = usize::MAX;
    for src in 0..t.nodes() {
        let injection = interner.resource(ResourceKind::Injection(src));
        for (dest, share) in pattern.row(t, src) {
            let plans = plans_of(routing, t, src, dest, samples, &mut rng, &mut plan_budget).expect("no plan budget");
            for (mut plan, p) in plans {
                let weight = share * p;
                let (mut at, mut input, mut previous) = (src, injection, NONE);
                plans_followed += 1;
                loop {
                    let options = interner.candidates(t, routing, at, &mut plan, &mut scratch);
                    let (choice, next) = options[0];
                    let d = interner.decision(at, input, options.iter().map(|o| o.0).collect());
                    *decision_flow.entry(d).or_insert(0.0) += weight;
                    if previous != NONE {
                        *follower_flow.entry((previous, d)).or_insert(0.0) += weight;
                    }
                    hops += 1;
                    match next {
                        Some(node) => {
                            previous = interner.decisions[d as usize].first;
                            input = choice.resource;
                            at = node;
                        }
                        None => break,
                    }
                }
                if samples.is_none() && hops > HOP_BUDGET {
                    return Err(TooLarge { work_per_plan: hops as f64 / plans_followed as f64 });
                }
            }
        }
    }
    Ok((interner, decision_flow, follower_flow))
}

/// The route graph of an adaptive algorithm: states merged as the module documentation says,
/// each with its decision and the next state of each option.
struct GraphBuilder<'a> {
    t: &'a Torus,
    routing: &'a Algorithm,
    interner: Interner,
    state_ids: HashMap<(Node, u32, RoutePlan), u32>,
    plan: Vec<RoutePlan>,
    router: Vec<Node>,
    input: Vec<u32>,
    graph: StateGraph,
    pending: Vec<u32>,
    scratch: Candidates,
    /// Most states it may hold ([`STATE_BUDGET`] or [`PAGE_STATE_BUDGET`]).
    budget: usize,
}

impl<'a> GraphBuilder<'a> {
    fn state(&mut self, at: Node, input: u32, plan: RoutePlan) -> Result<u32, ()> {
        let key = state_key(self.t, at, input, &plan);
        if let Some(&id) = self.state_ids.get(&key) {
            return Ok(id);
        }
        if self.plan.len() >= self.budget {
            return Err(());
        }
        let id = self.plan.len() as u32;
        self.state_ids.insert(key, id);
        self.plan.push(plan);
        self.router.push(at);
        self.input.push(input);
        self.graph.decision.push(NONE);
        self.graph.next_start.push(NONE);
        self.graph.entry.push(0.0);
        self.pending.push(id);
        Ok(id)
    }

    fn expand(&mut self) -> Result<(), ()> {
        while let Some(x) = self.pending.pop() {
            let (at, input) = (self.router[x as usize], self.input[x as usize]);
            let mut plan = self.plan[x as usize];
            let options = self.interner.candidates(self.t, self.routing, at, &mut plan, &mut self.scratch);
            let mut next = Vec::with_capacity(options.len());
            for &(choice, node) in &options {
                next.push(match node {
                    Some(node) => self.state(node, choice.resource, plan)?,
                    None => NONE,
                });
            }
            self.graph.decision[x as usize] = self.interner.decision(at, input, options.iter().map(|o| o.0).collect());
            self.graph.next_start[x as usize] = self.graph.next.len() as u32;
            self.graph.next.extend(next);
        }
        Ok(())
    }
}

fn build_graph<'a>(
    s: &Scenario,
    t: &'a Torus,
    routing: &'a Algorithm,
    pattern: &Pattern,
    samples: Option<usize>,
    budget: usize,
) -> Result<GraphBuilder<'a>, TooLarge> {
    let mut b = GraphBuilder {
        t,
        routing,
        interner: Interner::new(s.vcs),
        state_ids: HashMap::default(),
        plan: Vec::new(),
        router: Vec::new(),
        input: Vec::new(),
        graph: StateGraph::default(),
        pending: Vec::new(),
        scratch: Candidates::default(),
        budget,
    };
    let mut rng = Rng::new(s.seed, Stream::Routing);
    let mut plan_budget = HOP_BUDGET;
    let mut plans_added = 0usize;
    let too_large = |b: &GraphBuilder, plans: usize| TooLarge { work_per_plan: b.plan.len() as f64 / plans.max(1) as f64 };
    for src in 0..t.nodes() {
        let injection = b.interner.resource(ResourceKind::Injection(src));
        for (dest, share) in pattern.row(t, src) {
            let Some(plans) = plans_of(routing, t, src, dest, samples, &mut rng, &mut plan_budget) else {
                return Err(too_large(&b, plans_added));
            };
            for (plan, p) in plans {
                plans_added += 1;
                let Ok(x) = b.state(src, injection, plan) else { return Err(too_large(&b, plans_added)) };
                b.graph.entry[x as usize] += share * p;
            }
            if b.expand().is_err() {
                return Err(too_large(&b, plans_added));
            }
        }
    }
    Ok(b)
}

/// Groups (edge, next decision) pairs by edge: the follower ranges and the slot of each pair.
fn group_followers(edges: usize, mut pairs: Vec<(u32, u32)>) -> (Vec<u32>, Vec<u32>, HashMap<(u32, u32), u32>) {
    pairs.sort_unstable();
    pairs.dedup();
    let mut start = vec![0u32; edges + 1];
    for &(e, _) in &pairs {
        start[e as usize + 1] += 1;
    }
    for e in 0..edges {
        start[e + 1] += start[e];
    }
    let slots = pairs.iter().enumerate().map(|(i, &p)| (p, i as u32)).collect();
    (start, pairs.iter().map(|p| p.1).collect(), slots)
}

/// The state graph renumbered so that every state comes after all the states that lead into it
/// (Kahn; routes never revisit a state): the flows then pass through it in one sweep over
/// consecutive memory, which is most of the time of a round for adaptive algorithms.
fn in_topological_order(graph: StateGraph, interner: &Interner) -> Option<StateGraph> {
    let states = graph.decision.len();
    let options = |x: usize| {
        let start = graph.next_start[x] as usize;
        &graph.next[start..start + interner.decisions[graph.decision[x] as usize].len as usize]
    };
    let mut indegree = vec![0u32; states];
    for &y in &graph.next {
        if y != NONE {
            indegree[y as usize] += 1;
        }
    }
    let mut order: Vec<u32> = (0..states as u32).filter(|&x| indegree[x as usize] == 0).collect();
    let mut head = 0;
    while head < order.len() {
        let x = order[head] as usize;
        head += 1;
        for &y in options(x) {
            if y != NONE {
                indegree[y as usize] -= 1;
                if indegree[y as usize] == 0 {
                    order.push(y);
                }
            }
        }
    }
    if order.len() < states {
        return None;
    }
    // Merge states with the same future: the same decision, and options leading to states
    // merged already (Kahn's order backwards reaches every state after those it leads to).
    let mut class = vec![NONE; states];
    let mut classes: HashMap<(u32, Vec<u32>), u32> = HashMap::default();
    let mut members: Vec<u32> = Vec::new();
    for &old in order.iter().rev() {
        let x = old as usize;
        let next: Vec<u32> = options(x).iter().map(|&y| if y == NONE { NONE } else { class[y as usize] }).collect();
        let fresh = classes.len() as u32;
        class[x] = *classes.entry((graph.decision[x], next)).or_insert(fresh);
        if class[x] == fresh {
            members.push(old);
        }
    }
    // Classes were numbered after those they lead to: reversed, before.
    let count = members.len();
    let renumbered = |c: u32| if c == NONE { NONE } else { count as u32 - 1 - c };
    let mut sorted = StateGraph { entry: vec![0.0; count], ..StateGraph::default() };
    for &old in members.iter().rev() {
        let x = old as usize;
        sorted.decision.push(graph.decision[x]);
        sorted.next_start.push(sorted.next.len() as u32);
        sorted.next.extend(options(x).iter().map(|&y| if y == NONE { NONE } else { renumbered(class[y as usize]) }));
    }
    for &old in &order {
        sorted.entry[renumbered(class[old as usize]) as usize] += graph.entry[old as usize];
    }
    Some(sorted)
}

impl Routes {
    /// The route distribution of a scenario: exact when the outcomes fit the budgets, else
    /// from sampled plans; an error when even those do not fit, or when the pattern is not
    /// defined for the scenario.
    pub fn new(s: &Scenario) -> Result<Routes, String> {
        Routes::within(s, BUDGET.get())
    }

    /// [`Routes::new`] with a route graph of at most `state_budget` states.
    fn within(s: &Scenario, state_budget: usize) -> Result<Routes, String> {
        let t = Torus::new(s.k, s.n);
        let pattern = Pattern::new(s, &t).map_err(|e| e.to_string())?;
        let routing = routing::build(s);
        let pairs: usize = (0..t.nodes()).map(|src| pattern.row(&t, src).len()).sum();
        let affordable = |work: &TooLarge, budget: usize| {
            (budget as f64 / (pairs as f64 * work.work_per_plan.max(1.0))) as usize
        };
        if s.routing.is_oblivious() {
            let (interner, decisions, followers, enumeration) = match follow_each_route(s, &t, &routing, &pattern, None) {
                Ok((i, d, f)) => (i, d, f, Enumeration::Exact),
                Err(work) => {
                    let per_pair = affordable(&work, HOP_BUDGET).max(MIN_SAMPLES_PER_PAIR);
                    let (i, d, f) = follow_each_route(s, &t, &routing, &pattern, Some(per_pair)).map_err(|_| "unreachable".to_string())?;
                    (i, d, f, Enumeration::Sampled { per_pair })
                }
            };
            return Ok(Routes::from_walks(Network::whole(&t), interner, decisions, followers, enumeration));
        }
        let further = if state_budget < STATE_BUDGET { format!("{PAST_PAGE_BUDGET} {STATE_BUDGET}, as the CLI's torus model does") } else { String::new() };
        let too_many = || format!("the routes of routing={} on this {}-node torus need more than {state_budget} route states{further}", s.routing, t.nodes());
        let (builder, enumeration) = match build_graph(s, &t, &routing, &pattern, None, state_budget) {
            Ok(b) => (b, Enumeration::Exact),
            Err(work) => {
                let per_pair = affordable(&work, state_budget);
                if per_pair < MIN_SAMPLES_PER_PAIR {
                    return Err(too_many());
                }
                let b = build_graph(s, &t, &routing, &pattern, Some(per_pair), state_budget).map_err(|_| too_many())?;
                (b, Enumeration::Sampled { per_pair })
            }
        };
        let graph = in_topological_order(builder.graph, &builder.interner).expect("routes never revisit a state");
        Ok(Routes::from_graph(Network::whole(&t), builder.interner, graph, enumeration))
    }

    fn assemble(network: Network, interner: Interner, follower_start: Vec<u32>, followers: Vec<u32>, enumeration: Enumeration, graph: StateGraph) -> Routes {
        let mut transition_ids: HashMap<(u32, u32), u32> = HashMap::default();
        let mut transitions = Vec::new();
        let edges = interner.options.len();
        let mut option_decision = vec![0u32; edges];
        let mut option_transition = vec![0u32; edges];
        for (id, d) in interner.decisions.iter().enumerate() {
            for e in d.first..d.first + d.len {
                let key = (d.input, interner.options[e as usize].resource);
                let next_id = transitions.len() as u32;
                let tr = *transition_ids.entry(key).or_insert(next_id);
                if tr == next_id {
                    transitions.push(key);
                }
                option_decision[e as usize] = id as u32;
                option_transition[e as usize] = tr;
            }
        }
        let adaptive = interner.decisions.iter().any(|d| d.len > 1);
        Routes {
            nodes: network.nodes,
            channels: network.channels,
            mirrors: network.mirrors,
            resources: interner.resources,
            decisions: interner.decisions,
            options: interner.options,
            option_decision,
            option_transition,
            transitions,
            follower_start,
            followers,
            adaptive,
            enumeration,
            fixed: Flows::default(),
            graph,
        }
    }

    fn from_walks(
        network: Network,
        interner: Interner,
        decision_flow: HashMap<u32, f64>,
        follower_flow: HashMap<(u32, u32), f64>,
        enumeration: Enumeration,
    ) -> Routes {
        let (start, followers, slots) = group_followers(interner.options.len(), follower_flow.keys().copied().collect());
        let mut routes = Routes::assemble(network, interner, start, followers, enumeration, StateGraph::default());
        let mut f = routes.zero_flows();
        for (&d, &flow) in &decision_flow {
            f.decision[d as usize] += flow;
        }
        for (&pair, &flow) in &follower_flow {
            f.follower[slots[&pair] as usize] += flow;
        }
        for (d, decision) in routes.decisions.iter().enumerate() {
            f.edge[decision.first as usize] = f.decision[d];
        }
        routes.totals(&mut f);
        routes.fixed = f;
        routes
    }

    /// The routes of a graph already in topological order ([`in_topological_order`]).
    fn from_graph(network: Network, interner: Interner, graph: StateGraph, enumeration: Enumeration) -> Routes {
        let states = graph.decision.len();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for x in 0..states {
            let d = interner.decisions[graph.decision[x] as usize];
            for i in 0..d.len {
                let y = graph.next[(graph.next_start[x] + i) as usize];
                if y != NONE {
                    pairs.push((d.first + i, graph.decision[y as usize]));
                }
            }
        }
        let (start, followers, slots) = group_followers(interner.options.len(), pairs);
        let mut graph = graph;
        graph.follower_slot = vec![NONE; graph.next.len()];
        for x in 0..states {
            let d = interner.decisions[graph.decision[x] as usize];
            for i in 0..d.len {
                let k = (graph.next_start[x] + i) as usize;
                let y = graph.next[k];
                if y != NONE {
                    graph.follower_slot[k] = slots[&(d.first + i, graph.decision[y as usize])];
                }
            }
        }
        graph.sweep_state = (0..states)
            .map(|x| {
                let d = interner.decisions[graph.decision[x] as usize];
                (graph.decision[x], d.first, d.len)
            })
            .collect();
        graph.sweep_next = graph.next.iter().zip(&graph.follower_slot).map(|(&y, &slot)| (y, slot)).collect();
        let mut routes = Routes::assemble(network, interner, start, followers, enumeration, graph);
        let first_option: Vec<f64> =
            routes.decisions.iter().flat_map(|d| (0..d.len).map(|i| if i == 0 { 1.0 } else { 0.0 })).collect();
        let mut f = routes.zero_flows();
        routes.flows_into(&first_option, &mut f, &mut Vec::new());
        routes.fixed = f;
        routes
    }

    fn zero_flows(&self) -> Flows {
        Flows {
            decision: vec![0.0; self.decisions.len()],
            edge: vec![0.0; self.options.len()],
            follower: vec![0.0; self.followers.len()],
            resource: vec![0.0; self.resources.len()],
            transition: vec![0.0; self.transitions.len()],
        }
    }

    /// Resource and transition flows from the edge flows.
    fn totals(&self, f: &mut Flows) {
        f.resource.iter_mut().for_each(|x| *x = 0.0);
        f.transition.iter_mut().for_each(|x| *x = 0.0);
        for (e, &flow) in f.edge.iter().enumerate() {
            f.resource[at(&self.options, e).resource as usize] += flow;
            f.transition[at(&self.option_transition, e) as usize] += flow;
        }
    }

    /// The flows of an adaptive algorithm when decision options are taken with probability
    /// `split` (per option; each decision's sum to 1), propagated through the state graph.
    /// `state` is scratch, the flow reaching each state.
    pub fn flows_into(&self, split: &[f64], f: &mut Flows, state: &mut Vec<f64>) {
        for v in [&mut f.decision, &mut f.follower] {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
        let g = &self.graph;
        state.clear();
        state.extend_from_slice(&g.entry);
        // Local slices: the sweep then keeps their bases in registers. The states' options lie
        // one after the other in `sweep_next`, in state order.
        let (decisions, edge, follower) = (&mut f.decision[..], &mut f.edge[..], &mut f.follower[..]);
        let sweep_next = &g.sweep_next[..];
        let mut start = 0;
        for (x, &(decision, first, len)) in g.sweep_state.iter().enumerate() {
            let (first, len) = (first as usize, len as usize);
            let flow = at(state, x);
            if flow != 0.0 {
                add_at(decisions, decision as usize, flow);
                for i in 0..len {
                    let taken = flow * at(split, first + i);
                    let (y, slot) = at(sweep_next, start + i);
                    if y != NONE {
                        add_at(state, y as usize, taken);
                        add_at(follower, slot as usize, taken);
                    }
                }
            }
            start += len;
        }
        // Every state of a decision splits alike: its edges' flows are the decision's, split.
        for (d, &flow) in decisions.iter().enumerate() {
            let decision = at(&self.decisions, d);
            for e in decision.first as usize..(decision.first + decision.len) as usize {
                edge[e] = flow * at(split, e);
            }
        }
        self.totals(f);
    }

    /// The torus's nodes: `nodes`, times the images of each when folded.
    pub fn torus_nodes(&self) -> u32 {
        self.nodes * self.mirrors.as_ref().map_or(1, |m| m.images)
    }

    /// Values per channel of the torus, in its channel order, from values per channel of these
    /// routes.
    pub fn per_torus_channel(&self, values: Vec<f64>) -> Vec<f64> {
        match &self.mirrors {
            None => values,
            Some(m) => m.channel.iter().map(|&c| values[c as usize]).collect(),
        }
    }

    /// The channel of these routes that stands for channel `torus_channel` of the torus.
    pub fn channel_for(&self, torus_channel: usize) -> usize {
        self.mirrors.as_ref().map_or(torus_channel, |m| m.channel[torus_channel] as usize)
    }

    /// States kept for the split (0 for oblivious routes).
    pub fn state_count(&self) -> usize {
        self.graph.decision.len()
    }

    /// The follower entries of edge `e`: the decisions made at the router it leads to.
    pub fn followers_of(&self, e: usize) -> std::ops::Range<usize> {
        self.follower_start[e] as usize..self.follower_start[e + 1] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::bounds;
    use crate::scenario::{RoutingKind, TrafficKind};

    /// Messages/cycle per channel of the torus, in its channel order, from `flows` per
    /// resource (at one message per node per cycle).
    pub(super) fn channel_loads(routes: &Routes, flows: &[f64]) -> Vec<f64> {
        let mut loads = vec![0.0; routes.channels as usize];
        for (r, res) in routes.resources.iter().enumerate() {
            if let Some(c) = res.channel() {
                loads[c as usize] += flows[r];
            }
        }
        routes.per_torus_channel(loads)
    }

    #[test]
    fn an_adaptive_route_graph_past_its_state_budget_says_so() {
        let s = Scenario::parse("k=8&routing=minad&traffic=uniform&len=16").unwrap();
        let routes = Routes::within(&s, STATE_BUDGET).unwrap();
        assert_eq!(routes.enumeration, Enumeration::Exact);
        let states = routes.state_count();
        assert!(states > 1000, "{states} states after merging");
        // One plan per pair: no sample of plans makes the graph smaller.
        let e = Routes::within(&s, 1000).unwrap_err();
        assert_eq!(e, "the routes of routing=minad on this 64-node torus need more than 1000 route states, the page's budget while its load sweep runs; once the sweep is done it builds up to 2500000, as the CLI's torus model does");
        assert!(past_page_budget(&e));
    }

    #[test]
    fn the_full_state_budget_holds_only_while_its_work_runs() {
        let s = Scenario::parse("k=8&routing=minad&traffic=uniform&len=16").unwrap();
        BUDGET.set(1000);
        assert!(past_page_budget(&Routes::new(&s).unwrap_err()));
        let states = with_full_state_budget(|| Routes::new(&s).unwrap().state_count());
        assert!(states > 1000, "{states} states");
        assert_eq!(BUDGET.get(), 1000, "the budget is put back");
        BUDGET.set(STATE_BUDGET);
    }

    #[test]
    fn oblivious_routes_load_the_channels_exactly_as_the_bounds_do() {
        // The loads of the channel-load bound (`docs/models/bounds.md` §4.1, their own enumeration of the routing
        // rules) against this module's (the routing algorithms' own plan and candidates).
        for (k, n) in [(4, 2), (5, 2), (6, 1), (3, 3)] {
            for routing in [RoutingKind::Dor, RoutingKind::Val, RoutingKind::Romm, RoutingKind::Rlb] {
                // RLB in 3-D draws one of 36 pairs of dimension orders: too many plans to list.
                if routing == RoutingKind::Rlb && n == 3 {
                    continue;
                }
                for traffic in [TrafficKind::Uniform, TrafficKind::Tornado, TrafficKind::Bitcomp, TrafficKind::Neighbor, TrafficKind::Transpose] {
                    let s = Scenario { k, n, routing, traffic, vcs: routing.min_vcs(n), ..Scenario::default() };
                    let routes = Routes::new(&s).unwrap();
                    assert_eq!(routes.enumeration, Enumeration::Exact);
                    assert!(!routes.adaptive, "{routing} offers one candidate per hop");
                    let t = Torus::new(k, n);
                    let exact = bounds::channel_loads(&t, routing, &Pattern::new(&s, &t).unwrap()).unwrap();
                    for (c, (ours, theirs)) in channel_loads(&routes, &routes.fixed.resource).iter().zip(&exact).enumerate() {
                        assert!((ours - theirs).abs() < 1e-9, "k={k} n={n} {routing} {traffic} channel {c}: {ours} vs {theirs}");
                    }
                }
            }
        }
    }

    #[test]
    fn merged_states_give_the_flows_of_every_route_followed_alone() {
        // Adaptive algorithms keep a graph of merged states; with every header taking its first
        // option, its flows must be those of each route followed on its own.
        for (k, n) in [(4, 2), (5, 2), (3, 3)] {
            for routing in [RoutingKind::Minad, RoutingKind::Goal, RoutingKind::Duato, RoutingKind::Adaptive, RoutingKind::Nbc] {
                if routing == RoutingKind::Nbc && k % 2 == 1 {
                    continue;
                }
                for traffic in [TrafficKind::Uniform, TrafficKind::Tornado, TrafficKind::Transpose] {
                    let s = Scenario { k, n, routing, traffic, vcs: Scenario { k, n, routing, ..Scenario::default() }.min_vcs(), ..Scenario::default() };
                    let routes = Routes::new(&s).unwrap();
                    // Tornado at k = 3 sends every node to itself: no hop, no choice.
                    let moves = !(k == 3 && traffic == TrafficKind::Tornado);
                    assert_eq!(routes.adaptive, moves, "k={k} n={n} {routing} {traffic}");
                    let t = Torus::new(k, n);
                    let routing_rules = routing::build(&s);
                    let (interner, decisions, _) = follow_each_route(&s, &t, &routing_rules, &Pattern::new(&s, &t).unwrap(), None).ok().unwrap();
                    let mut alone: HashMap<ResourceKind, f64> = HashMap::default();
                    for (&d, &flow) in &decisions {
                        let first = interner.options[interner.decisions[d as usize].first as usize];
                        *alone.entry(interner.resources[first.resource as usize].kind).or_insert(0.0) += flow;
                    }
                    for (r, res) in routes.resources.iter().enumerate() {
                        let expected = alone.get(&res.kind).copied().unwrap_or(0.0);
                        assert!((routes.fixed.resource[r] - expected).abs() < 1e-9, "k={k} n={n} {routing} {traffic} {:?}", res.kind);
                    }
                }
            }
        }
    }

    fn scenario(text: &str) -> Scenario {
        Scenario::parse(text).unwrap()
    }

    #[test]
    fn the_state_sweep_gives_the_flows_of_the_graph_followed_state_by_state() {
        // flows_into reads each state's row and options from arrays laid out for the sweep;
        // followed instead through the graph's own decision, next and follower entries, with
        // every decision splitting evenly, the flows must be the same.
        for text in ["k=4&routing=minad&traffic=uniform", "k=4&routing=goal&traffic=transpose", "k=4&routing=duato&traffic=tornado&vcs=5"] {
            let routes = Routes::new(&scenario(text)).unwrap();
            let g = &routes.graph;
            assert!(routes.adaptive && routes.state_count() > 0, "{text}");
            let split: Vec<f64> = routes.decisions.iter().flat_map(|d| (0..d.len).map(move |_| 1.0 / d.len as f64)).collect();
            let mut swept = routes.zero_flows();
            routes.flows_into(&split, &mut swept, &mut Vec::new());
            let mut state = g.entry.clone();
            let mut expected = routes.zero_flows();
            for x in 0..state.len() {
                let d = routes.decisions[g.decision[x] as usize];
                expected.decision[g.decision[x] as usize] += state[x];
                for i in 0..d.len as usize {
                    let e = d.first as usize + i;
                    let taken = state[x] * split[e];
                    expected.edge[e] += taken;
                    let k = g.next_start[x] as usize + i;
                    if g.next[k] != NONE {
                        state[g.next[k] as usize] += taken;
                        expected.follower[g.follower_slot[k] as usize] += taken;
                    }
                }
            }
            routes.totals(&mut expected);
            for (name, ours, theirs) in [
                ("decision", &swept.decision, &expected.decision),
                ("edge", &swept.edge, &expected.edge),
                ("follower", &swept.follower, &expected.follower),
                ("resource", &swept.resource, &expected.resource),
            ] {
                // The sweep sums each edge's flow once per decision, not once per state: the
                // same to rounding.
                assert_eq!(ours.len(), theirs.len(), "{text}: {name}");
                for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
                    assert!((a - b).abs() <= 1e-12 * b.abs().max(1e-3), "{text}: {name}[{i}] {a} against {b}");
                }
            }
            // Every message injected leaves at an ejection port.
            let ejected: f64 = routes.resources.iter().zip(&swept.resource).filter(|(r, _)| matches!(r.kind, ResourceKind::Ejection(_))).map(|(_, f)| f).sum();
            assert!((ejected - g.entry.iter().sum::<f64>()).abs() < 1e-9, "{text}: {ejected}");
        }
    }

    #[test]
    fn outcomes_list_every_plan_with_its_probability() {
        // RLB from (0,0) to (2,3) on 8×8: the quadrant weights of Singh et al. 2003 (30, 18, 10, 6 of 64),
        // each quadrant's box uniformly, and two dimension orders per phase.
        let t = Torus::new(8, 2);
        let routing = routing::build(&scenario("k=8&routing=rlb"));
        let mut quadrant = [0.0; 4];
        let mut count = 0;
        let mut total = 0.0;
        let mut budget = usize::MAX;
        assert!(outcomes(&routing, &t, 0, t.node_at(&[2, 3]), &mut budget, |plan, p| {
            quadrant[plan.minus as usize] += p;
            total += p;
            count += 1;
        }));
        assert!((total - 1.0).abs() < 1e-12);
        for (got, expected) in quadrant.iter().zip([30.0, 10.0, 18.0, 6.0]) {
            assert!((got - expected / 64.0).abs() < 1e-12, "{quadrant:?}");
        }
        // Boxes: (+,+) 3×4, (−,+) 7×4, (+,−) 3×6, (−,−) 7×6 nodes; 4 order pairs each.
        assert_eq!(count, 4 * (12 + 28 + 18 + 42));
        // VAL: one plan per intermediate node, ties split in two.
        let val = routing::build(&scenario("k=4&routing=val"));
        let t4 = Torus::new(4, 2);
        let mut plans = 0;
        let mut budget = usize::MAX;
        outcomes(&val, &t4, 0, 5, &mut budget, |_, _| plans += 1);
        // A tie (offset 2) in a dimension, on either leg, doubles the plans.
        let ties = |a: Node, b: Node| (0..2).filter(|&d| t4.offset(a, b, d) == 2).count() as u32;
        let expected: u32 = (0..16).map(|q| (1 << ties(0, q)) * (1 << ties(q, 5))).sum();
        assert_eq!(plans, expected);
    }
}
