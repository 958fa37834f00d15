// The four uPlot charts, each with a "table" toggle (its numbers as an HTML table, for screen
// readers and for copying) and a PNG export.
import uPlot from '../vendor/uPlot.esm.js';
import { el, download } from './dom.js';

const INK = '#222222';
const BLUE = '#0072B2';
const ORANGE = '#D55E00';
const GREEN = '#009E73';
const GREY = '#888888';

function fmt(v) {
  if (v == null || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a < 0.001 || a >= 1e6)) return v.toExponential(3);
  return String(Math.round(v * 10000) / 10000);
}

// Vertical error bars for the points of series `idx`, half-widths in `ci` (same indices as x).
function errorBars(u, idx, ci, colour) {
  const ctx = u.ctx;
  const xs = u.data[0];
  const ys = u.data[idx];
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.5 * uPlot.pxRatio;
  for (let i = 0; i < xs.length; i++) {
    if (ys[i] == null || ci[i] == null) continue;
    const x = u.valToPos(xs[i], 'x', true);
    const y0 = u.valToPos(ys[i] - ci[i], 'y', true);
    const y1 = u.valToPos(ys[i] + ci[i], 'y', true);
    ctx.beginPath();
    ctx.moveTo(x, y0);
    ctx.lineTo(x, y1);
    ctx.moveTo(x - 4 * uPlot.pxRatio, y0);
    ctx.lineTo(x + 4 * uPlot.pxRatio, y0);
    ctx.moveTo(x - 4 * uPlot.pxRatio, y1);
    ctx.lineTo(x + 4 * uPlot.pxRatio, y1);
    ctx.stroke();
  }
  ctx.restore();
}

function verticalLine(u, xValue, colour, label) {
  if (xValue == null) return;
  const ctx = u.ctx;
  const x = u.valToPos(xValue, 'x', true);
  if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.setLineDash([6 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
  ctx.lineWidth = 1.5 * uPlot.pxRatio;
  ctx.beginPath();
  ctx.moveTo(x, u.bbox.top);
  ctx.lineTo(x, u.bbox.top + u.bbox.height);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = colour;
  ctx.font = `${11 * uPlot.pxRatio}px sans-serif`;
  // Label on whichever side of the line has room.
  const right = x - u.bbox.left < u.bbox.width / 2;
  ctx.textAlign = right ? 'left' : 'right';
  ctx.fillText(label, x + (right ? 4 : -4) * uPlot.pxRatio, u.bbox.top + 12 * uPlot.pxRatio);
  ctx.restore();
}

const LATENCY_SPAN = 6;

// Top of the latency axis: every simulated point, and the model curve up to LATENCY_SPAN
// times the lowest latency shown (the curve goes to infinity at saturation).
function latencyTop(u) {
  const [, model, ...simulated] = u.data;
  let low = Infinity;
  let top = 0;
  for (const col of u.data.slice(1)) for (const v of col) if (v != null && v > 0 && v < low) low = v;
  for (const col of simulated) for (const v of col) if (v != null && v > top) top = v;
  for (const v of model) if (v != null && v <= LATENCY_SPAN * low && v > top) top = v;
  return top;
}

// A round upper end for an axis that starts at zero.
function niceMax(max) {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max * 1.1));
  return Math.ceil((max * 1.1) / p) * p;
}

function emptyNote(u, text) {
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = GREY;
  ctx.font = `${12 * uPlot.pxRatio}px sans-serif`;
  ctx.textAlign = 'center';
  ctx.fillText(text, u.bbox.left + u.bbox.width / 2, u.bbox.top + u.bbox.height / 2);
  ctx.restore();
}

// The narrowest a chart gets, in CSS pixels: a 320-pixel phone's column.
const MIN_WIDTH = 280;

