// Words for students: what each control and each choice is, with the scenario key it sets
// (shown in a tooltip), and a short glossary for the help. A name the simulator knows and this
// file does not (a new routing algorithm, say) is shown by its key.

// Each scenario key's control: its label, what it is, and when it applies (a control that
// does not apply to the chosen routing or switching is hidden; its value still goes into the
// link).
// The delays run on the input-queued wormhole router with fixed lengths.
export function delaysApply(v) {
  return v.routing !== 'chaos' && v.switching === 'wormhole' && (v.router ?? 'iq') === 'iq' && (v.lengths ?? 'fixed') === 'fixed';
}

export const CONTROLS = {
  k: { label: 'radix k (k × k nodes)', help: 'nodes along each ring of the torus' },
  n: { label: 'dimensions n', help: 'the page draws two-dimensional tori; the torus command line runs n = 1 to 3' },
  routing: { label: 'routing algorithm', help: 'how a header chooses its next channel' },
  switching: { label: 'switching', help: 'how a message reserves its path: wormhole, or scouting with a probe ahead of the data' },
  scout: { label: 'probe lead K (hops)', help: 'how far the scouting probe may run ahead of the data', when: (v) => v.switching === 'scouting' },
  traffic: { label: 'traffic pattern', help: 'where each node sends its messages' },
  rate: { label: 'offered load', help: 'the load each node offers; the link keeps it as the rate λ in messages/node/cycle' },
  len: { label: 'message length M (flits)', help: 'flits per message; a flit crosses a channel in one cycle' },
  vcs: { label: 'virtual channels per link', help: 'lanes sharing each channel, each with its own buffer', when: (v) => v.routing !== 'chaos' },
  buf: { label: 'buffer per virtual channel (flits)', help: 'flits each virtual channel can hold' },
  beta: { label: 'broadcast fraction β', help: 'the fraction of messages sent to every node' },
  seed: { label: 'random seed', help: 'the same seed gives the same run, in the page and in the command line' },
  warmup: { label: 'warm-up (cycles)', help: 'cycles run before measuring, so that the network reaches its steady state; auto: until the messages in the network level off' },
  cycles: { label: 'cycles measured', help: 'how long the measurement window lasts; auto: until the mean latency is known to within the target below' },
  unsafe: { label: 'allow deadlock (fewer VCs)', help: 'allows fewer virtual channels than deadlock freedom needs', when: (v) => v.routing !== 'chaos' },
  mq: { label: 'shared-queue slots (packets)', help: "packets each Chaos router's shared queue holds", when: (v) => v.routing === 'chaos' },
  qcap: { label: 'source-queue cap (messages)', help: 'messages a source queue holds; a full queue holds arrivals back' },
  flinks: { label: 'failed links', help: 'links that carry nothing, each a node and a dimension, as in 27x,35y (the link from node 27 to its +x neighbour); the fault tool edits this list' },
  fnodes: { label: 'failed nodes', help: 'nodes that neither send nor receive, as in 12,40; their links fail with them' },
  frandom: { label: 'random link faults', help: 'a count (5) or a fraction of the links (0.05) failed at random, drawn from the seed' },
  misroute: { label: 'misroutes round faults', help: 'how many times a scouting header may leave its minimal paths to get round a fault', when: (v) => v.switching === 'scouting' },
  ci: { label: 'latency target (share of the mean)', help: "when cycles is auto, the window runs until the 95 % interval of the mean latency is within this share of it" },
  router: {
    label: 'router organisation',
    help: 'how each router buffers and switches flits: the input-queued router, or it with a feature that lifts one of its limits',
    when: (v) => v.routing !== 'chaos' && v.switching === 'wormhole',
  },
  lengths: {
    label: 'message lengths',
    help: 'fixed (every message M flits), geometric with mean M, or uniform:A-B (mean M = (A + B) / 2)',
    when: (v) => v.routing !== 'chaos' && v.switching === 'wormhole' && Number(v.beta) === 0,
  },
  rng: {
    label: 'random-number samplers',
    help: 'how arrival times and geometric lengths are drawn from the seed: 1, as every link before this choice; 2, the rand_distr library\'s samplers (same statistics, other draws)',
  },
  rdelay: {
    label: 'router delay (cycles)',
    help: "extra cycles a header spends in each router before it is routed: the router's pipeline",
    when: delaysApply,
  },
  ldelay: {
    label: 'link delay (cycles)',
    help: 'extra cycles every flit and every credit takes to cross a link',
    when: delaysApply,
  },
  cdelay: {
    label: 'credit delay (cycles)',
    help: 'extra cycles before a credit back at the sender can be used; a buffer shorter than 2 + 2 × link delay + credit delay slows its channel',
    when: delaysApply,
  },
  hot: {
    label: 'hot nodes',
    help: 'the hot-spot destinations, as in 9,40; empty for the five around the centre',
    when: (v) => v.traffic === 'hotspot',
  },
  hotfrac: {
    label: 'share of messages to hot nodes',
    help: 'the fraction of messages sent to a hot node; auto makes each hot node five times as likely as any other destination',
    when: (v) => v.traffic === 'hotspot',
  },
  pseed: {
    label: 'permutation seed',
    help: 'the seed the random permutation is drawn from; auto draws it from the random seed, a number keeps one permutation whatever the seed',
    when: (v) => v.traffic === 'permutation',
  },
  matrix: {
    label: 'traffic matrix file',
    help: 'a CSV file of N × N weights, read by the torus command line; the page cannot read files',
    when: (v) => v.traffic === 'matrix',
  },
  inject: {
    label: 'arrivals',
    help: 'when a node\'s messages arrive, at the same mean rate: poisson (at random times), bernoulli (at most one a cycle), or onoff:ON-OFF (bursts of ON cycles on average, silences of OFF)',
  },
};

