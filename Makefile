# latch — make targets. `make test` is the one command that runs every test.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X latch/cli.version=$(VERSION)

.PHONY: test test-fast test-e2e test-tiers build install run fmt lint vet bench npm clean conformance

## test: install the pinned npm test servers, vet, and run every test with
## the race detector: both tiers (test-fast's and test-e2e's tests, each
## once) in one go test, the packages with end-to-end tests first, so that
## the longest (cli) starts as soon as it is built and the other packages
## run beside it, not in a tier before it (every test binary is also
## linked once, not once per tier)
test: npm vet
	pkgs=$$($(TIERS) -pkgs) && $(GO) test $(TESTFLAGS) -p $(TESTP) -count=1 -timeout $(E2E_TIMEOUT) $$pkgs ./... ./testdata/tiers
	$(GLAMOUR_TEST)

## The two tiers are one split: testdata/tiers prints a pattern of the
## end-to-end and long tests' names (those that run the built latch, a
## pty, an npm server or a node script, or ask testing.Short: see its
## doc), which test-e2e runs (-run) and
## test-fast leaves out (-skip), so each test runs in exactly one; it fails
## when a name would be in both (make test too: -pkgs checks it). The
## timeouts are a hang's bound (per package: go test's -timeout bounds each
## test binary), sized for -race on two busy cores; a test waits on events,
## never on them.
TIERS = $(GO) run ./testdata/tiers
## GLAMOUR_TEST: the tests of the patched copies in third_party (each a
## module of its own, outside ./...): glamour's margin writer and HTML
## stripper (against bluemonday's), chroma's lexers and styles loaded on
## first use, jsonschema's meta-schemas compiled on first use, bubbles'
## textarea whose lines grow on demand
GLAMOUR_TEST = cd third_party/glamour && $(GO) test $(TESTFLAGS) -count=1 ./ansi/ && \
	cd ../chroma && $(GO) test $(TESTFLAGS) -count=1 ./lexers/ ./styles/ && \
	cd ../jsonschema && $(GO) test $(TESTFLAGS) -count=1 . && \
	cd ../bubbles && $(GO) test $(TESTFLAGS) -count=1 ./textarea/
TESTFLAGS ?= -race
## TESTP: how many packages' tests run at once. Most of the long ones wait
## on processes and servers more than they compute: with go test's default
## (2 on two cores) a run used 1.2 cores on average and took 8.2 min
## (the gateway's floods, started fourth, ran last)
TESTP ?= 4
FAST_TIMEOUT ?= 15m
E2E_TIMEOUT ?= 40m

## test-fast: every test but the end-to-end ones (no npm, no built binary),
## and the tests of testdata/tiers itself; TESTFLAGS= leaves out the race
## detector, for a quicker run
test-fast:
	e2e=$$($(TIERS)) && $(GO) test $(TESTFLAGS) -count=1 -timeout $(FAST_TIMEOUT) -skip "$$e2e" ./... ./testdata/tiers
	$(GLAMOUR_TEST)

## test-e2e: the end-to-end and long tests: the built latch in a pty, two
## processes on one session, the npm servers and SDK clients, the floods
## and property tests (make npm first). Only the packages that have such
## tests are built and run, the one with the most (cli, the longest) first
test-e2e: npm
	e2e=$$($(TIERS)) && pkgs=$$($(TIERS) -pkgs) && $(GO) test $(TESTFLAGS) -p $(TESTP) -count=1 -timeout $(E2E_TIMEOUT) -run "$$e2e" $$pkgs

## test-tiers: which tests are in which tier
test-tiers:
	$(TIERS) -list

## npm: install the pinned npm MCP servers used by integration tests
npm:
	@if [ -f testdata/npm/package.json ]; then \
		cd testdata/npm && npm ci --no-audit --no-fund --loglevel=error; \
	fi

## conformance: every client scenario of the MCP conformance suite (npm
## @modelcontextprotocol/conformance) against latch's mcp package; the
## expected failures in testdata/conformance/expected-failures.yaml may only
## shrink (an entry that passes fails the run); then the server scenarios
## that apply to a gateway's transport against latch serve --listen
## (serve_conformance_test.go). Before those, the pre-release suite's
## (conformance-next) client scenarios: those required at 2025-11-25, those
## required at 2026-07-28, and the extensions, each against its own
## testdata/conformance/expected-failures-*.yaml, which may only shrink too
CONFORMANCE_ENV = cd testdata/npm && NODE_OPTIONS="$$NODE_OPTIONS --import $(CURDIR)/testdata/conformance/node20-fs-globsync.mjs"
CONFORMANCE_NEXT = $(CONFORMANCE_ENV) node node_modules/conformance-next/dist/index.js client --command $(CURDIR)/bin/conformance-client
conformance: npm
	@mkdir -p bin
	$(GO) build -o bin/conformance-client ./testdata/conformance
	$(CONFORMANCE_ENV) node_modules/.bin/conformance client --command $(CURDIR)/bin/conformance-client --suite all \
		--expected-failures $(CURDIR)/testdata/conformance/expected-failures.yaml
	$(CONFORMANCE_NEXT) --requirements 2025-11-25 \
		--expected-failures $(CURDIR)/testdata/conformance/expected-failures-2025-11-25.yaml
	$(CONFORMANCE_NEXT) --requirements 2026-07-28 \
		--expected-failures $(CURDIR)/testdata/conformance/expected-failures-2026-07-28.yaml
	$(CONFORMANCE_NEXT) --suite extensions \
		--expected-failures $(CURDIR)/testdata/conformance/expected-failures-extensions.yaml
	LATCH_CONFORMANCE=1 $(GO) test -count=1 -timeout $(E2E_TIMEOUT) -run '^TestServeConformance$$' ./cli/

