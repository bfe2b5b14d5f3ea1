//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// The cost of the sandbox, measured as pairs run in one process so that a
// report can give ratios (`make bench`, docs/benchmarks.md):
//   - Start: spawning a process that exits at once (an agent's start-up
//     cost is this plus its own), unconfined and inside the sandbox;
//   - Turn: a tool-heavy turn, one process running 80 file reads, writes
//     and listings in the workspace (what an agent's tools do), unconfined
//     and inside the sandbox.
// Compute, the walk for denied paths, is measured on its own.

func benchSpec(b *testing.B) (Spec, string) {
	ws := b.TempDir()
	for i := 0; i < 50; i++ {
		p := filepath.Join(ws, "src", "pkg"+string(rune('a'+i%26)), "f.go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("S=1"), 0o644); err != nil {
		b.Fatal(err)
	}
	pol, _ := policy.Compile([]policy.RuleText{{List: "deny", Text: "Read(.env*)"}, {List: "deny", Text: "Read(~/.ssh/**)"}})
	home, _ := os.UserHomeDir()
	s, err := Compute(Options{Workspace: []string{ws}, Home: home, Policy: pol, Env: policy.Env{Cwd: ws, ProjectRoot: ws, Home: home}})
	if err != nil {
		b.Fatal(err)
	}
	return s, ws
}

const turnScript = `for i in $(seq 1 20); do cat src/pkga/f.go >/dev/null; echo $i > out.txt; ls src >/dev/null; grep -r package src >/dev/null; done`

func runBench(b *testing.B, sandboxed bool, script string) {
	s, ws := benchSpec(b)
	argv := []string{"/bin/sh", "-c", script}
	if sandboxed {
		if m := Probe(); !m.Available {
			b.Skip(m.Problem)
		}
		p, err := Prepare(s, ws, argv, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Cleanup()
		argv = append([]string{p.Path}, p.Args...)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

func BenchmarkSandboxStart(b *testing.B) {
	b.Run("direct", func(b *testing.B) { runBench(b, false, "exit 0") })
	b.Run("sandboxed", func(b *testing.B) { runBench(b, true, "exit 0") })
}

func BenchmarkSandboxTurn(b *testing.B) {
	b.Run("direct", func(b *testing.B) { runBench(b, false, turnScript) })
	b.Run("sandboxed", func(b *testing.B) { runBench(b, true, turnScript) })
}

func BenchmarkSandboxCompute(b *testing.B) {
	pol, _ := policy.Compile([]policy.RuleText{{List: "deny", Text: "Read(.env*)"}, {List: "deny", Text: "Edit(/docs/**)"}})
	ws := b.TempDir()
	for i := 0; i < 2000; i++ {
		p := filepath.Join(ws, "d"+string(rune('a'+i%20)), "f"+string(rune('a'+i%26))+string(rune('a'+i/26%26)))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, nil, 0o644)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Compute(Options{Workspace: []string{ws}, Policy: pol, Env: policy.Env{Cwd: ws, ProjectRoot: ws}}); err != nil {
			b.Fatal(err)
		}
	}
}
