# acp-bridge. `make test` installs what the tests need on a fresh machine and runs them all.
GO ?= go
BIN := bin/acp-bridge

.PHONY: build test test-go test-ext run chat bench vsix demo clean

build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/acp-bridge

chat: build
	./$(BIN) chat

test:
	./scripts/test.sh

test-go:
	$(GO) test -race -count=1 ./...

clean:
	rm -rf bin dist
