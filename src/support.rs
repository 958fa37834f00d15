//! Which scenario features this build of the simulator implements. The models evaluate any valid
//! scenario; the simulator rejects one that names a feature not built yet with a clear error
//! instead of running something else.

use crate::scenario::{RoutingKind, Scenario, ScenarioError, Switching};

pub fn check_supported(s: &Scenario) -> Result<(), ScenarioError> {
    let routing_built = matches!(
        s.routing,
        RoutingKind::Dor
            | RoutingKind::Duato
            | RoutingKind::Minad
            | RoutingKind::Goal
            | RoutingKind::Val
            | RoutingKind::Romm
            | RoutingKind::Rlb
            | RoutingKind::Nbc
            | RoutingKind::Adaptive
    );
    if !routing_built {
        return Err(ScenarioError {
            key: "routing".into(),
            message: format!(
                "routing={} is not implemented yet; available: dor, duato, minad, goal, val, romm, rlb, nbc, adaptive",
                s.routing
            ),
        });
    }
    if s.switching == Switching::Scouting && s.routing == RoutingKind::Chaos {
        return Err(ScenarioError {
            key: "switching".into(),
            message: "scouting switching needs virtual-channel routing; chaos deflects instead".into(),
        });
    }
    Ok(())
}
