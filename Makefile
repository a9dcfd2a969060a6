# moonbridge: make drives CMake (BoringSSL and the C shim) and Go (everything else).
#
#   make / make build   bin/moonbridge, cgo with BoringSSL linked statically
#   make purego         bin/moonbridge-purego, CGO_ENABLED=0 (crypto/tls only)
#   make cross          pure-Go builds for darwin/arm64, darwin/amd64, windows/amd64
#   make test           deps, native, both builds, vet, go test -race (cgo), go test (purego),
#                       the shim's test under AddressSanitizer
#   make run            build and start `bin/moonbridge serve` with embedded defaults
#   make bench          the quick benchmarks
#   make deps           install missing Debian packages (as root) or print the command
#   make clean          remove build outputs (the BoringSSL cache stays; see BORINGSSL_CACHE)

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

.PHONY: build purego cross native native-asan deps test vet test-cgo test-purego test-native \
	run bench clean FORCE

build: native
	CGO_ENABLED=1 $(GO_BUILD) -tags $(CGO_TAGS) -o $(BIN)/moonbridge ./cmd/moonbridge

purego:
	CGO_ENABLED=0 $(GO_BUILD) -o $(BIN)/moonbridge-purego ./cmd/moonbridge

cross:
	@for target in darwin/arm64 darwin/amd64 windows/amd64; do \
	  os=$${target%/*}; arch=$${target#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "cross: $$os/$$arch"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO_BUILD) -o $(BIN)/moonbridge-purego-$$os-$$arch$$ext ./cmd/moonbridge; \
	done

deps:
	third_party/deps.sh

# obtain.sh is cheap when its cache is warm, so it runs every time and CMake decides what to redo.
native: deps
	prefix=$$(third_party/boringssl/obtain.sh); \
	cmake -S . -B $(BUILD) -G Ninja -DBORINGSSL_ROOT="$$prefix" >/dev/null; \
	cmake --build $(BUILD)

native-asan: deps
	prefix=$$(third_party/boringssl/obtain.sh); \
	cmake -S . -B $(BUILD)/asan -G Ninja -DBORINGSSL_ROOT="$$prefix" -DMOONBRIDGE_ASAN=ON >/dev/null; \
	cmake --build $(BUILD)/asan

vet: native
	$(GO) vet -tags $(CGO_TAGS) ./...
	CGO_ENABLED=0 $(GO) vet ./...

test-cgo: native
	CGO_ENABLED=1 scripts/gotest.sh cgo -race -count=1 -timeout 20m -tags $(CGO_TAGS) ./...

test-purego:
	CGO_ENABLED=0 scripts/gotest.sh purego -count=1 -timeout 20m ./...

test-native: native-asan
	ctest --test-dir $(BUILD)/asan --output-on-failure

test: deps build purego cross vet test-native test-cgo test-purego

run: build
	$(BIN)/moonbridge serve

bench: build
	CGO_ENABLED=1 $(GO) test -tags $(CGO_TAGS) -run '^$$' -bench . -benchtime 200ms ./...

clean:
	rm -rf $(BUILD) $(BIN)
