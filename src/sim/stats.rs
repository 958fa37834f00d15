//! Statistics: observes the network, never changes it.
//!
//! Messages generated during the measurement window `[warmup, warmup + cycles)` are *labelled*;
//! latency, hop and queueing statistics are over labelled messages (seed 004's method), while
//! throughput and utilisation count everything that moves inside the window.

use super::table::Table;
use serde::{Deserialize, Serialize};

/// Base batches of the within-run confidence interval: the window's labelled messages grouped
/// by generation time into this many equal slices, which [`Stats::latency_interval`] merges in
/// pairs until their means are nearly uncorrelated.
pub const BASE_BATCHES: usize = 1024;
/// Fewest batches the interval merges down to: below this the t quantile and the variance of
/// so few means make the interval too unsteady to trust.
pub const MIN_BATCHES: usize = 8;
/// Batch means whose lag-1 autocorrelation is at most this count as nearly uncorrelated.
pub const LAG1_THRESHOLD: f64 = 0.05;
/// The largest lag-1 autocorrelation the interval allows for.
const MAX_CORRECTED_LAG1: f64 = 0.9;
/// Latencies are counted exactly up to this many cycles; longer ones share the last bin.
const HISTOGRAM_EXACT: usize = 1 << 16;
/// Bins in the reported histogram.
const HISTOGRAM_BINS: usize = 64;
/// Hops are tracked individually up to this index (longer paths share the last entry).
pub const MAX_TRACKED_HOPS: usize = 64;
/// Scouting backtracks and chaos deflections remembered for the page: the most recent ones,
/// enough to mark every one of a few drawn frames without allocating as the run goes on.
pub const EVENT_LOG: usize = 64;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stats {
    pub window_start: u64,
    pub window_end: u64,
    /// 1 while the current cycle is inside the window, else 0 ([`Stats::begin_cycle`]): the
    /// per-flit counters add it rather than branch on it.
    measuring: u64,
    nodes: u64,
    // Labelled messages, by base batch of generation time: a message generated in cycle g is
    // in batch (g − window_start) · batch_numerator / batch_denominator. Sums of whole cycles
    // are kept as integers: exact, and the same as the f64 sums they replaced below 2^53.
    batch_sum: Table<u64>,
    batch_count: Table<u64>,
    batch_numerator: u64,
    batch_denominator: u64,
    latency_sum: u64,
    network_latency_sum: u64,
    source_queue_sum: u64,
    hops_sum: u64,
    pub labelled_generated: u64,
    pub labelled_delivered: u64,
    /// Messages generated during the warm-up and delivered so far, and their latency sum: the
    /// page draws their running mean before measurement starts. No reported statistic uses them.
    pub warmup_delivered: u64,
    warmup_latency_sum: u64,
    histogram: Vec<u32>,
    // Everything inside the window.
    pub generated_flits: u64,
    pub ejected_flits: u64,
    /// Flits each channel has carried since the start, wrapping: the page takes differences
    /// over its own window for the utilisation heat, and the window's counts are the
    /// differences between these two copies of it, taken as the window starts and ends (empty
    /// until then), so that a flit-hop updates one counter.
    channel_flits_total: Vec<u32>,
    channel_flits_at_window_start: Vec<u32>,
    channel_flits_at_window_end: Vec<u32>,
    /// The most recent scouting backtracks as (cycle, network VC released), a ring indexed by
    /// `backtracks_logged % EVENT_LOG`.
    backtrack_log: Vec<(u64, u32)>,
    backtracks_logged: u64,
    /// The most recent chaos deflections as (cycle, network VC the packet was sent into), a ring
    /// like the backtracks'.
    deflection_log: Vec<(u64, u32)>,
    deflections_logged: u64,
    /// Flits of each source–destination pair delivered inside the window (small networks).
    pair_flits: Vec<u32>,
    per_source_flits: Vec<u64>,
    /// Flits generated at each source inside the window.
    per_source_generated: Vec<u64>,
    /// Each source's labelled messages delivered and the sum of their latencies, side by side
    /// so that a delivery touches one cache line.
    per_source_latency: Vec<[u64; 2]>,
    // Header blocking at each hop index h (0 = at the source router).
    hop_attempts: Vec<u64>,
    hop_blocked: Vec<u64>,
    hop_wait: Vec<u64>,
    /// Channel-cycles with exactly v busy VCs, accumulated lazily per channel.
    busy_vc_time: Vec<u64>,
    pub broadcasts_labelled: u64,
    pub broadcasts_completed: u64,
    broadcast_completion_sum: f64,
}

/// Pairs are tracked individually below this many nodes (N² counters).
const PAIR_TRACKING_MAX_NODES: usize = 1024;

/// A delivered message, as the statistics see it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Delivery {
    pub src: u32,
    pub dest: u32,
    pub generated: u64,
    pub injected: u64,
    pub delivered: u64,
    pub hops: u32,
    pub labelled: bool,
    pub flits: u32,
}

