// The page's one unit system: offered load and throughput in flits/node/cycle, with the
// fraction of capacity beside them where it helps. The scenario key `rate` stays λ in
// messages/node/cycle (links are contracts), and this module is the one place that converts
// between the two.
//
// A node generates λ messages per cycle, each M flits; a broadcast (a fraction β of them) is
// delivered as one copy of M flits to each of the other N − 1 nodes, so a node offers
//     λ · M · (1 − β + β · (N − 1)) = λ · M · (1 + β · (N − 2))   flits per cycle.

export const FLITS = 'flits/node/cycle';
export const MESSAGES = 'messages/node/cycle';

function keys(scenario) {
  if (typeof scenario !== 'string') return scenario;
  return Object.fromEntries(scenario.split('&').map((p) => p.split('=')));
}

// Flits a node offers per message it generates, for a scenario (a canonical string or its
// key → value object).
export function flitsPerMessage(scenario) {
  const s = keys(scenario);
  const nodes = Number(s.k) ** Number(s.n);
  return Number(s.len) * (1 + Number(s.beta) * (nodes - 2));
}

// The offered load in flits/node/cycle of a scenario at `rate` messages/node/cycle (by default
// its own rate).
export function flitLoad(scenario, rate = Number(keys(scenario).rate)) {
  return rate * flitsPerMessage(scenario);
}

// The rate key (messages/node/cycle) that offers `flits` flits/node/cycle, to six significant
// digits, so that a link stays short.
export function messageRate(scenario, flits) {
  return Number((flits / flitsPerMessage(scenario)).toPrecision(6));
}

// A throughput in flits/node/cycle, and the same as a percentage of capacity, for text.
export function flitsText(x, digits = 3) {
  return x == null || !Number.isFinite(x) ? '–' : `${x.toFixed(digits)} ${FLITS}`;
}

// A share of capacity in per cent: whole per cents, but one decimal below 1 % so that a light
// load does not read "0 %".
export function percentText(x, capacity) {
  if (x == null || !Number.isFinite(x) || !(capacity > 0)) return '';
  const share = (100 * x) / capacity;
  return `${share > 0 && share < 0.95 ? share.toFixed(1) : Math.round(share)} %`;
}

export function capacityText(x, capacity) {
  const share = percentText(x, capacity);
  return share ? `${share} of capacity` : '';
}

// "0.150 flits/node/cycle (15 % of capacity)". The share is of the number as printed, so that
// two equal numbers on one screen never carry different shares.
export function loadText(x, capacity, digits = 3) {
  const share = capacityText(x == null ? x : Number(x.toFixed(digits)), capacity);
  return `${flitsText(x, digits)}${share ? ` (${share})` : ''}`;
}
