# moonbridge: make drives CMake (BoringSSL and the C shim) and Go (everything else).
#
#   make / make build   bin/moonbridge, cgo with BoringSSL linked statically
#   make purego         bin/moonbridge-purego, CGO_ENABLED=0 (crypto/tls only)
#   make cross          pure-Go builds for darwin/arm64, darwin/amd64, windows/amd64
#   make test           test-deps, native, both builds, vet, go test -race (cgo), the allocation tests
#                       without -race (cgo), go test (purego), the shim's test under AddressSanitizer,
#                       go test of deploy/ (the image builder, the Kubernetes manifests, the
#                       package-manager manifests), test-kube, every fuzz target for FUZZ_TIME
#                       (default 10s) each (scripts/fuzz.sh); the parts run at once, TEST_JOBS of
#                       them (default 4), each part's output kept together
#   make test-kube      Kubernetes discovery and deploy/kubernetes against a real kube-apiserver and
#                       etcd on loopback (test/kubeapi; both built once into MOONBRIDGE_CACHE/kube
#                       by scripts/kube-binaries.sh)
#   make test-quick     go test, pure Go, no -race, of the packages a change touches: those with a
#                       file that differs from BASE (default main) in the work tree, committed or
#                       not, or is untracked, and the packages importing them (tests included);
#                       go.mod or go.sum touches all (scripts/changed-packages.sh)
#   make run            build and start `bin/moonbridge serve` with embedded defaults
#   make bench          the quick end-to-end benchmark (bin/mbbench against bin/moonbridge)
#   make bench-micro    go test -bench of ws, gossl and relay
#   make bench-join     join time through a simulated CDN path: raw TCP, the bridge over ws, wss (root)
#   make bench-wire     bridge and proxy CPU per frame and bytes on the wire over that path (root)
#   make interop        moonbridge against node-minecraft-protocol (npm) over tcp, ws, wss
#   make interop-transfer  a drain that moves nmp's 1.21 players to a second instance, over tcp,
#                       ws and wss (bench/interop/transfer.sh)
#   make interop-upgrade  nmp's players of 1.8.9, 1.12.2 and 1.21.4 play on through SIGUSR2, over
#                       tcp, ws and wss (bench/interop/upgrade.sh; Linux)
#   make interop-image  dist's container image in podman: read-only, non-root, its config mounted,
#                       nmp playing through it over tcp, ws and wss, its drain on SIGTERM
#                       (bench/interop/image.sh; runs make dist when dist/ has no image of this
#                       version)
#   make interop-docker  Docker discovery and wake against a real podman's API, as root
#                       (bench/interop/docker.sh)
#   make deps           install missing Debian packages (as root) or print the command
#                       (scripts/bootstrap.sh base; test-deps, dist-deps, interop, interop-image,
#                       interop-docker, bench-peers add sets: the tests' chromium comes with
#                       test-deps, not with build or run)
#   make clean          remove build outputs (the BoringSSL cache stays: MOONBRIDGE_CACHE)

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

GO ?= go
BUILD := build
BIN := bin
PKG := github.com/moonbridge/moonbridge
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
GO_LDFLAGS := -X $(PKG)/cmd/internal/buildinfo.version=$(VERSION) -X $(PKG)/cmd/internal/buildinfo.commit=$(COMMIT)
GO_BUILD := $(GO) build -trimpath -ldflags '$(GO_LDFLAGS)'
CGO_TAGS := boringssl

# cgo finds the shim and BoringSSL through the pkg-config file CMake generates.
export PKG_CONFIG_PATH := $(CURDIR)/$(BUILD)/pkgconfig

.PHONY: build purego cross native native-asan deps test-deps test test-parts test-quick vet vet-cgo vet-purego vet-darwin \
	vet-windows vet-deploy vet-kube test-cgo test-allocs test-purego test-native test-deploy test-kube test-fuzz \
	run bench bench-micro bench-join bench-wire bench-peers interop interop-transfer interop-upgrade interop-image interop-docker mbbench clean

