// The four uPlot charts, each with a "table" toggle (its numbers as an HTML table, for screen
// readers and for copying) and a PNG export ready for a slide (twice the resolution, with its
// title, legend, axis units and the scenario). Latency against load is drawn as the papers
// draw it: from zero to just past saturation, latency up to a few times its zero-load value
// (points above are markers on the top edge), with a log-y toggle, drag-to-zoom and a tooltip.
// Loads and throughputs are in flits/node/cycle throughout (units.js), the fraction of
// capacity on a second axis where it helps.
import uPlot from '../vendor/uPlot.esm.js';
import { el, download, wrapScenario } from './dom.js';
import { FLITS } from './units.js';

const INK = '#222222';
const BLUE = '#0072B2';
const ORANGE = '#D55E00';
const GREEN = '#009E73';
const GREY = '#888888';
// Okabe–Ito colours: the models' curves (a paper's model first, a second model after it),
// then the pinned scenarios, none of them the current scenario's blue and vermilion.
const MODEL_COLOURS = [INK, '#CC79A7'];
export const PIN_COLOURS = ['#56B4E9', '#E69F00', '#8C7A00', '#777777'];
// The latency axis runs to this many times the zero-load latency (the papers' figures stop at
// 3–10 times); anything above is a marker on the top edge.
const LATENCY_CEILING = 5;
// The load axis runs this far past the larger of the simulated and the predicted saturation rate.
const LOAD_MARGIN = 1.12;
// The accepted-against-offered chart runs this far past the simulated saturation, far enough
// to show the flattening.
const THROUGHPUT_MARGIN = 1.35;

function fmt(v) {
  if (v == null || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a < 0.001 || a >= 1e6)) return v.toExponential(3);
  return String(Math.round(v * 10000) / 10000);
}

// The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten) ≥ v.
export function niceCeil(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v * (1 - 1e-12)) return m * p;
  return 10 * p;
}

// The largest round number ≤ v (for the bottom of a log axis).
function niceFloor(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [8, 6, 5, 4, 3, 2.5, 2, 1.5, 1.2, 1]) if (m * p <= v * (1 + 1e-12)) return m * p;
  return p;
}

// A round upper end for an axis that starts at zero.
function niceMax(max) {
  return max > 0 ? niceCeil(max * 1.1) : 1;
}

const inBox = (u, x, y) => x >= u.bbox.left - 0.5 && x <= u.bbox.left + u.bbox.width + 0.5
  && y >= u.bbox.top - 0.5 && y <= u.bbox.top + u.bbox.height + 0.5;

// Vertical error bars for the points of series `idx`, half-widths in `ci` (same indices as x),
// clipped to the plot.
function errorBars(u, idx, ci, colour) {
  if (!ci) return;
  const ctx = u.ctx;
  const xs = u.data[0];
  const ys = u.data[idx];
  const r = uPlot.pxRatio;
  ctx.save();
  ctx.beginPath();
  ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
  ctx.clip();
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.5 * r;
  for (let i = 0; i < xs.length; i++) {
    if (ys[i] == null || ci[i] == null || !(ci[i] > 0)) continue;
    const x = u.valToPos(xs[i], 'x', true);
    const y0 = u.valToPos(Math.max(ys[i] - ci[i], u.scales.y.distr === 3 ? u.scales.y.min : ys[i] - ci[i]), 'y', true);
    const y1 = u.valToPos(ys[i] + ci[i], 'y', true);
    ctx.beginPath();
    ctx.moveTo(x, y0);
    ctx.lineTo(x, y1);
    ctx.moveTo(x - 4 * r, y0);
    ctx.lineTo(x + 4 * r, y0);
    ctx.moveTo(x - 4 * r, y1);
    ctx.lineTo(x + 4 * r, y1);
    ctx.stroke();
  }
  ctx.restore();
}

// Points of series `idx` that lie off the drawn range: a triangle on the edge they lie beyond,
// pointing out of the plot (their values are in the tooltip and the table).
function edgeMarkers(u, idx, colour, hollow) {
  const ctx = u.ctx;
  const xs = u.data[0];
  const ys = u.data[idx];
  const { left, top, width, height } = u.bbox;
  const r = uPlot.pxRatio;
  const s = 6 * r;
  ctx.save();
  ctx.fillStyle = hollow ? '#ffffff' : colour;
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.5 * r;
  for (let i = 0; i < xs.length; i++) {
    if (ys[i] == null) continue;
    const px = u.valToPos(xs[i], 'x', true);
    const py = u.valToPos(ys[i], 'y', true);
    // Points past either end of the load axis (the sweep's last points past saturation) are
    // left to the table; those above or below the latency axis get a marker on its edge.
    if (inBox(u, px, py) || px < left - 0.5 || px > left + width + 0.5) continue;
    const x = Math.min(Math.max(px, left), left + width);
    const y = Math.min(Math.max(py, top), top + height);
    ctx.beginPath();
    if (py < top && px <= left + width) {
      ctx.moveTo(x, top - s * 0.2);
      ctx.lineTo(x - s * 0.8, top + s);
      ctx.lineTo(x + s * 0.8, top + s);
    } else if (px > left + width) {
      ctx.moveTo(left + width + s * 0.2, y);
      ctx.lineTo(left + width - s, y - s * 0.8);
      ctx.lineTo(left + width - s, y + s * 0.8);
    } else if (py > top + height) {
      ctx.moveTo(x, top + height + s * 0.2);
      ctx.lineTo(x - s * 0.8, top + height - s);
      ctx.lineTo(x + s * 0.8, top + height - s);
    } else {
      ctx.moveTo(left - s * 0.2, y);
      ctx.lineTo(left + s, y - s * 0.8);
      ctx.lineTo(left + s, y + s * 0.8);
    }
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
  }
  ctx.restore();
}

