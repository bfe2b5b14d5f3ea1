#!/usr/bin/env bash
# Runs every Go benchmark of the module once (-benchtime 1x), so that a
# benchmark that no longer runs (a changed API, a failing setup, a wrong
# count) fails CI instead of going unnoticed until the next `make bench`.
# The numbers mean nothing here. Usage: scripts/bench-smoke.sh [packages]
# (default ./...).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test -run '^$' -bench . -benchtime 1x "${@:-./...}"
