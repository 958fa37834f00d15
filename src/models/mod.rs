//! Analytical models of the seed papers. Every model is a pure function of a [`Scenario`] and a
//! rate; none imports the simulator. Each has a page in `docs/models/` (index:
//! `docs/models/README.md`) with its equations, the readings chosen and its reference values.
//!
//! - [`quaglia_adaptive`]: seed 002, minimal fully adaptive wormhole routing (`routing=adaptive`).
//! - [`nbc`]: seed 000, Duato-Nbc fully adaptive routing (`routing=nbc`).
//! - [`scouting`]: seed 001, scouting switching with fully adaptive routing.
//! - [`broadcast`]: seed 003, unicast latency under a broadcast fraction β (`routing=duato`).
//! - [`bounds`]: seed 004's channel-load throughput bounds, for every algorithm and pattern.
//! - [`channel_queue`]: the project's own model (`docs/models/channel-queue.md`), for every
//!   routing algorithm with virtual channels and every pattern; the prediction wherever no
//!   paper's model applies.

pub mod bounds;
pub mod broadcast;
pub mod channel_queue;
pub mod nbc;
pub mod quaglia_adaptive;
pub mod scouting;
pub mod shared;

use crate::scenario::Scenario;
use serde::Serialize;
use std::collections::BTreeMap;

/// A model's prediction at one rate.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Evaluation {
    /// Mean message latency in cycles, or `None` when the model says the network is saturated
    /// at this rate (or its fixed point does not converge).
    pub latency: Option<f64>,
    /// Intermediate quantities by name (for example `P_v[1]`, `W_c`, `W_s`, `V_bar`,
    /// `blocking_per_hop`), so the simulator's measured counterparts can be set beside them.
    #[serde(serialize_with = "in_index_order")]
    pub quantities: BTreeMap<String, f64>,
}

/// Writes named quantities in alphabetical order of their names, indexed ones (`P_v[2]`) in
/// numeric order of their index: `P_v[2]` before `P_v[10]`, which a map of names sorts after.
pub fn in_index_order<S: serde::Serializer>(quantities: &BTreeMap<String, f64>, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut names: Vec<&String> = quantities.keys().collect();
    names.sort_by_key(|name| index_order(name));
    let mut map = serializer.serialize_map(Some(names.len()))?;
    for name in names {
        map.serialize_entry(name, &quantities[name])?;
    }
    map.end()
}

/// A quantity's name split into its stem and its index (`P_v[10]` → (`P_v`, 10)), for sorting.
fn index_order(name: &str) -> (&str, Option<u64>) {
    match name.strip_suffix(']').and_then(|n| n.rsplit_once('[')) {
        Some((stem, index)) if index.parse::<u64>().is_ok() => (stem, index.parse().ok()),
        _ => (name, None),
    }
}

/// A latency model of one seed paper.
pub trait LatencyModel {
    /// Short name, for example `"nbc"` or `"quaglia-adaptive"`.
    fn name(&self) -> &'static str;
    /// Which paper and what it assumes, in one sentence (shown in the page and the CLI).
    fn describe(&self) -> &'static str;
    /// Mean latency and intermediate quantities at `rate` messages/node/cycle (the scenario's
    /// own `rate` is ignored).
    fn evaluate(&self, s: &Scenario, rate: f64) -> Evaluation;
    /// Highest rate at which [`LatencyModel::evaluate`] still gives a finite latency.
    fn saturation_rate(&self, s: &Scenario) -> f64 {
        saturation_by_bisection(|rate| self.evaluate(s, rate).latency.is_some(), s)
    }
    /// The latency at each rate (`None` where saturated).
    fn curve(&self, s: &Scenario, rates: &[f64]) -> Vec<Option<f64>> {
        rates.iter().map(|&r| self.evaluate(s, r).latency).collect()
    }
}

