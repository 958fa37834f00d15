//! Deadlock diagnosis: when the watchdog fires, which virtual channels wait for which, and one
//! cycle of that waiting to show the user.
//!
//! The wait-for graph has one vertex per network VC and an edge `a → b` when the front of `a`
//! cannot move until `b` does:
//! - a header at the front of `a` that has no output VC yet waits for every VC its routing
//!   candidates permit (any one of them freeing up would let it go: an OR-wait), on working
//!   channels (a failed channel never frees, so a header stuck at a fault waits for nothing);
//! - a routed front message with no credit on its output VC waits for that VC;
//! - an empty VC allocated to a message whose flits are still upstream waits for the VC that
//!   feeds it.
//!
//! With oblivious routing a header has one choice, so a deadlock is a cycle. With adaptive
//! routing a header waiting for several VCs is stuck only if all of them are, so the deadlock is
//! a *knot*: a strongly connected set that no edge leaves. The reported cycle is the shortest
//! cycle through the lowest-numbered VC of such a knot (of any cycle if there is no knot), so
//! the same deadlock is always reported the same way.

use super::{Simulation, NONE};
use crate::routing::{Candidates, Routing, EJECT};
use serde::Serialize;
use std::collections::VecDeque;

/// One cycle of the wait-for graph, in waiting order: each VC waits for the next, the last for
/// the first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeadlockCycle {
    /// Network VCs (`channel · V + v`).
    pub vcs: Vec<u32>,
    /// The channel of each of those VCs (`node · 2n + port`).
    pub channels: Vec<u32>,
}

impl Simulation {
    /// One cycle of VCs waiting for each other in the current state (empty if there is none:
    /// every VC that holds flits could still move).
    pub fn deadlock_cycle(&self) -> DeadlockCycle {
        let vcs = knot_cycle(&self.wait_for_graph());
        let channels = vcs.iter().map(|&vc| vc / self.vcs).collect();
        DeadlockCycle { vcs, channels }
    }

    /// Whether some VCs wait for each other with no way out: a knot of the wait-for graph. A
    /// network with faults that has stopped moving without one has stopped behind headers stuck
    /// at faults, which wait for nothing.
    pub(super) fn has_knot(&self) -> bool {
        Components::of(&self.wait_for_graph()).knot().is_some()
    }

    /// The network VCs each network VC waits for (see the module docs).
    fn wait_for_graph(&self) -> Graph {
        let net_vcs = self.net_vcs as usize;
        let mut feeder = vec![NONE; net_vcs];
        for a in 0..net_vcs {
            let out = self.vc[a].out;
            // Only network VCs take part: a chaos shared-queue slot takes every flit sent to it.
            if (out as usize) < net_vcs {
                feeder[out as usize] = a as u32;
            }
        }
        let all_vcs_mask = ((1u64 << self.vcs) - 1) as u32;
        let mut candidates = Candidates::default();
        let mut graph = Graph { start: Vec::with_capacity(net_vcs + 1), targets: Vec::new() };
        for a in 0..net_vcs {
            graph.start.push(graph.targets.len());
            let out = self.vc[a].out;
            if self.vc[a].flits == 0 {
                if self.vc[a].owner != NONE && feeder[a] != NONE {
                    graph.targets.push(feeder[a]);
                }
            } else if out == NONE {
                let router = self.vc_router(a as u32);
                let mut plan = self.messages[self.front(a as u32) as usize].plan;
                candidates.clear();
                self.routing.candidates(&self.torus, router, &mut plan, &mut candidates);
                for c in candidates.as_slice().iter().filter(|c| c.port != EJECT) {
                    let channel = self.torus.channel(router, c.port);
                    // A failed channel never frees: it is no way out of a wait.
                    if self.channel_failed(channel) {
                        continue;
                    }
                    let base = channel * self.vcs;
                    let mut mask = c.vcs & all_vcs_mask;
                    while mask != 0 {
                        graph.targets.push(base + mask.trailing_zeros());
                        mask &= mask - 1;
                    }
                }
            } else if (out as usize) < net_vcs && self.credits(out as usize) == self.reserved[out as usize] {
                graph.targets.push(out);
            }
        }
        graph.start.push(graph.targets.len());
        graph
    }
}

