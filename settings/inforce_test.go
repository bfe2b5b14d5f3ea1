package settings

import (
	"encoding/json"
	"slices"
	"testing"
)

// Every mode and rule in force is listed with its source: the user file,
// the workspace file (once it applies), the editor, the defaults.
func TestInForceListsEverySource(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "permissions:\n  defaultMode: acceptEdits\n  allow: [\"Bash(make)\"]\n")
	writeFile(t, e.wsFile(), "permissions:\n  defaultMode: bypassPermissions\n  deny: [\"Read(.env)\"]\nagents:\n  demo: {mode: plan, bypassPermissions: true, permissions: {ask: [\"Bash(git push *)\"]}}\n")
	s := e.mustLoad()
	if err := s.ApplyEditor(json.RawMessage(`{"permissions": {"ask": ["WebFetch"]}}`)); err != nil {
		t.Fatal(err)
	}
	got := s.Snapshot().InForce
	want := []InForce{
		{Kind: "mode", Value: ModeBypass, Source: LayerWorkspace, File: e.wsFile()},
		{Kind: "mode", Value: ModePlan, Agent: "demo", Source: LayerWorkspace, File: e.wsFile()},
		{Kind: "bypass", Value: "true", Agent: "demo", Source: LayerWorkspace, File: e.wsFile()},
		{Kind: "rule", List: ListAllow, Value: "Bash(make)", Source: LayerUser, File: e.userFile()},
		{Kind: "rule", List: ListDeny, Value: "Read(.env)", Source: LayerWorkspace, File: e.wsFile()},
		{Kind: "rule", List: ListAsk, Value: "WebFetch", Source: LayerEditor},
		{Kind: "rule", List: ListAsk, Value: "Bash(git push *)", Agent: "demo", Source: LayerWorkspace, File: e.wsFile()},
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("in force lacks %+v; got %+v", w, got)
		}
	}
	// Untrusted, the workspace's loosening is not in force and not listed;
	// its deny is.
	u := newEnv(t)
	writeFile(t, u.wsFile(), "permissions:\n  defaultMode: bypassPermissions\n  allow: [Bash]\n  deny: [\"Read(.env)\"]\n")
	got = u.mustLoad(untrusted).Snapshot().InForce
	if !slices.Contains(got, InForce{Kind: "mode", Value: ModeDefault, Source: LayerDefault}) ||
		!slices.Contains(got, InForce{Kind: "rule", List: ListDeny, Value: "Read(.env)", Source: LayerWorkspace, File: u.wsFile()}) ||
		slices.ContainsFunc(got, func(f InForce) bool { return f.Value == "Bash" || f.Value == ModeBypass }) {
		t.Errorf("untrusted in force = %+v", got)
	}
}
