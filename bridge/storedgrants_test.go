package bridge

import (
	"os"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

type storedList struct {
	Rules  []storedRule   `json:"rules"`
	Bypass []storedBypass `json:"bypass"`
}

// Grants in the bridge's config files are listed with their file and scope,
// and removing one edits the file on disk and stops it applying.
func TestGrantsStoredListAndRemove(t *testing.T) {
	cfg := "defaultAgent: alpha\npermissions: {allow: [\"Bash(touch *)\"], deny: [\"Bash(rm -rf *)\"]}\nagents:\n" +
		testkit.FakeAgentYAML("alpha") + "    bypassPermissions: true\n    permissions: {allow: [\"Bash(go test *)\"]}\n" +
		testkit.FakeAgentYAML("beta")
	h := start(t, cfg)
	h.init(false)
	ctx := tctx(t)
	var got storedList
	if err := h.editor.Conn.Call(ctx, MethodGrantsStored, map[string]any{}, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"allow Bash(touch *) ": true, "deny Bash(rm -rf *) ": true, "allow Bash(go test *) alpha": true}
	for _, r := range got.Rules {
		key := r.List + " " + r.Rule + " " + r.Agent
		if !want[key] {
			t.Errorf("unexpected rule %+v", r)
		}
		delete(want, key)
		if r.Scope != "user" || r.File != h.cfg {
			t.Errorf("rule %q: scope %q file %q, want user %q", r.Rule, r.Scope, r.File, h.cfg)
		}
	}
	if len(want) > 0 {
		t.Fatalf("not listed: %v (got %+v)", want, got.Rules)
	}
	if len(got.Bypass) != 1 || got.Bypass[0].Agent != "alpha" || got.Bypass[0].File != h.cfg || got.Bypass[0].Scope != "user" {
		t.Fatalf("bypass = %+v, want alpha in %s", got.Bypass, h.cfg)
	}

	// Revoke the bypass and the agent's rule: gone from the file on disk.
	for _, p := range []map[string]any{
		{"kind": "bypass", "scope": "user", "agent": "alpha"},
		{"kind": "rule", "scope": "user", "agent": "alpha", "list": "allow", "rule": "Bash(go test *)"},
	} {
		var res map[string]any
		if err := h.editor.Conn.Call(ctx, MethodGrantsRemoveStored, p, &res); err != nil {
			t.Fatalf("remove %v: %v", p, err)
		}
		if res["file"] != h.cfg {
			t.Fatalf("remove answered %v", res)
		}
	}
	data, err := os.ReadFile(h.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "bypassPermissions: true") || strings.Contains(string(data), "Bash(go test *)") {
		t.Fatalf("still in the file:\n%s", data)
	}
	if !strings.Contains(string(data), "Bash(rm -rf *)") {
		t.Fatalf("removed too much:\n%s", data)
	}
	// What is not there is an error, and bad params too.
	var res map[string]any
	if err := h.editor.Conn.Call(ctx, MethodGrantsRemoveStored, map[string]any{"kind": "bypass", "scope": "user", "agent": "beta"}, &res); err == nil {
		t.Fatal("removing a bypass that is not stored succeeded")
	}
	if err := h.editor.Conn.Call(ctx, MethodGrantsRemoveStored, map[string]any{"kind": "rule", "scope": "user", "list": "maybe", "rule": "x"}, &res); err == nil {
		t.Fatal("a bad list was accepted")
	}
}
