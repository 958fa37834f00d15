//! Pieces shared by the seed models: the VC-occupancy birth–death chain that seeds 000, 001
//! and 003 all use, the exact destination classes of a 2-D torus that their `mode="exact"`
//! readings average over, and the fixed-point iteration that solves a model for one rate.

/// Relative change between rounds below which a fixed point counts as converged.
pub const CONVERGENCE_TOLERANCE: f64 = 1e-12;
/// Rounds before the iteration gives up and the rate is reported as saturated. Only a rate
/// within about 10⁻⁸ of the fold needs this many.
pub const MAX_ROUNDS: usize = 1_000;
/// Slowest plain convergence tolerated before extrapolating: below this ratio of successive
/// steps plain iteration is already fast.
const EXTRAPOLATE_ABOVE_RATIO: f64 = 0.5;

/// The VC-occupancy chain (seed 000 eq. (20), seed 001 eq. (12), seed 003 eqs. (29)–(30)):
/// P_v for v = 0..V from q_0 = 1, q_v = q_{v−1} λ_c S for 0 < v < V and
/// q_V = q_{V−1} λ_c/(1/S − λ_c), normalised over v = 0..V. Needs λ_c S < 1.
pub fn vc_occupancy(channel_rate: f64, service_time: f64, vcs: usize) -> Vec<f64> {
    let weights: Vec<f64> = occupancy_weights(channel_rate * service_time, vcs).collect();
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

/// P_V of [`vc_occupancy`] alone, without allocating: the probability that all V VCs of a
/// channel are busy.
pub fn all_vcs_busy(channel_rate: f64, service_time: f64, vcs: usize) -> f64 {
    let (total, last) =
        occupancy_weights(channel_rate * service_time, vcs).fold((0.0, 0.0), |(total, _), w| (total + w, w));
    last / total
}

/// P_0 and P_V of [`vc_occupancy`] without allocating: the probabilities that no VC and that
/// every VC of a channel is busy.
pub fn occupancy_ends(channel_rate: f64, service_time: f64, vcs: usize) -> (f64, f64) {
    let (total, last) =
        occupancy_weights(channel_rate * service_time, vcs).fold((0.0, 0.0), |(total, _), w| (total + w, w));
    (1.0 / total, last / total)
}

/// The unnormalised weights q_0..q_V of the occupancy chain at channel load λ_c S.
fn occupancy_weights(load: f64, vcs: usize) -> impl Iterator<Item = f64> {
    let mut weight = 1.0;
    (0..=vcs).map(move |busy| {
        if busy > 0 {
            weight *= if busy < vcs { load } else { load / (1.0 - load) };
        }
        weight
    })
}

/// The multiplexing degree (seed 000 eq. (21), seed 001 eq. (13), seed 003 eq. (31)):
/// V̄ = Σ v² P_v / Σ v P_v, the mean number of messages sharing a busy channel; 1 at zero
/// load, where no VC is busy.
pub fn multiplexing_degree(occupancy: &[f64]) -> f64 {
    let (squares, firsts) = occupancy.iter().enumerate().skip(1).fold((0.0, 0.0), |(squares, firsts), (busy, p)| {
        (squares + (busy * busy) as f64 * p, firsts + busy as f64 * p)
    });
    if firsts > 0.0 {
        squares / firsts
    } else {
        1.0
    }
}

/// Whether a model gives every message the mean distance or averages over destinations
/// (`mode=` in the model specifications).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Distances {
    /// One path at the mean distance: the papers' own shortcut.
    #[default]
    Mean,
    /// Every destination class (h_x, h_y) with its own route length, weighted by how many of
    /// the N − 1 destinations it holds.
    Exact,
}

/// A class of destinations at ring distances (h_x, h_y) from the source, and the fraction of
/// the N − 1 other nodes in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DestinationClass {
    pub hops_x: usize,
    pub hops_y: usize,
    pub probability: f64,
}

impl DestinationClass {
    /// ‖H‖ = h_x + h_y, the minimal route length.
    pub fn hops(&self) -> usize {
        self.hops_x + self.hops_y
    }

