// Draws the 2-D torus: nodes, every unidirectional channel with its virtual-channel lanes,
// worms (flits coloured per message, header dot, blocked-header bar; escape and after-dateline
// VC classes patterned), a channel-utilisation heat overlay, and on top the deadlock cycle, a
// broadcast tree and scouting backtracks. Geometry only: the state comes straight from
// typed-array views of wasm memory.
//
// Channel numbering follows src/topology.rs: node = x + y·k, channel = node·4 + port, port
// 0 = +x, 1 = −x, 2 = +y, 3 = −y; a channel's buffers sit at its downstream end.

export const FREE = 0xffffffff;

// Okabe–Ito colours (colour-blind safe), black and yellow left out for contrast on white.
export const MESSAGE_COLOURS = ['#E69F00', '#56B4E9', '#009E73', '#0072B2', '#D55E00', '#CC79A7'];

export function messageColour(id) {
  return MESSAGE_COLOURS[(Math.imul(id, 2654435761) >>> 0) % MESSAGE_COLOURS.length];
}

// Sequential light-to-dark scale for the heat overlay (readable without colour vision).
const HEAT = [[240, 240, 240], [254, 217, 142], [254, 153, 41], [217, 95, 14], [153, 52, 4]];

function heatColour(u) {
  const x = Math.min(Math.max(u, 0), 1) * (HEAT.length - 1);
  const i = Math.min(Math.floor(x), HEAT.length - 2);
  const f = x - i;
  const c = HEAT[i].map((a, j) => Math.round(a + (HEAT[i + 1][j] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// Overlays, chosen apart from the message colours and the heat scale.
export const DEADLOCK_COLOUR = '#7a0177';
const TREE_COLOUR = '#000000';
const BACKTRACK_COLOUR = '#000000';

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

export class TorusView {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.size = 600;
    this.k = 0;
    this.vcs = 0;
  }

  setGeometry(k, vcs) {
    this.k = k;
    this.vcs = vcs;
    this.pitch = this.size / k;
    this.half = this.pitch * 0.2;              // half the side of a node square
    this.gap = Math.max(1, this.pitch * 0.025); // between a node's centre line and the band
    this.lane = Math.min(6, Math.max(1.2, (this.pitch * 0.15) / vcs));
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const css = this.canvas.clientWidth || this.size;
    this.scale = (css * dpr) / this.size;
    if (this.canvas.width !== Math.round(css * dpr)) {
      this.canvas.width = Math.round(css * dpr);
      this.canvas.height = Math.round(css * dpr);
    }
  }

  centre(node) {
    const x = node % this.k;
    const y = Math.floor(node / this.k);
    return [(x + 0.5) * this.pitch, (this.k - 1 - y + 0.5) * this.pitch];
  }

  nodeAt(px, py) {
    const x = Math.floor(px / this.pitch);
    const y = this.k - 1 - Math.floor(py / this.pitch);
    if (x < 0 || y < 0 || x >= this.k || y >= this.k) return -1;
    const [cx, cy] = this.centre(x + y * this.k);
    const r = this.half + 2;
    return Math.abs(px - cx) <= r && Math.abs(py - cy) <= r ? x + y * this.k : -1;
  }

  // The message whose worm is drawn nearest to (px, py), within a few pixels, or FREE.
  messageAt(px, py, owner, flits, buf, showLanes) {
    const { vcs } = this;
    let best = FREE;
    let bestDistance = Math.max(5, this.lane * 1.5);
    for (let i = 0; i < owner.length; i++) {
      if (owner[i] === FREE) continue;
      const c = (i / vcs) | 0;
      const lane = showLanes ? i % vcs : (vcs - 1) / 2;
      const [x, y, dx, dy, len] = this.lanePath((c / 4) | 0, c % 4, lane);
      const fill = Math.max(Math.min(1, flits[i] / buf), 0.08);
      for (const shift of [0, this.size]) {
        // Distance from the point to the drawn part of the lane, [1 − fill, 1] of its length.
        const qx = px + dx * shift;
        const qy = py + dy * shift;
        const along = Math.min(Math.max((qx - x) * dx + (qy - y) * dy, len * (1 - fill)), len);
        const d = Math.hypot(qx - (x + dx * along), qy - (y + dy * along));
        if (d < bestDistance) {
          bestDistance = d;
          best = owner[i];
        }
      }
    }
    return best;
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

  // state: { flits, owner, blocked, heat, buf, showHeat, showLanes, selected, followed, trail,
  // classes, deadlock, tree, treeSource, backtracks }
  // followed: a message id drawn on top with the others faded, or FREE; trail: the channels its
  // header has taken so far; classes: the routing's class of each VC index; deadlock: the
  // wait-for cycle's { vcs, channels } or null; tree: broadcast tree channels from treeSource
  // or null; backtracks: [{ channel, age }] with age from 0 (now) to 1 (about to vanish).
  draw(state) {
    const { k, vcs, ctx } = this;
    const ports = 4;
    const channels = k * k * ports;
    this.resize();
    ctx.setTransform(this.scale, 0, 0, this.scale, 0, 0);
    ctx.clearRect(0, 0, this.size, this.size);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, 0, this.size, this.size);
    ctx.clip();

    const bandWidth = this.lane * vcs;
    const following = state.followed !== FREE;
    // Channel bands: heat colour (or neutral), one band per unidirectional channel.
    ctx.lineCap = 'butt';
    ctx.globalAlpha = following ? 0.35 : 1;
    for (let c = 0; c < channels; c++) {
      const node = (c / ports) | 0;
      const port = c % ports;
      ctx.strokeStyle = state.showHeat ? heatColour(state.heat[c]) : '#eeeeee';
      ctx.lineWidth = bandWidth;
      ctx.beginPath();
      const mid = (vcs - 1) / 2;
      this.strokeLane(node, port, mid, 0, 1);
      ctx.stroke();
      ctx.strokeStyle = '#b8b8b8';
      ctx.lineWidth = 0.6;
      ctx.beginPath();
      this.strokeLane(node, port, -0.5, 0, 1);
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    this.drawWrapArrows();
    if (following) this.drawTrail(state.trail);
    if (state.deadlock) this.drawDeadlock(state.deadlock, state.showLanes);
    if (state.tree) this.drawTree(state.tree);

    // Worms: each occupied VC filled from its downstream end in proportion to its flits.
    const { flits, owner, blocked, buf } = state;
    const heads = [];
    for (let c = 0; c < channels; c++) {
      const node = (c / ports) | 0;
      const port = c % ports;
      for (let v = 0; v < vcs; v++) {
        const i = c * vcs + v;
        const o = owner[i];
        if (o === FREE) continue;
        const fill = Math.min(1, flits[i] / buf);
        const faded = following && o !== state.followed;
        ctx.globalAlpha = faded ? 0.25 : 1;
        const width = state.showLanes ? Math.max(1, this.lane * 0.85) : bandWidth;
        const lane = state.showLanes ? v : (vcs - 1) / 2;
        if (following && !faded) {
          // The followed worm gets a dark outline.
          ctx.strokeStyle = '#111111';
          ctx.lineWidth = width + 3;
          ctx.beginPath();
          this.strokeLane(node, port, lane, 1 - Math.max(fill, 0.08), 1);
          ctx.stroke();
        }
        ctx.strokeStyle = messageColour(o);
        ctx.lineWidth = width;
        ctx.beginPath();
        const t0 = 1 - Math.max(fill, 0.08);
        this.strokeLane(node, port, lane, t0, 1);
        ctx.stroke();
        strokeClassPattern(ctx, state.classes[v], width, () => this.strokeLane(node, port, lane, t0, 1));
        if (this.isHead(c, o, owner)) heads.push([node, port, lane, o, blocked[i] === 1]);
      }
    }
    for (const [node, port, lane, o, isBlocked] of heads) {
      ctx.globalAlpha = following && o !== state.followed ? 0.25 : 1;
      this.drawHead(node, port, lane, o, isBlocked);
    }
    ctx.globalAlpha = 1;

    if (state.backtracks) this.drawBacktracks(state.backtracks);

    // Nodes.
    for (let u = 0; u < k * k; u++) {
      const [cx, cy] = this.centre(u);
      ctx.fillStyle = u === state.selected ? '#222222' : u === state.treeSource ? '#009e73' : '#ffffff';
      ctx.strokeStyle = '#444444';
      ctx.lineWidth = u === state.selected ? 2 : 1;
      ctx.beginPath();
      ctx.rect(cx - this.half, cy - this.half, 2 * this.half, 2 * this.half);
      ctx.fill();
      ctx.stroke();
    }
    if (state.coordinates) this.drawCoordinates(state.selected);
    ctx.restore();
  }

  // Each node's (x, y) inside its square.
  drawCoordinates(selected) {
    const { k, ctx } = this;
    ctx.save();
    ctx.font = `${Math.max(6, Math.min(11, this.half * 0.7))}px sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let u = 0; u < k * k; u++) {
      const [cx, cy] = this.centre(u);
      ctx.fillStyle = u === selected ? '#ffffff' : '#333333';
      ctx.fillText(`${u % k},${Math.floor(u / k)}`, cx, cy);
    }
    ctx.restore();
  }

  // The front VC of a worm: no output channel of its downstream node is held by the same message.
  isHead(c, o, owner) {
    const { k, vcs } = this;
    const node = (c / 4) | 0;
    const port = c % 4;
    const next = neighbour(node, port, k);
    for (let p = 0; p < 4; p++) {
      const base = (next * 4 + p) * vcs;
      for (let v = 0; v < vcs; v++) if (owner[base + v] === o) return false;
    }
    return true;
  }

  drawHead(node, port, lane, o, isBlocked) {
    const ctx = this.ctx;
    const [x, y, dx, dy, len] = this.lanePath(node, port, lane);
    const hx = x + dx * len;
    const hy = y + dy * len;
    const points = [[hx, hy]];
    if (hx > this.size || hx < 0 || hy > this.size || hy < 0) points.push([hx - dx * this.size, hy - dy * this.size]);
    const r = Math.max(2.2, this.lane * 0.9);
    for (const [px, py] of points) {
      ctx.fillStyle = messageColour(o);
      ctx.strokeStyle = '#111111';
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      ctx.arc(px - dx * r, py - dy * r, r, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
      if (isBlocked) {
        // A bar across the lane in front of the header: "stopped".
        const w = Math.max(4, r * 2.2);
        ctx.lineWidth = Math.max(2, r * 0.8);
        ctx.beginPath();
        ctx.moveTo(px + dy * w, py - dx * w);
        ctx.lineTo(px - dy * w, py + dx * w);
        ctx.stroke();
      }
    }
  }

  // The path a followed header has taken: a dashed line along the channels' centres.
  drawTrail(trail) {
    const ctx = this.ctx;
    ctx.save();
    ctx.strokeStyle = '#111111';
    ctx.lineWidth = 1.5;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    for (const c of trail) this.strokeLane((c / 4) | 0, c % 4, (this.vcs - 1) / 2, 0, 1);
    ctx.stroke();
    ctx.restore();
  }

  // The deadlock's wait-for cycle: a wide halo under each waiting VC's lane (the whole band
  // when lanes are merged), and a line joining the lanes in waiting order.
  drawDeadlock({ vcs: cycle }, showLanes) {
    const ctx = this.ctx;
    const lane = (i) => (showLanes ? i % this.vcs : (this.vcs - 1) / 2);
    ctx.save();
    ctx.strokeStyle = DEADLOCK_COLOUR;
    ctx.lineCap = 'round';
    ctx.lineWidth = (showLanes ? this.lane : this.lane * this.vcs) + 6;
    ctx.beginPath();
    for (const i of cycle) {
      const c = (i / this.vcs) | 0;
      this.strokeLane((c / 4) | 0, c % 4, lane(i), 0.05, 0.95);
    }
    ctx.stroke();
    ctx.restore();
  }

  // A broadcast spanning tree: one arrow along each tree channel.
  drawTree(tree) {
    const ctx = this.ctx;
    const mid = (this.vcs - 1) / 2;
    ctx.save();
    ctx.strokeStyle = TREE_COLOUR;
    ctx.fillStyle = TREE_COLOUR;
    ctx.lineWidth = 2;
    ctx.setLineDash([5, 3]);
    ctx.beginPath();
    for (const c of tree) this.strokeLane((c / 4) | 0, c % 4, mid, 0, 1);
    ctx.stroke();
    ctx.setLineDash([]);
    for (const c of tree) this.arrowOnLane((c / 4) | 0, c % 4, mid, 0.75, 5);
    ctx.restore();
  }

  // Scouting backtracks: a hooked arrow pointing back up the channel the header gave up,
  // fading with age.
  drawBacktracks(marks) {
    const ctx = this.ctx;
    ctx.save();
    for (const { channel, age } of marks) {
      const node = (channel / 4) | 0;
      const port = channel % 4;
      const lane = this.vcs + 1.5;
      ctx.globalAlpha = 1 - 0.8 * age;
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = 5;
      ctx.beginPath();
      this.strokeLane(node, port, lane, 0.2, 0.8);
      ctx.stroke();
      ctx.strokeStyle = BACKTRACK_COLOUR;
      ctx.fillStyle = BACKTRACK_COLOUR;
      ctx.lineWidth = 2;
      ctx.beginPath();
      this.strokeLane(node, port, lane, 0.25, 0.8);
      ctx.stroke();
      this.arrowOnLane(node, port, lane, 0.2, 6, true);
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

  // Small arrowheads where wrap-around channels leave the canvas edge.
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