# Go keys its build cache on PKG_CONFIG_PATH and on library paths, not on the C archives' bytes,
# so after the shim or BoringSSL changes it would reuse cgo packages compiled, link flags and
# all, against the old ones (a test binary was once linked with another BoringSSL this way).
# NATIVE_ID, a hash of the archives taken after `make native`, goes into CGO_CFLAGS (part of
# every cgo package's cache key) and the link flags (`version --json` shows it).
# It is computed once, at its first use in a recipe (after `native` ran), and kept: hashing the
# archives takes a quarter of a second and a recipe uses it twice.
NATIVE_ID = $(eval NATIVE_ID := $(shell PKG_CONFIG_PATH=$(PKG_CONFIG_PATH) scripts/native-id.sh))$(NATIVE_ID)
CGO_ENV = CGO_ENABLED=1 CGO_CFLAGS='-O2 -g -DMB_NATIVE_ID=$(NATIVE_ID)'
CGO_LDFLAGS_ID = -X $(PKG)/cmd/internal/buildinfo.nativeID=$(NATIVE_ID)

build: native
	$(CGO_ENV) $(GO) build -trimpath -ldflags '$(GO_LDFLAGS) $(CGO_LDFLAGS_ID)' -tags $(CGO_TAGS) -o $(BIN)/moonbridge ./cmd/moonbridge

purego:
	CGO_ENABLED=0 $(GO_BUILD) -o $(BIN)/moonbridge-purego ./cmd/moonbridge

