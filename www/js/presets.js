// The page's default scenario (an empty link), the papers the models and presets come from, and
// the presets: a scenario string and the paragraph shown with it, the claims the paragraph
// makes (checked against the CLI by tests/node/preset-claims.test.mjs), and optionally the
// speed to watch it at, the view settings it needs, scenarios to pin beside it (pin values as
// in a link: the keys where the pinned scenario differs) and a second simulation to run beside
// it in compare mode (`compare`, a value of the same form). Keys left out take their defaults
// (the parser fills them in and the hash shows the canonical string); settings left out take
// the page's defaults, so that nothing of one preset leaks into the next.

// An 8×8 torus at a moderate load under an algorithm with a latency prediction, so that a
// link without a scenario opens on the model's curve, the sweep and the live point; the
// warm-up is short so that a measured point comes within seconds.
export const DEFAULT_SCENARIO = 'k=8&routing=adaptive&traffic=uniform&rate=0.01&len=16&warmup=1000';

// The papers, as readers cite them, by the name of the model that implements each (GOAL's
// paper has no latency model: its bounds and experiments are in the CLI).
export const PAPERS = {
  nbc: {
    cite: 'Safaei et al. 2007 (Duato-Nbc)',
    reference: 'F. Safaei, A. Khonsari, M. Fathy, M. Ould-Khaoua, “Performance evaluation of fully adaptive routing for the torus interconnect networks”, ICCS 2007, LNCS 4490',
  },
  scouting: {
    cite: 'Safaei et al. 2007 (scouting switching)',
    reference: 'F. Safaei, A. Khonsari, M. Fathy, N. Talebanfard, M. Ould-Khaoua, “Communication–prediction of scouting switching in adaptively-routed torus networks”, NPC 2007, LNCS 4672',
  },
  'quaglia-adaptive': {
    cite: 'Quaglia et al. 2002',
    // Where the model's router differs from the one simulated, as the legend shows it.
    vcs: 'The model has no virtual channels: a message holds a whole physical channel from header to tail. The paper\'s own simulator used virtual channels, as this one does.',
    reference: 'F. Quaglia, B. Ciciani, M. Colajanni, “Performance analysis of adaptive wormhole routing in a two-dimensional torus”, Parallel Computing 28 (2002)',
  },
  broadcast: {
    cite: 'Shahrabi et al. 2002',
    reference: 'A. Shahrabi, M. Ould-Khaoua, L. Mackenzie, “Communication delay in wormhole-routed torus networks”, ACM SAC 2002',
  },
  goal: {
    cite: 'Singh et al. 2003 (GOAL)',
    reference: 'A. Singh, W. J. Dally, A. K. Gupta, B. Towles, “GOAL: a load-balanced adaptive routing algorithm for torus networks”, ISCA 2003',
  },
};

// The project's own model, which applies where no paper's model does (and is drawn beside one
// where one does): named as the page, the CLI and docs/models/channel-queue.md name it.
export const OWN_MODEL = 'channel-queue';

// How the page names a model: by its paper, or as the project's own.
export function modelCite(name) {
  if (name === OWN_MODEL) return 'the project’s own model (channel-queue)';
  return PAPERS[name] ? PAPERS[name].cite : name;
}

const ref = (name) => `Reference: ${PAPERS[name].reference}.`;

// What a preset's paragraph says about its scenario, as claims a test can check against the
// CLI (tests/node/preset-claims.test.mjs) and the page can state beside the paragraph:
//
//   point   where the rate lies against the simulated saturation rate (`torus saturation`):
//           { below: [lo, hi] }   between lo and hi times it (a "moderate load" is [0.3, 0.6]),
//                                 and a run keeps up;
//           { past: f }           at least f times it, and a run saturates;
//           'deadlock'            a run deadlocks;
//           'stall'               a run stalls behind messages stuck at faults (no deadlock).
//   model   the latency model `torus model` applies (the paper the paragraph names).
//   bound   the channel-load bound, as a fraction of capacity.
//   shows   fields of a run that must be positive (what the paragraph tells the reader to watch).
//   none    fields of a run that must be zero (what the paragraph says does not happen).
//   starved the worst-served source–destination pair gets at most this fraction of the mean
//           accepted throughput (`accepted_min_pair`).
//   pin     for the preset's first pinned scenario: { higher: f } its simulated saturation rate
//           is at least f times this one's; { fair: f } its worst pair gets at least f of its mean.
//   than    { scenario: pin value, higher: f }: this scenario's simulated saturation rate is at
//           least f times that of the scenario with those keys changed.
//   compared { deadlock: false, stall: false, none: [fields] }: the preset's second simulation
//           (compare mode) does not deadlock, does not stall at faults, has none of these.
export const MODERATE = [0.3, 0.6];