/// Every node's and every pair's figures of a run, indexed by node (`docs/output.md`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Detail {
    /// Mean latency of each source's labelled messages, cycles; `None` where it sent none.
    pub node_latency_mean: Vec<Option<f64>>,
    /// Each source's labelled messages delivered.
    pub node_messages_measured: Vec<u64>,
    /// Flits each source generated inside the window, per cycle.
    pub node_offered_flits_per_cycle: Vec<f64>,
    /// Flits of each source's messages delivered inside the window, per cycle.
    pub node_accepted_flits_per_cycle: Vec<f64>,
    /// `[s][d]`: flits from `s` delivered at `d` inside the window, per cycle; empty above
    /// `PAIR_TRACKING_MAX_NODES` nodes, where pairs are not counted.
    pub pair_accepted_flits_per_cycle: Vec<Vec<f64>>,
}

/// Latency histogram: `counts[i]` messages had latency in `[start + i·width, start + (i+1)·width)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    pub start: u64,
    pub width: u64,
    pub counts: Vec<u64>,
}

impl Stats {
    /// Statistics over the window `[window_start, window_end)`; `u64::MAX` for an end (or a
    /// start) decided later ([`Stats::set_window`]).
    pub fn new(window_start: u64, window_end: u64, nodes: usize, channels: usize, vcs: usize) -> Stats {
        let pairs = if nodes <= PAIR_TRACKING_MAX_NODES { nodes * nodes } else { 0 };
        let mut stats = Stats {
            window_start,
            window_end,
            measuring: 0,
            nodes: nodes as u64,
            batch_sum: vec![0; BASE_BATCHES].into(),
            batch_count: vec![0; BASE_BATCHES].into(),
            batch_numerator: 1,
            batch_denominator: 1,
            latency_sum: 0,
            network_latency_sum: 0,
            source_queue_sum: 0,
            hops_sum: 0,
            labelled_generated: 0,
            labelled_delivered: 0,
            warmup_delivered: 0,
            warmup_latency_sum: 0,
            histogram: vec![0; HISTOGRAM_EXACT],
            generated_flits: 0,
            ejected_flits: 0,
            channel_flits_total: vec![0; channels],
            channel_flits_at_window_start: Vec::new(),
            channel_flits_at_window_end: Vec::new(),
            backtrack_log: vec![(0, 0); EVENT_LOG],
            backtracks_logged: 0,
            deflection_log: vec![(0, 0); EVENT_LOG],
            deflections_logged: 0,
            pair_flits: vec![0; pairs],
            per_source_flits: vec![0; nodes],
            per_source_generated: vec![0; nodes],
            per_source_latency: vec![[0; 2]; nodes],
            hop_attempts: vec![0; MAX_TRACKED_HOPS],
            hop_blocked: vec![0; MAX_TRACKED_HOPS],
            hop_wait: vec![0; MAX_TRACKED_HOPS],
            busy_vc_time: vec![0; vcs + 1],
            broadcasts_labelled: 0,
            broadcasts_completed: 0,
            broadcast_completion_sum: 0.0,
        };
        stats.set_window(window_start, window_end);
        stats
    }

    /// Sets the window, before its first cycle (its start is decided when an automatic warm-up
    /// ends). A window of known length is cut into [`BASE_BATCHES`] equal base batches (one per
    /// cycle if it is shorter); an open-ended one (`end` = `u64::MAX`) into batches of
    /// [`Stats::set_batch_width`] cycles, until [`Stats::end_window`].
    pub fn set_window(&mut self, start: u64, end: u64) {
        (self.window_start, self.window_end) = (start, end);
        if start != u64::MAX && end != u64::MAX {
            let window = end - start;
            self.batch_numerator = window.clamp(1, BASE_BATCHES as u64);
            self.batch_denominator = window.max(1);
        }
    }

    /// Ends an open-ended window at `end` (before that cycle), its batches as they are.
    pub fn end_window(&mut self, end: u64) {
        self.window_end = end;
    }

    /// An open-ended window's base batches are `width` cycles of generation time each.
    pub fn set_batch_width(&mut self, width: u64) {
        (self.batch_numerator, self.batch_denominator) = (1, width);
    }

    /// Merges the base batches in pairs and doubles their width (an open-ended window that has
    /// filled all [`BASE_BATCHES`]).
    pub fn merge_batch_pairs(&mut self) {
        for i in 0..BASE_BATCHES / 2 {
            self.batch_sum[i] = self.batch_sum[2 * i] + self.batch_sum[2 * i + 1];
            self.batch_count[i] = self.batch_count[2 * i] + self.batch_count[2 * i + 1];
        }
        for i in BASE_BATCHES / 2..BASE_BATCHES {
            (self.batch_sum[i], self.batch_count[i]) = (0, 0);
        }
        self.batch_denominator *= 2;
    }

    /// How many base batches, from the first, have delivered every message generated in them:
    /// `generated_before[i]` labelled messages were generated before the end of batch i.
    pub fn complete_batches(&self, generated_before: &[u64]) -> usize {
        let mut before = 0;
        for (i, &g) in generated_before.iter().enumerate() {
            if self.batch_count[i] != g - before {
                return i;
            }
            before = g;
        }
        generated_before.len()
    }

