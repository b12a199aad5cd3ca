# Chakra: build, test, run. `make help` lists the targets.
SWIFT ?= swift
OUT ?= out
SIZE ?= 1280x720

.PHONY: help deps package-deps test-deps build release release-build test run demo bench render allocations clean install install-test uninstall deb release-check

# Release binaries are what a kiosk runs, so they must start on a machine
# without the Swift toolchain: the Swift runtime (and the Foundation parts a
# binary uses) linked in statically, no $$ORIGIN rpath, full RELRO, and the
# build machine's directory mapped away from the source paths that end up
# in assertion messages and debug information. The only shared libraries
# left are Debian's (scripts/check-release-binaries.sh holds that true).
# SWIFT_SDK cross-compiles with a Swift SDK (`swift sdk list`), e.g. for
# arm64 boards: docs/packaging.md.
SCRATCH ?= .build
SWIFT_SDK ?=
RELEASE_FLAGS = -c release --static-swift-stdlib --disable-local-rpath --scratch-path $(SCRATCH) \
	$(if $(SWIFT_SDK),--swift-sdk $(SWIFT_SDK)) \
	-Xswiftc -file-prefix-map -Xswiftc $(CURDIR)=/usr/src/chakra \
	-Xcc -ffile-prefix-map=$(CURDIR)=/usr/src/chakra -Xcxx -ffile-prefix-map=$(CURDIR)=/usr/src/chakra \
	-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now

help:
	@echo "make run     install what is missing, build and run the daemon (headless where there is no display)"
	@echo "make test    install what is missing and run the whole test suite (unit tests, the package, then QEMU kernel tests)"
	@echo "make unit    the unit tests only (swift test)"
	@echo "make arm64-test  the arm64 package, the renderer's tests and frames under qemu-aarch64, the frame's cost (as root)"
	@echo "make demo    render heart frames to $(OUT)/ and run the benchmark"
	@echo "make vm      the kernel tests in QEMU guests only (tests/vm; CASES=\"touch spiral\" picks cases by name; CHAKRA_VM_JOBS=N guests at a time, default 2 on 2+ cores)"
	@echo "make bench   chakrad bench (release build)"
	@echo "make render  one PNG: make render TIME=12.5 SIZE=1920x1080"
	@echo "make allocations  heap allocations per rendered frame (valgrind; must be 0)"
	@echo "make fuzz    each libFuzzer target for FUZZ_SECONDS (60) seconds (tests/fuzz)"
	@echo "make bench-report   the benchmark as a Markdown table and a PNG chart in out/bench"
	@echo "make flood   the release daemon under a client flood (tests/flood)"
	@echo "make soak    the release daemon driven for SOAK_MINUTES (120), RSS/fds/threads sampled (tests/soak)"
	@echo "make install  binaries, systemd units, sysusers.d, udev rule, example config (PREFIX=$(PREFIX) DESTDIR=)"
	@echo "make deb     the Debian package: out/deb/chakra_VERSION_ARCH.deb; ARCH=arm64 cross-builds the arm64 one (Debian 13, as root; docs/packaging.md)"

# What building and running need; test-deps adds QEMU, a guest kernel,
# debootstrap, debhelper and lintian for `make test`.
deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

build: deps
	$(SWIFT) build

release: deps release-build

release-build:
	$(SWIFT) build $(RELEASE_FLAGS)

# The release binaries need nothing from the toolchain's directory.
release-check: release
	scripts/check-release-binaries.sh $(BUILD_DIR)

