package interop

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// What the Go SDK's example agent does on every prompt (example/agent/main.go
// of goSDK v0.13.0): call_2 is the edit it asks permission for.
const (
	exampleToolCall  = "call_2"
	exampleToolTitle = "Modifying critical configuration file"
	exampleAllowText = "Perfect! I've successfully updated the configuration."
	exampleSkipText  = "I'll skip the configuration update."
)

// openExampleSession starts a bridge whose child is the example agent,
// initializes it and opens a session on that agent.
func openExampleSession(ctx context.Context, t *testing.T) (*bridgeProc, string) {
	t.Helper()
	p := startBridge(t, exampleAgentConfig())
	raw, err := p.editor.Initialize(ctx, false, false)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var init struct {
		ProtocolVersion int `json:"protocolVersion"`
	}
	if err := json.Unmarshal(raw, &init); err != nil || init.ProtocolVersion != acp.ProtocolVersion {
		t.Fatalf("initialize result %s: protocolVersion %d, %v", raw, init.ProtocolVersion, err)
	}
	sid, err := p.editor.NewSession(ctx, p.workspace, "goexample")
	if err != nil {
		t.Fatalf("session/new on goexample: %v", err)
	}
	if sid == "" {
		t.Fatal("session/new returned an empty sessionId")
	}
	return p, sid
}

// checkExampleCard checks the permission request the editor got for the
// example agent's call_2.
func checkExampleCard(t *testing.T, perm *testkit.PermissionRequest, sid string) {
	t.Helper()
	if perm.SessionID != sid {
		t.Errorf("permission sessionId = %q, want the bridge session %q", perm.SessionID, sid)
	}
	if perm.Meta.ApprovalID == "" {
		t.Errorf("permission has no _meta[\"acp-bridge\"].approvalId: %s", perm.Params)
	}
	if perm.Meta.Agent != "goexample" {
		t.Errorf("_meta[\"acp-bridge\"].agent = %q, want goexample", perm.Meta.Agent)
	}
	if perm.ToolCall.ToolCallID != exampleToolCall {
		t.Errorf("toolCall.toolCallId = %q, want %q", perm.ToolCall.ToolCallID, exampleToolCall)
	}
	if perm.ToolCall.Title == nil || *perm.ToolCall.Title != exampleToolTitle {
		t.Errorf("toolCall.title = %v, want %q", perm.ToolCall.Title, exampleToolTitle)
	}
	if perm.ToolCall.Kind == nil || *perm.ToolCall.Kind != "edit" {
		t.Errorf("toolCall.kind = %v, want edit", perm.ToolCall.Kind)
	}
	var rawInput struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(perm.ToolCall.RawInput, &rawInput); err != nil || !strings.HasSuffix(rawInput.Path, "/config.json") || rawInput.Content == "" {
		t.Errorf("toolCall.rawInput = %s, want the agent's {path, content}", perm.ToolCall.RawInput)
	}
	for _, id := range []string{"acp-bridge:allow_once", "acp-bridge:reject_once"} {
		if !perm.HasOption(id) {
			t.Errorf("option %s not offered; options: %+v", id, perm.Options)
		}
	}
	for _, o := range perm.Options {
		if o.OptionID == "allow" || o.OptionID == "reject" {
			t.Errorf("the agent's own option %q leaked to the editor unprefixed", o.OptionID)
		}
	}
}

func TestExampleAgentAllowOnce(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	p, sid := openExampleSession(ctx, t)
	res := promptAsync(ctx, p.editor, sid, "Please update the config.")
	perm, err := p.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkExampleCard(t, perm, sid)
	perm.Answer(acp.Selected("acp-bridge:allow_once"))
	if stop := awaitPrompt(ctx, t, res); stop != acp.StopEndTurn {
		t.Fatalf("stopReason = %q, want end_turn", stop)
	}

	msgs := p.editor.Messages()
	updates := toolUpdates(msgs, sid, exampleToolCall)
	if len(updates) == 0 || updates[0]["sessionUpdate"] != "tool_call" {
		t.Fatalf("call_2 was not announced with tool_call first: %v", updates)
	}
	if !slices.ContainsFunc(updates, func(u map[string]any) bool {
		return u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed"
	}) {
		t.Errorf("no completed tool_call_update for call_2 after allow_once: %v", updates)
	}
	if text := strings.Join(testkit.Texts(msgs, sid), ""); !strings.Contains(text, exampleAllowText) {
		t.Errorf("the agent's text after allow is missing: %q", text)
	}
	// call_1 (read, no permission) was forwarded too, completed.
	if u := toolUpdates(msgs, sid, "call_1"); len(u) != 2 || u[1]["status"] != "completed" {
		t.Errorf("call_1 updates = %v, want tool_call then completed", u)
	}
	r := resolvedFor(msgs, perm.Meta.ApprovalID)
	if len(r) != 1 || r[0]["decision"] != "allow" || r[0]["by"] != "user" {
		t.Errorf("approval/resolved for %s = %v, want one {decision: allow, by: user}", perm.Meta.ApprovalID, r)
	}
}

