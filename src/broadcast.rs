//! The broadcast spanning tree of Bose et al. used by seed 003 (its Figures 3–4).
//!
//! Relative to the source, every dimension's ring of k nodes is split into a + side of
//! ⌈(k−1)/2⌉ nodes and a − side of ⌊(k−1)/2⌋. The source sends one copy each way along every
//! dimension; a node reached along dimension m forwards one copy further along m (unless it
//! ends its side) and one copy each way along every higher dimension. Every copy travels one
//! hop. In 2-D this gives seed 003's replication counts: 2k nodes forward nothing, k² − 3k one
//! copy, 2 nodes two copies and k − 3 nodes three copies.

use crate::topology::{Direction, Node, Port, Torus};

/// Nodes on the + side of a ring, relative to the source.
fn plus_side(k: u32) -> u32 {
    k / 2
}

/// Signed position of `node` relative to `source` along `dim`: 1..=plus_side or −1..=−minus_side.
fn relative(t: &Torus, source: Node, node: Node, dim: u32) -> i64 {
    let o = t.offset(source, node, dim);
    if o <= plus_side(t.k) {
        o as i64
    } else {
        o as i64 - t.k as i64
    }
}

/// The ports through which `node` forwards a broadcast started at `source`; at most 2n.
pub fn children(t: &Torus, source: Node, node: Node, out: &mut Vec<Port>) {
    out.clear();
    let plus = plus_side(t.k) as i64;
    let minus = (t.k - 1) as i64 - plus;
    let position: Vec<i64> = (0..t.n).map(|d| relative(t, source, node, d)).collect();
    // The dimension this node was reached along: its last non-zero relative coordinate.
    let reached_along = position.iter().rposition(|&r| r != 0);
    if let Some(m) = reached_along {
        let r = position[m];
        if r > 0 && r < plus {
            out.push(Direction::Plus.port(m as u32));
        } else if r < 0 && -r < minus {
            out.push(Direction::Minus.port(m as u32));
        }
    }
    let first_new = reached_along.map_or(0, |m| m + 1) as u32;
    for d in first_new..t.n {
        if plus > 0 {
            out.push(Direction::Plus.port(d));
        }
        if minus > 0 {
            out.push(Direction::Minus.port(d));
        }
    }
}

/// Every channel of the tree from `source` (`node · 2n + port`), breadth first: each channel's
/// tail is the source or the head of an earlier channel. N − 1 channels, one into each node but
/// the source.
pub fn tree_channels(t: &Torus, source: Node) -> Vec<u32> {
    let mut channels = Vec::with_capacity(t.nodes() as usize - 1);
    let mut ports = Vec::new();
    let mut next = 0;
    let mut nodes = vec![source];
    while next < nodes.len() {
        let v = nodes[next];
        next += 1;
        children(t, source, v, &mut ports);
        for &p in &ports {
            channels.push(t.channel(v, p));
            nodes.push(t.neighbour(v, p));
        }
    }
    channels
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks the tree from `source`: how often each node is reached, and how many nodes
    /// forward i copies (source excluded).
    fn walk(t: &Torus, source: Node) -> (Vec<u32>, Vec<u32>) {
        let mut reached = vec![0u32; t.nodes() as usize];
        let mut forwards = vec![0u32; 2 * t.n as usize + 1];
        let mut frontier = vec![source];
        let mut ports = Vec::new();
        while let Some(v) = frontier.pop() {
            children(t, source, v, &mut ports);
            if v != source {
                forwards[ports.len()] += 1;
            }
            for &p in &ports {
                let w = t.neighbour(v, p);
                reached[w as usize] += 1;
                frontier.push(w);
            }
        }
        (reached, forwards)
    }

    #[test]
    fn every_node_but_the_source_is_reached_exactly_once() {
        for (k, n) in [(2, 2), (3, 2), (8, 2), (7, 2), (5, 1), (4, 3), (3, 3)] {
            let t = Torus::new(k, n);
            for source in [0, t.nodes() / 2, t.nodes() - 1] {
                let (reached, _) = walk(&t, source);
                for (v, &r) in reached.iter().enumerate() {
                    assert_eq!(r, u32::from(v as u32 != source), "k={k} n={n} source={source} node={v}");
                }
            }
        }
    }

    #[test]
    fn replication_counts_match_seed_003() {
        // N_r^0 = 2k, N_r^1 = k² − 3k, N_r^2 = 2, N_r^3 = k − 3.
        for k in [3u32, 4, 8, 10, 16] {
            let t = Torus::new(k, 2);
            let (_, forwards) = walk(&t, t.node_at(&[2, 1]));
            assert_eq!(forwards, vec![2 * k, k * k - 3 * k, 2, k - 3, 0], "k={k}");
        }
    }

    #[test]
    fn tree_channels_span_the_torus_from_the_source_outwards() {
        for (k, n) in [(8, 2), (5, 2), (4, 3)] {
            let t = Torus::new(k, n);
            for source in [0, t.nodes() - 1] {
                let channels = tree_channels(&t, source);
                assert_eq!(channels.len() as u32, t.nodes() - 1);
                let mut reached = vec![false; t.nodes() as usize];
                reached[source as usize] = true;
                for &c in &channels {
                    let (tail, head) = (t.channel_source(c), t.neighbour(t.channel_source(c), t.channel_port(c)));
                    assert!(reached[tail as usize], "k={k} n={n} source={source}: channel {c} leaves a node not yet reached");
                    assert!(!reached[head as usize], "k={k} n={n} source={source}: node {head} reached twice");
                    reached[head as usize] = true;
                }
                assert!(reached.iter().all(|&r| r));
            }
        }
    }
}