// A labelled vertical line at xValue; when it lies past the right end of the axis, an arrow on
// the right edge with its value instead (and nothing when it lies before the left end).
function verticalLine(u, xValue, colour, label, offRange = null) {
  if (xValue == null) return;
  const ctx = u.ctx;
  const r = uPlot.pxRatio;
  const x = u.valToPos(xValue, 'x', true);
  const { left, top, width, height } = u.bbox;
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 1.5 * r;
  ctx.font = `${11 * r * (u.fontScale || 1)}px sans-serif`;
  if (x > left + width + 0.5) {
    if (offRange) {
      // Low on the edge: the top edge carries the markers of points above the axis.
      const right = left + width;
      const y = top + height - 8 * r * (u.fontScale || 1);
      ctx.setLineDash([6 * r, 4 * r]);
      ctx.beginPath();
      ctx.moveTo(right - 1, top);
      ctx.lineTo(right - 1, top + height);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.moveTo(right - 4 * r, y - 8 * r);
      ctx.lineTo(right + 2 * r, y - 4 * r);
      ctx.lineTo(right - 4 * r, y);
      ctx.stroke();
      ctx.textAlign = 'right';
      ctx.fillText(offRange, right - 8 * r, y);
    }
  } else if (x >= left - 0.5) {
    ctx.setLineDash([6 * r, 4 * r]);
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
    ctx.setLineDash([]);
    // Label low, on whichever side of the line has room (the top edge carries the markers of
    // points above the axis).
    const onRight = x - left < width / 2;
    ctx.textAlign = onRight ? 'left' : 'right';
    ctx.fillText(label, x + (onRight ? 4 : -4) * r, top + height - 8 * r * (u.fontScale || 1));
  }
  ctx.restore();
}

// Past saturation: a thin line from each point's worst source up to its mean, so that the
// spread between them reads as one mark.
function spreadLines(u, series) {
  const ctx = u.ctx;
  const r = uPlot.pxRatio;
  ctx.save();
  ctx.beginPath();
  ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
  ctx.clip();
  ctx.lineWidth = 1.5 * r;
  series.forEach((s, j) => {
    if (s.spreadOf == null) return;
    const mins = u.data[j + 1];
    const means = u.data[s.spreadOf + 1];
    // A plot about to be replaced (its series changed) may still draw once with its old data.
    if (!mins || !means) return;
    ctx.strokeStyle = s.stroke;
    ctx.setLineDash([3 * r, 2 * r]);
    for (let i = 0; i < u.data[0].length; i++) {
      if (mins[i] == null || means[i] == null) continue;
      const x = u.valToPos(u.data[0][i], 'x', true);
      ctx.beginPath();
      ctx.moveTo(x, u.valToPos(mins[i], 'y', true));
      ctx.lineTo(x, u.valToPos(means[i], 'y', true));
      ctx.stroke();
    }
  });
  ctx.restore();
}

function emptyNote(u, text) {
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = GREY;
  ctx.font = `${12 * uPlot.pxRatio * (u.fontScale || 1)}px sans-serif`;
  ctx.textAlign = 'center';
  ctx.fillText(text, u.bbox.left + u.bbox.width / 2, u.bbox.top + u.bbox.height / 2);
  ctx.restore();
}

// The narrowest a chart gets, in CSS pixels: a 320-pixel phone's column.
const MIN_WIDTH = 280;

// One chart: a figure with its caption and buttons, the uPlot, and the table. The series can
// change (models and pinned scenarios come and go); the plot is then built anew.
class Chart {
  constructor(parent, spec) {
    this.spec = spec;
    this.title = spec.title;
    this.parent = parent;
    this.log = false;
    this.zoomed = false;
    this.fontScale = 1;
    this.heightOf = spec.height || (() => 150);
    const figure = el('figure', { class: 'chart', id: spec.id });
    this.figure = figure;
    const head = el('figcaption', {}, [el('span', { class: 'chart-title' }, [spec.title])]);
    if (spec.logToggle) {
      this.logButton = el('button', { type: 'button', 'aria-pressed': 'false', title: 'Latency on a logarithmic axis' }, ['log y']);
      this.logButton.addEventListener('click', () => this.setLog(!this.log));
      head.append(this.logButton);
    }
    if (spec.zoom) {
      this.resetButton = el('button', { type: 'button', hidden: '', title: 'Back to the whole curve (or double-click the chart)' }, ['reset zoom']);
      this.resetButton.addEventListener('click', () => this.resetZoom());
      head.append(this.resetButton);
    }
    const tableButton = el('button', { type: 'button', 'aria-pressed': 'false' }, ['table']);
    const pngButton = el('button', { type: 'button' }, ['PNG']);
    head.append(tableButton, pngButton);
    this.head = head;
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
    this.series = [];
    this.ci = [];
    this.data = [[]];
    this.setSeries(spec.series);
    // The columns change width with the window (a phone turned, a window dragged onto a
    // projector's screen), and the plot follows its column (and the window's height).
    new ResizeObserver(() => this.fit()).observe(parent);
    window.addEventListener('resize', () => this.fit());
  }

  width() {
    return Math.max(MIN_WIDTH, (this.parent.clientWidth || 388) - 8);
  }

