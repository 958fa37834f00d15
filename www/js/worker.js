// Off the main thread: whole runs (warm-up, measurement, drain: exactly `torus run`) and the
// models (`torus model`'s report, and the model's latency at given rates), one request at a
// time; and the page's fast mode, in a worker of its own (see FastMode in wasm-loader.js).
import init, {
  run, model, model_full as modelFull, model_curve as modelCurve, channel_queue_curve as channelQueueCurve,
  channel_queue_curve_full as channelQueueCurveFull, Explorer,
} from '../pkg/torus_explorer.js';

const OPS = {
  run: (m) => run(m.scenario),
  report: (m) => model(m.scenario),
  curve: (m) => modelCurve(m.scenario, new Float64Array(m.rates)),
  // The channel-queue model's latency at given rates, also where a paper's model applies.
  channelQueueCurve: (m) => channelQueueCurve(m.scenario, new Float64Array(m.rates)),
  // The same two with route graphs as large as `torus model` builds (seconds to a minute).
  reportFull: (m) => modelFull(m.scenario),
  channelQueueCurveFull: (m) => channelQueueCurveFull(m.scenario, new Float64Array(m.rates)),
};

// Fast mode: the page's simulation, handed over as saved state, runs here as fast as it can;
// every FRAME_MS a frame (the VC arrays the page draws, the live statistics) is posted back,
// and on `fast-stop` the state goes back to the page. In lockstep (compare mode, a worker per
// simulation) the page grants cycles to reach (`fast-until`): the simulation stops at each,
// posts its frame there, and goes on to the next granted one, or waits for it; so that the
// page shows the two simulations at the same cycle.
const FRAME_MS = 50;
const CHUNK_MS = 2;
let fast = null;
const yieldChannel = new MessageChannel();
yieldChannel.port1.onmessage = () => fastSlice();

function fastSlice() {
  const session = fast;
  if (!session) return;
  const e = session.explorer;
  const start = performance.now();
  for (let t = start; t - start < FRAME_MS;) {
    if (session.lockstep) {
      if (!session.targets.length) {
        session.waiting = true;
        return;
      }
      const left = session.targets[0] - e.cycle();
      if (left > 0) e.step(Math.min(session.chunk, left));
      if (e.cycle() >= session.targets[0]) {
        session.targets.shift();
        postFrame(session);
      }
    } else {
      e.step(session.chunk);
    }
    const now = performance.now();
    session.chunk = Math.min(Math.max(Math.round((session.chunk * CHUNK_MS) / Math.max(now - t, 0.05)), 1), 1 << 14);
    t = now;
  }
  if (!session.lockstep) postFrame(session);
  // Through a message, not setTimeout, which browsers delay by 4 ms once nested: the page's
  // messages (fast-stop, fast-until) are handled between slices.
  yieldChannel.port2.postMessage(0);
}

function postFrame(session) {
  const e = session.explorer;
  const stats = e.live_stats();
  self.postMessage({
    op: 'fast-frame',
    session: session.id,
    cycle: e.cycle(),
    stats,
    flits: e.vc_flits(),
    owner: e.vc_owner(),
    blocked: e.vc_blocked(),
    channelFlits: e.channel_flits(),
    backtracks: e.backtracks(),
    recentBacktracks: e.recent_backtracks(),
    misroutes: e.misroutes(),
    recentDeflections: e.recent_deflections(),
    runs: e.worm_runs(),
    sources: e.source_flits(),
    queues: session.chaos ? e.shared_queue_slots() : null,
    probes: session.scouting ? e.scouting_probes() : null,
    acks: session.scouting ? e.acknowledgements() : null,
    deadlockCycle: JSON.parse(stats).deadlock ? e.deadlock_cycle() : null,
    stuck: e.stuck_headers(),
  });
}

function fastStart(m) {
  fastStop({});
  fast = {
    id: m.session, explorer: Explorer.restore(new Uint8Array(m.state)), chunk: 16, chaos: !!m.chaos, scouting: !!m.scouting,
    lockstep: !!m.lockstep, targets: [], waiting: false,
  };
  postFrame(fast);
  yieldChannel.port2.postMessage(0);
}

// A further cycle for a lockstep session to reach (the page grants them in increasing order).
function fastUntil(m) {
  const session = fast;
  if (!session || session.id !== m.session) return;
  session.targets.push(m.cycle);
  if (session.waiting) {
    session.waiting = false;
    yieldChannel.port2.postMessage(0);
  }
}

// Ends the running session, if any; its state goes back to the page if the page asked for
// this session's (and not when it dropped the session), in lockstep first run on to the cycle
// the page names (the furthest granted to both, so that both come back at the same cycle).
function fastStop(m) {
  const session = fast;
  fast = null;
  if (!session) return;
  if (session.id === m.session && !m.discard) {
    const e = session.explorer;
    if (m.until != null && e.cycle() < m.until) e.step(m.until - e.cycle());
    const state = e.save_state();
    self.postMessage({ op: 'fast-state', session: session.id, state }, [state.buffer]);
  }
  session.explorer.free();
}

let ready;
self.onmessage = async (e) => {
  const m = e.data;
  if (m.op === 'init') {
    ready = init({ module_or_path: m.module });
    return;
  }
  await ready;
  if (m.op === 'fast-start' || m.op === 'fast-stop' || m.op === 'fast-until') {
    try {
      if (m.op === 'fast-start') fastStart(m);
      else if (m.op === 'fast-until') fastUntil(m);
      else fastStop(m);
    } catch (err) {
      fast = null;
      self.postMessage({ op: 'fast-error', session: m.session, error: String(err && err.message ? err.message : err) });
    }
    return;
  }
  try {
    self.postMessage({ id: m.id, ok: true, json: OPS[m.op](m) });
  } catch (err) {
    self.postMessage({ id: m.id, ok: false, error: String(err && err.message ? err.message : err) });
  }
};
