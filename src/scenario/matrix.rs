//! A traffic matrix read from a file (`traffic=matrix&matrix=FILE`): N rows of N weights,
//! row s the relative weights of the destinations of source s. Read while the scenario is
//! parsed, since the string names the file; the command line reads it, the page cannot (a link
//! carries no file) and says so. The traffic pattern `matrix` draws from it.

use crate::rng::Rng;
use crate::topology::Node;

/// Nodes a traffic matrix may have at most: N² weights are held in memory.
pub const MAX_NODES: u32 = 1024;
/// Bytes a matrix file may have at most.
const MAX_BYTES: u64 = 64 << 20;

/// The weights, row by row, as running sums: `cumulative[s·N + d]` is the weight of
/// destinations `0..=d` from source `s`, so that a draw is a binary search in its row.
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficMatrix {
    nodes: u32,
    cumulative: Vec<f64>,
}

impl TrafficMatrix {
    /// Parses a CSV text of `nodes` rows of `nodes` non-negative weights, separated by commas;
    /// blank lines and lines starting with `#` are skipped. Every row must have some weight.
    pub fn parse(text: &str, nodes: u32) -> Result<TrafficMatrix, String> {
        if nodes > MAX_NODES {
            return Err(format!("a traffic matrix has at most {MAX_NODES} nodes, the torus has {nodes}"));
        }
        let n = nodes as usize;
        let mut cumulative = Vec::with_capacity(n * n);
        let mut rows = 0;
        for (line_number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            rows += 1;
            if rows > n {
                return Err(format!("more than {n} rows (one per node of the torus): line {line_number} is row {rows}"));
            }
            let mut sum = 0.0;
            let mut count = 0;
            for entry in line.split(',') {
                count += 1;
                let weight: f64 = entry.trim().parse().ok().filter(|w: &f64| w.is_finite() && *w >= 0.0).ok_or_else(|| {
                    format!("line {line_number}, column {count}: `{}` is not a non-negative number", entry.trim().chars().take(20).collect::<String>())
                })?;
                if count <= n {
                    sum += weight;
                    cumulative.push(sum);
                }
            }
            if count != n {
                return Err(format!("line {line_number} has {count} weights, expected {n} (one per node of the torus)"));
            }
            if sum <= 0.0 {
                return Err(format!("line {line_number}: source {} has no destination (every weight is 0)", rows - 1));
            }
        }
        if rows != n {
            return Err(format!("{rows} rows, expected {n} (one per node of the torus)"));
        }
        Ok(TrafficMatrix { nodes, cumulative })
    }

    /// Reads and parses the file at `path` for a torus of `nodes` nodes.
    pub fn load(path: &str, nodes: u32) -> Result<TrafficMatrix, String> {
        if cfg!(target_arch = "wasm32") {
            return Err("the page cannot read files: a traffic matrix (traffic=matrix, matrix=FILE) runs from the torus command line".into());
        }
        let shown: String = path.chars().take(60).collect();
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
        if !meta.is_file() {
            return Err(format!("`{shown}` is not a file"));
        }
        if meta.len() > MAX_BYTES {
            return Err(format!("`{shown}` is {} bytes; a matrix file has at most {MAX_BYTES}", meta.len()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
        TrafficMatrix::parse(&text, nodes).map_err(|e| format!("`{shown}`: {e}"))
    }

    fn row_sums(&self, src: Node) -> &[f64] {
        let n = self.nodes as usize;
        &self.cumulative[src as usize * n..(src as usize + 1) * n]
    }

    /// Draws a destination of `src` in proportion to its row's weights.
    pub fn destination(&self, src: Node, rng: &mut Rng) -> Node {
        let sums = self.row_sums(src);
        let total = sums[sums.len() - 1];
        let u = rng.unit() * total;
        // The first destination whose running sum passes u: never one of weight 0.
        sums.partition_point(|&s| s <= u).min(sums.len() - 1) as Node
    }

    /// The row of `src`: each destination of positive weight with its probability.
    pub fn row(&self, src: Node) -> Vec<(Node, f64)> {
        let sums = self.row_sums(src);
        let total = sums[sums.len() - 1];
        let mut before = 0.0;
        let mut row = Vec::new();
        for (d, &s) in sums.iter().enumerate() {
            if s > before {
                row.push((d as Node, (s - before) / total));
            }
            before = s;
        }
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    #[test]
    fn a_matrix_draws_each_destination_in_proportion_to_its_weight() {
        let m = TrafficMatrix::parse("# four nodes\n0,1,0,3\n1,0,0,0\n\n0,0,0,2\n1,1,1,1\n", 4).unwrap();
        assert_eq!(m.row(0), vec![(1, 0.25), (3, 0.75)]);
        assert_eq!(m.row(2), vec![(3, 1.0)]);
        let mut rng = Rng::new(4, Stream::Traffic);
        let mut counts = [0u32; 4];
        for _ in 0..40_000 {
            counts[m.destination(0, &mut rng) as usize] += 1;
        }
        assert_eq!((counts[0], counts[2]), (0, 0));
        assert!((9_500..10_500).contains(&counts[1]), "{counts:?}");
        assert!((0..1000).all(|_| m.destination(1, &mut rng) == 0));
    }

    #[test]
    fn a_malformed_matrix_gets_a_one_line_error() {
        for (text, error) in [
            ("1,1,1,1\n1,1,1,1\n", "2 rows, expected 4 (one per node of the torus)"),
            ("1,1,1,1\n1,1,1\n1,1,1,1\n1,1,1,1\n", "line 2 has 3 weights, expected 4 (one per node of the torus)"),
            ("1,1,1,1\n1,1,1,1,1\n1,1,1,1\n1,1,1,1\n", "line 2 has 5 weights, expected 4 (one per node of the torus)"),
            ("1,1,1,1\n1,-1,1,1\n1,1,1,1\n1,1,1,1\n", "line 2, column 2: `-1` is not a non-negative number"),
            ("1,1,1,1\n1,1,1,1\n0,0,0,0\n1,1,1,1\n", "line 3: source 2 has no destination (every weight is 0)"),
            ("1,1,1,1\n1,1,1,1\n1,1,1,1\n1,1,1,1\n1,1,1,1\n", "more than 4 rows (one per node of the torus): line 5 is row 5"),
            ("1,1,NaN,1\n", "line 1, column 3: `NaN` is not a non-negative number"),
        ] {
            assert_eq!(TrafficMatrix::parse(text, 4).unwrap_err(), error, "{text:?}");
        }
    }
}
