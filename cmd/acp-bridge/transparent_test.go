package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// Issue 20 through the real binary and its OS sandbox: a login reaches the
// agent named in the namespaced method id; a prompt block the agent does not
// take is refused naming it; a fork is a session of the same confined agent
// in the source's mode, where the deny rule still holds on disk and an
// undenied command (the control) really runs; resume/fork/close are refused
// naming an agent that does not offer them; a close releases a pending
// approval as cancelled.
func TestTransparentLoginsCapabilitiesAndSessionMethods(t *testing.T) {
	p := startBin(t, "defaultAgent: f\napprovals: {timeoutSeconds: 60}\npermissions: {deny: [\"Bash(rm -rf build)\"]}\nagents:\n"+
		testkit.FakeAgentYAML("f")+testkit.FakeAgentYAML("g", "--no-session-ops"))
	for _, d := range []string{"build", "build2"} {
		if err := os.MkdirAll(filepath.Join(p.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.ws, d, "keep.txt"), []byte("k"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := ctx(t)
	if _, err := p.editor.Initialize(c, false, false); err != nil {
		t.Fatal(err)
	}
	code := func(err error) int64 {
		var ae *acp.Error
		if errors.As(err, &ae) {
			return ae.Code
		}
		return 0
	}
	// Login before any session: authenticate starts f and passes its own id.
	if err := p.editor.Conn.Call(c, acp.MethodAuthenticate, map[string]any{"methodId": "f/login"}, nil); err != nil {
		t.Fatalf("authenticate f/login: %v", err)
	}
	if err := p.editor.Conn.Call(c, acp.MethodAuthenticate, map[string]any{"methodId": "f/tui"}, nil); code(err) != acp.CodeInvalidParams || !strings.Contains(err.Error(), "f/tui") {
		t.Fatalf("a terminal login: %v, want -32602 naming it", err)
	}
	sid, err := p.editor.NewSession(c, p.ws, "f")
	if err != nil {
		t.Fatal(err)
	}
	last := func(sid string) string {
		texts := testkit.Texts(p.editor.Messages(), sid)
		if len(texts) == 0 {
			t.Fatalf("no text in %s", sid)
		}
		return texts[len(texts)-1]
	}
	if _, err := p.editor.Prompt(c, sid, "auth?"); err != nil || last(sid) != "auth=login" {
		t.Fatalf("f after authenticate: %q %v", last(sid), err)
	}
	// f takes no audio: refused naming it.
	err = p.editor.Conn.Call(c, acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{
		map[string]any{"type": "text", "text": "hi"}, map[string]any{"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}}}, nil)
	if code(err) != acp.CodeInvalidParams || !strings.Contains(err.Error(), "agent f does not accept") {
		t.Fatalf("audio to f: %v", err)
	}

	// Fork in bypassPermissions: the rule still denies, the control runs.
	if err := p.editor.Conn.Call(c, acp.MethodSessionSetMode, map[string]string{"sessionId": sid, "modeId": "bypassPermissions"}, nil); err != nil {
		t.Fatal(err)
	}
	var fork struct {
		SessionID string `json:"sessionId"`
		Meta      map[string]json.RawMessage
	}
	if err := p.editor.Conn.Call(c, acp.MethodSessionFork, map[string]any{"sessionId": sid, "cwd": p.ws}, &fork); err != nil {
		t.Fatalf("fork: %v", err)
	}
	if fork.SessionID == "" || fork.SessionID == sid {
		t.Fatalf("fork id %q", fork.SessionID)
	}
	if _, err := p.editor.Prompt(c, fork.SessionID, "run rm -rf build\nrun rm -rf build2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.ws, "build", "keep.txt")); err != nil {
		t.Fatalf("the deny rule did not hold in the fork: %v (texts %q)", err, testkit.Texts(p.editor.Messages(), fork.SessionID))
	}
	if _, err := os.Stat(filepath.Join(p.ws, "build2")); !os.IsNotExist(err) {
		t.Fatalf("control: build2 should be gone in bypassPermissions: %v (texts %q)", err, testkit.Texts(p.editor.Messages(), fork.SessionID))
	}

	// g offers none of them.
	gid, err := p.editor.NewSession(c, p.ws, "g")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{acp.MethodSessionFork, acp.MethodSessionClose} {
		err := p.editor.Conn.Call(c, m, map[string]any{"sessionId": gid, "cwd": p.ws}, nil)
		if code(err) != acp.CodeMethodNotFound || !strings.Contains(err.Error(), "agent g does not offer it") {
			t.Fatalf("%s to g: %v", m, err)
		}
	}

	// Close with a card pending (default mode asks for touch).
	if err := p.editor.Conn.Call(c, acp.MethodSessionSetMode, map[string]string{"sessionId": sid, "modeId": "default"}, nil); err != nil {
		t.Fatal(err)
	}
	type result struct {
		stop string
		err  error
	}
	done := make(chan result, 1)
	go func() { stop, err := p.editor.Prompt(c, sid, "perm c1"); done <- result{stop, err} }()
	if _, err := p.editor.NextPermission(c); err != nil {
		t.Fatal(err)
	}
	if err := p.editor.Conn.Call(c, acp.MethodSessionClose, map[string]any{"sessionId": sid}, nil); err != nil {
		t.Fatalf("close: %v", err)
	}
	if r := <-done; r.err != nil || r.stop != acp.StopCancelled {
		t.Fatalf("the closed session's prompt: %q %v, want cancelled", r.stop, r.err)
	}
	var c1 []string
	for _, r := range testkit.Resolved(p.editor.Messages()) {
		if r["toolCallId"] == "c1" {
			c1 = append(c1, fmt.Sprint(r["decision"], " by ", r["by"]))
		}
	}
	if len(c1) != 1 || c1[0] != "cancelled by cancel" {
		t.Fatalf("the pending approval was resolved %q, want cancelled once", c1)
	}
	if _, err := p.editor.Prompt(c, sid, "updates 1"); code(err) != acp.CodeResourceNotFound {
		t.Fatalf("prompt after close: %v", err)
	}
}
