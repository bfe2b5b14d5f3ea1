package bridge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// wantCode fails unless err is an ACP error with code and a message that
// contains every one of parts.
func wantCode(t *testing.T, what string, err error, code int64, parts ...string) {
	t.Helper()
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("%s: err %v, want code %d", what, err, code)
	}
	for _, p := range parts {
		if !strings.Contains(ae.Message, p) {
			t.Fatalf("%s: message %q does not say %q", what, ae.Message, p)
		}
	}
}

// lastText is the last agent text of a session.
func (h *harness) lastText(sid string) string {
	h.t.Helper()
	got := testkit.Texts(h.editor.Messages(), sid)
	if len(got) == 0 {
		h.t.Fatalf("session %s has no text", sid)
	}
	return got[len(got)-1]
}

// reportingAgent is a fake agent that reports to a file outside the
// workspace, writable in its sandbox.
func reportingAgent(t *testing.T, name string, flags ...string) (yaml, report string) {
	dir := t.TempDir()
	report = filepath.Join(dir, name+".report")
	yaml = testkit.FakeAgentYAML(name, append([]string{"--report=" + report}, flags...)...) +
		"    sandbox: {allowWrite: [\"" + dir + "\"]}\n"
	return yaml, report
}

type authMethod struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Meta struct {
		Bridge authMethodMeta `json:"acp-bridge"`
		// the agent's own _meta never passes (Zed's terminal-auth runs a
		// program on the host)
		TerminalAuth json.RawMessage `json:"terminal-auth"`
	} `json:"_meta"`
}

