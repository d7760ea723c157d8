# skillrun — run `make help` for the targets.

GO            ?= go
GOLANGCI_LINT := github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0
BENCHTIME     ?= 1s
FUZZTIME      ?= 20s

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build skillrun into ./bin: the full binary (skillrun-engine) and the small client that starts in a few ms (skillrun); static and stripped.
	CGO_ENABLED=0 $(GO) build -ldflags='-s -w' -o bin/skillrun-engine ./cmd/skillrun
	CGO_ENABLED=0 $(GO) build -ldflags='-s -w' -o bin/skillrun ./cmd/skillrun-client

.PHONY: deps
deps: ## Download the Go modules of skillrun and of the guests built in tests (skillrun build fetches none).
	$(GO) mod download
	cd examples/extism-upper/src && $(GO) mod download
	cd internal/testkit/testdata/extplugin && $(GO) mod download
	cd test/k8s && $(GO) mod download

.PHONY: test
test: deps ## Compile the interpreters for the test binaries, run the full test suite with the race detector (what CI runs), then the guest-bound end-to-end tests without it.
	$(GO) test -count=1 -run '^TestWarmInterpreters$$' ./scripts
	$(GO) test -race -count=1 -timeout 20m ./...
	cd test/k8s && $(GO) test -count=1 ./...
	$(GO) test -count=1 -timeout 20m -run '^(TestShellConformance|TestCommunityCases|TestCommunityCasesNative|TestCommunityCompiledNative|TestInterpreterScripts|TestInterpreterBundle|TestReleaseWithoutToolchains|TestNativeFromShell|TestAttackNested[A-Za-z]+|TestPillowSuite|TestLxmlSuite|TestGoReactor|TestClient[A-Za-z]+)$$' ./scripts ./cmd/skillrun ./internal/wasmopt ./cmd/skillrun-client

.PHONY: test-packages
test-packages: ## Run the whole test suites of the compiled Python packages (Pillow, lxml) in the sandbox, beside a native run; `make test` runs part of Pillow's.
	SKILLRUN_PACKAGE_SUITES=full $(GO) test -count=1 -timeout 60m -v -run '^(TestPillowSuite|TestLxmlSuite)$$' ./scripts

.PHONY: check
check: ## gofmt, vet, golangci-lint, go mod tidy, deps test, cross-builds; fails on any diff.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(GOLANGCI_LINT) run ./...
	$(GO) mod tidy
	$(GO) test -count=1 -run 'TestDeps' .
	GOOS=windows GOARCH=amd64 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(GO) build ./...
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build ./...
	GOOS=wasip1 GOARCH=wasm $(GO) build -o /dev/null ./examples/...
	for m in examples/csv-stats/src/stats examples/todo-report/src/report examples/extism-upper/src; do (cd $$m && GOOS=wasip1 GOARCH=wasm $(GO) vet . && test -z "$$(gofmt -l .)") || exit 1; done
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./guest/...
	cd test/k8s && $(GO) vet ./... && $(GO) mod tidy
	git diff --exit-code -- go.mod go.sum test/k8s/go.mod test/k8s/go.sum

.PHONY: bench
bench: ## Run the benchmarks (each reports ratios against a baseline from the same run).
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

.PHONY: fuzz
# Every parser of untrusted input has a target: package:FuzzName.
FUZZ_TARGETS := \
	skills:FuzzParseSkill skills:FuzzParseManifest skills:FuzzLoadZip skills:FuzzFileScript \
	capabilities:FuzzParsePath capabilities:FuzzParseHostPattern \
	capabilities:FuzzParsePolicy capabilities:FuzzPolicyRoundTrip \
	internal/abi:FuzzDecodeResponse internal/abi:FuzzDecodePayload \
	host:FuzzDispatch host/mcp:FuzzParseConfig host/mcp:FuzzConfigRoundTrip \
	agent:FuzzParsePlan agent:FuzzParseDefinition internal/mdskill:FuzzParse internal/yamlmod:FuzzLoad \
	sandbox:FuzzRootFS sandbox:FuzzHostFunctions sandbox:FuzzReadSnapshot \
	guest/interp/sh/internal/awk:FuzzAwk guest/interp/sh/internal/textcmd:FuzzSed \
	guest/interp/sh/internal/textcmd:FuzzGrep guest/interp/sh/internal/builtin:FuzzPrintf \
	guest/interp/sh/internal/builtin:FuzzRead guest/interp/sh/internal/filecmd:FuzzDate \
	internal/skilltest:FuzzParseCase \
	guest/interp/sh/internal/filecmd:FuzzTarExtract internal/pydeps:FuzzParseRequirement \
	internal/pydeps:FuzzParseVersion \
	internal/interp:FuzzParseManifest internal/interp:FuzzInstallBundle \
	internal/skillpkg:FuzzReadLock internal/skillpkg:FuzzParseSource
