//! Which scenario features this build of the simulator implements. The models evaluate any valid
//! scenario; the simulator rejects one that names a feature not built with a clear error instead
//! of running something else. Every routing algorithm is built; scouting switching is not
//! combined with chaos, which has no virtual channels to probe on.

use crate::scenario::{RoutingKind, Scenario, ScenarioError, Switching};

pub fn check_supported(s: &Scenario) -> Result<(), ScenarioError> {
    if s.switching == Switching::Scouting && s.routing == RoutingKind::Chaos {
        return Err(ScenarioError {
            key: "switching".into(),
            message: "scouting switching needs virtual-channel routing; chaos deflects instead".into(),
        });
    }
    Ok(())
}
