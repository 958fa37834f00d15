//! Scenario strings: canonical round trip, defaults, and a clear error for every bad input.

use torus_explorer::rng::{Rng, Stream};
use torus_explorer::scenario::KEYS;
use torus_explorer::{RoutingKind, Scenario, TrafficKind};

#[test]
fn canonical_strings_round_trip() {
    for text in [
        "",
        "k=8&routing=minad&traffic=tornado&rate=0.02&len=16&vcs=3&buf=8&seed=7",
        "#k=5&n=3&routing=duato&vcs=6&rate=0.0001234&seed=18446744073709551615&warmup=0&cycles=1",
        "?traffic=hotspot&rate=1&len=4096&unsafe=1&vcs=1",
        "rate=0.1&beta=0.04&routing=duato",
        "routing=chaos",
        "k=4&n=3&routing=chaos&len=2&buf=3&mq=5",
        "qcap=7&rate=0.2",
        "warmup=auto&cycles=auto&ci=0.05",
        "warmup=auto&cycles=5000",
        "routing=goal&router=damq+speedup2+wide&rate=3.5",
        "router=wide+maxmatch",
        "router=speedup2%2Bdamq",
        "router=iq",
        "router=voq+wide+damq",
        "lengths=geometric&len=12&routing=adaptive",
        "lengths=uniform:4-20",
        "lengths=uniform:5-5&len=5",
    ] {
        let s = Scenario::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let canonical = s.canonical();
        let again = Scenario::parse(&canonical).unwrap();
        assert_eq!(again, s, "{text}");
        assert_eq!(again.canonical(), canonical);
        // Every key appears exactly once, in the documented order.
        let keys: Vec<&str> = canonical.split('&').map(|kv| kv.split('=').next().unwrap()).collect();
        assert_eq!(keys, KEYS);
    }
}

#[test]
fn defaults_follow_the_spec() {
    let s = Scenario::parse("").unwrap();
    assert_eq!((s.k, s.n, s.routing, s.traffic, s.rate, s.len, s.vcs, s.buf, s.seed), (8, 2, RoutingKind::Dor, TrafficKind::Uniform, 0.005, 16, 2, 4, 1));
    assert_eq!((s.warmup, s.cycles, s.beta, s.allow_unsafe), (10_000, 100_000, 0.0, false));
    // Source queues hold 1000 messages, fewer on networks where all of them together would
    // pass 2^20 (as before qcap was a key, so old links run as they did).
    assert_eq!((s.qcap, s.source_queue_cap()), (1000, 1000));
    assert_eq!(Scenario::parse("k=128&n=2&vcs=2&buf=1").unwrap().source_queue_cap(), 64);
    assert_eq!(Scenario::parse("k=32&qcap=5").unwrap().source_queue_cap(), 5);
    // Fixed run lengths unless a link asks for automatic ones.
    assert!(!s.warmup_auto() && !s.cycles_auto() && s.ci == 0.02);
    let auto = Scenario::parse("warmup=auto&cycles=auto").unwrap();
    assert!(auto.warmup_auto() && auto.cycles_auto());
    assert!(auto.canonical().contains("&warmup=auto&cycles=auto&") && auto.canonical().ends_with("&misroute=0&ci=0.02&router=iq&lengths=fixed&rng=1&rdelay=0&ldelay=0&cdelay=0&hot=&hotfrac=auto&pseed=auto&matrix=&inject=poisson"));
    // vcs defaults to the algorithm's minimum, or to the VCs its seed's experiments used.
    assert_eq!(Scenario::parse("routing=minad").unwrap().vcs, 3);
    assert_eq!(Scenario::parse("routing=nbc").unwrap().vcs, 10);
    assert_eq!(Scenario::parse("routing=adaptive").unwrap().vcs, 4);
    // RLB's Linder & Harden classes depend on the dimension: 2^(n−1)·(n + 1).
    let rlb_vcs = |n| Scenario::parse(&format!("routing=rlb&k=4&n={n}")).unwrap().vcs;
    assert_eq!([rlb_vcs(1), rlb_vcs(2), rlb_vcs(3)], [2, 6, 16]);
    assert_eq!(Scenario::parse("routing=rlb&vcs=4").unwrap_err().key, "vcs");
    // Chaos: one buffer per port, deep enough for a whole packet, and a shared queue of
    // 2 · 2n · buf flits in packets (seed 004's constant buffering, 64 on its setup), at most 64.
    let chaos = |text: &str| {
        let s = Scenario::parse(&format!("routing=chaos{text}")).unwrap();
        (s.vcs, s.buf, s.mq)
    };
    assert_eq!(chaos(""), (1, 16, 8));
    assert_eq!(chaos("&len=1&buf=8"), (1, 8, 64));
    assert_eq!(chaos("&len=4&buf=6&n=1"), (1, 6, 6));
    assert_eq!(chaos("&len=1&buf=8&n=3&k=4"), (1, 8, 64));
    assert_eq!(chaos("&len=3&mq=2"), (1, 4, 2));
    assert_eq!(s.mq, 0, "no shared queue for other algorithms");
    // The router organisation: today's input-queued router unless a link asks for another;
    // features in any order read as the canonical order, and a URL's `+` may arrive as a space.
    assert!(s.router.is_iq());
    assert!(s.canonical().contains("&router=iq&"));
    for text in ["router=wide+damq+speedup2", "router=damq+speedup2+wide", "router=damq speedup2 wide", "router=damq%2Bspeedup2%2Bwide"] {
        let r = Scenario::parse(text).unwrap().router;
        assert_eq!(r, torus_explorer::scenario::RouterOrganisation::PAPER, "{text}");
        assert_eq!(r.name(), "damq+speedup2+wide");
    }
    assert_eq!(Scenario::parse("router=voq+wide+damq+speedup2").unwrap().router.name(), "damq+speedup2+wide+voq");
    // Message lengths: fixed unless a link says otherwise; len is the mean, which a uniform
    // range gives when len is left out.
    assert_eq!(s.lengths, torus_explorer::scenario::Lengths::Fixed);
    let lengths_at = KEYS.iter().position(|k| *k == "lengths").unwrap();
    assert_eq!(s.canonical().split('&').nth(lengths_at), Some("lengths=fixed"));
    let uniform = Scenario::parse("lengths=uniform:4-20").unwrap();
    assert_eq!((uniform.len, uniform.lengths.name()), (12, "uniform:4-20".to_string()));
    assert_eq!(Scenario::parse("lengths=uniform:6-18&len=12").unwrap().len, 12);
    assert_eq!(Scenario::parse("lengths=geometric&len=12").unwrap().lengths.longest(12), 4096);
    // One injection channel bounds the rate at one message per node and cycle; 2n under wide.
    assert_eq!(Scenario::parse("router=wide&rate=4").unwrap().rate, 4.0);
    // Percent-escapes and form spaces decode.
    assert_eq!(Scenario::parse("routing=%64or&k=%206").unwrap().k, 6);
}

