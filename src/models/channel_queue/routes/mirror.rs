//! Routes folded by the torus's mirror symmetries.
//!
//! Reflecting a dimension, x_d → k − 1 − x_d, maps the torus onto itself, and each direction's
//! wrap-around channels (its dateline) onto the other direction's. A reflection of some
//! dimensions at once may also map the routes onto themselves: every resource onto a resource,
//! every decision onto one with the mirrored input and the mirrored options in the same order,
//! every state onto one with the mirrored future, all with the same flows. Then a round of the
//! fixed point maps a mirror-symmetric start to a mirror-symmetric result, so every node's and
//! channel's quantities equal their images'. Every algorithm splits ties of exactly k/2 evenly,
//! so uniform traffic and bit complement are mirror-symmetric in every dimension. Tornado, which
//! moves in the + direction of the first dimension only, is mirror-symmetric in the others. NBC's
//! classes follow the parity of a node's coordinates, which only an even number of reflected
//! dimensions keeps.
//!
//! The folded routes keep one of each set of images, and a round costs 1/2^m of the torus's
//! for m independent mirrors. With k even no node is its own image under any combination of
//! mirrors, so every set has 2^m members, and the flows come out as each member's own: a route
//! into an image of a node is, mirrored, a route into the node itself. With k odd the routes
//! are left whole.

use super::*;
use crate::topology::port_dim;

/// One mirror, as it maps the routes: the image of every node, channel, resource, decision
/// and state.
struct Mirror {
    node: Vec<u32>,
    channel: Vec<u32>,
    resource: Vec<u32>,
    decision: Vec<u32>,
    state: Vec<u32>,
}

