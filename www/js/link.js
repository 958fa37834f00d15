// A link's hash: the canonical scenario string (the same string the CLI takes), then the page's
// own options, each a key=value pair of its own:
//
//   pin=key:value,key:value   a pinned scenario, as the keys where it differs from the scenario
//                             (up to MAX_PINS; `pin=` alone pins the scenario itself)
//   view=present              presentation mode
//   compare=key:value,...     compare mode: a second simulation beside the first, the scenario
//                             with the keys named replaced (as a pin's value)
//
// No scenario key is called `pin`, `view` or `compare`, so every link written before these options
// parses exactly as it did; a pinned scenario is checked by the same parser as the scenario.
export const MAX_PINS = 4;

function decode(value) {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// Splits a hash (without '#') into the scenario string, the pins' values and the view; `errors`
// names what the page could not read among its own options.
export function parseLink(hash) {
  const scenario = [];
  const pins = [];
  const errors = [];
  let present = false;
  let compare = null;
  for (const part of hash.split('&')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? null : part.slice(eq + 1);
    if (key === 'pin') {
      pins.push(decode(value ?? ''));
    } else if (key === 'compare') {
      compare = decode(value ?? '');
    } else if (key === 'view') {
      if (value === 'present') present = true;
      else errors.push(`view: expected view=present, got "${decode(value ?? '').slice(0, 40)}"`);
    } else {
      scenario.push(part);
    }
  }
  if (pins.length > MAX_PINS) errors.push(`pin: at most ${MAX_PINS} pinned curves, got ${pins.length}; the page kept the first ${MAX_PINS}`);
  return { scenario: scenario.join('&'), pins: pins.slice(0, MAX_PINS), present, compare, errors };
}

// The pinned scenario a pin's value describes: the scenario's keys, with those the value names
// replaced (an unknown or repeated key stays in, for the parser to name).
export function pinScenario(canonical, value) {
  const changes = value === '' ? [] : value.split(',').map((kv) => {
    const i = kv.indexOf(':');
    return i < 0 ? [kv, ''] : [kv.slice(0, i), kv.slice(i + 1)];
  });
  const named = new Set(changes.map(([k]) => k));
  return [
    ...canonical.split('&').filter((p) => !named.has(p.split('=')[0])),
    ...changes.map(([k, v]) => `${k}=${v}`),
  ].join('&');
}

// The keys of `pin` (canonical) that differ from `canonical`, as [key, value] pairs.
export function differences(canonical, pin) {
  const base = new Map(canonical.split('&').map((p) => p.split('=')));
  return pin.split('&').map((p) => p.split('=')).filter(([k, v]) => base.get(k) !== v);
}

// A pin's value in a link.
export function pinValue(canonical, pin) {
  return differences(canonical, pin).map(([k, v]) => `${k}:${v}`).join(',');
}

// `compareValue`: the second simulation's value (pinValue), null outside compare mode.
export function writeLink(canonical, pinValues, present, compareValue = null) {
  return [canonical, ...pinValues.map((v) => `pin=${v}`), ...(compareValue == null ? [] : [`compare=${compareValue}`]),
    ...(present ? ['view=present'] : [])].join('&');
}
