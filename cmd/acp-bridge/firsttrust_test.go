package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/settings"
)

// TestTrustedCloneBypassWaitsForApproval: a cloned folder's
// .acp-bridge.yaml sets defaultMode bypassPermissions and an allow rule.
// Trusting the folder (the editor's generic Workspace Trust, here
// --trust-workspace) does not approve that: a new chat starts in the
// person's mode (the demo agent's `go test` gets a card), the chat notice
// and the trust report list what the file loosens, the rules manager
// (grants/stored inForce) lists the mode in force with its source; once
// the person approves exactly that version, a new chat runs in bypass (no
// card): the control that the file does loosen.
func TestTrustedCloneBypassWaitsForApproval(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	const file = "permissions:\n  defaultMode: bypassPermissions\n  allow: [\"Bash(curl *)\"]\n  deny: [\"Read(secrets/**)\"]\n"
	if err := os.WriteFile(filepath.Join(ws, ".acp-bridge.yaml"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	digest := settings.ContentDigest([]byte(file), true)
	p := startBinIn(t, home, ws, "", "--trust-workspace")
	c := ctx(t)
	if m := initialize(t, c, p, nil); !m.WorkspaceTrust.Trusted {
		t.Fatal("the workspace is trusted")
	}
	if err := p.editor.WaitFor(c, "workspace/trust listing what the file loosens", func(ms []testkit.Message) bool {
		return slices.ContainsFunc(ms, func(m testkit.Message) bool {
			s := string(m.Params)
			return m.Method == acp.MethodWorkspaceTrust && strings.Contains(s, digest) && strings.Contains(s, `"approved":"none"`) &&
				strings.Contains(s, `"permissions.defaultMode bypassPermissions"`) && strings.Contains(s, `"permissions.allow Bash(curl *)"`)
		})
	}); err != nil {
		t.Fatal(err)
	}

	sid, err := p.editor.NewSession(c, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.editor.WaitFor(c, "the chat notice listing the loosenings", func(ms []testkit.Message) bool {
		return slices.ContainsFunc(testkit.Texts(ms, sid), func(s string) bool {
			return strings.Contains(s, "trusting it does not approve") && strings.Contains(s, "- permissions.defaultMode bypassPermissions") &&
				strings.Contains(s, "workspace approve --digest "+digest)
		})
	}); err != nil {
		t.Fatal(err)
	}
	// The rules manager: the mode in force is the default's, the
	// workspace's deny is in force with its source, the allow is not.
	var stored struct {
		InForce []settings.InForce        `json:"inForce"`
		Pending *settings.PendingApproval `json:"pending"`
	}
	if err := p.editor.Conn.Call(c, "_acp-bridge/grants/stored", map[string]any{}, &stored); err != nil {
		t.Fatal(err)
	}
	has := func(f settings.InForce) bool { return slices.Contains(stored.InForce, f) }
	wsFile := filepath.Join(ws, ".acp-bridge.yaml")
	if !has(settings.InForce{Kind: "mode", Value: "default", Source: "default"}) ||
		!has(settings.InForce{Kind: "rule", List: "deny", Value: "Read(secrets/**)", Source: "workspace", File: wsFile}) ||
		slices.ContainsFunc(stored.InForce, func(f settings.InForce) bool { return f.Value == "Bash(curl *)" || f.Value == "bypassPermissions" }) ||
		stored.Pending == nil || stored.Pending.Digest != digest {
		b, _ := json.Marshal(stored)
		t.Fatalf("grants/stored before approval: %s", b)
	}

	res := make(chan error, 1)
	go func() { _, err := p.editor.Prompt(c, sid, "only:test"); res <- err }()
	perm, err := p.editor.NextPermission(c)
	if err != nil {
		t.Fatalf("no card for go test: the chat did not start in the person's mode: %v", err)
	}
	perm.Answer(acp.Selected("acp-bridge:reject_once"))
	if err := <-res; err != nil {
		t.Fatal(err)
	}

	// The person approves exactly that version: a new chat runs in bypass.
	if err := p.editor.Conn.Call(c, acp.MethodWorkspaceApprove, map[string]any{"digest": digest}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.editor.Conn.Call(c, "_acp-bridge/grants/stored", map[string]any{}, &stored); err != nil {
		t.Fatal(err)
	}
	if !has(settings.InForce{Kind: "mode", Value: "bypassPermissions", Source: "workspace", File: wsFile}) ||
		!has(settings.InForce{Kind: "rule", List: "allow", Value: "Bash(curl *)", Source: "workspace", File: wsFile}) || stored.Pending != nil {
		b, _ := json.Marshal(stored)
		t.Fatalf("grants/stored after approval: %s", b)
	}
	before := len(p.editor.Permissions)
	sid2, err := p.editor.NewSession(c, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.editor.Prompt(c, sid2, "only:test"); err != nil {
		t.Fatal(err)
	}
	if len(p.editor.Permissions) != before {
		t.Fatal("approved bypass still shows a card: the control does not show the loosening")
	}
}