// The choices of the enumerated keys: what each is, then its key in brackets where the key is
// an abbreviation students will meet in papers.
export const CHOICES = {
  routing: {
    dor: 'dimension-order routing (DOR)',
    duato: "Duato's fully adaptive, escape channels",
    nbc: 'Duato-Nbc, negative-hop escape channels',
    adaptive: 'minimal fully adaptive, x first',
    minad: 'minimal adaptive (MIN AD)',
    goal: 'globally oblivious adaptive locally (GOAL)',
    val: "Valiant's randomised routing (VAL)",
    romm: 'randomised minimal two-phase (ROMM)',
    rlb: 'randomised local balance (RLB)',
    chaos: 'Chaos router, deflection (CHAOS)',
  },
  switching: {
    wormhole: 'wormhole',
    scouting: 'scouting (probe runs ahead)',
  },
  traffic: {
    uniform: 'uniform random',
    neighbor: 'nearest neighbour',
    bitcomp: 'bit complement',
    transpose: 'transpose',
    tornado: 'tornado (k/2 − 1 along x)',
    diagonal: 'diagonal',
    permutation: 'random permutation',
    hotspot: 'hot spot',
    worstcase: 'worst case for the routing',
    bitrev: 'bit reversal (k a power of two)',
    shuffle: 'perfect shuffle (k a power of two)',
    matrix: 'traffic matrix from a file (command line only)',
  },
  router: {
    iq: 'input-queued, FIFO buffers',
    maxmatch: 'input-queued, maximum switch matching',
    damq: 'input-queued, any whole packet may leave first (DAMQ)',
    speedup2: 'switch speedup 2, output queues',
    wide: 'wide terminals (2n injection channels)',
    'damq+speedup2+wide': 'DAMQ, speedup 2, wide terminals (GOAL paper)',
  },
  rng: {
    1: '1: inversion (links before rng=)',
    2: '2: rand_distr samplers',
  },
};

export function choiceLabel(key, value) {
  return (CHOICES[key] && CHOICES[key][value]) || value;
}

// A choice's short name, for a legend: its abbreviation where it has one ("GOAL"), else its
// name without the bracketed note ("tornado"); a key without choices stays key=value.
export function shortLabel(key, value) {
  const name = CHOICES[key] && CHOICES[key][value];
  if (!name) return `${key}=${value}`;
  const abbreviation = /\(([A-Z][A-Z ]*)\)$/.exec(name);
  return abbreviation ? abbreviation[1] : name.replace(/ \(.*\)$/, '');
}

// The help's glossary: the words the page, its presets and the papers use.
export const GLOSSARY = [
  ['flit', 'the unit a channel carries in one cycle; a message is M flits'],
  ['worm', "a message in wormhole switching: its header goes ahead and its flits follow through the channels it holds, spread over several routers' buffers"],
  ['header', 'the first flit of a message: it is routed at each router and reserves the next channel'],
  ['virtual channel (VC)', 'one of several lanes sharing a physical channel, each with its own buffer, so that a blocked worm does not block the wire'],
  ['escape channel', 'a virtual channel used in a fixed, deadlock-free order (for example dimension order), that an adaptive algorithm can always fall back on'],
  ['dateline', 'a point on each ring after which worms switch to another virtual channel, breaking the cycle of dependencies round the ring'],
  ['deadlock', 'worms each waiting for a channel another one holds, in a cycle: nothing can move again'],
  ['offered load', 'flits each node tries to send per cycle (the rate λ in messages/node/cycle, times the flits per message)'],
  ['accepted throughput', 'flits delivered per node per cycle; below saturation it equals the offered load'],
  ['capacity', 'the throughput uniform traffic would reach with every channel busy every cycle: 8/k flits/node/cycle on a 2-D torus; broadcasts can pass it, as the copies of one broadcast share the channels of its tree'],
  ['saturation', 'the load past which the network cannot carry what is offered: accepted throughput stops growing and latency grows without bound'],
  ['channel-load bound', 'the highest throughput any routing of the family allows, from the load on the busiest channel'],
  ['latency', 'cycles from a message being generated at its source until its last flit arrives, waiting in the source queue included'],
  ['warm-up', 'the cycles simulated before measuring, left out of every measured figure'],
  ['scouting switching', 'the header runs up to K hops ahead of the data as a probe, and the data follows once the probe acknowledges each channel; a blocked probe may back up and try another way'],
  ['deflection', 'under the Chaos router, sending a packet out of any free channel, even away from its destination, when the shared queue is full'],
  ['broadcast', 'a message delivered to every node, copied at the routers along a spanning tree'],
];
