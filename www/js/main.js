// The page: scenario controls and the URL hash, the animation loop (time-budgeted slices of
// simulation on the main thread, drawn from typed-array views of wasm memory; "as fast as
// possible" in a worker of its own, drawn from the frames it posts), live statistics, the
// background work in a pool of workers (the models, the load sweep, the whole run, the pinned
// scenarios), presets, presentation mode, export, and the console API window.torusExplorer.
import { loadWasm, RunnerPool, FastMode } from './wasm-loader.js';
import { TorusView, FREE, BLOCKED, IN_ROUTER, neighbour, strokeClassPattern, messageColour, MESSAGE_COLOURS, PORT_NAMES, HEAT_STOPS } from './render.js';
import { Charts, PIN_COLOURS } from './charts.js';
import { PRESETS, DEFAULT_SCENARIO, PAPERS, OWN_MODEL, modelCite, DEFAULT_SPEED, DEFAULT_VIEW, claimWords } from './presets.js';
import { Sweep } from './sweep.js';
import { MAX_PINS, parseLink, pinScenario, differences, pinValue, writeLink } from './link.js';
import { el, download, wrapScenario } from './dom.js';
import { FLITS, MESSAGES, flitLoad, flitsPerMessage, messageRate, loadText, capacityText, percentText, flitsText } from './units.js';
import { CONTROLS, choiceLabel, shortLabel, GLOSSARY, delaysApply } from './words.js';
import { Companion, differenceWords, COMPARE_COLOUR, FIRST_COLOUR } from './compare.js';

// The delay keys, and the controls whose change can leave them without the router they need.
const DELAY_KEYS = ['rdelay', 'ldelay', 'cdelay'];
const DELAY_CHANGES = ['routing', 'switching', 'router', 'lengths'];
// The keys that belong to one traffic pattern.
const TRAFFIC_OPTIONS = { hot: 'hotspot', hotfrac: 'hotspot', pseed: 'permutation', matrix: 'matrix' };

const PAGE_K = [2, 16];
const STATS_INTERVAL_MS = 250;
// Main-thread simulation per animation frame at set speeds ("as fast as possible" runs in a
// worker: FastMode).
const SLOW_BUDGET_MS = 10;
// Compare mode's fast mode: the cycles the two workers are granted at a time, at first; the
// time a grant should take the slower one (about fast mode's frame interval); and how many
// grants ahead of the cycle shown they run, so that neither waits for the page's answer even
// when drawing keeps the page busy for a while.
const LOCKSTEP_FIRST_STRIDE = 64;
const LOCKSTEP_MS = 50;
const LOCKSTEP_AHEAD = 4;
// Points on a model's curve, from near zero load to its saturation rate.
const MODEL_POINTS = 60;
// While playing, the warm-up goes by in about this many seconds whatever the speed, so that a
// link shows a measured point within seconds; the chosen speed applies once it is over.
const WARMUP_SECONDS = 4;
// The heat overlay averages each channel's flits per cycle with this time constant (cycles).
const HEAT_CYCLES = 50;
// A backtrack or a deflection stays marked for this many cycles, or this long on screen in fast
// mode.
const MARK_CYCLES = 40;
const MARK_MS = 600;
const $ = (id) => document.getElementById(id);
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;

// Key=value pairs of a canonical scenario string, in order.
function pairs(s) {
  return s.split('&').map((p) => p.split('='));
}
function get(s, key) {
  return pairs(s).find(([k]) => k === key)[1];
}
function withKey(s, key, value) {
  return pairs(s).map(([k, v]) => `${k}=${k === key ? value : v}`).join('&');
}

// Speed slider 0..100: log scale from 1 to 10 000 cycles per second; 100 is as fast as possible.
function speedOf(slider) {
  return slider >= 100 ? Infinity : Math.round(10 ** (slider / 25));
}
function sliderOf(speed) {
  return speed === Infinity ? 100 : Math.min(99, Math.max(0, Math.round(25 * Math.log10(speed))));
}

class App {
  constructor(api, memory, runner, module) {
    this.api = api;
    this.memory = memory;
    this.module = module;
    // Fast mode's worker, started the first time fast mode is.
    this.fast = null;
    this.fastStopping = null;
    // Workers for whole runs and the sweep: one per core beyond the one the animation keeps
    // (on two cores, a single worker), see RunnerPool.
    this.runner = runner;
    this.schema = JSON.parse(api.scenario_schema());
    this.view = new TorusView($('torus'));
    this.charts = new Charts($('load-chart'), $('charts'));
    this.charts.setNaming({ fileStem: () => this.fileStem(), scenarioText: () => this.scenario || '' });
    this.explorer = null;
    this.scenario = null;
    this.playing = false;
    this.owed = 0;
    this.selected = -1;
    this.backgroundGeneration = 0;
    this.sweep = null;
    this.models = [];
    this.pins = [];
    this.presenting = false;
    this.lastRun = null;
    // Compare mode: the second simulation (compare.js) and its link value (the keys where it
    // differs, as a pin's), null outside it.
    this.second = null;
    this.compareValue = null;
    // The simulation whose router the router panel shows (this, or compare mode's second).
    this.routerOf = null;
    // Compare mode's fast mode: the cycles granted to both workers (see showLockstep).
    this.lockstep = null;
    this.dirty = true;
    this.buildForm();
    $('glossary').replaceChildren(...GLOSSARY.flatMap(([word, meaning]) => [el('dt', {}, [word]), el('dd', {}, [meaning])]));
    this.buildPresets();
    this.buildPinControls();
    this.bindControls();
    this.setSpeed();
  }

  // ---- scenario and hash -------------------------------------------------------------

  // Validates and applies a scenario string. Returns null on success, the error otherwise;
  // on error the running scenario is kept and the error shown.
  apply(input, { context = 'scenario' } = {}) {
    let canonical;
    let explorer;
    try {
      canonical = this.api.canonical(input);
      this.checkPageLimits(canonical);
      explorer = new this.api.Explorer(canonical);
    } catch (err) {
      const message = err && err.message ? err.message : String(err);
      this.showError(context, message);
      this.syncForm();
      this.writeHash();
      return message;
    }
    this.hideError();
    // A fast-mode session of the previous scenario is dropped, and so is the state it would
    // have handed back.
    if (this.fast) this.fast.discard();
    this.scenarioGeneration = (this.scenarioGeneration ?? 0) + 1;
    if (this.explorer) this.explorer.free();
    this.explorer = explorer;
    this.scenario = canonical;
    this.k = explorer.k();
    this.vcs = explorer.vcs();
    this.buf = Number(get(canonical, 'buf'));
    this.scout = Number(get(canonical, 'scout'));
    this.chaos = get(canonical, 'routing') === 'chaos';
    this.capacity = this.api.capacity_flits(canonical);
    this.charts.setCapacity(this.capacity);
    this.view.setGeometry(this.k, this.vcs, this.buf);
    this.heat = new Float32Array(this.k * this.k * 4);
    this.views = null;
    this.heatFlits = new Uint32Array(this.stateViews().channelFlits);
    this.heatCycle = explorer.cycle();
    this.classes = JSON.parse(explorer.vc_classes());
    this.beta = Number(get(canonical, 'beta'));
    this.scouting = get(canonical, 'switching') === 'scouting';
    this.failedChannels = Array.from(explorer.failed_channels());
    this.failedNodes = Array.from(explorer.failed_nodes());
    this.hasFaults = this.failedChannels.length > 0 || this.failedNodes.length > 0;
    this.deadlock = null;
    this.deadlockAt = null;
    this.marks = { backtracks: { list: [], seen: 0 }, deflections: { list: [], seen: 0 } };
    this.drawn = null;
    this.showDeadlock();
    this.buildLegend();
    if (this.selected >= this.k * this.k) this.selectNode(-1);
    this.follow(FREE);
    this.owed = 0;
    this.syncForm();
    this.writeHash();
    // The warm-up's length when fixed; null when automatic (decided as the run goes).
    this.warmup = get(canonical, 'warmup') === 'auto' ? null : Number(get(canonical, 'warmup'));
    this.charts.clear(this.warmup);
    this.updateSpread();
    this.lastRun = null;
    this.modelReport = null;
    this.models = [];
    this.updateZeroLoad();
    this.updateStats();
    this.dirty = true;
    this.relabelPins();
    this.renderModel();
    this.showPresetState();
    this.background();
    this.buildSecond();
    return null;
  }

  // ---- compare mode ------------------------------------------------------------------

  // Enters compare mode with `input` (a scenario string) as the second simulation, both from
  // cycle 0; null leaves it. A bad scenario leaves compare mode with the error naming the key.
  setCompare(input) {
    if (input == null) {
      this.compareValue = null;
      this.buildSecond();
      this.writeHash();
      return null;
    }
    let value;
    try {
      const scenario = this.api.canonical(String(input));
      this.checkPageLimits(scenario);
      new this.api.Explorer(scenario).free();
      value = pinValue(this.scenario, scenario);
    } catch (err) {
      const message = err && err.message ? err.message : String(err);
      this.compareValue = null;
      this.buildSecond();
      this.writeHash();
      this.showError('compare', `second scenario: ${message}`, 'The page shows the first scenario alone.');
      return message;
    }
    this.compareValue = value;
    this.apply(this.scenario);
    return this.compareValue == null ? 'the second scenario could not be loaded' : null;
  }

  // The second simulation for the current scenario and the compare value (a new one at cycle
  // 0, as the first is), its label, the note on its seed, and its series on the charts.
  buildSecond() {
    if (this.routerOf && this.routerOf === this.second) this.selectNode(-1);
    if (this.second && this.second.followed) this.follow(FREE);
    if (this.second) this.second.free();
    this.second = null;
    if (this.compareValue != null) {
      try {
        const scenario = this.api.canonical(pinScenario(this.scenario, this.compareValue));
        this.checkPageLimits(scenario);
        this.second = new Companion(this, scenario, $('torus-b'));
      } catch (err) {
        const message = err && err.message ? err.message : String(err);
        this.showError('compare', `second scenario (compare=${this.compareValue.slice(0, 80)}): ${message}`, 'The page shows the first scenario alone.');
        this.compareValue = null;
        this.writeHash();
      }
    }
    // A model build for the second simulation before gives way at once.
    this.runner.abandonStale();
    const second = this.second;
    document.body.classList.toggle('comparing', !!second);
    $('torus-box-b').hidden = !second;
    $('torus-label').hidden = !second;
    $('compare-note').hidden = !second;
    if (!second) {
      this.charts.setSecond(null);
      this.buildClassLegend(true);
      this.dirty = true;
      return;
    }
    const firstName = differenceWords(this.api, second.scenario, this.scenario);
    const name = differenceWords(this.api, this.scenario, second.scenario);
    $('torus-label').textContent = firstName;
    $('torus-label-b').textContent = name;
    const seed = get(this.scenario, 'seed');
    const leave = el('button', { type: 'button', id: 'compare-leave', title: 'Show the first scenario alone' }, ['leave compare mode']);
    leave.addEventListener('click', () => this.setCompare(null));
    $('compare-note').replaceChildren(get(second.scenario, 'seed') === seed
      ? `${firstName} (left) against ${name} (right), in lockstep. Both use seed ${seed}: identical seeds mean identical message arrivals and destinations, so the two see exactly the same traffic and only what their labels name differs. `
      : `${firstName} (left) against ${name} (right), in lockstep. Their seeds differ, so their traffic differs too. `, leave);
    this.charts.setSecond({ name, firstName, colour: COMPARE_COLOUR });
    this.buildClassLegend(true);
    this.secondModels(second);
    this.dirty = true;
  }

  async secondModels(second) {
    let report = null;
    try {
      report = await this.runner.report(second.scenario);
    } catch (err) {
      console.warn(`model of ${second.scenario}: ${err.message}`);
    }
    const models = report ? await this.modelCurves(second.scenario, report) : [];
    if (this.second !== second) return;
    second.modelReport = report;
    second.models = models;
    this.charts.setSecondModels(models, report ? report.latency : null);
    // Its own background sweep: latency and accepted throughput against offered load beside
    // the first's.
    const sweep = new Sweep(this.runner, second.scenario, {
      bound: report ? report.bound_saturation_rate : null,
      predicted: models.map((m) => m.saturation),
      capacity: this.api.capacity_flits(second.scenario),
      onPoint: () => {
        if (this.second === second) this.charts.setSecondSweep(sweep.points.filter((q) => !q.failed));
      },
    });
    second.sweep = sweep;
    await sweep.run();
    if (this.second !== second || sweep.cancelled) return;
    const full = await this.fullBudgetCurves(second.scenario, report, () => this.second !== second);
    if (!full || this.second !== second) return;
    second.modelReport = full.report;
    second.models = full.models;
    this.charts.setSecondModels(full.models, full.report.latency);
  }

  // Fast mode's workers still hold a simulation (running, or handing it back).
  fastBusy() {
    const s = this.second;
    return !!(this.fastStopping || (this.fast && this.fast.active) || (s && (s.fastStopping || (s.fast && s.fast.active))));
  }

  // After fast mode, where each worker got as far as it could, the one behind catches up: the
  // two go on in lockstep from the same cycle.
  catchUp(second) {
    if (this.second !== second || !this.explorer) return;
    const a = this.explorer.cycle();
    const b = second.explorer.cycle();
    if (a < b) {
      this.explorer.step(b - a);
      this.sampleHeat();
    } else if (b < a) {
      second.step(a - b);
    }
    this.dirty = true;
  }

  checkPageLimits(canonical) {
    const k = Number(get(canonical, 'k'));
    const n = Number(get(canonical, 'n'));
    if (n !== 2) throw new Error(`n: the page draws two-dimensional tori only (n = 2), got ${n}; use the torus CLI for n = 1 or 3`);
    if (k < PAGE_K[0] || k > PAGE_K[1]) throw new Error(`k: the page draws k from ${PAGE_K[0]} to ${PAGE_K[1]}, got ${k}; use the torus CLI for larger tori`);
  }