// Each agent's own logins reach the editor under "<agent>/<id>" and
// authenticate goes to that agent with its own id, starting it if needed.
func TestAuthMethodsAreNamespacedAndRouted(t *testing.T) {
	h := start(t, twoAgents())
	ctx := tctx(t)
	initialize := func() []authMethod {
		raw, err := h.editor.Initialize(ctx, false, false)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			AuthMethods []authMethod `json:"authMethods"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		return res.AuthMethods
	}
	if got := initialize(); len(got) != 0 {
		t.Fatalf("no agent runs yet, initialize lists %v", got)
	}
	sa := h.session("alpha")
	// A second initialize (an editor reconnecting) lists alpha's, not beta's
	// (not started); its terminal method is not passed.
	got := initialize()
	if len(got) != 1 || got[0].ID != "alpha/login" || got[0].Name != "Log in to alpha" ||
		got[0].Meta.Bridge != (authMethodMeta{Agent: "alpha", MethodID: "login"}) || got[0].Meta.TerminalAuth != nil {
		t.Fatalf("initialize authMethods %+v, want alpha/login naming alpha", got)
	}
	var list struct {
		Agents []struct {
			ID          string       `json:"id"`
			AuthMethods []authMethod `json:"authMethods"`
		} `json:"agents"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodAgentsList, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	for _, a := range list.Agents {
		if want := map[string]int{"alpha": 1, "beta": 0}[a.ID]; len(a.AuthMethods) != want {
			t.Fatalf("agents/list %s authMethods %+v, want %d", a.ID, a.AuthMethods, want)
		}
	}

	// beta is not running: authenticate starts it and gives it its own id.
	if err := h.editor.Conn.Call(ctx, acp.MethodAuthenticate, map[string]any{"methodId": "beta/login"}, nil); err != nil {
		t.Fatalf("authenticate beta/login: %v", err)
	}
	sb := h.session("beta")
	for sid, want := range map[string]string{sa: "auth=none", sb: "auth=login"} {
		if _, err := h.editor.Prompt(ctx, sid, "auth?"); err != nil {
			t.Fatal(err)
		}
		if got := h.lastText(sid); got != want {
			t.Fatalf("session %s: %q, want %q (only the agent named authenticated)", sid, got, want)
		}
	}

	for _, c := range []struct{ id, says string }{
		{"alpha/tui", `"alpha/tui": agent alpha offers no such method through acp-bridge (it offers: alpha/login)`},
		{"alpha/nope", `"alpha/nope"`},
		{"gamma/login", `names no configured agent ("gamma")`},
		{"login", `"login" is not one of acp-bridge's`},
		{"", "methodId is required"},
	} {
		err := h.editor.Conn.Call(ctx, acp.MethodAuthenticate, map[string]any{"methodId": c.id}, nil)
		wantCode(t, "authenticate "+c.id, err, acp.CodeInvalidParams, c.says)
	}
	if _, err := h.editor.Prompt(ctx, sa, "auth?"); err != nil || h.lastText(sa) != "auth=none" {
		t.Fatalf("a refused method reached alpha: %q %v", h.lastText(sa), err)
	}
}

// A session shows its agent's own prompt and MCP capabilities, and what the
// agent does not take is refused naming it, never dropped.
func TestPromptAndMCPCapabilitiesPerAgent(t *testing.T) {
	beta, report := reportingAgent(t, "beta")
	h := start(t, "defaultAgent: alpha\nagents:\n"+testkit.FakeAgentYAML("alpha", "--audio")+beta)
	h.init(false)
	ctx := tctx(t)
	newSession := func(agent string, servers []any) (map[string]json.RawMessage, error) {
		var res struct {
			SessionID string `json:"sessionId"`
			Meta      struct {
				Bridge struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				} `json:"acp-bridge"`
			} `json:"_meta"`
		}
		err := h.editor.Conn.Call(ctx, acp.MethodSessionNew, map[string]any{"cwd": h.ws, "mcpServers": servers,
			"_meta": map[string]any{"acp-bridge": map[string]string{"agent": agent}}}, &res)
		if err == nil {
			res.Meta.Bridge.Capabilities["sessionId"], _ = json.Marshal(res.SessionID)
		}
		return res.Meta.Bridge.Capabilities, err
	}
	sse := []any{map[string]any{"type": "sse", "name": "events", "url": "http://127.0.0.1:9/sse", "headers": []any{}}}
	ca, err := newSession("alpha", sse)
	if err != nil {
		t.Fatalf("alpha takes sse MCP servers: %v", err)
	}
	_, err = newSession("beta", sse)
	wantCode(t, "beta with an sse server", err, acp.CodeInvalidParams, `MCP server "events"`, "agent beta", "mcpCapabilities.sse")
	cb, err := newSession("beta", []any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		caps  map[string]json.RawMessage
		audio string
	}{{ca, "true"}, {cb, "false"}} {
		if !strings.Contains(string(c.caps["promptCapabilities"]), `"audio":`+c.audio) {
			t.Fatalf("session capabilities %s: want audio %s", c.caps["promptCapabilities"], c.audio)
		}
	}
	var sa, sb string
	_ = json.Unmarshal(ca["sessionId"], &sa)
	_ = json.Unmarshal(cb["sessionId"], &sb)

	prompt := func(sid, text string) error {
		return h.editor.Conn.Call(ctx, acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{
			map[string]any{"type": "text", "text": text},
			map[string]any{"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
		}}, nil)
	}
	if err := prompt(sa, "blocks?"); err != nil {
		t.Fatal(err)
	}
	if got := h.lastText(sa); got != "blocks=text,audio" {
		t.Fatalf("alpha got %q, want its audio block", got)
	}
	err = prompt(sb, "refused-marker")
	wantCode(t, "audio to beta", err, acp.CodeInvalidParams, "prompt block 1 is audio content", "agent beta", "promptCapabilities.audio")
	// The agent never got the refused prompt (its report lists every prompt).
	if _, err := h.editor.Prompt(ctx, sb, "after"); err != nil {
		t.Fatalf("beta's session goes on: %v", err)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "refused-marker") || !strings.Contains(string(data), "prompt=after") {
		t.Fatalf("beta's prompts: %q: want only the one after the refusal", data)
	}
	// initialize now says audio and sse: an agent that takes them runs.
	raw, err := h.editor.Initialize(ctx, false, false)
	if err != nil {
		t.Fatal(err)
	}
	var ini struct {
		Caps struct {
			Prompt  map[string]bool            `json:"promptCapabilities"`
			MCP     map[string]bool            `json:"mcpCapabilities"`
			Session map[string]json.RawMessage `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	if err := json.Unmarshal(raw, &ini); err != nil {
		t.Fatal(err)
	}
	if !ini.Caps.Prompt["audio"] || !ini.Caps.MCP["sse"] || !ini.Caps.Prompt["image"] || len(ini.Caps.Session) != 5 {
		t.Fatalf("initialize capabilities %+v", ini.Caps)
	}
}

// session/resume, fork and close reach the session's agent when it offers
// them; a fork is a new bridge session of that agent in the source's mode;
// a close answers its pending approvals cancelled and forgets the session.
func TestSessionResumeForkClose(t *testing.T) {
	alpha, report := reportingAgent(t, "alpha")
	h := start(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\npermissions: {deny: [\"Bash(rm *)\"]}\nagents:\n"+
		alpha+testkit.FakeAgentYAML("beta", "--no-session-ops"))
	h.init(false)
	ctx := tctx(t)
	sa, sb := h.session("alpha"), h.session("beta")
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": sa, "modeId": "acceptEdits"}, nil); err != nil {
		t.Fatal(err)
	}

	// Not offered: -32601 naming the agent, and nothing reached it.
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{acp.MethodSessionFork, map[string]any{"sessionId": sb, "cwd": h.ws}},
		{acp.MethodSessionResume, map[string]any{"sessionId": "beta-old-1", "cwd": h.ws, "_meta": map[string]any{"acp-bridge": map[string]string{"agent": "beta"}}}},
		{acp.MethodSessionClose, map[string]any{"sessionId": sb}},
	} {
		err := h.editor.Conn.Call(ctx, c.method, c.params, nil)
		wantCode(t, c.method+" to beta", err, acp.CodeMethodNotFound, c.method, "agent beta does not offer it")
	}
	if _, err := h.bridge.session(sb); err != nil {
		t.Fatalf("beta's session is gone after a refused close: %v", err)
	}

	// fork: a new bridge session, the agent's new id behind it, the source's mode.
	var fork struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Bridge struct {
				Agent, Mode, ForkedFrom, ChildSessionID string
			} `json:"acp-bridge"`
		} `json:"_meta"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionFork, map[string]any{"sessionId": sa, "cwd": h.ws}, &fork); err != nil {
		t.Fatalf("fork: %v", err)
	}
	m := fork.Meta.Bridge
	if fork.SessionID == "" || fork.SessionID == sa || m.Agent != "alpha" || m.Mode != "acceptEdits" || m.ForkedFrom != sa || !strings.HasPrefix(m.ChildSessionID, "alpha-fork-") {
		t.Fatalf("fork answer %+v", fork)
	}
	fs, err := h.bridge.session(fork.SessionID)
	if err != nil || fs.childID != m.ChildSessionID || h.bridge.effectiveMode(fs) != "acceptEdits" {
		t.Fatalf("fork's bridge session %+v %v", fs, err)
	}
	// The same policy holds in the fork: the deny rule refuses without asking.
	if _, err := h.editor.Prompt(ctx, fork.SessionID, "bash rm -rf build"); err != nil {
		t.Fatal(err)
	}
	if got := h.lastText(fork.SessionID); !strings.HasPrefix(got, "bash=") || strings.Contains(got, "allow") {
		t.Fatalf("the fork's rm was answered %q, want a reject", got)
	}

	// resume: an agent's own id, no replay; prompts then work.
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionResume, map[string]any{"sessionId": "alpha-old-3", "cwd": h.ws,
		"_meta": map[string]any{"acp-bridge": map[string]string{"agent": "alpha"}}}, nil); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got := testkit.Texts(h.editor.Messages(), "alpha-old-3"); len(got) != 0 {
		t.Fatalf("resume replayed %q", got)
	}
	if _, err := h.editor.Prompt(ctx, "alpha-old-3", "model?"); err != nil || h.lastText("alpha-old-3") != "model=m1" {
		t.Fatalf("prompt on the resumed session: %v", err)
	}

	// close with an approval pending (in default, touch asks): it answers
	// cancelled, the session is gone.
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": sa, "modeId": "default"}, nil); err != nil {
		t.Fatal(err)
	}
	res := h.promptAsync(sa, "perm c1")
	if _, err := h.editor.NextPermission(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionClose, map[string]any{"sessionId": sa}, nil); err != nil {
		t.Fatalf("close: %v", err)
	}
	if r := wait(t, res, "the closed session's prompt"); r.err == nil && r.stop != acp.StopCancelled {
		t.Fatalf("the closed session's turn ended %q", r.stop)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "c1=cancelled") || !strings.Contains(string(data), "session/close=alpha-session-1") {
		t.Fatalf("alpha's report %q: want c1 cancelled and the close", data)
	}
	if _, err := h.bridge.session(sa); err == nil {
		t.Fatal("the closed session is still known")
	}
	if len(h.bridge.flow.Pending()) != 0 {
		t.Fatalf("approvals still pending after close: %d", len(h.bridge.flow.Pending()))
	}
	_, err = h.editor.Prompt(ctx, sa, "updates 1")
	wantCode(t, "prompt after close", err, acp.CodeResourceNotFound)
	// The fork lives on.
	if _, err := h.editor.Prompt(ctx, fork.SessionID, "updates 1"); err != nil {
		t.Fatalf("the fork after its source closed: %v", err)
	}
}