    /// The probability that one dimension is finished after `hops_done` < ‖H‖ hops
    /// (`docs/models/nbc.md` §6): every split (x, y) of the hops done with x ≤ h_x and y ≤ h_y
    /// is equally likely, and a dimension is finished when x = h_x or y = h_y. A route along
    /// one dimension has one dimension left throughout.
    pub fn one_dimension_left(&self, hops_done: usize) -> f64 {
        let splits = self.hops_x.min(hops_done) + 1 - hops_done.saturating_sub(self.hops_y);
        let finished = (self.hops_x <= hops_done) as usize + (self.hops_y <= hops_done) as usize;
        finished as f64 / splits as f64
    }
}

/// Every destination class of a 2-D k × k torus under uniform traffic, the source excluded.
pub fn destination_classes(k: u32) -> Vec<DestinationClass> {
    let ring_distances = k as usize / 2 + 1;
    let mut nodes_at = vec![0usize; ring_distances];
    for offset in 0..k {
        nodes_at[offset.min(k - offset) as usize] += 1;
    }
    let others = (k as f64) * (k as f64) - 1.0;
    let mut classes = Vec::with_capacity(ring_distances * ring_distances);
    for (hops_x, &along_x) in nodes_at.iter().enumerate() {
        for (hops_y, &along_y) in nodes_at.iter().enumerate() {
            if hops_x + hops_y > 0 {
                classes.push(DestinationClass { hops_x, hops_y, probability: (along_x * along_y) as f64 / others });
            }
        }
    }
    classes
}

/// |new − old| relative to the larger of the two; 0 when they are equal (both 0 included).
fn relative_change(new: f64, old: f64) -> f64 {
    if new == old {
        0.0
    } else {
        (new - old).abs() / new.abs().max(old.abs())
    }
}