  // The hash: the canonical scenario, then the pins and the view (see link.js).
  writeHash() {
    if (!this.scenario) return;
    const link = writeLink(this.scenario, this.pins.map((p) => pinValue(this.scenario, p.scenario)), this.presenting, this.compareValue);
    if (location.hash.slice(1) !== link) history.replaceState(null, '', `#${link}`);
  }

  // Opens a link: its scenario (the default one when it has none), then its pinned scenarios
  // and view. A bad scenario keeps the running one (or, on the first load, runs the default
  // scenario); a bad pin is left out; both with the usual error naming the key.
  openLink(hash, { initial = false } = {}) {
    const link = parseLink(hash);
    const previousCompare = this.compareValue;
    this.compareValue = link.compare;
    const error = this.apply(link.scenario === '' ? DEFAULT_SCENARIO : link.scenario, { context: 'link' });
    if (error) {
      this.compareValue = initial ? null : previousCompare;
      if (initial) {
        this.apply(DEFAULT_SCENARIO);
        this.showError('link', error, 'The page shows the default scenario instead.');
      }
      return error;
    }
    const problems = [...link.errors];
    const pins = [];
    link.pins.forEach((value, i) => {
      try {
        pins.push(this.makePin(pinScenario(this.scenario, value)));
      } catch (err) {
        problems.push(`pin ${i + 1} (pin=${value.slice(0, 80)}): ${err && err.message ? err.message : String(err)}`);
      }
    });
    this.setPins(pins);
    this.setPresenting(link.present);
    if (problems.length) this.showError('pin', problems.join('; '), 'The page shows the rest of the link without it.');
    return problems.length ? problems.join('; ') : null;
  }

  showError(context, message, kept = 'The page kept the scenario it was running.') {
    const box = $('error');
    const lead = { link: 'This link could not be loaded. ', pin: 'Part of this link could not be loaded. ', compare: 'Compare mode could not start. ' }[context] || 'Scenario not changed. ';
    box.replaceChildren(el('strong', {}, [lead]),
      document.createTextNode(`${message}. ${kept}`));
    box.hidden = false;
  }

  hideError() {
    $('error').hidden = true;
    $('error').replaceChildren();
  }

  // ---- controls ----------------------------------------------------------------------

  // Each control is labelled by what it is (words.js), with its scenario key in a tooltip; the
  // choices of routing, switching and traffic likewise. A control that does not apply to the
  // chosen routing or switching is hidden. The load is entered in flits/node/cycle or as the
  // rate λ in messages/node/cycle, the unit the reader picks (units.js converts).
  buildForm() {
    const s = this.schema;
    const form = $('scenario-form');
    const number = (min, max, step = 1) => () => el('input', { type: 'number', min: String(min), max: String(max), step: String(step) });
    const text = () => () => el('input', { type: 'text', spellcheck: 'false', autocomplete: 'off' });
    // A run length: a number of cycles, or `auto`.
    const length = () => () => el('input', { type: 'text', inputmode: 'numeric', pattern: '[0-9]{1,10}|auto', spellcheck: 'false' });
    const select = (key, options) => () => el('select', {}, options.map((o) => el('option', { value: o, title: `${key}=${o}` }, [choiceLabel(key, o)])));
    const makers = {
      k: number(PAGE_K[0], PAGE_K[1]),
      n: select('n', ['2']),
      routing: select('routing', s.routing),
      switching: select('switching', s.switching),
      scout: number(s.scout[0], s.scout[1]),
      traffic: select('traffic', s.traffic),
      rate: number(0, 1, 'any'),
      len: number(s.len[0], s.len[1]),
      vcs: number(s.vcs[0], s.vcs[1]),
      buf: number(s.buf[0], s.buf[1]),
      mq: number(s.mq[0], s.mq[1]),
      beta: number(0, 1, 'any'),
      seed: () => el('input', { type: 'text', inputmode: 'numeric', pattern: '[0-9]{1,20}', spellcheck: 'false' }),
      warmup: length(),
      cycles: length(),
      unsafe: () => el('input', { type: 'checkbox' }),
      qcap: number(s.qcap[0], s.qcap[1]),
      flinks: text(),
      fnodes: text(),
      frandom: text(),
      misroute: number(s.misroute[0], s.misroute[1]),
      ci: number(0, 1, 'any'),
      router: select('router', s.router),
      lengths: () => el('input', { type: 'text', spellcheck: 'false' }),
      rng: select('rng', s.rng),
      rdelay: number(s.delay[0], s.delay[1]),
      ldelay: number(s.delay[0], s.delay[1]),
      cdelay: number(s.delay[0], s.delay[1]),
      hot: text(),
      hotfrac: () => el('input', { type: 'text', inputmode: 'decimal', spellcheck: 'false' }),
      pseed: () => el('input', { type: 'text', inputmode: 'numeric', pattern: '[0-9]{1,20}|auto', spellcheck: 'false' }),
      matrix: text(),
      inject: () => el('input', { type: 'text', spellcheck: 'false' }),
    };
    this.inputs = {};
    this.rows = {};
    for (const key of s.keys) {
      const make = makers[key];
      const words = CONTROLS[key];
      if (!make || !words) throw new Error(`no control for scenario key ${key}`);
      const input = make();
      input.id = `key-${key}`;
      input.name = key;
      const tip = `${words.help} (scenario key ${key}${key === 'rate' ? ', in messages/node/cycle' : ''})`;
      input.title = tip;
      this.inputs[key] = input;
      const label = el('label', { for: input.id, title: tip }, [words.label]);
      const row = el('div', { class: input.tagName === 'SELECT' ? 'field wide' : 'field', 'data-key': key }, [label, input]);
      if (key === 'rate') {
        this.rateUnit = el('select', { id: 'rate-unit', 'aria-label': 'unit of the offered load', title: 'the unit the load is entered in' }, [
          el('option', { value: 'flits' }, [FLITS]),
          el('option', { value: 'messages' }, [`${MESSAGES} (λ)`]),
        ]);
        this.rateUnit.value = this.storedRateUnit();
        this.rateSlider = el('input', { type: 'range', min: '0', max: '1', step: 'any', 'aria-label': 'offered load slider' });
        this.rateNote = el('small', { id: 'rate-note' });
        row.append(this.rateUnit, this.rateSlider, this.rateNote);
      }
      form.append(row);
      this.rows[key] = row;
    }
  }

  // The rate unit the reader chose last time (flits/node/cycle until they choose).
  storedRateUnit() {
    try {
      return localStorage.getItem('torus-explorer-rate-unit') === 'messages' ? 'messages' : 'flits';
    } catch {
      return 'flits';
    }
  }

  setRateUnit(unit) {
    this.rateUnit.value = unit;
    try {
      localStorage.setItem('torus-explorer-rate-unit', unit);
    } catch {
      // A page opened from a file may have no storage: the choice lasts this visit.
    }
    this.syncForm();
  }

  // The form's values as a scenario string. `changedKey` is the control the reader changed: a
  // new routing algorithm starts from its own defaults for virtual channels and the shared
  // queue (and chaos, virtual cut-through, from its own buffer depth); wormhole switching
  // drops the probe lead. The load entered in flits/node/cycle becomes the rate key with the
  // form's message length and broadcast fraction.
  formString(changedKey) {
    const values = {};
    for (const key of this.schema.keys) {
      const input = this.inputs[key];
      values[key] = input.type === 'checkbox' ? (input.checked ? '1' : '0') : input.value;
    }
    if (changedKey === 'switching' && values.switching === 'wormhole') values.scout = '0';
    if (this.rateUnit.value === 'flits' && values.rate !== '' && Number.isFinite(Number(values.rate))) {
      values.rate = String(messageRate(values, Number(values.rate)));
    }
    return this.schema.keys
      // A new routing algorithm starts from its own defaults for virtual channels and the
      // shared queue, and chaos (virtual cut-through) also from its own buffer depth; a
      // uniform range of lengths sets the mean length itself.
      .filter((key) => !(changedKey === 'routing'
        && (key === 'vcs' || key === 'mq' || (key === 'buf' && values.routing === 'chaos'))))
      .filter((key) => !(changedKey === 'lengths' && key === 'len' && values.lengths.startsWith('uniform:')))
      // Chaos and scouting run only the input-queued router with fixed lengths.
      .filter((key) => !((key === 'router' || key === 'lengths')
        && (changedKey === 'routing' || changedKey === 'switching')
        && (values.routing === 'chaos' || values.switching !== 'wormhole')))
      // So do the delays: a change that leaves them without their router drops them.
      .filter((key) => !(DELAY_KEYS.includes(key) && DELAY_CHANGES.includes(changedKey) && !delaysApply(values)))
      // The hot-spot and permutation options go with their pattern.
      .filter((key) => !(changedKey === 'traffic' && TRAFFIC_OPTIONS[key] && TRAFFIC_OPTIONS[key] !== values.traffic))
      .map((key) => `${key}=${encodeURIComponent(values[key])}`).join('&');
  }

  syncForm() {
    if (!this.scenario) return;
    const values = Object.fromEntries(pairs(this.scenario));
    for (const [key, value] of Object.entries(values)) {
      const input = this.inputs[key];
      if (!input) continue;
      // A link may name a router organisation the menu does not list.
      if (input.tagName === 'SELECT' && ![...input.options].some((o) => o.value === value)) {
        input.append(el('option', { value, title: `${key}=${value}` }, [choiceLabel(key, value)]));
      }
      if (input.type === 'checkbox') input.checked = value === '1';
      else input.value = value;
    }
    for (const [key, row] of Object.entries(this.rows)) {
      const when = CONTROLS[key].when;
      row.hidden = !!when && !when(values);
    }
    const rate = Number(values.rate);
    const flits = flitLoad(values);
    const capacity = this.api.capacity_flits(this.scenario);
    if (this.rateUnit.value === 'flits') {
      this.inputs.rate.value = String(Number(flits.toPrecision(6)));
      this.rateSlider.max = String(1.2 * capacity);
      this.rateSlider.value = String(flits);
      this.rateNote.textContent = `${capacityText(flits, capacity)}; rate λ = ${rate} ${MESSAGES}`;
    } else {
      this.rateSlider.max = String(Number(((1.2 * capacity) / flitsPerMessage(values)).toPrecision(3)));
      this.rateSlider.value = String(rate);
      this.rateNote.textContent = `= ${loadText(flits, capacity)}`;
    }
  }

  bindControls() {
    $('scenario-form').addEventListener('change', (e) => {
      if (e.target === this.rateUnit) {
        this.setRateUnit(this.rateUnit.value);
        return;
      }
      const key = e.target.name;
      if (e.target === this.rateSlider) this.inputs.rate.value = Number(Number(this.rateSlider.value).toPrecision(3));
      this.apply(this.formString(key));
    });
    $('scenario-form').addEventListener('submit', (e) => e.preventDefault());
    this.rateSlider.addEventListener('input', () => { this.inputs.rate.value = Number(Number(this.rateSlider.value).toPrecision(3)); });
    $('play').addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    $('step').addEventListener('click', () => { this.pause(); this.step(1); });
    $('reset').addEventListener('click', () => this.apply(this.scenario));
    $('new-seed').addEventListener('click', () => this.newSeed());
    $('speed').addEventListener('input', () => this.setSpeed());
    $('show-heat').addEventListener('change', () => { this.dirty = true; });
    $('heat-source').addEventListener('change', () => { this.dirty = true; });
    $('show-lanes').addEventListener('change', () => { this.dirty = true; });
    $('show-coordinates').addEventListener('change', () => { this.dirty = true; });
    $('fault-tool').addEventListener('change', () => {
      $('torus').classList.toggle('fault-tool', $('fault-tool').checked);
      $('fault-status').textContent = '';
      this.buildLegend();
    });
    $('copy-link').addEventListener('click', () => this.copyLink());
    $('export-json').addEventListener('click', () => this.exportJson());
    $('export-csv').addEventListener('click', () => this.exportCsv());
    $('export-png').addEventListener('click', () => this.exportTorusPng());
    $('help-toggle').addEventListener('click', () => this.toggleHelp());
    $('torus').addEventListener('click', (e) => this.clickCanvas(e));
    $('torus').addEventListener('mousemove', (e) => this.hoverCanvas(e));
    $('torus').addEventListener('mouseleave', () => this.leaveCanvas());
    $('torus-b').addEventListener('click', (e) => this.clickSecond(e));
    $('torus-b').addEventListener('mousemove', (e) => { if (this.second) this.hoverCanvas(e, this.second); });
    $('torus-b').addEventListener('mouseleave', () => { if (this.second) this.leaveCanvas(this.second); });
    $('router-close').addEventListener('click', () => this.selectNode(-1));
    $('message-close').addEventListener('click', () => this.follow(FREE));
    $('preset').addEventListener('change', () => this.loadPreset($('preset').value));
    $('preset-back').addEventListener('click', () => this.loadPreset(this.preset.index));
    $('preset-close').addEventListener('click', () => this.clearPreset());
    $('present').addEventListener('click', () => this.setPresenting(!this.presenting));
    $('present-exit').addEventListener('click', () => this.setPresenting(false));
    window.addEventListener('hashchange', () => this.openLink(location.hash.slice(1)));
    document.addEventListener('keydown', (e) => this.key(e));
  }

