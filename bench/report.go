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
