# dist.mk: release builds and packages (issue "dist"); the Makefile includes it.
#
#   make dist         dist/: one .tar.gz (Linux, macOS) or .zip (Windows) per OS/arch/flavour,
#                     a .deb and an .rpm per Linux architecture, the container image (an OCI
#                     layout in one tar, amd64 and arm64), SHA256SUMS, and the package-manager
#                     manifests made from it: scoop/, winget/, homebrew/ (they point at DIST_URL)
#   make dist-manifests  writes dist/'s manifests again (another DIST_URL) without a rebuild
#   make dist-check   runs or inspects everything in dist/, rebuilds a pure-Go target to prove it
#                     is reproducible, reads the image back, installs and removes the .deb (root)
#   make dist-deps    installs the tools both need (scripts/bootstrap.sh base dist: Debian's as
#                     root, or it prints the command; nfpm from the Go module proxy)
#
# The scripts doing the work live in packaging/ (one job each); this file holds the matrix, and
# scripts/bootstrap.sh the pinned tool versions. Build dirs: build/cross-<target> (BoringSSL shim
# per architecture), build/dist-stage (binaries), build/dist-tools (nfpm); build/ itself is left
# to `make build`.

DIST := dist
DIST_STAGE := $(BUILD)/dist-stage
DIST_TOOLS := $(BUILD)/dist-tools
# A link to the pinned nfpm that scripts/bootstrap.sh dist installs.
NFPM := $(DIST_TOOLS)/nfpm

# OS/ARCH/FLAVOUR. boringssl: cgo with BoringSSL linked statically, Linux only (arm64 is
# cross-compiled). A cgo windows/amd64 build with mingw-w64 is not here: see docs/design.md,
# "How BoringSSL is obtained and built".
DIST_TARGETS := linux/amd64/boringssl linux/arm64/boringssl \
	linux/amd64/purego linux/arm64/purego darwin/amd64/purego darwin/arm64/purego \
	windows/amd64/purego windows/arm64/purego

# Everything dist builds is stamped with git describe and dated by the commit, not by the clock,
# so a rebuild of the same commit gives the same bytes where Go allows it.
dist dist-check dist-manifests interop-image: export DIST_VERSION := $(patsubst v%,%,$(VERSION))
dist dist-check: export DIST_LDFLAGS := $(GO_LDFLAGS)
dist dist-check: export SOURCE_DATE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

# What the Scoop, winget and Homebrew manifests say (docs/install.md, "Package managers"). moonbridge
# has no download site, so DIST_URL, where the release's archives will be downloaded from, is the
# publishing owner's to set, e.g. https://github.com/OWNER/moonbridge/releases/download/v$(DIST_VERSION)
# (single quotes keep the $ for make). The default is a placeholder on a .invalid host, which never
# resolves; mkmanifests warns while the manifests point there. DIST_WINGET_ID is winget's
# Publisher.Package; its first part is the Publisher.
dist dist-manifests: export DIST_URL ?= https://example.invalid/moonbridge/releases/download/v$(DIST_VERSION)
dist dist-manifests: export DIST_HOMEPAGE ?= https://example.invalid/moonbridge
dist dist-manifests: export DIST_WINGET_ID ?= Moonbridge.Moonbridge

.PHONY: dist dist-check dist-deps dist-manifests

dist-deps:
	scripts/bootstrap.sh base dist

dist: dist-deps
	packaging/dist.sh $(NFPM) $(DIST) $(DIST_STAGE) $(DIST_TARGETS)

dist-manifests:
	packaging/manifests.sh write $(DIST)

dist-check: dist-deps
	packaging/check-archives.sh $(DIST)
	packaging/check-manifests.sh $(DIST)
	packaging/check-repro.sh $(DIST) linux/amd64
	packaging/check-image.sh $(DIST)
	packaging/check-packages.sh $(DIST)
