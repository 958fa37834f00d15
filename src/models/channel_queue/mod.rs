//! The project's own latency model, `channel-queue`: a prediction for every routing algorithm
//! with virtual channels and every traffic pattern (`docs/models/channel-queue.md`; "§N" below
//! is a section of that page).
//!
//! It generalises the papers' models channel by channel. Routes come from the simulator's own
//! routing rules ([`routes`]): every plan an algorithm can draw, followed hop by hop through
//! the candidates it offers. Every (channel, VC class) is a resource with Dally's occupancy
//! chain; a header meets an M/G/1 wait with Draper & Ghosh's second moment where every VC it
//! may take is busy, less the traffic of its own input; hold times are computed backwards from
//! the destination over the routers the worm spans (⌈M/B⌉), and adaptive algorithms split
//! among their candidates by how likely each is free ([`solve`]). The source queue is an
//! M/G/1 queue, the ejection port an M/D/1 server.
//!
//! At zero load the latency is exactly M plus the mean route length of the scenario's algorithm
//! and pattern, both legs of VAL and ROMM included.

pub mod queueing;
pub mod routes;
pub mod solve;

use super::{Evaluation, LatencyModel};
use crate::scenario::{RoutingKind, Scenario, Switching};
use routes::ResourceKind;
use serde::Serialize;
use solve::{Prepared, Solution};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// `slice[i]`, checked in debug builds only. The indices of a round's sweeps come from the
/// route graph the model built itself, never from input, so a bounds check can only catch a
/// bug in that construction; in the sweep over the followers of `solve`'s delays ahead alone
/// the checks were 6 % of the instructions of a DOR uniform report (callgrind). Debug builds,
/// which every `cargo test` runs, keep them (as the simulator's flat tables do).
#[inline(always)]
fn at<T: Copy>(slice: &[T], i: usize) -> T {
    if cfg!(debug_assertions) {
        slice[i]
    } else {
        // SAFETY: indices are in range by construction (above); debug builds check each one.
        unsafe { *slice.get_unchecked(i) }
    }
}

/// `slice[i] += x`, checked in debug builds only, as [`at`].
#[inline(always)]
fn add_at(slice: &mut [f64], i: usize, x: f64) {
    if cfg!(debug_assertions) {
        slice[i] += x;
    } else {
        // SAFETY: as for `at`.
        unsafe { *slice.get_unchecked_mut(i) += x }
    }
}

/// Solutions a curve's next start is extrapolated from: a quartic. With the hold times
/// extrapolated through their reciprocals ([`solve::Prepared::extrapolate`]), a fifth point cut
/// the time of every benchmark curve by 2–11 % (MIN AD uniform 103 → 95 ms), and a sixth lost
/// most of it again; with the hold times themselves, a fifth lost MIN AD's rounds under hot
/// spot.
const EXTRAPOLATION_POINTS: usize = 5;

/// Of the [`EXTRAPOLATION_POINTS`] solutions a rate's start is interpolated between, at most this
/// many below it, the rest the branch's next above: a start two points from either end of the
/// polynomial's span rather than at its end. Every adaptive benchmark curve took fewer rounds
/// than with four below and one above (MIN AD uniform 144 → 120, GOAL uniform 178 → 159, MIN AD
/// hot spot 216 → 194), most near the idle network, where four points above the one below
/// replace the line from the origin to the branch's first point.
const BETWEEN_BELOW: usize = 3;

/// Relative width to which the saturation rate is found (§6: 0.1 %): a branch's step that
/// fails is halved until it is this small a part of the rate.
pub const SATURATION_TOLERANCE: f64 = 1e-3;

/// A branch steps by at most 1/CONTINUATION_STEPS of the rate at which the zero-load split
/// fills its busiest channel: 1–5 % of the saturation rate on the 8×8 torus with M = 16, a step
/// the extrapolated start carries across.
const CONTINUATION_STEPS: f64 = 64.0;

/// Most bytes of solutions an adaptive algorithm's branch keeps beyond the last few: a point of
/// GOAL uniform on 8×8 takes 0.35 MB, one of NBC under a permutation on 16×16 3.7 MB
/// ([`solve::Solution::bytes`]). A push past it drops all but the solutions the next start needs, and the branch
/// keeps its points again from there; a rate below the points kept walks it again from the idle
/// network, as every rate once did.
const KEPT_BYTES: usize = 64 << 20;

/// The least distance, in longest steps, between two solutions an oblivious rate's start is
/// drawn through: two a hair apart would blow the polynomial through them up.
const JOIN_GAP: f64 = 1e-3;

/// Why the model does not describe a scenario, if it does not (§1).
pub fn assumptions_hold(s: &Scenario) -> Result<(), String> {
    if s.has_faults() {
        return Err("the channel-queue model routes on a torus whose every link works; faults (flinks, fnodes, frandom) are not covered".into());
    }
    if s.routing == RoutingKind::Chaos {
        return Err("the channel-queue model needs virtual channels; chaos deflects packets instead".into());
    }
    if s.switching == Switching::Scouting {
        return Err("the channel-queue model assumes wormhole switching; scouting switching has its paper's model".into());
    }
    if s.beta > 0.0 {
        return Err("the channel-queue model has unicast messages only; broadcasts (beta > 0) have their paper's model".into());
    }
    Ok(())
}

/// The channel-queue model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelQueue;

/// The model prepared for one scenario: routes built once, solved at any rate.
#[derive(Clone)]
pub struct Model {
    prepared: Rc<Prepared>,
    /// The saturation rate, once the branch has reached it.
    saturation: Rc<Cell<Option<f64>>>,
    /// The branch as far as it has been continued: its points do not depend on the rates asked
    /// for, so every later solve starts from them rather than walk the ~30 steps from the idle
    /// network again.
    branch: Rc<RefCell<Option<Branch>>>,
}

/// Scenarios whose models are kept: the page's compare mode asks for two scenarios' reports and
/// curves in turn, on one worker where it has one.
const MODELS_KEPT: usize = 2;

thread_local! {
    /// The last scenarios' models, the most recently asked for last. The page asks for the
    /// report, both curves and the predicted utilisation of a scenario in turn, and the CLI and
    /// validation solve one scenario at many rates: the routes (up to a second to build), the
    /// saturation rate and an adaptive algorithm's branch (up to a second to continue) depend
    /// on the scenario, not on its rate.
    static RECENT: RefCell<Vec<(String, Model)>> = const { RefCell::new(Vec::new()) };
}