/// A directed graph in compressed form: the successors of `v` are
/// `targets[start[v]..start[v + 1]]`. A vector per vertex would cost 24 bytes for each of up to
/// millions of VCs, most of which wait for nothing.
struct Graph {
    start: Vec<usize>,
    targets: Vec<u32>,
}

impl Graph {
    fn vertices(&self) -> usize {
        self.start.len() - 1
    }

    fn successors(&self, v: u32) -> &[u32] {
        &self.targets[self.start[v as usize]..self.start[v as usize + 1]]
    }
}

/// The strongly connected components of a wait-for graph, and per component whether it holds a
/// cycle, whether an edge leaves it and its lowest vertex.
struct Components {
    component: Vec<u32>,
    has_cycle: Vec<bool>,
    has_exit: Vec<bool>,
    lowest: Vec<u32>,
}

impl Components {
    fn of(graph: &Graph) -> Components {
        let component = strongly_connected_components(graph);
        let cyclic = |v: usize| graph.successors(v as u32).iter().any(|&w| component[w as usize] == component[v]);
        let leaves = |v: usize| graph.successors(v as u32).iter().any(|&w| component[w as usize] != component[v]);
        let components = component.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let (mut has_cycle, mut has_exit, mut lowest) = (vec![false; components], vec![false; components], vec![NONE; components]);
        for (v, &c) in component.iter().enumerate() {
            let c = c as usize;
            has_cycle[c] |= cyclic(v);
            has_exit[c] |= leaves(v);
            lowest[c] = lowest[c].min(v as u32);
        }
        Components { component, has_cycle, has_exit, lowest }
    }

    /// The first knot (a component with a cycle and no edge leaving it), by lowest vertex.
    fn knot(&self) -> Option<usize> {
        (0..self.lowest.len()).filter(|&c| self.has_cycle[c] && !self.has_exit[c]).min_by_key(|&c| self.lowest[c])
    }
}

/// The shortest cycle through the lowest vertex of the first knot (strongly connected component
/// with a cycle and no edge leaving it), or of the first cyclic component if no knot exists;
/// empty for an acyclic graph.
fn knot_cycle(graph: &Graph) -> Vec<u32> {
    let c = Components::of(graph);
    let first_cyclic = || (0..c.lowest.len()).filter(|&i| c.has_cycle[i]).min_by_key(|&i| c.lowest[i]);
    let Some(chosen) = c.knot().or_else(first_cyclic) else {
        return Vec::new();
    };
    shortest_cycle_through(graph, c.lowest[chosen], |v| c.component[v as usize] as usize == chosen)
}

/// Breadth-first search from `start` back to itself through vertices `inside` accepts.
fn shortest_cycle_through(graph: &Graph, start: u32, inside: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut parent = vec![NONE; graph.vertices()];
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in graph.successors(v) {
            if w == start {
                let mut cycle = vec![v];
                while *cycle.last().expect("starts non-empty") != start {
                    cycle.push(parent[*cycle.last().expect("starts non-empty") as usize]);
                }
                cycle.reverse();
                return cycle;
            }
            if parent[w as usize] == NONE && inside(w) {
                parent[w as usize] = v;
                queue.push_back(w);
            }
        }
    }
    unreachable!("a cyclic strongly connected component has a cycle through each of its vertices")
}

