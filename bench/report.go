package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config is one acp-bench run.
type Config struct {
	Root        string // module root (where go build runs)
	Dir         string // scratch directory
	Runs        int    // repetitions of each timed scenario
	Quick       bool   // small sizes
	Only        map[string]bool
	CommandLine string
	BridgeEnv   []string // KEY=VALUE added to the bridge's environment
	// NoSandbox runs the current bridge's agents unconfined
	// (sandbox.enabled: false; acp-bench -sandbox=false): a bridge built
	// before the OS sandbox (756c8e8) runs its agent unconfined, and this
	// compares like with like. The baseline's config is never changed.
	NoSandbox bool
	Log       io.Writer // progress; nil = discard
	// Base is a checkout of a baseline commit whose bridge runs beside
	// the current one (baseline.go); "" for none. BaseLabel names it.
	Base, BaseLabel string
	// ScaleRuns overrides the number of scale runs (0: min(Runs, 3)).
	ScaleRuns int
}

func (c Config) want(name string) bool { return c.Only == nil || c.Only[name] }

// Sizes are the scenario sizes of a run.
type Sizes struct {
	Chunks, ChunkBytes int
	Diffs, DiffBytes   int
	PacedUpdates       int
	Prompts, Approvals int
	Agents, Sessions   int
	ScaleUpdates       int
	ScaleApprovals     int // per agent, pending at once (within the bridge's 64 in flight per child)
	StartupRuns        int
	ScaleRuns          int
}

func sizes(c Config) Sizes {
	if c.Quick {
		return Sizes{Chunks: 5000, ChunkBytes: 100, Diffs: 100, DiffBytes: 64 << 10, PacedUpdates: 200, Prompts: 100, Approvals: 100,
			Agents: 4, Sessions: 5, ScaleUpdates: 5, ScaleApprovals: 7, StartupRuns: 3, ScaleRuns: 1}
	}
	return Sizes{Chunks: 100000, ChunkBytes: 100, Diffs: 2000, DiffBytes: 64 << 10, PacedUpdates: 2000, Prompts: 1000, Approvals: 1000,
		Agents: 20, Sessions: 50, ScaleUpdates: 100, ScaleApprovals: 60, StartupRuns: 2 * c.Runs, ScaleRuns: cmp.Or(c.ScaleRuns, min(c.Runs, 3))}
}

// Report is everything a run measured.
type Report struct {
	Config  Config
	Sizes   Sizes
	Date    time.Time
	Elapsed time.Duration
	Machine Machine

	Stream  map[string]map[Mode][]StreamResult // "chunks", "diffs", and each + pinnedSuffix
	Pinning *Pinning                           // the CPUs of the pinned runs; nil if none ran
	Latency map[Mode][]LatencyResult
	Scale   []ScaleResult
	Policy  []PolicyBench
	Startup map[Mode][]time.Duration
	Sandbox []PolicyBench // go test -bench Sandbox ./sandbox/
	// the baseline's scale runs and policy benchmarks (Config.Base); its
	// stream, latency and start-up runs are under the Baseline mode.
	BaseScale  []ScaleResult
	BasePolicy []PolicyBench
	// Load is /proc/loadavg's 1, 5 and 15 minute averages at the start and
	// the end of the run (the machine may be shared).
	Load [2]string
}

// Machine describes where the run happened.
type Machine struct {
	CPUs       int
	Model      string
	GoVersion  string
	Kernel     string
	GOMAXPROCS int
}