    /// The interval over the first `batches` base batches only.
    pub fn latency_interval_of(&self, batches: usize) -> LatencyInterval {
        let base_cycles = self.batch_denominator as f64 / self.batch_numerator as f64;
        latency_interval(&self.batch_sum[..batches], &self.batch_count[..batches], base_cycles)
    }

    pub fn in_window(&self, cycle: u64) -> bool {
        cycle >= self.window_start && cycle < self.window_end
    }

    /// The simulator starts cycle `cycle`: the per-flit events that follow happen in it.
    pub fn begin_cycle(&mut self, cycle: u64) {
        self.measuring = self.in_window(cycle) as u64;
        if cycle == self.window_start {
            self.channel_flits_at_window_start = self.channel_flits_total.clone();
        }
        if cycle == self.window_end {
            self.channel_flits_at_window_end = self.channel_flits_total.clone();
        }
    }

    /// A message of `flits` was generated at `src`; `unicast` ones (not broadcast copies) are
    /// labelled.
    pub fn generated(&mut self, cycle: u64, src: u32, flits: u32, unicast: bool) {
        if self.in_window(cycle) {
            self.generated_flits += flits as u64;
            self.per_source_generated[src as usize] += flits as u64;
            self.labelled_generated += unicast as u64;
        }
    }

    /// How many sources fell behind their own offered load inside the window by more than 5%
    /// (plus two messages of slack for the ones in flight at the window's edges). Total
    /// throughput hides them under a permutation, where only the sources crossing the busiest
    /// channel saturate.
    pub fn sources_behind(&self, message_flits: u32) -> usize {
        let slack = 2 * message_flits as u64;
        self.per_source_generated
            .iter()
            .zip(&self.per_source_flits)
            .filter(|(&offered, &accepted)| accepted + slack < offered - offered / 20)
            .count()
    }

    pub fn broadcast_started(&mut self) {
        self.broadcasts_labelled += 1;
    }

    /// A labelled broadcast reached its last node `completion` cycles after generation.
    pub fn broadcast_completed(&mut self, completion: u64) {
        self.broadcasts_completed += 1;
        self.broadcast_completion_sum += completion as f64;
    }

    pub fn broadcast_completion_mean(&self) -> f64 {
        if self.broadcasts_completed == 0 {
            0.0
        } else {
            self.broadcast_completion_sum / self.broadcasts_completed as f64
        }
    }

    /// A flit crossed `channel` in the current cycle.
    pub fn channel_flit(&mut self, channel: usize) {
        self.channel_flits_total[channel] = self.channel_flits_total[channel].wrapping_add(1);
    }

    pub fn channel_flits_total(&self) -> &[u32] {
        &self.channel_flits_total
    }

    /// A scouting header backtracked in `cycle`, releasing network VC `vc`.
    pub fn backtracked(&mut self, cycle: u64, vc: u32) {
        self.backtrack_log[(self.backtracks_logged % EVENT_LOG as u64) as usize] = (cycle, vc);
        self.backtracks_logged += 1;
    }

    /// The remembered backtracks, oldest first.
    pub fn recent_backtracks(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        recent(&self.backtrack_log, self.backtracks_logged)
    }

    /// A chaos packet was deflected in `cycle` into network VC `vc`.
    pub fn deflected(&mut self, cycle: u64, vc: u32) {
        self.deflection_log[(self.deflections_logged % EVENT_LOG as u64) as usize] = (cycle, vc);
        self.deflections_logged += 1;
    }

    /// The remembered deflections, oldest first.
    pub fn recent_deflections(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        recent(&self.deflection_log, self.deflections_logged)
    }

    /// A flit left the network in the current cycle.
    pub fn ejected_flit(&mut self) {
        self.ejected_flits += self.measuring;
    }

    /// In the current cycle a header got its output at hop index `hop` after waiting `wait`
    /// cycles.
    pub fn header_routed(&mut self, hop: u32, wait: u64) {
        let h = (hop as usize).min(MAX_TRACKED_HOPS - 1);
        self.hop_attempts[h] += self.measuring;
        self.hop_blocked[h] += self.measuring & (wait > 0) as u64;
        self.hop_wait[h] += self.measuring * wait;
    }

    /// One cycle of the window: `channels[v]` channels have exactly v VCs allocated.
    pub fn busy_vcs(&mut self, channels: &[u64]) {
        for (time, &c) in self.busy_vc_time.iter_mut().zip(channels) {
            *time += c;
        }
    }

    /// A one-hop copy of a broadcast of `flits` sent by `src` arrived in `cycle`: it counts
    /// towards what `src` got through, as its generation counted towards what `src` offered.
    pub fn copy_delivered(&mut self, cycle: u64, src: u32, flits: u32) {
        if self.in_window(cycle) {
            self.per_source_flits[src as usize] += flits as u64;
        }
    }

