#!/usr/bin/env bash
# Runs every Go fuzz target of the module (any `func FuzzX(f *testing.F)` in
# a package's tests) for SECONDS each, one after another, and prints the
# executions of each. Usage: scripts/fuzz.sh [SECONDS] (default 10).
# A failing input is written by `go test` to the package's
# testdata/fuzz/<Target>/ (commit it: it becomes a regression seed).
# Env: FUZZ_MINIMIZE bounds minimizing a failure (default 10s);
# FUZZ_PARALLEL sets the fuzz workers (default: one per core), so CI can
# fuzz on one core beside the interop stage.
set -uo pipefail
cd "$(dirname "$0")/.."
secs="${1:-10}"
minimize="${FUZZ_MINIMIZE:-10s}"
parallel=()
[ -n "${FUZZ_PARALLEL:-}" ] && parallel=(-parallel "$FUZZ_PARALLEL")
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
summary=()
while read -r dir; do
  pkg="./${dir#"$PWD"/}"
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' "$dir"/*_test.go 2>/dev/null |
    sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort -u)
  for name in $targets; do
    echo "== $pkg $name (${secs}s)"
    ok=0
    for attempt in 1 2; do
      if go test -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" -fuzzminimizetime "$minimize" "${parallel[@]}" "$pkg" >"$log" 2>&1; then
        ok=1
        break
      fi
      # Go's fuzz engine sometimes ends a run with "context deadline
      # exceeded" when -fuzztime runs out, with no failing input. A real
      # failure always writes one (testdata/fuzz/...): only the engine's
      # timeout is run again, once, and said so.
      if grep -aq 'Failing input written' "$log" || ! grep -aq 'context deadline exceeded' "$log"; then
        break
      fi
      echo "   the fuzz engine timed out without a failing input; running $name again"
    done
    if [ "$ok" = 1 ]; then
      last=$(grep -a '^fuzz: elapsed' "$log" | tail -1)
      echo "   ok: $last"
      summary+=("ok    $pkg $name: ${last#fuzz: }")
    else
      cat "$log"
      summary+=("FAIL  $pkg $name")
      status=1
    fi
  done
done < <(go list -f '{{.Dir}}' ./... | grep -v '/interop')
echo
echo "== fuzz summary (${secs}s per target)"
printf '%s\n' "${summary[@]}"
exit $status
