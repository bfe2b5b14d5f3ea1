#!/usr/bin/env bash
# Runs every test of the project, installing what they need first.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== go vet"
go vet ./...
echo "== go test -race"
go test -race -count=1 ./...