func TestExampleAgentRejectOnce(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	p, sid := openExampleSession(ctx, t)
	res := promptAsync(ctx, p.editor, sid, "Please update the config.")
	perm, err := p.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkExampleCard(t, perm, sid)
	perm.Answer(acp.Selected("acp-bridge:reject_once"))
	if stop := awaitPrompt(ctx, t, res); stop != acp.StopEndTurn {
		t.Fatalf("stopReason = %q, want end_turn (the example agent goes on after a rejection)", stop)
	}

	msgs := p.editor.Messages()
	// The agent only says this when it received its own "reject" option.
	if text := strings.Join(testkit.Texts(msgs, sid), ""); !strings.Contains(text, exampleSkipText) || strings.Contains(text, exampleAllowText) {
		t.Errorf("the agent did not take the reject branch; its text: %q", text)
	}
	for _, u := range toolUpdates(msgs, sid, exampleToolCall) {
		if u["status"] == "completed" {
			t.Errorf("call_2 completed although it was rejected: %v", u)
		}
	}
	r := resolvedFor(msgs, perm.Meta.ApprovalID)
	if len(r) != 1 || r[0]["decision"] != "deny" || r[0]["by"] != "user" {
		t.Errorf("approval/resolved for %s = %v, want one {decision: deny, by: user}", perm.Meta.ApprovalID, r)
	}
}

func TestExampleAgentCancelDuringPermission(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	p, sid := openExampleSession(ctx, t)
	res := promptAsync(ctx, p.editor, sid, "Please update the config.")
	perm, err := p.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkExampleCard(t, perm, sid)
	if err := p.editor.Conn.Notify(ctx, acp.MethodSessionCancel, acp.SessionIDParams{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	// ACP: after session/cancel the client answers its pending permission
	// requests "cancelled" (a no-op if the bridge withdrew it already).
	perm.Answer(acp.Cancelled())
	if stop := awaitPrompt(ctx, t, res); stop != acp.StopCancelled {
		t.Fatalf("stopReason = %q, want cancelled", stop)
	}
	msgs := p.editor.Messages()
	for _, u := range toolUpdates(msgs, sid, exampleToolCall) {
		if u["status"] == "completed" {
			t.Errorf("call_2 completed although the turn was cancelled: %v", u)
		}
	}
	if err := p.editor.WaitFor(ctx, "approval/resolved of the cancelled card", func(m []testkit.Message) bool {
		return len(resolvedFor(m, perm.Meta.ApprovalID)) > 0
	}); err != nil {
		t.Fatal(err)
	}
	if r := resolvedFor(p.editor.Messages(), perm.Meta.ApprovalID); len(r) != 1 || r[0]["decision"] != "cancelled" {
		t.Errorf("approval/resolved for %s = %v, want one {decision: cancelled}", perm.Meta.ApprovalID, r)
	}

	// The session still works after the cancel: a second turn gets a new card.
	res = promptAsync(ctx, p.editor, sid, "Try again.")
	perm2, err := p.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if perm2.Meta.ApprovalID == "" || perm2.Meta.ApprovalID == perm.Meta.ApprovalID {
		t.Errorf("second card approvalId %q, first %q: want a new one", perm2.Meta.ApprovalID, perm.Meta.ApprovalID)
	}
	perm2.Answer(acp.Selected("acp-bridge:allow_once"))
	if stop := awaitPrompt(ctx, t, res); stop != acp.StopEndTurn {
		t.Fatalf("second turn stopReason = %q, want end_turn", stop)
	}
}
