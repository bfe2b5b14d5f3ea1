// Package benchfleet is the fleet benchmark (`make bench-fleet`, issue 18
// item 7): N real acp-bridge processes on loopback under one managed tier
// (placed at /etc/acp-bridge in a private mount namespace, as the managed
// tests do), against one OPA bundle server (bundles built and signed with
// OPA, orgpolicy/opatest) and one real OpenTelemetry Collector
// (tools/otelcol, scripts/build-otelcol.sh). It measures how long a bundle
// change takes to reach every bridge, the decision latency the OPA stage
// adds over the built-in rules alone (in the same run), a decision hook's
// latency, and how many decision events reach the collector after it was
// down and came back.
//
// It is a Go benchmark (BenchmarkFleet in fleet_linux_test.go), so the
// bench smoke (scripts/bench-smoke.sh: every benchmark once) runs it with
// its small defaults (2 bridges); `make bench-fleet` runs 50 and writes
// the Fleet section of docs/benchmarks.md. It needs root (the mount
// namespace), unshare and nsenter, and the built Collector; without them
// it is skipped, saying why.
package benchfleet
