package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// Red team 15, end to end through the real binary: a hook
// [/usr/bin/perl, -I<workspace>/lib, <tools>/hook.pl] loaded (the glued
// -I path was joined to "/" and never judged); now the bridge refuses to
// start, naming the path. Before, at the agent's next tool call the bridge runs perl with the
// workspace's lib first in @INC: hook.pl's `use strict` loads the
// workspace's strict.pm (which an agent inside the sandbox may write: the
// workspace is writable, and `acp-bridge sandbox run` wrote it in the
// report's run) outside every sandbox.
func TestGluedIncludeHookRefusedAtStart(t *testing.T) {
	if _, err := os.Stat("/usr/bin/perl"); err != nil {
		t.Skip("no perl")
	}
	home, ws, tools := t.TempDir(), t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran-outside-the-sandbox")
	if err := os.MkdirAll(filepath.Join(ws, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	// the agent's file, in the workspace
	if err := os.WriteFile(filepath.Join(ws, "lib", "strict.pm"), []byte("package strict; open(my $f, '>', '"+marker+"'); close $f; sub import {} sub unimport {} 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "hook.pl"), []byte("use strict;\nlocal $/; my $in = <STDIN>;\nprint qq({\"decision\":\"ask\",\"reason\":\"corp guard\"}\\n);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(home, "audit.jsonl")
	cfg := fmt.Sprintf("defaultAgent: f\naudit: {path: %q}\npermissions: {defaultMode: bypassPermissions}\nhooks:\n  - name: org-check\n    command: [/usr/bin/perl, %q, %q]\n    timeoutMs: 20000\nagents:\n%s",
		audit, "-I"+filepath.Join(ws, "lib"), filepath.Join(tools, "hook.pl"), testkit.FakeAgentYAML("f"))
	cfgPath := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// The bridge refuses to start, naming the glued workspace path.
	cmd := exec.Command(binPath, "--config", cfgPath, "--workspace", ws)
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "refusing to start") || !strings.Contains(string(out), filepath.Join(ws, "lib")) {
		t.Errorf("the bridge did not refuse the hook naming %s: %v\n%s", filepath.Join(ws, "lib"), err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("HOLE: the bridge loaded the hook and ran the workspace's lib/strict.pm outside every sandbox")
	}
	// Control: the same command run unchecked loads the workspace's strict.pm.
	run := exec.Command("/usr/bin/perl", "-I"+filepath.Join(ws, "lib"), filepath.Join(tools, "hook.pl"))
	run.Dir, run.Stdin = "/", strings.NewReader("{}")
	if o, err := run.CombinedOutput(); err != nil {
		t.Fatalf("control run: %v %s", err, o)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("control: perl -I<ws>/lib did not load the workspace's strict.pm unchecked")
	}
}
