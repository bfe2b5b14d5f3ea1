package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// Red team 15, end to end through the real binary: a hook
// [/usr/bin/perl, -I<workspace>/lib, <tools>/hook.pl] loads (the glued
// -I path is joined to "/" and never judged; spelled "-I", "<ws>/lib" it is
// refused), and at the agent's next tool call the bridge runs perl with the
// workspace's lib first in @INC: hook.pl's `use strict` loads the
// workspace's strict.pm (which an agent inside the sandbox may write: the
// workspace is writable, and `acp-bridge sandbox run` wrote it in the
// report's run) outside every sandbox.
func TestRT15GluedIncludeHookRunsWorkspaceCode(t *testing.T) {
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
	p := startBinIn(t, home, ws, cfg)
	ctx, sid := p.open(t)
	res := make(chan error, 1)
	go func() { _, err := p.editor.Prompt(ctx, sid, "bash ls -la"); res <- err }()
	if perm, err := p.editor.NextPermission(ctx); err == nil {
		t.Logf("card: %s %s", perm.Meta.Source, perm.Meta.Reason)
		perm.Answer(acp.Selected("acp-bridge:reject_once"))
	}
	<-res
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("HOLE: the bridge loaded the hook and ran the workspace's lib/strict.pm outside every sandbox")
	}
}
