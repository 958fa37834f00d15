//! The k-ary n-cube torus: node numbering, ports, channels, ring distances.
//!
//! A node's id is `Σ_d x_d · k^d`. Each node has `2n` network ports; port `2d` sends in the +
//! direction of dimension `d`, port `2d + 1` in the − direction. The unidirectional channel
//! leaving node `u` through port `p` has id `u · 2n + p`; its flit buffers sit at the input of
//! the neighbour it leads to. The wrap-around channels are the ones from coordinate k−1 to 0
//! (+ direction) and from 0 to k−1 (− direction): the datelines.

/// Index of a node, `0..k^n`.
pub type Node = u32;
/// A network port of a router: `2·dimension + (0 for +, 1 for −)`.
pub type Port = u32;

/// Direction of travel along one dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Plus,
    Minus,
}

impl Direction {
    pub fn port(self, dim: u32) -> Port {
        2 * dim + (self == Direction::Minus) as u32
    }
}

/// Dimension a port moves along.
pub fn port_dim(port: Port) -> u32 {
    port / 2
}

/// Direction a port moves in.
pub fn port_direction(port: Port) -> Direction {
    if port % 2 == 0 {
        Direction::Plus
    } else {
        Direction::Minus
    }
}

#[derive(Clone, Debug)]
pub struct Torus {
    pub k: u32,
    pub n: u32,
    nodes: u32,
    /// `neighbour[u · 2n + p]`: the node that port `p` of node `u` leads to.
    neighbour: Vec<Node>,
    /// `coords[u][d]`: coordinate of node `u` along dimension `d` (k ≤ 256, n ≤ 3, padded to
    /// 4 bytes), so routing decisions need no division and one load gives every coordinate.
    coords: Vec<[u8; 4]>,
}

impl Torus {
    pub fn new(k: u32, n: u32) -> Torus {
        assert!(k >= 2 && n >= 1, "a torus needs k >= 2 and n >= 1");
        let nodes = k.pow(n);
        let ports = 2 * n;
        assert!(k <= 256, "coordinates are stored in a byte");
        let mut neighbour = Vec::with_capacity((nodes * ports) as usize);
        assert!(n <= 3, "coordinates are stored for at most 3 dimensions");
        let mut coords = Vec::with_capacity(nodes as usize);
        for u in 0..nodes {
            for p in 0..ports {
                let d = port_dim(p);
                let x = coordinate_of(u, d, k);
                let step = k.pow(d);
                let nx = match port_direction(p) {
                    Direction::Plus => (x + 1) % k,
                    Direction::Minus => (x + k - 1) % k,
                };
                neighbour.push(u - x * step + nx * step);
            }
            let mut c = [0u8; 4];
            for d in 0..n {
                c[d as usize] = coordinate_of(u, d, k) as u8;
            }
            coords.push(c);
        }
        Torus { k, n, nodes, neighbour, coords }
    }

    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Network ports per router, 2n.
    pub fn ports(&self) -> u32 {
        2 * self.n
    }

    /// Unidirectional network channels, N · 2n.
    pub fn channels(&self) -> u32 {
        self.nodes * self.ports()
    }

    pub fn channel(&self, node: Node, port: Port) -> u32 {
        node * self.ports() + port
    }

    /// The node a channel leaves from.
    pub fn channel_source(&self, channel: u32) -> Node {
        channel / self.ports()
    }

    pub fn channel_port(&self, channel: u32) -> Port {
        channel % self.ports()
    }

    pub fn neighbour(&self, node: Node, port: Port) -> Node {
        self.neighbour[(node * self.ports() + port) as usize]
    }

    pub fn coordinate(&self, node: Node, dim: u32) -> u32 {
        self.coords[node as usize][dim as usize] as u32
    }

    /// Every coordinate of a node at once (unused dimensions 0).
    pub fn coordinates_of(&self, node: Node) -> [u8; 4] {
        self.coords[node as usize]
    }

    pub fn coordinates(&self, node: Node) -> Vec<u32> {
        (0..self.n).map(|d| self.coordinate(node, d)).collect()
    }

    /// The node with the given coordinates (each taken mod k).
    pub fn node_at(&self, coords: &[u32]) -> Node {
        coords.iter().rev().fold(0, |acc, &x| acc * self.k + x % self.k)
    }

    /// Replaces one coordinate of a node.
    pub fn with_coordinate(&self, node: Node, dim: u32, x: u32) -> Node {
        let step = self.k.pow(dim);
        node - self.coordinate(node, dim) * step + (x % self.k) * step
    }

