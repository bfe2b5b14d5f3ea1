# acp-bridge. `make test` installs what the tests need on a fresh machine and runs them all.
GO ?= go
BIN := bin/acp-bridge
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: build test test-go run chat demo bench bench-smoke bench-fleet bench-webview vsix fuzz clean

# The bridge and, beside it, its companion acp-bridge-org (OPA and telemetry, started only when the
# settings name them; docs/org.md). Both carry the same version: the bridge refuses another.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/acp-bridge
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(dir $(BIN))acp-bridge-org ./cmd/acp-bridge-org

# The product in real VS Code (code-server) with the extension and the demo agent, on 127.0.0.1.
demo:
	bash vscode-extension/scripts/demo.sh

# The lightweight alternative: a terminal chat with the demo agent through the bridge.
chat: build
	./$(BIN) chat

test:
	./scripts/test.sh

test-go:
	ACP_BRIDGE_OTELCOL_OPTIONAL=1 $(GO) test -race -count=1 ./...

fuzz:
	./scripts/fuzz.sh $${FUZZ_SECONDS:-60}

# Direct vs bridged throughput, latency, memory, start-up; rewrites docs/benchmarks.md.
# BASE=<commit>: the bridge built from that commit runs beside the current one in the same run, and
# the report compares them (scripts/bench-base.sh); the docs are rewritten only with OUT=docs/benchmarks.md.
bench:
ifdef BASE
	OUT=$(OUT) ./scripts/bench-base.sh $(BASE) $(BENCHFLAGS)
else
	$(GO) run ./bench/cmd/acp-bench -out docs/benchmarks.md
	$(MAKE) bench-webview
endif

# Every Go benchmark once (-benchtime 1x): none may break unnoticed (CI).
bench-smoke:
	./scripts/bench-smoke.sh

# The fleet (issue 18): N=50 acp-bridge processes under one managed tier, one OPA bundle server and one
# OpenTelemetry Collector (cmd/benchfleet); writes the Fleet section of docs/benchmarks.md. Needs root.
bench-fleet: build
	./scripts/build-otelcol.sh
	ACP_BRIDGE_BIN=$(CURDIR)/$(BIN) $(GO) test ./cmd/benchfleet -run '^$$' -bench Fleet -benchtime 1x -timeout 30m \
		-fleet.n $(or $(N),50) -fleet.samples 3000 -fleet.e2e 10 -fleet.down 20 -fleet.out $(CURDIR)/docs/benchmarks.md

# The chat webview in headless Chromium (Debian chromium): a 2 MB streamed reply with 300 tool calls,
# against the previous renderer; rewrites section 7 of docs/benchmarks.md. RUNS=n for more or fewer runs.
bench-webview:
	cd vscode-extension && { [ -d node_modules ] || npm ci; } && node scripts/bench-webview.mjs --runs $(or $(RUNS),5) --write ../docs/benchmarks.md

vsix:
	bash vscode-extension/scripts/vsix.sh

clean:
	rm -rf bin dist
