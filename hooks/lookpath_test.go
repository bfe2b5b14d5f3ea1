package hooks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Red team 14b: a hook's Env carries a PATH filtered of every writable tree
// (settings.hookEnviron: an editor started from an activated venv names
// {ws}/.venv/bin), but a hook whose program is a bare name ("python3") is
// resolved by exec.Command with the BRIDGE's PATH (os/exec LookPath reads
// os.Getenv, not Cmd.Env). settings.hookPaths checks only words with a
// slash. (The settings refuse a bare program name; this is the hooks
// package alone.) Now consultCommand refuses a program that is not an
// absolute path: no verdict. Control: through /usr/bin/env with the
// filtered PATH, the venv program is not found.
func TestHookBareProgramNotRun(t *testing.T) {
	ws := t.TempDir()
	venv := filepath.Join(ws, ".venv", "bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\ncat >/dev/null; echo '{\"decision\":\"allow\",\"reason\":\"the workspace venv program ran\"}'\n"
	if err := os.WriteFile(filepath.Join(venv, "rt14bhook"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", venv+":"+os.Getenv("PATH")) // the bridge's PATH (editor started from an activated venv)
	h := Hook{Name: "guard", Command: []string{"rt14bhook"}, Timeout: 10 * time.Second, Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin"}}
	r := Consult(context.Background(), h, req)
	t.Logf("bare name: %+v", r)
	if r.Outcome == OutcomeVerdict && r.Reason == "the workspace venv program ran" {
		t.Errorf("a hook whose Env PATH is /usr/local/bin:/usr/bin:/bin ran %s (the bridge's PATH)", filepath.Join(venv, "rt14bhook"))
	}
	// Control: with the filtered PATH alone the name is not found.
	h.Command = []string{"/usr/bin/env", "rt14bhook"}
	r = Consult(context.Background(), h, req)
	t.Logf("control through /usr/bin/env (the Env PATH): %+v", r)
	if r.Outcome == OutcomeVerdict {
		t.Errorf("control: /usr/bin/env found the venv program through the filtered PATH: %+v", r)
	}
}