  fit() {
    if (this.parent.clientWidth === 0) return;
    const width = this.width();
    const height = this.heightOf();
    if (width !== this.plot.width || height !== this.plot.height) this.plot.setSize({ width, height });
  }

  opts() {
    const spec = this.spec;
    const f = this.fontScale;
    const font = `${Math.round(11 * f)}px sans-serif`;
    const ranges = spec.ranges ? spec.ranges(this) : {};
    // uPlot asks the range of an axis even after a zoom set it: a zoomed axis keeps its zoom.
    const keep = (range) => (range ? (u, min, max) => (this.zoomed ? [min, max] : range(u, min, max)) : undefined);
    return {
      width: this.width(),
      height: this.heightOf(),
      legend: { show: true, live: false },
      cursor: {
        drag: { x: !!spec.zoom, y: !!spec.zoom, uni: 20, setScale: false },
        points: { show: false },
        bind: spec.zoom ? { dblclick: () => () => { this.resetZoom(); return null; } } : undefined,
      },
      select: { show: !!spec.zoom },
      scales: {
        x: { time: false, range: keep(ranges.x || ((u, min, max) => [0, niceMax(max)])) },
        y: this.log
          ? { distr: 3, log: 10, range: keep(ranges.yLog) }
          : { range: keep(ranges.y || ((u, min, max) => [0, niceMax(max)])) },
      },
      axes: [
        { label: spec.xLabel, labelSize: Math.round(16 * f), size: Math.round(34 * f), font, labelFont: font },
        { label: spec.yLabel, labelSize: Math.round(16 * f), size: Math.round(50 * f), font, labelFont: font },
        // The same scale again, on the right, as a fraction of the torus's capacity.
        ...(spec.capacityAxis ? [{
          scale: 'y',
          side: 1,
          label: 'fraction of capacity',
          labelSize: Math.round(16 * f),
          size: Math.round(44 * f),
          font,
          labelFont: font,
          grid: { show: false },
          values: (u, ticks) => ticks.map((t) => (spec.capacityAxis() > 0 ? fmt(Number((t / spec.capacityAxis()).toPrecision(3))) : '')),
        }] : []),
      ],
      series: [{ label: spec.xLabel }, ...this.series.map((s) => ({
        label: s.label,
        stroke: s.stroke,
        fill: s.fill,
        width: (s.width ?? 1.5) * f,
        dash: s.dash,
        spanGaps: s.spanGaps ?? false,
        points: s.points ? { ...s.points, size: s.points.size * f } : { show: false },
        paths: spec.bars ? uPlot.paths.bars({ size: [0.9, 60] }) : s.paths,
      }))],
      bands: this.series.some((s) => s.bandWith != null)
        ? this.series.flatMap((s, i) => (s.bandWith != null ? [{ series: [i + 1, s.bandWith], fill: 'rgba(0,114,178,0.15)' }] : []))
        : undefined,
      hooks: {
        draw: [(u) => {
          // A plot replaced by build() may still commit a redraw it had queued; its columns
          // are not those of the current series, and it is no longer on the page.
          if (u !== this.plot) return;
          u.fontScale = f;
          this.series.forEach((s, i) => {
            if (this.ci[i]) errorBars(u, i + 1, this.ci[i], s.stroke);
            if (s.edgeMarkers) edgeMarkers(u, i + 1, s.stroke, s.hollow);
          });
          if (spec.draw) spec.draw(u);
          if (spec.empty && !this.series.some((s, i) => s.counts !== false && this.data[i + 1].some((v) => v != null))) emptyNote(u, spec.empty());
        }],
        setSelect: spec.zoom ? [(u) => this.zoomTo(u)] : [],
        setCursor: spec.tooltip ? [(u) => this.showTip(u)] : [],
      },
    };
  }

  build() {
    if (this.plot) this.plot.destroy();
    this.tip = null;
    this.plot = new uPlot(this.opts(), this.data, this.plotBox);
    if (this.zoomed && this.zoom) {
      this.plot.setScale('x', this.zoom.x);
      this.plot.setScale('y', this.zoom.y);
    }
  }

  // New series (labels, colours): the plot is built again, keeping a zoom.
  setSeries(series) {
    const signature = JSON.stringify(series.map((s) => [s.label, s.stroke, s.dash, s.hollow]));
    if (signature === this.signature && this.plot) return;
    this.signature = signature;
    this.series = series;
    this.data = [[], ...series.map(() => [])];
    this.ci = series.map(() => null);
    this.build();
  }

  // data: uPlot's aligned columns; ci: per series, half-widths of the 95 % intervals or null.
  set(data, ci = null) {
    this.data = data;
    this.ci = ci || this.series.map(() => null);
    this.plot.setData(data, !this.zoomed);
    if (!this.zoomed) this.plot.redraw(false, true);
    if (!this.table.hidden) this.fillTable();
  }

  setLog(on) {
    this.log = on;
    this.logButton.setAttribute('aria-pressed', String(on));
    this.zoomed = false;
    this.resetButton.hidden = true;
    this.build();
  }

  setFontScale(scale) {
    if (scale === this.fontScale) return;
    this.fontScale = scale;
    this.build();
  }

  // A drag selected a box: zoom to it (a drag along one axis zooms that axis only).
  zoomTo(u) {
    const { left, top, width, height } = u.select;
    if (width < 4 && height < 4) return;
    const x = width >= 4 ? { min: u.posToVal(left, 'x'), max: u.posToVal(left + width, 'x') } : { min: u.scales.x.min, max: u.scales.x.max };
    const y = height >= 4 ? { min: u.posToVal(top + height, 'y'), max: u.posToVal(top, 'y') } : { min: u.scales.y.min, max: u.scales.y.max };
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    this.zoomed = true;
    this.zoom = { x, y };
    u.batch(() => {
      u.setScale('x', x);
      u.setScale('y', y);
    });
    this.resetButton.hidden = false;
  }

