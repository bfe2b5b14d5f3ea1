package bridge

import (
	"errors"
	"slices"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// session/list (issue 20): an agent that does not offer it is never asked
// (a clear -32601 naming it); with no agent named, every running agent that
// offers it is asked and each session says whose it is.
func TestSessionListAcrossAgents(t *testing.T) {
	cfg := "defaultAgent: alpha\nagents:\n" + testkit.FakeAgentYAML("alpha") + testkit.FakeAgentYAML("beta") +
		testkit.FakeAgentYAML("gamma", "--no-list")
	h := start(t, cfg)
	h.init(false)
	ctx := tctx(t)
	sa, sb := h.session("alpha"), h.session("beta")
	h.session("gamma")

	type entry struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Bridge struct {
				Agent string `json:"agent"`
			} `json:"acp-bridge"`
		} `json:"_meta"`
	}
	var all struct {
		Sessions []entry `json:"sessions"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionList, map[string]any{}, &all); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range all.Sessions {
		got = append(got, e.Meta.Bridge.Agent+":"+e.SessionID)
	}
	slices.Sort(got)
	want := []string{"alpha:" + sa, "beta:" + sb}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("session/list with no agent named = %q, want %q (gamma offers none)", got, want)
	}

	err := h.editor.Conn.Call(ctx, acp.MethodSessionList, map[string]any{"_meta": map[string]any{"acp-bridge": map[string]string{"agent": "gamma"}}}, &all)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeMethodNotFound {
		t.Fatalf("session/list for gamma: %v, want -32601 from the bridge", err)
	}
}