    pub fn delivered(&mut self, d: &Delivery) {
        if self.in_window(d.delivered) {
            let flits = d.flits;
            self.per_source_flits[d.src as usize] += flits as u64;
            if !self.pair_flits.is_empty() {
                self.pair_flits[(d.src as u64 * self.nodes + d.dest as u64) as usize] += flits;
            }
        }
        if !d.labelled {
            if d.generated < self.window_start {
                self.warmup_delivered += 1;
                self.warmup_latency_sum += d.delivered + 1 - d.generated;
            }
            return;
        }
        let latency = d.delivered + 1 - d.generated;
        let batch = ((d.generated - self.window_start) * self.batch_numerator / self.batch_denominator) as usize;
        self.batch_sum[batch] += latency;
        self.batch_count[batch] += 1;
        self.latency_sum += latency;
        self.network_latency_sum += d.delivered + 1 - d.injected;
        self.source_queue_sum += d.injected - d.generated;
        self.hops_sum += d.hops as u64;
        self.labelled_delivered += 1;
        let source = &mut self.per_source_latency[d.src as usize];
        source[0] += 1;
        source[1] += latency;
        self.histogram[(latency as usize).min(HISTOGRAM_EXACT - 1)] += 1;
    }

    fn mean(&self, sum: u64) -> f64 {
        if self.labelled_delivered == 0 {
            0.0
        } else {
            sum as f64 / self.labelled_delivered as f64
        }
    }

    pub fn latency_mean(&self) -> f64 {
        self.mean(self.latency_sum)
    }

    /// Mean latency of the warm-up's messages delivered so far (0 before the first).
    pub fn warmup_latency_mean(&self) -> f64 {
        if self.warmup_delivered == 0 {
            0.0
        } else {
            self.warmup_latency_sum as f64 / self.warmup_delivered as f64
        }
    }
    pub fn network_latency_mean(&self) -> f64 {
        self.mean(self.network_latency_sum)
    }
    pub fn source_queue_mean(&self) -> f64 {
        self.mean(self.source_queue_sum)
    }
    pub fn hops_mean(&self) -> f64 {
        self.mean(self.hops_sum)
    }

