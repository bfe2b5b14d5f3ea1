#!/usr/bin/env bash
# Fails when `go mod tidy` would change go.mod or go.sum, printing the diff it
# would make (go mod tidy -diff changes nothing on disk). CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! out="$(go mod tidy -diff 2>&1)"; then
  echo "check-tidy: go mod tidy would change go.mod/go.sum; run 'go mod tidy' and commit:" >&2
  printf '%s\n' "$out" >&2
  exit 1
fi
echo "check-tidy: go.mod and go.sum are tidy"