impl Model {
    pub fn new(s: &Scenario) -> Result<Model, String> {
        assumptions_hold(s)?;
        let key = Scenario { rate: 0.0, ..s.clone() }.canonical();
        let kept = RECENT.with_borrow_mut(|recent| {
            let at = recent.iter().position(|(k, _)| *k == key)?;
            let entry = recent.remove(at);
            recent.push(entry);
            recent.last().map(|(_, model)| model.clone())
        });
        if let Some(model) = kept {
            return Ok(model);
        }
        let model = Model {
            prepared: Rc::new(Prepared::new(s)?),
            saturation: Rc::new(Cell::new(None)),
            branch: Rc::new(RefCell::new(None)),
        };
        RECENT.with_borrow_mut(|recent| {
            if recent.len() == MODELS_KEPT {
                recent.remove(0);
            }
            recent.push((key, model.clone()));
        });
        Ok(model)
    }

    /// Runs `work` on the branch, continued as far as any solve has taken it.
    fn on_branch<T>(&self, work: impl FnOnce(&mut Branch) -> T) -> T {
        let mut shared = self.branch.borrow_mut();
        work(shared.get_or_insert_with(|| Branch::new(self.prepared.clone())))
    }

    /// The solution at each rate in turn (`None` for one that is not a rate, or saturated): an
    /// adaptive algorithm's from the branch's own solutions; an oblivious algorithm's from the
    /// branch, continued to its end first, and the rates before it ([`ObliviousCurve`]).
    fn solve_each<T>(&self, rates: &[f64], mut each: impl FnMut(Option<Rc<Solution>>) -> T) -> Vec<T> {
        let valid = |rate: f64| rate >= 0.0 && rate.is_finite();
        self.on_branch(|branch| {
            if self.prepared.routes.adaptive {
                return rates.iter().map(|&rate| each(if valid(rate) { branch.solve(rate) } else { None })).collect();
            }
            branch.extend_past(1.0 / self.prepared.len);
            let mut curve = ObliviousCurve { branch, joined: Vec::new() };
            rates.iter().map(|&rate| each(if valid(rate) { curve.solve(rate) } else { None })).collect()
        })
    }

    /// The fixed point at `rate`, started from the branch continued from the idle network (§6).
    pub fn solve(&self, rate: f64) -> Option<Solution> {
        self.solve_each(&[rate], |s| s.map(Rc::unwrap_or_clone)).pop().flatten()
    }

    /// The latency at each rate, each as [`Model::solve`] gives it, on one branch.
    pub fn curve(&self, rates: &[f64]) -> Vec<Option<f64>> {
        self.solve_each(rates, |s| s.map(|s| s.latency))
    }

    /// The highest rate the branch continued from the idle network reaches, to 0.1 % (§6).
    pub fn saturation_rate(&self) -> f64 {
        if let Some(rate) = self.saturation.get() {
            return rate;
        }
        let hi = 1.0 / self.prepared.len;
        let rate = self.on_branch(|branch| if branch.extend_past(hi) { hi } else { branch.highest().rate });
        self.saturation.set(Some(rate));
        rate
    }

    /// How the routes were obtained: `exact`, or how many plans per pair were sampled.
    pub fn routes(&self) -> String {
        match self.prepared.routes.enumeration {
            routes::Enumeration::Exact => "exact".to_string(),
            routes::Enumeration::Sampled { per_pair } => format!("sampled, {per_pair} plans per pair"),
        }
    }

    /// Flits/cycle on every channel, in the simulator's channel order: λ_c · M.
    pub fn channel_utilisation(&self, solution: &Solution) -> Vec<f64> {
        let p = &self.prepared;
        let mut utilisation = vec![0.0; p.routes.channels as usize];
        for (r, res) in p.routes.resources.iter().enumerate() {
            if let Some(c) = res.channel() {
                utilisation[c as usize] += solution.resource_flow[r] * p.len;
            }
        }
        p.routes.per_torus_channel(utilisation)
    }

    /// The offered flits/cycle on every channel at `rate` with the zero-load split: above 1
    /// where a channel cannot carry it (what is shown past saturation).
    pub fn offered_utilisation(&self, rate: f64) -> Vec<f64> {
        let p = &self.prepared;
        let mut offered = vec![0.0; p.routes.channels as usize];
        for (r, res) in p.routes.resources.iter().enumerate() {
            if let Some(c) = res.channel() {
                offered[c as usize] += rate * p.routes.fixed.resource[r] * p.len;
            }
        }
        p.routes.per_torus_channel(offered)
    }

    /// The intermediate quantities of §7, by name: per hop (every routing decision,
    /// the one at the source and the ejection included, as the simulator counts them) the
    /// probability of waiting for a VC and the mean of that wait, the waits for the channel's
    /// flit slots and for the ejection port; the source wait; V̄ and P_v; the hottest channel.
    pub fn quantities(&self, solution: &Solution) -> BTreeMap<String, f64> {
        let p = &self.prepared;
        let r = &p.routes;
        let mut q = BTreeMap::new();
        let f = &solution.decision_flow;
        let decisions: f64 = f.iter().sum();
        let per_hop = |values: &[f64]| if decisions > 0.0 { f.iter().zip(values).map(|(f, v)| f * v).sum::<f64>() / decisions } else { 0.0 };
        let blocked = per_hop(&solution.block);
        q.insert("blocking_probability".to_string(), blocked);
        let blocked_waiting: Vec<f64> = solution.block.iter().zip(&solution.vc_wait).map(|(b, w)| b * w).collect();
        q.insert("W_c".to_string(), if blocked > 0.0 { per_hop(&blocked_waiting) / blocked } else { 0.0 });
        q.insert("channel_wait_per_hop".to_string(), per_hop(&solution.channel_wait));
        q.insert("ejection_wait".to_string(), per_hop(&solution.ejection_wait) * decisions / (solution.rate * p.nodes as f64).max(f64::MIN_POSITIVE));
        q.insert("delay_per_message".to_string(), solution.mean_delay);
        // The simulator's source wait runs until the header leaves the injection VC, so it
        // includes the delay at the source router.
        let at_source: f64 = r
            .decisions
            .iter()
            .enumerate()
            .filter(|(_, d)| matches!(r.resources[d.input as usize].kind, ResourceKind::Injection(_)))
            .map(|(d, _)| f[d] * solution.delay[d])
            .sum::<f64>()
            / (solution.rate * p.nodes as f64).max(f64::MIN_POSITIVE);
        q.insert("W_s".to_string(), solution.mean_source_wait + at_source);
        q.insert("source_queue_wait".to_string(), solution.mean_source_wait);
        q.insert("mean_hops".to_string(), solution.mean_hops);
        let degree = crate::models::shared::multiplexing_degree;
        let used: Vec<usize> = (0..p.channel_resources.len())
            .filter(|&c| p.channel_resources[c].iter().any(|&i| solution.resource_flow[i as usize] > 0.0))
            .collect();
        let channel_occupancy = solution.channel_occupancy(p);
        let degrees: Vec<f64> = used.iter().map(|&c| degree(&channel_occupancy[c])).collect();
        if !degrees.is_empty() {
            q.insert("V_bar_min".to_string(), degrees.iter().cloned().fold(f64::INFINITY, f64::min));
            q.insert("V_bar_max".to_string(), degrees.iter().cloned().fold(0.0, f64::max));
            q.insert("V_bar_mean".to_string(), degrees.iter().sum::<f64>() / degrees.len() as f64);
        }
        // P_v and V̄ over every channel-cycle, as the simulator counts them.
        let channels = p.channel_resources.len() as f64;
        let mut busy = vec![0.0; 1];
        for occupancy in &channel_occupancy {
            if busy.len() < occupancy.len() {
                busy.resize(occupancy.len(), 0.0);
            }
            for (v, x) in occupancy.iter().enumerate() {
                busy[v] += x / channels;
            }
        }
        for (v, x) in busy.iter().enumerate() {
            q.insert(format!("P_v[{v}]"), *x);
        }
        q.insert("V_bar".to_string(), degree(&busy));
        let utilisation = self.channel_utilisation(solution);
        // The first of the channels as hot as any, but for the order their flows were summed in:
        // the same channel whether or not the routes were folded.
        let most = utilisation.iter().copied().fold(0.0, f64::max);
        if let Some((hottest, &u)) = utilisation.iter().enumerate().find(|(_, &u)| u >= most * (1.0 - 1e-9)) {
            let resources = &p.channel_resources[r.channel_for(hottest)];
            let rate: f64 = resources.iter().map(|&i| solution.resource_flow[i as usize]).sum();
            let held: f64 = resources.iter().map(|&i| solution.resource_flow[i as usize] * solution.hold[i as usize]).sum();
            q.insert("hottest_channel".to_string(), hottest as f64);
            q.insert("hottest_lambda_c".to_string(), rate);
            q.insert("hottest_S_c".to_string(), if rate > 0.0 { held / rate } else { p.len + 1.0 });
            q.insert("hottest_utilisation".to_string(), u);
        }
        q.insert("rounds".to_string(), solution.rounds as f64);
        q
    }
}

