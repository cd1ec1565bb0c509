# edged: every target installs what it needs first (scripts/deps.sh is
# idempotent), so each works on a fresh Debian machine as root.
SHELL := /bin/bash
export PATH := $(CURDIR)/bin:/usr/local/go/bin:$(PATH)
GO ?= go
PKGS := ./...
FUZZTIME ?= 30s
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# The commit too: go build does not stamp vcs.revision in a git worktree
# or under -buildvcs=false; `edged version` reports either.
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps build test check unit fuzz bench soak stress demo install deb clean fleet-bench fleet-compare

all: build

deps:
	@scripts/deps.sh

build: deps
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/edged ./cmd/edged

# The CI gate: formatting, go.mod/go.sum tidy, vet, staticcheck, generated
# code current, then every test with the race detector (unit tests and
# integration tests against real rosmaster, rospy, mosquitto, Cyclone
# DDS, versitygw and libjpeg-turbo), then the pure-Go builds' tests (the
# JPEG fallback, the Cyclone DDS twin).
test: deps check unit

check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy and commit the result"; $(GO) mod tidy -diff; exit 1; }
	$(GO) vet $(PKGS)
	bin/staticcheck $(PKGS)
	scripts/gen-check.sh

unit:
	$(GO) test -race -timeout 12m $(PKGS)
	$(GO) test -tags purego -timeout 5m ./sheet/... ./ros2/...

# Every fuzz target for FUZZTIME each (make fuzz FUZZTIME=5m).
fuzz: deps
	@scripts/fuzz.sh $(FUZZTIME)

# Benchmarks with the same-run reference comparisons (ratios), ending with
# one table of them; fails when an aim is missed (not part of make test).
bench: build
	@scripts/bench.sh

# ROBOTS simulated robots against 1, then 2 sinks of one group on
# mosquitto; figures in docs/fleet.md (not part of make test). FLEET_FLAGS
# passes more, e.g. FLEET_FLAGS="-sink-cpu 0.02 -tmp /dev/shm".
ROBOTS ?= 1000
FLEET_FLAGS ?=
fleet-bench: build
	@[ "$$(ulimit -n)" -ge 4096 ] || ulimit -n 65536 2>/dev/null || ulimit -n 4096; \
	for n in 1 2; do $(GO) run ./bench/fleet -robots $(ROBOTS) -sinks $$n $(FLEET_FLAGS) -json bin/fleet-$(ROBOTS)-$$n.json || exit 1; done

# What 2 sinks sustain against 1, both fleets at once so that they see
# the same machine, each sink held to 5% of a core (needs root for the
# CPU cgroups); figures in docs/fleet.md.
fleet-compare: build
	@[ "$$(ulimit -n)" -ge 4096 ] || ulimit -n 65536 2>/dev/null || ulimit -n 4096; \
	$(GO) run ./bench/fleet -compare -robots $(ROBOTS) -cameras 2 -episode 40s -sinks 2 -sink-cores 1 -sink-cpu 0.05 \
		-tmp /dev/shm $(FLEET_FLAGS) -json bin/fleet-compare-$(ROBOTS).json

soak: build
	@scripts/soak.sh

# edged against hostile peers and a bad disk, a few minutes (not part of
# make test): peak RSS against its documented bound, nothing lost at the
# sink (stress/README.md).
stress: build
	@scripts/stress.sh

# The main job on a sample episode the project generates itself
# (make demo BAG=../shared/data/g1_ep29.bag plays a real bag instead).
demo: build
	@scripts/demo.sh $(BAG)

# Binary, systemd unit and sample config (an existing config is kept), and
# the dedicated system user; then: systemctl enable --now edged.
install: build
	install -D -m 0755 bin/edged $(DESTDIR)$(PREFIX)/bin/edged
	install -D -m 0644 systemd/edged.service $(DESTDIR)/etc/systemd/system/edged.service
	@if [ -e $(DESTDIR)/etc/edged/edged.yaml ]; then echo "keeping $(DESTDIR)/etc/edged/edged.yaml"; \
	else install -D -m 0644 systemd/edged.yaml $(DESTDIR)/etc/edged/edged.yaml; fi
	@if [ -z "$(DESTDIR)" ] && ! id edged >/dev/null 2>&1; then \
	  useradd --system --no-create-home --home-dir /var/lib/edged --shell /usr/sbin/nologin edged; fi
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "installed; edit /etc/edged/edged.yaml, then: systemctl enable --now edged"

# Debian packages for robots, amd64 and arm64, into dist/ (not part of
# make test): arm64 cross-built with Debian's toolchain and multiarch
# libraries, run under qemu-user (edged version, edged sheet, the unit
# tests of sheet/ and ros/), both linted; scripts/deb.sh installs its tools.
deb: deps
	@scripts/deb.sh

clean:
	rm -rf bin out demo-out dist
