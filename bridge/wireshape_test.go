package bridge

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// jsonShape is t's JSON fields, "name" or "name?" (optional), sorted.
func jsonShape(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "omitempty") || f.Type.Kind() == reflect.Pointer {
			name += "?"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// TestPayloadsSentMatchWire: the types the bridge still marshals itself
// (they carry methods or nested types of other packages) have exactly the
// JSON shape package wire declares, so the generated TypeScript and the
// drift test speak of what is really sent.
func TestPayloadsSentMatchWire(t *testing.T) {
	tests := []struct {
		sent, declared reflect.Type
	}{
		{reflect.TypeFor[trustReport](), reflect.TypeFor[wire.TrustReport]()},
		{reflect.TypeFor[settings.IgnoredSetting](), reflect.TypeFor[wire.IgnoredSetting]()},
		{reflect.TypeFor[settings.PendingApproval](), reflect.TypeFor[wire.PendingApproval]()},
		{reflect.TypeFor[settings.InForce](), reflect.TypeFor[wire.InForce]()},
		{reflect.TypeFor[agentInfo](), reflect.TypeFor[wire.AgentEntry]()},
	}
	for _, tc := range tests {
		t.Run(tc.sent.String(), func(t *testing.T) {
			if got, want := jsonShape(tc.sent), jsonShape(tc.declared); !reflect.DeepEqual(got, want) {
				t.Errorf("%s sends %v; %s declares %v", tc.sent, got, tc.declared, want)
			}
		})
	}
}

// TestAgentsListStartMode: agents/list says the mode a new session of each
// agent starts in, computed by the bridge from the merged settings (bypass
// first, then the agent's mode with settings aliases read, then
// permissions.defaultMode), so an editor never computes it; initialize
// gives the mode table (names, strictness) from policy.
func TestAgentsListStartMode(t *testing.T) {
	cfg := "defaultAgent: alpha\npermissions: {defaultMode: plan}\nagents:\n" +
		testkit.FakeAgentYAML("alpha") + "    mode: autonomous\n" +
		testkit.FakeAgentYAML("beta") + "    mode: dontAsk\n    bypassPermissions: true\n" +
		testkit.FakeAgentYAML("gamma")
	h := start(t, cfg)
	raw, err := h.editor.Initialize(tctx(t), false, false)
	if err != nil {
		t.Fatal(err)
	}
	var init struct {
		Meta map[string]wire.InitializeMeta `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &init); err != nil {
		t.Fatal(err)
	}
	im := init.Meta[wire.MetaKey]
	if len(im.Modes) != len(policy.Modes) || im.SettingsAliases["autonomous"] != string(policy.ModeBypass) {
		t.Fatalf("initialize modes %+v aliases %v: want the %d modes of policy and its aliases", im.Modes, im.SettingsAliases, len(policy.Modes))
	}
	for _, m := range im.Modes {
		for _, x := range policy.Modes {
			if got := slices.Contains(m.AtLeastAsStrictAs, string(x)); got != policy.AtLeastAsStrict(policy.Mode(m.ID), x) {
				t.Errorf("initialize says %s at least as strict as %s: %v; policy says %v", m.ID, x, got, !got)
			}
		}
	}
	if _, ok := im.SettingsAliases["auto"]; ok {
		t.Error(`"auto" sent as a settings alias: an agent's own "auto" would read as bypassPermissions`)
	}
	var list wire.AgentsListResult
	if err := h.editor.Conn.Call(tctx(t), acp.MethodAgentsList, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"alpha": "bypassPermissions", "beta": "bypassPermissions", "gamma": "plan", "demo": "plan"}
	for _, a := range list.Agents {
		if a.Mode != want[a.ID] {
			t.Errorf("agents/list %s mode %q, want %q", a.ID, a.Mode, want[a.ID])
		}
	}
	if len(list.Agents) != len(want) {
		t.Fatalf("agents/list: %d agents, want %d", len(list.Agents), len(want))
	}
}