/// The fixed points continued from the idle network to rising rates (§6). Near saturation an
/// adaptive split can have more than one fixed point, and a cold start at a high rate may find
/// none where the load, raised step by step, still has one: MIN AD under transpose on 8×8
/// saturated at 61 % of the rate the simulator carries from a cold start, at 98 % continued.
/// The branch's own rates do not depend on the rates asked for, so a rate gets the same
/// solution alone and within any curve.
struct Branch {
    prepared: Rc<Prepared>,
    /// The solution at rate 0, where the branch starts.
    origin: Rc<Solution>,
    /// The branch's solutions, at rising rates: all of them, within [`KEPT_BYTES`] (the branch is
    /// kept and shared, [`Model::on_branch`]), else the last, one more than a start is
    /// extrapolated from. Shared with the solves that return them, which would otherwise copy
    /// each: for an oblivious route's curve, a tenth of its time.
    points: Vec<Rc<Solution>>,
    /// The bytes of `points`' solutions, and the most it keeps them to ([`KEPT_BYTES`]).
    kept_bytes: usize,
    budget: usize,
    /// How many of the branch's solutions `points` no longer holds.
    dropped: usize,
    /// Whether the branch has ended: no fixed point a step of [`SATURATION_TOLERANCE`] of the
    /// rate above its highest.
    ended: bool,
    /// The longest step ([`Branch::longest_step`]).
    longest: f64,
    /// The next step: the longest, halved after each step that finds no fixed point and
    /// doubled back after each that finds one. Kept between calls, so that the branch's points
    /// do not depend on the rates it was asked to pass on the way.
    step: f64,
}

impl Branch {
    fn new(prepared: Rc<Prepared>) -> Branch {
        let origin = Rc::new(prepared.solve(0.0, None).expect("an idle network has a fixed point"));
        let longest = Branch::longest_step(&prepared);
        let kept_bytes = origin.bytes();
        Branch { prepared, points: vec![origin.clone()], kept_bytes, budget: KEPT_BYTES, origin, dropped: 0, ended: false, longest, step: longest }
    }

    /// The branch as it was before its first step.
    fn restart(&mut self) {
        self.points = vec![self.origin.clone()];
        self.kept_bytes = self.origin.bytes();
        self.dropped = 0;
        self.ended = false;
        self.step = self.longest;
    }

    fn highest(&self) -> &Solution {
        self.points.last().expect("a branch holds its origin until it passes a rate")
    }

    /// The branch's longest step: 1/[`CONTINUATION_STEPS`] of the rate at which the zero-load
    /// split (every decision's first option) fills its busiest channel.
    fn longest_step(prepared: &Prepared) -> f64 {
        let routes = &prepared.routes;
        let mut channel_flow = vec![0.0; routes.channels as usize];
        for (resource, flow) in routes.resources.iter().zip(&routes.fixed.resource) {
            if let Some(c) = resource.channel() {
                channel_flow[c as usize] += flow;
            }
        }
        let busiest = channel_flow.iter().copied().fold(0.0, f64::max);
        1.0 / (prepared.len * busiest.max(1.0 / routes.torus_nodes() as f64) * CONTINUATION_STEPS)
    }

    fn push(&mut self, solution: Rc<Solution>) {
        self.kept_bytes += solution.bytes();
        self.points.push(solution);
        while self.points.len() > EXTRAPOLATION_POINTS + 1 && self.kept_bytes > self.budget {
            self.kept_bytes -= self.points.remove(0).bytes();
            self.dropped += 1;
        }
    }

    /// Steps the branch up until it passes `rate` (`false` if it ends first): steps of at most
    /// [`Branch::longest_step`], a step that finds no fixed point halved, and the step after a
    /// success doubled back.
    fn extend_past(&mut self, rate: f64) -> bool {
        while self.highest().rate <= rate && !self.ended {
            let to = self.highest().rate + self.step;
            let below: Vec<&Solution> = self.points.iter().rev().take(EXTRAPOLATION_POINTS).map(Rc::as_ref).collect();
            match self.step_above(to, &below) {
                Some(solution) => {
                    self.push(Rc::new(solution));
                    self.step = (2.0 * self.step).min(self.longest);
                }
                None if self.step <= SATURATION_TOLERANCE * to => self.ended = true,
                None => self.step *= 0.5,
            }
        }
        self.highest().rate > rate
    }