class Chart {
  constructor(parent, { id, title, xLabel, yLabel, series, draw, bars, xFromZero, xAlso, yRange, empty }) {
    this.title = title;
    this.series = series;
    this.drawHook = draw;
    const figure = el('figure', { class: 'chart', id });
    const head = el('figcaption', {}, [el('span', { class: 'chart-title' }, [title])]);
    const tableButton = el('button', { type: 'button', 'aria-pressed': 'false' }, ['table']);
    const pngButton = el('button', { type: 'button' }, ['PNG']);
    head.append(tableButton, pngButton);
    this.plotBox = el('div', { class: 'plot' });
    this.table = el('table', { class: 'chart-table', hidden: '' });
    figure.append(head, this.plotBox, this.table);
    parent.append(figure);
    tableButton.addEventListener('click', () => {
      const show = this.table.hidden;
      this.table.hidden = !show;
      tableButton.setAttribute('aria-pressed', String(show));
      if (show) this.fillTable();
    });
    pngButton.addEventListener('click', () => this.exportPng());
    const width = Math.max(MIN_WIDTH, parent.clientWidth - 8 || 380);
    const opts = {
      width,
      height: 150,
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: xFromZero ? { time: false, range: (u, min, max) => [0, niceMax(Math.max(max, xAlso ? xAlso() ?? 0 : 0))] } : { time: false },
        y: { range: yRange || ((u, min, max) => [0, niceMax(max)]) },
      },
      axes: [
        { label: xLabel, labelSize: 16, size: 34, font: '11px sans-serif', labelFont: '11px sans-serif' },
        { label: yLabel, labelSize: 16, size: 48, font: '11px sans-serif', labelFont: '11px sans-serif' },
      ],
      series: [{ label: xLabel }, ...series.map((s) => ({
        label: s.label,
        stroke: s.stroke,
        fill: s.fill,
        width: s.width ?? 1.5,
        dash: s.dash,
        spanGaps: s.spanGaps ?? false,
        points: s.points ?? { show: false },
        paths: bars ? uPlot.paths.bars({ size: [0.9, 60] }) : s.paths,
      }))],
      bands: series.some((s) => s.bandWith != null)
        ? series.flatMap((s, i) => (s.bandWith != null ? [{ series: [i + 1, s.bandWith], fill: 'rgba(0,114,178,0.15)' }] : []))
        : undefined,
      hooks: {
        draw: [(u) => {
          if (this.drawHook) this.drawHook(u);
          if (empty && u.data[0].length === 0) emptyNote(u, empty());
        }],
      },
    };
    this.data = [[], ...series.map(() => [])];
    this.plot = new uPlot(opts, this.data, this.plotBox);
    // The columns change width with the window (a phone turned, a window dragged onto a
    // projector's screen), and the plot follows its column.
    new ResizeObserver(() => {
      const fits = Math.max(MIN_WIDTH, parent.clientWidth - 8);
      if (parent.clientWidth > 0 && fits !== this.plot.width) this.plot.setSize({ width: fits, height: this.plot.height });
    }).observe(parent);
  }

  set(data) {
    this.data = data;
    this.plot.setData(data);
    if (!this.table.hidden) this.fillTable();
  }

  fillTable() {
    const header = el('tr', {}, [el('th', {}, [this.plot.series[0].label]),
      ...this.series.map((s) => el('th', {}, [s.label]))]);
    const rows = this.data[0].map((x, i) => el('tr', {}, [el('td', {}, [fmt(x)]),
      ...this.series.map((_, j) => el('td', {}, [fmt(this.data[j + 1][i])]))]));
    this.table.replaceChildren(el('caption', {}, [this.title]), el('thead', {}, [header]), el('tbody', {}, rows));
  }

  exportPng() {
    const src = this.plot.ctx.canvas;
    const out = document.createElement('canvas');
    out.width = src.width;
    out.height = src.height;
    const ctx = out.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.drawImage(src, 0, 0);
    out.toBlob((blob) => download(blob, `${this.plotBox.parentElement.id}.png`));
  }
}