#[test]
fn bad_inputs_name_their_key() {
    let table: &[(&str, &str, &str)] = &[
        ("colour=red", "colour", "unknown key"),
        ("k=1", "k", "from 2 to 128"),
        ("k=1000000000", "k", "from 2 to 128"),
        ("k=eight", "k", "integer"),
        ("n=4", "n", "from 1 to 3"),
        ("k=128&n=3", "k", "nodes"),
        ("rate=0", "rate", "(0, 1]"),
        ("rate=NaN", "rate", "number"),
        ("rate=inf", "rate", "number"),
        ("rate=-0.1", "rate", "number"),
        ("len=4294967296", "len", "from 1 to 4096"),
        ("vcs=1000000", "vcs", "from 1 to 16"),
        ("buf=0", "buf", "from 1 to 256"),
        ("k=128&vcs=16&buf=256", "buf", "flit buffers"),
        ("routing=teleport", "routing", "dor, duato"),
        ("traffic=chaotic", "traffic", "uniform, neighbor"),
        ("switching=circuit", "switching", "wormhole, scouting"),
        ("seed=-1", "seed", "integer"),
        ("seed=18446744073709551616", "seed", "integer"),
        ("beta=1.5", "beta", "[0, 1]"),
        ("unsafe=yes", "unsafe", "from 0 to 1"),
        ("k=8&k=8", "k", "more than once"),
        ("=3", "", "empty key"),
        ("k", "k", "key=value"),
        ("k=%FF", "k", "UTF-8"),
        ("k=%G1", "k", "malformed"),
        // A faulty key is named as written, escaped onto one short line.
        ("%FF=1", "%FF", "not UTF-8 in the key"),
        ("a%0Ab=1", "a\\nb", "unknown key"),
        ("k\nn", "k\\nn", "key=value"),
        ("routing=minad&vcs=2", "vcs", "at least 3"),
        ("routing=dor&vcs=1", "vcs", "unsafe=1"),
        ("scout=2", "scout", "switching=scouting"),
        ("switching=scouting&scout=16&len=16", "scout", "smaller than"),
        ("traffic=transpose&n=3&k=4", "traffic", "n = 2"),
        ("traffic=worstcase&routing=minad", "traffic", "oblivious"),
        ("traffic=hotspot&k=4", "traffic", "25 nodes"),
        ("routing=chaos&vcs=2", "vcs", "vcs must be 1"),
        ("routing=chaos&len=8&buf=4", "buf", "at least len = 8"),
        ("routing=chaos&mq=0", "mq", "1 to 64"),
        ("routing=chaos&mq=65", "mq", "from 0 to 64"),
        ("mq=3", "mq", "routing=dor needs mq=0"),
        ("qcap=0", "qcap", "from 1 to 1048576"),
        ("warmup=automatic", "warmup", "or auto"),
        ("cycles=0", "cycles", "from 1 to 1000000000 or auto"),
        ("ci=0", "ci", "(0, 1]"),
        ("ci=1.5", "ci", "(0, 1]"),
        ("qcap=1048577", "qcap", "from 1 to 1048576"),
        ("rate=2", "rate", "(0, 1]"),
        ("router=wide&rate=4.5", "rate", "(0, 4]"),
        ("router=wide&n=3&k=4&rate=7", "rate", "(0, 6]"),
        ("frate=0.2&rate=0.01", "frate", "give one of them"),
        ("frate=0.1&frate=0.2", "frate", "more than once"),
        ("frate=0", "frate", "(0, 16]"),
        ("frate=17", "frate", "(0, 16]"),
        ("len=4&frate=x", "frate", "(0, 4]"),
        ("frate=5e-324", "frate", "too small"),
        ("router=fast", "router", "maxmatch, damq, speedup2, wide, voq"),
        ("router=damq+voq", "router", "needs wide"),
        ("router=damq++wide", "router", "got ``"),
        ("router=damq+damq", "router", "twice"),
        ("router=maxmatch+damq", "router", "cannot be combined"),
        ("router=damq&routing=chaos", "router", "must be iq"),
        ("router=wide&switching=scouting&scout=1", "router", "switching=wormhole"),
        ("lengths=normal", "lengths", "fixed, uniform:A-B"),
        ("lengths=uniform:8", "lengths", "uniform:A-B"),
        ("lengths=uniform:9-4", "lengths", "uniform:A-B"),
        ("lengths=uniform:0-4", "lengths", "uniform:A-B"),
        ("lengths=uniform:1-5000", "lengths", "uniform:A-B"),
        ("lengths=uniform:1-4", "lengths", "not a whole number"),
        ("lengths=uniform:4-20&len=16", "lengths", "len, the mean message length, is 16"),
        ("lengths=geometric&routing=chaos", "lengths", "lengths=fixed"),
        ("lengths=geometric&switching=scouting&scout=1", "lengths", "lengths=fixed"),
        ("lengths=geometric&beta=0.1", "lengths", "broadcasts"),
    ];
    for &(input, key, words) in table {
        let e = Scenario::parse(input).expect_err(input);
        assert_eq!(e.key, key, "{input}: {e}");
        assert!(e.to_string().contains(words), "{input}: `{e}` should say `{words}`");
        assert!(!e.to_string().contains('\n'), "{input}: error must be one line");
    }
    let long = "k=8&".repeat(2000);
    assert!(Scenario::parse(&long).unwrap_err().to_string().contains("bytes long"));
}

