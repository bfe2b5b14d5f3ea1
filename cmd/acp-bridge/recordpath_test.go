package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordPathsInWorkspaceRefused: the bridge refuses to start when its
// audit log (user config) or its log (--log-file) would be inside the
// workspace, where an agent could erase the record; nothing is written
// there. The control: the same settings with the paths outside start.
func TestRecordPathsInWorkspaceRefused(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, "config.yaml")
	run := func(config string, args ...string) (string, int) {
		if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(binPath, append([]string{"--workspace", ws, "--config", cfg}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
		cmd.Dir = ws
		cmd.Stdin = strings.NewReader("") // the editor goes away at once
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	inWS := filepath.Join(ws, ".logs", "audit.jsonl")
	out, code := run("audit: {path: '" + inWS + "'}\n")
	if code != 2 || !strings.Contains(out, "audit.path") || !strings.Contains(out, inWS) || !strings.Contains(out, "workspace") {
		t.Errorf("audit.path in the workspace: exit %d\n%s", code, out)
	}
	logInWS := filepath.Join(ws, "bridge.log")
	out, code = run("{}\n", "--log-file", logInWS)
	if code != 2 || !strings.Contains(out, "--log-file") || !strings.Contains(out, logInWS) {
		t.Errorf("--log-file in the workspace: exit %d\n%s", code, out)
	}
	for _, p := range []string{inWS, logInWS} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the refused %s was created in the workspace", p)
		}
	}
	// Control: outside the workspace, the same bridge starts and exits 0
	// when the editor closes its stdin.
	outside := filepath.Join(home, "logs", "audit.jsonl")
	if out, code := run("audit: {path: '"+outside+"'}\n", "--log-file", filepath.Join(home, "bridge.log")); code != 0 {
		t.Errorf("paths outside the workspace: exit %d\n%s", code, out)
	}
}
