# The torus explorer: native CLI, WebAssembly page, single-file offline build, tests.
#
#   make serve   build the page and serve www/ on http://127.0.0.1:$(PORT)
#   make test    native tests, the cluster recipes, wasm build, headless-Chromium browser tests
#   make dist    dist/torus-explorer.html, one self-contained file that works from file://
#   make cli-pgo a profile-guided build of the CLI for long sweeps (target/pgo/release/torus)
#
# Every target installs what it is missing (wasm32 target, wasm-bindgen-cli, npm packages, and
# for the browser tests Chromium and for the cluster recipes GNU parallel, with apt-get where
# there is one).

PORT ?= 8000
CRATE := torus_explorer
WASM_TARGET := wasm32-unknown-unknown
WASM_IN := target/$(WASM_TARGET)/release/$(CRATE).wasm
PKG := www/pkg
VENDOR := www/vendor
# The CLI must match the wasm-bindgen crate version in Cargo.lock exactly.
WASM_BINDGEN_VERSION := $(shell sed -n '/^name = "wasm-bindgen"$$/{n;s/^version = "\(.*\)"$$/\1/p;}' Cargo.lock)
NPM_STAMP := node_modules/.package-lock.json
# wasm-opt inlines every function that has one caller, however large; that would merge the
# simulator's phases (kept apart in Rust with #[inline(never)]) back into one function so large
# that V8 compiles it with its weaker register allocator for huge functions, 27% slower in Node.
WASM_OPT_INLINING := --one-caller-inline-max-function-size=2000
# The browser tests, make bench-page and scripts/screenshots.mjs drive this Chromium
# (tests/browser/harness.mjs reads the same variable).
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM
# The long reports keep every simulation they run in this file (torus ... --results): a stopped
# one goes on where it stopped, and one rebuilt after a change to the models alone runs no
# simulation again. A change to the simulator's sources starts the file afresh (docs/cluster.md).
RESULTS ?= target/simulations.jsonl
# apt-get needs root: sudo when make does not run as root.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)


.PHONY: validate validate-channel-queue validate-grid experiments experiments-quick experiment-faults experiment-router experiment-router-quick coverage fuzz fuzz-libfuzzer soak soak-faults
.PHONY: serve test dist wasm tools wasm-target wasm-bindgen-cli chromium gnu-parallel native-test cluster-test browser-test cli cli-pgo bench bench-page clean

serve: wasm
	@echo "==> serving www/ at http://127.0.0.1:$(PORT)/  (Ctrl-C to stop)"
	python3 -m http.server $(PORT) --bind 127.0.0.1 --directory www

# Chromium first, so that a machine that cannot get it stops at once, not after the native tests.
test: chromium gnu-parallel native-test wasm dist cli cluster-test browser-test
	@echo "==> all tests passed"

native-test:
	@echo "==> native tests (cargo test)"
	cargo test

cli:
	@echo "==> building the native CLI (target/release/torus) for the page-vs-CLI comparison"
	cargo build --release --bin torus

# docs/cluster.md's recipes on a small experiment: GNU parallel and the Slurm array script,
# each collected and compared with the one-machine output.
cluster-test: gnu-parallel cli
	@echo "==> plan, run, collect: GNU parallel and the Slurm script against the one-machine output"
	scripts/cluster-check.sh

browser-test: chromium $(NPM_STAMP)
	@echo "==> browser tests (headless Chromium via playwright-core)"
	node --test --test-concurrency=1 tests/browser/ tests/node/

dist: wasm
	@echo "==> writing dist/torus-explorer.html (glue, JS, CSS and wasm inlined)"
	node scripts/build-dist.mjs

wasm: tools
	@echo "==> building the simulator for $(WASM_TARGET) (release)"
	cargo build --release --lib --target $(WASM_TARGET)
	@echo "==> generating JS bindings into $(PKG)"
	wasm-bindgen --target web --no-typescript --out-dir $(PKG) $(WASM_IN)
	@echo "==> optimising the wasm (wasm-opt -O3, npm binaryen)"
	node_modules/.bin/wasm-opt -O3 $(WASM_OPT_INLINING) $(PKG)/$(CRATE)_bg.wasm -o $(PKG)/$(CRATE)_bg.wasm
	@echo "==> vendoring uPlot into $(VENDOR)"
	mkdir -p $(VENDOR)
	cp node_modules/uplot/dist/uPlot.esm.js node_modules/uplot/dist/uPlot.min.css $(VENDOR)/