    /// Steps the branch up until it holds `count` solutions above `rate`, or ends.
    fn extend_above(&mut self, rate: f64, count: usize) {
        while self.points.iter().rev().take_while(|p| p.rate > rate).count() < count && !self.ended {
            self.extend_past(self.highest().rate);
        }
    }

    /// The solution at `rate` of an adaptive algorithm, from the branch's solutions around it;
    /// `None` past the branch's end.
    fn solve(&mut self, rate: f64) -> Option<Rc<Solution>> {
        let kept_below = self.points.iter().filter(|p| p.rate <= rate).count();
        if kept_below < EXTRAPOLATION_POINTS && self.dropped > 0 {
            // Below the solutions kept: the branch again from its origin.
            self.restart();
        }
        if !self.extend_past(rate) && self.highest().rate < rate {
            return None;
        }
        // The points above that the start interpolates through: on a branch continued further
        // they are the same, so a rate gets the same start whatever came before.
        let below = self.points.iter().filter(|p| p.rate <= rate).count().min(BETWEEN_BELOW);
        self.extend_above(rate, EXTRAPOLATION_POINTS - below);
        let below: Vec<&Rc<Solution>> = self.points.iter().rev().filter(|p| p.rate <= rate).take(EXTRAPOLATION_POINTS).collect();
        if below[0].rate == rate {
            return Some(below[0].clone());
        }
        let below: Vec<&Solution> = below.into_iter().map(Rc::as_ref).collect();
        self.solve_between(rate, &below).or_else(|| self.solve_above(rate, &below)).or_else(|| self.approach(rate, below)).map(Rc::new)
    }

    /// The solution at `rate` started on the polynomial through the branch's solutions around
    /// it: up to [`BETWEEN_BELOW`] of `below` (nearest first) and the first above, as many as
    /// make [`EXTRAPOLATION_POINTS`]: interpolated, a closer start than one extrapolated from
    /// below. `None` when the branch has no solution above `rate`.
    fn solve_between(&self, rate: f64, below: &[&Solution]) -> Option<Solution> {
        let below = &below[..below.len().min(BETWEEN_BELOW)];
        let above = self.points.iter().filter(|p| p.rate > rate).take(EXTRAPOLATION_POINTS - below.len()).map(Rc::as_ref);
        let around: Vec<&Solution> = below.iter().copied().chain(above).collect();
        if around.len() == below.len() || around.len() < 2 {
            return None;
        }
        self.prepared.solve(rate, Some(&self.prepared.extrapolate(&around, rate)))
    }

    /// The solution at `rate` where one step from the branch finds none (near a fold of the
    /// split): steps from `below` towards it, halved where they fail, as the branch steps.
    fn approach(&self, rate: f64, below: Vec<&Solution>) -> Option<Solution> {
        let mut points: Vec<Solution> = below.into_iter().rev().cloned().collect();
        let mut step = 0.5 * (rate - points[points.len() - 1].rate);
        loop {
            let from = points[points.len() - 1].rate;
            let to = (from + step).min(rate);
            let near: Vec<&Solution> = points.iter().rev().take(EXTRAPOLATION_POINTS).collect();
            match self.step_above(to, &near) {
                Some(solution) if to == rate => return Some(solution),
                Some(solution) => {
                    points.push(solution);
                    step *= 2.0;
                }
                None if to - from <= SATURATION_TOLERANCE * to => return None,
                None => step = 0.5 * (to - from),
            }
        }
    }

    /// The solution at `rate` started on the polynomial through `below` (solutions at lower
    /// rates, nearest first), or from the nearest when there is only one. A step of the branch
    /// that fails is halved rather than retried from the nearest, which seldom finds what the
    /// polynomial did not and costs [`solve::MAX_ROUNDS`] rounds when it does not.
    fn step_above(&self, rate: f64, below: &[&Solution]) -> Option<Solution> {
        let start = if below.len() < 2 { below[0].start() } else { self.prepared.extrapolate(below, rate) };
        self.prepared.solve(rate, Some(&start))
    }

    /// [`Branch::step_above`], then from the nearest solution when the polynomial's start finds
    /// none: for a rate asked for, which has no smaller step to fall back on.
    fn solve_above(&self, rate: f64, below: &[&Solution]) -> Option<Solution> {
        self.step_above(rate, below).or_else(|| (below.len() >= 2).then(|| self.prepared.solve(rate, Some(&below[0].start()))).flatten())
    }
}

/// An oblivious algorithm's rates, solved in turn: one fixed point per rate, so each rate's start
/// is drawn through the solutions nearest below it, the curve's own rates among them (a curve's
/// points lie closer together than the branch's), and the branch's next above (continued to its
/// end, so the same whatever was asked before). Against the curve's points below alone, the
/// 100-point benchmark curves took 0.65–0.84 of the rounds (DOR uniform 168 → 124, DOR
/// transpose 170 → 111, RLB uniform 217 → 178); against the branch's points alone, DOR uniform
/// took 185 rounds, most of them near saturation, where the branch's steps are far apart.
struct ObliviousCurve<'a> {
    branch: &'a Branch,
    /// The curve's solutions so far, in order of rate (the last few).
    joined: Vec<Rc<Solution>>,
}

impl ObliviousCurve<'_> {
    /// The solution at `rate`; `None` past the branch's end.
    fn solve(&mut self, rate: f64) -> Option<Rc<Solution>> {
        let points = &self.branch.points;
        let above = points.partition_point(|p| p.rate < rate);
        let nearest_above = points.get(above)?.clone();
        if nearest_above.rate == rate {
            return Some(nearest_above);
        }
        // Where the branch no longer holds its points below (past its memory), the curve steps
        // up to the rate from the nearest it has, as the branch did.
        let below = loop {
            let below = self.below(rate, nearest_above.rate);
            if below[0].rate == rate {
                return Some(below[0].clone());
            }
            let to = below[0].rate + self.branch.longest;
            if to >= rate {
                break below;
            }
            let step = self.branch.step_above(to, &below.iter().map(Rc::as_ref).collect::<Vec<_>>());
            match step {
                Some(solution) => self.join(Rc::new(solution)),
                None => break below,
            }
        };
        let below: Vec<&Solution> = below.iter().map(Rc::as_ref).collect();
        let solution = Rc::new(self.branch.solve_between(rate, &below).or_else(|| self.branch.solve_above(rate, &below))?);
        self.join(solution.clone());
        Some(solution)
    }

    /// The solutions below `rate` a start is drawn through, nearest first: the curve's own, the
    /// branch's and its origin (which a branch past its memory no longer holds among its points),
    /// each a [`JOIN_GAP`] below the next nearer, the first a gap below `above`.
    fn below(&self, rate: f64, above: f64) -> Vec<Rc<Solution>> {
        let kept = &self.branch.points;
        let mut candidates: Vec<&Rc<Solution>> =
            self.joined.iter().chain(&kept[..kept.partition_point(|p| p.rate <= rate)]).chain([&self.branch.origin]).filter(|p| p.rate <= rate).collect();
        candidates.sort_by(|a, b| b.rate.total_cmp(&a.rate));
        let gap = JOIN_GAP * self.branch.longest;
        let mut below = Vec::with_capacity(EXTRAPOLATION_POINTS);
        let mut limit = above;
        for p in candidates {
            if p.rate == rate {
                return vec![p.clone()];
            }
            if limit - p.rate > gap {
                below.push(p.clone());
                limit = p.rate;
                if below.len() == EXTRAPOLATION_POINTS {
                    break;
                }
            }
        }
        below
    }

    /// Keeps `solution` among the curve's own, in order of rate, the last few.
    fn join(&mut self, solution: Rc<Solution>) {
        let at = self.joined.partition_point(|p| p.rate < solution.rate);
        self.joined.insert(at, solution);
        if self.joined.len() > 2 * EXTRAPOLATION_POINTS {
            self.joined.remove(0);
        }
    }
}

