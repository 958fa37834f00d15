//! The queueing formulas of §§4–6, each on its own so that each can be checked
//! against values worked by hand.

/// Draper & Ghosh's M/G/1 mean wait (§4): arrivals at `rate`, mean service `service`,
/// messages of `len` flits, the second moment approximated by S̄² + (S̄ − M)²:
/// W = λ S̄² (1 + (S̄ − M)²/S̄²) / (2 (1 − λ S̄)). Infinite at or past ρ = λ S̄ = 1.
pub fn mg1_wait(rate: f64, service: f64, len: f64) -> f64 {
    let rho = rate * service;
    if rho >= 1.0 {
        return f64::INFINITY;
    }
    rate * (service * service + (service - len) * (service - len)) / (2.0 * (1.0 - rho))
}

/// Welch's M/G/1 with an exceptional first service: a message that finds its queue empty is
/// served in S₀ (second moment E₀), one that queued in S₁ (E₁). With ρ_i = λ S_i:
/// W = λ E₁ / (2 (1 − ρ₁)) + λ (E₀ − E₁) / (2 (1 − ρ₁ + ρ₀)). Infinite at or past ρ₁ = 1.
/// With S₀ = S₁ and E = S̄² + (S̄ − M)² it is [`mg1_wait`].
pub fn welch_wait(rate: f64, fresh: f64, fresh_second: f64, queued: f64, queued_second: f64) -> f64 {
    let (rho_fresh, rho_queued) = (rate * fresh, rate * queued);
    if rho_queued >= 1.0 || !fresh.is_finite() || !fresh_second.is_finite() {
        return f64::INFINITY;
    }
    rate * queued_second / (2.0 * (1.0 - rho_queued)) + rate * (fresh_second - queued_second) / (2.0 * (1.0 - rho_queued + rho_fresh))
}

/// The mean residual hold a header finds when a VC it needs is taken, with Draper & Ghosh's
/// second moment: R = (S̄² + (S̄ − M)²) / (2 S̄). It is the M/G/1 wait over ρ as ρ → 0 (W/ρ =
/// R/(1 − ρ)); which queue a blocked header then meets is [`vc_wait`]'s concern.
pub fn residual_hold(hold: f64, len: f64) -> f64 {
    (hold * hold + (hold - len) * (hold - len)) / (2.0 * hold)
}

/// The ejection port as an M/D/1 server of `len`-flit messages at `rate` messages/cycle
/// (§4): W = λ M² / (2 (1 − λ M)).
pub fn ejection_wait(rate: f64, len: f64) -> f64 {
    let rho = rate * len;
    if rho >= 1.0 {
        return f64::INFINITY;
    }
    rate * len * len / (2.0 * (1.0 - rho))
}

/// Cobham's non-preemptive priorities against first come, first served: in an M/G/1 queue of
/// load ρ, a class whose elders carry load σ₋ and which with them carries σ₊ waits
/// (1 − ρ)/((1 − σ₋)(1 − σ₊)) times the FCFS wait W = W₀/(1 − ρ). Infinite at σ₊ ≥ 1.
pub fn priority_wait_ratio(elders: f64, through: f64, load: f64) -> f64 {
    if through >= 1.0 {
        return f64::INFINITY;
    }
    (1.0 - load) / ((1.0 - elders) * (1.0 - through))
}

/// The share of a resource's traffic that comes from *other* inputs than one carrying
/// `from_input` of its `total` messages/cycle: 1 − λ_{u→c}/λ_c (§4, the same-input
/// exclusion). Messages from one input were serialised upstream and seldom find the resource
/// taken by each other.
pub fn other_inputs_share(from_input: f64, total: f64) -> f64 {
    if total <= 0.0 {
        0.0
    } else {
        (1.0 - from_input / total).max(0.0)
    }
}

/// How long a header blocked at a VC class waits (§10's finite-source suggestion): the
/// residual hold of the class's `vcs` VCs, the first of which to free serves it, plus a hold of
/// S/V for every older header waiting for them from *another* input. `others` is
/// Σ_{i ≠ own} λ_i (1 − λ_i/λ_c) over the class's other inputs, the rate of their headers that
/// find it busy: W = (R/V) / (1 − (S/V) · others).
pub fn vc_wait(hold: f64, len: f64, vcs: f64, others: f64) -> f64 {
    let queue = hold / vcs * others;
    if queue >= 1.0 {
        return f64::INFINITY;
    }
    residual_hold(hold, len) / vcs / (1.0 - queue)
}

/// [`vc_wait`] from S/V and R/V, which depend on the class's hold alone: a round computes them
/// once per resource and this per decision, the same arithmetic.
pub fn queued_wait(residual_per_vc: f64, hold_per_vc: f64, others: f64) -> f64 {
    let queue = hold_per_vc * others;
    if queue >= 1.0 {
        return f64::INFINITY;
    }
    residual_per_vc / (1.0 - queue)
}