cross:
	@for target in darwin/arm64 darwin/amd64 windows/amd64; do \
	  os=$${target%/*}; arch=$${target#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "cross: $$os/$$arch"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO_BUILD) -o $(BIN)/moonbridge-purego-$$os-$$arch$$ext ./cmd/moonbridge; \
	done

deps:
	scripts/bootstrap.sh base

# What the Go tests need on top of the build: chromium for the landing page and dashboard tests.
test-deps:
	scripts/bootstrap.sh base browser

# obtain.sh is cheap when its cache is warm, so it runs every time and CMake decides what to redo.
native: deps
	prefix=$$(third_party/boringssl/obtain.sh); \
	cmake -S . -B $(BUILD) -G Ninja -DBORINGSSL_ROOT="$$prefix" >/dev/null; \
	cmake --build $(BUILD)

native-asan: deps
	prefix=$$(third_party/boringssl/obtain.sh); \
	cmake -S . -B $(BUILD)/asan -G Ninja -DBORINGSSL_ROOT="$$prefix" -DMOONBRIDGE_ASAN=ON >/dev/null; \
	cmake --build $(BUILD)/asan

# vet and the tests take -trimpath as the builds do, so that on a cold cache each package is
# compiled once for a build, its vet and its tests (the flag is part of Go's cache key).
vet: vet-cgo vet-purego vet-darwin vet-windows vet-deploy vet-kube

vet-cgo: native
	$(CGO_ENV) $(GO) vet -trimpath -tags $(CGO_TAGS) ./...

vet-purego:
	CGO_ENABLED=0 $(GO) vet -trimpath ./...

# The pure-Go builds for macOS and Windows, tests included; bench/ and mbbench read /proc and run
# on Linux only.
vet-darwin:
	CGO_ENABLED=0 GOOS=darwin $(GO) vet -trimpath ./...

vet-windows:
	CGO_ENABLED=0 GOOS=windows $(GO) vet -trimpath $$($(GO) list ./... | grep -v -e /bench -e /cmd/mbbench)

vet-deploy:
	$(GO) -C deploy vet ./...

vet-kube:
	CGO_ENABLED=0 $(GO) -C test/kubeapi vet -trimpath ./...

# go test runs up to GO_TEST_P test binaries at once (go's default is the number of CPUs): most
# tests wait on sockets, timers and child processes. mbbench's tests start the relay binary that
# `make purego` built (MOONBRIDGE_BIN) instead of building their own.
GO_TEST_P ?= 4
GO_TEST_ENV = MOONBRIDGE_BIN=$(CURDIR)/$(BIN)/moonbridge-purego

test-cgo: native purego test-deps
	$(CGO_ENV) $(GO_TEST_ENV) scripts/gotest.sh cgo -race -trimpath -count=1 -p $(GO_TEST_P) -timeout 20m -tags $(CGO_TAGS) -ldflags '$(CGO_LDFLAGS_ID)' ./...

# The allocation tests skip under -race (it makes sync.Pool drop buffers at random), so the cgo
# flavour runs them again without it; the purego run has no -race and runs them with the rest.
# Their names carry ALLOC_TESTS, which check-alloc-names.sh enforces, so one -run selects them.
# Tests named with NORACE_TESTS run here too: CPU-bound checks of one goroutine, which the race
# detector slows tenfold and has nothing to find in (they skip under -race).
ALLOC_TESTS := ZeroAllocs|Allocation
NORACE_TESTS := WithoutRace
test-allocs: native
	scripts/check-alloc-names.sh '$(ALLOC_TESTS)'
	$(CGO_ENV) scripts/gotest.sh cgo-allocs -run '$(ALLOC_TESTS)|$(NORACE_TESTS)' -trimpath -count=1 -p $(GO_TEST_P) -timeout 5m -tags $(CGO_TAGS) -ldflags '$(CGO_LDFLAGS_ID)' ./...

test-purego: purego test-deps
	CGO_ENABLED=0 $(GO_TEST_ENV) scripts/gotest.sh purego -trimpath -count=1 -p $(GO_TEST_P) -timeout 20m ./...

# BASE is what test-quick compares the work tree with.
BASE ?= main
test-quick:
	@pkgs=$$(scripts/changed-packages.sh $(BASE)); \
	if [ -z "$$pkgs" ]; then echo "test-quick: no package differs from $(BASE)"; exit 0; fi; \
	CGO_ENABLED=0 $(GO) test -count=1 -timeout 10m $$pkgs

test-native: native-asan
	ctest --test-dir $(BUILD)/asan --output-on-failure

# deploy/ is a Go module of its own, so that its dependencies (go-containerregistry, the
# Kubernetes API types) stay out of the proxy's go.mod. Its tests build a small image and read it
# back, decode every manifest strictly and run check-config of bin/moonbridge-purego on the
# ConfigMap, and write the package-manager manifests for a fake dist/ and check them against its
# SHA256SUMS; dist-check reads the real image and the real manifests back.
test-deploy: purego
	cd deploy && MOONBRIDGE_BIN=$(CURDIR)/$(BIN)/moonbridge-purego ../scripts/gotest.sh deploy -count=1 -timeout 10m ./...

# Kubernetes discovery and deploy/kubernetes against a real kube-apiserver and etcd, started on
# loopback by test/kubeapi (a module of its own, so that moonbridge's go.mod stays free of
# Kubernetes). scripts/kube-binaries.sh builds both once into the cache (MOONBRIDGE_CACHE/kube:
# about 8 CPU-minutes from an empty Go cache, instant once built). test/kubeapi uses this
# repository's packages (replace ../..): after a change of moonbridge's go.mod, run
# `go -C test/kubeapi mod tidy` too (docs/development.md).
test-kube: purego
	bin=$$(scripts/kube-binaries.sh); \
	cd test/kubeapi && CGO_ENABLED=0 MOONBRIDGE_KUBE_BIN=$$bin MOONBRIDGE_BIN=$(CURDIR)/$(BIN)/moonbridge-purego \
	  ../../scripts/gotest.sh kube -trimpath -count=1 -timeout 15m ./...

# Every fuzz target (go test -fuzz, one target per run), FUZZ_TIME each, one after another, with
# one worker: about 21 targets, four to five minutes beside the other parts. The cgo flavour, so
# that the BoringSSL targets run too. A target that fails leaves its input in its package's
# testdata/fuzz/TARGET/: fix the code and commit the input, which go test then runs every time.
FUZZ_TIME ?= 10s
test-fuzz: native
	$(CGO_ENV) FUZZTIME=$(FUZZ_TIME) FUZZ_PARALLEL=1 scripts/fuzz.sh -trimpath -tags $(CGO_TAGS) -ldflags '$(CGO_LDFLAGS_ID)'

# The parts of `make test` are independent: a recursive make runs them at once, and
# --output-sync prints each one's output whole when it ends.
TEST_JOBS ?= 4
test: test-deps
	$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-parts

# The longest parts first, so that they start at once.
test-parts: test-cgo test-purego test-kube test-fuzz test-allocs test-deploy test-native build cross vet

run: build
	$(BIN)/moonbridge serve

mbbench:
	$(GO_BUILD) -o $(BIN)/mbbench ./cmd/mbbench

# The quick benchmark (a few minutes): moonbridge over tcp, ws and wss with both TLS providers
# against the fake backend, each phase paired with a direct one. The full A/B runs that make the
# records in bench/results/ are in bench/README.md.
bench: build mbbench
	$(BIN)/mbbench run --serve $(BIN)/moonbridge --profile echo --window 8 --messages 3000 --warmup 300 --repeats 1
	$(BIN)/mbbench run --serve $(BIN)/moonbridge --transport ws --profile modded --window 8 --messages 1000 --warmup 100 --repeats 1
	$(BIN)/mbbench run --serve $(BIN)/moonbridge --transport wss --tls-provider boringssl --profile modded --window 8 --messages 1000 --warmup 100 --repeats 1
	$(BIN)/mbbench run --serve $(BIN)/moonbridge --transport wss --tls-provider go --profile modded --window 8 --messages 1000 --warmup 100 --repeats 1

# Micro-benchmarks of the codec and TLS layers (go test -bench), both providers.
bench-micro: native
	$(CGO_ENV) $(GO) test -tags $(CGO_TAGS) -ldflags '$(CGO_LDFLAGS_ID)' -run '^$$' -bench . -benchtime 200ms ./ws/ ./gossl/ ./relay/

# moonbridge against node-minecraft-protocol (npm) as server and player, over tcp, ws and wss.
interop: build
	scripts/bootstrap.sh interop
	bench/interop/run.sh $(BIN)/moonbridge

interop-transfer: build
	scripts/bootstrap.sh interop
	bench/interop/transfer.sh $(BIN)/moonbridge

interop-upgrade: build
	scripts/bootstrap.sh interop
	bench/interop/upgrade.sh $(BIN)/moonbridge

# The image and the bridge come from dist/ (dist.mk names the version), made by make dist when
# this version's image is not there yet. podman and runc are the docker set's.
interop-image:
	scripts/bootstrap.sh interop docker
	[ -f $(DIST)/moonbridge_$(DIST_VERSION)_oci-image.tar ] || $(MAKE) dist
	bench/interop/image.sh $(DIST) $(DIST_VERSION)

interop-docker:
	scripts/bootstrap.sh docker
	bench/interop/docker.sh

# Join time through a simulated CDN path (network namespaces and a user-space delay link; root):
# raw TCP, the bridge over ws and over wss, at 20, 50 and 100 ms round trip (bench/README.md).
bench-join: build mbbench
	$(BIN)/mbbench join --serve $(BIN)/moonbridge --rtts 20ms,50ms,100ms --rounds 8 --joins 5

# CPU per frame of the bridge and the proxy, and bytes on the wire, over the same path (root).
bench-wire: build mbbench
	$(BIN)/mbbench wire --serve $(BIN)/moonbridge --pairs 8 --path ws=ws --path wss=wss --profile modded --window 8 --messages 25000

# HAProxy, websockify and v2ray in front of the fake backend, for side-by-side runs (root).
bench-peers:
	scripts/bootstrap.sh base peers
	bench/peers/peers.sh start

clean:
	rm -rf $(BUILD) $(BIN)

# Platform builds and packages (make dist, make dist-check) live in their own file.
include dist.mk