func machine(root string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Model: "unknown", GoVersion: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.Model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	cmd := exec.Command("go", "version")
	cmd.Dir = root
	if b, err := cmd.Output(); err == nil {
		m.GoVersion = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return m
}

// Run builds the binaries and runs every wanted scenario.
func Run(ctx context.Context, c Config) (*Report, error) {
	if c.Runs <= 0 {
		c.Runs = 5
	}
	logf := func(format string, args ...any) {
		if c.Log != nil {
			fmt.Fprintf(c.Log, "acp-bench: "+format+"\n", args...)
		}
	}
	start := time.Now()
	rep := &Report{Config: c, Sizes: sizes(c), Date: start.UTC(), Machine: machine(c.Root),
		Stream: map[string]map[Mode][]StreamResult{}, Latency: map[Mode][]LatencyResult{}, Startup: map[Mode][]time.Duration{}}
	s := rep.Sizes
	rep.Load[0] = loadAvg()
	logf("building acp-bridge and bench-agent (go build, no -race)")
	bin, err := Build(ctx, c.Root, c.Dir)
	if err != nil {
		return nil, err
	}
	bin.BridgeEnv = c.BridgeEnv
	bin.NoSandbox = c.NoSandbox
	r := &Runner{Bin: bin, Dir: c.Dir}
	modes := []Mode{Direct, Bridged}
	// runner and mode of a run: the baseline is a bridged run of its own
	// binary.
	run := func(m Mode) (*Runner, Mode) { return r, m }
	if c.Base != "" {
		logf("building the baseline's acp-bridge from %s", c.Base)
		rb, err := baselineRunner(ctx, c, bin)
		if err != nil {
			return nil, err
		}
		modes = append(modes, Baseline)
		run = func(m Mode) (*Runner, Mode) {
			if m == Baseline {
				return rb, Bridged
			}
			return r, m
		}
	}

	streams := []struct {
		name   string
		script string
		n      int
	}{
		{"chunks", fmt.Sprintf("stream %d %d", s.Chunks, s.ChunkBytes), s.Chunks},
		{"diffs", fmt.Sprintf("diff %d %d", s.Diffs, s.DiffBytes), s.Diffs},
	}
	// Each workload runs as the OS places the processes, and pinned (when
	// there are two CPUs to pin to).
	placements := []*Pinning{nil}
	if p, ok := PinningFor(); ok {
		placements = append(placements, &p)
		rep.Pinning = &p
	}
	for _, st := range streams {
		key := map[string]string{"chunks": "stream", "diffs": "diff"}[st.name]
		if !c.want(key) {
			continue
		}
		for _, pin := range placements {
			name := st.name
			if pin != nil {
				name += pinnedSuffix
			}
			rep.Stream[name] = map[Mode][]StreamResult{}
			for i := range c.Runs {
				for _, m := range modes {
					rr, mm := run(m)
					res, err := rr.Stream(ctx, mm, st.script, st.n, pin)
					if err != nil {
						return nil, fmt.Errorf("%s %s run %d: %w", name, m, i+1, err)
					}
					logf("%s %s run %d: %d msgs in %s: %.0f msg/s, %.1f MB/s", name, m, i+1, res.Msgs, res.Elapsed.Round(time.Millisecond), res.MsgsPerSec(), res.MBPerSec())
					rep.Stream[name][m] = append(rep.Stream[name][m], res)
				}
			}
		}
	}
	if c.want("latency") {
		for i := range c.Runs {
			for _, m := range modes {
				rr, mm := run(m)
				res, err := rr.Latency(ctx, mm, s.PacedUpdates, s.Prompts, s.Approvals)
				if err != nil {
					return nil, fmt.Errorf("latency %s run %d: %w", m, i+1, err)
				}
				logf("latency %s run %d: update p50 %.0fµs p99 %.0fµs; prompt p50 %.0fµs; approval p50 %.0fµs p99 %.0fµs; bridge CPU per approval %.0fµs", m, i+1,
					Quantile(res.Update, .5), Quantile(res.Update, .99), Quantile(res.Prompt, .5), Quantile(res.Approval, .5), Quantile(res.Approval, .99), res.ApprovalCPU)
				rep.Latency[m] = append(rep.Latency[m], res)
			}
		}
	}
	if c.want("scale") {
		for i := range s.ScaleRuns {
			res, err := r.Scale(ctx, s.Agents, s.Sessions, s.ScaleUpdates, s.ScaleApprovals)
			if err != nil {
				return nil, fmt.Errorf("scale run %d: %w", i+1, err)
			}
			logf("scale run %d: idle RSS %s, streaming HWM %s, %d pending RSS %s (%s)", i+1, mib(res.Idle.RSS), mib(res.Streaming.HWM), res.PendingCount, mib(res.Pending.RSS), res.Elapsed.Round(time.Second))
			rep.Scale = append(rep.Scale, res)
			if c.Base != "" {
				rb, _ := run(Baseline)
				res, err := rb.Scale(ctx, s.Agents, s.Sessions, s.ScaleUpdates, s.ScaleApprovals)
				if err != nil {
					return nil, fmt.Errorf("baseline scale run %d: %w", i+1, err)
				}
				logf("baseline scale run %d: idle RSS %s, streaming HWM %s, %d pending RSS %s (%s)", i+1, mib(res.Idle.RSS), mib(res.Streaming.HWM), res.PendingCount, mib(res.Pending.RSS), res.Elapsed.Round(time.Second))
				rep.BaseScale = append(rep.BaseScale, res)
			}
		}
	}
	if c.want("startup") {
		for i := range s.StartupRuns {
			for _, m := range modes {
				rr, mm := run(m)
				d, err := rr.Startup(ctx, mm)
				if err != nil {
					return nil, fmt.Errorf("startup %s run %d: %w", m, i+1, err)
				}
				rep.Startup[m] = append(rep.Startup[m], d)
			}
		}
		logf("startup: direct median %s, bridged median %s", ms(SpreadOf(durations(rep.Startup[Direct])).Median), ms(SpreadOf(durations(rep.Startup[Bridged])).Median))
	}
	if c.want("policy") {
		logf("policy: go test -bench Evaluate ./policy/")
		if c.Base != "" {
			if rep.Policy, rep.BasePolicy, err = runPolicyPair(ctx, c.Root, c.Base, c.Runs); err != nil {
				return nil, err
			}
		} else {
			pb, err := RunPolicyBench(ctx, c.Root, c.Runs)
			if err != nil {
				return nil, err
			}
			rep.Policy = pb
		}
	}
	if c.want("sandbox") {
		logf("sandbox: go test -bench Sandbox ./sandbox/")
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "Sandbox", "-benchtime", "10x", "-count", strconv.Itoa(c.Runs), "./sandbox/")
		cmd.Dir = c.Root
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go test -bench Sandbox ./sandbox/: %w\n%s", err, out)
		}
		rep.Sandbox = parseBench(out)
	}
	rep.Elapsed = time.Since(start)
	rep.Load[1] = loadAvg()
	return rep, nil
}

// PolicyBench is one approvals benchmark, summarised over -count runs.
type PolicyBench struct {
	Name        string
	NsPerOp     Spread
	BytesPerOp  float64
	AllocsPerOp float64
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) B/op\s+([\d.]+) allocs/op)?`)

// RunPolicyBench runs the approvals package's Evaluate benchmarks (policy
// decisions against 1,000 rules) count times and summarises them.
func RunPolicyBench(ctx context.Context, root string, count int) ([]PolicyBench, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "Evaluate", "-benchmem", "-count", strconv.Itoa(count), "./policy/")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench Evaluate ./policy/: %w\n%s", err, out)
	}
	return parseBench(out), nil
}

func parseBench(out []byte) []PolicyBench {
	var order []string
	ns := map[string][]float64{}
	last := map[string][2]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		name := m[1]
		if _, ok := ns[name]; !ok {
			order = append(order, name)
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		ns[name] = append(ns[name], v)
		b, _ := strconv.ParseFloat(m[3], 64)
		a, _ := strconv.ParseFloat(m[4], 64)
		last[name] = [2]float64{b, a}
	}
	var res []PolicyBench
	for _, n := range order {
		res = append(res, PolicyBench{Name: n, NsPerOp: SpreadOf(ns[n]), BytesPerOp: last[n][0], AllocsPerOp: last[n][1]})
	}
	return res
}

func durations(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.Nanoseconds()) / 1e6
	}
	return out
}

func mib(b int64) string  { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
func ms(v float64) string { return fmt.Sprintf("%.1f ms", v) }

// fmtSpread prints "median (min–max)" with format f.
func fmtSpread(s Spread, f string) string {
	if math.IsNaN(s.Median) {
		return "n/a"
	}
	if s.N <= 1 {
		return fmt.Sprintf(f, s.Median)
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", s.Median, s.Min, s.Max)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

// pinnedSuffix names a workload's pinned runs.
const pinnedSuffix = " pinned"

// streamNames lists the streaming workloads in report order.
var streamNames = []string{"chunks", "chunks" + pinnedSuffix, "diffs", "diffs" + pinnedSuffix}

// eachStreamRuns calls f for every streaming workload and mode, in report
// order, with that pair's runs that delivered anything.
func (r *Report) eachStreamRuns(f func(name string, m Mode, runs []StreamResult)) {
	for _, name := range streamNames {
		byMode, ok := r.Stream[name]
		if !ok {
			continue
		}
		// the baseline's rows too (when it ran): its bridge's CPU per
		// message beside the current one's, from the same run
		for _, m := range []Mode{Direct, Bridged, Baseline} {
			var runs []StreamResult
			for _, x := range byMode[m] {
				if x.Msgs > 0 && x.Elapsed > 0 {
					runs = append(runs, x)
				}
			}
			if len(runs) > 0 {
				f(name, m, runs)
			}
		}
	}
}

// Markdown renders the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	s := r.Sizes
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Benchmarks\n\n")
	w("Generated by `%s` on %s (took %s). Regenerate with `make bench`; this file is overwritten (section 7, the chat webview, is written by `make bench-webview` and kept).\n\n",
		strings.TrimSpace(r.Config.CommandLine), r.Date.Format("2006-01-02 15:04 MST"), r.Elapsed.Round(time.Second))
	w("Machine: %d CPUs (%s), GOMAXPROCS %d, %s; %s.\n", r.Machine.CPUs, r.Machine.Model, r.Machine.GOMAXPROCS, r.Machine.Kernel, r.Machine.GoVersion)
	if r.Config.Quick {
		w("\n**Quick run (-quick): small sizes, the numbers mean little.**\n")
	}
	w(`