impl LatencyModel for ChannelQueue {
    fn name(&self) -> &'static str {
        "channel-queue"
    }

    fn describe(&self) -> &'static str {
        "the project's own model: every (channel, VC class) an M/G/1 server with Draper & Ghosh's \
         service times and Dally's VC chain, over the routes of the simulator's own routing rules; \
         any routing algorithm with virtual channels, any traffic pattern"
    }

    fn evaluate(&self, s: &Scenario, rate: f64) -> Evaluation {
        let Ok(model) = Model::new(s) else {
            return Evaluation::default();
        };
        match model.solve(rate) {
            Some(solution) => Evaluation { latency: Some(solution.latency), quantities: model.quantities(&solution) },
            None => Evaluation::default(),
        }
    }

    fn saturation_rate(&self, s: &Scenario) -> f64 {
        Model::new(s).map_or(0.0, |m| m.saturation_rate())
    }

    fn curve(&self, s: &Scenario, rates: &[f64]) -> Vec<Option<f64>> {
        match Model::new(s) {
            Ok(model) => model.curve(rates),
            Err(_) => vec![None; rates.len()],
        }
    }
}

/// What `torus model` reports of the channel-queue model (`channel_queue`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Report {
    /// Mean latency at the scenario's rate, cycles; `None` when saturated or not applicable.
    pub latency: Option<f64>,
    pub saturation_rate: Option<f64>,
    pub saturated: bool,
    #[serde(serialize_with = "super::in_index_order")]
    pub quantities: BTreeMap<String, f64>,
    /// Why the model does not apply (chaos, scouting, broadcasts).
    pub reason: Option<String>,
    /// Whether the routes were enumerated exactly or from sampled plans (large tori).
    pub routes: Option<String>,
    /// Where the scenario asks for what the model does not describe, and how it reads it (a
    /// router organisation other than `iq`, message lengths that vary), in one line; `None`
    /// where it describes the scenario as it is.
    pub assumption: Option<String>,
    /// Whether `reason` is only that the routes are past the page's first budget: the page then
    /// asks again with `torus model`'s ([`routes::with_full_state_budget`]). Never natively.
    pub past_page_budget: bool,
}



/// The predicted flits/cycle on every channel at the scenario's rate, in the simulator's channel
/// order: λ_c · M where the fixed point holds, the offered load at the zero-load split past
/// saturation, empty where the model does not apply.
pub fn predicted_utilisation(s: &Scenario) -> Vec<f64> {
    let Ok(model) = Model::new(s) else {
        return Vec::new();
    };
    match model.solve(s.rate) {
        Some(solution) => model.channel_utilisation(&solution),
        None => model.offered_utilisation(s.rate),
    }
}