  resetZoom() {
    this.zoomed = false;
    this.zoom = null;
    if (this.resetButton) this.resetButton.hidden = true;
    this.plot.setData(this.data, true);
  }

  // The point nearest the cursor (off-range points at their edge marker), with its value.
  showTip(u) {
    const { left, top } = u.cursor;
    if (!this.tip) {
      this.tip = el('div', { class: 'chart-tip', hidden: '' });
      u.over.append(this.tip);
    }
    const tip = this.tip;
    if (left == null || left < 0) {
      tip.hidden = true;
      return;
    }
    const r = uPlot.pxRatio;
    const { bbox } = u;
    let best = null;
    this.series.forEach((s, j) => {
      const ys = u.data[j + 1];
      for (let i = 0; i < u.data[0].length; i++) {
        if (ys[i] == null) continue;
        const px = Math.min(Math.max(u.valToPos(u.data[0][i], 'x', true), bbox.left), bbox.left + bbox.width);
        const py = Math.min(Math.max(u.valToPos(ys[i], 'y', true), bbox.top), bbox.top + bbox.height);
        const d = Math.hypot(px / r - bbox.left / r - left, py / r - bbox.top / r - top);
        if (d < 14 && (!best || d < best.d || (d === best.d && s.points && !best.s.points))) best = { d, i, j, s, px, py };
      }
    });
    if (!best) {
      tip.hidden = true;
      return;
    }
    const x = u.data[0][best.i];
    const y = u.data[best.j + 1][best.i];
    const ci = this.ci[best.j] ? this.ci[best.j][best.i] : null;
    const off = !inBox(u, u.valToPos(x, 'x', true), u.valToPos(y, 'y', true));
    tip.textContent = this.spec.tip(best.s.label, x, y, ci, off);
    tip.hidden = false;
    const px = (best.px - bbox.left) / r;
    const py = (best.py - bbox.top) / r;
    tip.style.left = `${Math.min(px + 10, u.over.clientWidth - tip.offsetWidth - 2)}px`;
    tip.style.top = `${py > 40 ? py - 34 : py + 12}px`;
  }

  fillTable() {
    const header = el('tr', {}, [el('th', {}, [this.plot.series[0].label]),
      ...this.series.map((s) => el('th', {}, [s.label]))]);
    const cell = (j, i) => {
      const v = this.data[j + 1][i];
      const ci = this.ci[j] ? this.ci[j][i] : null;
      return v == null ? '–' : `${fmt(v)}${ci > 0 ? ` ± ${fmt(ci)}` : ''}`;
    };
    const rows = this.data[0].map((x, i) => el('tr', {}, [el('td', {}, [fmt(x)]),
      ...this.series.map((_, j) => el('td', {}, [cell(j, i)]))]));
    this.table.replaceChildren(el('caption', {}, [this.title]), el('thead', {}, [header]), el('tbody', {}, rows));
  }

  // A PNG for a slide: the chart drawn again at twice its size on screen (fonts and lines
  // too), under its title, over its legend and the scenario it shows; named after the
  // scenario (Charts.fileStem).
  async exportPng() {
    const canvas = await this.slideCanvas();
    canvas.toBlob((blob) => download(blob, `${this.owner.fileStem()}-${this.figure.id.replace(/^chart-/, '')}.png`));
  }