How to read this: every figure is measured twice in the same run. **Direct** is the scripted
agent process (`+"`bench/cmd/bench-agent`"+`, no model: it does what its prompt text says) speaking NDJSON
straight to a lean client on its stdio: the physical limit. **Bridged** is the same agent binary behind the
real `+"`acp-bridge`"+` binary (plain `+"`go build`"+`, no -race), reached by the same client. The client
stands in for the editor and does the least an editor must: it recognises `+"`session/update`"+` lines
and checks their sequence numbers without decoding them, and decodes everything else. Each cell is the
median of %d runs with the min–max range in brackets; runs alternate direct and bridged. The machine is
shared and noisy: nothing here is asserted by a test, the aims below are read, not enforced.

`, r.Config.Runs)

	if len(r.Stream) > 0 {
		w("## 1. Streaming throughput (editor side)\n\n")
		var aims []string
		w("| workload | direct msg/s | bridged msg/s | bridged / direct | direct MB/s | bridged MB/s | bridge VmHWM |\n|---|---|---|---|---|---|---|\n")
		for _, name := range streamNames {
			runs, ok := r.Stream[name]
			if !ok {
				continue
			}
			label := fmt.Sprintf("%d agent_message_chunk × %d B text", s.Chunks, s.ChunkBytes)
			if strings.HasPrefix(name, "diffs") {
				label = fmt.Sprintf("%d tool_call_update × %d KiB diff", s.Diffs, s.DiffBytes>>10)
			}
			if strings.HasSuffix(name, pinnedSuffix) {
				label += ", pinned"
			}
			var dm, bm, dmb, bmb, ratio, hwm []float64
			for i, d := range runs[Direct] {
				dm = append(dm, d.MsgsPerSec())
				dmb = append(dmb, d.MBPerSec())
				if i < len(runs[Bridged]) {
					br := runs[Bridged][i]
					bm = append(bm, br.MsgsPerSec())
					bmb = append(bmb, br.MBPerSec())
					ratio = append(ratio, br.MsgsPerSec()/d.MsgsPerSec())
					hwm = append(hwm, float64(br.PeakRSS)/(1<<20))
				}
			}
			w("| %s | %s | %s | %s | %s | %s | %s |\n", label, fmtSpread(SpreadOf(dm), "%.0f"), fmtSpread(SpreadOf(bm), "%.0f"),
				fmtSpread(SpreadOf(ratio), "%.2f"), fmtSpread(SpreadOf(dmb), "%.1f"), fmtSpread(SpreadOf(bmb), "%.1f"), fmtSpread(SpreadOf(hwm), "%.0f MiB"))
			rs := SpreadOf(ratio)
			aims = append(aims, fmt.Sprintf("Aim for %s: bridged ≥ 0.85 × direct: %s (median ratio %.2f).", name, verdict(rs.Median >= 0.85), rs.Median))
		}
		w("\n%s\n\n", strings.Join(aims, " "))
		w("The ratio is taken per pair of runs (direct run i, bridged run i). MB/s counts the `session/update` lines as the editor receives them.\n\n")
		if r.Pinning != nil {
			w("**Pinned** rows place the processes for the run: the agent alone on CPU %d; the bridge and the client (this harness) on CPU %d; in direct runs the agent on CPU %d and the client on CPU %d. Unpinned, three busy processes share %d CPUs as the scheduler sees fit, and where it puts them decides much of the result: a woken reader often lands on the CPU of the process that woke it and preempts it (see the context switches below), and identical code gave chunk ratios from 0.55 to 1.17 on one day (2026-11-21). Pinned, both modes get the same fixed placement, so the ratio measures what the bridge costs; on an editor's machine with more cores than busy processes, the scheduler has room to do the same.\n\n",
				r.Pinning.AgentCPU, r.Pinning.RestCPU, r.Pinning.AgentCPU, r.Pinning.RestCPU, runtime.NumCPU())
		}
		w("CPU time per delivered message, by process (user + system from `/proc/<pid>/stat`, 10 ms resolution; the client's is the whole harness process), the bridge's share of it spent in the kernel (system time: its reads and writes of the pipes, wake-ups, page faults), and the cores kept busy on average (all processes' CPU time over the run's wall time; this machine has %d):\n\n", runtime.NumCPU())
		w("| workload | mode | agent µs/msg | bridge µs/msg | bridge in kernel | bridge reads/msg | bridge writes/msg | bridge page faults/msg | client µs/msg | all µs/msg | cores busy |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		r.eachStreamRuns(func(name string, m Mode, runs []StreamResult) {
			var ag, br, brSys, brR, brW, brF, cl, all, busy []float64
			for _, x := range runs {
				per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(x.Msgs) }
				sum := x.AgentCPU + x.BridgeCPU + x.ClientCPU
				ag, br, cl = append(ag, per(x.AgentCPU)), append(br, per(x.BridgeCPU)), append(cl, per(x.ClientCPU))
				if x.BridgeCPU > 0 {
					brSys = append(brSys, 100*x.BridgeSys.Seconds()/x.BridgeCPU.Seconds())
				}
				if x.BridgeCalls.Reads > 0 {
					brR = append(brR, float64(x.BridgeCalls.Reads)/float64(x.Msgs))
					brW = append(brW, float64(x.BridgeCalls.Writes)/float64(x.Msgs))
					brF = append(brF, float64(x.BridgeFaults)/float64(x.Msgs))
				}
				all, busy = append(all, per(sum)), append(busy, sum.Seconds()/x.Elapsed.Seconds())
			}
			bridgeCell, sysCell := fmtSpread(SpreadOf(br), "%.2f"), "–"
			if len(brSys) > 0 {
				sysCell = fmtSpread(SpreadOf(brSys), "%.0f%%")
			}
			readsCell, writesCell, faultsCell := "–", "–", "–"
			if len(brR) > 0 {
				readsCell, writesCell, faultsCell = fmtSpread(SpreadOf(brR), "%.3f"), fmtSpread(SpreadOf(brW), "%.3f"), fmtSpread(SpreadOf(brF), "%.2f")
			}
			if m == Direct {
				bridgeCell, sysCell, readsCell, writesCell, faultsCell = "–", "–", "–", "–", "–"
			}
			w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, m, fmtSpread(SpreadOf(ag), "%.2f"), bridgeCell, sysCell, readsCell, writesCell, faultsCell,
				fmtSpread(SpreadOf(cl), "%.2f"), fmtSpread(SpreadOf(all), "%.2f"), fmtSpread(SpreadOf(busy), "%.2f"))
		})
		w("\n")
		w("Context switches per 1,000 delivered messages (summed over each process's threads from `/proc/<pid>/task/*/status`): voluntary ones are waits (an empty or full pipe, an idle thread parking), involuntary ones are the scheduler taking the core away for another process.\n\n")
		w("| workload | mode | agent voluntary | agent involuntary | bridge voluntary | bridge involuntary |\n|---|---|---|---|---|---|\n")
		r.eachStreamRuns(func(name string, m Mode, runs []StreamResult) {
			var av, ai, bv, bi []float64
			for _, x := range runs {
				per := func(n int64) float64 { return 1000 * float64(n) / float64(x.Msgs) }
				av, ai = append(av, per(x.AgentSwitches.Voluntary)), append(ai, per(x.AgentSwitches.Involuntary))
				bv, bi = append(bv, per(x.BridgeSwitches.Voluntary)), append(bi, per(x.BridgeSwitches.Involuntary))
			}
			bvCell, biCell := fmtSpread(SpreadOf(bv), "%.1f"), fmtSpread(SpreadOf(bi), "%.1f")
			if m == Direct {
				bvCell, biCell = "–", "–"
			}
			w("| %s | %s | %s | %s | %s | %s |\n", name, m, fmtSpread(SpreadOf(av), "%.1f"), fmtSpread(SpreadOf(ai), "%.1f"), bvCell, biCell)
		})
		w("\n")
	}

	if len(r.Latency) > 0 {
		w("## 2. Latency added by the bridge\n\n")
		w("Per run: p50 and p99 of %d paced updates (one every 500 µs, agent write → client read, wall clock), %d empty prompts (client → agent → client) and %d permission requests the client answers at once (agent → client → agent, timed by the agent; bridged, the policy asks and the card is answered with `acp-bridge:allow_once`, and the bridge writes its audit line and `approval/resolved`). Cells are the median over runs (min–max), in µs.\n\n",
			s.PacedUpdates, s.Prompts, s.Approvals)
		w("| message | direct p50 | bridged p50 | added p50 | direct p99 | bridged p99 | added p99 |\n|---|---|---|---|---|---|---|\n")
		rows := []struct {
			name string
			get  func(LatencyResult) []float64
		}{
			{"forwarded session/update (one way)", func(l LatencyResult) []float64 { return l.Update }},
			{"session/prompt round trip", func(l LatencyResult) []float64 { return l.Prompt }},
			{"approval round trip", func(l LatencyResult) []float64 { return l.Approval }},
		}
		var worstAdded99 float64
		for _, row := range rows {
			var d50, b50, a50, d99, b99, a99 []float64
			for i, d := range r.Latency[Direct] {
				if i >= len(r.Latency[Bridged]) {
					break
				}
				br := r.Latency[Bridged][i]
				dp50, bp50 := Quantile(row.get(d), .5), Quantile(row.get(br), .5)
				dp99, bp99 := Quantile(row.get(d), .99), Quantile(row.get(br), .99)
				d50, b50, a50 = append(d50, dp50), append(b50, bp50), append(a50, bp50-dp50)
				d99, b99, a99 = append(d99, dp99), append(b99, bp99), append(a99, bp99-dp99)
			}
			w("| %s | %s | %s | %s | %s | %s | %s |\n", row.name, fmtSpread(SpreadOf(d50), "%.0f"), fmtSpread(SpreadOf(b50), "%.0f"), fmtSpread(SpreadOf(a50), "%.0f"),
				fmtSpread(SpreadOf(d99), "%.0f"), fmtSpread(SpreadOf(b99), "%.0f"), fmtSpread(SpreadOf(a99), "%.0f"))
			if row.name != "session/prompt round trip" {
				worstAdded99 = math.Max(worstAdded99, SpreadOf(a99).Median)
			}
		}
		w("\nAim: p99 added per forwarded message and per approval round trip under 1 ms: %s (worst median added p99 %.0f µs).\n\n", verdict(worstAdded99 < 1000), worstAdded99)
	}

	if len(r.Scale) > 0 {
		w("## 3. Scale: %d agents × %d sessions through one bridge\n\n", s.Agents, s.Sessions)
		w("Bridge memory from `/proc/<pid>/status` (VmRSS now, VmHWM peak), median of %d runs (min–max). Streaming: every session streams %d updates at once (%d in all). Pending: each agent asks %d permissions at once, spread over its sessions (%d or %d each; the bridge lets one agent have 64 requests in flight and refuses more with -32005), and the client holds every card until all %d have arrived, then answers all.\n\n",
			len(r.Scale), s.ScaleUpdates, s.Agents*s.Sessions*s.ScaleUpdates, s.ScaleApprovals, ScaleApprovals(s.ScaleApprovals, s.Sessions, 0), ScaleApprovals(s.ScaleApprovals, s.Sessions, s.Sessions-1), s.Agents*s.ScaleApprovals)
		col := func(f func(ScaleResult) float64, format string) string {
			var xs []float64
			for _, x := range r.Scale {
				xs = append(xs, f(x))
			}
			return fmtSpread(SpreadOf(xs), format)
		}
		toMiB := func(v int64) float64 { return float64(v) / (1 << 20) }
		w("| state | bridge VmRSS | bridge VmHWM |\n|---|---|---|\n")
		w("| initialized, no agent started | %s | %s |\n", col(func(x ScaleResult) float64 { return toMiB(x.Base.RSS) }, "%.1f MiB"), col(func(x ScaleResult) float64 { return toMiB(x.Base.HWM) }, "%.1f MiB"))
		w("| %d agents running, 1 session each | %s | %s |\n", s.Agents, col(func(x ScaleResult) float64 { return toMiB(x.OneEach.RSS) }, "%.1f MiB"), col(func(x ScaleResult) float64 { return toMiB(x.OneEach.HWM) }, "%.1f MiB"))
		w("| %d sessions, idle | %s | %s |\n", s.Agents*s.Sessions, col(func(x ScaleResult) float64 { return toMiB(x.Idle.RSS) }, "%.1f MiB"), col(func(x ScaleResult) float64 { return toMiB(x.Idle.HWM) }, "%.1f MiB"))
		w("| after all streamed at once | %s | %s |\n", col(func(x ScaleResult) float64 { return toMiB(x.Streaming.RSS) }, "%.1f MiB"), col(func(x ScaleResult) float64 { return toMiB(x.Streaming.HWM) }, "%.1f MiB"))
		w("| %d approvals pending | %s | %s |\n", s.Agents*s.ScaleApprovals, col(func(x ScaleResult) float64 { return toMiB(x.Pending.RSS) }, "%.1f MiB"), col(func(x ScaleResult) float64 { return toMiB(x.Pending.HWM) }, "%.1f MiB"))
		w("\nPer idle session (beyond the first of each agent): %s. Per pending approval: %s. All runs delivered every update, every approval was answered (the agents counted %s allowed) and announced with `_acp-bridge/approval/resolved` (%s). The %d agent processes together used %s.\n\n",
			col(func(x ScaleResult) float64 { return x.PerSessionBytes() / 1024 }, "%.1f KiB"),
			col(func(x ScaleResult) float64 {
				return float64(x.Pending.RSS-x.Streaming.RSS) / 1024 / float64(max(x.PendingCount, 1))
			}, "%.1f KiB"),
			col(func(x ScaleResult) float64 { return float64(x.Answered) }, "%.0f"),
			col(func(x ScaleResult) float64 { return float64(x.Resolved) }, "%.0f"),
			s.Agents, col(func(x ScaleResult) float64 { return toMiB(x.ChildRSS) }, "%.0f MiB"))
		var idle []float64
		for _, x := range r.Scale {
			idle = append(idle, toMiB(x.Idle.RSS))
		}
		w("Aim: idle bridge under 50 MiB RSS: %s.\n\n", verdict(SpreadOf(idle).Median < 50))
	}

	if len(r.Policy) > 0 {
		w("## 4. Policy decisions (1,000 rules)\n\n")
		w("`go test -run '^$' -bench Evaluate -benchmem -count %d ./policy/`: `policy.Evaluate` against a policy of 1,000 rules (700 Bash, 150 path, 100 domain, 46 MCP, 4 more). Median ns/op (min–max).\n\n", r.Config.Runs)
		w("| benchmark | ns/op | decisions/s (one core) | B/op | allocs/op |\n|---|---|---|---|---|\n")
		for _, p := range r.Policy {
			w("| %s | %s | %.0f | %.0f | %.0f |\n", p.Name, fmtSpread(p.NsPerOp, "%.0f"), 1e9/p.NsPerOp.Median, p.BytesPerOp, p.AllocsPerOp)
		}
		w("\n")
	}

	if len(r.Startup) > 0 {
		w("## 5. Start-up\n\n")
		w("From spawning the process to reading its `initialize` answer, %d runs each. The bridge answers `initialize` without starting any agent.\n\n", len(r.Startup[Bridged]))
		w("| process | median (min–max) |\n|---|---|\n")
		w("| bench-agent (direct) | %s |\n", fmtSpread(SpreadOf(durations(r.Startup[Direct])), "%.1f ms"))
		w("| acp-bridge | %s |\n\n", fmtSpread(SpreadOf(durations(r.Startup[Bridged])), "%.1f ms"))
	}
	if len(r.Sandbox) > 0 {
		w("## 6. The OS sandbox\n\n")
		w("`go test -run '^$' -bench Sandbox -benchtime 10x -count %d ./sandbox/`, each pair in one run: *Start* spawns a process that exits at once (what the sandbox adds to an agent's start-up), *Turn* is one process doing 80 file reads, writes, listings and searches in a workspace (a tool-heavy turn), unconfined and in the bubblewrap sandbox; *Compute* finds the denied paths in a 2,000-file workspace (once per agent start). Median (min–max).\n\n", r.Config.Runs)
		w("| benchmark | direct | sandboxed | added | ratio |\n|---|---|---|---|---|\n")
		byName := map[string]PolicyBench{}
		for _, p := range r.Sandbox {
			byName[p.Name] = p
		}
		for _, n := range []string{"BenchmarkSandboxStart", "BenchmarkSandboxTurn"} {
			d, ok1 := byName[n+"/direct"]
			sb, ok2 := byName[n+"/sandboxed"]
			if !ok1 || !ok2 {
				continue
			}
			w("| %s | %s | %s | %.1f ms | %.2f |\n", strings.TrimPrefix(n, "BenchmarkSandbox"), fmtSpread(scale(d.NsPerOp, 1e-6), "%.1f ms"), fmtSpread(scale(sb.NsPerOp, 1e-6), "%.1f ms"),
				(sb.NsPerOp.Median-d.NsPerOp.Median)/1e6, sb.NsPerOp.Median/d.NsPerOp.Median)
		}
		if c, ok := byName["BenchmarkSandboxCompute"]; ok {
			w("| Compute | | %s | | |\n", fmtSpread(scale(c.NsPerOp, 1e-6), "%.1f ms"))
		}
		w("\nAims: under 50 ms added at start, under 5%% on the turn.\n\n")
	}
	b.WriteString(notes)
	b.WriteString(r.baselineMarkdown())
	w("Fault-injection and fuzzing coverage: see [testing.md](testing.md).\n")
	return b.String()
}

// notes is the analysis behind the numbers. It is written by hand (the
// profiles are not rerun by acp-bench): keep it in step when the forwarding
// path changes. Profile with the in-process benchmarks of bench/ (see
// docs/testing.md).
const notes = `## Where the time goes

Profiles of the forwarding path (` + "`" + `go test -run '^$' -bench 'InProcess' -cpuprofile cpu.out ./bench/` + "`" + `, a bridge in
the test process, its client and the bench agent's pipes included) show what each step bought, per forwarded
message in process:

| step | 100 B chunk | 64 KiB diff | approval round trip |
|---|---|---|---|
| first measured: jsonrpc2 decodes params into ` + "`" + `interface{}` + "`" + ` and encodes them ~4 more times | 78 µs | 6.9 ms | |
| notifications bypass jsonrpc2; raw params written as they are | 22 µs | 3.0 ms | |
| each line validated once, then scanned; session id spliced in; batched, bounded editor queue | 5.6 µs | 0.95 ms | 510 µs |
| ` + "`" + `internal/jsonscan` + "`" + `: a validator 3–6× faster than ` + "`" + `json.Valid` + "`" + ` (fuzzed to agree with it); one scan per update; tool-call cache read with the scanner and bounded in bytes | 3.4 µs | 0.31 ms | |
| lines go into the queue in parts (one copy), double-buffered; method and kind names read without allocating | 2.3 µs | 0.28 ms | |
| requests and responses skip jsonrpc2's JSON too; the approval's goroutine takes the editor's answer itself; fewer failing symlink walks | | | 375 µs |
| pipes grown to 1 MiB (` + "`" + `internal/pipesize` + "`" + `); one pass per line (` + "`" + `jsonscan.Scan` + "`" + ` validates and records members three levels deep, handed to the bridge as ` + "`" + `acp.SessionUpdate` + "`" + `); no per-update allocation but the params copy; tool-call members cached from that pass; slimming reads each item once | 1.6 µs | 0.22 ms | 370 µs |
| a child's read loop writes its batch of updates to the editor itself, just before its next read(2), as much as the non-blocking pipe takes at once (` + "`" + `QueueWriter.Flush` + "`" + `), instead of waking the writer goroutine; the editor's stdin and stdout served from Go's poller. In process the editor's end is an ` + "`" + `io.Pipe` + "`" + `, which cannot be written without waiting, so there the read loop only wakes the writer goroutine later: see the bridge's writes per message and context switches above instead | 1.8–2.3 µs | 0.23 ms | 390–415 µs |

- **Streaming.** The bridge now does, per line: one UTF-8 pass, one pass that validates the JSON and
  records where the members of the message, its params and the update sit, one copy of the params
  (kept: the tool-call cache and held updates refer to them) and one copy into the editor queue. The
  read(2) and write(2) of each byte are the rest.
- **Pipe buffers.** Linux pipes hold 64 KiB. With that, a 64 KiB diff fills the pipe: the writer
  blocks until the reader has taken the whole message, so every process wakes up once per message.
  The bridge grows the pipes it owns (the agent's stdout) and the editor's stdin and stdout when they
  are pipes, to 1 MiB. The bench client grows its own pipes in **both** modes: the direct pair with
  64 KiB pipes streams diffs at about 70% of its speed with 1 MiB ones (measured 4025 vs 5728 diffs/s),
  and a baseline the bridge is allowed to beat by tuning what the direct pair does not have would flatter it.
  The bridge reads its children through a 256 KiB buffer, so a whole 64 KiB diff line is validated where
  read(2) put it, without a copy.
- **Where the gap is: placement, not work.** Three busy processes share 2 CPUs, and the scheduler often
  wakes a reader on the CPU of the process that woke it, preempting that one: unpinned, the agent is
  preempted about once per diff (1,000 involuntary switches per 1,000 diffs, against about 250 direct), and
  the cores are busy 1.5–1.6 of 2. Pinned (agent alone on one CPU, bridge and client on the other), the
  agent is preempted about 0.13 times per diff, the cores are busy about 1.85 of 2, and the same binaries
  reach the aim with room. Cutting the bridge's work does not close the unpinned gap: with the validation of
  long strings skipped altogether (an experiment, never a candidate to keep) bridge CPU per diff fell from
  about 145 to 115–125 µs and the unpinned diff ratio stayed at 0.79 and 0.83 in two 5-run measurements.
  Of the bridge's CPU per diff, 40–50% is system time, the one more pipe hop the bridged path has (a
  read(2) and a write(2) of 64 KiB, the pipe pages allocated and freed, the wake-ups); most of the rest is
  validation (about 2.9 GB/s on this text; see ` + "`" + `BenchmarkValid` + "`" + ` in internal/jsonscan) and two copies.
- **Measured and not kept.** Each of these was tried on this machine and reverted:
  writing each line from the child's read loop when the editor queue is idle (saves a wake-up but ends
  batching: chunks fell to 0.29 of direct; what is kept writes once per read(2), before the next);
  ` + "`" + `GOMAXPROCS=1` + "`" + ` in the bridge (` + "`" + `acp-bench -bridge-env GOMAXPROCS=1` + "`" + `): bridge CPU per chunk 1.6–1.7 → 1.2–1.4 µs
  and per diff 145–160 → 125–130 µs, but unpinned ratios stayed within the noise (chunks 0.83 and 0.91, diffs
  0.87 and 0.80 in two 5-run measurements), and a prompt's round trip was 60–100 µs slower at p50 (an
  approval's, once stdin was in the poller, was not); pinned runs start the bridge on one CPU, where Go
  chooses GOMAXPROCS 1 by itself; a 32-byte unrolled string loop and a
  ` + "`" + `bytes.IndexByte` + "`" + `-driven string validator (faster on text with rare escapes, 1.3–1.7× slower on code,
  whose ` + "`" + `\n` + "`" + `, ` + "`" + `\t` + "`" + `, ` + "`" + `\"` + "`" + ` escapes come every few bytes); ` + "`" + `GOGC=off` + "`" + ` (slower: fresh pages
  fault in); lending a session/update's params to the bridge straight from the read buffer instead of
  copying them (no allocation per chunk, a copy only when an update is kept): in-process chunk throughput
  was 3–6% lower in four alternating runs, so the copy stays; a pause of about 100 µs (nanosleep: Go's
  timers sleep at least 1 ms here) before reading a child again after a short read that did not block, so
  that a dense stream is read in larger batches: three alternating pairs of full runs gave chunks 0.74/0.70,
  0.75/0.78, 0.83/0.86 and diffs 0.79/0.81, 0.79/0.75, 0.86/0.79 (without/with), no difference beyond the
  run-to-run spread of identical code.
- **Memory while streaming diffs.** ` + "`" + `ToolCallCache` + "`" + ` keeps at most 1,024 calls in flight and 8 MiB per
  session; older entries are slimmed to what normalisation reads (diff paths, not texts), then dropped.
  2,000 distinct 64 KiB diffs once put VmHWM at 156 MiB; now about 32 MiB.
- **Approvals.** What is left per approval is policy evaluation (the shell parse, symlink resolution of
  each path: ` + "`" + `lstat` + "`" + ` calls), the forwarded request and its answer (one marshal, one decode each way), the
  audit line and the resolved notice, and four hand-offs between goroutines and processes (agent → bridge
  → editor → bridge → agent) on 2 shared cores.
- **Pending approvals** cost what "Per pending approval" in section 3 says: the request's goroutine (its stack grew
  while decoding and evaluating and stays grown while it waits) and the heap of the forwarded request,
  card metadata and timer. Since the approval's own goroutine takes the editor's answer there is one
  goroutine per pending approval, not two. This matters only at thousands of open cards.
- **2026-11-26, after the figures fell** (profiles of ` + "`" + `BenchmarkEvaluate*` + "`" + `, ` + "`" + `BenchmarkInProcessApproval` + "`" + ` and
  ` + "`" + `BenchmarkInProcessBridge` + "`" + ` on a machine shared with other work; ratios against 756c8e8 are in "Against
  the baseline" when the report was made with ` + "`" + `make bench BASE=756c8e8` + "`" + `). The policy's time had gone
  into checks added since: every argument of a command is read as a possible file and met by the Read
  deny and ask rules (each rule's glob tried for each argument), long options listed and sorted for every
  command, a subcommand's declaration split into words at every lookup, a sub-command's words joined
  again to compare; ` + "`" + `policy.Evaluate` + "`" + ` went from 28 to 16 allocations for the simple call and from 281 to 58
  for the ten-part one (path rules indexed by a literal segment, ` + "`" + `policy/pathindex.go` + "`" + `; the rest in
  docs/policy.md, "One reading per call"), about 40% of its CPU time before (CPU time of runs alternating with the tree before), still above 756c8e8's.
  An approval no longer reads the command more than once: the permission flow's policy stage takes the
  verdict, the firmness of a default ask, the card's suggestions and the session grant from one
  ` + "`" + `policy.Decide` + "`" + ` (docs/policy.md, "One reading per call"; it read it three to five times: ` + "`" + `Evaluate` + "`" + `, a
  second ` + "`" + `Evaluate` + "`" + ` under bypassPermissions for a default ask, ` + "`" + `SuggestRules` + "`" + ` for the card and
  ` + "`" + `SessionGrantRules` + "`" + ` twice on "Allow for this session"). The policy figures of that day are in
  "Policy evaluation, same run" below. Each agent start
  scans /run, /tmp, /var/tmp and /dev/shm six levels deep for sockets (` + "`" + `sandbox.hostIPC` + "`" + `): half the
  CPU of an in-process streaming benchmark's setup on a machine whose /tmp holds other work's trees.
- **2026-11-26, the approval round trip and the pinned rows** (` + "`" + `perf record -g` + "`" + ` of the real binary through 1,000
  approvals, ` + "`" + `strace -c` + "`" + `, bridge CPU from ` + "`" + `/proc` + "`" + `, alternating the binaries before and after on the same script).
  An approval's 4.3 ms was not a wait but CPU in the policy's check of a write against the protected places that
  are symlinks (` + "`" + `realProbeList` + "`" + `, policy/env.go): for each of about 150 protected places (under the workspace root,
  the working directory and home, the system's, the settings files) it resolved the real path with
  ` + "`" + `filepath.EvalSymlinks` + "`" + `, one ` + "`" + `lstat` + "`" + ` per component, 500–600 ` + "`" + `lstat` + "`" + ` calls per decision (the shared prefixes,
  /tmp, home, the workspace, hundreds of times), and it built that list of places (the breakers run over each) at
  every decision; a system call costs several µs on this VM. Now the bridge hands the engine a file system that
  remembers each ` + "`" + `lstat` + "`" + ` and each parent directory's resolution for one decision only (` + "`" + `bridge/callfs.go` + "`" + `, sealed
  when the decision is made: an Env kept for a card's session grant reads the disk again; nothing is remembered
  from one call to the next, so a link made between two calls is seen by the second), and the list of places,
  which depends on the root, the working directory, home and the protected files alone, is kept per environment
  (` + "`" + `policy/protected.go` + "`" + `). Bridge CPU per approval 5.3–7.4 ms → 1.9–2.5 ms, ` + "`" + `lstat` + "`" + ` calls 168k → 41k for start-up
  and 1,000 approvals. What is left is one ` + "`" + `lstat` + "`" + ` per protected place per decision (any of them may have become a
  link since the last call), about 150; 756c8e8 had no such check. The pinned rows were wrong: in the OS sandbox
  the agent is not the bridge's child (bubblewrap and its init stand between), and the harness pinned the
  bridge's one child (bubblewrap, asleep), leaving the agent on the bridge's and the client's CPU (cores busy
  0.48 of 2) and counting no agent CPU; it now pins and counts the whole chain (` + "`" + `bench.AgentChain` + "`" + `). Not profiled
  yet: the diffs (0.32–0.39 of direct against 0.63 for 756c8e8 in the run above) and the part of the gap the
  sandboxed agent itself accounts for.
- **2026-11-27, the protected places, the approval's stack, the scale scenario** (` + "`" + `make bench BASE=756c8e8
  BENCHFLAGS="-only latency -runs 3"` + "`" + ` and ` + "`" + `-only scale -runs 3 -scale-runs 3` + "`" + `, load average 15–24 on the 2 CPUs;
  profiles of ` + "`" + `BenchmarkInProcessApproval` + "`" + ` and ` + "`" + `BenchmarkInProcessPending` + "`" + `). The one ` + "`" + `lstat` + "`" + ` per protected place
  per decision (about 150: has any become a link since the last call?) is gone when nothing changed: the bridge
  keeps where each place leads while inotify reports no change to a directory entry its resolution read, and a
  decision makes one ` + "`" + `poll(2)` + "`" + ` (the inotify queue and ` + "`" + `/proc/self/mountinfo` + "`" + `) instead
  (` + "`" + `bridge/placewatch_linux.go` + "`" + `; why that is the same check, and what is still resolved at every decision:
  docs/policy.md, "Protected places that are links"); a decision of ` + "`" + `TestPlaceWatchSavesTheLstats` + "`" + ` reads 8 paths
  or fewer instead of every place. Same run against 756c8e8: approval round trip added p50 647 µs (636–748)
  against 510 µs (431–539), p99 5.1 ms against 4.0 ms; bridge CPU per approval (from ` + "`" + `/proc` + "`" + `, now reported
  beside the latencies) 740 µs (690–810) against 430 µs (370–520). Against the tree before (b00596d), in
  another run (` + "`" + `BASE=b00596d` + "`" + `): approval round trip added p50 642 µs (627–656) against 1,549 µs (1,536–1,575),
  p99 3.2 ms against 12.5 ms, bridge CPU per approval 630 µs (600–720) against 1,740 µs (1,690–1,780). Not back
  at 756c8e8's. What is left per
  approval in the profile (4,000 approvals in process): the policy decision about 115 µs of CPU (the shell
  analysis and evaluation; the call's own paths are still resolved at every decision), the audit record about
  90 µs (a ` + "`" + `stat` + "`" + ` of the log's path and an ` + "`" + `fstat` + "`" + ` to notice a rotation by another program, the marshal, the
  write; one ` + "`" + `fstat` + "`" + ` per record fewer now), reading the tool call through the agent's profile about 50 µs (JSON
  decoding), the card about 50 µs (its marshal), the editor's answer about 30 µs; and the hops: the
  session/prompt round trip, which decides nothing, is 60–130 µs slower than 756c8e8's in the same runs, so part
  of the approval's gap is the forwarding path, two hops each way. **Pending approvals.** A pending approval's
  goroutine waited for the person on the stack its decision had grown, under the frames of the functions that
  read, decide and show the card (1.4–1.6 KiB each): the runtime cannot shrink a stack whose used part is over a
  quarter of it. Reading, deciding and showing now run on a goroutine that ends (` + "`" + `permission.shallow` + "`" + `), and the
  frames under the wait hold pointers: stack per pending approval in ` + "`" + `BenchmarkInProcessPending` + "`" + ` (bridge and its
  in-process client) 18.0 → 10.9 KiB; ` + "`" + `callFS` + "`" + ` lets go of what it remembered when the decision is sealed (a
  card's Env kept it). **Scale** completes again: it holds 60 approvals per agent (1,200), within the bridge's
  64 requests in flight per child. Same run, median of 3: per pending approval 31.5 KiB against 21.7 KiB, per
  idle session 6.4 against 5.2 KiB (another run: 4.3 against 5.6), both in a noisy RSS delta; initialized 30.1
  MiB against 9.6 MiB, 1,000 idle sessions 55.6 against 17.5 MiB. Of a bridge that has just answered
  ` + "`" + `initialize` + "`" + `, 24.6 of 31 MiB are pages of its 52 MB binary (` + "`" + `RssFile` + "`" + `; ` + "`" + `RssAnon` + "`" + ` 6.4 MiB): the binary grew
  with the fleet's dependencies (OPA, the OCI registry client, gRPC and OpenTelemetry), which is most of what
  "initialized" and "idle" show. Not done: the live heap of a pending approval (about 4.4 KiB in the
  in-process heap profile: the decision, the card, the broker's entry) against the RSS delta (31 KiB), which
  the garbage collector's headroom over a larger live heap may account for; the 20 agents' start (18 MiB
  from initialized to 20 agents with a session each, against 2.7 MiB in 756c8e8's own run of 2026-11-21).
- **2026-11-27 (session 13), memory and the round trips** (in-process heap and CPU profiles of ` + "`" + `BenchmarkInProcessApproval` + "`" + `
  and of 20 agents x 50 sessions; ` + "`" + `perf record -g` + "`" + ` and ` + "`" + `strace -c -f` + "`" + ` of the real binary through 5,000 prompts and 5,000
  approvals, alternating with 756c8e8's binary; the same-run tables above). **Start-up memory:** OPA and
  OpenTelemetry (with gRPC, protobuf, the OCI client) moved into the companion ` + "`" + `acp-bridge-org` + "`" + `, started only when the
  managed tier names them (docs/org.md, "The companion"): the bridge's binary 52.8 → 17.6 MB, its package inits 299 →
  118; the policy's init 763 → 241 KB (its 177 program declarations are arrays the linker lays out). **Per agent:** the
  host-socket scan at every agent start walked ` + "`" + `/tmp` + "`" + ` with ` + "`" + `filepath.WalkDir` + "`" + ` (an allocation per entry: 12 MB per start
  on this machine's /tmp), and the heap stayed at twice that garbage's size: 240 → 37 MB allocated to start 20 agents
  (` + "`" + `sandbox/ipcscan.go` + "`" + `, getdents into reused buffers); an agent without the sandbox has no scan at all. A stream reads
  through 16 KiB until a line needs more (20 idle agents held 5 MiB of 256 KiB buffers). Sessions share their list of
  missing protected places. In-process live heap after 20 agents x 50 sessions: 13.8 → 5.3 MiB. **The prompt:** the
  check after each turn for protected places that appeared listed the home and workspace directories (about 120 µs of
  the prompt's 263 µs added); it is now one ` + "`" + `poll(2)` + "`" + ` while the place watch keeps those walks (` + "`" + `bridge/created.go` + "`" + `). An
  answer or a request is written on the goroutine that made it when the pipe takes it at once, instead of waking the
  writer goroutine: 5,000 prompts made 41k ` + "`" + `futex` + "`" + ` calls against 53k, 169k system calls against 203k. **The approval:**
  its deep parts run on workers that keep their grown stacks (` + "`" + `permission/deep.go` + "`" + `; copying a stack grown from the
  smallest size was a tenth of an approval's CPU in process); the protected-place check of a write is folded and
  indexed once (` + "`" + `policy/protmatch.go` + "`" + `: ` + "`" + `writeBreaker` + "`" + ` 11.5% → 3.6% of the bridge's samples).

`

// scale multiplies every figure of a spread (ns to ms and the like).
func scale(s Spread, f float64) Spread {
	return Spread{Median: s.Median * f, Min: s.Min * f, Max: s.Max * f, N: s.N}
}

// Markers of the section `make bench-webview` writes into docs/benchmarks.md
// (vscode-extension/scripts/bench-webview.mjs): acp-bench does not measure it,
// so rewriting the file keeps it.
const (
	webviewStart = "<!-- bench-webview:start -->"
	webviewEnd   = "<!-- bench-webview:end -->"
)

// KeepWebviewSection returns fresh with the webview section of old (between its
// markers) put back before the closing pointer to testing.md, or at the end.
// Without a complete section in old, fresh is returned as it is.
func KeepWebviewSection(old, fresh string) string {
	return keepSection(old, fresh, webviewStart, webviewEnd)
}

// Markers of the section `make bench-fleet` writes (cmd/benchfleet).
const (
	fleetStart = "<!-- bench-fleet:start -->"
	fleetEnd   = "<!-- bench-fleet:end -->"
)

// KeepFleetSection is KeepWebviewSection for the Fleet section.
func KeepFleetSection(old, fresh string) string {
	return keepSection(old, fresh, fleetStart, fleetEnd)
}

// Markers of a section measured and written by hand (the policy's CPU time
// per call against the baseline, "Policy evaluation, same run"): kept until
// it is measured again.
const (
	handStart = "<!-- bench-hand:start -->"
	handEnd   = "<!-- bench-hand:end -->"
)

// KeepHandSection is KeepWebviewSection for the hand-written section.
func KeepHandSection(old, fresh string) string {
	return keepSection(old, fresh, handStart, handEnd)
}

func keepSection(old, fresh, start, end string) string {
	i := strings.Index(old, start)
	j := strings.Index(old, end)
	if i < 0 || j < i {
		return fresh
	}
	block := old[i:j+len(end)] + "\n\n"
	if k := strings.LastIndex(fresh, "Fault-injection and fuzzing coverage"); k >= 0 {
		return fresh[:k] + block + fresh[k:]
	}
	return fresh + "\n" + block
}