# Unit tests; the TOML reader against the public TOML test suites
# (fetched from PyPI once, cached); each fuzz target for FUZZ_TEST_SECONDS
# (40), two at a time on 2 cores (longer runs with make fuzz); the
# Debian package, its binaries and lintian (tests/packaging); the arm64
# package, the renderer's tests and frames on arm64 and its frame's cost
# (below, ARM64_*); the client
# flood and adversarial clients against the release chakrad
# (tests/flood), its restarts after SIGKILL, pairs of it started at once
# on one socket, its session records under SIGKILL, and configuration
# files that never end (tests/faults); its restarts through a stand-in for
# systemd's descriptor store (Tests/Scripts/continuity-harness.py: the
# scene's time goes on, the control socket is kept); then the kernel tests in QEMU
# guests (tests/vm), two at a time on 2 cores, with the release chakrad
# and chakractl that make deb built and the test binary of swift test; two
# of them boot Debian under systemd and install the package (amd64 on
# Debian 12, arm64 on Debian 13 under qemu-system-aarch64). The
# soak (make soak) is not here: it is hours, run by hand.
# Each step prints its wall time when it ends (scripts/step.sh), and a
# table of them all at the end or when one fails ($(TEST_STEPS)).
TEST_STEPS ?= $(OUT)/test-steps.txt
STEP = @scripts/step.sh $(TEST_STEPS)
# The arm64 steps (arm64: docs/packaging.md): the package (make deb
# ARCH=arm64), the renderer's unit tests built by Swift 6.0.3 and run
# under qemu-aarch64, every frame equal to amd64's, the aarch64 frame's
# instruction count within tests/arm64/frame-budget.txt. Their build root
# (Debian 13 with Swift 6.0.3, 3 GB, cached in ~/.cache/chakra-arm64) and
# the arm64 guest's root and kernel (70-debian-arm64's, cached in
# ~/.cache/chakra-vm) are begun in the background when the unit tests end
# (scripts/arm64/head-start.sh), beside the TOML, fuzz and package steps;
# what needs them waits on their locks. Logs: $(OUT)/arm64-*.log.
ARM64_ROOT = $(or $(CHAKRA_ARM64_CACHE),$(HOME)/.cache/chakra-arm64)/root
ARM64_CHAKRAD = $(CURDIR)/$(ARM64_SCRATCH)/aarch64-unknown-linux-gnu/release/chakrad
ARM64_RUNNER = $(ARM64_ROOT)/opt/chakra-arm64/bin/qemu-aarch64 -L $(ARM64_ROOT)
test:
	@rm -f $(TEST_STEPS)
	$(STEP) deps scripts/install-deps.sh --test
	$(STEP) unit $(SWIFT) test
	@scripts/arm64/head-start.sh $(OUT)
	$(STEP) toml tests/toml/conformance.sh
	$(STEP) fuzz tests/fuzz/run.sh $(FUZZ_TEST_SECONDS)
	$(STEP) deb $(MAKE) --no-print-directory deb
	@$(MAKE) --no-print-directory arm64-steps
	$(STEP) packaging tests/packaging/run.sh
	$(STEP) flood tests/flood/flood.py $(CURDIR)/.build/release/chakrad 0.5
	$(STEP) adversary tests/flood/adversary.py $(CURDIR)/.build/release/chakrad
	$(STEP) restart tests/faults/restart.py $(CURDIR)/.build/release/chakrad
	$(STEP) pairs tests/faults/pairs.py $(CURDIR)/.build/release/chakrad
	$(STEP) sessions tests/faults/sessions.py $(CURDIR)/.build/release/chakrad
	$(STEP) configfiles tests/faults/configfiles.py $(CURDIR)/.build/release/chakrad
	$(STEP) continuity Tests/Scripts/continuity-harness.py $(CURDIR)/.build/release/chakrad $(CURDIR)/.build/release/chakractl
	$(STEP) vm env CHAKRAD=$(CURDIR)/.build/release/chakrad CHAKRACTL=$(CURDIR)/.build/release/chakractl \
		CHAKRA_TESTS=$(CURDIR)/.build/debug/ChakraPackageTests.xctest tests/vm/run-all.sh
	@scripts/step.sh $(TEST_STEPS) --table

# The arm64 steps of make test alone (as root): the package, the
# renderer's tests under qemu-aarch64, the same frames (beside the amd64
# release build's), the frame's cost.
.PHONY: arm64-test arm64-steps
arm64-test: release
	@$(MAKE) --no-print-directory arm64-steps
arm64-steps:
	$(STEP) arm64-deb $(MAKE) --no-print-directory deb ARCH=arm64
	$(STEP) arm64-unit tests/arm64/unit-tests.sh
	$(STEP) arm64-pixels tests/arm64/same-pixels.py $(CURDIR)/.build/release/chakrad $(ARM64_CHAKRAD) --runner "$(ARM64_RUNNER)"
	$(STEP) arm64-cost tools/insn-count/count.py --arm64 $(ARM64_CHAKRAD) --sysroot $(ARM64_ROOT) --budget tests/arm64/frame-budget.txt