    /// Signed offset `(to − from) mod k` along one dimension, in `0..k`.
    pub fn offset(&self, from: Node, to: Node, dim: u32) -> u32 {
        let o = self.coordinate(to, dim) + self.k - self.coordinate(from, dim);
        if o >= self.k {
            o - self.k
        } else {
            o
        }
    }

    /// Ring distance along one dimension, `min(o, k − o)`.
    pub fn ring_distance(&self, from: Node, to: Node, dim: u32) -> u32 {
        let o = self.offset(from, to, dim);
        o.min(self.k - o)
    }

    /// Minimal hop count between two nodes.
    pub fn distance(&self, from: Node, to: Node) -> u32 {
        (0..self.n).map(|d| self.ring_distance(from, to, d)).sum()
    }

    /// Hops needed along `dim` when travelling in `dir`.
    pub fn hops_in_direction(&self, from: Node, to: Node, dim: u32, dir: Direction) -> u32 {
        let o = self.offset(from, to, dim);
        match dir {
            Direction::Plus => o,
            Direction::Minus if o == 0 => 0,
            Direction::Minus => self.k - o,
        }
    }

    /// True for the wrap-around (dateline) channels: k−1 → 0 going +, 0 → k−1 going −.
    pub fn is_wrap_channel(&self, node: Node, port: Port) -> bool {
        let x = self.coordinate(node, port_dim(port));
        match port_direction(port) {
            Direction::Plus => x == self.k - 1,
            Direction::Minus => x == 0,
        }
    }

    /// Whether a message that started travelling along `dim` at coordinate `start` in `dir`
    /// and is now at `node` has already crossed the wrap-around channel of that dimension.
    /// Valid for monotone travel of fewer than k hops in the dimension.
    pub fn has_wrapped(&self, node: Node, dim: u32, dir: Direction, start: u32) -> bool {
        let x = self.coordinate(node, dim);
        match dir {
            Direction::Plus => x < start,
            Direction::Minus => x > start,
        }
    }
}

fn coordinate_of(node: Node, dim: u32, k: u32) -> u32 {
    (node / k.pow(dim)) % k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip_in_one_two_and_three_dimensions() {
        for (k, n) in [(5, 1), (4, 2), (3, 3)] {
            let t = Torus::new(k, n);
            for u in 0..t.nodes() {
                assert_eq!(t.node_at(&t.coordinates(u)), u);
            }
        }
    }

    #[test]
    fn neighbours_wrap_around_and_are_inverse() {
        let t = Torus::new(4, 2);
        // (3, 1) + x wraps to (0, 1); (0, 0) − y wraps to (0, 3).
        assert_eq!(t.neighbour(t.node_at(&[3, 1]), 0), t.node_at(&[0, 1]));
        assert_eq!(t.neighbour(t.node_at(&[0, 0]), 3), t.node_at(&[0, 3]));
        for u in 0..t.nodes() {
            for p in 0..t.ports() {
                assert_eq!(t.neighbour(t.neighbour(u, p), p ^ 1), u);
            }
        }
    }

    #[test]
    fn ring_distances_and_offsets() {
        let t = Torus::new(8, 2);
        let a = t.node_at(&[1, 6]);
        let b = t.node_at(&[7, 2]);
        assert_eq!(t.offset(a, b, 0), 6);
        assert_eq!(t.ring_distance(a, b, 0), 2);
        assert_eq!(t.ring_distance(a, b, 1), 4);
        assert_eq!(t.distance(a, b), 6);
        assert_eq!(t.hops_in_direction(a, b, 0, Direction::Minus), 2);
        assert_eq!(t.hops_in_direction(a, a, 0, Direction::Minus), 0);
        // Mean minimal distance under uniform traffic excluding the source: 256/63 on 8×8.
        let total: u32 = (0..t.nodes()).map(|d| t.distance(0, d)).sum();
        assert_eq!(total, 256);
    }

    #[test]
    fn wrap_channels_are_the_datelines() {
        let t = Torus::new(8, 2);
        assert!(t.is_wrap_channel(t.node_at(&[7, 3]), 0));
        assert!(!t.is_wrap_channel(t.node_at(&[6, 3]), 0));
        assert!(t.is_wrap_channel(t.node_at(&[2, 0]), 3));
        assert!(t.has_wrapped(t.node_at(&[1, 0]), 0, Direction::Plus, 6));
        assert!(!t.has_wrapped(t.node_at(&[7, 0]), 0, Direction::Plus, 6));
    }
}