/// How long a header waits for the flit slots of its channel when worms of other inputs on its
/// other VCs stream `streaming` flits/cycle there, and the earlier options on the same channel,
/// passed over because busy, are each idle for the rest of their hold (`idle`, the product of
/// their 1 − M/S): the channel streams another worm with probability 1 − (1 − streaming)·idle,
/// whose residual M/2 the header waits for, behind the others' flits:
/// W = (1 − (1 − u) · idle) · (M/2) / (1 − u).
pub fn channel_slot_wait(streaming: f64, idle: f64, len: f64) -> f64 {
    if streaming >= 1.0 {
        return f64::INFINITY;
    }
    (1.0 - (1.0 - streaming) * idle) * (len / 2.0) / (1.0 - streaming)
}

/// The mean of [`channel_slot_wait`] over the headers that wait: (M/2) / (1 − u).
pub fn channel_slot_mean(streaming: f64, len: f64) -> f64 {
    if streaming >= 1.0 {
        return f64::INFINITY;
    }
    (len / 2.0) / (1.0 - streaming)
}

/// The wait of a header behind the previous message of its own input (which the same-input
/// exclusion leaves out): it follows that message closely with probability `followed` (it
/// waited for the input), that message took the same resource with probability `same_way`,
/// and it then holds the resource for `hold`, of which the first M + 1 cycles pass before
/// the header arrives: followed · same_way · (S − M − 1).
pub fn behind_own_input(followed: f64, same_way: f64, hold: f64, len: f64) -> f64 {
    followed * same_way * (hold - len - 1.0).max(0.0)
}