  key(e) {
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === ' ') {
      e.preventDefault();
      if (this.playing) this.pause(); else this.play();
    } else if (e.key === 'ArrowRight') {
      e.preventDefault();
      this.pause();
      this.step(1);
    } else if (e.key === 'r' || e.key === 'R') {
      this.apply(this.scenario);
    } else if (e.key === 'n' || e.key === 'N') {
      this.newSeed();
    } else if (e.key === '?') {
      this.toggleHelp();
    } else if (e.key === 'p' || e.key === 'P') {
      this.setPresenting(!this.presenting);
    } else if (e.key === 'Escape' && this.presenting) {
      this.setPresenting(false);
    }
  }

  // Presentation mode, for a projector: only the torus, the latency chart and the live numbers,
  // in large type.
  setPresenting(on) {
    if (on === this.presenting) return;
    this.presenting = on;
    document.body.classList.toggle('presenting', on);
    $('present').setAttribute('aria-pressed', String(on));
    $('present-exit').hidden = !on;
    this.charts.setPresenting(on);
    this.writeHash();
    this.dirty = true;
  }

  toggleHelp() {
    const help = $('help');
    help.hidden = !help.hidden;
    $('help-toggle').setAttribute('aria-expanded', String(!help.hidden));
  }

  setSpeed() {
    this.speed = speedOf(Number($('speed').value));
    this.showSpeed();
  }

  // Cycles per second now: the chosen speed, or faster while the warm-up lasts.
  currentSpeed() {
    if (this.speed === Infinity || !this.explorer || this.fastFrame()) return this.speed;
    return this.explorer.cycle() < this.warmup ? Math.max(this.speed, this.warmup / WARMUP_SECONDS) : this.speed;
  }

  showSpeed() {
    const now = this.currentSpeed();
    const text = this.speed === Infinity ? 'as fast as possible'
      : now > this.speed && this.playing ? `${this.speed} cycles/s (warm-up at ${Math.round(now).toLocaleString('en')})` : `${this.speed} cycles/s`;
    if ($('speed-label').textContent !== text) $('speed-label').textContent = text;
  }

  newSeed() {
    this.apply(withKey(this.scenario, 'seed', this.api.fresh_seed()));
  }

  async copyLink() {
    const url = location.href;
    let message = 'link copied';
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      message = 'copy this link from the address bar';
    }
    $('copy-status').textContent = message;
    setTimeout(() => { $('copy-status').textContent = ''; }, 2500);
  }

  // ---- presets -----------------------------------------------------------------------

  buildPresets() {
    const select = $('preset');
    for (const group of [...new Set(PRESETS.map((p) => p.group))]) {
      const og = el('optgroup', { label: group });
      PRESETS.forEach((p, i) => { if (p.group === group) og.append(el('option', { value: String(i) }, [p.title])); });
      select.append(og);
    }
  }

  // A preset sets every setting it depends on (its scenario, pins, speed and view options,
  // the page's defaults where it says nothing) and starts from a clean view: nothing of the
  // previous preset or of the reader's changes carries over. Its paragraph stays while the
  // reader changes controls, marked as changed, with a way back.
  loadPreset(index) {
    const p = PRESETS[Number(index)];
    if (!p) return this.clearPreset();
    this.preset = null;
    this.follow(FREE);
    this.selectNode(-1);
    const view = { ...DEFAULT_VIEW, ...(p.view || {}) };
    $('show-heat').checked = view.heat;
    $('heat-source').value = view.heatSource;
    $('show-lanes').checked = view.lanes;
    $('show-coordinates').checked = view.coordinates;
    $('speed').value = String(sliderOf(p.speed ?? DEFAULT_SPEED));
    this.setSpeed();
    this.charts.resetView();
    // A preset brings its own second simulation (compare mode), or none.
    this.compareValue = p.compare ?? null;
    const error = this.apply(p.scenario, { context: 'preset' });
    // A preset brings its own pinned scenarios (a comparison), or none.
    if (!error) this.setPins((p.pins || []).map((value) => this.makePin(pinScenario(this.scenario, value))));
    $('preset').value = String(index);
    $('preset-title').textContent = p.title;
    $('preset-text').textContent = p.text;
    $('preset-info').hidden = false;
    this.preset = error ? null : { index: Number(index), claims: p.claims, scenario: this.scenario, pins: this.pinsValue() };
    this.updateSpread();
    this.showPresetState();
    if (!error && !reducedMotion) this.play();
    return error;
  }

  clearPreset() {
    this.preset = null;
    $('preset').value = '';
    $('preset-info').hidden = true;
  }

  pinsValue() {
    return this.pins.map((p) => p.scenario).join('|');
  }

  // Whether the reader has changed the preset's scenario or pins, and what the preset claims
  // about its operating point beside what the sweep measured.
  showPresetState() {
    const preset = this.preset;
    if (!preset) return;
    const changed = differences(preset.scenario, this.scenario).map(([key, value]) => `${key}=${value}`);
    if (this.pinsValue() !== preset.pins) changed.push('pinned curves');
    $('preset-changed').hidden = changed.length === 0;
    $('preset-changed-keys').textContent = changed.join(', ');
    $('preset-info').classList.toggle('changed', changed.length > 0);
    const words = claimWords(preset.claims);
    const sat = this.sweep && this.sweep.done && this.sweep.scenario === preset.scenario && changed.length === 0 ? this.sweep.saturation() : null;
    if (sat && typeof preset.claims.point === 'object') {
      const rate = Number(get(preset.scenario, 'rate'));
      words.push(`here ${Math.round((rate / sat) * 100)} % of the saturation rate the sweep found`);
    }
    $('preset-claims').textContent = `What to expect: ${words.join('; ')}.`;
  }

  // ---- simulation and drawing --------------------------------------------------------

  play() {
    this.playing = true;
    this.owed = 0;
    $('play').textContent = 'Pause';
    $('play').setAttribute('aria-pressed', 'true');
  }

  // Resolves once the simulation is back on the main thread (at once unless fast mode ran).
  pause() {
    this.playing = false;
    $('play').textContent = 'Play';
    $('play').setAttribute('aria-pressed', 'false');
    return this.stopFast();
  }

  // Returns the cycle reached, or a promise of it if fast mode first has to hand the
  // simulation back.
  step(cycles) {
    if (this.fastBusy()) return this.stopFast().then(() => this.step(cycles));
    this.explorer.step(cycles);
    this.sampleHeat();
    if (this.second) this.second.step(cycles);
    this.dirty = true;
    return this.explorer.cycle();
  }

  // ---- fast mode ---------------------------------------------------------------------

  startFast() {
    if (this.fastBusy()) return;
    if (!this.fast) {
      this.fast = new FastMode(this.module, {
        onFrame: () => {
          if (this.fast.lockstep) {
            this.showLockstep();
            return;
          }
          this.sampleHeat();
          this.dirty = true;
        },
        onError: (err) => {
          this.pause();
          this.showError('scenario', `fast mode stopped: ${err.message}`);
        },
      });
    }
    const second = this.second;
    if (second) this.lockstep = { granted: this.explorer.cycle(), stride: LOCKSTEP_FIRST_STRIDE, shown: null };
    this.fast.start(this.explorer.save_state(), { chaos: this.chaos, scouting: this.scout > 0 }, !!second);
    if (second) {
      second.startFast(() => this.showLockstep(), (err) => {
        this.pause();
        this.showError('scenario', `fast mode stopped the second simulation: ${err.message}`);
      });
      this.grantLockstep(this.lockstep.granted);
    }
  }

  // Compare mode's fast mode: each worker runs to the cycles granted to both and posts its
  // frame there; a frame is shown when the other simulation's frame at the same cycle has
  // arrived too, so that the two always show the same cycle. Grants stay LOCKSTEP_AHEAD strides
  // ahead of the cycle shown, the stride sized so that the slower simulation takes about
  // LOCKSTEP_MS to run one (from the cycles shown per millisecond, which with the workers never
  // waiting is the slower one's speed; at most doubling at a time).
  showLockstep() {
    const second = this.second;
    const a = this.fast;
    const b = second && second.fast;
    if (!a || !b || !a.lockstep || !b.lockstep || !this.lockstep) return;
    const theirs = new Set(b.arrivedCycles());
    const both = a.arrivedCycles().filter((c) => theirs.has(c));
    if (!both.length) return;
    const cycle = both[both.length - 1];
    a.show(cycle);
    b.show(cycle);
    this.sampleHeat();
    second.sampleHeat();
    this.dirty = true;
    const step = this.lockstep;
    const now = performance.now();
    if (step.shown && cycle > step.shown.cycle) {
      const perMs = (cycle - step.shown.cycle) / Math.max(now - step.shown.at, 1);
      step.stride = Math.min(Math.max(Math.round(perMs * LOCKSTEP_MS), 1), 2 * step.stride, 1 << 16);
    }
    step.shown = { cycle, at: now };
    this.grantLockstep(cycle);
  }

  grantLockstep(shownCycle) {
    const step = this.lockstep;
    while (step.granted < shownCycle + LOCKSTEP_AHEAD * step.stride) {
      step.granted += step.stride;
      this.fast.until(step.granted);
      this.second.fast.until(step.granted);
    }
  }

  // Takes both simulations back from fast mode, in lockstep again: both workers run on to the
  // furthest cycle granted to them (in the workers, not here), and should one come back short
  // of the other (a session that ended on its own), the one behind catches up here.
  stopFast() {
    const second = this.second;
    if (!second) return this.stopFastFirst();
    const until = this.lockstep && this.fast && this.fast.lockstep && this.fast.active ? this.lockstep.granted : null;
    return Promise.all([this.stopFastFirst(until), second.stopFast(until)]).then(() => this.catchUp(second), (err) => {
      this.showError('scenario', `fast mode could not hand the second simulation back (${err.message})`);
    });
  }

  // Takes the simulation back from fast mode's worker, at the cycle it reached there (in
  // lockstep at cycle `until`).
  stopFastFirst(until = null) {
    if (this.fastStopping) return this.fastStopping;
    if (!this.fast || !this.fast.active) return Promise.resolve();
    const generation = this.scenarioGeneration;
    this.fastStopping = this.fast.stop(until)
      .then((state) => {
        if (!state || generation !== this.scenarioGeneration) return;
        const explorer = this.api.Explorer.restore(state);
        this.explorer.free();
        this.explorer = explorer;
        this.views = null;
      })
      .catch((err) => {
        this.showError('scenario', `fast mode could not hand the simulation back (${err.message}); it goes on from where fast mode began`);
      })
      .finally(() => {
        this.fastStopping = null;
        this.dirty = true;
      });
    return this.fastStopping;
  }

  // The latest frame of a fast-mode session, while one is running or stopping.
  fastFrame() {
    return this.fast && this.fast.frame ? this.fast.frame : null;
  }

  cycle() {
    const f = this.fastFrame();
    return f ? f.cycle : this.explorer.cycle();
  }

  liveStats() {
    const f = this.fastFrame();
    return JSON.parse(f ? f.stats : this.explorer.live_stats());
  }

  backtracks() {
    const f = this.fastFrame();
    return f ? f.backtracks : this.explorer.backtracks();
  }

  deadlockCycle() {
    const f = this.fastFrame();
    return JSON.parse(f && f.deadlockCycle ? f.deadlockCycle : this.explorer.deadlock_cycle());
  }

  // The headers stuck at faults now: [{ vc, message, channel, fault }].
  stuckHeaders() {
    if (!this.hasFaults) return [];
    const f = this.fastFrame();
    return JSON.parse(f ? f.stuck : this.explorer.stuck_headers());
  }

  // Views into wasm memory; re-created whenever memory has grown or the arrays moved.
  stateViews() {
    const f = this.fastFrame();
    if (f) return { flits: f.flits, owner: f.owner, blocked: f.blocked, channelFlits: f.channelFlits };
    const e = this.explorer;
    const buffer = this.memory.buffer;
    const key = [e.vc_flits_ptr(), e.vc_owner_ptr(), e.vc_blocked_ptr(), e.channel_flits_ptr()];
    const v = this.views;
    if (!v || v.buffer !== buffer || v.key.some((p, i) => p !== key[i])) {
      const n = e.vc_count();
      this.views = {
        buffer,
        key,
        flits: new Uint16Array(buffer, key[0], n),
        owner: new Uint32Array(buffer, key[1], n),
        blocked: new Uint8Array(buffer, key[2], n),
        channelFlits: new Uint32Array(buffer, key[3], e.channel_count()),
      };
    }
    return this.views;
  }

  // What the torus draws beyond the per-VC arrays, from the simulation now (or fast mode's
  // latest frame): whose flits each VC holds, the sources' flits, chaos's shared queues,
  // scouting's probes and acknowledgements.
  drawData() {
    const f = this.fastFrame();
    const e = this.explorer;
    const d = f || {
      runs: e.worm_runs(),
      sources: e.source_flits(),
      queues: this.chaos ? e.shared_queue_slots() : null,
      probes: this.scout > 0 ? e.scouting_probes() : null,
      acks: this.scout > 0 ? e.acknowledgements() : null,
    };
    const probeOf = new Map();
    if (d.probes) {
      for (let i = 0; i < d.probes.length; i += 4) probeOf.set(d.probes[i], { hops: d.probes[i + 1], data: d.probes[i + 2], acked: d.probes[i + 3], lead: d.probes[i + 1] - d.probes[i + 2] });
    }
    return { ...d, probeOf };
  }

  // Each channel's utilisation: flits carried per cycle since the last sample (the counters
  // wrap at 2^32, hence the unsigned difference), averaged over about HEAT_CYCLES cycles.
  sampleHeat() {
    const { channelFlits } = this.stateViews();
    const { heat, heatFlits } = this;
    const cycle = this.cycle();
    const cycles = cycle - this.heatCycle;
    if (cycles <= 0) return;
    const weight = 1 - Math.exp(-cycles / HEAT_CYCLES);
    for (let c = 0; c < heat.length; c++) {
      const carried = (channelFlits[c] - heatFlits[c]) >>> 0;
      heat[c] += weight * (carried / cycles - heat[c]);
      heatFlits[c] = channelFlits[c];
    }
    this.heatCycle = cycle;
  }

  frame(now) {
    const dt = Math.min(now - (this.lastFrame ?? now), 100);
    this.lastFrame = now;
    if (this.playing && this.explorer) {
      if (this.speed === Infinity) {
        this.startFast();
      } else if (this.fastBusy()) {
        this.stopFast();
      } else {
        const start = performance.now();
        const speed = this.currentSpeed();
        this.owed = Math.min(this.owed + (speed * dt) / 1000, speed);
        while (this.owed >= 1 && performance.now() - start < SLOW_BUDGET_MS) {
          this.explorer.step(1);
          this.sampleHeat();
          if (this.second) this.second.step(1);
          this.owed -= 1;
          this.dirty = true;
        }
      }
    }
    if (this.dirty && this.explorer) {
      this.draw();
      this.dirty = false;
    }
    if (now - (this.lastStatsAt ?? 0) > STATS_INTERVAL_MS) {
      this.lastStatsAt = now;
      if (this.explorer) {
        this.updateStats();
        this.showSpeed();
      }
    }
    requestAnimationFrame((t) => this.frame(t));
  }

  // Everything the torus view draws now (see TorusView.draw).
  drawState() {
    const v = this.stateViews();
    const d = this.drawData();
    const treeSource = this.beta > 0 && this.selected >= 0 ? this.selected : -1;
    if (treeSource < 0) this.tree = null;
    else if (!this.tree || this.tree.source !== treeSource) this.tree = { source: treeSource, channels: Array.from(this.explorer.broadcast_tree(treeSource)) };
    const stuckHeaders = this.stuckHeaders();
    return {
      classes: this.classes,
      deadlock: this.deadlock,
      tree: this.tree ? this.tree.channels : null,
      treeSource,
      backtracks: this.scouting ? this.collectMarks('backtracks') : [],
      deflections: this.chaos ? this.collectMarks('deflections') : [],
      followed: this.followed ? this.followed.id : FREE,
      trail: this.followed ? this.followed.trail : [],
      flits: v.flits,
      owner: v.owner,
      blocked: v.blocked,
      runs: d.runs,
      sources: d.sources,
      queues: d.queues,
      probeOf: d.probeOf,
      acks: d.acks,
      scout: this.scout,
      heat: this.heatValues(),
      buf: this.buf,
      showHeat: $('show-heat').checked,
      showLanes: $('show-lanes').checked,
      coordinates: $('show-coordinates').checked,
      selected: this.selected,
      hover: this.hover ?? -1,
      failedChannels: this.failedChannels,
      failedNodes: this.failedNodes,
      stuckHeaders,
      stuck: stuckHeaders.map((h) => h.vc),
    };
  }

  draw() {
    const state = this.drawState();
    const { backtracks, deflections, stuckHeaders: stuck } = state;
    this.view.draw(state);
    if (this.second) this.second.draw();
    const worms = this.view.drawn;
    this.drawn = {
      deadlock: this.deadlock,
      tree: this.tree,
      backtracks: backtracks.map((b) => ({ cycle: b.cycle, vc: b.vc, channel: Math.floor(b.vc / this.vcs) })),
      deflections: deflections.map((b) => ({ cycle: b.cycle, vc: b.vc, channel: Math.floor(b.vc / this.vcs) })),
      worms: worms.map((w) => ({
        id: w.id,
        lanes: w.chain.map((l) => l.vc),
        flits: w.chain.reduce((n, l) => n + (l.last >= 0 ? l.last - l.first + 1 : 0), 0),
        sourceFlits: w.from === 0 ? w.sourceFlits : 0,
        broadcast: w.broadcast,
        blocked: w.blocked,
        inRouter: w.inRouter,
        body: [w.from, w.dataTo ?? w.to, w.to],
        lead: w.probe ? w.probe.lead : 0,
      })),
      queues: state.queues ? Array.from(state.queues) : null,
      acks: state.acks ? state.acks.length / 3 : 0,
      geometry: { pitch: this.view.pitch, laneLength: this.view.pitch - 2 * this.view.half, wormWidth: this.view.wormWidth },
      failedChannels: this.failedChannels,
      failedNodes: this.failedNodes,
      stuck: stuck.map((h) => ({ vc: h.vc, fault: h.fault })),
    };
    if (this.followed || (this.second && this.second.followed)) this.showMessage();
    $('cycle-label').textContent = `cycle ${this.cycle().toLocaleString('en')}`;
    if (this.routerOf) this.showRouter();
  }

  // The accepted-against-offered chart shows each point's worst source beside its mean when the
  // scenario is past saturation: a preset that says so, or a rate at or past the saturation
  // the sweep found.
  updateSpread() {
    const claims = this.preset && this.preset.scenario === this.scenario ? this.preset.claims : null;
    const swept = this.sweep && this.sweep.done && this.sweep.scenario === this.scenario ? this.sweep.saturation() : null;
    const rate = Number(get(this.scenario, 'rate'));
    this.charts.setSpread(!!(claims && claims.point && claims.point.past) || (swept != null && rate >= swept));
  }

  // The heat the overlay draws: each channel's utilisation, 0 to 1 flit per cycle, on the same
  // scale (render.js heatColour) whichever the source: the measured one, or the channel-queue
  // model's prediction at the scenario's rate (in the simulator's channel order, as the
  // measured one), where the model applies.
  heatValues() {
    const predicted = this.predictedHeat();
    return $('heat-source').value === 'predicted' && predicted ? predicted : this.heat;
  }

  // The channel-queue model's predicted utilisation of every channel, or null where it does not
  // apply (or the report is not in yet).
  predictedHeat() {
    const r = this.modelReport;
    const u = r && r.scenario === this.scenario ? r.channel_utilisation_predicted : null;
    return u && u.length === this.heat.length ? u : null;
  }

  // Backtracks or deflections to mark now: those logged since the last look join the marks,
  // which expire MARK_CYCLES cycles after the event, or in fast mode (thousands of cycles
  // between frames) MARK_MS after they were first drawn.
  collectMarks(kind) {
    const f = this.fastFrame();
    const marks = this.marks[kind];
    const total = kind === 'backtracks' ? this.backtracks() : this.liveMisroutes();
    const fresh = total - marks.seen;
    marks.seen = total;
    const now = performance.now();
    if (fresh > 0) {
      const log = kind === 'backtracks'
        ? (f ? f.recentBacktracks : this.explorer.recent_backtracks())
        : (f ? f.recentDeflections : this.explorer.recent_deflections());
      for (let i = Math.max(0, log.length / 2 - fresh); i < log.length / 2; i++) {
        marks.list.push({ cycle: log[2 * i], vc: log[2 * i + 1], shown: now });
      }
    }
    const cycle = this.cycle();
    const age = (m) => (f ? (now - m.shown) / MARK_MS : (cycle - m.cycle) / MARK_CYCLES);
    marks.list = marks.list.filter((m) => age(m) < 1);
    return marks.list.map((m) => ({ ...m, age: Math.max(0, age(m)) }));
  }

  liveMisroutes() {
    const f = this.fastFrame();
    return f ? f.misroutes : this.explorer.misroutes();
  }

  // Canvas logical coordinates of a mouse event on simulation `sim`'s torus.
  canvasPoint(e, sim = this) {
    const r = sim.view.canvas.getBoundingClientRect();
    const scale = sim.view.canvasSize / r.width;
    return [(e.clientX - r.left) * scale, (e.clientY - r.top) * scale];
  }

  // A click inside a node's square shows its router (worms cross the routers they pass
  // through); elsewhere, a click on a worm follows that message, and off both nothing changes
  // but the end of following.
  clickCanvas(e) {
    const [x, y] = this.canvasPoint(e);
    if ($('fault-tool').checked) {
      this.toggleFault(x, y);
      return;
    }
    const node = this.view.nodeAt(x, y, -this.view.half * 0.15);
    if (node >= 0) {
      this.selectNode(node === this.selected ? -1 : node);
      return;
    }
    this.follow(this.view.messageAt(x, y));
  }

  // A click on the second torus does the same for that simulation: its router, or a message
  // of its own to follow.
  clickSecond(e) {
    const second = this.second;
    if (!second) return;
    const [x, y] = this.canvasPoint(e, second);
    const node = second.view.nodeAt(x, y, -second.view.half * 0.15);
    if (node >= 0) {
      this.selectNode(node === second.selected ? -1 : node, second);
      return;
    }
    this.follow(second.view.messageAt(x, y), second);
  }

  // Orientation: the node or channel under the mouse, by its coordinates (on either torus in
  // compare mode, each with its own tip).
  hoverCanvas(e, sim = this) {
    const [x, y] = this.canvasPoint(e, sim);
    const canvas = sim.view.canvas;
    const tip = canvas.parentElement.querySelector('.torus-tip');
    const { k, view } = sim;
    const at = (u) => `(${u % k}, ${Math.floor(u / k)})`;
    const node = view.nodeAt(x, y, view.pitch * 0.12);
    let text = '';
    if (node >= 0) {
      text = `node ${node} ${at(node)}`;
    } else {
      const c = view.channelAt(x, y);
      if (c >= 0) {
        const from = (c / 4) | 0;
        text = `channel ${at(from)} ${PORT_NAMES[c % 4]} → ${at(neighbour(from, c % 4, k))}`;
      }
    }
    if (node !== sim.hover) {
      sim.hover = node;
      this.dirty = true;
    }
    tip.hidden = text === '';
    if (!text) return;
    tip.textContent = text;
    const box = canvas.getBoundingClientRect();
    const parent = canvas.parentElement.getBoundingClientRect();
    const left = e.clientX - parent.left + 14;
    tip.style.left = `${Math.min(left, box.right - parent.left - tip.offsetWidth - 4)}px`;
    tip.style.top = `${e.clientY - parent.top + 16}px`;
  }

  leaveCanvas(sim = this) {
    sim.view.canvas.parentElement.querySelector('.torus-tip').hidden = true;
    if (sim.hover !== -1) {
      sim.hover = -1;
      this.dirty = true;
    }
  }

  // The fault tool: a click on a node fails it or repairs it, on a link that link. The scenario,
  // and so the link, changes, and the simulation starts again with the new faults.
  toggleFault(x, y) {
    const node = this.view.nodeAt(x, y);
    const link = node < 0 ? this.view.linkAt(x, y) : null;
    if (node < 0 && !link) return;
    const key = node >= 0 ? 'fnodes' : 'flinks';
    const item = node >= 0 ? String(node) : `${link.node}${'xy'[link.dim]}`;
    const listed = get(this.scenario, key).split(',').filter(Boolean);
    const status = $('fault-status');
    if (link && !listed.includes(item) && this.failedChannels.includes(link.node * 4 + 2 * link.dim)) {
      // Failed, but not by this list: drawn at random or with a failed node.
      status.textContent = `link ${item} failed at random (frandom) or with a node (fnodes); change those to repair it`;
      return;
    }
    const next = listed.includes(item) ? listed.filter((v) => v !== item) : [...listed, item];
    this.clearPreset();
    const error = this.apply(withKey(this.scenario, key, next.join(',')));
    status.textContent = error ? '' : `${node >= 0 ? 'node' : 'link'} ${item} ${listed.includes(item) ? 'repaired' : 'failed'}`;
  }

  // Follows message `id` of simulation `sim` (in compare mode the second's, or the page's own):
  // one message at a time, with one panel, so following one ends following any other.
  follow(id, sim = this) {
    for (const s of [this, this.second]) if (s) s.followed = null;
    sim.followed = id === FREE ? null : { id, since: sim.cycle(), trail: [], head: -1, gone: null };
    $('message').hidden = !sim.followed;
    this.dirty = true;
  }

  // Tracks the followed message's header (extending its trail) and describes it, on the torus
  // of the simulation that follows one.
  showMessage() {
    const sim = this.second && this.second.followed ? this.second : this;
    const f = sim.followed;
    const { blocked } = sim.stateViews();
    const vcs = sim.vcs;
    const k = sim.k;
    const w = (sim.view.drawn || []).find((x) => x.id === f.id);
    const cycle = sim.cycle();
    let state;
    if (!w) {
      if (f.gone === null) f.gone = cycle;
      state = f.trail.length ? `left the network by cycle ${f.gone.toLocaleString('en')}` : 'no longer in the network';
    } else {
      const head = w.header.vc;
      const c = (head / vcs) | 0;
      if (c !== f.head) {
        f.trail.push(c);
        f.head = c;
      }
      const at = neighbour((c / 4) | 0, c % 4, k);
      const flits = w.chain.reduce((n, l) => n + (l.last >= 0 ? l.last - l.first + 1 : 0), 0);
      state = `${w.broadcast ? 'a broadcast copy; ' : ''}header at node ${at} (${at % k}, ${Math.floor(at / k)}), arrived ${PORT_NAMES[c % 4]} in VC ${head % vcs}, ${w.header.first !== 0 ? 'moving' : blocked[head] === BLOCKED ? 'blocked' : blocked[head] === IN_ROUTER ? "in the router's pipeline (router delay)" : 'moving'}; ` +
        `${w.chain.length} VCs held, ${flits} flits in them${w.from === 0 && w.sourceFlits ? `, ${w.sourceFlits} still at the source` : ''}` +
        `${w.probe && w.probe.lead > 0 ? `; the probe is ${w.probe.lead} channels ahead of the data` : ''}`;
    }
    const which = this.second ? ` on ${$(sim === this ? 'torus-label' : 'torus-label-b').textContent}` : '';
    $('message-text').textContent = `Message #${f.id}${which} (followed since cycle ${f.since.toLocaleString('en')}; ` +
      `channels its header took since: ${f.trail.length}): ${state}.`;
  }

  // The router panel sits under the torus, never over it: it covers neither a followed worm
  // nor the broadcast tree a click draws.
  // In compare mode `sim` is the simulation whose router is shown (the page's own, or the
  // second); one router panel at a time.
  selectNode(node, sim = this) {
    for (const s of [this, this.second]) if (s) s.selected = -1;
    sim.selected = node;
    this.routerOf = node >= 0 ? sim : null;
    $('router').hidden = node < 0;
    // Filled now, not at the next frame drawn, so that the panel never opens empty (when paused
    // the next frame may be a while away on a busy machine).
    if (node >= 0) this.showRouter();
    this.dirty = true;
  }

  // The selected node's router: a row per input port, a column per virtual channel, each cell
  // the flits buffered, the message holding the VC and whether its header is blocked.
  showRouter() {
    const sim = this.routerOf || this;
    const { flits, owner, blocked } = sim.stateViews();
    const node = sim.selected;
    const { k, vcs, buf } = sim;
    const at = (u) => `(${u % k}, ${Math.floor(u / k)})`;
    // In compare mode the title names the simulation (by its torus's label).
    const which = this.second ? ` (${$(sim === this ? 'torus-label' : 'torus-label-b').textContent})` : '';
    $('router-title').textContent = `Router of node ${node} ${at(node)}${which}: input virtual channels`;
    const head = el('tr', {}, [el('th', {}, ['input from']), ...Array.from({ length: vcs }, (_, v) => el('th', {}, [`VC ${v}`]))]);
    const rows = [];
    for (let p = 0; p < 4; p++) {
      // The channel arriving through port p comes from the neighbour on the opposite side.
      const from = neighbour(node, p ^ 1, k);
      const c = from * 4 + p;
      const cells = [el('th', { scope: 'row' }, [`${at(from)} ${PORT_NAMES[p]}`])];
      for (let v = 0; v < vcs; v++) {
        const i = c * vcs + v;
        const o = owner[i];
        const header = blocked[i] === BLOCKED ? 'header blocked' : blocked[i] === IN_ROUTER ? 'header in the router delay' : 'moving';
        const state = o === FREE ? (flits[i] ? 'released (a tail still here)' : 'free') : header;
        const cell = el('td', {
          class: `vc ${o === FREE ? 'free' : blocked[i] === BLOCKED ? 'blocked' : 'busy'}`,
          title: `VC ${v} from ${at(from)}: ${flits[i]} of ${buf} flits buffered; ${o === FREE ? 'no message' : `message #${o}`}; ${state}`,
        }, [o === FREE && !flits[i] ? 'free' : `${o === FREE ? '' : `#${o} `}${flits[i]}/${buf}${blocked[i] === BLOCKED ? ' ▮' : blocked[i] === IN_ROUTER ? ' ◷' : ''}`]);
        if (o !== FREE) cell.style.borderLeftColor = messageColour(o);
        cells.push(cell);
      }
      rows.push(el('tr', {}, cells));
    }
    $('router-table').replaceChildren(el('thead', {}, [head]), el('tbody', {}, rows));
  }

  // The legend under the torus: one small drawing per thing the torus draws for this scenario.
  buildLegend() {
    const icon = (draw, width = 40) => {
      const canvas = el('canvas', { width: String(2 * width), height: '28', class: 'legend-icon', 'aria-hidden': 'true' });
      canvas.style.width = `${width}px`;
      const ctx = canvas.getContext('2d');
      ctx.scale(2, 2);
      ctx.lineCap = 'round';
      draw(ctx, width);
      return canvas;
    };
    const body = (ctx, w, colour = MESSAGE_COLOURS[0]) => {
      ctx.strokeStyle = 'rgba(17,17,17,0.75)';
      ctx.lineWidth = 7;
      ctx.beginPath(); ctx.moveTo(4, 7); ctx.lineTo(w - 8, 7); ctx.stroke();
      ctx.strokeStyle = colour;
      ctx.lineWidth = 5.4;
      ctx.beginPath(); ctx.moveTo(4, 7); ctx.lineTo(w - 8, 7); ctx.stroke();
      ctx.fillStyle = 'rgba(255,255,255,0.9)';
      ctx.strokeStyle = 'rgba(17,17,17,0.55)';
      ctx.lineWidth = 0.6;
      for (let x = 8; x < w - 10; x += 6) { ctx.beginPath(); ctx.arc(x, 7, 1.6, 0, 2 * Math.PI); ctx.fill(); ctx.stroke(); }
    };
    const head = (ctx, x, diamond = false, colour = MESSAGE_COLOURS[0]) => {
      ctx.fillStyle = colour;
      ctx.strokeStyle = '#111111';
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      if (diamond) { ctx.moveTo(x + 5, 7); ctx.lineTo(x, 12); ctx.lineTo(x - 5, 7); ctx.lineTo(x, 2); ctx.closePath(); } else ctx.arc(x, 7, 4, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    };
    // A bold cross outlined in white, as the torus crosses out a failed link or node.
    const cross = (ctx, x, y, a) => {
      for (const [stroke, w] of [['#ffffff', 4], ['#111111', 2]]) {
        ctx.strokeStyle = stroke; ctx.lineWidth = w;
        ctx.beginPath(); ctx.moveTo(x - a, y - a); ctx.lineTo(x + a, y + a); ctx.moveTo(x + a, y - a); ctx.lineTo(x - a, y + a); ctx.stroke();
      }
    };
    const item = (canvas, text) => {
      entries.push({ icon: canvas, text });
      return el('span', {}, [canvas, text]);
    };
    const entries = [];
    const heat = el('span', { class: 'swatch swatch-heat' });
    heat.style.background = `linear-gradient(90deg, ${HEAT_STOPS.map((c) => `rgb(${c.join(',')})`).join(', ')})`;
    const items = [
      item(icon((ctx, w) => { body(ctx, w); head(ctx, w - 6); }, 46), 'a message (worm): its body through the channels it holds, a tick per flit, its header at the front'),
      item(icon((ctx) => { head(ctx, 8); ctx.lineWidth = 3; ctx.beginPath(); ctx.moveTo(14, 1); ctx.lineTo(14, 13); ctx.stroke(); }, 20), 'header blocked'),
      el('span', {}, ['0 ', heat, ' 1 flit/cycle: channel utilisation (heat: measured, or as the model predicts)']),
      (entries.push({ heat: true, text: '0 … 1 flit/cycle: channel utilisation (heat: measured, or as the model predicts)' }), null),
      item(icon((ctx, w) => { ctx.strokeStyle = '#7a0177'; ctx.lineWidth = 10; ctx.beginPath(); ctx.moveTo(6, 7); ctx.lineTo(w - 6, 7); ctx.stroke(); }, 30), 'deadlock cycle'),
    ];
    if (this.scouting) {
      items.push(
        item(icon((ctx, w) => {
          body(ctx, 24);
          ctx.strokeStyle = MESSAGE_COLOURS[0]; ctx.lineWidth = 2.4; ctx.setLineDash([3, 2.5]);
          ctx.beginPath(); ctx.moveTo(18, 7); ctx.lineTo(w - 8, 7); ctx.stroke(); ctx.setLineDash([]);
          head(ctx, w - 6);
        }, 52), 'probe ahead of the data (reserved channels)'),
        item(icon((ctx) => {
          ctx.fillStyle = '#ffffff'; ctx.strokeStyle = '#111111'; ctx.lineWidth = 1;
          ctx.beginPath(); ctx.moveTo(5, 7); ctx.lineTo(13, 2); ctx.lineTo(10, 7); ctx.lineTo(13, 12); ctx.closePath(); ctx.fill(); ctx.stroke();
        }, 18), 'acknowledgement on its way back'),
        item(icon((ctx) => {
          ctx.strokeStyle = '#111111'; ctx.lineWidth = 2;
          ctx.beginPath(); ctx.moveTo(4, 10); ctx.lineTo(22, 10); ctx.arc(22, 6, 4, Math.PI / 2, -Math.PI / 2, true); ctx.lineTo(10, 2); ctx.stroke();
          ctx.fillStyle = '#111111'; ctx.beginPath(); ctx.moveTo(5, 2); ctx.lineTo(10, -1); ctx.lineTo(10, 5); ctx.closePath(); ctx.fill();
        }, 30), 'backtrack: the probe gave this lane up'),
      );
    }
    if (this.chaos) {
      items.push(
        item(icon((ctx) => {
          ctx.strokeStyle = '#666666'; ctx.lineWidth = 0.8;
          ['#E69F00', '#ffffff'].forEach((c, i) => { ctx.fillStyle = c; ctx.fillRect(2 + 9 * i, 3, 9, 8); ctx.strokeRect(2 + 9 * i, 3, 9, 8); });
        }, 22), "a node's shared queue: its packet slots"),
        item(icon((ctx) => {
          ctx.beginPath();
          for (let i = 0; i < 10; i++) { const a = (Math.PI / 5) * i - Math.PI / 2; const r = i % 2 ? 2.5 : 6; ctx.lineTo(9 + Math.cos(a) * r, 7 + Math.sin(a) * r); }
          ctx.closePath(); ctx.fillStyle = '#111111'; ctx.fill();
        }, 18), 'deflection (misroute)'),
      );
    }
    if (this.beta > 0) {
      items.push(
        item(icon((ctx, w) => { body(ctx, w, MESSAGE_COLOURS[1]); head(ctx, w - 6, true, MESSAGE_COLOURS[1]); }, 40), 'broadcast copy'),
        item(icon((ctx, w) => { ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.setLineDash([5, 3]); ctx.beginPath(); ctx.moveTo(2, 7); ctx.lineTo(w - 6, 7); ctx.stroke(); ctx.setLineDash([]); ctx.fillStyle = '#000'; ctx.beginPath(); ctx.moveTo(w - 1, 7); ctx.lineTo(w - 7, 3); ctx.lineTo(w - 7, 11); ctx.closePath(); ctx.fill(); }, 30), 'broadcast tree from the node you click'),
      );
    }
    if (this.hasFaults || $('fault-tool').checked) {
      items.push(
        item(icon((ctx, w) => {
          ctx.strokeStyle = '#555555'; ctx.lineWidth = 3; ctx.setLineDash([4, 4]);
          ctx.beginPath(); ctx.moveTo(2, 7); ctx.lineTo(w - 2, 7); ctx.stroke(); ctx.setLineDash([]);
          cross(ctx, w / 2, 7, 4);
        }, 30), 'failed link'),
        item(icon((ctx) => {
          ctx.fillStyle = '#555555'; ctx.strokeStyle = '#444444'; ctx.lineWidth = 1;
          ctx.fillRect(3, 1, 12, 12); ctx.strokeRect(3, 1, 12, 12);
          cross(ctx, 9, 7, 4);
        }, 18), 'failed node'),
        item(icon((ctx) => {
          head(ctx, 9);
          ctx.strokeStyle = '#111111'; ctx.lineWidth = 2; ctx.strokeRect(2, 0.5, 14, 13);
        }, 18), 'header stuck at a fault'),
      );
    }
    this.legendEntries = entries;
    $('legend').replaceChildren(...items.filter(Boolean));
    this.buildClassLegend();
  }

  // The routing algorithm's VC classes, grouped by name, each with a worm drawn in its pattern;
  // in compare mode the second simulation's after them where they differ. keepNote: the note
  // under the list stays as the model panel left it (the first scenario is unchanged).
  buildClassLegend(keepNote = false) {
    const list = (classes) => {
      const groups = new Map();
      (classes || []).forEach((c, v) => {
        if (!groups.has(c.name)) groups.set(c.name, { cls: c, vcs: [] });
        groups.get(c.name).vcs.push(v);
      });
      return [...groups.values()].map(({ cls, vcs }) => {
        const canvas = el('canvas', { width: '44', height: '12', class: 'class-swatch', 'aria-hidden': 'true' });
        const ctx = canvas.getContext('2d');
        const path = () => { ctx.moveTo(2, 6); ctx.lineTo(42, 6); };
        ctx.lineWidth = 8;
        ctx.strokeStyle = MESSAGE_COLOURS[1];
        ctx.beginPath();
        path();
        ctx.stroke();
        strokeClassPattern(ctx, cls, 8, path);
        const kind = cls.escape && cls.after_dateline ? 'escape, after a dateline' : cls.escape ? 'escape' : cls.after_dateline ? 'after a dateline' : '';
        return el('li', { 'data-vcs': vcs.join(','), 'data-kind': kind }, [canvas, `VC ${vcs.join(', ')}: ${cls.name}`]);
      });
    };
    const heading = (scenario, where) => {
      const routing = scenario ? get(scenario, 'routing') : '';
      return el('h2', { title: `routing=${routing}` }, [`Virtual channels of ${choiceLabel('routing', routing)}${where}`]);
    };
    const second = this.second;
    const both = second && JSON.stringify(second.classes) !== JSON.stringify(this.classes);
    const rows = list(this.classes);
    this.classEntries = rows.map((li) => ({ icon: li.firstChild, text: li.textContent }));
    const note = keepNote && $('vc-note') ? $('vc-note') : el('p', { id: 'vc-note', class: 'model-note', hidden: '' });
    const parts = [heading(this.scenario, both ? ' (left)' : ''), el('ul', {}, rows), note];
    if (both) {
      const secondRows = list(second.classes);
      const [first, label] = [$('torus-label').textContent, $('torus-label-b').textContent];
      for (const e of this.classEntries) e.text = `${first}: ${e.text}`;
      this.classEntries.push(...secondRows.map((li) => ({ icon: li.firstChild, text: `${label}: ${li.textContent}` })));
      parts.push(heading(second.scenario, ' (right)'), el('ul', { id: 'vc-classes-b' }, secondRows));
    }
    $('vc-classes').replaceChildren(...parts);
  }

  // The deadlock panel: the VCs of the wait-for cycle, each waiting for the next.
  showDeadlock() {
    const box = $('deadlock');
    const d = this.deadlock;
    box.hidden = !d;
    if (!d) {
      box.replaceChildren();
      return;
    }
    const k = this.k;
    const items = d.vcs.map((vc, i) => {
      const c = d.channels[i];
      const node = (c / 4) | 0;
      const to = neighbour(node, c % 4, k);
      return el('li', {}, [`channel from node (${node % k}, ${Math.floor(node / k)}) ${PORT_NAMES[c % 4]} to (${to % k}, ${Math.floor(to / k)}), VC ${vc % this.vcs}`]);
    });
    box.replaceChildren(
      el('h2', {}, ['Deadlock']),
      el('p', {}, [d.vcs.length
        ? `Nothing can move: these ${d.vcs.length} virtual channels wait for each other in a cycle (each for the next, the last for the first), highlighted on the torus.`
        : 'Nothing has moved for a long time, but no cycle of waiting virtual channels was found.']),
      el('ol', {}, items),
    );
  }

  // ---- statistics, sweep and runs ---------------------------------------------------

  // The live numbers, each with its unit; throughput in flits/node/cycle with its share of
  // capacity. An interval shows as "–" until the batches allow one. After a deadlock the
  // latency stops: no message can arrive, so there is none to measure.
  updateStats() {
    const s = this.liveStats();
    const rate = Number(get(this.scenario, 'rate'));
    if (s.deadlock && this.deadlockAt == null) this.deadlockAt = s.cycle;
    const deadlocked = this.deadlockAt != null;
    const live = this.chartLive(s, this.scenario, this.deadlockAt);
    const { latency, warmupLatency, ci } = live;
    const second = this.second;
    const t = second ? second.liveStats() : null;
    if (second) second.noteDeadlock(t);
    const secondLive = second ? this.chartLive(t, second.scenario, second.deadlockAt) : null;
    this.charts.setLive(live, secondLive);
    if (latency != null && this.liveSince == null) this.liveSince = performance.now();
    const warmup = this.warmup;
    const capacity = this.capacity;
    // Units may break after their slashes on a narrow column.
    const unit = (text) => text.replaceAll('/', '/\u200b');
    const model = this.models[0];
    const cycles = (x, d = 1) => `${x.toFixed(d)} cycles`;
    // [name, value, minor]: presentation mode leaves the minor ones out.
    const rows = [
      ['cycle', `${s.cycle.toLocaleString('en')}${s.measuring ? '' : warmup == null ? ' (warm-up, its end decided as it runs)' : ` (warm-up until cycle ${warmup.toLocaleString('en')})`}`],
      ['measured', `${s.messages_measured.toLocaleString('en')} messages`, true],
      ['mean latency', deadlocked ? `stopped: deadlocked at cycle ${this.deadlockAt.toLocaleString('en')}, no message can arrive`
        : latency != null ? `${latency.toFixed(1)} ± ${ci == null ? '–' : ci.toFixed(1)} cycles`
          : warmupLatency != null ? `– (warm-up: ${cycles(warmupLatency)}, not measured)` : '–'],
      ['model', model && this.modelReport ? (this.modelReport.latency == null ? 'past its saturation rate (no finite latency)' : cycles(this.modelReport.latency)) : '–'],
      ['offered', s.measuring ? unit(loadText(s.offered_flits_per_node_cycle, capacity)) : '–'],
      ['accepted', s.measuring ? unit(loadText(s.accepted_flits_per_node_cycle, capacity)) : '–'],
      ['worst source', s.measuring ? unit(flitsText(s.accepted_min_source)) : '–', true],
      ['network + queue', latency == null ? '–' : `${s.network_latency_mean.toFixed(1)} + ${s.source_queue_mean.toFixed(1)} cycles`, true],
      ['mean hops', latency == null ? '–' : `${s.hops_mean.toFixed(2)} channels`, true],
      ['in flight', `${s.flits_in_network.toLocaleString('en')} flits, ${s.messages_queued.toLocaleString('en')} messages queued`, true],
      ['rate λ', unit(`${rate} ${MESSAGES}`), true],
    ];
    if (this.scouting) rows.push(['backtracks', `${this.backtracks().toLocaleString('en')} backtracks`]);
    if (this.chaos) rows.push(['misroutes', `${s.misroutes.toLocaleString('en')} deflections`]);
    if (this.hasFaults) {
      const links = this.failedChannels.filter((c) => c % 2 === 0).length;
      rows.push(['faults', `${links} link${links === 1 ? '' : 's'}, ${this.failedNodes.length} node${this.failedNodes.length === 1 ? '' : 's'} failed`]);
      const where = new Map();
      for (const h of this.stuckHeaders()) where.set(h.fault, (where.get(h.fault) || 0) + 1);
      const at = [...where].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([fault, n]) => `${n} at ${fault}`);
      rows.push(['stuck at faults', `${s.stuck_at_faults.toLocaleString('en')} messages${at.length ? ` (${at.join(', ')}${where.size > 4 ? ', …' : ''})` : ''}`]);
      rows.push(['unreachable', `${s.messages_unreachable.toLocaleString('en')} messages`, true]);
      if (this.scouting && Number(get(this.scenario, 'misroute')) > 0) rows.push(['misroutes', `${s.misroutes.toLocaleString('en')} round faults`]);
    }
    const items = rows.flatMap(([k, v, minor]) => {
      const attrs = minor ? { class: 'minor' } : {};
      return [el('dt', attrs, [k]), el('dd', attrs, [v])];
    });
    if (s.deadlock) items.push(el('dt', { class: 'alarm' }, ['deadlock']), el('dd', { class: 'alarm' }, ['no flit has moved for 2,000 cycles: the network is deadlocked, and the latency stopped there']));
    if (s.saturated) items.push(el('dt', { class: 'alarm' }, ['saturated']), el('dd', { class: 'alarm' }, ['source queues passed their cap: the offered load is beyond saturation']));
    if (s.fault_stall) items.push(el('dt', { class: 'alarm' }, ['stalled at faults']), el('dd', { class: 'alarm' }, ['no flit has moved for a long time, and nothing waits in a cycle: every waiting worm waits behind a message stuck at a fault']));
    if (second) {
      // The second simulation's main numbers under its own heading; the first's above it.
      const l = secondLive;
      const r = second.modelReport;
      items.unshift(el('dt', { class: 'compare-head' }, [$('torus-label').textContent]));
      items.push(el('dt', { class: 'compare-head compare-head-b' }, [$('torus-label-b').textContent]),
        el('dt', {}, ['mean latency']), el('dd', {}, [second.deadlockAt != null ? `stopped: deadlocked at cycle ${second.deadlockAt.toLocaleString('en')}`
          : l.latency != null ? `${l.latency.toFixed(1)} ± ${l.ci == null ? '–' : l.ci.toFixed(1)} cycles`
            : l.warmupLatency != null ? `– (warm-up: ${cycles(l.warmupLatency)}, not measured)` : '–']),
        el('dt', {}, ['model']), el('dd', {}, [second.models[0] && r ? (r.latency == null ? 'saturated (no finite latency)' : cycles(r.latency)) : '–']),
        el('dt', {}, ['accepted']), el('dd', {}, [t.measuring ? unit(loadText(t.accepted_flits_per_node_cycle, capacity)) : '–']),
        el('dt', { class: 'minor' }, ['in flight']), el('dd', { class: 'minor' }, [`${t.flits_in_network.toLocaleString('en')} flits, ${t.messages_queued.toLocaleString('en')} messages queued`]));
      if (t.deadlock) items.push(el('dt', { class: 'alarm' }, ['deadlock']), el('dd', { class: 'alarm' }, ['the second network is deadlocked']));
    }
    $('live-numbers').replaceChildren(el('dl', {}, items));
    if (s.deadlock !== !!this.deadlock) {
      this.deadlock = s.deadlock ? this.deadlockCycle() : null;
      this.showDeadlock();
      this.dirty = true;
    }
  }

  // What the charts plot of a simulation's live numbers (Charts.setLive).
  chartLive(s, scenario, deadlockAt) {
    const deadlocked = deadlockAt != null;
    const latency = s.measuring && s.messages_measured > 0 && !deadlocked ? s.latency_mean : null;
    return {
      cycle: s.cycle,
      load: flitLoad(scenario),
      rate: Number(get(scenario, 'rate')),
      latency,
      warmupLatency: !s.measuring && s.warmup_messages > 0 && !deadlocked ? s.warmup_latency_mean : null,
      ci: latency != null && s.latency_ci95 > 0 ? s.latency_ci95 : null,
      deadlockAt,
      offered: s.measuring ? s.offered_flits_per_node_cycle : null,
      accepted: s.measuring ? s.accepted_flits_per_node_cycle : null,
      acceptedMin: s.measuring ? s.accepted_min_source : null,
    };
  }

  // The current scenario run whole in the worker, exactly as `torus run` (shared with run()).
  fullRun() {
    const scenario = this.scenario;
    if (!this.runPromise || this.runPromise.scenario !== scenario) {
      const promise = this.runner.run(scenario);
      promise.scenario = scenario;
      this.runPromise = promise;
      promise.then((report) => {
        if (this.scenario !== scenario) return;
        this.lastRun = report;
        this.charts.setRun(report);
        this.renderModel();
      }, (err) => console.warn(`run of ${scenario}: ${err.message}`));
    }
    return this.runPromise;
  }

  // ---- background work ---------------------------------------------------------------

  // For the current scenario, one after another over the worker pool: the models and their
  // curves, the load sweep (first points within seconds, see sweep.js), the whole run, then
  // the pinned scenarios' models and sweeps. A new scenario stops what is left of it.
  async background() {
    const generation = ++this.backgroundGeneration;
    const current = () => generation === this.backgroundGeneration;
    // A model build of the scenario before (up to a minute) gives way at once.
    this.runner.abandonStale();
    if (this.sweep) this.sweep.cancel();
    for (const pin of this.pins) if (pin.sweepRun && !pin.done) pin.sweepRun.cancel();
    this.mainDone = false;
    const scenario = this.scenario;
    this.sweepTimes = { started: performance.now(), first: null, done: null };
    this.liveSince = null;
    let report = null;
    try {
      report = await this.runner.report(scenario);
    } catch (err) {
      console.warn(`model of ${scenario}: ${err.message}`);
    }
    if (!current()) return;
    // The channel-queue model's curve can take the worker seconds (GOAL: a minute), so the
    // sweep never waits for it: it is drawn when it comes (addChannelQueueCurve).
    const models = report ? await this.modelCurves(scenario, report, { paperOnly: true }) : [];
    if (!current()) return;
    this.modelReport = report;
    this.models = models;
    this.modelOptions = {
      bound: report && report.bound_saturation_rate != null ? flitLoad(scenario, report.bound_saturation_rate) : null,
      latencyAtRate: report ? report.latency : null,
    };
    this.charts.setModels(models, this.modelOptions);
    this.updateZeroLoad();
    this.renderModel();
    const sweep = new Sweep(this.runner, scenario, {
      bound: report ? report.bound_saturation_rate : null,
      predicted: report && report.saturation_rate > 0 ? [report.saturation_rate] : [],
      capacity: this.capacity,
      onPoint: (p) => {
        if (this.sweepTimes.first == null) this.sweepTimes.first = performance.now();
        this.charts.addSweepPoint(p);
        this.updateZeroLoad();
      },
    });
    this.sweep = sweep;
    if (report) this.addChannelQueueCurve(scenario, report, current);
    await sweep.run();
    if (!current()) return;
    this.sweepTimes.done = performance.now();
    this.updateSpread();
    this.showPresetState();
    if (report && report.channel_queue && report.channel_queue.past_page_budget) await this.fullBudgetModel(scenario, current);
    if (!current()) return;
    await this.fullRun().catch(() => {});
    if (!current()) return;
    this.mainDone = true;
    this.runPins();
  }

  // The applicable model's curve (a paper's model where one applies, else the channel-queue
  // model), as a list: [{name, label, points, saturation}].
  // With paperOnly, nothing where only the channel-queue model applies.
  async modelCurves(scenario, report, { paperOnly = false } = {}) {
    if (!(report.model && report.saturation_rate > 0)) return [];
    if (paperOnly && report.model === OWN_MODEL) return [];
    return [await this.modelCurve(scenario, report.model, report.saturation_rate, 'curve')];
  }

  // One model's curve up to its saturation rate, points closer together towards it; `op` is the
  // worker's request for it, of `runner` (the pool, or the worker that holds the model).
  async modelCurve(scenario, name, saturation, op, stale = null, runner = this.runner) {
    const rates = Array.from({ length: MODEL_POINTS }, (_, i) => {
      const t = (i + 1) / MODEL_POINTS;
      return Number((saturation * 0.999 * (1 - (1 - t) * (1 - t))).toPrecision(6));
    });
    let curve = [];
    try {
      curve = await runner[op](scenario, rates, stale);
    } catch (err) {
      if (!(stale && stale())) console.warn(`${name} curve of ${scenario}: ${err.message}`);
    }
    return {
      name,
      label: `model: ${modelCite(name)}`,
      saturation,
      saturationLoad: flitLoad(scenario, saturation),
      points: rates.map((rate, i) => ({ rate, load: flitLoad(scenario, rate), latency: curve[i] })).filter((p) => p.latency != null),
    };
  }

  // The channel-queue model's curve, beside a paper's model's where one applies, drawn when the
  // worker has it: the sweep does not wait for it. `op` is the worker's request for it, of
  // `runner`.
  async addChannelQueueCurve(scenario, report, current, op = 'channelQueueCurve', runner = this.runner) {
    const own = report.channel_queue;
    if (!own || own.reason || !(own.saturation_rate > 0)) return;
    const curve = await this.modelCurve(scenario, OWN_MODEL, own.saturation_rate, op, () => !current(), runner);
    if (!current()) return;
    this.models = [...this.models, curve];
    this.charts.setModels(this.models, this.modelOptions);
    this.updateZeroLoad();
  }

  // Where the channel-queue model's routes were past the page's first budget (adaptive
  // routing on 16 × 16, say): once the sweep is done, the report and the curve with route graphs
  // as large as `torus model` builds, which takes the worker seconds to a minute; the model
  // panel says so meanwhile. Both from one worker, which keeps the model it built for the curve.
  async fullBudgetModel(scenario, current) {
    this.modelBuilding = scenario;
    this.renderModel();
    const runner = this.runner.pick();
    let full = null;
    try {
      full = await runner.reportFull(scenario, () => !current());
    } catch (err) {
      if (current()) console.warn(`model of ${scenario}: ${err.message}`);
    }
    if (this.modelBuilding === scenario) this.modelBuilding = null;
    if (!current()) return;
    if (full) {
      this.modelReport = full;
      this.modelOptions = { ...this.modelOptions, latencyAtRate: full.latency };
      this.charts.setModels(this.models, this.modelOptions);
    }
    this.renderModel();
    if (full) await this.addChannelQueueCurve(scenario, full, current, 'channelQueueCurveFull', runner);
  }

  // For compare mode's second scenario and the pins, after their sweeps: where no paper's model
  // applies and the channel-queue routes were past the page's first budget, the report and the
  // model's curve with the full budget; else null.
  // `stale` says when the answer is no longer wanted (see RunnerPool.abandonStale).
  async fullBudgetCurves(scenario, report, stale) {
    if (!(report && !report.model && report.channel_queue && report.channel_queue.past_page_budget)) return null;
    const runner = this.runner.pick();
    let full;
    try {
      full = await runner.reportFull(scenario, stale);
    } catch (err) {
      if (!stale()) console.warn(`model of ${scenario}: ${err.message}`);
      return null;
    }
    if (!(full.model === OWN_MODEL && full.saturation_rate > 0)) return null;
    return { report: full, models: [await this.modelCurve(scenario, OWN_MODEL, full.saturation_rate, 'channelQueueCurveFull', stale, runner)] };
  }

  // Zero-load latency of a scenario, for the top of the latency axis: M + the mean route
  // length the sweep's lowest point measured, else the models' latency at their lowest rate,
  // else M + the mean distance under uniform traffic.
  zeroLoadOf(scenario, models, sweep) {
    const len = Number(get(scenario, 'len'));
    const low = sweep.filter((p) => p.report && p.report.messages_measured > 0).sort((a, b) => a.rate - b.rate)[0];
    if (low) return len + low.report.hops_mean;
    const first = models.map((m) => m.points[0]).filter(Boolean).map((p) => p.latency);
    if (first.length) return Math.min(...first);
    return len + (Number(get(scenario, 'n')) * Number(get(scenario, 'k'))) / 4;
  }

  updateZeroLoad() {
    this.charts.setZeroLoad(this.zeroLoadOf(this.scenario, this.models, this.sweep && this.sweep.scenario === this.scenario ? this.sweep.points : []));
  }

  // ---- pinned scenarios --------------------------------------------------------------

  buildPinControls() {
    this.pinButton = el('button', { type: 'button', id: 'pin-curve', title: `Keep this scenario's sweep and model curve on the chart (up to ${MAX_PINS})` }, ['Pin curve']);
    this.pinButton.addEventListener('click', () => this.pinCurrent());
    const head = this.charts.latency.head;
    head.insertBefore(this.pinButton, head.children[1]);
  }

  // A pinned scenario, checked as a link's scenario is (throws the error naming the key).
  makePin(input) {
    const scenario = this.api.canonical(input);
    this.checkPageLimits(scenario);
    new this.api.Explorer(scenario).free();
    return { scenario, models: [], sweep: [], zeroLoad: null, done: false, label: '', colour: null };
  }

  pinCurrent() {
    if (this.pins.length >= MAX_PINS) {
      $('pin-status').textContent = `at most ${MAX_PINS} pinned curves: unpin one first`;
      return;
    }
    if (this.pins.some((p) => p.scenario === this.scenario)) {
      $('pin-status').textContent = 'this scenario is pinned already';
      return;
    }
    $('pin-status').textContent = '';
    const pin = this.makePin(this.scenario);
    // The sweep and curves already drawn come along when they are complete; otherwise the pin
    // computes its own (the same runs: they are deterministic).
    if (this.mainDone) {
      pin.models = this.models;
      pin.sweep = this.sweep.points.filter((p) => !p.failed);
      pin.done = true;
    }
    this.setPins([...this.pins, pin]);
  }

  unpin(index) {
    const pin = this.pins[index];
    if (!pin) return;
    if (pin.sweepRun) pin.sweepRun.cancel();
    this.setPins(this.pins.filter((p) => p !== pin));
  }

  setPins(pins) {
    for (const old of this.pins) if (!pins.includes(old) && old.sweepRun) old.sweepRun.cancel();
    const used = new Set(pins.map((p) => p.colour).filter(Boolean));
    for (const pin of pins) {
      if (!pin.colour) {
        pin.colour = PIN_COLOURS.find((c) => !used.has(c));
        used.add(pin.colour);
      }
    }
    this.pins = pins;
    this.runner.abandonStale();
    this.relabelPins();
    this.writeHash();
    this.showPresetState();
    if (this.mainDone) this.runPins();
  }

  // Each pin is labelled with what differs from the current scenario, leaving out the keys that
  // follow from its routing algorithm (its default VCs, buffer and shared queue).
  relabelPins() {
    for (const pin of this.pins) {
      const diff = differences(this.scenario, pin.scenario);
      const shown = diff.filter(([key]) => {
        if (!['vcs', 'buf', 'mq'].includes(key)) return true;
        const without = pin.scenario.split('&').filter((p) => p.split('=')[0] !== key).join('&');
        try {
          return this.api.canonical(without) !== pin.scenario;
        } catch {
          return true;
        }
      });
      pin.label = shown.map(([k, v]) => `${k}=${v}`).join(', ') || 'this scenario';
      // What students read in the legend and the list: "GOAL", not "routing=goal".
      pin.name = shown.map(([k, v]) => shortLabel(k, v)).join(', ') || 'this scenario';
      pin.zeroLoad = this.zeroLoadOf(pin.scenario, pin.models, pin.sweep);
    }
    this.charts.setPins(this.pins);
    this.renderPins();
  }

  renderPins() {
    const items = this.pins.map((pin, i) => {
      const remove = el('button', { type: 'button', 'aria-label': `Unpin ${pin.label}`, title: 'Unpin' }, ['×']);
      remove.addEventListener('click', () => this.unpin(i));
      const state = pin.done ? '' : ' (sweeping…)';
      const swatch = el('span', { class: 'pin-swatch' });
      // Through the CSSOM: the Content-Security-Policy forbids style attributes.
      swatch.style.background = pin.colour;
      return el('li', { 'data-scenario': pin.scenario, title: pin.label }, [swatch, `${pin.name}${state}`, remove]);
    });
    $('pins').replaceChildren(...items);
    this.pinButton.disabled = this.pins.length >= MAX_PINS;
  }

  // The pinned scenarios' models and sweeps that are missing, one pin after another, once the
  // current scenario's own work is done.
  runPins() {
    const generation = this.backgroundGeneration;
    if (this.pinsRunning === generation) return;
    this.pinsRunning = generation;
    const current = () => generation === this.backgroundGeneration;
    (async () => {
      for (;;) {
        const pin = this.pins.find((p) => !p.done);
        if (!pin || !current()) return;
        let report = null;
        try {
          report = await this.runner.report(pin.scenario);
        } catch (err) {
          console.warn(`model of ${pin.scenario}: ${err.message}`);
        }
        pin.models = report ? await this.modelCurves(pin.scenario, report) : [];
        pin.sweep = [];
        const sweep = new Sweep(this.runner, pin.scenario, {
          bound: report ? report.bound_saturation_rate : null,
          predicted: pin.models.map((m) => m.saturation),
          capacity: this.api.capacity_flits(pin.scenario),
          onPoint: (p) => {
            pin.sweep = sweep.points.filter((q) => !q.failed);
            this.relabelPins();
          },
        });
        pin.sweepRun = sweep;
        this.relabelPins();
        await sweep.run();
        if (sweep.cancelled) return;
        const full = await this.fullBudgetCurves(pin.scenario, report, () => !current() || !this.pins.includes(pin));
        if (!current()) return;
        if (full) pin.models = full.models;
        pin.done = true;
        pin.sweepRun = null;
        this.relabelPins();
      }
    })().finally(() => {
      if (this.pinsRunning === generation) this.pinsRunning = null;
    });
  }

  // The model panel: each model that applies (or why none does), its quantities beside the
  // simulator's measured ones from the whole run, each with its unit; the saturation
  // throughput, the bound and the accepted throughput in flits/node/cycle with their share of
  // capacity; where the model's set-up differs from the simulation's (its virtual channels,
  // say), a note that says so beside the legend's VCs.
  renderModel() {
    const r = this.modelReport;
    const box = $('model');
    if (!r) {
      box.replaceChildren(el('p', { class: 'muted' }, ['Evaluating the models…']));
      return;
    }
    // The predicted heat exists where the channel-queue model applies (not for chaos, scouting
    // or broadcasts).
    $('heat-source').disabled = !this.predictedHeat();
    const run = this.lastRun;
    const capacity = this.capacity;
    const num = (x, d = 4) => (x == null ? '–' : Number(x).toPrecision(d));
    // The share of the number as printed, as loadText does.
    const load = (x) => (x == null ? '–' : `${Number(x).toFixed(3)}${capacity > 0 ? ` (${percentText(Number(Number(x).toFixed(3)), capacity)})` : ''}`);
    const parts = [];
    const own = r.model && r.model !== OWN_MODEL && r.channel_queue && !r.channel_queue.reason ? r.channel_queue : null;
    if (r.model) {
      const paper = PAPERS[r.model];
      parts.push(el('h2', { title: `model ${r.model}` }, [`Model: ${modelCite(r.model)}`]), el('p', {}, [r.description]));
      const note = this.modelNote(r.model);
      if (note) parts.push(el('p', { class: 'model-note' }, [note]));
      if (note && $('vc-note')) {
        $('vc-note').textContent = `The model of ${paper.cite} has no virtual channels (see the model panel); the simulation uses the ${this.vcs} listed here.`;
        $('vc-note').hidden = false;
      }
      if (own) parts.push(el('p', {}, ['The project’s own channel-queue model applies too: its curve is drawn beside the paper’s, and its rows are marked “channel-queue”.']));
      // Where the scenario asks for a router organisation or message lengths the models do not
      // describe, the CLI's one line says how they read it.
      if (r.assumption) parts.push(el('p', { class: 'model-note model-assumption' }, [`${r.assumption[0].toUpperCase()}${r.assumption.slice(1)}.`]));
    } else {
      parts.push(el('h2', {}, ['No latency model applies']), el('p', {}, [r.reason]));
    }
    if (this.modelBuilding === this.scenario) {
      parts.push(el('p', { class: 'model-note model-building' }, [
        'Building the channel-queue model’s routes, up to 2 500 000 route states as the CLI does: a minute or more for GOAL, NBC or adaptive routing on a 16 × 16 torus…']));
    }
    const rows = [];
    const row = (name, model, measured, unit = '') => rows.push(el('tr', {}, [
      el('th', { scope: 'row' }, [name]), el('td', {}, [model]), el('td', {}, [measured]), el('td', { class: 'unit' }, [unit])]));
    const throughput = `${FLITS} (% of capacity)`;
    if (r.model) {
      const sim = run && run.messages_measured > 0 && !run.deadlock ? run.latency_mean : null;
      const ci = sim != null && run.latency_ci95 > 0 ? run.latency_ci95 : null;
      row('mean latency', r.saturated ? 'saturated' : num(r.latency), run && run.deadlock ? 'deadlocked' : sim == null ? '…' : `${num(sim)} ± ${ci == null ? '–' : num(ci, 2)}`, 'cycles');
      if (sim != null && r.latency != null) row('model error', `${(((r.latency - sim) / sim) * 100).toFixed(1)}`, '', '% of simulated');
      const swept = this.sweep && this.sweep.done && this.sweep.scenario === this.scenario ? this.sweep.saturation() : null;
      row('saturation throughput', load(flitLoad(this.scenario, r.saturation_rate)), swept == null ? '…' : `≈ ${load(flitLoad(this.scenario, swept))} (sweep)`, throughput);
      const q = r.quantities;
      const pv = Object.keys(q).filter((k) => /^P_v\[\d+\]$/.test(k)).sort((a, b) => parseInt(a.slice(4), 10) - parseInt(b.slice(4), 10));
      for (const k of pv) row(`${k}, ${k.slice(4, -1)} VCs busy`, num(q[k]), run ? num(run.busy_vc_probability[parseInt(k.slice(4), 10)]) : '…', 'probability');
      if ('V_bar' in q) row('V̄, multiplexing degree', num(q.V_bar), run ? num(run.multiplexing_degree) : '…', 'VCs sharing a channel');
      if ('blocking_probability' in q) row('blocking probability', num(q.blocking_probability), run ? num(run.blocking_probability) : '…', 'probability per hop');
      if ('W_s' in q) row('W_s, source wait', num(q.W_s), run ? num(run.source_queue_mean) : '…', 'cycles');
      if (own) {
        row('channel-queue: mean latency', own.saturated ? 'saturated' : num(own.latency), run && run.deadlock ? 'deadlocked' : sim == null ? '…' : `${num(sim)} ± ${ci == null ? '–' : num(ci, 2)}`, 'cycles');
        if (sim != null && own.latency != null) row('channel-queue: model error', `${(((own.latency - sim) / sim) * 100).toFixed(1)}`, '', '% of simulated');
        row('channel-queue: saturation throughput', load(flitLoad(this.scenario, own.saturation_rate)), swept == null ? '…' : `≈ ${load(flitLoad(this.scenario, swept))} (sweep)`, throughput);
      }
    }
    row('channel-load bound', load(r.bound_saturation_fraction_of_capacity == null ? null : r.bound_saturation_fraction_of_capacity * capacity), '', throughput);
    // A deadlocked run's throughputs are averaged over a window it never finished: not shown.
    const simulated = (x) => (!run ? '…' : run.deadlock ? 'deadlocked' : load(x));
    row('offered load', load(flitLoad(this.scenario)), simulated(run && run.offered_flits_per_node_cycle), throughput);
    row('accepted throughput', '', simulated(run && run.accepted_flits_per_node_cycle), throughput);
    parts.push(el('table', {}, [el('thead', {}, [el('tr', {}, [el('th', {}, ['quantity']), el('th', {}, ['model']), el('th', {}, ['simulated (whole run)']), el('th', {}, ['unit'])])]), el('tbody', {}, rows)]));
    if (r.bound && r.bound.note) parts.push(el('p', { class: 'muted' }, [`Bound: ${r.bound.note}.`]));
    if (r.model) {
      const all = Object.entries(r.quantities).map(([k, v]) => `${k} = ${num(v)}`).join(', ');
      parts.push(el('details', {}, [el('summary', {}, ['every model quantity']), el('p', {}, [all])]));
    }
    box.replaceChildren(...parts);
  }

  // Where a model's set-up differs from the simulation's in a way the legend shows: the
  // virtual channels.
  modelNote(model) {
    const paper = PAPERS[model];
    if (!paper || !paper.vcs) return null;
    return `${paper.vcs} The simulation uses ${this.vcs} per channel (VC 0–${this.vcs - 1}, listed under the torus).`;
  }

  run() {
    return this.fullRun();
  }

  results() {
    return {
      scenario: this.scenario,
      live: this.liveStats(),
      run: this.lastRun,
      model: this.modelReport,
      // Compare mode's second simulation: its scenario, live numbers and model, null outside it.
      compare: this.second ? { scenario: this.second.scenario, live: this.second.liveStats(), model: this.second.modelReport } : null,
      sweep: this.charts.sweep.map((p) => ({ scenario_rate: p.rate, ...p.report })),
      pins: this.pins.map((p) => ({
        scenario: p.scenario,
        label: p.label,
        sweep: p.sweep.map((q) => ({ scenario_rate: q.rate, ...q.report })),
      })),
    };
  }

  // When the background sweep of the current scenario started, drew its first point and
  // finished (performance.now() milliseconds, null until then), and its points so far.
  sweepStatus() {
    const t = this.sweepTimes || {};
    return {
      scenario: this.scenario,
      started: t.started ?? null,
      first: t.first ?? null,
      done: t.done ?? null,
      points: this.sweep ? this.sweep.points.length : 0,
      saturation: this.sweep ? this.sweep.saturation() : null,
      saturationLoad: this.sweep && this.sweep.saturation() != null ? flitLoad(this.scenario, this.sweep.saturation()) : null,
      liveSince: this.liveSince ?? null,
    };
  }

  // Export file names carry the scenario: its main keys, then what the file holds.
  fileStem() {
    const v = Object.fromEntries(pairs(this.scenario));
    const parts = [`k${v.k}`, v.routing, v.traffic, `rate${v.rate}`, `len${v.len}`, `vcs${v.vcs}`];
    if (v.switching === 'scouting') parts.push(`scout${v.scout}`);
    if (Number(v.beta) > 0) parts.push(`beta${v.beta}`);
    if (v.routing === 'chaos') parts.push(`mq${v.mq}`);
    parts.push(`seed${v.seed}`);
    return `torus-${parts.join('-')}`.replace(/[^A-Za-z0-9._-]/g, '_');
  }

  exportJson() {
    download(new Blob([JSON.stringify(this.results(), null, 2)], { type: 'application/json' }), `${this.fileStem()}-results.json`);
  }

  // The sweep as a wide table, one row per point, the model's latency at the point's rate
  // beside it; the pinned scenarios' sweeps follow, each row naming its scenario.
  async sweepTable() {
    const columns = ['scenario', 'label', 'rate_messages_per_node_cycle', 'offered_load_flits_per_node_cycle', 'latency_mean_cycles',
      'latency_ci95_cycles', 'accepted_flits_per_node_cycle', 'accepted_min_source_flits_per_node_cycle', 'saturated', 'model', 'model_latency_cycles'];
    const sets = [{ scenario: this.scenario, label: 'this scenario', models: this.models, sweep: this.charts.sweep },
      ...this.pins.map((p) => ({ scenario: p.scenario, label: p.label, models: p.models, sweep: p.sweep }))];
    const rows = [];
    for (const set of sets) {
      const points = set.sweep.filter((p) => p.report);
      const model = set.models[0];
      let latencies = [];
      if (model && points.length) {
        try {
          latencies = await this.runner.curve(set.scenario, points.map((p) => p.rate));
        } catch (err) {
          console.warn(`model curve of ${set.scenario}: ${err.message}`);
        }
      }
      points.forEach((p, i) => {
        const r = p.report;
        rows.push([set.scenario, set.label, p.rate, Number(p.load.toPrecision(6)), r.messages_measured > 0 ? r.latency_mean : '',
          r.latency_ci95 > 0 ? r.latency_ci95 : '', r.accepted_flits_per_node_cycle, r.accepted_min_source, p.saturated ? 1 : 0,
          model ? model.name : '', latencies[i] ?? '']);
      });
    }
    return { columns, rows };
  }

  async exportCsv() {
    const { columns, rows } = await this.sweepTable();
    const q = (v) => (typeof v === 'number' ? String(v) : `"${String(v).replaceAll('"', '""')}"`);
    const lines = [columns.join(','), ...rows.map((r) => r.map(q).join(','))];
    download(new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' }), `${this.fileStem()}-sweep.csv`);
  }

  // The torus for a slide: drawn again at twice the resolution, under a title, over its legend
  // (and the routing's virtual channels) and the scenario. In compare mode both tori side by
  // side, each under its label in its colour, and both scenarios.
  exportTorusPng() {
    const scale = 2;
    const tori = [this, ...(this.second ? [this.second] : [])].map((sim, i) => {
      const canvas = document.createElement('canvas');
      const view = new TorusView(canvas, { scale });
      view.setGeometry(sim.k, sim.vcs, sim.buf);
      view.draw(sim.drawState());
      return { canvas, scenario: sim.scenario, label: $(i === 0 ? 'torus-label' : 'torus-label-b').textContent, colour: i === 0 ? FIRST_COLOUR : COMPARE_COLOUR };
    });
    const comparing = tori.length > 1;
    const canvas = tori[0].canvas;
    const pad = 14 * scale;
    const width = tori.length * canvas.width + (tori.length - 1) * pad + 2 * pad;
    const measure = document.createElement('canvas').getContext('2d');
    const font = `${12 * scale}px sans-serif`;
    const small = `${10.5 * scale}px sans-serif`;
    measure.font = font;
    const iconW = (e) => (e.heat ? 48 * scale : e.icon ? e.icon.width : 0);
    const entries = [...(this.legendEntries || []), ...(this.classEntries || [])];
    const rowsOf = (items, font) => {
      measure.font = font;
      const rows = [];
      for (const e of items) {
        const w = iconW(e) + 6 * scale + measure.measureText(e.text).width + 14 * scale;
        const row = rows[rows.length - 1];
        if (row && row.w + w <= width - 2 * pad) {
          row.items.push({ e, w });
          row.w += w;
        } else rows.push({ items: [{ e, w }], w });
      }
      return rows;
    };
    const legendRows = rowsOf(entries, font);
    const scenarioLines = [];
    measure.font = small;
    for (const t of tori) {
      scenarioLines.push(...wrapScenario(measure, comparing ? `${t.label}: ` : 'scenario: ', t.scenario, width - 2 * pad));
    }
    // The title, broken between its parts where it is wider than the picture (squeezed into
    // one line it reads as condensed type).
    const titleFont = `bold ${15 * scale}px sans-serif`;
    measure.font = titleFont;
    const v = Object.fromEntries(pairs(this.scenario));
    const titleParts = [`${v.k} × ${v.k} torus, `, ...(comparing ? [] : [`${choiceLabel('routing', v.routing)}, `]), `${choiceLabel('traffic', v.traffic)} traffic, `,
      `${loadText(flitLoad(this.scenario), this.capacity)}${comparing ? ',' : ''} `,
      ...(comparing ? [`${tori[0].label} (left) `, `against ${tori[1].label} (right) `] : []), `— cycle ${this.cycle().toLocaleString('en')}`];
    const titleLines = [''];
    for (const part of titleParts) {
      const last = titleLines.length - 1;
      if (titleLines[last] && measure.measureText(`${titleLines[last]}${part}`.trimEnd()).width > width - 2 * pad) titleLines.push(part);
      else titleLines[last] += part;
    }
    const titleH = 20 * scale;
    const lineH = 18 * scale;
    const labelH = comparing ? lineH : 0;
    const out = document.createElement('canvas');
    out.width = width;
    out.height = pad + titleLines.length * titleH + 4 * scale + labelH + canvas.height + pad / 2 + legendRows.length * lineH + pad / 2 + scenarioLines.length * 14 * scale + pad;
    const ctx = out.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = '#111111';
    ctx.textBaseline = 'top';
    ctx.font = titleFont;
    titleLines.forEach((line, i) => ctx.fillText(line.trimEnd(), pad, pad + i * titleH, width - 2 * pad));
    let y = pad + titleLines.length * titleH + 4 * scale;
    tori.forEach((t, i) => {
      const x = pad + i * (canvas.width + pad);
      if (comparing) {
        // Each torus's label over it, after a bar in its colour on the charts.
        ctx.fillStyle = t.colour;
        ctx.fillRect(x, y + 2 * scale, 5 * scale, lineH - 6 * scale);
        ctx.fillStyle = '#111111';
        ctx.font = `bold ${13 * scale}px sans-serif`;
        ctx.fillText(t.label, x + 10 * scale, y + 2 * scale, canvas.width - 10 * scale);
      }
      ctx.drawImage(t.canvas, x, y + labelH);
    });
    y += labelH + canvas.height + pad / 2;
    ctx.textBaseline = 'middle';
    ctx.font = font;
    for (const row of legendRows) {
      let x = pad;
      for (const { e, w } of row.items) {
        if (e.heat) {
          const g = ctx.createLinearGradient(x, 0, x + 48 * scale, 0);
          HEAT_STOPS.forEach((c, i) => g.addColorStop(i / (HEAT_STOPS.length - 1), `rgb(${c.join(',')})`));
          ctx.fillStyle = g;
          ctx.fillRect(x, y + lineH / 2 - 5 * scale, 48 * scale, 10 * scale);
          ctx.strokeStyle = '#999999';
          ctx.strokeRect(x, y + lineH / 2 - 5 * scale, 48 * scale, 10 * scale);
        } else if (e.icon) {
          ctx.drawImage(e.icon, x, y + lineH / 2 - e.icon.height / 2);
        }
        ctx.fillStyle = '#111111';
        ctx.fillText(e.text, x + iconW(e) + 6 * scale, y + lineH / 2);
        x += w;
      }
      y += lineH;
    }
    y += pad / 2;
    ctx.textBaseline = 'top';
    ctx.font = small;
    ctx.fillStyle = '#444444';
    for (const l of scenarioLines) {
      ctx.fillText(l, pad, y);
      y += 14 * scale;
    }
    out.toBlob((blob) => download(blob, `${this.fileStem()}-torus.png`));
    return out;
  }
}

async function main() {
  const { api, memory, module } = await loadWasm();
  const app = new App(api, memory, new RunnerPool(module), module);
  app.openLink(location.hash.slice(1), { initial: true });
  const secondOf = (i) => {
    if (Number(i) !== 1 || !app.second) throw new Error(`no simulation ${i}: ${app.second ? 'use 0 or 1' : 'not in compare mode, use 0'}`);
    return app.second;
  };
  window.torusExplorer = {
    scenario: () => app.scenario,
    setScenario(s) {
      const error = app.apply(String(s));
      if (error) throw new Error(error);
      return app.scenario;
    },
    play: () => app.play(),
    pause: () => app.pause(),
    step: (cycles = 1) => app.step(Math.max(1, Math.floor(Number(cycles)) || 1)),
    // Simulation i: 0 the first, 1 compare mode's second.
    stats: (i = 0) => (Number(i) === 0 ? app.liveStats() : secondOf(i).liveStats()),
    run: (i = 0) => (Number(i) === 0 ? app.run() : app.runner.run(secondOf(i).scenario)),
    scenarios: () => [app.scenario, ...(app.second ? [app.second.scenario] : [])],
    compare(s) {
      const error = app.setCompare(s == null ? null : String(s));
      if (error) throw new Error(error);
      return [app.scenario, ...(app.second ? [app.second.scenario] : [])];
    },
    presets: () => PRESETS.map((p) => ({ title: p.title, scenario: p.scenario, compare: p.compare ?? null })),
    loadPreset: (i) => app.loadPreset(i),
    results: () => app.results(),
    workers: () => app.runner.size,
    // What the last frame drew besides the worms: the deadlock cycle, the broadcast tree, the
    // backtracks marked, the failed channels and nodes and the headers stuck at them.
    overlays: () => app.drawn,
    // Where a node's centre is on the screen (CSS pixels, as a mouse event's clientX/clientY).
    nodeCentre: (node) => {
      const r = document.getElementById('torus').getBoundingClientRect();
      const [x, y] = app.view.nodeCentre(node);
      return { x: r.left + (x / app.view.canvasSize) * r.width, y: r.top + (y / app.view.canvasSize) * r.height };
    },
    deadlockCycle: () => app.deadlockCycle(),
    stuckHeaders: () => app.stuckHeaders(),
    vcClasses: (i = 0) => JSON.parse((Number(i) === 0 ? app : secondOf(i)).explorer.vc_classes()),
    broadcastTree: (source) => Array.from(app.explorer.broadcast_tree(source)),
    // Shows node's router; i = 1 the second simulation's in compare mode.
    selectNode: (node, i = 0) => app.selectNode(node, Number(i) === 0 ? app : secondOf(i)),
    // Follows message id; i = 1 on the second simulation in compare mode.
    follow: (id, i = 0) => app.follow(id, Number(i) === 0 ? app : secondOf(i)),
    // The message followed on simulation i, or -1 (FREE) for none.
    followed: (i = 0) => { const f = (Number(i) === 0 ? app : secondOf(i)).followed; return f ? f.id : FREE; },
    channelFlits: () => Array.from(app.stateViews().channelFlits),
    heat: () => Array.from(app.heat),
    // What the heat overlay draws: the measured utilisation, or the predicted one when chosen.
    heatShown: () => Array.from(app.heatValues()),
    charts: () => app.charts.describe(),
    pin: () => app.pinCurrent(),
    unpin: (i) => app.unpin(i),
    pins: () => app.pins.map((p) => ({ scenario: p.scenario, label: p.label, name: p.name, done: p.done, points: p.sweep.length })),
    present: (on = true) => app.setPresenting(!!on),
    sweepStatus: () => app.sweepStatus(),
  };
  if (!reducedMotion) app.play();
  requestAnimationFrame((t) => app.frame(t));
}

main().catch((err) => {
  const box = $('error');
  box.replaceChildren(el('strong', {}, ['The simulator could not start. ']), document.createTextNode(String(err && err.message ? err.message : err)));
  box.hidden = false;
});