vet:
	$(GO) vet ./...
	$(GO) vet -tags latchtest ./...

## build: build ./latch
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o latch .

## install: go install latch, the version stamped: the binary goes to
## $(go env GOBIN), or $(go env GOPATH)/bin
install:
	$(GO) install -ldflags "$(LDFLAGS)" .

run:
	$(GO) run .

## fmt: format the code
fmt:
	gofmt -w $$(git ls-files '*.go')

## lint: formatting, vet, golangci-lint (pinned, built into ./bin on first
## use), and a cross-compile check
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := bin/golangci-lint-$(GOLANGCI_LINT_VERSION)

lint: vet $(GOLANGCI_LINT)
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^testdata/')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GOLANGCI_LINT) run --allow-serial-runners ./...
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...

$(GOLANGCI_LINT):
	@mkdir -p bin
	GOBIN=$(CURDIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv bin/golangci-lint $(GOLANGCI_LINT)

## bench: Go benchmarks (each with a run count that keeps it quick), then the
## built binary on a real streaming workload and with 10,000 parked gateway calls,
## and a gateway client's latency beside another's slow decisions.
## Each figure of the built binary is measured against the build before
## the change in the same run: BENCH_BASE=<git rev> (by default where this
## branch left main, or HEAD~1 on main; none: this build alone);
## LATCH_BENCH_MCP_PROXY=<binary> adds TBXark/mcp-proxy to the --listen one.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./ui/sanitize
	$(GO) test -run '^$$' -bench 'Turn|LogAppend|Load' -benchmem ./session/
	$(GO) test -run '^$$' -bench 'GroupCommit32' -benchtime 5000x ./session/eventlog/
	$(GO) test -run '^$$' -bench 'ToolCallOverhead(Stdio)?$$/(manager|session$$|paired)' -benchtime 60000x -benchmem ./session/
	$(GO) test -run '^$$' -bench 'ToolCallOverhead$$/session_logged' -benchtime 2000x -benchmem ./session/
	$(GO) test -run '^$$' -bench '^Benchmark(StreamToken|Frame|Scroll2000)$$' -benchmem ./ui/
	$(GO) test -run '^$$' -bench '^BenchmarkStreamReply$$' -benchtime 10x -benchmem ./ui/
	$(GO) test -run '^$$' -bench 'FirstFrame' -benchtime 20x ./ui/
	$(GO) test -run '^$$' -bench 'WrapLongLine' -benchtime 5x -benchmem ./ui/
	$(GO) test -run '^$$' -bench 'ManyServers' -benchtime 3x ./mcp/
	$(GO) test -run '^$$' -bench 'Connect8Slow' -benchtime 10x ./mcp/
	$(GO) test -run '^$$' -bench 'ConnectEra' -benchtime 10x ./mcp/
	$(GO) test -run '^$$' -bench 'ConnectHTTP' -benchtime 10x ./mcp/
	$(GO) test -run '^$$' -bench 'ConnectEverything' -benchtime 3x ./mcp/
	$(GO) test -run '^$$' -bench 'CallOverhead' -benchtime 20000x -benchmem ./mcp/
	$(GO) test -run '^$$' -bench 'Decide1000' -benchtime 2000x ./permissions/
	$(GO) test -run '^$$' -bench 'DecideHugePath|DecideGitHooks' -benchtime 50x -benchmem ./permissions/
	$(GO) test -run '^$$' -bench 'MatchSegsOldNew' -benchtime 5x ./permissions/
	$(GO) test -run '^$$' -bench 'Find10000' -benchtime 300x ./parkindex/
	BENCH_BASE=$(BENCH_BASE) LATCH_WORKLOAD=1 $(GO) test -count=1 -timeout $(E2E_TIMEOUT) -run 'TestStreamWorkload' -v ./cli/
	$(GO) test -run '^$$' -bench 'GatewayStdio' -benchtime 2000x ./gateway/
	BENCH_BASE=$(BENCH_BASE) LATCH_SERVE_BENCH=1 $(GO) test -count=1 -timeout $(E2E_TIMEOUT) -run 'TestServeOverhead|TestServeConcurrentStdio|TestServeFiftyClients|TestServeParkedAtScale|TestServeStartLongLog' -v ./cli/
	LATCH_SERVE_BENCH=1 $(GO) test -count=1 -timeout $(E2E_TIMEOUT) -run 'TestGatewayBystanderLatency' -v ./session/

clean:
	rm -f latch
	rm -rf bin
