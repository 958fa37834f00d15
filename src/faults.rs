//! Faulty links and nodes: which links and nodes of a torus have failed, and which surviving
//! nodes can still reach one another.
//!
//! A *link* joins a node to its neighbour in the + direction of one dimension and carries the
//! two one-way channels between them. It is named by that node and the dimension's letter:
//! `27x` is the link between node 27 and its +x neighbour. A failed link carries nothing, in
//! either direction. A failed node neither sends nor receives, and all its links have failed.
//!
//! Three scenario keys name the faults, and all three are empty by default:
//! - `flinks`: failed links, `27x,35y`;
//! - `fnodes`: failed nodes, `12,40`;
//! - `frandom`: random link faults, drawn from the scenario's seed among the links still
//!   working. A whole number is a count (`5`); a number with a decimal point is a fraction of
//!   all the links (`0.05`).
//!
//! The simulator folds the failed channels into the tables its routers already read (a failed
//! channel's virtual channels are never free), so a routing algorithm meets a fault exactly as
//! it meets a busy channel that never frees; see `sim`.

use crate::rng::{Rng, Stream};
use crate::topology::{Node, Torus};
use serde::{Serialize, Serializer};
use std::collections::VecDeque;
use std::fmt;

/// The letter naming each dimension in a link's name.
const DIMENSION_LETTERS: [char; 3] = ['x', 'y', 'z'];

/// Component of a failed node, which belongs to none.
const NO_COMPONENT: u32 = u32::MAX;

/// The link between `node` and its neighbour in the + direction of dimension `dim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Link {
    pub node: Node,
    pub dim: u32,
}

impl Link {
    /// Reads a link's name, `27x`: a node number, then a dimension letter.
    pub fn parse(text: &str) -> Option<Link> {
        let text = text.trim();
        let letter = text.chars().last()?;
        let dim = DIMENSION_LETTERS.iter().position(|&l| l == letter)? as u32;
        let digits = &text[..text.len() - 1];
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Link { node: digits.parse().ok()?, dim })
    }

    /// Its two channels: from `node` in the + direction, and back from the neighbour.
    pub fn channels(self, t: &Torus) -> [u32; 2] {
        let plus = 2 * self.dim;
        [t.channel(self.node, plus), t.channel(t.neighbour(self.node, plus), plus + 1)]
    }

    /// The link a channel belongs to.
    pub fn of_channel(t: &Torus, channel: u32) -> Link {
        let (node, port) = (t.channel_source(channel), t.channel_port(channel));
        let dim = port / 2;
        if port % 2 == 0 {
            Link { node, dim }
        } else {
            Link { node: t.neighbour(node, port), dim }
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.node, DIMENSION_LETTERS[self.dim as usize])
    }
}

impl Serialize for Link {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// How many links `frandom` fails: a count, or a fraction of all the links of the torus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RandomFaults {
    Count(u32),
    Fraction(f64),
}

impl RandomFaults {
    /// Reads `frandom`: a whole number is a count, any other number a fraction from 0 to 1.
    pub fn parse(text: &str) -> Result<RandomFaults, String> {
        let text = text.trim();
        if let Ok(count) = text.parse::<u32>() {
            return Ok(RandomFaults::Count(count));
        }
        match text.parse::<f64>() {
            Ok(0.0) => Ok(RandomFaults::Count(0)),
            Ok(f) if (0.0..=1.0).contains(&f) => Ok(RandomFaults::Fraction(f)),
            _ => Err("must be a count of links (a whole number) or a fraction of the links from 0 to 1".into()),
        }
    }

    /// Links to fail on a torus of `links` links.
    pub fn count(self, links: u32) -> u32 {
        match self {
            RandomFaults::Count(n) => n,
            RandomFaults::Fraction(f) => (f * links as f64).round() as u32,
        }
    }
}

impl Default for RandomFaults {
    fn default() -> Self {
        RandomFaults::Count(0)
    }
}

/// The canonical spelling: a count as a whole number, a fraction always with a decimal point
/// or an exponent, so that it never reads back as a count.
impl fmt::Display for RandomFaults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RandomFaults::Count(n) => write!(f, "{n}"),
            RandomFaults::Fraction(x) => write!(f, "{x:?}"),
        }
    }
}

