//! The worst-case permutation of an oblivious routing (`traffic=worstcase`): the destination
//! per source that loads one channel most (`docs/models/bounds.md` §4.2, Towles–Dally). It is a
//! traffic pattern defined by the routing's expected channel loads, so it sits here, under both
//! the simulator that sends it and the bounds that analyse it.

use super::lattice::Lattice;
use super::matching;
use super::oblivious::{self, Oblivious};
use crate::scenario::{RoutingKind, ScenarioError};
use crate::topology::{Node, Torus};

/// Largest torus, in nodes, for which [`worst_case_permutation`] runs its 2n Hungarian
/// matchings of N × N (O(N³) each: about a quarter of a second at 256 nodes).
pub const WORST_CASE_MAX_NODES: u32 = 256;

/// The permutation (destination per source) that loads one channel most under an oblivious
/// `routing` (§1, §4.2, Towles–Dally). For each of node 0's 2n channels c — enough by
/// translation invariance — a maximum-weight perfect matching with weights
/// w_c(s, d) = K_{d−s}(c − s) picks the permutation; the heaviest of the 2n wins.
pub fn worst_case_permutation(torus: &Torus, routing: RoutingKind) -> Result<Vec<Node>, ScenarioError> {
    let error = |message: String| ScenarioError { key: "traffic".into(), message };
    let oblivious = Oblivious::of(routing).ok_or_else(|| {
        error(format!(
            "traffic=worstcase needs an oblivious routing (dor, val, romm, rlb); no analytical worst case is \
             known for routing={routing}"
        ))
    })?;
    if torus.nodes() > WORST_CASE_MAX_NODES {
        return Err(error(format!(
            "traffic=worstcase is computed for at most {WORST_CASE_MAX_NODES} nodes (k^n); this torus has {}",
            torus.nodes()
        )));
    }
    Ok(worst_case(torus, oblivious).0)
}

/// The worst-case permutation of [`worst_case_permutation`] and the load it puts on its channel,
/// for any [`Oblivious`] variant. No size limit here: it costs 2n matchings of O(N³).
pub fn worst_case(torus: &Torus, routing: Oblivious) -> (Vec<Node>, f64) {
    let lat = Lattice::new(torus);
    let kernels = oblivious::unit_flow_kernels(torus, routing);
    let mut best = (Vec::new(), f64::NEG_INFINITY);
    for port in 0..2 * lat.n {
        let weight: Vec<Vec<f64>> = (0..lat.nodes)
            .map(|s| {
                let channel = lat.minus(0, s) as usize * 2 * lat.n + port;
                (0..lat.nodes).map(|d| kernels[lat.minus(d, s) as usize][channel]).collect()
            })
            .collect();
        let (assignment, load) = matching::max_weight_matching(&weight);
        if load > best.1 {
            best = (assignment.into_iter().map(|d| d as Node).collect(), load);
        }
    }
    best
}