    /// The 95 % confidence interval of the mean latency by batch means ([`latency_interval`]
    /// over the base batches that hold messages so far).
    pub fn latency_interval(&self) -> LatencyInterval {
        self.latency_interval_of(self.batch_count.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1))
    }

    /// Half-width of [`Stats::latency_interval`]; 0 when fewer than two batches hold messages.
    pub fn latency_ci95(&self) -> f64 {
        self.latency_interval().half_width
    }

    pub fn offered_flits_per_node_cycle(&self) -> f64 {
        self.offered_flits_per_node_cycle_until(self.window_end)
    }

    pub fn accepted_flits_per_node_cycle(&self) -> f64 {
        self.accepted_flits_per_node_cycle_until(self.window_end)
    }

    /// The offered rate as if the window ended at `end` (the live figure, mid-window).
    pub fn offered_flits_per_node_cycle_until(&self, end: u64) -> f64 {
        self.generated_flits as f64 / (self.nodes as f64 * self.cycles_until(end))
    }

    pub fn accepted_flits_per_node_cycle_until(&self, end: u64) -> f64 {
        self.ejected_flits as f64 / (self.nodes as f64 * self.cycles_until(end))
    }

    /// The least accepted throughput of any source that offered flits in the window, in flits
    /// per cycle of that source, as if the window ended at `end`: past saturation a starved
    /// source shows here while the mean looks healthy. Zero when no source offered any.
    pub fn accepted_min_source_until(&self, end: u64) -> f64 {
        let cycles = self.cycles_until(end);
        let min = self
            .per_source_generated
            .iter()
            .zip(&self.per_source_flits)
            .filter(|(&offered, _)| offered > 0)
            .map(|(_, &accepted)| accepted)
            .min();
        min.map_or(0.0, |f| f as f64 / cycles)
    }

    pub fn accepted_min_source(&self) -> f64 {
        self.accepted_min_source_until(self.window_end)
    }

    fn cycles_until(&self, end: u64) -> f64 {
        // At least one cycle, also for a window that never started (a deadlock during an
        // automatic warm-up).
        end.saturating_sub(self.window_start).max(1) as f64
    }

    fn window_cycles(&self) -> f64 {
        self.cycles_until(self.window_end)
    }

    /// Seed 004's minimum accepted throughput α′: the least accepted rate of any active
    /// source–destination pair, scaled by that pair's share `Λ[s][d]` of its source's traffic
    /// so that it is comparable with the average (flits/node/cycle). `row(s)` lists the
    /// destinations of `s` with their shares (a destination may appear more than once; its
    /// shares add up). Above `PAIR_TRACKING_MAX_NODES` nodes it is the minimum over sources
    /// instead.
    pub fn accepted_min_pair(&self, row: impl Fn(u32) -> Vec<(u32, f64)>) -> f64 {
        let cycles = self.window_cycles();
        let mut min = f64::INFINITY;
        if self.pair_flits.is_empty() {
            for &f in &self.per_source_flits {
                min = min.min(f as f64 / cycles);
            }
        } else {
            // Each source's row is read once, so that the cost is the traffic matrix's entries,
            // not N² pairs each searching a row of up to N entries.
            let mut share = vec![0.0f64; self.nodes as usize];
            for s in 0..self.nodes as u32 {
                let row = row(s);
                for &(d, w) in &row {
                    share[d as usize] += w;
                }
                for &(d, _) in &row {
                    let w = std::mem::take(&mut share[d as usize]);
                    if w > 0.0 {
                        let f = self.pair_flits[(s as u64 * self.nodes + d as u64) as usize];
                        min = min.min(f as f64 / cycles / w);
                    }
                }
            }
        }
        if min.is_finite() {
            min
        } else {
            0.0
        }
    }

    /// The figures of every node and every pair (`torus run --detail`).
    pub fn detail(&self) -> Detail {
        let cycles = self.window_cycles();
        let per_cycle = |flits: &[u64]| flits.iter().map(|&f| f as f64 / cycles).collect();
        let nodes = self.nodes as usize;
        Detail {
            node_latency_mean: self
                .per_source_latency
                .iter()
                .map(|&[count, sum]| (count > 0).then(|| sum as f64 / count as f64))
                .collect(),
            node_messages_measured: self.per_source_latency.iter().map(|&[count, _]| count).collect(),
            node_offered_flits_per_cycle: per_cycle(&self.per_source_generated),
            node_accepted_flits_per_cycle: per_cycle(&self.per_source_flits),
            pair_accepted_flits_per_cycle: if self.pair_flits.is_empty() {
                Vec::new()
            } else {
                self.pair_flits.chunks(nodes).map(|row| row.iter().map(|&f| f as f64 / cycles).collect()).collect()
            },
        }
    }

    /// Fraction of the window's cycles each channel carried a flit.
    pub fn channel_utilisation(&self) -> Vec<f64> {
        let (start, end) = (&self.channel_flits_at_window_start, &self.channel_flits_at_window_end);
        if start.is_empty() {
            return vec![0.0; self.channel_flits_total.len()];
        }
        // A run that stopped inside the window (a deadlock) counts up to where it stopped.
        let end = if end.is_empty() { &self.channel_flits_total } else { end };
        end.iter().zip(start).map(|(&e, &s)| e.wrapping_sub(s) as f64 / self.window_cycles()).collect()
    }

    /// P_v: the fraction of channel-cycles with exactly v VCs allocated, v = 0..=V.
    pub fn busy_vc_distribution(&self) -> Vec<f64> {
        let total: u64 = self.busy_vc_time.iter().sum();
        self.busy_vc_time.iter().map(|&t| if total == 0 { 0.0 } else { t as f64 / total as f64 }).collect()
    }

    /// Probability that a header is blocked (waits for a VC) at hop index h, per h up to the
    /// longest path seen.
    pub fn blocking_per_hop(&self) -> Vec<f64> {
        let last = self.hop_attempts.iter().rposition(|&a| a > 0).map_or(0, |i| i + 1);
        (0..last)
            .map(|h| if self.hop_attempts[h] == 0 { 0.0 } else { self.hop_blocked[h] as f64 / self.hop_attempts[h] as f64 })
            .collect()
    }

    /// Overall probability that a header waits for a VC at a hop.
    pub fn blocking_probability(&self) -> f64 {
        let attempts: u64 = self.hop_attempts.iter().sum();
        if attempts == 0 {
            0.0
        } else {
            self.hop_blocked.iter().sum::<u64>() as f64 / attempts as f64
        }
    }

    /// Mean cycles a blocked header waits before it gets a VC.
    pub fn mean_wait_when_blocked(&self) -> f64 {
        let blocked: u64 = self.hop_blocked.iter().sum();
        if blocked == 0 {
            0.0
        } else {
            self.hop_wait.iter().sum::<u64>() as f64 / blocked as f64
        }
    }

    /// The labelled latencies in at most [`HISTOGRAM_BINS`] equal bins.
    pub fn histogram(&self) -> Histogram {
        let first = self.histogram.iter().position(|&c| c > 0);
        let last = self.histogram.iter().rposition(|&c| c > 0);
        let (Some(first), Some(last)) = (first, last) else {
            return Histogram::default();
        };
        let width = (last - first) / HISTOGRAM_BINS + 1;
        let mut counts = vec![0u64; (last - first) / width + 1];
        for (i, &c) in self.histogram[first..=last].iter().enumerate() {
            counts[i / width] += c as u64;
        }
        Histogram { start: first as u64, width: width as u64, counts }
    }
}

/// The entries of a log ring holding the last `logged` entries written, oldest first.
fn recent(log: &[(u64, u32)], logged: u64) -> impl Iterator<Item = (u64, u32)> + '_ {
    let size = log.len() as u64;
    let kept = logged.min(size);
    (logged - kept..logged).map(move |i| log[(i % size) as usize])
}