impl Serialize for RandomFaults {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Reads a comma-separated list (empty for none) with `item`, which says what is wrong with
/// an entry it cannot read.
pub fn parse_list<T>(text: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',').map(|entry| item(entry.trim())).collect()
}

/// Links on a k-ary n-cube: one per node and dimension.
pub fn link_count(nodes: u32, n: u32) -> u32 {
    nodes * n
}

/// The faults of one scenario on its torus.
#[derive(Clone, Debug)]
pub struct Faults {
    /// Per channel (`node · 2n + port`).
    failed_channel: Vec<bool>,
    failed_node: Vec<bool>,
    /// Per node: its connected component in the surviving network (`NO_COMPONENT` if failed).
    component: Vec<u32>,
    /// Every failed link, sorted: listed, drawn at random, and those of failed nodes.
    links: Vec<Link>,
}

impl Faults {
    /// The faults of a scenario (`flinks`, `fnodes`, `frandom` and the `seed` that draws the
    /// random ones) on torus `t`, or `None` when nothing has failed. The error says that the
    /// random faults ask for more links than are still working.
    pub fn new(t: &Torus, listed_links: &[Link], listed_nodes: &[Node], random: RandomFaults, seed: u64) -> Result<Option<Faults>, String> {
        let nodes = t.nodes();
        if listed_links.is_empty() && listed_nodes.is_empty() && random.count(link_count(nodes, t.n)) == 0 {
            return Ok(None);
        }
        let mut failed_node = vec![false; nodes as usize];
        for &u in listed_nodes {
            failed_node[u as usize] = true;
        }
        let mut failed_link = vec![false; link_count(nodes, t.n) as usize];
        let index = |l: Link| (l.node * t.n + l.dim) as usize;
        for &l in listed_links {
            failed_link[index(l)] = true;
        }
        for u in (0..nodes).filter(|&u| failed_node[u as usize]) {
            for p in 0..t.ports() {
                failed_link[index(Link::of_channel(t, t.channel(u, p)))] = true;
            }
        }
        // Random faults among the links still working, in a fixed order, by a partial
        // Fisher–Yates shuffle of the faults' own random stream.
        let mut working: Vec<u32> = (0..failed_link.len() as u32).filter(|&i| !failed_link[i as usize]).collect();
        let wanted = random.count(failed_link.len() as u32);
        if wanted as usize > working.len() {
            return Err(format!("asks for {wanted} random link faults, but only {} links are still working", working.len()));
        }
        let mut rng = Rng::new(seed, Stream::Faults);
        for i in 0..wanted as usize {
            let j = i + rng.below((working.len() - i) as u32) as usize;
            working.swap(i, j);
            failed_link[working[i] as usize] = true;
        }
        let mut failed_channel = vec![false; t.channels() as usize];
        let mut links = Vec::new();
        for (i, _) in failed_link.iter().enumerate().filter(|(_, &failed)| failed) {
            let link = Link { node: i as u32 / t.n, dim: i as u32 % t.n };
            for c in link.channels(t) {
                failed_channel[c as usize] = true;
            }
            links.push(link);
        }
        let component = components(t, &failed_channel, &failed_node);
        Ok(Some(Faults { failed_channel, failed_node, component, links }))
    }

    pub fn channel_failed(&self, channel: u32) -> bool {
        self.failed_channel[channel as usize]
    }

    pub fn node_failed(&self, node: Node) -> bool {
        self.failed_node[node as usize]
    }

    /// Whether the surviving network joins `a` to `b` (both working nodes).
    pub fn reachable(&self, a: Node, b: Node) -> bool {
        self.component[a as usize] != NO_COMPONENT && self.component[a as usize] == self.component[b as usize]
    }

    /// Every failed link, sorted.
    pub fn failed_links(&self) -> &[Link] {
        &self.links
    }

    /// Every failed node, ascending.
    pub fn failed_nodes(&self) -> Vec<Node> {
        (0..self.failed_node.len() as u32).filter(|&u| self.failed_node[u as usize]).collect()
    }

    /// Every failed channel, ascending.
    pub fn failed_channels(&self) -> Vec<u32> {
        (0..self.failed_channel.len() as u32).filter(|&c| self.failed_channel[c as usize]).collect()
    }