#[test]
fn frate_gives_the_offered_load_in_flits_and_the_canonical_string_spells_rate() {
    let s = Scenario::parse("len=16&frate=0.2").unwrap();
    assert_eq!(s.rate, 0.2 / 16.0);
    assert_eq!(s, Scenario::parse("rate=0.0125&len=16").unwrap());
    assert!(s.canonical().contains("&rate=0.0125&") && !s.canonical().contains("frate"));
    // The mean length, wherever `len` is given, and under a length distribution.
    assert_eq!(Scenario::parse("frate=0.5&len=4").unwrap().rate, 0.125);
    assert_eq!(Scenario::parse("frate=0.24&lengths=uniform:4-20").unwrap().rate, 0.24 / 12.0);
    assert_eq!(Scenario::parse("frate=0.1&lengths=geometric&len=8&routing=adaptive").unwrap().offered_flits(), 0.1);
}

/// Random strings built from scenario-like pieces never panic, and whatever parses round-trips.
#[test]
fn random_inputs_never_panic() {
    let pieces = [
        "k", "n", "rate", "len", "vcs", "buf", "seed", "routing", "traffic", "=", "&", "%", "%2", "%E2%82", "é", "\u{0}",
        "-", "1", "0", "9999999999999999999999", "NaN", "inf", "1e308", "0.5", "dor", "goal", "uniform", "#", "?", " ",
        "+", "unsafe", "scout", "beta", "switching", "scouting", "worstcase", "hotspot", "mq", "chaos", "qcap", "ci", "auto", "warmup", "cycles",
        "router", "iq", "damq", "wide", "speedup2", "maxmatch", "3", "lengths", "uniform:", "geometric", "fixed", "4-20",
    ];
    let mut rng = Rng::new(42, Stream::Traffic);
    for _ in 0..50_000 {
        let len = rng.below(12);
        let text: String = (0..len).map(|_| pieces[rng.below(pieces.len() as u32) as usize]).collect();
        if let Ok(s) = Scenario::parse(&text) {
            assert_eq!(Scenario::parse(&s.canonical()).unwrap(), s, "{text:?}");
        }
    }
}