tools: wasm-target wasm-bindgen-cli $(NPM_STAMP)

wasm-target:
	@echo "==> checking the $(WASM_TARGET) Rust target"
	@rustup target list --installed | grep -qx $(WASM_TARGET) || rustup target add $(WASM_TARGET)

wasm-bindgen-cli:
	@echo "==> checking wasm-bindgen-cli $(WASM_BINDGEN_VERSION)"
	@if wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $(WASM_BINDGEN_VERSION)"; then \
		echo "    wasm-bindgen $(WASM_BINDGEN_VERSION) already installed"; \
	else \
		echo "    installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (takes a few minutes)"; \
		cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); \
	fi

# Debian's Chromium, installed with apt-get when it is missing (as on a fresh CI machine); where
# there is no apt-get, one line says what to install.
chromium:
	@if [ -x "$(CHROMIUM)" ]; then \
		echo "==> Chromium for the browser tests: $(CHROMIUM)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "==> installing Chromium for the browser tests (apt-get install chromium, about a minute)"; \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium; \
		[ -x "$(CHROMIUM)" ] || { echo "make: apt-get installed chromium but $(CHROMIUM) is still missing; set CHROMIUM=/path/to/chromium" >&2; exit 1; }; \
	else \
		echo "make: the browser tests need Chromium at $(CHROMIUM): install Chromium (or set CHROMIUM=/path/to/chromium) and run make again" >&2; \
		exit 1; \
	fi

# Debian's GNU parallel for the cluster recipes, installed as Chromium is.
gnu-parallel:
	@if command -v parallel >/dev/null 2>&1; then \
		echo "==> GNU parallel for the cluster recipes: $$(command -v parallel)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "==> installing GNU parallel for the cluster recipes (apt-get install parallel)"; \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y parallel; \
	else \
		echo "make: the cluster recipes need GNU parallel: install it and run make again" >&2; \
		exit 1; \
	fi

$(NPM_STAMP): package.json package-lock.json
	@echo "==> installing npm packages (npm ci: playwright-core, binaryen, uplot, esbuild)"
	npm ci

bench: wasm cli
	@echo "==> simulator speed: native torus bench, the same scenarios in wasm under Node, scaling"
	node scripts/bench-node.mjs
	target/release/torus bench --scaling --cycles 50000
	@echo "==> the simulator beside its twin stripped to the DOR 1-flit benchmark (examples/lean_kernel)"
	cargo run --release --example lean_kernel -- --rounds 5

