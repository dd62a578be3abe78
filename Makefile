# filedrop: two commands matter.
#   make run    build and serve ./uploads on port 8080 (PORT=...)
#   make test   unit tests, integration tests against the real binary, a short fuzz run
# What a target needs is installed with it, and only when missing: `make build` and `make run`
# the build packages alone, `make test` the test packages and the Python environment too.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

SWIFT ?= swift
PYTHON ?= python3
PORT ?= 8080
# [::] is dual-stack: IPv4 and IPv6 on one socket.
LISTEN ?= [::]:$(PORT)
SAVE_DIR ?= ./uploads
RUN_FLAGS ?=
# Seconds per fuzz target: short inside `make test`, longer for `make fuzz`.
TEST_FUZZ_SECONDS ?= 20
FUZZ_SECONDS ?= 600

BIN ?= .build/release/filedrop
# One release build serves `make run`, the integration tests and the .deb (so CI compiles it
# once, and the tests run the binary that ships): the Swift standard library linked in, so
# the package needs no Swift runtime; -z now -z relro for full RELRO, as dpkg-buildflags asks.
RELEASE_BUILD_FLAGS := -c release --static-swift-stdlib -Xlinker -z -Xlinker now -Xlinker -z -Xlinker relro
VENV := .venv
VENV_STAMP := $(VENV)/.requirements-installed
REQUIREMENTS := Tests/EndToEnd/requirements.txt
# What `swift build` (and so `make run`) needs: the C libraries' headers and pkg-config;
# libcurl4-openssl-dev because filedrop-client links the static FoundationNetworking, which needs libcurl.so.
BUILD_PACKAGES := libsystemd-dev zlib1g-dev libqrencode-dev libcurl4-openssl-dev libssl-dev libcrypt-dev libavahi-client-dev pkg-config
# What the tests need besides (installed by `make test` and the test targets, never by `make build`):
# curl, wget, unzip: real clients of the download and upload tests;
# dpkg-dev, debootstrap, systemd-container: the .deb and the real-systemd test;
# chromium: the page's browser tests (driven by Playwright from PyPI, never its own browser).
# libarchive-tools: bsdtar, a second ZIP reader for the download tests.
# strace: test_never_wait.py checks that no fsync, rename or unlink runs on an event-loop thread.
# libnss3-tools: certutil, to trust the test CA in Chromium's NSS database (test_https_browser.py);
# testssl.sh: the outside TLS audit (test_tls_audit.py); openssl: the tests' certificates;
# iproute2: the address-change test's network namespace; rclone: its HTTP backend copies a folder.
# prometheus: promtool checks GET /metrics (test_metrics.py); Debian ships promtool in no smaller
# package (96 MB installed; on a host booted with systemd it also enables prometheus.service).
TEST_PACKAGES := curl wget unzip dpkg-dev debootstrap systemd-container chromium libarchive-tools strace libnss3-tools testssl.sh openssl iproute2 rclone prometheus haproxy bindfs fuse3
# What `swift test` needs besides the build packages (so `make unit-test` installs no more):
# openssl, the outside witness of the certificates FiledropIOTests make.
UNIT_TEST_PACKAGES := openssl
# pytest-xdist workers for the end-to-end tests: one per core (nproc counts only the cores
# this process may use). Tests marked serial in Tests/EndToEnd run after them, alone.
TEST_JOBS ?= $(shell nproc)
FUZZ_SCRIPT := scripts/fuzz.sh
# A fuzz target is a directory with an entry point (Fuzz/FuzzHTTPHead/main.swift -> FuzzHTTPHead).
FUZZ_TARGETS = $(patsubst Fuzz/%/main.swift,%,$(wildcard Fuzz/*/main.swift))

.PHONY: lint deps build-deps test-deps test-packages unit-test-packages build check-hot-text run serve test unit-test integration-test systemd-test test-fuzz fuzz deb bench clean

## deps: everything the build and the tests need, each package installed only when missing.
deps: build-deps test-deps

## build-deps: the Debian packages `swift build` needs (all that `make build` and `make run` install).
build-deps:
	@$(call install-missing,$(BUILD_PACKAGES))

## test-deps: the test packages and the Python test environment.
test-deps: test-packages $(VENV_STAMP)

unit-test-packages:
	@$(call install-missing,$(UNIT_TEST_PACKAGES))

# python3-venv too while Python cannot make a virtual environment.
test-packages:
	@$(call install-missing,$(TEST_PACKAGES) $$($(PYTHON) -c 'import venv, ensurepip' >/dev/null 2>&1 || echo python3-venv))

# $(1): Debian packages; those not installed are installed with apt-get (sudo unless root).
define install-missing
missing=""; \
for pkg in $(1); do \
    status=$$(dpkg-query -W -f='$${Status}' "$$pkg" 2>/dev/null || true); \
    [ "$$status" = "install ok installed" ] || missing="$$missing $$pkg"; \
done; \
if [ -n "$$missing" ]; then \
    echo "deps: installing$$missing"; \
    sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
    $$sudo apt-get update; \
    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing; \
fi
endef

# Rebuilt when the requirements change; a venv that already has them is only stamped.
$(VENV_STAMP): $(REQUIREMENTS) | test-packages
	@[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r $(REQUIREMENTS)
	@touch $@

## build: the release binary the daemon runs from and the integration tests start.
build: build-deps
	FILEDROP_TUNED_LINK=1 $(SWIFT) build $(RELEASE_BUILD_FLAGS)

## run: build, then serve $(SAVE_DIR) on $(PORT); the daemon prints the URLs to open.
run: build serve

## serve: start the already built binary exactly as `make run` does (used by its test).
serve:
	@mkdir -p $(SAVE_DIR)
	exec $(BIN) $(foreach address,$(LISTEN),--listen '$(address)') --save-dir $(SAVE_DIR) $(RUN_FLAGS)

## test: everything, failing on the first step that fails.
test: lint deps build check-hot-text unit-test integration-test systemd-test test-fuzz

## lint: the Swift sources as swift-format (from the toolchain) writes them, by .swift-format;
## `swift format -i -r Sources Tests Fuzz Plugins Package.swift` fixes what it reports.
lint:
	$(SWIFT) format lint --strict --parallel --recursive Sources Tests Fuzz Plugins Package.swift

## check-hot-text: the release daemon still holds most of the functions hot-text.order lays out.
check-hot-text: build
	scripts/check-hot-text.sh $(BIN)

# Needs `build`: the URLSession tests (Tests/URLSessionTests) start the release binary.
# Two processes: some unit suites swap file descriptors 3-5 to test socket activation,
# which must never race with the URLSession suites that start daemons.
unit-test: build unit-test-packages
	$(SWIFT) test --skip URLSessionTests
	FILEDROP_BIN=$(abspath $(BIN)) $(SWIFT) test --filter URLSessionTests

# Two runs: the tests that may run side by side, spread over TEST_JOBS workers a file at a
# time (a module's browser and fixtures are made once), then those marked serial, alone.
integration-test: test-deps build
	FILEDROP_BIN=$(abspath $(BIN)) $(VENV)/bin/python -m pytest Tests/EndToEnd -m 'not serial' -n $(TEST_JOBS) --dist loadfile
	FILEDROP_BIN=$(abspath $(BIN)) $(VENV)/bin/python -m pytest Tests/EndToEnd -m serial

## bench: filedrop against nginx, lighttpd, copyparty and uploadserver (figures, never a test)
# The browser row (bench/browser_upload.py) needs Playwright and tuspy from the test environment.
# The SHA-256 cost at LAN speed needs network namespaces, so root; elsewhere it says how to run it.
bench: build
	$(PYTHON) bench/run.py
	$(PYTHON) bench/cluster.py
	@if [ -x $(VENV)/bin/python ]; then $(VENV)/bin/python bench/browser_upload.py; \
	else echo "bench: skipped bench/browser_upload.py (the page in Chromium): make test-deps first"; fi
	@if [ "$$(id -u)" = 0 ]; then $(PYTHON) bench/sha256_lan.py; \
	else echo "bench: skipped bench/sha256_lan.py (SHA-256 cost over a 1 Gbit/s veth): run it as root"; fi

## deb: debian-build/filedrop_<version>_<arch>.deb (lintian runs if installed)
# dpkg-dev comes with the test packages: the .deb is built for the systemd test, or by hand to ship.
deb: test-packages build
	packaging/build-deb.sh

## systemd-test: install the .deb in a booted Debian 12 container and check the service
systemd-test: deb
	Tests/Systemd/run.sh

# A bounded run of each fuzz target; skipped until the fuzz script and targets exist.
# TEST_JOBS at a time: a libFuzzer run takes one core, and fuzz.sh builds what the targets
# share once, under a lock. Each target's output is printed whole when it ends.
test-fuzz:
	@if [ ! -f $(FUZZ_SCRIPT) ] || [ -z "$(FUZZ_TARGETS)" ]; then \
	    echo "fuzz: no $(FUZZ_SCRIPT) or no Fuzz/ targets, skipping"; \
	else \
	    $(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(addprefix test-fuzz-,$(FUZZ_TARGETS)); \
	fi

# One target's bounded run: `make test-fuzz-FuzzChunked`.
test-fuzz-%:
	bash $(FUZZ_SCRIPT) $* $(TEST_FUZZ_SECONDS)

## fuzz: longer runs of every fuzz target (FUZZ_SECONDS each).
fuzz: build-deps
	@[ -f $(FUZZ_SCRIPT) ] || { echo "fuzz: $(FUZZ_SCRIPT) is missing" >&2; exit 1; }
	@for target in $(FUZZ_TARGETS); do bash $(FUZZ_SCRIPT) "$$target" $(FUZZ_SECONDS); done

## clean: build products and the test environment; never $(SAVE_DIR).
clean:
	rm -rf .build $(VENV) debian-build
	rm -f crash-* leak-* timeout-* oom-*
