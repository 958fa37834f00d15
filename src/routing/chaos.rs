//! The Chaos router (seed 004 Table 1: "Deadlock is avoided using deflection routing", after
//! Bolding, Fulgham & Snyder, "The Case for Chaotic Adaptive Routing", IEEE TC 1997).
//!
//! The model, `routing=chaos&vcs=1&buf=B&mq=Q` with `B ≥ len`:
//!
//! - **Virtual cut-through, no virtual channels.** Each input port has one buffer of `buf`
//!   flits. A header takes an output only if the buffer behind it has room for the whole
//!   packet, so a packet never stalls across a link: once its header has moved on, the rest
//!   follows one flit per cycle.
//! - **Minimal adaptive routing.** The candidates are the productive ports, recomputed from the
//!   current node at every hop (a deflected packet heads for its destination again from where
//!   it landed); at an offset of exactly k/2 both directions are productive. The router's
//!   selection takes the one with the fewest flits queued downstream, as for MIN AD.
//! - **A shared multiqueue (MQ) of Q packet slots per router.** A header blocked at a network
//!   input (no productive output with room) moves into a free MQ slot, freeing the input for
//!   the packets behind it. The MQ is the router's, not the routing function's: the simulator
//!   adds this option (`sim`, `Simulation::allocate_vcs`).
//! - **Service order** (seed 004 §5.5: CHAOS "accepts traffic from the node (source queue) only
//!   if resources are available after serving the input channels and the shared queue"): the
//!   router allocates to MQ packets first, then to packets at its input buffers, then to
//!   injection, oldest first within each class.
//! - **Deflection.** When every MQ slot is taken, the oldest MQ packet still waiting for an output
//!   is misrouted to an output with room for it, chosen uniformly at random with the routing
//!   random stream (so a run is a function of its seed); the report counts these `misroutes`.
//! - **Injection limit.** A source has at most Q + 2n − 1 packets in the network (injected and
//!   not yet delivered); its next packet waits in the source queue until one is delivered.
//!
//! **Deadlock freedom.** If no flit can ever move again, take any stuck packet: it waits for an
//! output with room, and it would enter a free MQ slot or be deflected if its router had one, so
//! its router's MQ is full and every output buffer of its router lacks room, and is therefore
//! held by a stuck packet too; following the channels, which reach every router of the torus,
//! every MQ is full and every channel buffer holds a packet — N · (Q + 2n) packets inside the
//! routers, more than the N · (Q + 2n − 1) the injection limit ever lets in. Packets that enter
//! the MQ or are deflected never wait for each other in a cycle of full buffers, so no virtual
//! channels are needed (`vcs` must be 1).
//!
//! **Livelock** is excluded only probabilistically, as seed 004 §4 says of Chaos: a deflection
//! happens only when an MQ is full, and the deflected packet then routes minimally again.

use super::{label_vcs, Candidates, RoutePlan, Routing, VcClass, EJECT};
use crate::rng::Draw;
use crate::topology::{Direction, Node, Torus};

#[derive(Clone, Copy, Debug)]
pub struct Chaos;

/// Packets a source may have in the network at once: one fewer than a deadlock needs per node
/// (module documentation).
pub fn outstanding_limit(mq: u32, ports: u32) -> u32 {
    mq + ports - 1
}

impl Routing for Chaos {
    /// Only the destination: the productive directions are recomputed at every hop, since a
    /// deflection may have moved the packet off its original quadrant.
    fn plan(&self, t: &Torus, src: Node, dest: Node, _rng: &mut impl Draw) -> RoutePlan {
        RoutePlan::towards(t, src, dest, dest, 0, 0)
    }

    fn vc_classes(&self, vcs: u32, _n: u32) -> Vec<VcClass> {
        label_vcs(vcs, &[(1, VcClass::new("cut-through buffer (deflection, no escape VCs)", false, false))])
    }

    fn candidates(&self, t: &Torus, at: Node, plan: &mut RoutePlan, out: &mut Candidates) {
        if at == plan.dest {
            out.push(EJECT, 0, 0);
            return;
        }
        for d in 0..t.n {
            let o = t.offset(at, plan.dest, d);
            if o == 0 {
                continue;
            }
            if 2 * o <= t.k {
                out.push(Direction::Plus.port(d), 1, 0);
            }
            if 2 * o >= t.k {
                out.push(Direction::Minus.port(d), 1, 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::follow;
    use crate::rng::{Rng, Stream};

    fn ports(t: &Torus, at: Node, dest: Node) -> Vec<u32> {
        let mut c = Candidates::default();
        let mut plan = Chaos.plan(t, at, dest, &mut Rng::new(1, Stream::Routing));
        Chaos.candidates(t, at, &mut plan, &mut c);
        c.as_slice().iter().map(|c| c.port).collect()
    }

    #[test]
    fn candidates_are_the_productive_ports_from_where_the_packet_is() {
        let t = Torus::new(8, 2);
        // (0,0) → (2,6): + x, − y (across the wrap).
        assert_eq!(ports(&t, 0, t.node_at(&[2, 6])), [0, 3]);
        // Offset k/2 in x: both x directions; y done.
        assert_eq!(ports(&t, 0, t.node_at(&[4, 0])), [0, 1]);
        // At the destination: eject.
        assert_eq!(ports(&t, 9, 9), [EJECT]);
        // After a deflection the same destination is reached minimally from the new node:
        // from (7,0) the shortest way to (2,6) crosses the x wrap (+3) and the y wrap (−2).
        assert_eq!(ports(&t, t.node_at(&[7, 0]), t.node_at(&[2, 6])), [0, 3]);
    }

    #[test]
    fn any_choice_of_candidates_is_a_minimal_path() {
        let t = Torus::new(5, 3);
        let mut rng = Rng::new(4, Stream::Routing);
        for (src, dest) in [(0, 124), (7, 93), (61, 60), (30, 30)] {
            let plan = Chaos.plan(&t, src, dest, &mut rng);
            let hops = follow(&t, &Chaos, src, plan, |c| c[rng.below(c.len() as u32) as usize]);
            assert_eq!(hops.len() as u32, t.distance(src, dest));
        }
    }
}