# The unit tests alone (swift test).
.PHONY: unit
unit: deps
	$(SWIFT) test

# The daemon, on the first display it finds (DRM, then fbdev), or headless
# where there is none. Stop it with Ctrl-C.
run: release
	.build/release/chakrad run --output auto

# Heart frames as PNG files in $(OUT)/, then the benchmark.
demo: release
	@mkdir -p $(OUT)
	.build/release/chakrad render --scene heart --time 1.0 --size 390x844 -o $(OUT)/heart-390x844.png
	.build/release/chakrad render --scene heart --time 12.5 --size $(SIZE) -o $(OUT)/heart-$(SIZE).png
	.build/release/chakrad render --scene heart --size $(SIZE) --reduce-motion -o $(OUT)/heart-$(SIZE)-reduce-motion.png
	.build/release/chakrad bench --scene heart

bench: release
	.build/release/chakrad bench

# The benchmark as a Markdown table and a PNG chart in $(OUT)/bench
# (tools/bench-report; matplotlib in a virtual environment made once).
# BENCH_OPTIONS: e.g. --instructions (callgrind counts, minutes), --size WxH.
BENCH_VENV ?= $(HOME)/.cache/chakra-bench/venv
BENCH_OPTIONS ?=
.PHONY: bench-report
bench-report: release
	test -x $(BENCH_VENV)/bin/python || { python3 -m venv $(BENCH_VENV) && $(BENCH_VENV)/bin/pip install --quiet matplotlib; }
	$(BENCH_VENV)/bin/python tools/bench-report/bench-report.py .build/release/chakrad $(OUT)/bench $(BENCH_OPTIONS)

TIME ?= 0
render: release
	@mkdir -p $(OUT)
	.build/release/chakrad render --scene heart --time $(TIME) --size $(SIZE) -o $(OUT)/heart-$(SIZE)-t$(TIME).png

clean:
	rm -rf .build $(OUT)

# Heap allocations per frame (must be 0), with valgrind.
allocations: release
	for scene in heart drift calm spiral; do scripts/count-allocations.sh $$scene || exit 1; done

