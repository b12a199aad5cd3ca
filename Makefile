# Chakra: build, test, run. `make help` lists the targets.
SWIFT ?= swift
OUT ?= out
SIZE ?= 1280x720

.PHONY: help deps build release test run demo bench render allocations clean

help:
	@echo "make run     install what is missing, build and run the daemon (headless where there is no display)"
	@echo "make test    install what is missing and run the whole test suite (unit tests, then QEMU kernel tests)"
	@echo "make demo    render heart frames to $(OUT)/ and run the benchmark"
	@echo "make vm-test the kernel tests in QEMU guests only (tests/vm)"
	@echo "make bench   chakrad bench (release build)"
	@echo "make render  one PNG: make render TIME=12.5 SIZE=1920x1080"
	@echo "make allocations  heap allocations per rendered frame (valgrind; must be 0)"

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Unit tests, then the kernel tests in QEMU guests (tests/vm) with the
# release chakrad.
test: deps
	$(SWIFT) test
	$(SWIFT) build -c release
	CHAKRAD=$(CURDIR)/.build/release/chakrad tests/vm/run-all.sh

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

TIME ?= 0
render: release
	@mkdir -p $(OUT)
	.build/release/chakrad render --scene heart --time $(TIME) --size $(SIZE) -o $(OUT)/heart-$(SIZE)-t$(TIME).png

clean:
	rm -rf .build $(OUT)

# Heap allocations per frame (must be 0), with valgrind.
allocations: release
	for scene in heart drift calm spiral; do scripts/count-allocations.sh $$scene || exit 1; done

# Integration tests in QEMU guests on Debian's kernel (tests/vm/README.md).
# Installs QEMU and the kernel when it can; skips with a message otherwise.
.PHONY: vm-test
vm-test:
	tests/vm/run-all.sh
