package bench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Baseline is the bridge built from another commit (`make bench
// BASE=<commit>`, acp-bench -base DIR), run in the same run as the current
// tree, alternating with it, behind the same agent binary and client: a
// claim of "no regression" is then a comparison within one run on one
// machine, never against figures measured on another day.
const Baseline Mode = "baseline"

// baselineRunner builds the baseline's bridge from the checkout at
// c.Base and returns a Runner that starts it (its bench agent is the
// current tree's, so only the bridge differs).
func baselineRunner(ctx context.Context, c Config, cur Binaries) (*Runner, error) {
	dir := filepath.Join(c.Dir, "baseline")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	bin := baselineBinaries(cur, dir)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin.Bridge, "./cmd/acp-bridge")
	cmd.Dir = c.Base
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/acp-bridge in the baseline %s: %w\n%s", c.Base, err, out)
	}
	return &Runner{Bin: bin, Dir: dir}, nil
}

// baselineBinaries are the baseline's: its own bridge in dir, the current
// agent, and its config as it always was (no NoSandbox: an older bridge may
// not know the key, and ran unconfined anyway).
func baselineBinaries(cur Binaries, dir string) Binaries {
	bin := cur
	bin.NoSandbox = false
	bin.Bridge = filepath.Join(dir, "acp-bridge")
	return bin
}

// policyBenchPkg is the package under root whose tests hold
// BenchmarkEvaluateSimple (./policy/ now, ./approvals/ in older trees).
func policyBenchPkg(root string) (string, error) {
	found := ""
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || n == "testdata" || strings.HasPrefix(n, ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// at the start of a line: a test's string that mentions it is no
		// declaration
		if strings.HasPrefix(string(b), "func BenchmarkEvaluateSimple(") || strings.Contains(string(b), "\nfunc BenchmarkEvaluateSimple(") {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			found = "./" + filepath.ToSlash(rel) + "/"
		}
		return nil
	})
	if err == nil && found == "" {
		err = fmt.Errorf("no BenchmarkEvaluateSimple under %s", root)
	}
	return found, err
}

// runPolicyPair runs the Evaluate benchmarks of the current tree and of the
// baseline count times each, one -count 1 run of each in turn.
func runPolicyPair(ctx context.Context, root, base string, count int) (cur, old []PolicyBench, err error) {
	var curOut, oldOut []byte
	pkgs := [2]string{}
	for k, dir := range []string{root, base} {
		if pkgs[k], err = policyBenchPkg(dir); err != nil {
			return nil, nil, err
		}
	}
	for range count {
		for k, dir := range []string{root, base} {
			cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "Evaluate", "-benchmem", "-count", "1", pkgs[k])
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				return nil, nil, fmt.Errorf("go test -bench Evaluate %s in %s: %w\n%s", pkgs[k], dir, err, out)
			}
			if k == 0 {
				curOut = append(curOut, out...)
			} else {
				oldOut = append(oldOut, out...)
			}
		}
	}
	return parseBench(curOut), parseBench(oldOut), nil
}

// loadAvg is the 1, 5 and 15 minute load averages ("" if unknown).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], ", ")
}