/// Flows equal but for the order they were summed in.
fn same_flow(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// Whether mapping twice gives back every element, as a reflection must.
fn is_involution(map: &[u32]) -> bool {
    map.iter().enumerate().all(|(x, &y)| map[y as usize] == x as u32)
}

impl Mirror {
    /// The reflection of every dimension in `dims` (bit d for dimension d) at once, if it maps
    /// `routes` onto themselves.
    fn of(routes: &Routes, t: &Torus, dims: u32) -> Option<Mirror> {
        let reflected = |d: u32| dims & (1 << d) != 0;
        let node: Vec<u32> = (0..t.nodes())
            .map(|u| (0..t.n).filter(|&d| reflected(d)).fold(u, |u, d| t.with_coordinate(u, d, t.k - 1 - t.coordinate(u, d))))
            .collect();
        let channel: Vec<u32> = (0..t.channels())
            .map(|c| {
                let port = t.channel_port(c);
                t.channel(node[t.channel_source(c) as usize], if reflected(port_dim(port)) { port ^ 1 } else { port })
            })
            .collect();
        let resource_ids: HashMap<ResourceKind, u32> = routes.resources.iter().enumerate().map(|(r, res)| (res.kind, r as u32)).collect();
        let resource = routes
            .resources
            .iter()
            .map(|res| {
                let image = match res.kind {
                    ResourceKind::Network { channel: c, mask } => ResourceKind::Network { channel: channel[c as usize], mask },
                    ResourceKind::Injection(u) => ResourceKind::Injection(node[u as usize]),
                    ResourceKind::Ejection(u) => ResourceKind::Ejection(node[u as usize]),
                };
                resource_ids.get(&image).copied()
            })
            .collect::<Option<Vec<u32>>>()?;
        let options_of = |d: &Decision| &routes.options[d.first as usize..(d.first + d.len) as usize];
        let decision_ids: HashMap<(u32, &[Choice]), u32> =
            routes.decisions.iter().enumerate().map(|(i, d)| ((d.input, options_of(d)), i as u32)).collect();
        let decision = routes
            .decisions
            .iter()
            .map(|d| {
                let options: Vec<Choice> = options_of(d).iter().map(|o| Choice { resource: resource[o.resource as usize], ..*o }).collect();
                decision_ids.get(&(resource[d.input as usize], &options[..])).copied()
            })
            .collect::<Option<Vec<u32>>>()?;
        let f = &routes.fixed;
        for (d, dec) in routes.decisions.iter().enumerate() {
            let image = routes.decisions[decision[d] as usize];
            if !same_flow(f.decision[d], f.decision[decision[d] as usize]) {
                return None;
            }
            // The decisions after each option, mirrored: those after the image's same option.
            for i in 0..dec.len {
                let mut ours: Vec<(u32, f64)> =
                    routes.followers_of((dec.first + i) as usize).map(|j| (decision[routes.followers[j] as usize], f.follower[j])).collect();
                let mut theirs: Vec<(u32, f64)> =
                    routes.followers_of((image.first + i) as usize).map(|j| (routes.followers[j], f.follower[j])).collect();
                ours.sort_by_key(|p| p.0);
                theirs.sort_by_key(|p| p.0);
                if ours.len() != theirs.len() || ours.iter().zip(&theirs).any(|(a, b)| a.0 != b.0 || !same_flow(a.1, b.1)) {
                    return None;
                }
            }
        }
        let g = &routes.graph;
        let next_of = |x: usize| &g.next[g.next_start[x] as usize..][..routes.decisions[g.decision[x] as usize].len as usize];
        let state_ids: HashMap<(u32, &[u32]), u32> = (0..g.decision.len()).map(|x| ((g.decision[x], next_of(x)), x as u32)).collect();
        let mut state = vec![NONE; g.decision.len()];
        // Backwards: a state's image is found from its decision's and its next states' images.
        for x in (0..g.decision.len()).rev() {
            let next: Vec<u32> = next_of(x).iter().map(|&y| if y == NONE { NONE } else { state[y as usize] }).collect();
            state[x] = *state_ids.get(&(decision[g.decision[x] as usize], &next[..]))?;
            if !same_flow(g.entry[x], g.entry[state[x] as usize]) {
                return None;
            }
        }
        if !(is_involution(&resource) && is_involution(&decision) && is_involution(&state)) {
            return None;
        }
        Some(Mirror { node, channel, resource, decision, state })
    }
}

/// The sets of images of one kind of element under every combination of the mirrors: each
/// element's set (`class`), numbered in the order of their least members (`members`).
struct Classes {
    class: Vec<u32>,
    members: Vec<u32>,
}

impl Classes {
    /// `None` when some element is its own image under a combination of mirrors.
    fn of(maps: &[&[u32]]) -> Option<Classes> {
        let count = maps.first().map_or(0, |m| m.len());
        let mut least = vec![0u32; count];
        let mut images = Vec::with_capacity(1 << maps.len());
        for (x, least) in least.iter_mut().enumerate() {
            images.clear();
            images.push(x as u32);
            for map in maps {
                for i in 0..images.len() {
                    images.push(map[images[i] as usize]);
                }
            }
            images.sort_unstable();
            if images.windows(2).any(|w| w[0] == w[1]) {
                return None;
            }
            *least = images[0];
        }
        let members: Vec<u32> = (0..count as u32).filter(|&x| least[x as usize] == x).collect();
        let mut number = vec![NONE; count];
        for (i, &x) in members.iter().enumerate() {
            number[x as usize] = i as u32;
        }
        Some(Classes { class: least.iter().map(|&l| number[l as usize]).collect(), members })
    }
}

impl Routes {
    /// These routes folded by every mirror of the torus that maps them onto themselves (the
    /// module's documentation); the routes themselves where none does, where k is odd, or where
    /// the plans were sampled (their draws are not mirror-symmetric).
    pub fn folded(self, t: &Torus) -> Routes {
        if t.k % 2 == 1 || self.enumeration != Enumeration::Exact {
            return self;
        }
        // Independent mirrors, each dimension alone first: NBC's classes follow the parity of a
        // node's coordinates, which a reflection keeps only in an even number of dimensions.
        let mut candidates: Vec<u32> = (1..1 << t.n).collect();
        candidates.sort_by_key(|dims| dims.count_ones());
        let mut mirrors: Vec<Mirror> = Vec::new();
        let mut generated = vec![0u32];
        for dims in candidates {
            if generated.contains(&dims) {
                continue;
            }
            if let Some(mirror) = Mirror::of(&self, t, dims) {
                mirrors.push(mirror);
                generated = generated.iter().flat_map(|&g| [g, g ^ dims]).collect();
            }
        }
        if mirrors.is_empty() {
            return self;
        }
        self.fold(&mirrors).unwrap_or(self)
    }

    fn fold(&self, mirrors: &[Mirror]) -> Option<Routes> {
        let classes = |pick: fn(&Mirror) -> &[u32]| Classes::of(&mirrors.iter().map(pick).collect::<Vec<_>>());
        let nodes = classes(|m| &m.node)?;
        let channels = classes(|m| &m.channel)?;
        let resources = classes(|m| &m.resource)?;
        let decisions = classes(|m| &m.decision)?;
        let states = classes(|m| &m.state)?;
        let mut interner = Interner {
            all_vcs: 0,
            resources: Vec::new(),
            resource_ids: HashMap::default(),
            decisions: Vec::new(),
            options: Vec::new(),
            decision_ids: HashMap::default(),
        };
        for &r in &resources.members {
            let res = self.resources[r as usize];
            let kind = match res.kind {
                ResourceKind::Network { channel, mask } => ResourceKind::Network { channel: channels.class[channel as usize], mask },
                ResourceKind::Injection(u) => ResourceKind::Injection(nodes.class[u as usize]),
                ResourceKind::Ejection(u) => ResourceKind::Ejection(nodes.class[u as usize]),
            };
            interner.resource_ids.insert(kind, interner.resources.len() as u32);
            interner.resources.push(Resource { kind, ..res });
        }
        for &d in &decisions.members {
            let dec = self.decisions[d as usize];
            let options = self.options[dec.first as usize..(dec.first + dec.len) as usize]
                .iter()
                .map(|o| Choice { resource: resources.class[o.resource as usize], ..*o })
                .collect();
            if interner.decision(nodes.class[dec.router as usize], resources.class[dec.input as usize], options) != decisions.class[d as usize] {
                return None;
            }
        }
        if interner.resource_ids.len() != interner.resources.len() {
            return None;
        }
        let network = Network {
            nodes: nodes.members.len() as u32,
            channels: channels.members.len() as u32,
            mirrors: Some(Mirrors { images: 1 << mirrors.len(), channel: channels.class }),
        };
        let g = &self.graph;
        if g.decision.is_empty() {
            let f = &self.fixed;
            let decision_flow = decisions.members.iter().map(|&d| (decisions.class[d as usize], f.decision[d as usize])).collect();
            let mut follower_flow = HashMap::default();
            for &d in &decisions.members {
                let (dec, first) = (self.decisions[d as usize], interner.decisions[decisions.class[d as usize] as usize].first);
                for i in 0..dec.len {
                    for j in self.followers_of((dec.first + i) as usize) {
                        let pair = (first + i, decisions.class[self.followers[j] as usize]);
                        if follower_flow.insert(pair, f.follower[j]).is_some() {
                            return None;
                        }
                    }
                }
            }
            return Some(Routes::from_walks(network, interner, decision_flow, follower_flow, self.enumeration));
        }
        let mut graph = StateGraph::default();
        for &x in &states.members {
            let x = x as usize;
            let next = &g.next[g.next_start[x] as usize..][..self.decisions[g.decision[x] as usize].len as usize];
            graph.decision.push(decisions.class[g.decision[x] as usize]);
            graph.next_start.push(graph.next.len() as u32);
            graph.next.extend(next.iter().map(|&y| if y == NONE { NONE } else { states.class[y as usize] }));
            graph.entry.push(g.entry[x]);
        }
        let graph = in_topological_order(graph, &interner)?;
        Some(Routes::from_graph(network, interner, graph, self.enumeration))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::channel_loads;
    use super::*;
    use crate::scenario::{RoutingKind, TrafficKind};

    #[test]
    fn folded_routes_load_every_channel_of_the_torus_as_the_whole_routes_do() {
        // Uniform traffic and bit complement are mirror-symmetric in every dimension; tornado, which
        // moves along the first dimension only, in every other; transpose, which reverses the
        // coordinates, where the first and the last are reflected together; a permutation drawn
        // at random and the hot spot in none. NBC's classes allow only an even number of
        // dimensions reflected. With k odd (5) a mirror fixes the middle nodes: nothing is folded.
        for (k, n) in [(4, 2), (6, 2), (4, 3), (5, 2)] {
            for routing in [RoutingKind::Dor, RoutingKind::Val, RoutingKind::Romm, RoutingKind::Minad, RoutingKind::Goal, RoutingKind::Duato, RoutingKind::Adaptive, RoutingKind::Nbc] {
                if (routing == RoutingKind::Nbc && k % 2 == 1) || (n == 3 && matches!(routing, RoutingKind::Goal | RoutingKind::Val)) {
                    continue;
                }
                for traffic in [TrafficKind::Uniform, TrafficKind::Bitcomp, TrafficKind::Tornado, TrafficKind::Transpose, TrafficKind::Permutation, TrafficKind::Hotspot] {
                    let s = Scenario { k, n, routing, traffic, vcs: Scenario { k, n, routing, ..Scenario::default() }.min_vcs(), ..Scenario::default() };
                    let whole = Routes::new(&s).unwrap();
                    let t = Torus::new(k, n);
                    let folded = whole.clone().folded(&t);
                    let label = format!("k={k} n={n} {routing} {traffic}");
                    let images = folded.mirrors.as_ref().map_or(1, |m| m.images);
                    // The reflections (bit d: dimension d reflected) that map the pattern onto
                    // itself, of an even number of dimensions for NBC.
                    let maps_pattern = |dims: u32| match traffic {
                        TrafficKind::Uniform | TrafficKind::Bitcomp => true,
                        TrafficKind::Tornado => dims & 1 == 0,
                        TrafficKind::Transpose => (dims & 1 == 0) == (dims >> (n - 1) & 1 == 0),
                        _ => dims == 0,
                    };
                    let expected = (0..1u32 << n)
                        .filter(|&dims| dims == 0 || k % 2 == 0 && maps_pattern(dims) && (routing != RoutingKind::Nbc || dims.count_ones() % 2 == 0))
                        .count() as u32;
                    assert_eq!(images, expected, "{label}: images");
                    assert_eq!(folded.nodes * images, t.nodes(), "{label}");
                    assert_eq!(folded.torus_nodes(), t.nodes(), "{label}");
                    assert_eq!(folded.decisions.len() * images as usize, whole.decisions.len(), "{label}: decisions");
                    if images > 1 {
                        assert!(folded.state_count() < whole.state_count() || !whole.adaptive, "{label}: states");
                    }
                    for (c, (a, b)) in channel_loads(&folded, &folded.fixed.resource).iter().zip(channel_loads(&whole, &whole.fixed.resource)).enumerate() {
                        assert!((a - b).abs() < 1e-9, "{label}: channel {c}: {a} folded, {b} whole");
                    }
                    // An even split at every decision: the same flows through the states.
                    let split = |r: &Routes| -> Vec<f64> { r.decisions.iter().flat_map(|d| (0..d.len).map(move |_| 1.0 / d.len as f64)).collect() };
                    if whole.adaptive {
                        let (mut a, mut b) = (folded.zero_flows(), whole.zero_flows());
                        folded.flows_into(&split(&folded), &mut a, &mut Vec::new());
                        whole.flows_into(&split(&whole), &mut b, &mut Vec::new());
                        for (c, (x, y)) in channel_loads(&folded, &a.resource).iter().zip(channel_loads(&whole, &b.resource)).enumerate() {
                            assert!((x - y).abs() < 1e-9, "{label}: channel {c} evenly split: {x} folded, {y} whole");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_mirror_that_does_not_map_the_routes_onto_themselves_is_not_taken() {
        // Tornado sends every message in the + direction of the first dimension: reflected there,
        // every route would run in −, which no route does. It does not move along the second.
        let s = Scenario::parse("k=4&routing=dor&traffic=tornado").unwrap();
        let routes = Routes::new(&s).unwrap();
        let t = Torus::new(4, 2);
        assert!(Mirror::of(&routes, &t, 0b01).is_none());
        assert!(Mirror::of(&routes, &t, 0b10).is_some());
        assert!(Mirror::of(&routes, &t, 0b11).is_none());
        let folded = routes.folded(&t);
        assert_eq!(folded.mirrors.map(|m| m.images), Some(2));
        assert_eq!(folded.nodes, 8);
    }
}