  async slideCanvas() {
    const factor = 2 / uPlot.pxRatio;
    const holder = el('div', { class: 'export-holder', 'aria-hidden': 'true' });
    document.body.append(holder);
    const fontScale = this.fontScale;
    this.fontScale = fontScale * factor;
    let plot;
    try {
      const opts = this.opts();
      opts.width = Math.round(this.plot.width * factor);
      opts.height = Math.round(this.plot.height * factor);
      opts.legend = { show: false };
      opts.cursor = { show: false };
      plot = new uPlot(opts, this.data, holder);
      if (this.zoomed && this.zoom) {
        plot.setScale('x', this.zoom.x);
        plot.setScale('y', this.zoom.y);
      }
    } finally {
      this.fontScale = fontScale;
    }
    // uPlot sizes and draws the plot once the current task is over.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const src = plot.ctx.canvas;
    const r = uPlot.pxRatio * factor;
    const pad = Math.round(12 * r);
    const titleFont = `bold ${Math.round(15 * r)}px sans-serif`;
    const font = `${Math.round(11.5 * r)}px sans-serif`;
    const small = `${Math.round(10 * r)}px sans-serif`;
    const width = src.width + 2 * pad;
    const measure = document.createElement('canvas').getContext('2d');
    // The legend, wrapped to the width: a swatch and the label of each series drawn.
    measure.font = font;
    const entries = this.series.filter((s) => s.legend !== false).map((s) => ({ s, w: Math.round(22 * r) + measure.measureText(s.label).width + Math.round(16 * r) }));
    const legendRows = [];
    for (const e of entries) {
      const row = legendRows[legendRows.length - 1];
      if (row && row.w + e.w <= width - 2 * pad) {
        row.items.push(e);
        row.w += e.w;
      } else legendRows.push({ items: [e], w: e.w });
    }
    // The scenario, broken at its '&'s to the width.
    measure.font = small;
    const lines = wrapScenario(measure, 'scenario: ', this.owner.scenarioText(), width - 2 * pad);
    const lineH = Math.round(16 * r);
    const height = pad + Math.round(22 * r) + src.height + pad / 2 + legendRows.length * lineH + pad / 2 + lines.length * Math.round(14 * r) + pad;
    const out = document.createElement('canvas');
    out.width = width;
    out.height = Math.round(height);
    const ctx = out.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = INK;
    ctx.textBaseline = 'top';
    ctx.font = titleFont;
    ctx.fillText(this.title, pad, pad);
    let y = pad + Math.round(22 * r);
    ctx.drawImage(src, pad, y);
    y += src.height + pad / 2;
    ctx.font = font;
    ctx.textBaseline = 'middle';
    for (const row of legendRows) {
      let x = pad;
      for (const { s, w } of row.items) {
        ctx.strokeStyle = s.stroke;
        ctx.fillStyle = s.points ? (s.points.fill || s.stroke) : s.stroke;
        ctx.lineWidth = 2 * r;
        ctx.setLineDash(s.dash ? s.dash.map((d) => d * r) : []);
        if (s.points && s.width === 0) {
          ctx.beginPath();
          ctx.arc(x + 9 * r, y + lineH / 2, 4 * r, 0, 2 * Math.PI);
          ctx.fill();
          ctx.stroke();
        } else {
          ctx.beginPath();
          ctx.moveTo(x, y + lineH / 2);
          ctx.lineTo(x + 18 * r, y + lineH / 2);
          ctx.stroke();
        }
        ctx.setLineDash([]);
        ctx.fillStyle = INK;
        ctx.fillText(s.label, x + 22 * r, y + lineH / 2);
        x += w;
      }
      y += lineH;
    }
    y += pad / 2;
    ctx.font = small;
    ctx.fillStyle = '#444444';
    ctx.textBaseline = 'top';
    for (const l of lines) {
      ctx.fillText(l, pad, y);
      y += Math.round(14 * r);
    }
    plot.destroy();
    holder.remove();
    return out;
  }

  // What the reader sees: the title, the ranges as drawn and the series' labels, with the
  // number of points each shows.
  describe() {
    const u = this.plot;
    const points = {};
    this.series.forEach((s, j) => { points[s.label] = (this.data[j + 1] || []).filter((v) => v != null).length; });
    return {
      title: this.title,
      xLabel: this.spec.xLabel,
      yLabel: this.spec.yLabel,
      axes: u.axes.map((a) => a.label),
      x: [u.scales.x.min, u.scales.x.max],
      y: [u.scales.y.min, u.scales.y.max],
      series: this.series.map((s) => s.label),
      points,
      logY: this.log,
      zoomed: this.zoomed,
    };
  }
}