    /// Connected components of the surviving network.
    pub fn component_count(&self) -> u32 {
        self.component.iter().filter(|&&c| c != NO_COMPONENT).max().map_or(0, |&c| c + 1)
    }

    /// The fault that stops a failed channel, as a reader would name it: the node at either
    /// end if that node failed (`node 12`), else the link (`27x`).
    pub fn name(&self, t: &Torus, channel: u32) -> String {
        let from = t.channel_source(channel);
        let to = t.neighbour(from, t.channel_port(channel));
        match [to, from].into_iter().find(|&u| self.node_failed(u)) {
            Some(u) => format!("node {u}"),
            None => Link::of_channel(t, channel).to_string(),
        }
    }
}

/// Breadth-first labelling of the surviving network's components (links fail in both
/// directions, so reachability is symmetric).
fn components(t: &Torus, failed_channel: &[bool], failed_node: &[bool]) -> Vec<u32> {
    let mut component = vec![NO_COMPONENT; t.nodes() as usize];
    let mut next = 0;
    let mut queue = VecDeque::new();
    for root in 0..t.nodes() {
        if failed_node[root as usize] || component[root as usize] != NO_COMPONENT {
            continue;
        }
        component[root as usize] = next;
        queue.push_back(root);
        while let Some(u) = queue.pop_front() {
            for p in 0..t.ports() {
                let v = t.neighbour(u, p);
                if !failed_channel[t.channel(u, p) as usize] && component[v as usize] == NO_COMPONENT {
                    component[v as usize] = next;
                    queue.push_back(v);
                }
            }
        }
        next += 1;
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The faults of a scenario's keys `k`, `n`, `flinks`, `fnodes`, `frandom` and `seed`.
    fn faults_of(text: &str) -> (Result<Option<Faults>, String>, Torus) {
        let (mut k, mut n, mut links, mut nodes, mut random, mut seed) = (8, 2, vec![], vec![], RandomFaults::Count(0), 1);
        for (key, v) in text.split('&').filter_map(|kv| kv.split_once('=')) {
            match key {
                "k" => k = v.parse().unwrap(),
                "n" => n = v.parse().unwrap(),
                "flinks" => links = parse_list(v, |e| Link::parse(e).ok_or_else(|| e.to_string())).unwrap(),
                "fnodes" => nodes = parse_list(v, |e| e.parse::<u32>().map_err(|_| e.to_string())).unwrap(),
                "frandom" => random = RandomFaults::parse(v).unwrap(),
                "seed" => seed = v.parse().unwrap(),
                _ => panic!("no key {key} here"),
            }
        }
        let t = Torus::new(k, n);
        (Faults::new(&t, &links, &nodes, random, seed), t)
    }

    fn faults(text: &str) -> (Faults, Torus) {
        let (f, t) = faults_of(text);
        (f.unwrap().expect("the scenario has faults"), t)
    }

    #[test]
    fn links_are_named_by_their_plus_end() {
        let t = Torus::new(8, 2);
        assert_eq!(Link::parse("27x"), Some(Link { node: 27, dim: 0 }));
        assert_eq!(Link::parse(" 3z"), Some(Link { node: 3, dim: 2 }));
        for bad in ["", "x", "27", "27w", "-1x", "2 7x", "27xx", "+1x", "٣x"] {
            assert_eq!(Link::parse(bad), None, "{bad:?}");
        }
        // 27 = (3, 3): its +x channel (port 0) and the −x channel (port 1) of 28 = (4, 3).
        let link = Link { node: 27, dim: 0 };
        assert_eq!(link.channels(&t), [27 * 4, 28 * 4 + 1]);
        assert_eq!(link.to_string(), "27x");
        for c in link.channels(&t) {
            assert_eq!(Link::of_channel(&t, c), link);
        }
        // The wrap-around link from (7, 0) to (0, 0) in x is 7x; from (0, 7) to (0, 0) in y, 56y.
        assert_eq!(Link::of_channel(&t, t.channel(0, 1)), Link { node: 7, dim: 0 });
        assert_eq!(Link::of_channel(&t, t.channel(0, 3)), Link { node: 56, dim: 1 });
    }

    #[test]
    fn random_counts_and_fractions_read_back_as_written() {
        for (text, value) in [("5", RandomFaults::Count(5)), ("0.05", RandomFaults::Fraction(0.05)), ("1.0", RandomFaults::Fraction(1.0))] {
            let parsed = RandomFaults::parse(text).unwrap();
            assert_eq!(parsed, value);
            assert_eq!(RandomFaults::parse(&parsed.to_string()).unwrap(), value, "{text}");
        }
        assert_eq!(RandomFaults::parse("0.0").unwrap(), RandomFaults::Count(0));
        assert_eq!(RandomFaults::parse("1e-1").unwrap().to_string(), "0.1");
        for bad in ["", "-1", "1.5", "NaN", "inf", "x", "-0.2"] {
            assert!(RandomFaults::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(RandomFaults::Fraction(0.05).count(128), 6);
        assert_eq!(RandomFaults::Fraction(0.1).count(128), 13);
    }

    #[test]
    fn a_failed_node_fails_its_links_and_is_reached_by_no_one() {
        let (f, t) = faults("k=8&fnodes=27");
        assert_eq!(f.failed_links().iter().map(|l| l.to_string()).collect::<Vec<_>>(), ["19y", "26x", "27x", "27y"]);
        assert_eq!(f.failed_channels().len(), 8);
        assert!(f.node_failed(27) && !f.reachable(26, 27) && !f.reachable(27, 27));
        assert!(f.reachable(26, 28), "the others still reach one another round it");
        assert_eq!(f.component_count(), 1);
        assert_eq!(f.name(&t, t.channel(26, 0)), "node 27");
        assert_eq!(f.name(&t, t.channel(27, 0)), "node 27");
    }

    #[test]
    fn cutting_every_link_of_a_node_isolates_it() {
        // Node 0 = (0, 0): its links 0x, 0y and those of its −x neighbour 7 and −y neighbour 56.
        let (f, t) = faults("k=8&flinks=0x,0y,7x,56y");
        assert_eq!(f.component_count(), 2);
        assert!(!f.reachable(0, 1) && !f.reachable(9, 0) && f.reachable(1, 63) && f.reachable(0, 0));
        assert_eq!(f.name(&t, t.channel(0, 1)), "7x");
        // One link less and node 0 is reached the long way round.
        let (f, _) = faults("k=8&flinks=0x,0y,7x");
        assert!(f.reachable(0, 1) && f.component_count() == 1);
        // A ring cut twice falls apart into two arcs.
        let (f, _) = faults("k=8&n=1&flinks=1x,5x");
        assert_eq!(f.component_count(), 2);
        assert!(f.reachable(2, 5) && !f.reachable(5, 6) && f.reachable(6, 1));
    }

    #[test]
    fn random_faults_are_distinct_working_links_fixed_by_the_seed() {
        let (a, _) = faults("k=8&frandom=10&flinks=3x&seed=4");
        assert_eq!(a.failed_links().len(), 11);
        assert!(a.failed_links().contains(&Link { node: 3, dim: 0 }));
        let (again, _) = faults("k=8&frandom=10&flinks=3x&seed=4");
        assert_eq!(a.failed_links(), again.failed_links());
        let (other, _) = faults("k=8&frandom=10&flinks=3x&seed=5");
        assert_ne!(a.failed_links(), other.failed_links());
        // A fraction of the 128 links of an 8×8 torus: 5 % is 6 links.
        let (f, _) = faults("k=8&frandom=0.05");
        assert_eq!(f.failed_links().len(), 6);
        // Every link failing at random is allowed; one more than are working is not.
        let (all, _) = faults("k=4&frandom=1.0");
        assert_eq!((all.failed_links().len(), all.component_count()), (32, 16));
        let e = faults_of("k=4&fnodes=0&frandom=29").0.err().unwrap();
        assert!(e.contains("only 28 links"), "{e}");
    }

    #[test]
    fn draws_cover_every_link_evenly() {
        // One random fault per seed, over many seeds: each of the 32 links of a 4×4 torus.
        let t = Torus::new(4, 2);
        let mut seen = [0u32; 32];
        for seed in 0..6400 {
            let f = Faults::new(&t, &[], &[], RandomFaults::Count(1), seed).unwrap().unwrap();
            let l = f.failed_links()[0];
            seen[(l.node * 2 + l.dim) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (140..260).contains(&c)), "{seen:?}");
    }
}
