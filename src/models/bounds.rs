//! Seed 004's channel-load throughput bounds (being built).

use crate::scenario::{RoutingKind, ScenarioError};
use crate::topology::{Node, Torus};

/// The permutation that loads one channel most under an oblivious `routing`.
pub fn worst_case_permutation(_torus: &Torus, routing: RoutingKind) -> Result<Vec<Node>, ScenarioError> {
    Err(ScenarioError { key: "traffic".into(), message: format!("worstcase for routing={routing} is not implemented yet") })
}