/// A batch-means confidence interval of the mean latency, and how it was built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LatencyInterval {
    /// Half-width of the 95 % interval: t(0.975, batches − 1) · s / √batches, times the widening.
    pub half_width: f64,
    /// Batches the interval was built from (batches without messages left out).
    pub batches: usize,
    /// Cycles of generation time per batch.
    pub batch_cycles: f64,
    /// Lag-1 autocorrelation of those batches' means, as measured.
    pub lag1: f64,
    /// The means were still correlated (lag-1 above [`LAG1_THRESHOLD`]) at the coarsest
    /// batching allowed ([`MIN_BATCHES`]): the interval is widened for their correlation, and
    /// the run is too short for an interval of its own to be trusted.
    pub widened: bool,
}

/// Batch means with batches lengthened until their means are nearly uncorrelated: from the
/// base batches (`sums` and `counts` of latencies by generation time, `base_cycles` long each),
/// adjacent pairs are merged while the lag-1 autocorrelation ρ̂ of the batch means exceeds
/// [`LAG1_THRESHOLD`] and at least [`MIN_BATCHES`] batches would remain; if it still exceeds it
/// there, the interval is flagged as widened. With k batches the half-width is
/// t(0.975, k − 1) · s/√k · √((1 + ρ)/(1 − ρ)): s the batch means' standard deviation, and ρ
/// the lag-1 autocorrelation corrected for its small-sample bias, (kρ̂ + 1)/(k − 3), taken as 0
/// when negative and at most 0.9: the factor by which correlation of that strength between
/// neighbouring batches inflates the variance of their mean (1 for uncorrelated batches, a few
/// per cent at the threshold, large for a run that is too short). Fewer than two batches with
/// messages give no interval (half-width 0).
pub fn latency_interval(sums: &[u64], counts: &[u64], base_cycles: f64) -> LatencyInterval {
    let mut sums = sums.to_vec();
    let mut counts = counts.to_vec();
    let mut batch_cycles = base_cycles;
    loop {
        let means: Vec<f64> = sums.iter().zip(&counts).filter(|(_, &c)| c > 0).map(|(&s, &c)| s as f64 / c as f64).collect();
        let k = means.len();
        if k < 2 {
            return LatencyInterval { batches: k, batch_cycles, ..LatencyInterval::default() };
        }
        let mean = means.iter().sum::<f64>() / k as f64;
        let squares = means.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>();
        let lag1 = if squares > 0.0 { means.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / squares } else { 0.0 };
        if lag1 <= LAG1_THRESHOLD || sums.len().div_ceil(2) < MIN_BATCHES {
            let kf = k as f64;
            let rho = if k > 3 { (kf * lag1 + 1.0) / (kf - 3.0) } else { lag1 }.clamp(0.0, MAX_CORRECTED_LAG1);
            let standard_error = (squares / (kf - 1.0) / kf).sqrt();
            return LatencyInterval {
                half_width: t_975(k - 1) * standard_error * ((1.0 + rho) / (1.0 - rho)).sqrt(),
                batches: k,
                batch_cycles,
                lag1,
                widened: lag1 > LAG1_THRESHOLD,
            };
        }
        sums = sums.chunks(2).map(|p| p.iter().sum()).collect();
        counts = counts.chunks(2).map(|p| p.iter().sum()).collect();
        batch_cycles *= 2.0;
    }
}

/// Student's t quantile t(0.975, ν): the half-width, in standard errors, of a two-sided 95 %
/// confidence interval from ν degrees of freedom (infinite for ν = 0). Exact to four decimals
/// from a table up to ν = 6, then the Cornish–Fisher expansion in 1/ν around the normal
/// quantile, within 3·10⁻⁵ of the exact value there and closer as ν grows. Arithmetic only, so
/// native and WebAssembly builds agree bit for bit.
pub fn t_975(degrees_of_freedom: usize) -> f64 {
    const TABLE: [f64; 6] = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469];
    const Z: f64 = 1.959_963_984_540_054;
    match degrees_of_freedom {
        0 => f64::INFINITY,
        v if v <= TABLE.len() => TABLE[v - 1],
        v => {
            let (z2, v) = (Z * Z, v as f64);
            let g1 = Z * (z2 + 1.0) / 4.0;
            let g2 = Z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
            let g3 = Z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
            let g4 = Z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
            Z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v
        }
    }
}

