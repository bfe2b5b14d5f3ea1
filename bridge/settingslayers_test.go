package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/wire"
)

// The editor sends its raw layers; the bridge merges them, narrows the
// workspace's until they are trusted and pinned, and answers the pin state.
func TestSettingsLayersNarrowUntilPinned(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	ctx := tctx(t)
	call := func(trusted bool, approved string, preview bool, values string) (wire.SettingsLayersResult, error) {
		t.Helper()
		var res wire.SettingsLayersResult
		params := map[string]any{"values": json.RawMessage(values), "trusted": trusted, "approved": approved, "preview": preview}
		err := h.editor.Conn.Call(ctx, wire.SettingsLayers, params, &res)
		return res, err
	}
	explain := func() string {
		t.Helper()
		var res policyExplainResult
		if err := h.editor.Conn.Call(ctx, MethodPolicyExplain, json.RawMessage(`{"tool":"Bash","input":{"command":"touch x"},"agent":"alpha"}`), &res); err != nil {
			t.Fatal(err)
		}
		return res.Decision
	}
	// A repository's .vscode/settings.json: an allow rule and an agent.
	values := `{"permissions":{"workspaceValue":{"allow":["Bash(touch *)"]}},
		"agents":{"workspaceValue":{"pwn":{"command":"sh"}}},
		"defaultAgent":{"defaultValue":"demo"}}`
	untrusted, err := call(false, "", false, values)
	if err != nil {
		t.Fatal(err)
	}
	if untrusted.Pinned || !strings.HasPrefix(untrusted.Digest, "sha256:") || untrusted.DefaultAgent != "alpha" {
		t.Fatalf("untrusted = %+v", untrusted)
	}
	if _, ok := untrusted.Agents["pwn"]; ok {
		t.Fatal("a workspace agent is configured")
	}
	if d := explain(); d != "ask" {
		t.Fatalf("untrusted workspace allow rule applied: %s", d)
	}
	// Trusted, first seen with values: trusting is not approving.
	first, err := call(true, "", false, values)
	if err != nil {
		t.Fatal(err)
	}
	if first.Pinned || first.Approved != "none" || first.Pin != "" || explain() != "ask" {
		t.Fatalf("first trust = %+v", first)
	}
	// Approved (the digest the editor stored): it applies.
	pinned, err := call(true, first.Digest, false, values)
	if err != nil {
		t.Fatal(err)
	}
	if !pinned.Pinned || explain() != "allow" {
		t.Fatalf("pinned = %+v, decision %s", pinned, explain())
	}
	if _, ok := pinned.Agents["pwn"]; ok {
		t.Fatal("a workspace agent is configured once trusted")
	}
	// A preview of other values answers their digest and applies nothing.
	other := `{"permissions":{"workspaceValue":{"allow":["Bash(touch *)","Bash(rm *)"]}}}`
	pre, err := call(true, first.Digest, true, other)
	if err != nil {
		t.Fatal(err)
	}
	if pre.Pinned || pre.Digest == first.Digest || explain() != "allow" {
		t.Fatalf("preview = %+v", pre)
	}
	// A bad layer is refused whole, naming it and the key; reported too.
	_, err = call(true, first.Digest, false, `{"permissions":{"globalValue":{"defaultMode":"yolo"}}}`)
	if acp.ErrorCode(err) != acp.CodeInvalidParams || !strings.Contains(err.Error(), "editor user settings: permissions.defaultMode") {
		t.Fatalf("err = %v", err)
	}
	if err := h.editor.WaitFor(ctx, "settings/invalid", func(msgs []testkit.Message) bool {
		for _, m := range msgs {
			if m.Method == acp.MethodSettingsInvalid && strings.Contains(string(m.Params), "yolo") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if explain() != "allow" {
		t.Fatal("a refused update changed the settings")
	}
}

// Refused editor settings with none in force yet start no agent: the
// person's deny rules from the editor are not lost to a typo next to them.
// Once a payload applies, agents start; a later refused payload keeps the
// applied one in force and agents keep starting.
func TestRefusedEditorSettingsStartNoAgent(t *testing.T) {
	for _, method := range []string{"layers", "didChange"} {
		t.Run(method, func(t *testing.T) {
			h := start(t, twoAgents())
			h.init(false)
			ctx := tctx(t)
			send := func(perms string) error {
				t.Helper()
				if method == "layers" {
					params := map[string]any{"values": json.RawMessage(`{"permissions":{"globalValue":` + perms + `}}`), "trusted": false, "approved": ""}
					var res wire.SettingsLayersResult
					return h.editor.Conn.Call(ctx, wire.SettingsLayers, params, &res)
				}
				if err := h.editor.Conn.Notify(ctx, acp.MethodSettingsDidChange, map[string]any{"settings": map[string]json.RawMessage{"permissions": json.RawMessage(perms)}}); err != nil {
					t.Fatal(err)
				}
				h.sync(t)
				return nil
			}
			bad := `{"deny":["Bash(touch *)"],"denny":["Bash(rm *)"]}`
			err := send(bad)
			if method == "layers" && (err == nil || !strings.Contains(err.Error(), "denny")) {
				t.Fatalf("a payload with an unknown key: %v, want an error naming it", err)
			}
			if _, err := h.editor.NewSession(ctx, h.ws, "alpha"); err == nil || !strings.Contains(err.Error(), "no agent starts") || !strings.Contains(err.Error(), "denny") {
				t.Fatalf("session/new with the editor's settings refused: %v, want no agent started, naming the key", err)
			}
			if err := send(`{"deny":["Bash(touch *)"]}`); err != nil {
				t.Fatal(err)
			}
			h.session("alpha")
			// A later typo keeps the applied settings (and their deny) in force.
			if err := send(bad); method == "layers" && err == nil {
				t.Fatal("a later bad payload was accepted")
			}
			h.session("beta")
			var res policyExplainResult
			if err := h.editor.Conn.Call(ctx, MethodPolicyExplain, json.RawMessage(`{"tool":"Bash","input":{"command":"touch x"},"agent":"alpha"}`), &res); err != nil {
				t.Fatal(err)
			}
			if res.Decision != "deny" {
				t.Fatalf("the applied editor deny rule is not in force after a refused payload: %s", res.Decision)
			}
		})
	}
}