FUZZPARALLEL  ?= 1
fuzz: ## Run each fuzz target for FUZZTIME, one at a time (new crashers land in testdata/fuzz).
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t#*:}; echo "== ./$$pkg $$name"; \
	  $(GO) test ./$$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -parallel $(FUZZPARALLEL); \
	done

.PHONY: clean
clean: ## Remove build output.
	rm -rf bin

# Interpreters for source scripts, kept in the user cache dir (see
# internal/interp). The Python build is pinned (Debian source version and
# checksum in internal/interp/build-python.sh) and skipped when that
# version is already installed.
INTERPRETERS  ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/skillrun/interpreters
PY_DEB_VERSION := $(shell sed -n 's/^DEB_VERSION=.*:-\(.*\)}$$/\1/p' internal/interp/build-python.sh)+skillrun$(shell sed -n 's/^BUILD=\([0-9]*\)$$/\1/p' internal/interp/build-python.sh)

.PHONY: python
python: ## Build CPython for WASI from Debian's python3.11 source into the interpreters cache (unless there).
	@if [ "$$(cat $(INTERPRETERS)/python-3.11/VERSION 2>/dev/null)" = "$(PY_DEB_VERSION)" ]; then \
	  echo "python $(PY_DEB_VERSION) already in $(INTERPRETERS)"; \
	else \
	  $(GO) run ./cmd/skillrun interpreters install python --dir $(INTERPRETERS); \
	fi

.PHONY: js
js: ## Build the JavaScript interpreter guests (goja, GOOS=wasip1; js-ts with esbuild) into the interpreters cache (unless current).
	$(GO) run ./cmd/skillrun interpreters install js --dir $(INTERPRETERS)
	$(GO) run ./cmd/skillrun interpreters install js-ts --dir $(INTERPRETERS)

.PHONY: sh
sh: ## Build the sandboxed shell guest (mvdan.cc/sh and the built-in commands, GOOS=wasip1) into the interpreters cache (unless current).
	$(GO) run ./cmd/skillrun interpreters install sh --dir $(INTERPRETERS)

.PHONY: dist
dist: python ## Build the release archives into dist/: per platform (linux/amd64, linux/arm64, darwin/arm64, windows/amd64) skillrun with the interpreter bundle it verifies (tools/dist.sh; VERSION, DIST_BASE_URL, PLATFORMS).
	INTERPRETERS=$(INTERPRETERS) GO=$(GO) ./tools/dist.sh

.PHONY: interpreters
interpreters: python js sh ## Build or restore the interpreters, and compile them into the sandbox's cache.
	$(GO) run ./cmd/skillrun interpreters compile --dir $(INTERPRETERS)

.PHONY: examples
examples: deps ## Build the example skills' Wasm modules
	$(GO) run ./cmd/skillrun build examples/csv-stats examples/word-count examples/todo-report examples/fetch-title examples/extism-upper examples/host-echo

.PHONY: demo
demo: ## Build the csv-stats example and run it, sandboxed, on examples/workspace/sales.csv.
	$(GO) run ./cmd/skillrun build examples/csv-stats
	$(GO) run ./cmd/skillrun run examples/csv-stats:stats --workspace examples/workspace --allow-read -- sales.csv
