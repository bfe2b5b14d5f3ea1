package bridge

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/wire"
)

// listedIDs is the merged session/list: each id with the agent it names.
func (h *harness) listedIDs() map[string]string {
	h.t.Helper()
	var res struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Meta      struct {
				Bridge struct {
					Agent string `json:"agent"`
				} `json:"acp-bridge"`
			} `json:"_meta"`
		} `json:"sessions"`
	}
	if err := h.editor.Conn.Call(tctx(h.t), acp.MethodSessionList, map[string]any{}, &res); err != nil {
		h.t.Fatalf("session/list: %v", err)
	}
	out := map[string]string{}
	for _, s := range res.Sessions {
		out[s.SessionID] = s.Meta.Bridge.Agent
	}
	return out
}

// session/delete reaches the agent that owns the id (a bridge session, an
// agent's own id from the merged session/list, or one named with its
// agent) when it offers it; else -32601 naming the agent, or -32602 for an
// id nobody is known to own. A live session's approvals are answered
// cancelled first and the bridge forgets it.
func TestSessionDeleteIsRoutedToItsAgent(t *testing.T) {
	alpha, report := reportingAgent(t, "alpha", "--history=3")
	h := start(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\nagents:\n"+
		alpha+testkit.FakeAgentYAML("beta", "--no-session-ops", "--history=1"))
	raw, err := h.editor.Initialize(tctx(t), false, false)
	if err != nil {
		t.Fatal(err)
	}
	var ini struct {
		Caps struct {
			Session map[string]json.RawMessage `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
		Meta struct {
			Bridge wire.InitializeMeta `json:"acp-bridge"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &ini); err != nil {
		t.Fatal(err)
	}
	if _, ok := ini.Caps.Session["delete"]; !ok {
		t.Fatalf("initialize sessionCapabilities %v: want delete", ini.Caps.Session)
	}
	for _, np := range ini.Meta.Bridge.NotPassed {
		if np.What == "session/delete" || strings.Contains(np.Reason, "not routed yet") {
			t.Fatalf("initialize still says session/delete is not passed: %+v", np)
		}
	}
	ctx := tctx(t)
	sa, sb := h.session("alpha"), h.session("beta")
	list := h.listedIDs()
	for id, agent := range map[string]string{"alpha-old-1": "alpha", "alpha-old-2": "alpha", "alpha-old-3": "alpha", "beta-old-1": "beta", sa: "alpha", sb: "beta"} {
		if list[id] != agent {
			t.Fatalf("merged session/list %v: want %s of %s", list, id, agent)
		}
	}
	del := func(params map[string]any) error {
		return h.editor.Conn.Call(ctx, acp.MethodSessionDelete, params, nil)
	}
	named := func(agent string) map[string]any {
		return map[string]any{"acp-bridge": map[string]string{"agent": agent}}
	}

	// Refused, and nothing reaches an agent.
	for _, c := range []struct {
		params map[string]any
		code   int64
		says   []string
	}{
		{map[string]any{"sessionId": sb}, acp.CodeMethodNotFound, []string{"session/delete", "agent beta does not offer it"}},
		{map[string]any{"sessionId": "beta-old-1"}, acp.CodeMethodNotFound, []string{"agent beta does not offer it"}},
		{map[string]any{"sessionId": "nobody-1"}, acp.CodeInvalidParams, []string{`"nobody-1"`, "no agent's session/list named it", "_meta"}},
		{map[string]any{"sessionId": "alpha-old-1", "_meta": named("gamma")}, acp.CodeInvalidParams, []string{`unknown agent "gamma"`}},
		{map[string]any{}, acp.CodeInvalidParams, []string{"sessionId is required"}},
	} {
		wantCode(t, "delete "+string(mustJSON(c.params)), del(c.params), c.code, c.says...)
	}
	if _, err := h.bridge.session(sb); err != nil {
		t.Fatalf("beta's session is gone after a refused delete: %v", err)
	}

	// An agent's own id from the merged list, then one named with its
	// agent (a session/list before the bridge ran would not name it).
	if err := del(map[string]any{"sessionId": "alpha-old-1"}); err != nil {
		t.Fatalf("delete alpha-old-1: %v", err)
	}
	if err := del(map[string]any{"sessionId": "alpha-old-2", "_meta": named("alpha")}); err != nil {
		t.Fatalf("delete alpha-old-2 named: %v", err)
	}

	// A live session with an approval pending: answered cancelled, the
	// agent deletes its own id, the bridge forgets the session.
	res := h.promptAsync(sa, "perm d1")
	if _, err := h.editor.NextPermission(ctx); err != nil {
		t.Fatal(err)
	}
	if err := del(map[string]any{"sessionId": sa}); err != nil {
		t.Fatalf("delete the live session: %v", err)
	}
	if r := wait(t, res, "the deleted session's prompt"); r.err == nil && r.stop != acp.StopCancelled {
		t.Fatalf("the deleted session's turn ended %q", r.stop)
	}
	if _, err := h.bridge.session(sa); err == nil {
		t.Fatal("the deleted session is still known")
	}
	if n := len(h.bridge.flow.Pending()); n != 0 {
		t.Fatalf("approvals still pending after delete: %d", n)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"session/delete=alpha-old-1\n", "session/delete=alpha-old-2\n", "d1=cancelled", "session/delete=alpha-session-1\n"} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("alpha's report %q: want %q", data, want)
		}
	}
	if strings.Contains(string(data), "nobody") || strings.Contains(string(data), "unknown") {
		t.Fatalf("a refused delete reached alpha: %q", data)
	}
	after := h.listedIDs()
	for _, gone := range []string{"alpha-old-1", "alpha-old-2", sa} {
		if _, ok := after[gone]; ok {
			t.Fatalf("%s still listed after its delete: %v", gone, after)
		}
	}
	if after["alpha-old-3"] != "alpha" || after[sb] != "beta" {
		t.Fatalf("a delete took others too: %v", after)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// waitGone waits (bounded) until no process has every one of parts in its
// command line. There is no event to await for a process in another pid
// namespace ending after its parent was killed, so /proc is read again
// every 20 ms.
func waitGone(t *testing.T, what string, parts ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		pids, err := testkit.ProcessesWith(parts...)
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: processes %v still run %q", what, pids, parts)
		}
		<-tick.C
	}
}

