# acp-bridge. `make test` installs what the tests need on a fresh machine and runs them all.
GO ?= go
BIN := bin/acp-bridge
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: build test test-go run chat demo bench vsix fuzz clean

build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/acp-bridge

# The product in real VS Code (code-server) with the extension and the demo agent, on 127.0.0.1.
demo:
	bash vscode-extension/scripts/demo.sh

# The lightweight alternative: a terminal chat with the demo agent through the bridge.
chat: build
	./$(BIN) chat

test:
	./scripts/test.sh

test-go:
	$(GO) test -race -count=1 ./...

fuzz:
	./scripts/fuzz.sh $${FUZZ_SECONDS:-60}

# Direct vs bridged throughput, latency, memory, start-up; rewrites docs/benchmarks.md.
bench:
	$(GO) run ./bench/cmd/acp-bench -out docs/benchmarks.md

vsix:
	bash vscode-extension/scripts/vsix.sh

clean:
	rm -rf bin dist
