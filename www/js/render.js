// Draws the 2-D torus: nodes with their coordinates along the axes, every unidirectional
// channel with its virtual-channel lanes, a channel-utilisation heat under the lanes, and the
// worms: each message drawn as one continuous body from its tail back at its source (or in the
// VC holding its last flit) through every channel it holds to its header, its flits ticked off
// on the body, its header a dot (a diamond for a broadcast copy) with a bar when blocked; VCs
// of an escape or after-dateline class patterned. On top: the deadlock cycle, a broadcast
// tree, scouting probes (the reserved stretch in front of the data, acknowledgements on their
// way back, backtracks), chaos's shared queues and deflections, failed links and nodes (crossed
// out) and the headers stuck at them (boxed). Geometry only: the state comes straight from the
// simulator's exports.
//
// Channel numbering follows src/topology.rs: node = x + y·k, channel = node·4 + port, port
// 0 = +x, 1 = −x, 2 = +y, 3 = −y; a channel's buffers sit at its downstream end.

export const FREE = 0xffffffff;
// A VC's header state (Simulation::snapshot_vcs in src/sim/view.rs): blocked, or waiting out
// its router's delay.
export const BLOCKED = 1;
export const IN_ROUTER = 2;

// Okabe–Ito colours (colour-blind safe), black and yellow left out for contrast on white and
// on the grey heat.
export const MESSAGE_COLOURS = ['#E69F00', '#56B4E9', '#009E73', '#0072B2', '#D55E00', '#CC79A7'];

export function messageColour(id) {
  return MESSAGE_COLOURS[(Math.imul(id, 2654435761) >>> 0) % MESSAGE_COLOURS.length];
}

// The heat scale: a grey ramp from idle (near white) to a flit every cycle (dark grey), which
// no worm colour shares and which reads without colour vision. Every heat source (the measured
// utilisation, or another estimate of it) is drawn on this one scale, 0 to 1 flit per cycle.
export const HEAT_STOPS = [[246, 246, 246], [214, 214, 214], [176, 176, 176], [134, 134, 134], [92, 92, 92]];