// Merges series given as [{x, y, ci}] lists onto one sorted x axis (uPlot's aligned data).
function align(lists) {
  const xs = [...new Set(lists.flatMap((l) => l.map((p) => p.x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = [];
  const cis = [];
  for (const l of lists) {
    const col = new Array(xs.length).fill(null);
    const ci = l.some((p) => p.ci != null) ? new Array(xs.length).fill(null) : null;
    for (const p of l) {
      col[index.get(p.x)] = p.y;
      if (ci) ci[index.get(p.x)] = p.ci ?? null;
    }
    ys.push(col);
    cis.push(ci);
  }
  return [xs, ys, cis];
}

// The load at which a set of sweep points saturates: the lowest saturated load, else the
// highest load swept (the curve has not turned up yet as far as it is known).
function sweptSaturation(sweep) {
  const saturated = sweep.filter((p) => p.saturated).map((p) => p.load);
  if (saturated.length) return Math.min(...saturated);
  return sweep.length ? Math.max(...sweep.map((p) => p.load)) : null;
}

// The highest load a set of sweep points carried (the lowest saturated one's neighbour below).
function keptUp(sweep) {
  const top = sweptSaturation(sweep);
  const below = sweep.filter((p) => !p.saturated && p.load < (top ?? Infinity)).map((p) => p.load);
  return below.length ? Math.max(...below) : top;
}

export class Charts {
  // loadParent holds the latency-against-load chart, parent the others.
  constructor(loadParent, parent) {
    this.bound = null;
    this.models = [];
    this.sweep = [];
    this.live = null;
    this.pins = [];
    this.zeroLoad = null;
    this.presenting = false;
    // Compare mode's second simulation: { name, colour, live, models }, null outside it.
    this.second = null;
    this.latency = new Chart(loadParent, {
      id: 'chart-latency',
      title: 'Latency against offered load',
      xLabel: `offered load (${FLITS})`,
      yLabel: 'latency (cycles)',
      zoom: true,
      tip: (label, x, y, ci, off) => `${label}: offered ${fmt(x)} ${FLITS}, ${fmt(y)}${ci > 0 ? ` ± ${fmt(ci)}` : ''} cycles${off ? ' (off the axis)' : ''}`,
      logToggle: true,
      tooltip: true,
      height: () => this.latencyHeight(),
      ranges: () => ({
        x: () => [0, this.loadTop()],
        y: () => [0, this.latencyCeiling()],
        yLog: () => this.latencyLogRange(),
      }),
      empty: () => 'the background sweep is running',
      series: this.loadSeries(),
      draw: (u) => {
        const bound = this.bound;
        verticalLine(u, bound, GREEN, 'channel-load bound', bound == null ? null : `channel-load bound ${fmt(Number(bound.toPrecision(3)))} ${FLITS}`);
      },
    });
    this.overTime = new Chart(parent, {
      id: 'chart-time',
      title: 'Live mean latency with its 95 % confidence band',
      xLabel: 'cycle',
      yLabel: 'latency (cycles)',
      ranges: () => ({ x: (u, min, max) => [0, niceMax(Math.max(max ?? 0, this.live && this.live.deadlockAt != null ? this.live.deadlockAt : 0))] }),
      empty: () => 'no message delivered yet',
      series: this.overTimeSeries(),
      draw: (u) => {
        if (this.warmup > 0 && u.data[0].length) verticalLine(u, this.warmup, GREY, 'measurement starts');
        if (this.live && this.live.deadlockAt != null) verticalLine(u, this.live.deadlockAt, '#7a0177', 'deadlock: the latency stops here');
      },
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
      xLabel: `offered (${FLITS})`,
      yLabel: `accepted (${FLITS})`,
      capacityAxis: () => this.capacity,
      height: () => 190,
      ranges: () => ({ x: () => [0, this.throughputTop()], y: () => [0, this.throughputTop()] }),
      series: this.throughputSeries(),
      draw: (u) => {
        if (this.spread) spreadLines(u, this.throughput.series);
        verticalLine(u, this.boundLoad, GREEN, 'channel-load bound');
      },
    });
    for (const chart of [this.latency, this.overTime, this.histogram, this.throughput]) chart.owner = this;
    this.naming = { fileStem: () => 'torus', scenarioText: () => '' };
    this.timeline = [];
  }

  // How exports name their files and which scenario they print: { fileStem(), scenarioText() }.
  setNaming(naming) {
    this.naming = naming;
  }

  fileStem() {
    return this.naming.fileStem();
  }

  scenarioText() {
    return this.naming.scenarioText();
  }

  // ---- latency against load ----------------------------------------------------------

  // Taller on a tall window; in presentation mode, down to the bottom of the window (less its
  // legend).
  latencyHeight() {
    if (!this.presenting) return window.innerHeight >= 1000 ? 300 : 230;
    const top = this.latency ? this.latency.plotBox.getBoundingClientRect().top : 300;
    return Math.max(240, Math.round(window.innerHeight - top - 95));
  }

  // The live latency over time; in compare mode the second simulation's beside it, in its colour.
  overTimeSeries() {
    const series = [
      { label: 'warm-up (not measured)', stroke: GREY, width: 2, dash: [2, 3], points: { show: true, size: 3, fill: GREY } },
      { label: this.second ? `mean (${this.second.firstName})` : 'mean', stroke: BLUE, width: 2, points: { show: true, size: 3 } },
      { label: 'upper 95 %', stroke: 'rgba(0,114,178,0.3)', width: 1, bandWith: 4, counts: false, legend: false },
      { label: 'lower 95 %', stroke: 'rgba(0,114,178,0.3)', width: 1, counts: false, legend: false },
      { label: 'model', stroke: INK, width: 1.5, dash: [6, 4], spanGaps: true, counts: false },
    ];
    if (this.second) {
      const c = this.second.colour;
      series.push({ label: `mean (${this.second.name})`, stroke: c, width: 2, points: { show: true, size: 3, fill: c } },
        { label: `model (${this.second.name})`, stroke: c, width: 1.5, dash: [6, 4], spanGaps: true, counts: false });
    }
    return series;
  }

  // The series: each model's curve, the sweep, the live point, in compare mode the second
  // simulation's model curves and live point, then each pinned scenario's model curves and
  // sweep.
  loadSeries() {
    const series = this.models.map((m, i) => ({ label: m.label, stroke: MODEL_COLOURS[i % MODEL_COLOURS.length], width: 2, spanGaps: true }));
    series.push(
      { label: this.second ? `simulated (sweep, ${this.second.firstName})` : 'simulated (sweep)', stroke: BLUE, width: 0, points: { show: true, size: 7, fill: BLUE }, edgeMarkers: true },
      { label: this.second ? `live (${this.second.firstName})` : 'live', stroke: ORANGE, width: 0, points: { show: true, size: 9, fill: ORANGE }, edgeMarkers: true },
    );
    if (this.second) {
      const c = this.second.colour;
      for (const m of this.second.models) series.push({ label: `${this.second.name} (${m.label})`, stroke: c, width: 2, dash: [3, 3], spanGaps: true });
      series.push({ label: `simulated (sweep, ${this.second.name})`, stroke: c, width: 0, points: { show: true, size: 7, fill: c }, edgeMarkers: true });
      series.push({ label: `live (${this.second.name})`, stroke: c, width: 0, points: { show: true, size: 9, fill: c }, edgeMarkers: true });
    }
    for (const pin of this.pins) {
      for (const m of pin.models) series.push({ label: `${pin.name} (${m.label})`, stroke: pin.colour, width: 2, dash: [7, 4], spanGaps: true });
      series.push({ label: `${pin.name} (simulated)`, stroke: pin.colour, width: 0, points: { show: true, size: 7, width: 2, stroke: pin.colour, fill: '#ffffff' }, edgeMarkers: true, hollow: true });
    }
    return series;
  }

  // Right end of the load axis: a little past the larger of the simulated and the predicted
  // saturation rates (the current scenario's and every pinned one's), and past the live rate.
  loadTop() {
    const ends = [];
    const add = (v) => { if (v > 0 && Number.isFinite(v)) ends.push(v); };
    for (const set of [{ models: this.models, sweep: this.sweep }, ...(this.second ? [this.second] : []), ...this.pins]) {
      for (const m of set.models) add(m.saturationLoad);
      add(sweptSaturation(set.sweep));
    }
    if (!ends.length) add(this.bound);
    const top = Math.max(0, ...ends) * LOAD_MARGIN;
    const live = Math.max(this.live ? this.live.load * 1.05 : 0, this.second && this.second.live ? this.second.live.load * 1.05 : 0);
    return niceCeil(Math.max(top, live, 1e-6));
  }

  zeroLoads() {
    return [this.zeroLoad, ...this.pins.map((p) => p.zeroLoad)].filter((z) => z > 0);
  }

  // Top of the latency axis: LATENCY_CEILING times the zero-load latency.
  latencyCeiling() {
    const z = this.zeroLoads();
    return niceCeil(LATENCY_CEILING * (z.length ? Math.max(...z) : 20));
  }

  // The log axis shows everything, from just under the zero-load latency.
  latencyLogRange() {
    const z = this.zeroLoads();
    const low = niceFloor(0.8 * (z.length ? Math.min(...z) : 10));
    let high = this.latencyCeiling();
    for (const col of this.latency.data.slice(1)) for (const v of col) if (v != null && v > high) high = v;
    return [low, niceCeil(high * 1.2)];
  }

  // models: [{label, points: [{load, latency}], saturationLoad}] for the current scenario
  // (loads in flits/node/cycle); bound: the channel-load bound, flits/node/cycle.
  setModels(models, { bound, latencyAtRate }) {
    this.models = models;
    this.bound = bound;
    this.boundLoad = bound;
    this.modelLatency = latencyAtRate;
    this.latency.setSeries(this.loadSeries());
    this.redrawLoad();
  }

  // The torus's capacity (flits/node/cycle), for the fraction-of-capacity axis.
  setCapacity(capacity) {
    this.capacity = capacity;
  }

  // Whether the accepted-against-offered chart shows each point's worst-served source beside
  // its mean (past saturation, where a starved source hides behind a healthy mean).
  setSpread(on) {
    if (on === this.spread) return;
    this.spread = on;
    this.throughput.setSeries(this.throughputSeries());
    this.redrawLoad();
  }

  setZeroLoad(latency) {
    this.zeroLoad = latency;
    this.redrawLoad();
  }

  // pins: [{label, colour, models, sweep, zeroLoad}].
  setPins(pins) {
    this.pins = pins;
    this.latency.setSeries(this.loadSeries());
    this.redrawLoad();
  }

  // Compare mode: second = { name, firstName, colour } (each simulation named by what differs),
  // or null to leave it.
  setSecond(second) {
    this.second = second ? { ...second, live: null, models: [], sweep: [] } : null;
    this.timeline = [];
    this.latency.setSeries(this.loadSeries());
    this.throughput.setSeries(this.throughputSeries());
    this.overTime.setSeries(this.overTimeSeries());
    this.redrawLoad();
  }

  // The second simulation's model curves and its model's latency at its rate (as setModels's).
  setSecondModels(models, latencyAtRate) {
    if (!this.second) return;
    this.second.models = models;
    this.second.modelLatency = latencyAtRate;
    this.latency.setSeries(this.loadSeries());
    this.redrawLoad();
  }

  // The second simulation's sweep points so far.
  setSecondSweep(points) {
    if (!this.second) return;
    this.second.sweep = points.slice().sort((a, b) => a.load - b.load);
    this.redrawLoad();
  }

  addSweepPoint(p) {
    this.sweep.push(p);
    this.sweep.sort((a, b) => a.load - b.load);
    this.redrawLoad();
  }

  // The accepted-against-offered chart's series: the line accepted = offered, the sweep's
  // mean accepted throughput and the live one, each with its worst source when the spread is
  // shown.
  throughputSeries() {
    const series = [{ label: 'accepted = offered', stroke: GREY, width: 1, dash: [4, 4], spanGaps: true, counts: false }];
    series.push({ label: this.second ? `mean (sweep, ${this.second.firstName})` : 'mean (sweep)', stroke: BLUE, width: 0, points: { show: true, size: 7, fill: BLUE } });
    if (this.spread) series.push({ label: 'worst source (sweep)', stroke: BLUE, width: 0, points: { show: true, size: 7, width: 2, stroke: BLUE, fill: '#ffffff' }, spreadOf: 1 });
    series.push({ label: this.second ? `live mean (${this.second.firstName})` : 'live mean', stroke: ORANGE, width: 0, points: { show: true, size: 9, fill: ORANGE } });
    if (this.spread) series.push({ label: 'live worst source', stroke: ORANGE, width: 0, points: { show: true, size: 9, width: 2, stroke: ORANGE, fill: '#ffffff' }, spreadOf: series.length - 1 });
    if (this.second) {
      const c = this.second.colour;
      series.push({ label: `mean (sweep, ${this.second.name})`, stroke: c, width: 0, points: { show: true, size: 7, fill: c } });
      series.push({ label: `live mean (${this.second.name})`, stroke: c, width: 0, points: { show: true, size: 9, fill: c } });
    }
    return series;
  }

  // Both axes of the accepted-against-offered chart: from 0 to a little past the simulated
  // saturation (the highest load the sweep carried), so that the flattening shows; before the
  // sweep knows, a little past the bound or the live load.
  throughputTop() {
    const kept = Math.max(keptUp(this.sweep) ?? 0, this.second ? keptUp(this.second.sweep) ?? 0 : 0);
    const second = this.second && this.second.live && this.second.live.offered != null ? this.second.live.offered * 1.05 : 0;
    const live = Math.max(this.live && this.live.offered != null ? this.live.offered * 1.05 : 0, second);
    const top = kept > 0 ? kept * THROUGHPUT_MARGIN : (this.boundLoad ?? 0) * 1.1;
    return niceCeil(Math.max(top, live, 1e-6));
  }

  redrawLoad() {
    const curve = (m) => m.points.map((p) => ({ x: p.load, y: p.latency }));
    const swept = (sweep) => sweep.filter((p) => p.latency != null).map((p) => ({ x: p.load, y: p.latency, ci: p.ci }));
    const live = this.live && this.live.latency != null ? [{ x: this.live.load, y: this.live.latency, ci: this.live.ci }] : [];
    const lists = [...this.models.map(curve), swept(this.sweep), live];
    const second = this.second;
    if (second) {
      const l = second.live;
      lists.push(...second.models.map(curve), swept(second.sweep), l && l.latency != null ? [{ x: l.load, y: l.latency, ci: l.ci }] : []);
    }
    for (const pin of this.pins) lists.push(...pin.models.map(curve), swept(pin.sweep));
    const [xs, ys, cis] = align(lists);
    // Curves carry no intervals; the sweeps' and the live point's are error bars.
    this.latency.set([xs, ...ys], cis);

    const thr = this.sweep.filter((p) => p.offered != null);
    const liveThr = this.live && this.live.offered != null ? [this.live] : [];
    const top = this.throughputTop();
    const lists2 = [[{ x: 0, y: 0 }, { x: top, y: top }], thr.map((p) => ({ x: p.offered, y: p.accepted }))];
    if (this.spread) lists2.push(thr.map((p) => ({ x: p.offered, y: p.acceptedMin })));
    lists2.push(liveThr.map((p) => ({ x: p.offered, y: p.accepted })));
    if (this.spread) lists2.push(liveThr.map((p) => ({ x: p.offered, y: p.acceptedMin })));
    if (second) {
      lists2.push(second.sweep.filter((p) => p.offered != null).map((p) => ({ x: p.offered, y: p.accepted })));
      lists2.push(second.live && second.live.offered != null ? [{ x: second.live.offered, y: second.live.accepted }] : []);
    }
    const [txs, tys] = align(lists2);
    this.throughput.set([txs, ...tys]);
  }

  // ---- the rest ----------------------------------------------------------------------

  // Forget everything measured (a new scenario that warms up for `warmup` cycles).
  clear(warmup) {
    this.warmup = warmup;
    this.sweep = [];
    this.models = [];
    this.live = null;
    this.bound = null;
    this.boundLoad = null;
    this.modelLatency = null;
    this.timeline = [];
    // The second simulation's too, before the series are set from them: the series and the
    // columns drawn under them must come from the same state (a redraw of columns without
    // series the plot still has reads past the data).
    if (this.second) {
      this.second.live = null;
      this.second.models = [];
      this.second.sweep = [];
    }
    this.latency.setSeries(this.loadSeries());
    this.redrawLoad();
    this.overTime.set([[], ...this.overTime.series.map(() => [])]);
    this.histogram.set([[], []]);
  }

  // live: { cycle, load, rate, latency, ci, warmupLatency, deadlockAt, offered, accepted,
  // acceptedMin }: the measured running mean once measurement has started (none after a
  // deadlock), the warm-up's own running mean before; load, offered, accepted and acceptedMin
  // (the worst source's) in flits/node/cycle. In compare mode `second` is the second
  // simulation's, at the same cycle (they run in lockstep).
  setLive(live, second = null) {
    this.live = { ...live, second };
    live = this.live;
    if (this.second) this.second.live = second;
    const last = this.timeline[this.timeline.length - 1];
    if ((live.latency != null || live.warmupLatency != null) && !(last && last.cycle === live.cycle)) {
      this.timeline.push(live);
      if (this.timeline.length > 600) this.timeline.splice(0, this.timeline.length - 600);
    }
    this.redrawLoad();
    const t = this.timeline;
    const measured = (p) => p.latency != null;
    this.overTime.set([
      t.map((p) => p.cycle),
      t.map((p) => (measured(p) ? null : p.warmupLatency)),
      t.map((p) => (measured(p) ? p.latency : null)),
      t.map((p) => (measured(p) && p.ci != null ? p.latency + p.ci : null)),
      t.map((p) => (measured(p) && p.ci != null ? p.latency - p.ci : null)),
      t.map(() => this.modelLatency ?? null),
      ...(this.second ? [
        t.map((p) => (p.second && p.second.latency != null ? p.second.latency : null)),
        t.map(() => (this.second.modelLatency ?? null)),
      ] : []),
    ]);
  }

  // The whole run of the current scenario: its latency histogram.
  setRun(report) {
    const h = report.latency_histogram;
    this.histogram.set([h.counts.map((_, i) => h.start + i * h.width), h.counts]);
  }

  // A preset starts from the latency chart's plain view: linear axis, not zoomed.
  resetView() {
    if (this.latency.log) this.latency.setLog(false);
    if (this.latency.zoomed) this.latency.resetZoom();
  }

  // Presentation mode: the latency chart taller and in larger type.
  setPresenting(on) {
    this.presenting = on;
    // Larger on a taller screen (a projector's), as the live numbers are.
    this.latency.setFontScale(on ? Math.max(1.6, Math.round((window.innerHeight / 650) * 10) / 10) : 1);
    this.latency.fit();
  }

  describe() {
    return [this.latency, this.overTime, this.histogram, this.throughput].map((c) => c.describe());
  }
}