// A session's close (and delete) releases the terminals its agent created
// in it: the editor's terminal/release ends their processes. The editor
// here runs terminal/create's command for real; the process is looked for
// in /proc, not in the bridge's map. The control: a terminal of another
// session still runs until that session ends.
func TestSessionEndReleasesItsTerminals(t *testing.T) {
	h := start(t, "defaultAgent: alpha\npermissions: {allow: [\"Bash(sleep *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	terms := &testkit.Terminals{}
	t.Cleanup(terms.Close)
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if res, ok, err := terms.Serve(method, params); ok {
			return res, err
		}
		return nil, acp.MethodNotFound(method)
	}
	if _, err := h.editor.Initialize(tctx(t), false, true); err != nil {
		t.Fatal(err)
	}
	ctx := tctx(t)
	// Unique durations mark each session's process.
	marks := map[string]string{"close": "3001.25", "delete": "3002.25"}
	s1, s2 := h.session("alpha"), h.session("alpha")
	for sid, mark := range map[string]string{s1: marks["close"], s2: marks["delete"]} {
		if _, err := h.editor.Prompt(ctx, sid, "term sleep "+mark); err != nil {
			t.Fatal(err)
		}
		if got := h.lastText(sid); !strings.HasPrefix(got, "term:term-") {
			t.Fatalf("terminal/create in %s: %q", sid, got)
		}
	}
	running := func(mark string) bool {
		pids, err := testkit.ProcessesWith("sleep", mark)
		if err != nil {
			t.Fatal(err)
		}
		return len(pids) > 0
	}
	for _, mark := range marks {
		if !running(mark) {
			t.Fatalf("the terminal's sleep %s does not run: the test sees no process", mark)
		}
	}

	if err := h.editor.Conn.Call(ctx, acp.MethodSessionClose, map[string]any{"sessionId": s1}, nil); err != nil {
		t.Fatalf("close: %v", err)
	}
	waitGone(t, "the closed session's terminal", "sleep", marks["close"])
	if !running(marks["delete"]) {
		t.Fatal("closing one session ended another session's terminal")
	}
	var released []string
	for _, m := range h.editor.Messages() {
		if m.Method == acp.MethodTerminalRelease {
			var p struct{ SessionID, TerminalID string }
			_ = json.Unmarshal(m.Params, &p)
			released = append(released, p.SessionID+" "+p.TerminalID)
		}
	}
	if len(released) != 1 || !strings.HasPrefix(released[0], s1+" term-") {
		t.Fatalf("terminal/release sent %q, want one for %s under its bridge id", released, s1)
	}
	a, err := h.bridge.agent("alpha")
	if err != nil {
		t.Fatal(err)
	}
	if _, known := a.terminalSession(strings.TrimPrefix(released[0], s1+" ")); known {
		t.Fatal("the released terminal id is still the agent's")
	}

	if err := h.editor.Conn.Call(ctx, acp.MethodSessionDelete, map[string]any{"sessionId": s2}, nil); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitGone(t, "the deleted session's terminal", "sleep", marks["delete"])
}

// An own id two agents' session/list both named is not guessed: the
// delete asks for the agent, and with it reaches only that one.
func TestSessionDeleteOfAnIDTwoAgentsListed(t *testing.T) {
	alpha, reportA := reportingAgent(t, "alpha", "--history=1")
	// gamma's fake calls itself alpha: its stored session is "alpha-old-1" too.
	gamma, reportG := reportingAgent(t, "gamma", "--name=alpha", "--history=1")
	h := start(t, "defaultAgent: alpha\nagents:\n"+alpha+gamma)
	h.init(false)
	h.session("alpha")
	h.session("gamma")
	h.listedIDs()
	err := h.editor.Conn.Call(tctx(t), acp.MethodSessionDelete, map[string]any{"sessionId": "alpha-old-1"}, nil)
	wantCode(t, "delete of an id two agents listed", err, acp.CodeInvalidParams, "more than one agent (alpha, gamma)", "_meta")
	if err := h.editor.Conn.Call(tctx(t), acp.MethodSessionDelete, map[string]any{"sessionId": "alpha-old-1",
		"_meta": map[string]any{"acp-bridge": map[string]string{"agent": "gamma"}}}, nil); err != nil {
		t.Fatalf("delete naming gamma: %v", err)
	}
	for report, want := range map[string]bool{reportA: false, reportG: true} {
		data, err := os.ReadFile(report)
		if err != nil && !errors.Is(err, os.ErrNotExist) { // an agent that reported nothing wrote no file
			t.Fatal(err)
		}
		if got := strings.Contains(string(data), "session/delete=alpha-old-1"); got != want {
			t.Fatalf("%s: delete reached it %v, want %v (%q)", report, got, want, data)
		}
	}
}
