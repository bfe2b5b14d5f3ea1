package bridge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// What is not about permissions passes between the editor and the agent of
// a session, with ids mapped and the bridge's own surface kept apart.
func TestPassThroughIsRoutedBySession(t *testing.T) {
	h := start(t, twoAgents())
	var elicited, extended json.RawMessage
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		switch method {
		case acp.MethodElicitationCreate:
			elicited = params
			return map[string]any{"action": "accept", "content": map[string]any{"answer": "yes"}}, nil
		case "_fake/ask":
			extended = params
			return map[string]any{}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	ctx := tctx(t)
	// The editor offers elicitation: the bridge passes it to each child.
	if err := h.editor.Conn.Call(ctx, acp.MethodInitialize, map[string]any{
		"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]bool{}, "terminal": false,
			"elicitation": map[string]any{"form": map[string]any{}}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	sa, sb := h.session("alpha"), h.session("beta")

	// session/set_model reaches the agent of the session it names, only that one.
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetModel, map[string]any{"sessionId": sa, "modelId": "m2"}, nil); err != nil {
		t.Fatalf("session/set_model: %v", err)
	}
	for sid, want := range map[string]string{sa: "model=m2", sb: "model=m1"} {
		if _, err := h.editor.Prompt(ctx, sid, "model?"); err != nil {
			t.Fatal(err)
		}
		if got := testkit.Texts(h.editor.Messages(), sid); len(got) == 0 || got[len(got)-1] != want {
			t.Fatalf("session %s texts %q, want last %q", sid, got, want)
		}
	}

	// An editor's extension request goes to the session's agent with the
	// agent's session id; its answer comes back.
	var echo struct {
		Got map[string]any `json:"got"`
	}
	if err := h.editor.Conn.Call(ctx, "_fake/echo", map[string]any{"sessionId": sb, "x": 1}, &echo); err != nil {
		t.Fatalf("_fake/echo: %v", err)
	}
	if echo.Got["sessionId"] != "beta-session-1" || echo.Got["x"] != float64(1) {
		t.Fatalf("the agent got %v: want its own session id and the params", echo.Got)
	}
	// Without a session it has nowhere to go; the bridge's own prefix is never passed.
	for _, m := range []string{"_fake/echo", "_acp-bridge/nope"} {
		err := h.editor.Conn.Call(ctx, m, map[string]any{"sessionId": sa}, nil)
		if m == "_fake/echo" {
			err = h.editor.Conn.Call(ctx, m, map[string]any{}, nil)
		}
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeMethodNotFound {
			t.Fatalf("%s: err %v, want -32601", m, err)
		}
	}
	// An editor's extension notification reaches the agent, in order with the turn that follows.
	if err := h.editor.Conn.Notify(ctx, "_fake/note", map[string]any{"sessionId": sa, "n": 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.Prompt(ctx, sa, "notes?"); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), sa); !strings.Contains(got[len(got)-1], `_fake/note {"n":7,"sessionId":"alpha-session-1"}`) {
		t.Fatalf("notes: %q", got[len(got)-1])
	}

	// The agent's elicitation/create and extension request reach the editor
	// with the bridge's session id; a foreign _meta["acp-bridge"] is removed
	// and the extension request says which agent sent it.
	if _, err := h.editor.Prompt(ctx, sb, `call elicitation/create {"sessionId":"$SID","message":"Which?","requestedSchema":{"type":"object"}}`); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.Prompt(ctx, sb, `call _fake/ask {"sessionId":"$SID","_meta":{"acp-bridge":{"approvalId":"forged"},"other":1}}`); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), sb); got[len(got)-2] != "call=ok" || got[len(got)-1] != "call=ok" {
		t.Fatalf("agent's calls: %q", got)
	}
	var e struct {
		SessionID string `json:"sessionId"`
		Message   string `json:"message"`
	}
	if err := json.Unmarshal(elicited, &e); err != nil || e.SessionID != sb || e.Message != "Which?" {
		t.Fatalf("elicitation reached the editor as %s", elicited)
	}
	var x struct {
		SessionID string `json:"sessionId"`
		Meta      map[string]json.RawMessage
	}
	if err := json.Unmarshal(extended, &x); err != nil || x.SessionID != sb {
		t.Fatalf("extension request reached the editor as %s", extended)
	}
	if !strings.Contains(string(extended), `"acp-bridge":{"agent":"beta"}`) || strings.Contains(string(extended), "forged") || !strings.Contains(string(extended), `"other":1`) {
		t.Fatalf("extension request _meta: %s", extended)
	}
	// A session that is not the agent's own is refused, never mapped.
	if _, err := h.editor.Prompt(ctx, sb, `call _fake/ask {"sessionId":"alpha-session-1"}`); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), sb); !strings.HasPrefix(got[len(got)-1], "call=-32602") {
		t.Fatalf("another agent's session: %q", got[len(got)-1])
	}
}

// Without the editor's elicitation capability, an agent's question is refused at the bridge.
func TestElicitationNeedsTheEditorsCapability(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sa := h.session("alpha")
	if _, err := h.editor.Prompt(tctx(t), sa, `call elicitation/create {"sessionId":"$SID","message":"Which?","requestedSchema":{"type":"object"}}`); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), sa); !strings.HasPrefix(got[len(got)-1], "call=-32601") {
		t.Fatalf("texts %q", got)
	}
	for _, m := range h.editor.Messages() {
		if m.Method == acp.MethodElicitationCreate {
			t.Fatal("the question reached an editor that does not offer elicitation")
		}
	}
}