/// Bisection on the rate for the edge of the region where `finite(rate)` holds, searched
/// between 0 and the rate at which the scenario's offered load reaches one flit/node/cycle.
pub fn saturation_by_bisection(finite: impl Fn(f64) -> bool, s: &Scenario) -> f64 {
    let mut lo = 0.0;
    let mut hi = 1.0 / s.len as f64;
    if finite(hi) {
        return hi;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if finite(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The edge of the region where `finite(rate)` holds inside `(lo, hi)`, by bisection until
/// the bracket is narrower than `relative_width · hi`; returns the finite side.
pub fn bisect_edge(mut lo: f64, mut hi: f64, relative_width: f64, finite: impl Fn(f64) -> bool) -> f64 {
    while hi - lo > relative_width * hi {
        let mid = 0.5 * (lo + hi);
        if finite(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A paper's model on a network with router and link delays: each paper's hop takes one cycle,
/// so the delays enter its zero-load term only, as the uniform pattern's mean distance to the
/// other N − 1 nodes times `ldelay` + `rdelay`. Its waiting times are the one-cycle hop's.
struct Delayed {
    model: Box<dyn LatencyModel>,
}

impl LatencyModel for Delayed {
    fn name(&self) -> &'static str {
        self.model.name()
    }
    fn describe(&self) -> &'static str {
        self.model.describe()
    }
    fn evaluate(&self, s: &Scenario, rate: f64) -> Evaluation {
        let mut e = self.model.evaluate(s, rate);
        let term = uniform_mean_distance(s) * (s.link_delay + s.router_delay) as f64;
        e.latency = e.latency.map(|latency| latency + term);
        e.quantities.insert("hop_delay_term".into(), term);
        e
    }
    fn saturation_rate(&self, s: &Scenario) -> f64 {
        self.model.saturation_rate(s)
    }
}

/// D̄, the mean minimal distance from a node to the other N − 1 nodes of the k-ary n-cube.
pub fn uniform_mean_distance(s: &Scenario) -> f64 {
    let k = s.k as f64;
    // Per dimension: the mean ring distance over all k offsets, ⌊k/2⌋⌈k/2⌉/k.
    let per_dimension = (s.k / 2) as f64 * s.k.div_ceil(2) as f64 / k;
    let nodes = s.nodes() as f64;
    s.n as f64 * per_dimension * nodes / (nodes - 1.0)
}

/// How every model treats `rdelay`, `ldelay` and `cdelay`.
pub fn delays_note(s: &Scenario) -> String {
    if !s.has_delays() {
        return "one cycle per hop, as the models assume".into();
    }
    let mut note = format!(
        "{} cycles per hop (rdelay={}, ldelay={}): the latency models add mean hops × {} to their zero-load term only; \
         their waiting times assume one-cycle hops (channels held longer by the delays wait more than they count)",
        s.hop_cycles(),
        s.router_delay,
        s.link_delay,
        s.link_delay + s.router_delay
    );
    if s.buf < s.credit_round_trip() {
        note.push_str(&format!(
            "; buf={} is shorter than the credit round trip of {} cycles, which lowers throughput and lengthens \
             latency in ways no model counts",
            s.buf,
            s.credit_round_trip()
        ));
    }
    note.push_str("; the channel-load bound does not depend on delays");
    note
}

/// The paper's model that describes a scenario, or why none does.
pub fn paper_model(s: &Scenario) -> Result<Box<dyn LatencyModel>, String> {
    let model = undelayed_paper_model(s)?;
    if s.has_delays() {
        Ok(Box::new(Delayed { model }))
    } else {
        Ok(model)
    }
}

fn undelayed_paper_model(s: &Scenario) -> Result<Box<dyn LatencyModel>, String> {
    use crate::scenario::{RoutingKind, Switching};
    fn boxed<M: LatencyModel + 'static>(m: M) -> Box<dyn LatencyModel> {
        Box::new(m)
    }
    if s.has_faults() {
        return Err("no analytical model covers faulty links or nodes (flinks, fnodes, frandom): every model, and the \
                    channel-load bound, assumes that every link works"
            .into());
    }
    if s.switching == Switching::Scouting {
        return scouting::assumptions_hold(s).map(|_| boxed(scouting::ScoutingModel::default()));
    }
    match s.routing {
        RoutingKind::Nbc => nbc::assumptions_hold(s).map(|_| boxed(nbc::Nbc::default())),
        RoutingKind::Adaptive => quaglia_adaptive::assumptions_hold(s).map(|_| boxed(quaglia_adaptive::QuagliaAdaptive)),
        RoutingKind::Duato => broadcast::assumptions_hold(s).map(|_| boxed(broadcast::BroadcastModel::default())),
        other => Err(format!(
            "no latency model of the papers describes routing={other}; the channel-load bound still applies"
        )),
    }
}

/// The latency model shown for a scenario: its paper's model where one applies, else the
/// channel-queue model; or why neither does.
pub fn applicable(s: &Scenario) -> Result<Box<dyn LatencyModel>, String> {
    paper_model(s).or_else(|paper| match channel_queue::assumptions_hold(s) {
        Ok(()) => Ok(Box::new(channel_queue::ChannelQueue) as Box<dyn LatencyModel>),
        Err(own) => Err(format!("{paper}; {own}")),
    })
}

/// What `torus model` prints: the applicable model at the scenario's rate, its saturation
/// rate and intermediate quantities, the channel-queue model beside it (which applies to every
/// algorithm with virtual channels and every pattern), and the channel-load bound (which
/// applies to every algorithm and pattern).
#[derive(Clone, Debug, Serialize)]
pub struct ModelReport {
    pub scenario: String,
    pub rate: f64,
    /// Name of the applicable model (the paper's model where one applies, else `channel-queue`),
    /// or `None`.
    pub model: Option<&'static str>,
    pub description: Option<&'static str>,
    /// Why no model applies.
    pub reason: Option<String>,
    /// Mean latency in cycles; `None` when saturated or when no model applies.
    pub latency: Option<f64>,
    pub saturated: bool,
    pub saturation_rate: Option<f64>,
    #[serde(serialize_with = "in_index_order")]
    pub quantities: BTreeMap<String, f64>,
    pub bound_saturation_fraction_of_capacity: Option<f64>,
    pub bound_saturation_rate: Option<f64>,
    pub bound: bounds::Bound,
    /// The channel-queue model at the scenario's rate, or why it does not apply.
    pub channel_queue: channel_queue::Report,
    /// Its predicted flits/cycle on every channel, in the order of the simulator's
    /// `channel_utilisation`; empty where it does not apply.
    pub channel_utilisation_predicted: Vec<f64>,
    /// How the models read the scenario's message lengths ([`message_lengths_note`]).
    pub message_lengths: String,
    /// How the models read the router, link and credit delays ([`delays_note`]).
    pub delays: String,
    /// How the models read the scenario's router organisation ([`router_note`]).
    pub router_organisation: String,
    /// What the latency models read as something else than the scenario says ([`assumption`]),
    /// where a model applies.
    pub assumption: Option<String>,
    /// How the models read the scenario's arrival process ([`injection_note`]).
    pub injection: String,
}

/// How every model treats `lengths=`: the papers' latency models assume messages of a fixed
/// length M and are given the mean length `len` for it, so with lengths that vary they describe
/// a network of fixed-length messages carrying the same flits; the channel-load bound depends on
/// the flits offered alone, λ·M̄, and holds as it is.
pub fn message_lengths_note(s: &Scenario) -> String {
    if s.lengths.is_fixed() {
        format!("every message {} flits, as the models assume", s.len)
    } else {
        format!(
            "lengths {} with mean {} flits: the latency models assume fixed lengths and take every message to be {} flits \
             (the spread of lengths adds waiting they do not count); the bound depends only on the mean",
            s.lengths, s.len, s.len
        )
    }
}

/// How every model treats `router=`: the latency models, the papers' and the channel-queue
/// model, describe the input-queued router (FIFO VC buffers, an age-ordered maximal switch
/// allocation moving one flit per port per cycle, one injection channel and one ejection port
/// per node); with another organisation their numbers are still that router's. The channel-load
/// bound counts flits per network channel, which no organisation changes.
pub fn router_note(s: &Scenario) -> String {
    if s.router.is_iq() {
        "the input-queued router (router=iq), as the models assume".to_string()
    } else {
        format!(
            "router={}: the latency models describe the input-queued router (router=iq: FIFO VC buffers, one flit per switch \
             port per cycle, one injection channel and one ejection port per node) and predict its latency, not this \
             organisation's; the bound counts channel loads and holds as it is",
            s.router
        )
    }
}

/// The scenario keys every latency model, the papers' and the channel-queue model, reads as
/// something else than what they say, in one line: each describes the input-queued router,
/// messages of one length and Poisson arrivals (`None` where the scenario asks for nothing else).
pub fn assumption(s: &Scenario) -> Option<String> {
    let mut parts = Vec::new();
    if !s.router.is_iq() {
        parts.push(format!(
            "describes the input-queued router (router=iq: FIFO VC buffers, one flit per switch port per cycle, one injection \
             channel and one ejection port per node), not router={}",
            s.router
        ));
    }
    if !s.lengths.is_fixed() {
        parts.push(format!(
            "takes every message to be the mean {} flits, not lengths={} (their spread adds waiting it does not count)",
            s.len, s.lengths
        ));
    }
    if s.inject != crate::scenario::Injection::Poisson {
        parts.push(format!("feeds its queues with Poisson arrivals, not inject={}", s.inject));
    }
    (!parts.is_empty()).then(|| format!("the model {}; its prediction is that network's latency", parts.join("; it ")))
}

/// How every model treats `inject=`: their queues are M/G/1 or M/M/1, fed by Poisson arrivals,
/// so under another arrival process they predict the waiting of Poisson traffic at the same
/// rate; the channel-load bound depends on the rate alone and holds as it is.
pub fn injection_note(s: &Scenario) -> String {
    match s.inject {
        crate::scenario::Injection::Poisson => "Poisson arrivals, as the models assume".into(),
        crate::scenario::Injection::Bernoulli => "Bernoulli arrivals (at most one a cycle): the latency models assume Poisson arrivals, \
             slightly more variable, so they overstate the waiting a little; the bound depends only on the rate"
            .into(),
        other => format!(
            "bursty arrivals ({other}): the latency models assume Poisson arrivals and leave out the queueing of bursts, \
             so they understate the latency; the bound depends only on the rate"
        ),
    }
}

pub fn report(s: &Scenario) -> ModelReport {
    let bound = bounds::bound(s);
    let (own, utilisation) = channel_queue::report(s);
    let (model, description, reason, latency, saturation_rate, quantities) = match paper_model(s) {
        Ok(m) => {
            let e = m.evaluate(s, s.rate);
            (Some(m.name()), Some(m.describe()), None, e.latency, Some(m.saturation_rate(s)), e.quantities)
        }
        Err(paper) => match &own.reason {
            None => {
                let cq = channel_queue::ChannelQueue;
                (Some(cq.name()), Some(cq.describe()), None, own.latency, own.saturation_rate, own.quantities.clone())
            }
            Some(why) => (None, None, Some(format!("{paper}; {why}")), None, None, BTreeMap::new()),
        },
    };
    ModelReport {
        scenario: s.canonical(),
        rate: s.rate,
        model,
        description,
        reason,
        saturated: model.is_some() && latency.is_none(),
        latency,
        saturation_rate,
        quantities,
        bound_saturation_fraction_of_capacity: bound.fraction_of_capacity,
        bound_saturation_rate: bound.saturation_rate,
        bound,
        channel_queue: own,
        channel_utilisation_predicted: utilisation,
        message_lengths: message_lengths_note(s),
        delays: delays_note(s),
        router_organisation: router_note(s),
        assumption: model.and_then(|_| assumption(s)),
        injection: injection_note(s),
    }
}

/// The applicable model's latency at each rate (`None` where saturated or where no model
/// applies): the paper's model's where one applies, else the channel-queue model's.
pub fn curve(s: &Scenario, rates: &[f64]) -> Vec<Option<f64>> {
    match applicable(s) {
        Ok(m) => m.curve(s, rates),
        Err(_) => vec![None; rates.len()],
    }
}

/// The channel-queue model's latency at each rate, whatever paper's model applies (`None` where
/// saturated or where it does not apply).
pub fn channel_queue_curve(s: &Scenario, rates: &[f64]) -> Vec<Option<f64>> {
    channel_queue::ChannelQueue.curve(s, rates)
}

/// The applicable model's curve and the channel-queue model's, for drawing both.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curves {
    /// As [`curve`].
    pub curve: Vec<Option<f64>>,
    /// As [`channel_queue_curve`]; the same as `curve` where no paper's model applies.
    pub channel_queue_curve: Vec<Option<f64>>,
}

/// Both curves at `rates`, the channel-queue model evaluated once when it is the applicable one.
pub fn curves(s: &Scenario, rates: &[f64]) -> Curves {
    let channel_queue_curve = channel_queue_curve(s, rates);
    let curve = match paper_model(s) {
        Ok(m) => m.curve(s, rates),
        Err(_) => channel_queue_curve.clone(),
    };
    Curves { curve, channel_queue_curve }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uniform_mean_distance_counts_the_other_nodes() {
        // 8×8: 256 hops to the 63 others; a 5-ring: 1 + 1 + 2 + 2 = 6 hops to 4 others.
        let on = |k, n| uniform_mean_distance(&Scenario { k, n, ..Scenario::default() });
        assert!((on(8, 2) - 256.0 / 63.0).abs() < 1e-12);
        assert!((on(5, 1) - 1.5).abs() < 1e-12);
    }

    /// The delays add D̄ · (ldelay + rdelay) to every model's zero-load latency, which the
    /// simulator measures exactly (tests/zero_load.rs).
    #[test]
    fn delays_add_mean_hops_times_the_extra_hop_cycles_at_zero_load() {
        for scenario in ["k=8&routing=adaptive&vcs=4", "k=8&routing=nbc", "k=8&routing=duato&vcs=3", "k=8&routing=dor"] {
            let plain = Scenario::parse(scenario).unwrap();
            let delayed = Scenario::parse(&format!("{scenario}&rdelay=3&ldelay=2&cdelay=1&buf=8")).unwrap();
            let extra = 5.0 * 256.0 / 63.0;
            let at_zero = |s: &Scenario| applicable(s).unwrap().evaluate(s, 1e-9).latency.unwrap();
            assert!((at_zero(&delayed) - at_zero(&plain) - extra).abs() < 1e-6, "{scenario}: {} vs {}", at_zero(&delayed), at_zero(&plain));
            let cq = |s: &Scenario| channel_queue::ChannelQueue.evaluate(s, 1e-9).latency.unwrap();
            assert!((cq(&delayed) - cq(&plain) - extra).abs() < 1e-6, "{scenario}: channel-queue");
            assert!((cq(&delayed) - 16.0 - 6.0 * 256.0 / 63.0).abs() < 1e-3, "{scenario}: channel-queue {}", cq(&delayed));
            assert!(delays_note(&delayed).contains("zero-load term only"));
            assert!(delays_note(&Scenario::parse(&format!("{scenario}&ldelay=2")).unwrap()).contains("shorter than the credit round trip"));
        }
    }

    /// The channel-queue model reads a pattern's rows whole: on an idle network it gives M plus
    /// the mean hops of the bit permutations' own pairs (a node sent to itself takes none).
    #[test]
    fn the_channel_queue_model_follows_the_bit_permutations() {
        use crate::topology::Torus;
        use crate::traffic::Pattern;
        for traffic in ["bitrev", "shuffle"] {
            let s = Scenario::parse(&format!("k=4&routing=dor&traffic={traffic}&len=8")).unwrap();
            let t = Torus::new(4, 2);
            let Pattern::Fixed(dest) = Pattern::new(&s, &t).unwrap() else { panic!("{traffic} is a permutation") };
            let hops = (0..16).map(|u| t.distance(u, dest[u as usize])).sum::<u32>() as f64 / 16.0;
            let latency = channel_queue::ChannelQueue.evaluate(&s, 1e-9).latency.unwrap();
            assert!((latency - 8.0 - hops).abs() < 1e-3, "{traffic}: {latency} against 8 + {hops}");
        }
    }
}