# A profile-guided build of the CLI for long sweeps: instrumented build, a training run on
# torus bench's scenarios and its scaling sizes, optimised build, then a check that it
# simulates exactly as the plain build does. See docs/performance.md (Profile-guided build).
PGO := target/pgo
LLVM_PROFDATA = $(shell rustc --print sysroot)/lib/rustlib/$(shell rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata

cli-pgo: cli
	@echo "==> checking rustup's llvm-tools (llvm-profdata)"
	@test -x $(LLVM_PROFDATA) || rustup component add llvm-tools
	@echo "==> instrumented build of torus"
	rm -rf $(PGO)/profiles
	RUSTFLAGS="-Cprofile-generate=$(CURDIR)/$(PGO)/profiles" cargo build --release --bin torus --target-dir $(PGO)/instrumented
	@echo "==> training run: torus bench and torus bench --scaling"
	$(PGO)/instrumented/release/torus bench --cycles 20000 > /dev/null
	$(PGO)/instrumented/release/torus bench --scaling --cycles 5000 > /dev/null
	$(LLVM_PROFDATA) merge -o $(PGO)/merged.profdata $(PGO)/profiles
	@echo "==> optimised build: $(PGO)/release/torus"
	RUSTFLAGS="-Cprofile-use=$(CURDIR)/$(PGO)/merged.profdata" cargo build --release --bin torus --target-dir $(PGO)
	@echo "==> checking that it simulates exactly as target/release/torus"
	python3 scripts/same-results.py target/release/torus $(PGO)/release/torus

bench-page: chromium dist cli
	@echo "==> page speed in headless Chromium (frame-rate limit off) beside native torus bench"
	node scripts/bench-page.mjs

clean:
	@echo "==> removing build outputs"
	rm -rf $(PKG) $(VENDOR) dist

validate:
	@echo "==> model against simulation for every seed's set-up: docs/validation.md (about 15 min on two idle cores), then the channel-queue model over every routing x pattern: docs/validation/channel-queue.md"
	mkdir -p $(dir $(RESULTS))
	cargo run --release --bin torus -- validate --results $(RESULTS)

validate-channel-queue:
	@echo "==> the channel-queue model against simulation over every routing x pattern: docs/validation/channel-queue.md"
	mkdir -p $(dir $(RESULTS))
	cargo run --release --bin torus -- validate --channel-queue --results $(RESULTS)

validate-grid:
	@echo "==> the channel-queue model against simulation on every k = 4, 8, 16 and M = 1, 16, 32: docs/validation/channel-queue-grid.md (567 configurations; the models take most of the time)"
	mkdir -p $(dir $(RESULTS))
	cargo run --release --bin torus -- validate --grid --results $(RESULTS)

experiments:
	@echo "==> seed 004's experiments and the fault experiment: docs/experiments/*.md and *.csv (about 1.5 hours on two cores)"
	mkdir -p $(dir $(RESULTS))
	cargo run --release --bin torus -- experiment all --results $(RESULTS)

experiments-quick:
	@echo "==> seed 004's experiments and the fault experiment, shortened runs"
	cargo run --release --bin torus -- experiment all --quick

experiment-faults:
	@echo "==> latency and delivered throughput against random link faults: docs/experiments/faults.md, .csv, faults-*.svg"
	mkdir -p $(dir $(RESULTS))
	cargo run --release --bin torus -- experiment faults --results $(RESULTS)

coverage:
	@echo "==> coverage of the within-run confidence interval: docs/coverage.md and .csv (about 20 min on two cores)"
	cargo run --release --bin torus -- coverage

# Every router organisation of router= on seed 004's set-up (docs/experiments/router.md): part of
# `make experiments`, here on its own.
experiment-router:
	@echo "==> router organisations on seed 004's set-up: docs/experiments/router.md and .csv"
	mkdir -p $(dir $(RESULTS))
	cargo run --release --bin torus -- experiment router --results $(RESULTS)

experiment-router-quick:
	@echo "==> router organisations on seed 004's set-up, shortened runs"
	cargo run --release --bin torus -- experiment router --quick

fuzz:
	@echo "==> fuzzing the scenario parser with 10^6 generated inputs"
	FUZZ_CASES=1000000 cargo test --release --test fuzz_scenario -- --nocapture

fuzz-libfuzzer:
	@echo "==> coverage-guided fuzzing (needs nightly Rust and: cargo install cargo-fuzz)"
	cargo +nightly fuzz run scenario -- -dict=fuzz/scenario.dict -max_total_time=600

soak:
	@echo "==> overload soak: every algorithm at twice its saturation load (SOAK_CYCLES, default 10^7)"
	@command -v /usr/bin/time >/dev/null || (apt-get update && apt-get install -y time)
	cargo build --release --bin torus
	scripts/soak.sh
	@echo "==> 10^6 cycles of uniform overload with every-cycle invariant checks (debug assertions)"
	OVERLOAD_CYCLES=1000000 cargo test --test overload -- survives_sustained_overload

soak-faults:
	@echo "==> soak with faults: every algorithm, 5% of links failed, at the injection limit (FAULT_SOAK_CYCLES, default 10^6)"
	FAULT_SOAK_CYCLES=$${FAULT_SOAK_CYCLES:-1000000} cargo test --release --test fault_soak -- --nocapture