# Coverage-guided fuzzing of every parser (libFuzzer + AddressSanitizer;
# docs/robustness.md): FUZZ_SECONDS per target, FUZZ_TARGETS to choose,
# CHAKRA_FUZZ_JOBS targets at a time (default 2 on 2 cores or more, else 1).
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 40
FUZZ_TARGETS ?=
.PHONY: fuzz
fuzz: deps
	tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The release chakrad under a client flood (1,000 connections held open
# and 100 subscribers that never read): ping under 100 ms, frame p99
# within 10 %, descriptors back (tests/flood/flood.py, about 70 s); then
# under adversarial clients (longest lines of costly shapes, snapshots
# from clients that leave): ping p99 and max under 50 ms, frame rate
# within 15 %, the operator's snapshot within 2 s (tests/flood/adversary.py,
# about 30 s).
.PHONY: flood soak
flood: release
	tests/flood/flood.py $(BUILD_DIR)/chakrad
	tests/flood/adversary.py $(BUILD_DIR)/chakrad

# The release chakrad at 1080p driven through switches, settings,
# snapshots, subscriptions, the spiral and reloads for SOAK_MINUTES,
# sampling RSS, descriptors and threads every 10 s (tests/soak/soak.py).
SOAK_MINUTES ?= 120
soak: release
	tests/soak/soak.py $(BUILD_DIR)/chakrad $(SOAK_MINUTES) $(OUT)/soak.csv

# Integration tests in QEMU guests on Debian's kernel (tests/vm/README.md),
# CHAKRA_VM_JOBS guests at a time (default 2 on 2 cores or more, else 1).
# CASES: only the cases whose names contain one of these words
# (make vm CASES="touch spiral"). Installs QEMU and the kernel when it can;
# skips with a message otherwise.
CASES ?=
.PHONY: vm-test vm
vm-test vm:
	tests/vm/run-all.sh $(CASES)

# Installation. PREFIX for programs and data, DESTDIR for staging (packages,
# tests). The configuration lives in $(SYSCONFDIR)/chakra, where chakrad
# looks by default; an existing chakra.toml is never overwritten (the
# pristine example is always in $(DATADIR)). BUILD_DIR names where the
# binaries are: the release build by default (built if needed).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
DATADIR ?= $(PREFIX)/share/chakra
DOCDIR ?= $(PREFIX)/share/doc/chakra
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
BUILD_DIR ?= .build/release
INSTALL ?= install
UNIT_VARS = -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g'

install: $(if $(filter .build/release,$(BUILD_DIR)),release)
	@test -x $(BUILD_DIR)/chakrad && test -x $(BUILD_DIR)/chakractl || { echo "no chakrad and chakractl in $(BUILD_DIR)" >&2; exit 1; }
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(UDEVRULESDIR) \
		$(DESTDIR)$(SYSCONFDIR)/chakra/lang $(DESTDIR)$(SYSCONFDIR)/chakra/chakra.toml.d $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 0755 $(BUILD_DIR)/chakrad $(BUILD_DIR)/chakractl $(DESTDIR)$(BINDIR)/
	sed $(UNIT_VARS) systemd/chakrad.service > $(DESTDIR)$(UNITDIR)/chakrad.service
	sed $(UNIT_VARS) systemd/chakrad.socket > $(DESTDIR)$(UNITDIR)/chakrad.socket
	chmod 0644 $(DESTDIR)$(UNITDIR)/chakrad.service $(DESTDIR)$(UNITDIR)/chakrad.socket
	$(INSTALL) -m 0644 systemd/chakra-console.service $(DESTDIR)$(UNITDIR)/chakra-console.service
	$(INSTALL) -m 0644 systemd/sysusers.d/chakra.conf $(DESTDIR)$(SYSUSERSDIR)/chakra.conf
	$(INSTALL) -m 0644 etc/udev/rules.d/90-chakra-backlight.rules $(DESTDIR)$(UDEVRULESDIR)/
	$(INSTALL) -m 0644 etc/chakra/chakra.toml $(DESTDIR)$(DATADIR)/chakra.toml.example
	test -e $(DESTDIR)$(SYSCONFDIR)/chakra/chakra.toml || $(INSTALL) -m 0644 etc/chakra/chakra.toml $(DESTDIR)$(SYSCONFDIR)/chakra/chakra.toml
	$(INSTALL) -m 0644 etc/chakra/lang/*.toml $(DESTDIR)$(SYSCONFDIR)/chakra/lang/
	$(INSTALL) -m 0644 README.md docs/protocol.md docs/configuration.md docs/display.md docs/input.md docs/spiral.md $(DESTDIR)$(DOCDIR)/
	@echo "installed under $(DESTDIR)$(PREFIX); then: systemd-sysusers && udevadm control --reload && systemctl daemon-reload && systemctl enable --now chakrad"

# The Debian package: out/deb/chakra_VERSION_ARCH.deb (debian/, debhelper),
# built from the release binaries of $(SCRATCH). ARCH=arm64 on an amd64
# machine: the arm64 package for Debian 13, with the same debian/, built in a
# Debian 13 root with its Swift 6.0.3 and arm64 libraries (made once and
# cached outside git, ~/.cache/chakra-arm64), from $(ARM64_SCRATCH)
# (scripts/arm64/deb.sh; needs root).
ARM64_SCRATCH ?= .build-arm64
ifeq ($(ARCH)-$(shell dpkg --print-architecture 2>/dev/null),arm64-amd64)
deb:
	SCRATCH=$(ARM64_SCRATCH) scripts/arm64/deb.sh
else
deb: package-deps
	SCRATCH=$(SCRATCH) scripts/build-deb.sh
endif

package-deps:
	@scripts/install-deps.sh --package

# What `make install` lays out, checked in a staging directory.
install-test:
	tests/install/run.sh

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/chakrad $(DESTDIR)$(BINDIR)/chakractl \
		$(DESTDIR)$(UNITDIR)/chakrad.service $(DESTDIR)$(UNITDIR)/chakrad.socket $(DESTDIR)$(UNITDIR)/chakra-console.service \
		$(DESTDIR)$(SYSUSERSDIR)/chakra.conf $(DESTDIR)$(UDEVRULESDIR)/90-chakra-backlight.rules
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	@echo "kept $(DESTDIR)$(SYSCONFDIR)/chakra/chakra.toml"