/// Iterates a monotone scalar map from `start` (an idle network) to its least fixed point.
///
/// `map(x)` returns the next state and whatever the model derives at `x`, or `None` when `x`
/// already shows saturation. The derived values at the first state that `map` moves by no
/// more than [`CONVERGENCE_TOLERANCE`] are returned; `None` means saturation, or no
/// convergence within [`MAX_ROUNDS`].
///
/// Near the fold plain iteration converges with a ratio close to 1, so once two successive
/// steps shrink geometrically and slowly, the iterate jumps to the Aitken extrapolate of the
/// limit, kept to half the distance to `upper`, the edge of the map's domain. Should a jump
/// land where `map` reports saturation, iteration resumes without extrapolation from where
/// the jump started, so that "saturated" is only ever the verdict of plain iteration.
pub fn least_fixed_point<T>(start: f64, upper: f64, mut map: impl FnMut(f64) -> Option<(f64, T)>) -> Option<T> {
    let mut state = start;
    let mut previous_step: Option<f64> = None;
    let mut jumped_from: Option<f64> = None;
    let mut may_extrapolate = true;
    for _ in 0..MAX_ROUNDS {
        let Some((next, derived)) = map(state) else {
            let from = jumped_from.take()?;
            state = from;
            previous_step = None;
            may_extrapolate = false;
            continue;
        };
        if relative_change(next, state) <= CONVERGENCE_TOLERANCE {
            return Some(derived);
        }
        let step = next - state;
        let ratio = previous_step.map_or(0.0, |before| step / before);
        if may_extrapolate && ratio > EXTRAPOLATE_ABOVE_RATIO && ratio < 1.0 {
            previous_step = None;
            jumped_from = Some(next);
            let limit = next + step * ratio / (1.0 - ratio);
            state = limit.min(0.5 * (next + upper));
        } else {
            previous_step = Some(step);
            jumped_from = None;
            state = next;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_is_a_distribution_that_shifts_up_with_load() {
        let light = vc_occupancy(0.01, 20.0, 4);
        let heavy = vc_occupancy(0.03, 20.0, 4);
        for occupancy in [&light, &heavy] {
            assert!((occupancy.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        assert!(heavy[4] > light[4] && heavy[0] < light[0]);
        assert_eq!(vc_occupancy(0.0, 20.0, 4), vec![1.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(all_vcs_busy(0.03, 20.0, 4), heavy[4]);
        let (idle, busy) = occupancy_ends(0.03, 20.0, 4);
        assert!((idle - heavy[0]).abs() < 1e-15 && (busy - heavy[4]).abs() < 1e-15);
        // One VC: busy with probability λ_c S.
        assert!((all_vcs_busy(0.01, 20.0, 1) - 0.2).abs() < 1e-15);
    }

    #[test]
    fn multiplexing_degree_is_one_when_idle_or_single_vc() {
        assert_eq!(multiplexing_degree(&[1.0, 0.0, 0.0]), 1.0);
        assert_eq!(multiplexing_degree(&[0.4, 0.6]), 1.0);
        // Two VCs each busy half the time when any is: (1·0.25 + 4·0.25)/(0.25 + 0.5).
        assert!((multiplexing_degree(&[0.5, 0.25, 0.25]) - 1.25 / 0.75).abs() < 1e-12);
    }

    #[test]
    fn destination_classes_cover_every_other_node_at_the_exact_mean_distance() {
        for k in [2, 3, 8, 9, 16] {
            let classes = destination_classes(k);
            let nodes = (k * k) as f64;
            assert!((classes.iter().map(|c| c.probability).sum::<f64>() - 1.0).abs() < 1e-12, "k={k}");
            let mean: f64 = classes.iter().map(|c| c.probability * c.hops() as f64).sum();
            // Mean ring distance over all k offsets is k/4 (even) or (k − 1/k)/4 (odd); the
            // source's own offset (0, 0) is left out of the 2-D mean.
            let per_dimension = if k.is_multiple_of(2) { k as f64 / 4.0 } else { (k as f64 - 1.0 / k as f64) / 4.0 };
            assert!((mean - 2.0 * per_dimension * nodes / (nodes - 1.0)).abs() < 1e-12, "k={k}");
        }
    }

    #[test]
    fn one_dimension_left_counts_finished_splits() {
        let class = DestinationClass { hops_x: 2, hops_y: 1, probability: 1.0 };
        // After 0 hops: (0,0), nothing finished. After 1: (1,0) or (0,1), the second finishes y.
        // After 2: (2,0) or (1,1), both finish a dimension.
        assert_eq!(class.one_dimension_left(0), 0.0);
        assert_eq!(class.one_dimension_left(1), 0.5);
        assert_eq!(class.one_dimension_left(2), 1.0);
        let straight = DestinationClass { hops_x: 0, hops_y: 3, probability: 1.0 };
        assert!((0..3).all(|done| straight.one_dimension_left(done) == 1.0));
    }

    #[test]
    fn least_fixed_point_finds_the_lower_root_of_a_fold() {
        // x = 0.24 + x²: roots 0.4 and 0.6; from 0 the iteration must stop at 0.4, slowly
        // enough that extrapolation is exercised.
        let root = least_fixed_point(0.0, f64::INFINITY, |x| Some((0.24 + x * x, x)));
        assert!((root.expect("converges") - 0.4).abs() < 1e-10);
        // Far from its root at 0.4 this map converges more slowly than near it, so the first
        // extrapolated jump overshoots to 0.79, where the map reports saturation; plain
        // iteration must take over and still find the root.
        let slowing = |x: f64| {
            let gap = 0.4 - x;
            (x < 0.41).then_some((0.4 - 0.5 * gap - 2.0 * gap * gap, x))
        };
        assert!((least_fixed_point(0.2, 1.0, slowing).expect("converges") - 0.4).abs() < 1e-10);
        // Past the fold (x = 0.26 + x² has no root) it must not report a fixed point.
        assert!(least_fixed_point(0.0, 1.0, |x: f64| (x < 1.0).then_some((0.26 + x * x, x))).is_none());
    }
}