// baselineMarkdown is the section that compares the current tree with the
// baseline, every figure from this run.
func (r *Report) baselineMarkdown() string {
	if r.Config.Base == "" {
		return ""
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	label := r.Config.BaseLabel
	if label == "" {
		label = r.Config.Base
	}
	w("## Against the baseline (%s), same run\n\n", label)
	w("The baseline's bridge (built from %s) ran in this same run, alternating with the current one and with the direct runs, behind the same agent binary and client. "+
		"The machine may be shared: compare the ratios within this run, never a figure here with one from another run. "+
		"A ratio *current / baseline* under 1 is faster (or smaller) now for times and memory, over 1 better now for throughput.\n\n", label)
	if r.Config.NoSandbox {
		w("The current bridge ran its agent **without the OS sandbox** in this run (`-sandbox=false`, `sandbox.enabled: false`), as a bridge built before the sandbox (756c8e8) runs it: like with like. The sandbox's own cost is what a run without that flag adds.\n\n")
	} else {
		w("The current bridge ran its agent in the OS sandbox (bubblewrap's namespaces, Landlock scoping in its init); a baseline built before the sandbox (756c8e8) runs it unconfined, so the agent's side of the gap includes the sandbox (`-sandbox=false` compares like with like).\n\n")
	}
	if r.Load[0] != "" {
		w("Load average (1, 5, 15 min) at the start of the run: %s; at the end: %s, on %d CPUs.\n\n", r.Load[0], r.Load[1], r.Machine.CPUs)
	}

	if len(r.Stream) > 0 {
		w("| workload | bridged / direct now | bridged / direct baseline | msg/s current / baseline |\n|---|---|---|---|\n")
		for _, name := range []string{"chunks", "chunks" + pinnedSuffix, "diffs", "diffs" + pinnedSuffix} {
			runs, ok := r.Stream[name]
			if !ok || len(runs[Baseline]) == 0 {
				continue
			}
			var now, then, cb []float64
			for i, d := range runs[Direct] {
				if i >= len(runs[Bridged]) || i >= len(runs[Baseline]) {
					break
				}
				c, o := runs[Bridged][i].MsgsPerSec(), runs[Baseline][i].MsgsPerSec()
				now, then, cb = append(now, c/d.MsgsPerSec()), append(then, o/d.MsgsPerSec()), append(cb, c/o)
			}
			w("| %s | %s | %s | %s |\n", name, fmtSpread(SpreadOf(now), "%.2f"), fmtSpread(SpreadOf(then), "%.2f"), fmtSpread(SpreadOf(cb), "%.2f"))
		}
		w("\n")
	}

	if len(r.Latency[Baseline]) > 0 {
		w("Latency added over direct (median over runs of each run's quantile, µs):\n\n")
		w("| message | added p50 now | added p50 baseline | added p99 now | added p99 baseline |\n|---|---|---|---|---|\n")
		for _, row := range []struct {
			name string
			get  func(LatencyResult) []float64
		}{
			{"forwarded session/update (one way)", func(l LatencyResult) []float64 { return l.Update }},
			{"session/prompt round trip", func(l LatencyResult) []float64 { return l.Prompt }},
			{"approval round trip", func(l LatencyResult) []float64 { return l.Approval }},
		} {
			var c50, o50, c99, o99 []float64
			for i, d := range r.Latency[Direct] {
				if i >= len(r.Latency[Bridged]) || i >= len(r.Latency[Baseline]) {
					break
				}
				c, o := r.Latency[Bridged][i], r.Latency[Baseline][i]
				d50, d99 := Quantile(row.get(d), .5), Quantile(row.get(d), .99)
				c50, o50 = append(c50, Quantile(row.get(c), .5)-d50), append(o50, Quantile(row.get(o), .5)-d50)
				c99, o99 = append(c99, Quantile(row.get(c), .99)-d99), append(o99, Quantile(row.get(o), .99)-d99)
			}
			w("| %s | %s | %s | %s | %s |\n", row.name, fmtSpread(SpreadOf(c50), "%.0f"), fmtSpread(SpreadOf(o50), "%.0f"),
				fmtSpread(SpreadOf(c99), "%.0f"), fmtSpread(SpreadOf(o99), "%.0f"))
		}
		cpuOf := func(ls []LatencyResult) Spread {
			var v []float64
			for _, l := range ls {
				v = append(v, l.ApprovalCPU)
			}
			return SpreadOf(v)
		}
		w("\nBridge CPU per approval (user + system from `/proc/<pid>/stat` over the %d approvals of a run, 10 ms resolution), µs: now %s, baseline %s.\n",
			r.Sizes.Approvals, fmtSpread(cpuOf(r.Latency[Bridged]), "%.0f"), fmtSpread(cpuOf(r.Latency[Baseline]), "%.0f"))
		w("\n")
	}

	if len(r.BaseScale) > 0 && len(r.Scale) > 0 {
		toMiB := func(v int64) float64 { return float64(v) / (1 << 20) }
		med := func(xs []ScaleResult, f func(ScaleResult) float64) float64 {
			var v []float64
			for _, x := range xs {
				v = append(v, f(x))
			}
			return SpreadOf(v).Median
		}
		w("| bridge memory (VmRSS, median) | now | baseline | now / baseline |\n|---|---|---|---|\n")
		for _, row := range []struct {
			name string
			f    func(ScaleResult) float64
		}{
			{"initialized", func(x ScaleResult) float64 { return toMiB(x.Base.RSS) }},
			{fmt.Sprintf("%d sessions, idle", r.Sizes.Agents*r.Sizes.Sessions), func(x ScaleResult) float64 { return toMiB(x.Idle.RSS) }},
			{"after all streamed at once (VmHWM)", func(x ScaleResult) float64 { return toMiB(x.Streaming.HWM) }},
			{fmt.Sprintf("%d approvals pending", r.Sizes.Agents*r.Sizes.ScaleApprovals), func(x ScaleResult) float64 { return toMiB(x.Pending.RSS) }},
			{"initialized, RssAnon (own pages, not the binary's)", func(x ScaleResult) float64 { return toMiB(x.Base.Anon) }},
			{fmt.Sprintf("%d sessions, idle, RssAnon", r.Sizes.Agents*r.Sizes.Sessions), func(x ScaleResult) float64 { return toMiB(x.Idle.Anon) }},
			{fmt.Sprintf("%d approvals pending, RssAnon", r.Sizes.Agents*r.Sizes.ScaleApprovals), func(x ScaleResult) float64 { return toMiB(x.Pending.Anon) }},
		} {
			c, o := med(r.Scale, row.f), med(r.BaseScale, row.f)
			w("| %s | %.1f MiB | %.1f MiB | %.2f |\n", row.name, c, o, c/o)
		}
		for _, row := range []struct {
			name string
			f    func(ScaleResult) float64
		}{
			{"per idle session (beyond the first of each agent)", func(x ScaleResult) float64 { return x.PerSessionBytes() / 1024 }},
			{"per pending approval", func(x ScaleResult) float64 {
				return float64(x.Pending.RSS-x.Streaming.RSS) / 1024 / float64(max(x.PendingCount, 1))
			}},
		} {
			c, o := med(r.Scale, row.f), med(r.BaseScale, row.f)
			w("| %s | %.1f KiB | %.1f KiB | %.2f |\n", row.name, c, o, c/o)
		}
		w("\n")
	}

	if len(r.BasePolicy) > 0 {
		old := map[string]PolicyBench{}
		for _, p := range r.BasePolicy {
			old[p.Name] = p
		}
		w("| policy benchmark | ns/op now | ns/op baseline | now / baseline | allocs/op now | allocs/op baseline |\n|---|---|---|---|---|---|\n")
		for _, p := range r.Policy {
			o, ok := old[p.Name]
			if !ok {
				continue
			}
			w("| %s | %s | %s | %.2f | %.0f | %.0f |\n", p.Name, fmtSpread(p.NsPerOp, "%.0f"), fmtSpread(o.NsPerOp, "%.0f"),
				p.NsPerOp.Median/o.NsPerOp.Median, p.AllocsPerOp, o.AllocsPerOp)
		}
		w("\n")
	}

	if len(r.Startup[Baseline]) > 0 {
		c, o := SpreadOf(durations(r.Startup[Bridged])), SpreadOf(durations(r.Startup[Baseline]))
		w("Start-up to `initialize` answered: now %s, baseline %s (now / baseline %.2f).\n\n", fmtSpread(c, "%.1f ms"), fmtSpread(o, "%.1f ms"), c.Median/o.Median)
	}
	return b.String()
}