/// V̄ = Σ v² P_v / Σ v P_v: the mean number of VCs multiplexed on a busy channel, as the
/// seed models define it.
pub fn multiplexing_degree(p: &[f64]) -> f64 {
    let (num, den) = p.iter().enumerate().fold((0.0, 0.0), |(n, d), (v, &pv)| {
        let v = v as f64;
        (n + v * v * pv, d + v * pv)
    });
    if den == 0.0 {
        0.0
    } else {
        num / den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(generated: u64, delivered: u64) -> Delivery {
        Delivery { src: 0, dest: 1, generated, injected: generated, delivered, hops: 2, labelled: true, flits: 4 }
    }

    #[test]
    fn latency_mean_and_batch_ci_by_hand() {
        // A 20-cycle window: one base batch per cycle, one message in each. Latencies 9, 13,
        // 11, 9, 13, 11, …, 9, 13: mean 220 / 20 = 11, squares 56, sample variance 56 / 19 =
        // 2.947, lag-1 sum of products −28, autocorrelation −28 / 56 = −0.5, so the 20 batches
        // are used as they are: t(0.975, 19) = 2.0930, CI = 2.093 · √(2.947 / 20) = 0.8035.
        let mut s = Stats::new(0, 20, 2, 4, 2);
        for b in 0..20 {
            let lat = [9, 13, 11][b as usize % 3];
            s.delivered(&delivery(b, b + lat - 1));
        }
        assert_eq!(s.latency_mean(), 11.0);
        let ci = s.latency_interval();
        assert_eq!((ci.batches, ci.batch_cycles, ci.widened), (20, 1.0, false));
        assert!((ci.lag1 + 0.5).abs() < 1e-12, "{ci:?}");
        assert!((ci.half_width - 0.80347).abs() < 1e-4, "{ci:?}");
    }

    #[test]
    fn warmup_messages_have_their_own_mean_and_stay_out_of_the_measured_one() {
        let mut s = Stats::new(10, 30, 2, 4, 2);
        let unlabelled = |generated, delivered| Delivery { labelled: false, ..delivery(generated, delivered) };
        // Generated in the warm-up: latencies 5 and 8, the second delivered after it.
        s.delivered(&unlabelled(2, 6));
        s.delivered(&unlabelled(7, 14));
        // Generated after the window (the drain): counted nowhere.
        s.delivered(&unlabelled(31, 40));
        s.delivered(&delivery(12, 21));
        assert_eq!(s.warmup_delivered, 2);
        assert_eq!(s.warmup_latency_mean(), 6.5);
        assert_eq!(s.labelled_delivered, 1);
        assert_eq!(s.latency_mean(), 10.0);
    }

    /// Channel 0 carries a flit every cycle, channel 1 every other, channel 2 none, over cycles
    /// 0..=`last` of a run whose window is cycles 2..6.
    fn utilisation_after(last: u64) -> Vec<f64> {
        let mut s = Stats::new(2, 6, 2, 3, 2);
        for cycle in 0..=last {
            s.begin_cycle(cycle);
            s.channel_flit(0);
            if cycle % 2 == 0 {
                s.channel_flit(1);
            }
        }
        s.channel_utilisation()
    }

    #[test]
    fn correlated_batches_are_merged_until_their_means_are_not() {
        // 64 base batches of 10 cycles: the means climb in steps of 8 batches (a slow drift),
        // so neighbours are alike until batches are 8 base batches long.
        let sums: Vec<u64> = (0..64).map(|b| 100 * (10 + (b / 8) % 2 * 5 + b % 2)).collect();
        let counts = vec![100; 64];
        let ci = latency_interval(&sums, &counts, 10.0);
        assert!(ci.batches <= 32 && ci.batch_cycles >= 20.0, "merged: {ci:?}");
        // Alternating means (variance 16 / 63 = 0.254) are anticorrelated: the base batches stay.
        let alternating: Vec<u64> = (0..64).map(|b| 100 * (10 + b % 2)).collect();
        let ci = latency_interval(&alternating, &counts, 10.0);
        assert_eq!((ci.batches, ci.widened), (64, false));
        assert!((ci.half_width - t_975(63) * (16.0 / 63.0 / 64.0_f64).sqrt()).abs() < 1e-12, "{ci:?}");
    }

    #[test]
    fn batches_still_correlated_at_the_fewest_allowed_widen_the_interval() {
        // A steady climb: every merge leaves the means correlated, down to MIN_BATCHES.
        let sums: Vec<u64> = (0..64).map(|b| 10 * b).collect();
        let counts = vec![1; 64];
        let ci = latency_interval(&sums, &counts, 1.0);
        assert_eq!((ci.batches, ci.batch_cycles), (MIN_BATCHES, 8.0));
        assert!(ci.widened && ci.lag1 > LAG1_THRESHOLD, "{ci:?}");
        // Batch i of 8 holds base batches 8i..8i+7: mean 10 · (8i + 3.5).
        let means: Vec<f64> = (0..8).map(|i| 80.0 * i as f64 + 35.0).collect();
        let mean = means.iter().sum::<f64>() / 8.0;
        let variance = means.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / 7.0;
        let lag1 = means.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / (7.0 * variance);
        assert!((ci.lag1 - lag1).abs() < 1e-12, "{ci:?}");
        // The bias-corrected ρ = (8 · 0.625 + 1) / 5 = 1.2, held at 0.9: a factor of √19.
        assert!((lag1 - 0.625).abs() < 1e-12);
        let expected = t_975(7) * (variance / 8.0).sqrt() * 19f64.sqrt();
        assert!((ci.half_width - expected).abs() < 1e-9, "{ci:?} against {expected}");
    }

    #[test]
    fn a_small_remaining_correlation_widens_the_interval_a_little() {
        // 32 batches whose means go in pairs (12, 12, 10, 10, …): deviations ±1, 16 neighbours
        // alike and 15 not, so lag-1 = 1/32, below the threshold, and the batches are used as
        // they are. The bias-corrected ρ = (32/32 + 1)/29 = 2/29 allows for the correlation so
        // few batches understate: a factor √((31/29)/(27/29)) = √(31/27).
        let sums: Vec<u64> = (0..32).map(|b| if b % 4 < 2 { 12 } else { 10 }).collect();
        let ci = latency_interval(&sums, &[1; 32], 1.0);
        assert_eq!((ci.batches, ci.widened), (32, false));
        assert!((ci.lag1 - 1.0 / 32.0).abs() < 1e-12, "{ci:?}");
        let plain = t_975(31) * (32.0 / 31.0 / 32.0_f64).sqrt();
        assert!((ci.half_width / plain - (31.0_f64 / 27.0).sqrt()).abs() < 1e-12, "{ci:?}");
    }

    #[test]
    fn channel_utilisation_counts_the_window_only() {
        // Cycles 2, 3, 4, 5: channel 0 four flits, channel 1 two (cycles 2 and 4).
        assert_eq!(utilisation_after(9), [1.0, 0.5, 0.0]);
        assert_eq!(utilisation_after(5), [1.0, 0.5, 0.0]);
        // A run that stopped inside the window (cycles 2 and 3) is counted up to there, over
        // the whole window's length; one that stopped before it, not at all.
        assert_eq!(utilisation_after(3), [0.5, 0.25, 0.0]);
        assert_eq!(utilisation_after(1), [0.0, 0.0, 0.0]);
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // t(0.975, ν) to five decimals, from the t distribution's tables.
        for (v, t) in [(1, 12.7062), (2, 4.30265), (5, 2.57058), (7, 2.36462), (10, 2.22814), (19, 2.09302), (30, 2.04227), (60, 2.00030), (120, 1.97993), (1000, 1.96234)] {
            assert!((t_975(v) - t).abs() < 5e-5, "ν = {v}: {} against {t}", t_975(v));
        }
        assert!(t_975(0).is_infinite());
        assert!((1..2000).all(|v| t_975(v) > t_975(v + 1)), "decreasing in ν");
    }

    #[test]
    fn multiplexing_degree_by_hand() {
        // P_0 = 0.5, P_1 = 0.3, P_2 = 0.2: (0.3 + 0.8) / (0.3 + 0.4) = 1.5714.
        assert!((multiplexing_degree(&[0.5, 0.3, 0.2]) - 1.1 / 0.7).abs() < 1e-12);
        assert_eq!(multiplexing_degree(&[1.0, 0.0]), 0.0);
    }

    #[test]
    fn histogram_bins_cover_every_message() {
        let mut s = Stats::new(0, 1000, 2, 4, 2);
        for i in 0..500u64 {
            s.delivered(&delivery(i, i + 20 + (i % 300)));
        }
        let h = s.histogram();
        assert_eq!(h.counts.iter().sum::<u64>(), 500);
        assert_eq!(h.start, 21);
        assert!(h.counts.len() <= HISTOGRAM_BINS);
    }

    #[test]
    fn minimum_accepted_pair_by_hand() {
        // Window of 100 cycles, 3 nodes. Source 0 sends to 1 (share 0.75) and to 2 (two row
        // entries, 0.125 each: a hot spot that is also the background destination); source 1
        // only to 2; source 2 to 0.
        let mut s = Stats::new(0, 100, 3, 6, 2);
        let mut deliver = |src, dest, flits| {
            s.delivered(&Delivery { src, dest, generated: 0, injected: 0, delivered: 50, hops: 1, labelled: false, flits })
        };
        deliver(0, 1, 30); // 0.3 flits/cycle over share 0.75: 0.4
        deliver(0, 2, 5); //  0.05 over 0.25 (0.125 + 0.125): 0.2, the least
        deliver(1, 2, 40); // 0.4 over 1
        deliver(2, 0, 25); // 0.25 over 1
        deliver(1, 0, 1); //  a pair outside the traffic matrix is ignored
        let rows = |src: u32| match src {
            0 => vec![(1, 0.75), (2, 0.125), (2, 0.125)],
            1 => vec![(2, 1.0)],
            _ => vec![(0, 1.0)],
        };
        assert!((s.accepted_min_pair(rows) - 0.2).abs() < 1e-12, "{}", s.accepted_min_pair(rows));
    }

    #[test]
    fn minimum_accepted_source_by_hand() {
        // Window of 100 cycles, 3 nodes: sources 0 and 1 offered flits, source 2 none (it is
        // left out, not counted as starved).
        let mut s = Stats::new(0, 100, 3, 6, 2);
        s.generated(10, 0, 40, true);
        s.generated(10, 1, 40, true);
        let delivered = |src, flits| Delivery { src, dest: 2, generated: 0, injected: 0, delivered: 50, hops: 1, labelled: false, flits };
        s.delivered(&delivered(0, 30));
        s.delivered(&delivered(1, 6));
        s.delivered(&delivered(1, 2));
        assert!((s.accepted_min_source() - 0.08).abs() < 1e-12, "{}", s.accepted_min_source());
        // Halfway through the window, the same flits over 50 cycles.
        assert!((s.accepted_min_source_until(50) - 0.16).abs() < 1e-12);
        assert_eq!(Stats::new(0, 100, 3, 6, 2).accepted_min_source(), 0.0);
    }
}