/// Tarjan's algorithm without recursion (the graph can have millions of vertices): the
/// component number of each vertex.
fn strongly_connected_components(graph: &Graph) -> Vec<u32> {
    let n = graph.vertices();
    let mut t = Tarjan {
        index: vec![NONE; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        calls: Vec::new(),
        next_index: 0,
    };
    let mut component = vec![NONE; n];
    let mut components = 0u32;
    for root in 0..n as u32 {
        if t.index[root as usize] != NONE {
            continue;
        }
        t.visit(root);
        while let Some(&(v, edge)) = t.calls.last() {
            if let Some(&w) = graph.successors(v).get(edge) {
                let top = t.calls.len() - 1;
                t.calls[top].1 += 1;
                if t.index[w as usize] == NONE {
                    t.visit(w);
                } else if t.on_stack[w as usize] {
                    t.low[v as usize] = t.low[v as usize].min(t.index[w as usize]);
                }
                continue;
            }
            t.calls.pop();
            if let Some(&(parent, _)) = t.calls.last() {
                t.low[parent as usize] = t.low[parent as usize].min(t.low[v as usize]);
            }
            if t.low[v as usize] == t.index[v as usize] {
                loop {
                    let w = t.stack.pop().expect("v is on the stack");
                    t.on_stack[w as usize] = false;
                    component[w as usize] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}

/// Tarjan's search state: discovery index and low-link per vertex, the component stack, and the
/// explicit call stack of (vertex, next edge to follow).
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<u32>,
    calls: Vec<(u32, usize)>,
    next_index: u32,
}

impl Tarjan {
    fn visit(&mut self, v: u32) {
        self.index[v as usize] = self.next_index;
        self.low[v as usize] = self.next_index;
        self.next_index += 1;
        self.stack.push(v);
        self.on_stack[v as usize] = true;
        self.calls.push((v, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
        let mut g = Graph { start: vec![0], targets: Vec::new() };
        for v in 0..n as u32 {
            g.targets.extend(edges.iter().filter(|e| e.0 == v).map(|e| e.1));
            g.start.push(g.targets.len());
        }
        g
    }

    #[test]
    fn a_ring_is_reported_from_its_lowest_vertex_in_waiting_order() {
        // 5 → 3 → 4 → 5, with 0 and 1 waiting on the ring from outside.
        let g = graph(6, &[(0, 3), (1, 0), (5, 3), (3, 4), (4, 5)]);
        assert_eq!(knot_cycle(&g), vec![3, 4, 5]);
    }

    #[test]
    fn a_knot_is_preferred_to_a_cycle_with_a_way_out() {
        // 0 ⇄ 1 can escape to 2; 2 → 3 → 4 → 2 cannot escape: only the second is a deadlock.
        let g = graph(5, &[(0, 1), (1, 0), (1, 2), (2, 3), (3, 4), (4, 2)]);
        assert_eq!(knot_cycle(&g), vec![2, 3, 4]);
    }

    #[test]
    fn the_shortest_cycle_of_a_knot_is_chosen() {
        // A knot with two cycles through 0: 0 → 1 → 2 → 3 → 0 and 0 → 4 → 0.
        let g = graph(5, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (4, 0), (2, 4)]);
        assert_eq!(knot_cycle(&g), vec![0, 4]);
    }

    #[test]
    fn a_cycle_with_a_way_out_is_no_knot() {
        // 0 → 1 → 2 → 0, and 1 also waits for 3, which waits for nothing (a header stuck at a
        // fault): a cycle, but no knot.
        let g = graph(4, &[(0, 1), (1, 2), (2, 0), (1, 3)]);
        assert_eq!(knot_cycle(&g), vec![0, 1, 2]);
        assert_eq!(Components::of(&g).knot(), None);
        assert!(Components::of(&graph(3, &[(0, 1), (1, 2), (2, 1)])).knot().is_some());
    }

    #[test]
    fn self_loops_count_and_acyclic_graphs_have_no_cycle() {
        assert_eq!(knot_cycle(&graph(3, &[(0, 1), (2, 2)])), vec![2]);
        assert_eq!(knot_cycle(&graph(4, &[(0, 1), (1, 2), (0, 2), (3, 2)])), Vec::<u32>::new());
        assert_eq!(knot_cycle(&graph(0, &[])), Vec::<u32>::new());
    }
}