/// Convolution of independent occupancy distributions (P_v of each VC class of a channel): the
/// distribution of the channel's busy VCs in all.
pub fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mg1_wait_by_hand() {
        // λ = 0.01, S = 20, M = 16: ρ = 0.2; λ (S² + (S − M)²) = 0.01 · (400 + 16) = 4.16;
        // W = 4.16 / (2 · 0.8) = 2.6.
        assert!((mg1_wait(0.01, 20.0, 16.0) - 2.6).abs() < 1e-12);
        // Deterministic service (S = M): the M/D/1 wait λ M² / (2 (1 − ρ)): 0.01·256/1.68.
        assert!((mg1_wait(0.01, 16.0, 16.0) - 2.56 / 1.68).abs() < 1e-12);
        assert_eq!(mg1_wait(0.05, 20.0, 16.0), f64::INFINITY);
        assert_eq!(mg1_wait(0.0, 20.0, 16.0), 0.0);
    }

    #[test]
    fn welch_wait_by_hand() {
        // S₀ = S₁ = 20, E = 416: the M/G/1 of `mg1_wait_by_hand`, 2.6.
        assert!((welch_wait(0.01, 20.0, 416.0, 20.0, 416.0) - 2.6).abs() < 1e-12);
        assert!((welch_wait(0.01, 20.0, 416.0, 20.0, 416.0) - mg1_wait(0.01, 20.0, 16.0)).abs() < 1e-12);
        // λ = 0.01, S₀ = 30 (E₀ = 1000), S₁ = 20 (E₁ = 450): ρ₁ = 0.2, ρ₀ = 0.3;
        // 0.01 · 450 / 1.6 + 0.01 · 550 / (2 · 1.1) = 2.8125 + 2.5 = 5.3125.
        assert!((welch_wait(0.01, 30.0, 1000.0, 20.0, 450.0) - 5.3125).abs() < 1e-12);
        assert_eq!(welch_wait(0.05, 30.0, 1000.0, 20.0, 450.0), f64::INFINITY);
        assert_eq!(welch_wait(0.0, 30.0, 1000.0, 20.0, 450.0), 0.0);
    }

    #[test]
    fn residual_hold_is_the_wait_over_rho_at_no_load() {
        // S = 20, M = 16: (400 + 16) / 40 = 10.4 = W/ρ at ρ → 0 (W/ρ = 2.6/0.2 · 0.8 at ρ = 0.2).
        assert!((residual_hold(20.0, 16.0) - 10.4).abs() < 1e-12);
        assert!((mg1_wait(0.01, 20.0, 16.0) / 0.2 * 0.8 - residual_hold(20.0, 16.0)).abs() < 1e-12);
        // A deterministic hold of 16 cycles: half of it.
        assert!((residual_hold(16.0, 16.0) - 8.0).abs() < 1e-12);
    }

    #[test]
    fn priority_wait_ratio_by_hand() {
        // Loads 0.32 (elder) and 0.16 (younger), ρ = 0.48: the elder waits
        // 0.52/(1 · 0.68) of the FCFS wait, the younger 0.52/(0.68 · 0.52) = 1/0.68.
        assert!((priority_wait_ratio(0.0, 0.32, 0.48) - 0.52 / 0.68).abs() < 1e-15);
        assert!((priority_wait_ratio(0.32, 0.48, 0.48) - 1.0 / 0.68).abs() < 1e-15);
        // Kleinrock's conservation: Σ ρ_k W_k is the FCFS ρW.
        let (elder, younger) = (priority_wait_ratio(0.0, 0.32, 0.48), priority_wait_ratio(0.32, 0.48, 0.48));
        assert!((0.32 * elder + 0.16 * younger - 0.48).abs() < 1e-15);
        // One class is FCFS.
        assert_eq!(priority_wait_ratio(0.0, 0.48, 0.48), 1.0);
        assert_eq!(priority_wait_ratio(0.5, 1.0, 1.0), f64::INFINITY);
    }

    #[test]
    fn ejection_wait_by_hand() {
        // λ = 0.03, M = 16: ρ = 0.48; 0.03 · 256 / (2 · 0.52) = 7.3846…
        assert!((ejection_wait(0.03, 16.0) - 7.68 / 1.04).abs() < 1e-12);
        assert_eq!(ejection_wait(1.0 / 16.0, 16.0), f64::INFINITY);
    }

    #[test]
    fn channel_slot_wait_is_the_chance_of_a_wait_times_its_mean() {
        // Half the channel's flit slots streaming, M = 16: a waiting header waits 8 / 0.5 = 16.
        assert_eq!(channel_slot_mean(0.5, 16.0), 16.0);
        // No idle option passed over: it waits whenever the channel streams (probability 0.5).
        assert_eq!(channel_slot_wait(0.5, 1.0, 16.0), 0.5 * channel_slot_mean(0.5, 16.0));
        // Every earlier option on the channel busy: it always waits.
        assert_eq!(channel_slot_wait(0.5, 0.0, 16.0), channel_slot_mean(0.5, 16.0));
        assert_eq!(channel_slot_mean(1.0, 16.0), f64::INFINITY);
    }

    #[test]
    fn same_input_exclusion() {
        // DOR tornado, channel 0→1 class 1 (§4): 2λ, all of it from 7→0, so no other
        // input competes; channel 2→3 class 0 carries 3λ, 2λ of it from 1→2.
        assert_eq!(other_inputs_share(2.0, 2.0), 0.0);
        assert!((other_inputs_share(2.0, 3.0) - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(other_inputs_share(0.0, 0.0), 0.0);
    }

    #[test]
    fn vc_wait_by_hand() {
        // S = 20, M = 16, one VC: residual (400 + 16)/40 = 10.4; others 0.01/cycle: queue
        // 20 · 0.01 = 0.2, W = 10.4 / 0.8 = 13.
        assert!((vc_wait(20.0, 16.0, 1.0, 0.01) - 13.0).abs() < 1e-12);
        // No other input: the residual alone.
        assert!((vc_wait(20.0, 16.0, 1.0, 0.0) - 10.4).abs() < 1e-12);
        // Two VCs: residual/2 = 5.2, queue 10 · 0.01 = 0.1: 5.2/0.9.
        assert!((vc_wait(20.0, 16.0, 2.0, 0.01) - 5.2 / 0.9).abs() < 1e-12);
        assert_eq!(vc_wait(20.0, 16.0, 1.0, 0.05), f64::INFINITY);
    }

    #[test]
    fn queued_wait_is_vc_wait_bit_for_bit() {
        for (hold, vcs, others) in [(20.0, 1.0, 0.01), (23.7, 3.0, 0.0137), (17.0, 2.0, 0.0), (40.0, 1.0, 0.03), (19.3, 5.0, 0.2)] {
            let split = queued_wait(residual_hold(hold, 16.0) / vcs, hold / vcs, others);
            assert_eq!(split.to_bits(), vc_wait(hold, 16.0, vcs, others).to_bits(), "{hold} {vcs} {others}");
        }
    }

    #[test]
    fn channel_slot_wait_by_hand() {
        // Others stream 0.28 flits/cycle (nbc tornado's injection: 2λM at λ = 0.00875), no
        // option passed over: 0.28 · 8 / 0.72 = 3.11 (the simulator measures 3.5).
        assert!((channel_slot_wait(0.28, 1.0, 16.0) - 0.28 * 8.0 / 0.72).abs() < 1e-12);
        // An adaptive VC passed over as busy, idle 1 − 16/20 = 0.2 of its hold, nothing else
        // streaming: 0.8 · 8 = 6.4.
        assert!((channel_slot_wait(0.0, 0.2, 16.0) - 6.4).abs() < 1e-12);
        assert_eq!(channel_slot_wait(0.0, 1.0, 16.0), 0.0);
    }

    #[test]
    fn behind_own_input_by_hand() {
        // Followed closely half the time, 2/3 of the input going the same way, hold 23 of
        // which 17 pass: 0.5 · 2/3 · 6 = 2.
        assert!((behind_own_input(0.5, 2.0 / 3.0, 23.0, 16.0) - 2.0).abs() < 1e-12);
        assert_eq!(behind_own_input(0.5, 1.0, 17.0, 16.0), 0.0);
    }

    #[test]
    fn convolution_adds_busy_counts() {
        // Two classes, each busy with probability 0.5 and 0.2: 0, 1 or 2 busy.
        let c = convolve(&[0.5, 0.5], &[0.8, 0.2]);
        assert_eq!(c.len(), 3);
        for (got, expected) in c.iter().zip([0.4, 0.5, 0.1]) {
            assert!((got - expected).abs() < 1e-15, "{c:?}");
        }
    }
}
