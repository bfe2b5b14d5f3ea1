package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An allowWrite entry equal to or inside the bridge's state is refused at
// plan time, naming the entry; one containing it, or elsewhere, is not.
func TestAllowWriteIntoBridgeStateRefused(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	setHomesBase(t, t.TempDir())
	ws := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(tmp, "acp-bridge-sandbox-x"), link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		entry   string
		refused bool
	}{
		{filepath.Join(tmp, "acp-bridge-sandbox-123"), true},
		{filepath.Join(tmp, "acp-bridge-sandbox-123", "tmp"), true},
		{HomesRoot(), true},
		{filepath.Join(HomesRoot(), "acp-bridge-sandbox-9", "codex-home"), true},
		{link, true},
		{filepath.Join(link, "sub"), true},
		{tmp, false},
		{homesBase, false},
		{filepath.Join(tmp, "acp-bridgework"), false},
		{filepath.Join(tmp, "work", "acp-bridge-sandbox-1"), false},
		{ws, false},
	}
	for _, c := range cases {
		t.Run(c.entry, func(t *testing.T) {
			_, err := Compute(Options{Workspace: []string{ws}, AllowWrite: []string{c.entry}, Network: NetworkAll})
			if c.refused && (err == nil || !strings.Contains(err.Error(), c.entry) || !strings.Contains(err.Error(), "bridge's own state")) {
				t.Errorf("err = %v, want a refusal naming %s", err, c.entry)
			}
			if !c.refused && err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// An agent whose allowWrite covers the temp directory tries to rewrite
// another live sandbox's manifest and to plant a file in its private
// directory, and writes its own TMPDIR (ordinary work). Checked on disk.
// Control: without the read-only binds both attacks succeed.
func TestBridgeStateReadOnlyUnderAllowWrite(t *testing.T) {
	requireMechanism(t)
	for _, guard := range []bool{true, false} {
		name := "guarded"
		if !guard {
			name = "control: not bound read-only"
		}
		t.Run(name, func(t *testing.T) {
			guardState = guard
			t.Cleanup(func() { guardState = true })
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			ws := t.TempDir()
			vscode := filepath.Join(ws, ".vscode")
			spec := Spec{Writable: []string{ws, tmp}, Network: NetworkAll, Blocked: []Path{{Path: vscode, Dir: true}}}
			other, err := Prepare(spec, ws, []string{"true"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Cleanup()
			odir := filepath.Dir(other.TmpDir)
			script := `printf '{"version":1,"placeholders":[]}' > "$0/m.new"; mv -f "$0/m.new" "$0/placeholders.json"; echo planted > "$0/planted"; echo mine > "$TMPDIR/own"; cat "$TMPDIR/own"`
			agent, err := Prepare(spec, ws, []string{"/bin/sh", "-c", script, odir}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer agent.Cleanup()
			out, _ := exec.Command(agent.Path, agent.Args...).CombinedOutput()
			m, _ := os.ReadFile(filepath.Join(odir, manifestName))
			_, plantErr := os.Lstat(filepath.Join(odir, "planted"))
			damaged := !strings.Contains(string(m), ".vscode") || plantErr == nil
			if guard && damaged {
				t.Errorf("the agent wrote another sandbox's private directory (manifest %s, planted: %v)\n%s", m, plantErr == nil, out)
			}
			if !guard && !damaged {
				t.Errorf("control: the agent could not write another sandbox's private directory: the test proves nothing\n%s", out)
			}
			if own, err := os.ReadFile(filepath.Join(agent.TmpDir, "own")); err != nil || string(own) != "mine\n" {
				t.Errorf("the agent's own TMPDIR is not writable: %q, %v\n%s", own, err, out)
			}
		})
	}
}