// Page defaults a preset resets when it says nothing: the speed (cycles per second, the
// slider's starting point) and the view options.
export const DEFAULT_SPEED = 63;
export const DEFAULT_VIEW = { heat: true, heatSource: 'measured', lanes: true, coordinates: false };

// The claims in words, for the box under the paragraph.
export function claimWords(claims) {
  const pct = (x) => `${Math.round(x * 100)} %`;
  const words = [];
  const p = claims.point;
  if (p === 'deadlock') words.push('this scenario deadlocks');
  else if (p === 'stall') words.push('the network stalls behind the messages stuck at its faults (no deadlock, no model)');
  else if (p && p.past) words.push(`past saturation: the rate is at least ${p.past}× the simulated saturation rate`);
  else if (p && p.below) {
    const [lo, hi] = p.below;
    const moderate = lo === MODERATE[0] && hi === MODERATE[1];
    words.push(lo === 0 ? `below saturation: at most ${pct(hi)} of the simulated saturation rate`
      : `${moderate ? 'a moderate load' : 'below saturation'}: ${Math.round(lo * 100)}–${pct(hi)} of the simulated saturation rate`);
  }
  if (claims.model) words.push(`the ${PAPERS[claims.model] ? PAPERS[claims.model].cite : claims.model} model applies`);
  if (claims.bound) words.push(`channel-load bound ${claims.bound.toFixed(3)} of capacity`);
  if (claims.compared && claims.compared.deadlock === false) words.push('the scenario beside it does not deadlock');
  if (claims.compared && claims.compared.stall === false) words.push('the scenario beside it does not stall');
  return words;
}

// The faults and the traffic of the two fault presets: DOR stalls at these four failed links
// within a few thousand cycles, scouting switching delivers every message.
const FAULT_DEMO = 'traffic=uniform&rate=0.008&len=16&vcs=4&flinks=10x,27y,36x,49y&warmup=1000&cycles=20000';