// Merges series given as [{x, y}] lists onto one sorted x axis (uPlot's aligned data).
function align(lists) {
  const xs = [...new Set(lists.flatMap((l) => l.map((p) => p.x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = lists.map((l) => {
    const col = new Array(xs.length).fill(null);
    for (const p of l) col[index.get(p.x)] = p.y;
    return col;
  });
  return [xs, ys];
}

export class Charts {
  constructor(parent) {
    this.bound = null;
    this.model = [];
    this.sweep = [];
    this.live = null;
    this.latency = new Chart(parent, {
      id: 'chart-latency',
      title: 'Latency against offered load',
      xLabel: 'offered load λ (messages/node/cycle)',
      yLabel: 'latency (cycles)',
      xFromZero: true,
      xAlso: () => this.bound,
      // Latency explodes near saturation; show up to LATENCY_SPAN times the lowest latency.
      yRange: (u) => [0, niceMax(latencyTop(u))],
      empty: () => 'the background sweep is running',
      series: [
        { label: 'model', stroke: INK, width: 2, spanGaps: true },
        { label: 'simulated (sweep)', stroke: BLUE, width: 0, points: { show: true, size: 7, fill: BLUE } },
        { label: 'live', stroke: ORANGE, width: 0, points: { show: true, size: 9, fill: ORANGE } },
      ],
      draw: (u) => {
        errorBars(u, 2, this.sweepCi, BLUE);
        errorBars(u, 3, this.liveCi, ORANGE);
        verticalLine(u, this.bound, GREEN, 'channel-load bound');
      },
    });
    this.overTime = new Chart(parent, {
      id: 'chart-time',
      title: 'Live mean latency with its 95 % confidence band',
      xLabel: 'cycle',
      yLabel: 'latency (cycles)',
      empty: () => (this.warmup ? `measurement starts after the warm-up, at cycle ${this.warmup.toLocaleString('en')}` : 'no message delivered yet'),
      series: [
        { label: 'mean', stroke: BLUE, width: 2, points: { show: true, size: 3 } },
        { label: 'upper 95 %', stroke: 'rgba(0,114,178,0.3)', width: 1, bandWith: 3 },
        { label: 'lower 95 %', stroke: 'rgba(0,114,178,0.3)', width: 1 },
        { label: 'model', stroke: INK, width: 1.5, dash: [6, 4], spanGaps: true },
      ],
    });
    this.histogram = new Chart(parent, {
      id: 'chart-histogram',
      title: 'Latency histogram (whole run, measured messages)',
      xLabel: 'latency (cycles)',
      yLabel: 'messages',
      bars: true,
      empty: () => 'waiting for the whole run (in the background)',
      series: [{ label: 'messages', stroke: BLUE, fill: 'rgba(0,114,178,0.35)', width: 1 }],
    });
    this.throughput = new Chart(parent, {
      id: 'chart-throughput',
      title: 'Accepted against offered throughput',
      xLabel: 'offered (fraction of capacity)',
      yLabel: 'accepted (fraction)',
      xFromZero: true,
      xAlso: () => this.boundFraction,
      series: [
        { label: 'accepted = offered', stroke: GREY, width: 1, dash: [4, 4], spanGaps: true },
        { label: 'simulated (sweep)', stroke: BLUE, width: 0, points: { show: true, size: 7, fill: BLUE } },
        { label: 'live', stroke: ORANGE, width: 0, points: { show: true, size: 9, fill: ORANGE } },
      ],
      draw: (u) => verticalLine(u, this.boundFraction, GREEN, 'bound'),
    });
    this.sweepCi = [];
    this.liveCi = [];
    this.timeline = [];
  }

  // Forget everything measured (a new scenario that warms up for `warmup` cycles).
  clear(warmup) {
    this.warmup = warmup;
    this.sweep = [];
    this.live = null;
    this.timeline = [];
    this.redrawLoad();
    this.overTime.set([[], [], [], [], []]);
    this.histogram.set([[], []]);
  }

  setModel(curve, bound, boundFraction, modelLatencyAtRate) {
    this.model = curve;
    this.bound = bound;
    this.boundFraction = boundFraction;
    this.modelLatency = modelLatencyAtRate;
    this.redrawLoad();
  }

  addSweepPoint(p) {
    this.sweep.push(p);
    this.sweep.sort((a, b) => a.rate - b.rate);
    this.redrawLoad();
  }

  // live: { cycle, rate, latency, ci, offered, accepted }
  setLive(live) {
    this.live = live;
    const last = this.timeline[this.timeline.length - 1];
    if (live.latency != null && !(last && last.cycle === live.cycle)) {
      this.timeline.push(live);
      if (this.timeline.length > 600) this.timeline.splice(0, this.timeline.length - 600);
    }
    this.redrawLoad();
    const t = this.timeline;
    this.overTime.set([
      t.map((p) => p.cycle),
      t.map((p) => p.latency),
      t.map((p) => (p.ci == null ? null : p.latency + p.ci)),
      t.map((p) => (p.ci == null ? null : p.latency - p.ci)),
      t.map(() => this.modelLatency ?? null),
    ]);
  }

  // The whole run of the current scenario: its latency histogram.
  setRun(report) {
    const h = report.latency_histogram;
    this.histogram.set([h.counts.map((_, i) => h.start + i * h.width), h.counts]);
  }

  redrawLoad() {
    const sweepLat = this.sweep.filter((p) => p.latency != null);
    const live = this.live && this.live.latency != null ? [this.live] : [];
    const [xs, [model, sweep, lv]] = align([
      this.model.map((p) => ({ x: p.rate, y: p.latency })),
      sweepLat.map((p) => ({ x: p.rate, y: p.latency })),
      live.map((p) => ({ x: p.rate, y: p.latency })),
    ]);
    const ciAt = (list) => xs.map((x) => {
      const p = list.find((q) => q.rate === x);
      return p ? p.ci : null;
    });
    this.sweepCi = ciAt(sweepLat);
    this.liveCi = ciAt(live);
    this.latency.set([xs, model, sweep, lv]);

    const thr = this.sweep.filter((p) => p.offered != null);
    const liveThr = this.live && this.live.offered != null ? [this.live] : [];
    const ends = [0, ...thr.map((p) => p.offered), ...liveThr.map((p) => p.offered), 1];
    const [txs, [ident, sw, lt]] = align([
      [{ x: 0, y: 0 }, { x: Math.max(...ends), y: Math.max(...ends) }],
      thr.map((p) => ({ x: p.offered, y: p.accepted })),
      liveThr.map((p) => ({ x: p.offered, y: p.accepted })),
    ]);
    this.throughput.set([txs, ident, sw, lt]);
  }
}