/// The channel-queue report of a scenario and its predicted per-channel utilisation
/// (flits/cycle, the simulator's channel order; empty when the model does not apply; past
/// saturation, the offered load at the zero-load split).
pub fn report(s: &Scenario) -> (Report, Vec<f64>) {
    let model = match Model::new(s) {
        Ok(m) => m,
        Err(reason) => {
            let past_page_budget = routes::past_page_budget(&reason);
            return (Report { reason: Some(reason), past_page_budget, ..Report::default() }, Vec::new());
        }
    };
    let routes = Some(model.routes());
    let assumption = super::assumption(s);
    let saturation_rate = Some(model.saturation_rate());
    match model.solve(s.rate) {
        Some(solution) => {
            let utilisation = model.channel_utilisation(&solution);
            let report = Report {
                latency: Some(solution.latency),
                saturation_rate,
                saturated: false,
                quantities: model.quantities(&solution),
                reason: None,
                routes,
                assumption,
                past_page_budget: false,
            };
            (report, utilisation)
        }
        None => (Report { saturation_rate, saturated: true, routes, assumption, ..Report::default() }, model.offered_utilisation(s.rate)),
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::models;
    use crate::topology::Torus;

    fn scenario(text: &str) -> Scenario {
        Scenario::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Mean route lengths worked by hand. 4×4 torus, ring distances 0, 1, 2, 1 per dimension:
    /// - uniform, minimal: Σ over the 16 offsets of d_x + d_y = 2 · 4 · 4 = 32, over the 15
    ///   other nodes: 32/15;
    /// - uniform, RLB and GOAL: 2 D (k − D)/k per dimension = 0, 1.5, 2, 1.5, so 2 · 4 · 5 = 40
    ///   over 15: 40/15;
    /// - VAL: each leg goes to a node uniform over all 16 (the intermediate, then the
    ///   destination seen from it): 2 + 2 = 4 whatever the pattern;
    /// - tornado (x + 1): 1 hop minimal, 1.5 for RLB and GOAL (D = 1);
    /// - transpose: the 4 diagonal nodes send to themselves, the others ring distance D(y − x)
    ///   in both dimensions: 2 · 4 · 4 / 16 = 2.
    ///
    /// A 5-node ring, uniform: distances 1, 2, 2, 1, so 1.5; VAL 2 · 6/5 = 2.4. A 3×3×3 torus,
    /// uniform: 3 dimensions · 9 · 2 = 54 over 26 nodes.
    const ZERO_LOAD: [(&str, f64); 22] = [
        ("k=4&routing=dor&traffic=uniform", 32.0 / 15.0),
        ("k=4&routing=romm&traffic=uniform", 32.0 / 15.0),
        ("k=4&routing=minad&traffic=uniform", 32.0 / 15.0),
        ("k=4&routing=duato&traffic=uniform", 32.0 / 15.0),
        ("k=4&routing=adaptive&traffic=uniform", 32.0 / 15.0),
        ("k=4&routing=nbc&traffic=uniform", 32.0 / 15.0),
        ("k=4&routing=rlb&traffic=uniform", 40.0 / 15.0),
        ("k=4&routing=goal&traffic=uniform", 40.0 / 15.0),
        ("k=4&routing=val&traffic=uniform", 4.0),
        ("k=4&routing=val&traffic=tornado", 4.0),
        ("k=4&routing=val&traffic=transpose", 4.0),
        ("k=4&routing=dor&traffic=tornado", 1.0),
        ("k=4&routing=romm&traffic=tornado", 1.0),
        ("k=4&routing=minad&traffic=tornado", 1.0),
        ("k=4&routing=rlb&traffic=tornado", 1.5),
        ("k=4&routing=goal&traffic=tornado", 1.5),
        ("k=4&routing=dor&traffic=transpose", 2.0),
        ("k=4&routing=romm&traffic=transpose", 2.0),
        ("k=4&routing=duato&traffic=transpose", 2.0),
        ("k=5&n=1&routing=dor&traffic=uniform", 1.5),
        ("k=5&n=1&routing=val&traffic=uniform", 2.4),
        ("k=3&n=3&routing=dor&traffic=uniform", 54.0 / 26.0),
    ];

    #[test]
    fn at_zero_load_the_latency_is_the_message_length_plus_the_mean_route_length() {
        for (text, hops) in ZERO_LOAD {
            for len in [1, 16, 32] {
                let s = scenario(&format!("{text}&len={len}"));
                let latency = Model::new(&s).unwrap().solve(0.0).unwrap().latency;
                assert!((latency - (len as f64 + hops)).abs() < 1e-9, "{text}&len={len}: {latency} vs {}", len as f64 + hops);
            }
        }
    }

    #[test]
    fn latency_rises_with_the_rate_up_to_saturation_below_the_channel_load_bound() {
        for text in ["k=4&routing=dor&traffic=uniform", "k=4&routing=val&traffic=tornado", "k=4&routing=goal&traffic=transpose"] {
            let s = scenario(&format!("{text}&len=16"));
            let model = Model::new(&s).unwrap();
            let saturation = model.saturation_rate();
            let bound = models::bounds::bound(&s).saturation_rate.unwrap();
            assert!(saturation > 0.0 && saturation <= bound * (1.0 + 1e-9), "{text}: {saturation} vs bound {bound}");
            let rates: Vec<f64> = (1..=10).map(|i| saturation * i as f64 / 11.0).collect();
            let curve = model.curve(&rates);
            assert!(curve.windows(2).all(|w| w[0].unwrap() < w[1].unwrap()), "{text}: {curve:?}");
            assert!(model.solve(saturation * 1.05).is_none(), "{text}: past saturation");
            // A rate within a curve and alone: the same for adaptive routes, to the convergence
            // tolerance for oblivious ones (one fixed point, the rates asked for join the branch).
            for (rate, within) in rates.iter().zip(&curve) {
                let alone = model.solve(*rate).unwrap().latency;
                assert!((within.unwrap() - alone).abs() < 1e-4 * alone, "{text} at {rate}: {within:?} vs {alone}");
            }
        }
    }

    #[test]
    fn a_vc_is_busy_until_its_tail_has_crossed_so_one_flit_worms_can_fill_a_channel() {
        // DOR tornado on 4×4: every +x channel carries λ one-flit messages, one hop each, so
        // the channel-load bound is λ = 1. The simulator gives a VC to the next header from the
        // cycle after the tail crossed, so a channel carries a worm every cycle; reading the
        // hold until the tail leaves the buffer downstream (M + 1 = 2) as busy time capped it
        // at 0.5.
        let s = scenario("k=4&routing=dor&traffic=tornado&len=1");
        let bound = models::bounds::bound(&s).saturation_rate.unwrap();
        assert!((bound - 1.0).abs() < 1e-12, "{bound}");
        let model = Model::new(&s).unwrap();
        let saturation = model.saturation_rate();
        assert!(saturation > 0.95 * bound && saturation <= bound * (1.0 + 1e-9), "{saturation}");
        // The hold is still M + 1, and nothing waits: each message has its channel to itself
        // (the same-input exclusion), and only its source queue grows with the rate.
        let half = model.solve(0.5).unwrap();
        assert_eq!(model.quantities(&half)["hottest_S_c"], 2.0);
        assert!((half.latency - (2.0 + half.mean_source_wait)).abs() < 1e-12 && half.mean_source_wait > 0.0, "{}", half.latency);
    }

    #[test]
    fn a_rate_gets_the_same_solution_alone_and_within_any_curve_where_the_split_has_two() {
        // MIN AD under bit complement on 4×4 with one-flit messages, at the grid's fractions of
        // the simulated saturation rate (0.992) up to 70 %, and 78 %, below the model's own
        // (0.782): near saturation the adaptive split has more than one fixed point, and which
        // one a start reaches depends on the rates solved before it (from a curve's own
        // points, 6.19 or 12.4 cycles at 80 % before the split took an idle channel's chance as
        // part of its options being free). Started from the branch's own rates, a rate's
        // solution is the same whatever else is asked.
        // Each rate alone is solved on a model of its own, whose branch has been continued
        // only as far as that rate.
        let s = scenario("k=4&routing=minad&traffic=bitcomp&len=1");
        let model = Model::new(&s).unwrap();
        let rates: Vec<f64> = [0.1, 0.3, 0.5, 0.7, 0.78].iter().map(|f| f * 0.9921875).collect();
        let sparse = model.curve(&rates);
        let fine_rates: Vec<f64> = (1..=180).map(|i| i as f64 * 0.005).chain(rates.iter().copied()).collect();
        let fine = model.curve(&fine_rates);
        for (i, rate) in rates.iter().enumerate() {
            let alone = fresh(&s).solve(*rate).map(|s| s.latency);
            assert!(alone.is_some(), "at {rate}");
            assert_eq!(sparse[i], alone, "at {rate}");
            assert_eq!(fine[180 + i], alone, "at {rate}");
            assert_eq!(model.solve(*rate).map(|s| s.latency), alone, "at {rate}");
        }
    }

    /// A model of its own: routes prepared again, no branch continued yet.
    fn fresh(s: &Scenario) -> Model {
        Model {
            prepared: Rc::new(Prepared::new(s).unwrap()),
            saturation: Rc::new(Cell::new(None)),
            branch: Rc::new(RefCell::new(None)),
        }
    }

    #[test]
    fn an_adaptive_branch_is_continued_once_and_shared_by_every_later_solve() {
        // GOAL under transpose on 4×4: the saturation search continues the branch to its end;
        // a curve and single rates after it add no point to it, and give what a model that
        // continues its own branch for each of them gives.
        let s = scenario("k=4&routing=goal&traffic=transpose&len=16");
        let model = Model::new(&s).unwrap();
        let saturation = model.saturation_rate();
        let points = || model.branch.borrow().as_ref().map_or(0, |b| b.points.len());
        let walked = points();
        assert!(walked > 10, "the branch holds every point it passed: {walked}");
        let rates: Vec<f64> = (1..=20).map(|i| saturation * i as f64 / 21.0).collect();
        let curve = model.curve(&rates);
        assert_eq!(points(), walked, "a curve below the saturation rate continues nothing");
        assert_eq!(curve, fresh(&s).curve(&rates));
        for &rate in &rates[15..] {
            assert_eq!(model.solve(rate).map(|s| s.latency), fresh(&s).solve(rate).map(|s| s.latency), "at {rate}");
        }
        assert_eq!(points(), walked);
        // Below the branch's first step the start lies between the idle network and the four
        // points above, which a fresh model continues its branch to first.
        let low = 0.25 * Branch::longest_step(&model.prepared);
        assert_eq!(model.solve(low).map(|s| s.latency), fresh(&s).solve(low).map(|s| s.latency));
        assert_eq!(model.solve(saturation * 1.01).map(|s| s.latency), None, "past the branch's end");
    }

    #[test]
    fn an_oblivious_rate_is_solved_from_the_branch_walked_once_to_its_end() {
        // DOR under uniform traffic on 4×4: the first solve walks the branch to its end, the
        // saturation rate, and a curve or a rate after it adds no point. A rate alone starts
        // from the branch only, so any model gives it the same number whatever was asked before;
        // a curve's rates start from each other too, and reach the same fixed points to the
        // tolerance.
        let s = scenario("k=4&routing=dor&traffic=uniform&len=16");
        let low = 0.1 * models::bounds::bound(&s).saturation_rate.unwrap();
        let model = fresh(&s);
        let first = model.solve(low).map(|s| s.latency);
        let points = || model.branch.borrow().as_ref().map_or(0, |b| b.points.len());
        let walked = points();
        assert!(walked > 10, "the branch holds every point it passed: {walked}");
        let saturation = model.saturation_rate();
        let rates: Vec<f64> = (1..=20).map(|i| saturation * i as f64 / 21.0).collect();
        let curve = model.curve(&rates);
        assert_eq!(points(), walked, "the first solve walked the branch to its end");
        for (rate, within) in rates.iter().zip(&curve) {
            let alone = fresh(&s).solve(*rate).map(|s| s.latency).unwrap();
            assert_eq!(model.solve(*rate).map(|s| s.latency), Some(alone), "at {rate}");
            assert!(within.is_some_and(|l| (l - alone).abs() < 1e-5 * alone), "at {rate}: {within:?} vs {alone}");
        }
        assert_eq!(model.solve(low).map(|s| s.latency), first);
        assert_eq!(model.solve(saturation * 1.01).map(|s| s.latency), None, "past the branch's end");
        // A branch kept within no bytes holds its last few points only; a curve steps up to its
        // rates from the origin instead, to the same fixed points.
        let lean = fresh(&s);
        let mut branch = Branch::new(lean.prepared.clone());
        branch.budget = 0;
        *lean.branch.borrow_mut() = Some(branch);
        assert_eq!(lean.saturation_rate(), saturation);
        assert_eq!(lean.branch.borrow().as_ref().map(|b| b.points.len()), Some(EXTRAPOLATION_POINTS + 1));
        for (rate, kept) in rates.iter().zip(lean.curve(&rates).into_iter().zip(&curve)) {
            let (lean, kept) = (kept.0.unwrap(), kept.1.unwrap());
            assert!((lean - kept).abs() < 1e-5 * kept, "at {rate}: {lean} vs {kept}");
        }
    }

    #[test]
    fn a_branch_past_its_memory_keeps_its_last_points_and_walks_again_to_the_same_numbers() {
        // The same GOAL transpose branch kept within a budget of no bytes: only the solutions a
        // start needs stay, and a rate below them walks the branch again from the idle network.
        let s = scenario("k=4&routing=goal&traffic=transpose&len=16");
        let kept = fresh(&s);
        let lean = fresh(&s);
        let mut branch = Branch::new(lean.prepared.clone());
        branch.budget = 0;
        *lean.branch.borrow_mut() = Some(branch);
        let saturation = kept.saturation_rate();
        assert_eq!(lean.saturation_rate(), saturation);
        let points = |m: &Model| m.branch.borrow().as_ref().map_or(0, |b| b.points.len());
        assert_eq!(points(&lean), EXTRAPOLATION_POINTS + 1);
        assert!(points(&kept) > 2 * points(&lean));
        let rates: Vec<f64> = (1..=20).map(|i| saturation * i as f64 / 21.0).collect();
        assert_eq!(lean.curve(&rates), kept.curve(&rates));
        for &rate in rates.iter().rev().step_by(3) {
            assert_eq!(lean.solve(rate).map(|s| s.latency), kept.solve(rate).map(|s| s.latency), "at {rate}");
        }
    }

    #[test]
    fn a_rate_next_to_a_point_of_the_branch_does_not_end_an_oblivious_curve() {
        // RLB uniform on 4×4 at 10 % of the simulated saturation rate fell within a rounding
        // error of the branch's second step; joining the branch beside it made the cubic through
        // the two blow up, and every later rate of the curve came out saturated.
        let model = Model::new(&scenario("k=4&routing=dor&traffic=uniform&len=16")).unwrap();
        let step = Branch::longest_step(&model.prepared);
        let rates = [2.0 * step * (1.0 + 1e-15), 5.0 * step, 9.0 * step];
        for (rate, within) in rates.iter().zip(model.curve(&rates)) {
            let alone = model.solve(*rate).unwrap().latency;
            assert!(within.is_some_and(|l| (l - alone).abs() < 1e-4 * alone), "at {rate}: {within:?} vs {alone}");
        }
    }

    #[test]
    fn the_fixed_point_continued_from_the_idle_network_carries_minimal_adaptive_transpose() {
        // MIN AD under transpose on 8×8: started cold (the zero-load split, every header on its
        // first candidate) at a high rate, the split finds no fixed point above 0.0179, 43 % of
        // the channel-load bound; the simulator carries 0.0295 (71 %). Raised step by step, the
        // split follows the load and the branch reaches 0.0290.
        let s = scenario("k=8&routing=minad&traffic=transpose&len=16");
        let model = Model::new(&s).unwrap();
        let bound = models::bounds::bound(&s).saturation_rate.unwrap();
        let saturation = model.saturation_rate();
        assert!(saturation > 0.65 * bound && saturation <= bound, "{saturation} vs bound {bound}");
        let rate = 0.9 * saturation;
        assert!(model.prepared.solve(rate, None).is_none(), "a cold start at {rate}");
        let continued = model.solve(rate).unwrap();
        assert!(continued.latency > model.solve(0.5 * saturation).unwrap().latency, "{}", continued.latency);
    }

    #[test]
    fn a_scenario_gets_its_own_routes_whatever_was_solved_before() {
        // The last scenarios' routes are kept: switching scenarios and back gives the same
        // numbers as a first solve, and the rate alone does not make a new scenario.
        let dor = scenario("k=4&routing=dor&traffic=tornado&len=16&rate=0.01");
        let first = Model::new(&dor).unwrap().solve(0.01).unwrap().latency;
        let goal = Model::new(&scenario("k=4&routing=goal&traffic=tornado&len=16")).unwrap().solve(0.01).unwrap().latency;
        let uniform = Model::new(&scenario("k=4&routing=dor&traffic=uniform&len=16")).unwrap().solve(0.01).unwrap().latency;
        assert!(goal != first && uniform != first);
        let again = Model::new(&Scenario { rate: 0.02, ..dor.clone() }).unwrap();
        assert_eq!(again.solve(0.01).unwrap().latency, first);
        assert_eq!(again.saturation_rate(), fresh(&dor).saturation_rate());
    }

    #[test]
    fn two_scenarios_asked_in_turn_keep_their_models_and_a_third_evicts_the_older() {
        // Compare mode's two scenarios, asked for in turn, are each prepared once.
        let (a, b, c) = (
            scenario("k=4&routing=dor&traffic=tornado&len=16"),
            scenario("k=4&routing=goal&traffic=tornado&len=16"),
            scenario("k=4&routing=minad&traffic=uniform&len=16"),
        );
        let first_a = Model::new(&a).unwrap();
        let first_b = Model::new(&b).unwrap();
        assert!(Rc::ptr_eq(&Model::new(&a).unwrap().prepared, &first_a.prepared));
        assert!(Rc::ptr_eq(&Model::new(&b).unwrap().prepared, &first_b.prepared));
        // a was asked for before b: a third scenario takes a's place, and b stays.
        Model::new(&c).unwrap();
        assert!(Rc::ptr_eq(&Model::new(&b).unwrap().prepared, &first_b.prepared));
        assert!(!Rc::ptr_eq(&Model::new(&a).unwrap().prepared, &first_a.prepared));
    }

    #[test]
    fn predicted_utilisation_is_the_flow_of_each_channel_in_the_simulator_order() {
        // DOR tornado on 8×8 (§4): every +x channel carries 3λ messages, the others
        // nothing; λ M flits each.
        let s = scenario("k=8&routing=dor&traffic=tornado&len=16&rate=0.005");
        let utilisation = predicted_utilisation(&s);
        let t = Torus::new(8, 2);
        assert_eq!(utilisation.len(), t.channels() as usize);
        for (c, u) in utilisation.iter().enumerate() {
            let expected = if t.channel_port(c as u32) == 0 { 3.0 * 0.005 * 16.0 } else { 0.0 };
            assert!((u - expected).abs() < 1e-12, "channel {c}: {u}");
        }
        // Past saturation: the offered load, above 1 flit/cycle on the hottest channels.
        let past = predicted_utilisation(&Scenario { rate: 0.03, ..s });
        assert!(past.iter().cloned().fold(0.0, f64::max) > 1.0);
    }

    #[test]
    fn the_buffers_behind_a_blocked_header_shorten_its_source_queue_not_its_network_holds() {
        // Nearest-neighbour traffic on 8×8, M = 16: every message crosses one channel, then
        // waits at the ejection port of a node four neighbours send to. The injection VC is
        // held for that wait less what the B-flit buffer of the channel between can still
        // take, so the source wait falls as B grows, as the simulator's does (34.2, 30.1, 23.8
        // and 11.7 cycles for B = 2, 4, 8, 16); counting the wait in full kept it at 49.3
        // until ⌈M/B⌉ = 1 took the ejection port out of the window. The channel's own VC is
        // held for the whole wait at the router after it, whatever B.
        let at = |buf: u32| {
            let model = Model::new(&scenario(&format!("k=8&routing=dor&traffic=neighbor&len=16&buf={buf}"))).unwrap();
            let q = model.quantities(&model.solve(0.03418).unwrap());
            (q["W_s"], q["hottest_S_c"])
        };
        let [b2, b4, b8, b16] = [2, 4, 8, 16].map(at);
        assert!(b2.0 > b4.0 && b4.0 > b8.0 && b8.0 > b16.0, "{b2:?} {b4:?} {b8:?} {b16:?}");
        assert!(b2.0 < 45.0 && b8.0 < 30.0, "{b2:?} {b8:?}");
        assert!([b4, b8, b16].iter().all(|b| b.1 == b2.1), "{b2:?} {b4:?} {b8:?} {b16:?}");
    }

    #[test]
    fn the_report_names_the_model_or_says_why_it_does_not_apply() {
        let (report, utilisation) = super::report(&scenario("k=8&routing=goal&traffic=tornado&rate=0.005"));
        assert_eq!(report.reason, None);
        assert!(report.latency.unwrap() > 16.0 && !report.saturated);
        assert!(report.saturation_rate.unwrap() > 0.005);
        for key in ["blocking_probability", "W_c", "W_s", "V_bar_min", "V_bar_mean", "V_bar_max", "hottest_lambda_c", "hottest_S_c", "hottest_utilisation"] {
            assert!(report.quantities.contains_key(key), "{key}");
        }
        assert_eq!(utilisation.len(), 256);
        for (text, word) in [
            ("routing=chaos", "chaos"),
            ("routing=adaptive&switching=scouting&scout=3", "scouting"),
            ("routing=duato&vcs=4&beta=0.02", "broadcasts"),
            ("routing=dor&flinks=27x", "faults"),
        ] {
            let (cq, utilisation) = super::report(&scenario(text));
            assert!(cq.reason.as_deref().is_some_and(|r| r.contains(word)), "{text}: {cq:?}");
            assert!(cq.latency.is_none() && utilisation.is_empty());
        }
        let saturated = super::report(&scenario("k=8&routing=dor&traffic=tornado&rate=0.05")).0;
        assert!(saturated.saturated && saturated.latency.is_none() && saturated.reason.is_none());
    }
}