export const PRESETS = [
  {
    group: 'Classroom',
    title: 'One message on an idle network',
    scenario: 'k=8&routing=dor&traffic=uniform&rate=0.0003&len=16&warmup=0',
    speed: 14,
    view: { coordinates: true },
    claims: { point: { below: [0, 0.05] } },
    text: 'Messages are so rare that each travels alone. Watch one worm: its header (the dot) ' +
      'turns at most once, from the x ring to the y ring, because dimension-order routing ' +
      'finishes x first; its body follows the header through the same channels, one flit (a ' +
      'tick on the body) per cycle. With nothing in the way a message of M flits over H hops ' +
      'takes exactly M + H cycles, which is what the latency chart shows at the far left. The ' +
      'nodes are labelled with their (x, y) coordinates.',
  },
  {
    group: 'Classroom',
    title: 'Blocking and virtual channels',
    scenario: 'k=8&routing=dor&traffic=uniform&rate=0.009&len=16&buf=4',
    claims: { point: { below: MODERATE } },
    text: 'At a moderate load worms meet. A header that finds every virtual channel of its next ' +
      'channel taken stops (black bar) and its whole worm stands still, holding the channels ' +
      'behind it. Each channel has several virtual-channel lanes, so a second worm can pass a ' +
      'blocked one on the same wire. Switch the VC lanes view off and on, click a node to see ' +
      'its router, and raise the virtual channels per link to see blocking fall.',
  },
  {
    group: 'Classroom',
    title: 'Tornado traffic defeats minimal routing',
    scenario: 'k=8&routing=dor&traffic=tornado&rate=0.0065&len=16',
    claims: { point: { below: MODERATE }, bound: 1 / 3, model: 'channel-queue' },
    text: 'Every node sends to the node k/2 − 1 places further along x. Minimal routing sends ' +
      'all of it the same way round the ring, so the + direction channels carry everything ' +
      'and the − direction channels sit idle (see the utilisation heat, and switch it to ' +
      '"predicted" for where the channel-queue model expects the load). No routing that ' +
      'uses only the + channels can carry more than a third of capacity (the channel-load ' +
      'bound); dimension-order routing saturates below even that, as the model\'s curve ' +
      'shows. Raise the rate past the bend of the accepted-against-offered chart to see ' +
      'throughput stop growing.',
  },
  {
    group: 'Classroom',
    title: 'GOAL balances the load',
    scenario: 'k=8&routing=goal&traffic=tornado&rate=0.0065&len=16',
    claims: { point: { below: [0.2, 0.6] }, than: { scenario: 'routing:dor,vcs:2', higher: 1.4 }, model: 'channel-queue' },
    text: 'The same tornado traffic under GOAL (Singh et al. 2003), which chooses the direction ' +
      'round each ring at random, weighted by distance, and routes adaptively within that ' +
      'quadrant. Some messages take the long way, but both directions of every ring now carry ' +
      'load (the heat, measured or predicted), and the saturation throughput rises well above ' +
      'minimal routing\'s; the model\'s curve is the project\'s own channel-queue model, ' +
      `which follows GOAL's own routing rules. ${ref('goal')}`,
  },
  {
    group: 'Classroom',
    title: 'A random permutation: each node has one partner',
    scenario: 'k=8&routing=dor&traffic=permutation&rate=0.008&len=16',
    view: { heatSource: 'predicted' },
    claims: { point: { below: MODERATE }, model: 'channel-queue' },
    text: 'Every node sends all its messages to one partner, drawn at random once (the seed ' +
      'draws the permutation). Dimension-order routing gives each pair one fixed path, so some ' +
      'channels carry several pairs and others none. The heat starts on "predicted": the ' +
      'utilisation the channel-queue model expects on every channel at this rate, before any ' +
      'congestion forms; switch it to "measured" as the run goes on and compare. The model\'s ' +
      'curve is the project\'s own channel-queue model, which follows the same routes.',
  },
  {
    group: 'Classroom',
    title: 'Tornado: DOR against GOAL',
    scenario: 'k=8&routing=dor&traffic=tornado&rate=0.008&len=16&warmup=2000',
    pins: ['routing:goal,vcs:3'],
    compare: 'routing:goal,vcs:3',
    claims: { point: { below: [0.3, 0.8] }, pin: { higher: 1.4 } },
    text: 'The classroom comparison of Singh et al. 2003 (GOAL), side by side: DOR on the left, ' +
      'GOAL on the right, the same messages arriving at both. The latency chart keeps GOAL\'s ' +
      'sweep pinned beside dimension-order routing under the same tornado traffic. DOR ' +
      'saturates where its + channels fill (the utilisation heat), GOAL goes on past it by sending ' +
      'some messages the long way round. Pin more curves (VAL, MIN AD) with the Pin curve button.',
  },
  {
    group: 'Side by side',
    title: 'uniform: DOR against Duato',
    scenario: 'k=8&routing=dor&traffic=uniform&rate=0.009&len=16&buf=4',
    compare: 'routing:duato,vcs:3',
    claims: { point: { below: MODERATE } },
    text: 'Dimension-order routing (left) against Duato\'s fully adaptive routing (right) under ' +
      'the same uniform traffic at a moderate load: the same seed gives both the same messages, ' +
      'arriving at the same nodes at the same cycles. DOR sends every header along x first, ' +
      'then y, and a header that meets a busy channel waits; Duato\'s headers take any free ' +
      'channel that brings them closer, falling back on escape channels (hollow worms) only ' +
      'when every adaptive one is busy. Compare the two live points on the latency chart.',
  },
  {
    group: 'Side by side',
    title: 'wormhole against scouting switching',
    scenario: `k=8&routing=duato&${FAULT_DEMO}`,
    compare: 'switching:scouting,scout:3,misroute:8',
    claims: { point: 'stall', shows: ['messages_stuck_at_faults'], compared: { stall: false, none: ['messages_stuck_at_faults', 'messages_unreachable'] } },
    text: 'The same four failed links (crossed out) and the same traffic under Duato\'s adaptive ' +
      'routing, with wormhole switching (left) and scouting switching with K = 3 (right). On the ' +
      'left a header whose every productive channel has failed stops at the fault for good ' +
      '(boxed) and holds the channels behind it, and the network stalls; on the right the ' +
      'header runs up to three hops ahead of the data, so it can back out (hooked arrows) or ' +
      'misroute round the fault, and every message arrives, a few hops longer.',
  },
  {
    group: 'Side by side',
    title: 'one VC without a dateline against two',
    scenario: 'k=8&routing=dor&vcs=1&unsafe=1&traffic=uniform&rate=0.04&len=16&warmup=500',
    compare: 'vcs:2,unsafe:0',
    speed: 300,
    claims: { point: 'deadlock', compared: { deadlock: false } },
    text: 'Dimension-order routing with one virtual channel and no dateline (left) against the ' +
      'same with two, the second taken after the dateline (right), under the same heavy ' +
      'traffic. On the left the worms soon wait on each other round a ring and the network ' +
      'deadlocks (the cycle is haloed in purple); on the right the dateline breaks every such ' +
      'cycle, and the network goes on, queues growing, but never stuck.',
  },
  {
    group: 'Classroom',
    title: 'A deadlock forms without escape channels',
    scenario: 'k=8&routing=dor&vcs=1&unsafe=1&traffic=uniform&rate=0.04&len=16&warmup=500',
    speed: 300,
    claims: { point: 'deadlock' },
    text: 'Dimension-order routing on a torus needs two virtual channels (a dateline) to break ' +
      'the cycle of channel dependencies round each ring. With one (allowed here by "allow ' +
      'deadlock") worms soon wait on each other in a circle: every header in the cycle is ' +
      'blocked, nothing moves, and the simulator detects the deadlock and reports it.',
  },
  {
    group: 'Classroom',
    title: 'Scouting switching: the probe runs ahead',
    scenario: 'k=8&routing=adaptive&switching=scouting&scout=3&traffic=uniform&rate=0.008&len=32',
    claims: { point: { below: [0.5, 0.85] }, model: 'scouting', shows: ['backtracks'] },
    text: 'In scouting switching the header (a probe) runs up to K = 3 hops ahead of the data: ' +
      'the thin dashed stretch in front of each worm\'s body. Every channel the probe reserves ' +
      'sends an acknowledgement back (the small marks travelling towards the data), and the ' +
      'data moves only once it has them. A probe that finds no free channel may back up and ' +
      'try another way (a hooked arrow on the lane it gives up). K = 0 is wormhole switching; ' +
      `a larger K trades a longer set-up for routing round trouble. ${ref('scouting')}`,
  },
  {
    group: 'Classroom',
    title: 'Faults stop dimension-order routing',
    scenario: `k=8&routing=dor&${FAULT_DEMO}`,
    claims: { point: 'stall', shows: ['messages_stuck_at_faults'] },
    text: 'Four links have failed (crossed out). Dimension-order routing has one way to each ' +
      'destination, so a worm whose path crosses a failed link stops at it for good (its ' +
      'header boxed) and holds the channels behind it; the worms that need those channels wait ' +
      'behind it, and within a few thousand cycles the network stalls. The live numbers count ' +
      'the messages stuck at each fault. Tick the fault tool and click a link or a node to fail ' +
      'or repair it.',
  },
  {
    group: 'Classroom',
    title: 'Scouting switching routes round the faults',
    scenario: `k=8&routing=duato&switching=scouting&scout=3&misroute=8&${FAULT_DEMO}`,
    claims: { point: { below: [0.2, 0.5] }, shows: ['misroutes_per_message'], none: ['messages_stuck_at_faults', 'messages_unreachable'] },
    text: 'The same four failed links under scouting switching (Safaei et al. 2007) over ' +
      'Duato\'s adaptive routing. A header takes any working way towards its destination; one ' +
      'that finds every way on failed misroutes round the fault (at most misroute = 8 times) ' +
      'or, since the data stays K = 3 links behind it, backs out (hooked arrows) and tries ' +
      'another way. Nothing is stuck and every message arrives, a few hops longer. Set ' +
      'switching=wormhole to see Duato\'s routing alone stall at the faults: it goes round a ' +
      `failed link only while another productive channel survives. ${ref('scouting')}`,
  },
  {
    group: 'Classroom',
    title: 'Chaos deflects instead of using virtual channels',
    scenario: 'k=8&routing=chaos&traffic=bitcomp&rate=0.05&len=4&buf=4&mq=2',
    claims: { point: { below: [0.5, 0.9] }, shows: ['misroutes'] },
    text: 'The Chaos router has one buffer per input and no virtual channels. A packet that ' +
      'cannot move on steps into its router\'s small shared queue (the bar in each node); when ' +
      'that queue is full, its oldest packet is sent out on any free channel, even away from ' +
      'its destination (a deflection, marked by a star and counted). Deadlock is avoided by ' +
      'this deflection, not by virtual channels, and livelock only probabilistically. Raise ' +
      'the rate and watch the deflections and the mean hop count climb.',
  },
  {
    group: 'Classroom',
    title: 'A broadcast',
    scenario: 'k=8&routing=duato&traffic=uniform&beta=0.04&rate=0.0025&len=32&vcs=4',
    claims: { point: { below: MODERATE }, model: 'broadcast', shows: ['broadcasts_measured'] },
    text: 'A fraction β of the messages are broadcasts, delivered to every node over a ' +
      'spanning tree with copies made at the routers (a copy\'s header is a diamond). Click a ' +
      'node to draw the tree its broadcasts follow. A broadcast loads many channels at once, ' +
      'so even a few per cent of them raise the latency of ordinary messages; the model of ' +
      `Shahrabi et al. 2002 predicts by how much. ${ref('broadcast')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'Safaei et al. 2007 (Duato-Nbc): 8×8, V = 10, M = 32',
    scenario: 'k=8&routing=nbc&vcs=10&traffic=uniform&rate=0.004&len=32',
    claims: { point: { below: [0.2, 0.6] }, model: 'nbc' },
    text: 'The validation set-up of the Duato-Nbc paper: fully adaptive routing on adaptive ' +
      'virtual channels, with negative-hop (bonus-card) escape channels to stay deadlock free: ' +
      'ten virtual-channel lanes per link, the escape ones double-lined. Compare the measured ' +
      `latency with the model's curve as the rate rises. ${ref('nbc')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'Safaei et al. 2007 (scouting switching): 8×8, V = 6, K = 3, M = 32',
    scenario: 'k=8&routing=adaptive&switching=scouting&scout=3&vcs=6&traffic=uniform&rate=0.004&len=32',
    claims: { point: { below: [0.2, 0.6] }, model: 'scouting' },
    text: 'One of the scouting-switching paper\'s configurations: fully adaptive routing with a ' +
      'probe lead of three hops. Set the probe lead K to 0, 1, 3 or 6 to reproduce its comparison ' +
      `between wormhole switching and increasingly conservative scouting. ${ref('scouting')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'Quaglia et al. 2002: minimal fully adaptive routing, 8×8, 12 flits',
    scenario: 'k=8&routing=adaptive&traffic=uniform&rate=0.01&len=12',
    claims: { point: { below: [0.1, 0.6] }, model: 'quaglia-adaptive' },
    text: 'The set-up of Table 1 of the minimal fully adaptive routing paper: a header takes x ' +
      'if it can, y if x is busy, and waits when both are. The path-hole/data-trail model ' +
      `predicts the mean latency; vary the rate to trace the table's rows. ${ref('quaglia-adaptive')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'Quaglia et al. 2002 with lengths that vary: geometric, mean 12 flits',
    scenario: 'k=8&routing=adaptive&traffic=uniform&rate=0.01&len=12&lengths=geometric',
    claims: { point: { below: [0.1, 0.6] }, model: 'quaglia-adaptive' },
    text: 'The same set-up with message lengths drawn per message, geometric with the mean of ' +
      '12 flits the paper speaks of (lengths=geometric; uniform:A-B draws from a range). The ' +
      'model still takes every message to be 12 flits long, as the paper does: compare its ' +
      'curve with the measured latency, which the long messages of the spread push up as the ' +
      `load rises. ${ref('quaglia-adaptive')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'Shahrabi et al. 2002: broadcast fraction, 8×8, V = 4, M = 32, β = 0.04',
    scenario: 'k=8&routing=duato&vcs=4&traffic=uniform&beta=0.04&rate=0.003&len=32',
    claims: { point: { below: [0.3, 0.8] }, model: 'broadcast' },
    text: 'Unicast latency when 4 % of messages are broadcasts, under Duato\'s routing (two ' +
      'deterministic escape channels plus adaptive ones). The model accounts for the channel ' +
      `load the broadcast trees add. ${ref('broadcast')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'Singh et al. 2003 (GOAL): GOAL against minimal adaptive, tornado',
    scenario: 'k=8&routing=minad&traffic=tornado&rate=0.008&len=16',
    pins: ['routing:goal'],
    claims: { point: { below: MODERATE }, pin: { higher: 1.25 } },
    text: 'MIN AD, minimal adaptive routing with *-channels, under tornado traffic, with GOAL ' +
      'pinned beside it: adaptivity cannot help when every minimal path goes the same way ' +
      'round the ring, so MIN AD saturates well before GOAL. Switch the routing to VAL or DOR, ' +
      `or pin them, to compare saturation throughput against the channel-load bounds. ${ref('goal')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'GOAL paper set-up: Singh et al. 2003 at its channel-load bounds',
    scenario: 'k=8&routing=goal&traffic=tornado&rate=0.4&len=1&vcs=3&buf=8&router=damq+speedup2+wide&warmup=3000&cycles=10000',
    pins: ['routing:minad'],
    claims: { point: { below: [0.6, 0.9] }, bound: 0.533, than: { scenario: 'router:iq', higher: 1.1 } },
    text: 'The set-up of Singh et al. 2003 (8×8, one-flit packets, 24 flits of buffer per ' +
      'channel, age-based arbitration) on the router organisation that reproduces its ' +
      'throughputs: VC buffers any of whose packets may leave first (damq), a switch twice as ' +
      'fast as the channels with queues at its outputs (speedup2), and terminals as wide as the ' +
      'network (wide). GOAL saturates on tornado at about 0.52 of capacity, at its bound of ' +
      '0.53, and MIN AD, pinned beside it, at 0.33, its own bound; set router to iq to see the ' +
      'input-queued router fall short of both. The command line\'s router experiment ' +
      `(torus experiment router) measures every algorithm on every pattern. ${ref('goal')}`,
  },
  {
    group: 'The papers\' experiments',
    title: 'Singh et al. 2003 (GOAL): CHAOS on bit-complement past saturation',
    scenario: 'k=8&routing=chaos&traffic=bitcomp&rate=0.6&len=1&buf=8&mq=64&warmup=3000&cycles=10000',
    pins: ['routing:goal,vcs:3,mq:0'],
    claims: { point: { past: 1.3 }, starved: 0.2, pin: { fair: 0.7 } },
    text: 'CHAOS serves its shared queue and its input channels before a node\'s own injection, ' +
      'so past saturation on bit complement some sources are starved while the average ' +
      'accepted throughput looks healthy (Singh et al. 2003, Figure 13). The accepted-against-' +
      'offered chart shows both: the mean and, below it, the worst-served source, which gets ' +
      'almost nothing. GOAL is pinned beside it at the same load; switch the routing to goal ' +
      `to see its worst source get nearly the average. ${ref('goal')}`,
  },
];