export function heatColour(u) {
  const x = Math.min(Math.max(u, 0), 1) * (HEAT_STOPS.length - 1);
  const i = Math.min(Math.floor(x), HEAT_STOPS.length - 2);
  const f = x - i;
  const c = HEAT_STOPS[i].map((a, j) => Math.round(a + (HEAT_STOPS[i + 1][j] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// heatColour at HEAT_LEVELS + 1 steps from 0 to 1, for drawing every frame.
const HEAT_LEVELS = 256;
const HEAT_TABLE = Array.from({ length: HEAT_LEVELS + 1 }, (_, i) => heatColour(i / HEAT_LEVELS));

// Overlays, chosen apart from the message colours and the heat scale.
export const DEADLOCK_COLOUR = '#7a0177';
const INK = '#111111';
const TREE_COLOUR = '#000000';
// Faults are drawn by shape (a crossed, dashed link; a crossed node; a box round a stuck
// header), the grey only confirming it.
const FAULT_COLOUR = '#555555';

// In the third word of a worm run (see Simulation::worm_runs in src/sim/view.rs).
const RUN_BITS = 10;
const RUN_MASK = (1 << RUN_BITS) - 1;
const FRONT_BROADCAST = 1 << (2 * RUN_BITS);
const BACK_BROADCAST = 1 << (2 * RUN_BITS + 1);
const OWNER_BROADCAST = 1 << (2 * RUN_BITS + 2);

// The patterns marking a VC's class over a worm's own colour, so that the class reads without
// colour vision: escape VCs get a white centre stripe (a hollow worm), after-dateline VCs dark
// cross ticks; a VC that is both gets both.
export function strokeClassPattern(ctx, cls, width, strokePath) {
  if (!cls) return;
  ctx.save();
  if (cls.escape) {
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = Math.max(0.8, width * 0.4);
    ctx.beginPath();
    strokePath();
    ctx.stroke();
  }
  if (cls.after_dateline) {
    ctx.strokeStyle = '#111111';
    ctx.lineWidth = width;
    ctx.setLineDash([1.5, 2.5]);
    ctx.beginPath();
    strokePath();
    ctx.stroke();
  }
  ctx.restore();
}

// Screen direction of each port (y grows upwards in the torus, downwards on screen).
const PORT_DIR = [[1, 0], [-1, 0], [0, -1], [0, 1]];
export const PORT_NAMES = ['+x', '−x', '+y', '−y'];

// A polyline with its cumulative lengths, for placing things along a worm's path.
class Path {
  constructor() {
    this.points = [];
    this.cum = [];
  }

  add(x, y) {
    const n = this.points.length;
    if (n) {
      const [px, py] = this.points[n - 1];
      if (Math.abs(px - x) < 1e-9 && Math.abs(py - y) < 1e-9) return this.cum[n - 1];
      this.cum.push(this.cum[n - 1] + Math.hypot(x - px, y - py));
    } else {
      this.cum.push(0);
    }
    this.points.push([x, y]);
    return this.cum[this.cum.length - 1];
  }

  get length() {
    return this.cum.length ? this.cum[this.cum.length - 1] : 0;
  }

  at(s) {
    const { points, cum } = this;
    if (s <= 0 || points.length < 2) return { x: points[0][0], y: points[0][1], dx: 1, dy: 0 };
    let i = 1;
    while (i < cum.length - 1 && cum[i] < s) i++;
    const [ax, ay] = points[i - 1];
    const [bx, by] = points[i];
    const len = cum[i] - cum[i - 1] || 1;
    const t = Math.min(1, Math.max(0, (s - cum[i - 1]) / len));
    return { x: ax + (bx - ax) * t, y: ay + (by - ay) * t, dx: (bx - ax) / len, dy: (by - ay) / len };
  }

  // Traces the part of the path from arc length s0 to s1.
  trace(ctx, s0, s1, ox = 0, oy = 0) {
    if (s1 <= s0) return;
    const a = this.at(s0);
    ctx.moveTo(a.x + ox, a.y + oy);
    for (let i = 0; i < this.points.length; i++) {
      if (this.cum[i] > s0 && this.cum[i] < s1) ctx.lineTo(this.points[i][0] + ox, this.points[i][1] + oy);
    }
    const b = this.at(s1);
    ctx.lineTo(b.x + ox, b.y + oy);
  }
}

export class TorusView {
  // scale: device pixels per logical unit, fixed (an export's canvas); by default the canvas
  // follows its size on screen and the display's pixel ratio.
  constructor(canvas, { scale = null } = {}) {
    this.canvas = canvas;
    this.fixedScale = scale;
    this.ctx = canvas.getContext('2d');
    // The canvas in logical units, the strip along its left and bottom edges for the axes,
    // and the square the torus is drawn in.
    this.canvasSize = 600;
    this.margin = 22;
    this.size = this.canvasSize - this.margin;
    this.k = 0;
    this.vcs = 0;
  }

  setGeometry(k, vcs, buf) {
    this.k = k;
    this.vcs = vcs;
    this.buf = buf;
    this.pitch = this.size / k;
    this.half = this.pitch * 0.2;               // half the side of a node square
    this.gap = Math.max(1, this.pitch * 0.025); // between a node's centre line and the band
    // Lanes share a band up to about a quarter of the pitch wide; a worm is drawn at least 4
    // units wide, overlapping its neighbours' lanes when there are many VCs.
    this.lane = Math.min(8, (this.pitch * 0.28) / vcs);
    this.wormWidth = Math.max(4, this.lane * 0.85);
  }

  resize() {
    if (this.fixedScale) {
      this.scale = this.fixedScale;
      this.canvas.width = this.canvasSize * this.fixedScale;
      this.canvas.height = this.canvasSize * this.fixedScale;
      return;
    }
    const dpr = window.devicePixelRatio || 1;
    const css = this.canvas.clientWidth || this.canvasSize;
    this.scale = (css * dpr) / this.canvasSize;
    if (this.canvas.width !== Math.round(css * dpr)) {
      this.canvas.width = Math.round(css * dpr);
      this.canvas.height = Math.round(css * dpr);
    }
  }

  // Canvas logical units of a point in torus space, and back.
  toCanvas(x, y) {
    return [x + this.margin, y];
  }

  fromCanvas(px, py) {
    return [px - this.margin, py];
  }

  centre(node) {
    const x = node % this.k;
    const y = Math.floor(node / this.k);
    return [(x + 0.5) * this.pitch, (this.k - 1 - y + 0.5) * this.pitch];
  }

  // The node whose square is at canvas point (px, py) (within a few units), or −1.
  nodeAt(px, py, slack = 2) {
    const [tx, ty] = this.fromCanvas(px, py);
    const x = Math.floor(tx / this.pitch);
    const y = this.k - 1 - Math.floor(ty / this.pitch);
    if (x < 0 || y < 0 || x >= this.k || y >= this.k) return -1;
    const [cx, cy] = this.centre(x + y * this.k);
    const r = this.half + slack;
    return Math.abs(tx - cx) <= r && Math.abs(ty - cy) <= r ? x + y * this.k : -1;
  }

  // The channel whose band is nearest canvas point (px, py), within its band, or −1.
  channelAt(px, py) {
    const [tx, ty] = this.fromCanvas(px, py);
    let best = -1;
    let bestDistance = this.lane * this.vcs / 2 + 2;
    for (let c = 0; c < this.k * this.k * 4; c++) {
      const [x, y, dx, dy, len] = this.lanePath((c / 4) | 0, c % 4, (this.vcs - 1) / 2);
      for (const [ox, oy] of [[0, 0], [-dx * this.size, -dy * this.size]]) {
        const along = (tx - x - ox) * dx + (ty - y - oy) * dy;
        if (along < 0 || along > len) continue;
        const d = Math.abs((tx - x - ox) * -dy + (ty - y - oy) * dx);
        if (d < bestDistance) {
          bestDistance = d;
          best = c;
        }
      }
    }
    return best;
  }

  // The link whose centre line passes nearest to canvas point (px0, py0), between the node squares and within
  // a fifth of the pitch, as { node, dim } (the link from `node` to its + neighbour along
  // `dim`), or null.
  linkAt(px0, py0) {
    const [px, py] = this.fromCanvas(px0, py0);
    const { k, pitch, half } = this;
    let best = null;
    let bestDistance = pitch * 0.2;
    for (let u = 0; u < k * k; u++) {
      const [cx, cy] = this.centre(u);
      for (const dim of [0, 1]) {
        const [dx, dy] = PORT_DIR[2 * dim];
        // A wrap-around link leaves the canvas and comes back at the opposite edge.
        for (const shift of [0, this.size]) {
          const ax = cx + dx * (half - shift);
          const ay = cy + dy * (half - shift);
          const along = Math.min(Math.max((px - ax) * dx + (py - ay) * dy, 0), pitch - 2 * half);
          const d = Math.hypot(px - (ax + dx * along), py - (ay + dy * along));
          if (d < bestDistance) {
            bestDistance = d;
            best = { node: u, dim };
          }
        }
      }
    }
    return best;
  }

  // Where a failed link is crossed out: midway between its nodes (twice for a wrap-around link,
  // at both edges of the canvas).
  linkMidpoints(node, dim) {
    const [cx, cy] = this.centre(node);
    const [dx, dy] = PORT_DIR[2 * dim];
    const x = cx + (dx * this.pitch) / 2;
    const y = cy + (dy * this.pitch) / 2;
    const wraps = x >= this.size || x <= 0 || y >= this.size || y <= 0;
    return wraps ? [[x, y], [x - dx * this.size, y - dy * this.size]] : [[x, y]];
  }

  // Failed channels: their bands dashed in grey, and a cross midway along each failed link.
  drawFaults(failedChannels) {
    const ctx = this.ctx;
    const bandWidth = this.lane * this.vcs;
    ctx.save();
    for (const c of failedChannels) {
      const node = (c / 4) | 0;
      const port = c % 4;
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = bandWidth + 2;
      ctx.beginPath();
      this.strokeLane(node, port, (this.vcs - 1) / 2, 0, 1);
      ctx.stroke();
      ctx.strokeStyle = FAULT_COLOUR;
      ctx.lineWidth = Math.max(2, bandWidth * 0.6);
      ctx.setLineDash([4, 4]);
      ctx.beginPath();
      this.strokeLane(node, port, (this.vcs - 1) / 2, 0, 1);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    const a = Math.max(4, this.pitch * 0.12);
    for (const c of failedChannels) {
      // Each link once: from the channel in its + direction.
      if (c % 2 !== 0) continue;
      for (const [x, y] of this.linkMidpoints((c / 4) | 0, (c % 4) >> 1)) this.cross(x, y, a, '#111111', 3);
    }
    ctx.restore();
  }

  // A bold cross centred on (x, y), `a` from the centre to each end, outlined in white.
  cross(x, y, a, colour, width) {
    const ctx = this.ctx;
    for (const [stroke, w] of [['#ffffff', width + 2.5], [colour, width]]) {
      ctx.strokeStyle = stroke;
      ctx.lineWidth = w;
      ctx.lineCap = 'round';
      ctx.beginPath();
      ctx.moveTo(x - a, y - a);
      ctx.lineTo(x + a, y + a);
      ctx.moveTo(x + a, y - a);
      ctx.lineTo(x - a, y + a);
      ctx.stroke();
    }
    ctx.lineCap = 'butt';
  }

  // Headers stuck at faults: a box round the header's dot (round the node for one still in its
  // source's injection channel). `stuck` lists VC indices: network VCs `channel · V + v`, then
  // one injection VC per node; `worms` are the worms as drawn, each with its header's lane.
  drawStuck(stuck, worms, showLanes) {
    const ctx = this.ctx;
    const networkVcs = this.k * this.k * 4 * this.vcs;
    const width = showLanes ? this.wormWidth : Math.min(this.lane * this.vcs, 7);
    const dot = Math.min(5.5, Math.max(3, width * 0.95));
    const boxes = [];
    for (const vc of stuck) if (vc >= networkVcs) boxes.push([...this.centre(vc - networkVcs), this.half + 3]);
    const inNetwork = new Set(stuck.filter((vc) => vc < networkVcs));
    for (const w of worms) {
      if (!inNetwork.has(w.header.vc)) continue;
      const p = w.path.at(w.to);
      // Where drawHead puts the dot, brought back onto the torus if the body wrapped round.
      const x = p.x - p.dx * dot;
      const y = p.y - p.dy * dot;
      boxes.push([x - this.size * Math.floor(x / this.size), y - this.size * Math.floor(y / this.size), dot + 3]);
    }
    ctx.save();
    for (const [x, y, r] of boxes) {
      for (const [stroke, w] of [['#ffffff', 4.5], [INK, 2.5]]) {
        ctx.strokeStyle = stroke;
        ctx.lineWidth = w;
        ctx.strokeRect(x - r, y - r, 2 * r, 2 * r);
      }
    }
    ctx.restore();
  }

  // Canvas logical position of a node's centre (for a test or a tooltip).
  nodeCentre(node) {
    return this.toCanvas(...this.centre(node));
  }

  // Start point, unit direction and length of lane `vc` of the channel leaving `node` by `port`.
  lanePath(node, port, vc) {
    const [cx, cy] = this.centre(node);
    const [dx, dy] = PORT_DIR[port];
    const off = this.gap + (vc + 0.5) * this.lane;
    const nx = -dy;
    const ny = dx;
    return [cx + dx * this.half + nx * off, cy + dy * this.half + ny * off, dx, dy, this.pitch - 2 * this.half];
  }

  // Strokes the part [t0, t1] of a lane; a wrap-around lane is drawn again shifted by the torus
  // size, so the half beyond one edge reappears at the opposite edge.
  strokeLane(node, port, vc, t0, t1) {
    const [x, y, dx, dy, len] = this.lanePath(node, port, vc);
    const ctx = this.ctx;
    const draw = (ox, oy) => {
      ctx.moveTo(x + dx * len * t0 + ox, y + dy * len * t0 + oy);
      ctx.lineTo(x + dx * len * t1 + ox, y + dy * len * t1 + oy);
    };
    draw(0, 0);
    const endX = x + dx * len;
    const endY = y + dy * len;
    if (endX > this.size || endX < 0 || endY > this.size || endY < 0) {
      draw(-dx * this.size, -dy * this.size);
    }
  }

  // Calls draw(ox, oy) once for the torus and once more for each copy shifted by the torus size
  // that the box [x0, x1] × [y0, y1] reaches into (a worm crossing a wrap-around link).
  wrapped(x0, y0, x1, y1, draw) {
    const S = this.size;
    const xs = [0, ...(x0 < 0 ? [S] : []), ...(x1 > S ? [-S] : [])];
    const ys = [0, ...(y0 < 0 ? [S] : []), ...(y1 > S ? [-S] : [])];
    for (const ox of xs) for (const oy of ys) draw(ox, oy);
  }

  // state: { flits, owner, blocked, runs, sources, queues, probes, acks, heat, buf, showHeat,
  // showLanes, coordinates, selected, hover, followed, trail, classes, deadlock, tree,
  // treeSource, backtracks, deflections, failedChannels, failedNodes, stuck }
  // runs/sources/queues/probes/acks: the simulator's worm_runs, source_flits,
  // shared_queue_slots, scouting_probes and acknowledgements exports; followed: a message drawn
  // on top with the others faded, or FREE; trail: the channels its header has taken; classes:
  // the routing's class of each VC index; deadlock: the wait-for cycle's { vcs, channels } or
  // null; tree: broadcast tree channels from treeSource or null; backtracks and deflections:
  // [{ vc, age }] with age from 0 (now) to 1 (about to vanish); failedChannels, failedNodes:
  // the simulator's lists; stuck: the VCs of headers stuck at faults.
  draw(state) {
    const { ctx } = this;
    const following = state.followed !== FREE;
    this.resize();
    ctx.setTransform(this.scale, 0, 0, this.scale, 0, 0);
    ctx.clearRect(0, 0, this.canvasSize, this.canvasSize);
    ctx.save();
    ctx.translate(this.margin, 0);
    ctx.beginPath();
    ctx.rect(0, 0, this.size, this.size);
    ctx.clip();
    ctx.globalAlpha = following ? 0.35 : 1;
    this.drawBands(state.showHeat ? state.heat : null);
    ctx.restore();
    // Everything that changes only with the view's options, copied pixel for pixel.
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.staticLayer(state, following), 0, 0);
    ctx.setTransform(this.scale, 0, 0, this.scale, 0, 0);
    ctx.translate(this.margin, 0);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, 0, this.size, this.size);
    ctx.clip();

    if (state.queues && state.queues.length) this.drawSharedQueues(state.queues, following ? state.followed : FREE);
    if (following) this.drawTrail(state.trail);
    if (state.deadlock) this.drawDeadlock(state.deadlock, state.showLanes);
    if (state.tree) this.drawTree(state.tree);

    const worms = this.worms(state);
    this.drawn = worms;
    for (const w of worms) if (!following || w.id !== state.followed) this.drawWorm(w, state, following ? 0.25 : 1);
    for (const w of worms) if (following && w.id === state.followed) this.drawWorm(w, state, 1, true);
    if (state.acks && state.acks.length) this.drawAcknowledgements(worms, state.acks, state.scout, following ? state.followed : FREE);
    if (state.backtracks) this.drawBacktracks(state.backtracks);
    if (state.deflections) this.drawDeflections(state.deflections);
    if (state.stuck && state.stuck.length) this.drawStuck(state.stuck, worms, state.showLanes);
    ctx.restore();
  }

  // Channel bands: each unidirectional channel's band in its heat colour (or neutral), as
  // rectangles (a band is axis-parallel), a wrap-around band's half beyond one edge again at
  // the opposite edge. Drawn every frame, so from a table of the heat colours, not a string
  // built per channel.
  drawBands(heat) {
    const { k, ctx, size } = this;
    const bandWidth = this.lane * this.vcs;
    const mid = (this.vcs - 1) / 2;
    const fill = (x, y, w, h) => {
      ctx.fillRect(x, y, w, h);
      if (x < 0) ctx.fillRect(x + size, y, w, h);
      else if (x + w > size) ctx.fillRect(x - size, y, w, h);
      if (y < 0) ctx.fillRect(x, y + size, w, h);
      else if (y + h > size) ctx.fillRect(x, y - size, w, h);
    };
    if (!heat) ctx.fillStyle = '#f2f2f2';
    for (let c = 0; c < k * k * 4; c++) {
      if (heat) ctx.fillStyle = HEAT_TABLE[Math.round(Math.min(Math.max(heat[c], 0), 1) * HEAT_LEVELS)];
      const [x, y, dx, dy, len] = this.lanePath((c / 4) | 0, c % 4, mid);
      if (dy === 0) fill(Math.min(x, x + dx * len), y - bandWidth / 2, len, bandWidth);
      else fill(x - bandWidth / 2, Math.min(y, y + dy * len), bandWidth, len);
    }
  }

  // The picture's still parts, over the bands and under the worms: the axes, each band's thin
  // edge on the side of the node's centre line, the wrap-around arrows, failed links and nodes,
  // the node squares (selected, hovered, a broadcast's source) and their coordinates. Redrawn
  // into an offscreen canvas only when one of them changes, so that a frame copies them
  // instead of stroking and filling every one again.
  staticLayer(state, following) {
    const key = [this.canvas.width, this.scale, this.k, this.vcs, this.lane, state.hover, state.selected, state.treeSource,
      following, state.coordinates, (state.failedChannels || []).join(' '), (state.failedNodes || []).join(' ')].join('|');
    if (this.layer && this.layerKey === key) return this.layer;
    if (!this.layer) this.layer = document.createElement('canvas');
    const layer = this.layer;
    layer.width = this.canvas.width;
    layer.height = this.canvas.height;
    const ctx = layer.getContext('2d');
    const onScreen = this.ctx;
    this.ctx = ctx;
    try {
      this.drawStatic(state, following);
    } finally {
      this.ctx = onScreen;
    }
    this.layerKey = key;
    return layer;
  }

  drawStatic(state, following) {
    const { k, ctx } = this;
    ctx.setTransform(this.scale, 0, 0, this.scale, 0, 0);
    this.drawAxes(state.hover);
    ctx.translate(this.margin, 0);
    ctx.beginPath();
    ctx.rect(0, 0, this.size, this.size);
    ctx.clip();
    ctx.lineCap = 'butt';
    ctx.globalAlpha = following ? 0.35 : 1;
    ctx.strokeStyle = '#b8b8b8';
    ctx.lineWidth = 0.6;
    ctx.beginPath();
    for (let c = 0; c < k * k * 4; c++) this.strokeLane((c / 4) | 0, c % 4, -0.5, 0, 1);
    ctx.stroke();
    ctx.globalAlpha = 1;
    this.drawWrapArrows();
    if (state.failedChannels && state.failedChannels.length) this.drawFaults(state.failedChannels);

    // Nodes under the worms, so that a worm's body runs on across the router; a failed one
    // grey and crossed out.
    const failedNodes = new Set(state.failedNodes || []);
    for (let u = 0; u < k * k; u++) {
      const [cx, cy] = this.centre(u);
      const failed = failedNodes.has(u);
      ctx.fillStyle = failed ? FAULT_COLOUR : u === state.selected ? '#222222' : u === state.treeSource ? '#009e73' : '#ffffff';
      ctx.strokeStyle = u === state.hover ? INK : '#555555';
      ctx.lineWidth = u === state.selected || u === state.hover ? 2 : 1;
      ctx.beginPath();
      ctx.rect(cx - this.half, cy - this.half, 2 * this.half, 2 * this.half);
      ctx.fill();
      ctx.stroke();
      if (failed) this.cross(cx, cy, this.half * 0.8, INK, 2.5);
    }
    if (state.coordinates) this.drawCoordinates(state.selected);
  }

  // The node numbers along the bottom (x) and left (y) edges, the hovered node's in bold.
  drawAxes(hover) {
    const { k, ctx, margin } = this;
    const hx = hover >= 0 ? hover % k : -1;
    const hy = hover >= 0 ? Math.floor(hover / k) : -1;
    ctx.save();
    ctx.fillStyle = '#555555';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const size = Math.max(7, Math.min(11, this.pitch * 0.3));
    const font = (bold) => `${bold ? 'bold ' : ''}${size}px sans-serif`;
    const every = k > 12 ? 2 : 1;
    for (let i = 0; i < k; i++) {
      const [cx] = this.centre(i);
      const [, cy] = this.centre(i * k);
      if (i % every === 0 || i === hx) {
        ctx.font = font(i === hx);
        ctx.fillText(String(i), margin + cx, this.size + margin / 2);
      }
      if (i % every === 0 || i === hy) {
        ctx.font = font(i === hy);
        ctx.fillText(String(i), margin / 2, cy);
      }
    }
    ctx.font = font(true);
    ctx.textAlign = 'left';
    ctx.fillText('x →', margin + 2 + (k - 0.5) * this.pitch - size * 4.2, this.size + margin / 2);
    ctx.save();
    ctx.translate(margin / 2, this.pitch * 0.5 + size * 2.2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.fillText('y →', 0, 0);
    ctx.restore();
    ctx.restore();
  }

  // Each node's (x, y) inside its square.
  drawCoordinates(selected) {
    const { k, ctx } = this;
    ctx.save();
    ctx.font = `${Math.max(6, Math.min(11, this.half * 0.6))}px sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let u = 0; u < k * k; u++) {
      const [cx, cy] = this.centre(u);
      ctx.fillStyle = u === selected ? '#ffffff' : '#333333';
      ctx.fillText(`${u % k},${Math.floor(u / k)}`, cx, cy);
    }
    ctx.restore();
  }

  // ---- worms -------------------------------------------------------------------------

  // Every message with flits or VCs in the network, as { id, lanes (header first), path,
  // extent, flits, header, ... }: the VCs it holds, ordered from its header back to its tail
  // by following the channels upstream.
  worms(state) {
    const { k, vcs } = this;
    const { owner, runs, sources } = state;
    const held = new Map();
    const entry = (id) => {
      if (!held.has(id)) held.set(id, { id, lanes: new Map(), broadcast: false, source: -1, sourceFlits: 0 });
      return held.get(id);
    };
    // Each VC: the message's slots in it, counted from the downstream end (0 = the front).
    const note = (id, vc, first, count, broadcast) => {
      const w = entry(id);
      w.broadcast ||= broadcast;
      const lane = w.lanes.get(vc) || { vc, first: Infinity, last: -1 };
      if (count > 0) {
        lane.first = Math.min(lane.first, first);
        lane.last = Math.max(lane.last, first + count - 1);
      }
      w.lanes.set(vc, lane);
    };
    for (let vc = 0; vc < owner.length; vc++) {
      const front = runs[3 * vc];
      const back = runs[3 * vc + 1];
      const bits = runs[3 * vc + 2];
      if (front !== FREE) {
        const frontRun = bits & RUN_MASK;
        const backRun = (bits >>> RUN_BITS) & RUN_MASK;
        const flits = state.flits[vc];
        note(front, vc, 0, frontRun, (bits & FRONT_BROADCAST) !== 0);
        if (back !== front) note(back, vc, flits - backRun, backRun, (bits & BACK_BROADCAST) !== 0);
      }
      const o = owner[vc];
      if (o !== FREE && o !== front && o !== back) note(o, vc, 0, 0, (bits & OWNER_BROADCAST) !== 0);
    }
    if (sources) {
      for (let u = 0; u < k * k; u++) {
        const id = sources[2 * u];
        if (id === FREE || !held.has(id)) continue;
        const w = held.get(id);
        w.source = u;
        w.sourceFlits = sources[2 * u + 1];
      }
    }
    const out = [];
    for (const w of held.values()) out.push(this.shape(w, state));
    return out;
  }

  // Orders a worm's lanes from header to tail and lays its body out along one path.
  shape(w, state) {
    const { k, vcs } = this;
    const lanes = [...w.lanes.values()];
    const upstream = (l) => ((l.vc / vcs) / 4) | 0;
    const downstream = (l) => {
      const c = (l.vc / vcs) | 0;
      return neighbour((c / 4) | 0, c % 4, k);
    };
    // The header's lane: no lane of the worm leaves the node its channel enters.
    const leaving = new Set(lanes.map(upstream));
    let head = lanes.find((l) => !leaving.has(downstream(l))) || lanes.find((l) => l.first === 0) || lanes[0];
    const chain = [head];
    const used = new Set([head.vc]);
    for (;;) {
      const from = upstream(chain[chain.length - 1]);
      const next = lanes.find((l) => !used.has(l.vc) && downstream(l) === from);
      if (!next) break;
      chain.push(next);
      used.add(next.vc);
    }
    w.chain = chain;
    w.stray = lanes.filter((l) => !used.has(l.vc));
    w.probe = state.probeOf ? state.probeOf.get(w.id) || null : null;
    w.header = head;
    w.blocked = state.blocked[head.vc] === BLOCKED && head.first === 0;
    // A header waiting out its router's delay (rdelay) is drawn in the router.
    w.inRouter = state.blocked[head.vc] === IN_ROUTER && head.first === 0;
    // The path: from the source node's centre (while flits wait there), through each lane from
    // tail to header, lanes joined across the routers; positions unwrapped so that a worm
    // crossing a wrap-around link stays in one piece.
    const path = new Path();
    const laneAt = (l) => (state.showLanes ? l.vc % vcs : (vcs - 1) / 2);
    const tail = chain[chain.length - 1];
    let shift = [0, 0];
    const place = (x, y) => {
      const last = path.points[path.points.length - 1];
      if (last) {
        const S = this.size;
        shift = [shift[0] + S * Math.round((last[0] - (x + shift[0])) / S), shift[1] + S * Math.round((last[1] - (y + shift[1])) / S)];
      }
      return path.add(x + shift[0], y + shift[1]);
    };
    if (w.sourceFlits > 0 && w.source === upstream(tail)) place(...this.centre(w.source));
    const ends = new Map();
    const slot = (this.pitch - 2 * this.half) / Math.max(1, this.buf);
    let previous = null;
    for (let i = chain.length - 1; i >= 0; i--) {
      const l = chain[i];
      const c = (l.vc / vcs) | 0;
      const [x, y, dx, dy, len] = this.lanePath((c / 4) | 0, c % 4, laneAt(l));
      // Across a router the body goes through the node's centre, unless it goes straight on
      // in the same lane.
      if (previous && !(previous.port === c % 4 && laneAt(previous.lane) === laneAt(l))) place(...this.centre((c / 4) | 0));
      previous = { port: c % 4, lane: l };
      const start = place(x, y);
      const end = place(x + dx * len, y + dy * len);
      ends.set(l.vc, { start, end });
    }
    w.path = path;
    w.ends = ends;
    w.slot = slot;
    // The body runs from its last flit (or the source) to its header's flit.
    const tailEnds = ends.get(tail.vc);
    w.from = w.sourceFlits > 0 && w.source === upstream(tail) ? 0
      : tail.last >= 0 ? tailEnds.end - (tail.last + 1) * slot : tailEnds.start;
    const headEnds = ends.get(head.vc);
    w.to = head.last >= 0 ? headEnds.end - head.first * slot : headEnds.end;
    if (w.inRouter) w.to = place(...this.centre(downstream(head)));
    w.to = Math.max(w.to, w.from);
    return w;
  }

  // A worm: a dark outline and its colour along the body, its VC classes' patterns, a tick
  // per flit, and its header. Under scouting the stretch the probe has reserved ahead of the
  // data is a thin dashed line to the header.
  drawWorm(w, state, alpha, followed = false) {
    const ctx = this.ctx;
    const { path } = w;
    if (!path.points.length) return;
    const colour = messageColour(w.id);
    const width = state.showLanes ? this.wormWidth : Math.min(this.lane * this.vcs, 7);
    // Where the data ends and the probe's reserved stretch begins.
    let dataTo = w.to;
    if (w.probe && w.probe.lead > 0) dataTo = this.dataFront(w, w.probe);
    w.dataTo = dataTo;
    const xs = path.points.map((p) => p[0]);
    const ys = path.points.map((p) => p[1]);
    ctx.save();
    ctx.globalAlpha = alpha;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    this.wrapped(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys), (ox, oy) => {
      // The reserved stretch, thin and dashed.
      if (dataTo < w.to) {
        ctx.strokeStyle = colour;
        ctx.lineWidth = Math.max(1.5, width * 0.45);
        ctx.setLineDash([3, 2.5]);
        ctx.beginPath();
        path.trace(ctx, dataTo, w.to, ox, oy);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      if (dataTo > w.from) {
        ctx.strokeStyle = followed ? INK : 'rgba(17,17,17,0.75)';
        ctx.lineWidth = width + (followed ? 4 : 1.6);
        ctx.beginPath();
        path.trace(ctx, w.from, dataTo, ox, oy);
        ctx.stroke();
        ctx.strokeStyle = colour;
        ctx.lineWidth = width;
        ctx.beginPath();
        path.trace(ctx, w.from, dataTo, ox, oy);
        ctx.stroke();
        // Each lane's VC class, over the part of the body in that lane.
        ctx.lineCap = 'butt';
        for (const l of w.chain) {
          const cls = state.classes[l.vc % this.vcs];
          if (!cls || !(cls.escape || cls.after_dateline)) continue;
          const e = w.ends.get(l.vc);
          const s0 = Math.max(e.start, w.from);
          const s1 = Math.min(e.end, dataTo);
          if (s1 > s0) strokeClassPattern(ctx, cls, width, () => path.trace(ctx, s0, s1, ox, oy));
        }
        ctx.lineCap = 'round';
        this.drawFlits(w, width, ox, oy);
      }
      this.drawHead(w, width, ox, oy);
    });
    ctx.restore();
  }

  // The first data flit's position on the worm's path: `lead` channels behind the header's.
  dataFront(w, probe) {
    if (probe.lead >= w.chain.length) return w.from;
    const lane = w.chain[probe.lead];
    const e = w.ends.get(lane.vc);
    return lane.last >= 0 ? e.end - lane.first * w.slot : e.start;
  }

  // A tick across the body at each flit of the worm, where the buffers hold them (the
  // downstream end of each lane, one buffer slot per flit); a long buffer's flits, too close to
  // tick apart, shade their stretch instead.
  drawFlits(w, width, ox, oy) {
    const ctx = this.ctx;
    const { path, slot } = w;
    ctx.save();
    ctx.fillStyle = 'rgba(255,255,255,0.9)';
    ctx.strokeStyle = 'rgba(17,17,17,0.55)';
    ctx.lineWidth = 0.6;
    const r = Math.min(width * 0.3, slot * 0.32);
    if (r < 0.9) {
      ctx.strokeStyle = 'rgba(255,255,255,0.8)';
      ctx.lineWidth = Math.max(1, width * 0.3);
    }
    // The ticks never overlap (each within its own slot): one path, filled and outlined once.
    ctx.beginPath();
    for (const l of w.chain) {
      if (l.last < 0) continue;
      const e = w.ends.get(l.vc);
      if (r < 0.9) {
        path.trace(ctx, e.end - (l.last + 1) * slot, e.end - l.first * slot, ox, oy);
        continue;
      }
      for (let j = l.first; j <= l.last; j++) {
        const p = path.at(e.end - (j + 0.5) * slot);
        ctx.moveTo(p.x + ox + r, p.y + oy);
        ctx.arc(p.x + ox, p.y + oy, r, 0, 2 * Math.PI);
      }
    }
    if (r >= 0.9) ctx.fill();
    ctx.stroke();
    if (w.sourceFlits > 0 && w.from === 0) {
      // Flits still at the source: a count beside the source node's centre.
      const p = path.at(0);
      ctx.fillStyle = INK;
      ctx.font = `${Math.max(7, this.half * 0.55)}px sans-serif`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(String(w.sourceFlits), p.x + ox, p.y + oy);
    }
    ctx.restore();
  }

  // The header: a dot (a diamond for a broadcast copy) at the front of the worm, and a bar
  // across the lane in front of it when it could not advance in the last cycle.
  drawHead(w, width, ox, oy) {
    const ctx = this.ctx;
    const p = w.path.at(w.to);
    const r = Math.min(5.5, Math.max(3, width * 0.95));
    const x = p.x - p.dx * r + ox;
    const y = p.y - p.dy * r + oy;
    ctx.fillStyle = messageColour(w.id);
    ctx.strokeStyle = INK;
    ctx.lineWidth = 1.3;
    ctx.beginPath();
    if (w.broadcast) {
      const d = r * 1.35;
      ctx.moveTo(x + d, y);
      ctx.lineTo(x, y + d);
      ctx.lineTo(x - d, y);
      ctx.lineTo(x, y - d);
      ctx.closePath();
    } else {
      ctx.arc(x, y, r, 0, 2 * Math.PI);
    }
    ctx.fill();
    ctx.stroke();
    if (w.blocked) {
      const bar = Math.max(4, r * 2.2);
      ctx.lineWidth = Math.max(2, r * 0.8);
      ctx.beginPath();
      ctx.moveTo(p.x + ox + p.dy * bar, p.y + oy - p.dx * bar);
      ctx.lineTo(p.x + ox - p.dy * bar, p.y + oy + p.dx * bar);
      ctx.stroke();
    }
  }

  // The message whose worm is drawn nearest to canvas point (px, py), within a few units, or
  // FREE (from the last frame's worms).
  messageAt(px, py) {
    const [tx, ty] = this.fromCanvas(px, py);
    let best = FREE;
    let bestDistance = Math.max(5, this.wormWidth * 1.5);
    for (const w of this.drawn || []) {
      const { points } = w.path;
      for (const [ox, oy] of [[0, 0], [this.size, 0], [-this.size, 0], [0, this.size], [0, -this.size]]) {
        for (let i = 1; i < points.length; i++) {
          const [ax, ay] = points[i - 1];
          const [bx, by] = points[i];
          const len = Math.hypot(bx - ax, by - ay) || 1;
          const t = Math.min(1, Math.max(0, ((tx - ox - ax) * (bx - ax) + (ty - oy - ay) * (by - ay)) / (len * len)));
          const d = Math.hypot(tx - ox - (ax + (bx - ax) * t), ty - oy - (ay + (by - ay) * t));
          if (d < bestDistance) {
            bestDistance = d;
            best = w.id;
          }
        }
      }
    }
    return best;
  }

  // ---- overlays ----------------------------------------------------------------------

  // The path a followed header has taken: a dashed line along the channels' centres.
  drawTrail(trail) {
    const ctx = this.ctx;
    ctx.save();
    ctx.strokeStyle = INK;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    for (const c of trail) this.strokeLane((c / 4) | 0, c % 4, (this.vcs - 1) / 2, 0, 1);
    ctx.stroke();
    ctx.restore();
  }

  // The deadlock's wait-for cycle: a wide halo under each waiting VC's lane (the whole band
  // when lanes are merged).
  drawDeadlock({ vcs: cycle }, showLanes) {
    const ctx = this.ctx;
    const lane = (i) => (showLanes ? i % this.vcs : (this.vcs - 1) / 2);
    ctx.save();
    ctx.strokeStyle = DEADLOCK_COLOUR;
    ctx.lineCap = 'round';
    ctx.lineWidth = (showLanes ? Math.max(this.lane, this.wormWidth) : this.lane * this.vcs) + 6;
    ctx.beginPath();
    for (const i of cycle) {
      const c = (i / this.vcs) | 0;
      this.strokeLane((c / 4) | 0, c % 4, lane(i), 0.05, 0.95);
    }
    ctx.stroke();
    ctx.restore();
  }

  // A broadcast spanning tree: one arrow along each tree channel, beside the lanes.
  drawTree(tree) {
    const ctx = this.ctx;
    const outside = -1.2;
    ctx.save();
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 4;
    ctx.beginPath();
    for (const c of tree) this.strokeLane((c / 4) | 0, c % 4, outside, 0, 1);
    ctx.stroke();
    ctx.strokeStyle = TREE_COLOUR;
    ctx.fillStyle = TREE_COLOUR;
    ctx.lineWidth = 2;
    ctx.setLineDash([5, 3]);
    ctx.beginPath();
    for (const c of tree) this.strokeLane((c / 4) | 0, c % 4, outside, 0, 1);
    ctx.stroke();
    ctx.setLineDash([]);
    for (const c of tree) this.arrowOnLane((c / 4) | 0, c % 4, outside, 0.8, 5);
    ctx.restore();
  }

  // Scouting acknowledgements: each a small white chevron with a dark edge, on its way from
  // the channel the probe reserved back to the data, `left` of K cycles still to go.
  drawAcknowledgements(worms, acks, k, followed) {
    const ctx = this.ctx;
    const byId = new Map(worms.map((w) => [w.id, w]));
    ctx.save();
    for (let i = 0; i < acks.length; i += 3) {
      const w = byId.get(acks[i]);
      if (!w || !w.probe || (followed !== FREE && w.id !== followed)) continue;
      const hop = acks[i + 1];
      const left = acks[i + 2];
      // Channel number `hop` along the path is `hops − hop` lanes behind the header's.
      const back = w.probe.hops - hop;
      if (back < 0 || back >= w.chain.length) continue;
      const lane = w.chain[back];
      const from = w.ends.get(lane.vc).end;
      const to = w.dataTo ?? w.from;
      const s = from + (to - from) * Math.min(1, (k - left) / Math.max(1, k));
      const p = w.path.at(s);
      const r = Math.max(2.6, this.wormWidth * 0.8);
      this.wrapped(p.x, p.y, p.x, p.y, (ox, oy) => {
        const x = p.x + ox;
        const y = p.y + oy;
        // Pointing back along the path, towards the data.
        ctx.beginPath();
        ctx.moveTo(x - p.dx * r, y - p.dy * r);
        ctx.lineTo(x + p.dx * r - p.dy * r, y + p.dy * r + p.dx * r);
        ctx.lineTo(x + p.dx * r * 0.3, y + p.dy * r * 0.3);
        ctx.lineTo(x + p.dx * r + p.dy * r, y + p.dy * r - p.dx * r);
        ctx.closePath();
        ctx.fillStyle = '#ffffff';
        ctx.strokeStyle = INK;
        ctx.lineWidth = 1;
        ctx.fill();
        ctx.stroke();
      });
    }
    ctx.restore();
  }

  // Scouting backtracks: a hooked arrow on the lane the header released, running back up it,
  // fading with age.
  drawBacktracks(marks) {
    const ctx = this.ctx;
    ctx.save();
    for (const { vc, age } of marks) {
      const c = (vc / this.vcs) | 0;
      const [x, y, dx, dy, len] = this.lanePath((c / 4) | 0, c % 4, vc % this.vcs);
      const r = Math.max(3, this.lane * 1.2);
      // Normal pointing away from the node's centre line, where the hook turns.
      const nx = -dy;
      const ny = dx;
      ctx.globalAlpha = 1 - 0.8 * age;
      this.wrapped(Math.min(x, x + dx * len), Math.min(y, y + dy * len), Math.max(x, x + dx * len), Math.max(y, y + dy * len), (ox, oy) => {
        const ax = x + ox + dx * len * 0.9;
        const ay = y + oy + dy * len * 0.9;
        const path = () => {
          ctx.beginPath();
          // Along the lane towards its downstream end, a hook round, and back up beside it.
          ctx.moveTo(x + ox + dx * len * 0.45, y + oy + dy * len * 0.45);
          ctx.lineTo(ax, ay);
          ctx.arc(ax + nx * r, ay + ny * r, r, Math.atan2(-ny, -nx), Math.atan2(ny, nx), dx * ny - dy * nx < 0);
          ctx.lineTo(x + ox + dx * len * 0.3 + nx * 2 * r, y + oy + dy * len * 0.3 + ny * 2 * r);
        };
        ctx.strokeStyle = '#ffffff';
        ctx.lineWidth = 4.5;
        path();
        ctx.stroke();
        ctx.strokeStyle = INK;
        ctx.lineWidth = 2;
        path();
        ctx.stroke();
        // The arrowhead, pointing upstream.
        const hx = x + ox + dx * len * 0.3 + nx * 2 * r;
        const hy = y + oy + dy * len * 0.3 + ny * 2 * r;
        const s = 5;
        ctx.fillStyle = INK;
        ctx.beginPath();
        ctx.moveTo(hx - dx * s, hy - dy * s);
        ctx.lineTo(hx + dy * s * 0.6, hy - dx * s * 0.6);
        ctx.lineTo(hx - dy * s * 0.6, hy + dx * s * 0.6);
        ctx.closePath();
        ctx.fill();
      });
    }
    ctx.restore();
  }

  // Chaos deflections: a star at the start of the lane the packet was sent into, fading.
  drawDeflections(marks) {
    const ctx = this.ctx;
    ctx.save();
    for (const { vc, age } of marks) {
      const c = (vc / this.vcs) | 0;
      const [x, y, dx, dy, len] = this.lanePath((c / 4) | 0, c % 4, vc % this.vcs);
      const px = x + dx * len * 0.25;
      const py = y + dy * len * 0.25;
      const r = Math.max(5, this.pitch * 0.09);
      ctx.globalAlpha = 1 - 0.8 * age;
      this.wrapped(px, py, px, py, (ox, oy) => {
        ctx.beginPath();
        for (let i = 0; i < 10; i++) {
          const a = (Math.PI / 5) * i - Math.PI / 2;
          const rr = i % 2 === 0 ? r : r * 0.45;
          ctx.lineTo(px + ox + Math.cos(a) * rr, py + oy + Math.sin(a) * rr);
        }
        ctx.closePath();
        ctx.fillStyle = INK;
        ctx.strokeStyle = '#ffffff';
        ctx.lineWidth = 1.5;
        ctx.stroke();
        ctx.fill();
      });
    }
    ctx.restore();
  }

  // Chaos's shared queue at each node: one cell per slot along the node's bottom edge, filled
  // in the colour of the packet it holds (a bar of the queue's occupancy when there are too
  // many slots to draw apart).
  drawSharedQueues(queues, followed) {
    const { k, ctx } = this;
    const mq = queues.length / 2 / (k * k);
    ctx.save();
    for (let u = 0; u < k * k; u++) {
      const [cx, cy] = this.centre(u);
      const x0 = cx - this.half + 1.5;
      const w = 2 * this.half - 3;
      const h = Math.max(3, this.half * 0.55);
      const y0 = cy + this.half - h - 1.5;
      ctx.strokeStyle = '#666666';
      ctx.lineWidth = 0.8;
      if (mq <= 8) {
        const cell = w / mq;
        for (let q = 0; q < mq; q++) {
          const id = queues[2 * (u * mq + q)];
          ctx.fillStyle = id === FREE ? '#ffffff' : messageColour(id);
          ctx.globalAlpha = followed !== FREE && id !== followed ? 0.3 : 1;
          ctx.fillRect(x0 + q * cell, y0, cell, h);
          ctx.strokeRect(x0 + q * cell, y0, cell, h);
        }
      } else {
        let used = 0;
        for (let q = 0; q < mq; q++) used += queues[2 * (u * mq + q)] !== FREE;
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(x0, y0, w, h);
        ctx.fillStyle = '#333333';
        ctx.fillRect(x0, y0, (w * used) / mq, h);
        ctx.strokeRect(x0, y0, w, h);
      }
    }
    ctx.restore();
  }

  // A filled arrowhead at fraction t of a lane, pointing downstream (or upstream if `back`).
  arrowOnLane(node, port, lane, t, size, back = false) {
    const ctx = this.ctx;
    const [x, y, dx0, dy0, len] = this.lanePath(node, port, lane);
    const [dx, dy] = back ? [-dx0, -dy0] : [dx0, dy0];
    const draw = (px, py) => {
      ctx.beginPath();
      ctx.moveTo(px + dx * size, py + dy * size);
      ctx.lineTo(px - dy * size * 0.6, py + dx * size * 0.6);
      ctx.lineTo(px + dy * size * 0.6, py - dx * size * 0.6);
      ctx.closePath();
      ctx.fill();
    };
    const px = x + dx0 * len * t;
    const py = y + dy0 * len * t;
    draw(px, py);
    if (px > this.size || px < 0 || py > this.size || py < 0) draw(px - dx0 * this.size, py - dy0 * this.size);
  }

  // Small arrowheads where wrap-around channels leave the torus's edge.
  drawWrapArrows() {
    const { k, ctx } = this;
    ctx.fillStyle = '#777777';
    const a = Math.max(3, this.pitch * 0.06);
    for (let i = 0; i < k; i++) {
      const edges = [
        [(k - 1) + i * k, 0], [i * k, 1], [i, 3], [(k - 1) * k + i, 2],
      ];
      for (const [node, port] of edges) {
        const [x, y, dx, dy, len] = this.lanePath(node, port, (this.vcs - 1) / 2);
        const ex = Math.min(Math.max(x + dx * len * 0.5, a), this.size - a);
        const ey = Math.min(Math.max(y + dy * len * 0.5, a), this.size - a);
        ctx.beginPath();
        ctx.moveTo(ex + dx * a, ey + dy * a);
        ctx.lineTo(ex - dx * a - dy * a, ey - dy * a + dx * a);
        ctx.lineTo(ex - dx * a + dy * a, ey - dy * a - dx * a);
        ctx.closePath();
        ctx.fill();
      }
    }
  }
}

export function neighbour(node, port, k) {
  const x = node % k;
  const y = Math.floor(node / k);
  switch (port) {
    case 0: return ((x + 1) % k) + y * k;
    case 1: return ((x + k - 1) % k) + y * k;
    case 2: return x + ((y + 1) % k) * k;
    default: return x + ((y + k - 1) % k) * k;
  }
}
