package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/settings"
)

// TestBaselineMarkdown: the comparison section takes each ratio per run
// within the run (bridged / direct for each tree, current / baseline), and
// is absent without a baseline.
func TestBaselineMarkdown(t *testing.T) {
	sec := time.Second
	r := &Report{Config: Config{Base: "/tmp/b", BaseLabel: "abc1234 (2026-11-21)"}, Machine: Machine{CPUs: 2},
		Load: [2]string{"1.00, 2.00, 3.00", "4.00, 5.00, 6.00"},
		Stream: map[string]map[Mode][]StreamResult{"chunks": {
			Direct:   {{Msgs: 1000, Elapsed: sec}, {Msgs: 1000, Elapsed: sec}, {Msgs: 1000, Elapsed: sec}},
			Bridged:  {{Msgs: 900, Elapsed: sec}, {Msgs: 800, Elapsed: sec}, {Msgs: 1000, Elapsed: sec}},
			Baseline: {{Msgs: 450, Elapsed: sec}, {Msgs: 400, Elapsed: sec}, {Msgs: 500, Elapsed: sec}},
		}},
		Latency: map[Mode][]LatencyResult{
			Direct:   {{Update: []float64{10}, Prompt: []float64{100}, Approval: []float64{100}}},
			Bridged:  {{Update: []float64{30}, Prompt: []float64{300}, Approval: []float64{400}}},
			Baseline: {{Update: []float64{20}, Prompt: []float64{200}, Approval: []float64{700}}},
		},
		Policy:     []PolicyBench{{Name: "BenchmarkEvaluateSimple", NsPerOp: SpreadOf([]float64{3000}), AllocsPerOp: 10}},
		BasePolicy: []PolicyBench{{Name: "BenchmarkEvaluateSimple", NsPerOp: SpreadOf([]float64{2000}), AllocsPerOp: 8}},
	}
	md := r.baselineMarkdown()
	for _, want := range []string{
		"## Against the baseline (abc1234 (2026-11-21)), same run",
		"| chunks | 0.90 (0.80–1.00) | 0.45 (0.40–0.50) | 2.00 (2.00–2.00) |",
		"| forwarded session/update (one way) | 20 | 10 | 20 | 10 |",
		"| approval round trip | 300 | 600 | 300 | 600 |",
		"| BenchmarkEvaluateSimple | 3000 | 2000 | 1.50 | 10 | 8 |",
		"at the start of the run: 1.00, 2.00, 3.00; at the end: 4.00, 5.00, 6.00",
		"ran its agent in the OS sandbox", // and says how to compare like with like
		"`-sandbox=false` compares like with like",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	r.Config.Base = ""
	if md := r.baselineMarkdown(); md != "" {
		t.Errorf("a report without a baseline has a baseline section:\n%s", md)
	}
}

// TestPolicyBenchPkg finds the Evaluate benchmarks where a tree keeps
// them (./policy/ now, ./approvals/ in the 2026-11-21 tree), and fails
// without any.
func TestPolicyBenchPkg(t *testing.T) {
	for _, dir := range []string{"policy", "approvals"} {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, dir), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "bench_test.go"), []byte("package x\nfunc BenchmarkEvaluateSimple(b *testing.B) {}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := policyBenchPkg(root); err != nil || got != "./"+dir+"/" {
			t.Errorf("%s: got %q, %v", dir, got, err)
		}
	}
	if got, err := policyBenchPkg(t.TempDir()); err == nil {
		t.Errorf("empty tree: got %q, want an error", got)
	}
}

// TestPolicyBenchPkgOfThisTree: this module's Evaluate benchmarks are found
// in ./policy/, not in a test that only mentions one in a string (this
// file's), which once made a run compare nothing.
func TestPolicyBenchPkgOfThisTree(t *testing.T) {
	if got, err := policyBenchPkg(".."); err != nil || got != "./policy/" {
		t.Errorf("got %q, %v; want ./policy/", got, err)
	}
}

// TestNoSandboxConfig: -sandbox=false turns the OS sandbox off in the
// current bridge's config (read by the settings the bridge reads) and
// never in the baseline's, whose older config may not know the key.
func TestNoSandboxConfig(t *testing.T) {
	for _, tc := range []struct {
		noSandbox bool
		enabled   bool
	}{{false, true}, {true, false}} {
		dir := t.TempDir()
		env, err := NewEnv(dir, Binaries{Agent: "/bin/true", NoSandbox: tc.noSandbox}, []string{"bench"})
		if err != nil {
			t.Fatal(err)
		}
		store, err := settings.Load(settings.Options{ConfigFile: env.Config, UserConfigDir: dir, WorkspaceDir: env.Workspace(), Environ: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		got := store.Snapshot().Config.Sandbox.Enabled
		store.Close()
		if got != tc.enabled {
			t.Errorf("NoSandbox %v: sandbox.enabled %v, want %v", tc.noSandbox, got, tc.enabled)
		}
	}
	if b := baselineBinaries(Binaries{Bridge: "cur", Agent: "agent", NoSandbox: true}, "/x"); b.NoSandbox || b.Bridge != filepath.Join("/x", "acp-bridge") || b.Agent != "agent" {
		t.Errorf("baseline binaries %+v: want its own bridge, the same agent, its config unchanged", b)
	}
}
