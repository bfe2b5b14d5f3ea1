//go:build linux

package main

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// privateDirs are the sandbox private directories under parent.
func privateDirs(t *testing.T, parent string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(parent, "acp-bridge-sandbox-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// names are the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// placeholdersMade starts a session (its agent in the sandbox) and returns
// the entries of the workspace the sandbox made (placeholders of the
// protected places that did not exist).
func placeholdersMade(t *testing.T, p *proc) []string {
	t.Helper()
	before := names(t, p.ws)
	p.open(t)
	var made []string
	for _, n := range names(t, p.ws) {
		if !slices.Contains(before, n) {
			made = append(made, filepath.Join(p.ws, n))
		}
	}
	if len(made) == 0 {
		t.Fatal("the sandbox made no placeholder in the workspace: the test proves nothing")
	}
	return made
}

func waitExit(t *testing.T, p *proc, how string) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("acp-bridge did not exit after %s", how)
	}
	p.done <- nil // for the cleanup
}

// A bridge that exits because its editor closed stdin leaves neither its
// agents' private directories nor the placeholders they made in the
// workspace (shutdown waits for the cleanups).
func TestShutdownRemovesSandboxFiles(t *testing.T) {
	requireSandbox(t)
	parent := t.TempDir()
	t.Setenv("TMPDIR", parent)
	p := startBin(t, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f"))
	made := placeholdersMade(t, p)
	if d := privateDirs(t, parent); len(d) != 1 {
		t.Fatalf("private directories while the agent runs: %q, want 1", d)
	}
	_ = p.stdin.Close()
	waitExit(t, p, "stdin closed")
	if d := privateDirs(t, parent); len(d) != 0 {
		t.Errorf("private directories left after the bridge exited: %q", d)
	}
	for _, m := range made {
		if _, err := os.Lstat(m); err == nil {
			t.Errorf("placeholder %s left in the workspace after the bridge exited", m)
		}
	}
}

// A bridge killed with SIGKILL cannot clean up: its private directory and
// its placeholders stay (the damage, shown on disk). The next bridge's
// start removes both, except a placeholder written since (kept as it is)
// and everything of a bridge still alive.
func TestKilledBridgeIsSwept(t *testing.T) {
	requireSandbox(t)
	parent := t.TempDir()
	t.Setenv("TMPDIR", parent)
	cfg := "defaultAgent: f\nagents:\n" + testkit.FakeAgentYAML("f")

	killed := startBin(t, cfg)
	killedMade := placeholdersMade(t, killed)
	killedDirs := privateDirs(t, parent)
	if len(killedDirs) != 1 {
		t.Fatalf("private directories: %q, want 1", killedDirs)
	}
	envrc := filepath.Join(killed.ws, ".envrc")
	if !slices.Contains(killedMade, envrc) {
		t.Fatalf("no .envrc placeholder among %q", killedMade)
	}

	// a live bridge, started before the kill (its own start sweeps nothing)
	live := startBin(t, cfg)
	liveMade := placeholdersMade(t, live)
	var liveDirs []string
	for _, d := range privateDirs(t, parent) {
		if !slices.Contains(killedDirs, d) {
			liveDirs = append(liveDirs, d)
		}
	}
	if len(liveDirs) != 1 {
		t.Fatalf("the live bridge's private directories: %q, want 1", liveDirs)
	}

	if err := syscall.Kill(killed.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExit(t, killed, "SIGKILL")
	// the damage: what it made stays
	for _, p := range append(killedDirs, killedMade...) {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("after SIGKILL, %s is gone (%v): the test proves nothing", p, err)
		}
	}
	// a placeholder the person (or anything) wrote since is theirs now
	const written = "export DIRENV_WORK=1\n"
	if err := os.WriteFile(envrc, []byte(written), 0o644); err != nil {
		t.Fatal(err)
	}

	next := startBin(t, cfg)
	if _, err := next.editor.Initialize(ctx(t), false, false); err != nil {
		t.Fatal(err) // answered: the start's sweep is done
	}
	if _, err := os.Lstat(killedDirs[0]); err == nil {
		t.Errorf("the killed bridge's private directory %s is still there", killedDirs[0])
	}
	for _, p := range killedMade {
		_, err := os.Lstat(p)
		if p == envrc {
			if got, _ := os.ReadFile(p); string(got) != written {
				t.Errorf("the written placeholder %s now holds %q (%v), want it kept", p, got, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("the killed bridge's placeholder %s is still there", p)
		}
	}
	for _, p := range append(liveDirs, liveMade...) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("the live bridge's %s went: %v", p, err)
		}
	}
}
