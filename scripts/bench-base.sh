#!/usr/bin/env bash
# make bench BASE=<commit>: the benchmarks of the current tree and of the
# bridge built from <commit>, in one run (bench/baseline.go). <commit> is
# checked out into a temporary git worktree, removed at the end; the report
# goes to stdout and, with OUT=<file>, to that file too (docs/benchmarks.md
# is regenerated from such a run with OUT=docs/benchmarks.md).
# Extra arguments go to acp-bench (e.g. -runs 3, -only stream,latency).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/bench-base.sh <commit> [acp-bench flags]}
shift
rev=$(git rev-parse --verify "$base^{commit}")
short=$(git rev-parse --short "$rev")
date=$(git show -s --format=%cs "$rev")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/acp-bench-base.XXXXXX")
cleanup() {
	git worktree remove --force "$tmp/tree" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
git worktree add --detach --quiet "$tmp/tree" "$rev"
out=()
if [ -n "${OUT:-}" ]; then out=(-out "$OUT"); fi
go run ./bench/cmd/acp-bench -base "$tmp/tree" -base-label "$short ($date)" "${out[@]}" "$@"
