package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/sandbox"
	"github.com/acp-bridge/acp-bridge/settings"
)

// The test binary doubles as the fake agent: the bridge spawns os.Args[0]
// with ACP_BRIDGE_FAKE_AGENT=1, and TestMain serves ACP on stdio instead of
// running tests.
func TestMain(m *testing.M) {
	testkit.ServeFakeAgentIfChild()
	os.Exit(m.Run())
}

type harness struct {
	t      *testing.T
	ws     string
	cfg    string
	editor *testkit.Editor
	bridge *Bridge
	store  *settings.Store
	logs   *observer.ObservedLogs
	inW    io.WriteCloser
	done   chan struct{}
	cancel context.CancelFunc
}

// start runs a bridge over pipes with the given config (YAML) and connects a fake editor.
func start(t *testing.T, config string, opts ...func(*Options)) *harness {
	t.Helper()
	return startWith(t, config, func(o *Options) {
		for _, f := range opts {
			f(o)
		}
	})
}

// startWith is start with a hook that may change the bridge's Options
// (a Decider, an Auditor) before it is built.
func startWith(t *testing.T, config string, opt func(*Options)) *harness {
	t.Helper()
	ws := t.TempDir()
	userDir := t.TempDir()
	cfg := filepath.Join(userDir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.DebugLevel)
	log := zap.New(core)
	store, err := settings.Load(settings.Options{ConfigFile: cfg, UserConfigDir: userDir, WorkspaceDir: ws, Environ: []string{}, Executable: os.Args[0], Logger: log})
	if err != nil {
		t.Fatalf("settings: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	o := Options{Settings: store, Logger: log, Version: "test", WorkspaceDir: ws, InitTimeout: 20 * time.Second, StopTimeout: 5 * time.Second, PersistTimeout: 2 * time.Second}
	if opt != nil {
		opt(&o)
	}
	b := New(o)
	h := &harness{t: t, ws: ws, cfg: cfg, bridge: b, store: store, logs: logs, inW: inW, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(h.done)
		_ = b.Serve(ctx, inR, outW)
		_ = outW.Close()
	}()
	h.editor = testkit.NewEditor(ctx, outR, inW)
	t.Cleanup(func() {
		if t.Failed() {
			for _, e := range logs.All() {
				t.Logf("log: %s %s %v", e.Level, e.Message, e.ContextMap())
			}
		}
		cancel()
		_ = inW.Close()
		select {
		case <-h.done:
		case <-time.After(15 * time.Second):
			t.Errorf("bridge did not stop within 15s")
		}
		store.Close()
	})
	return h
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func twoAgents() string {
	return "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\nagents:\n" + testkit.FakeAgentYAML("alpha") + testkit.FakeAgentYAML("beta")
}

func (h *harness) init(fs bool) {
	h.t.Helper()
	if _, err := h.editor.Initialize(tctx(h.t), fs, false); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
}

func (h *harness) session(agent string) string {
	h.t.Helper()
	id, err := h.editor.NewSession(tctx(h.t), h.ws, agent)
	if err != nil {
		h.t.Fatalf("session/new %s: %v", agent, err)
	}
	return id
}

type promptResult struct {
	stop string
	err  error
}

func (h *harness) promptAsync(sid, text string) chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		stop, err := h.editor.Prompt(tctx(h.t), sid, text)
		ch <- promptResult{stop, err}
	}()
	return ch
}

// writeConfig replaces a config file the way an editor saves it (a new
// file renamed over the old): the settings watcher never reads half of it.
func writeConfig(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// turnEnded waits for a prompt's answer and fails the test, naming the
// error, when the turn ended in one (a test that then reads what the
// agent said would otherwise report only that it said nothing).
func turnEnded(t *testing.T, ch <-chan promptResult) promptResult {
	t.Helper()
	r := wait(t, ch, "prompt")
	if r.err != nil {
		t.Fatalf("the prompt failed: %v", r.err)
	}
	return r
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(60 * time.Second):
		var buf strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf.String())
		var zero T
		return zero
	}
}

func TestRoutingTwoAgentsAtOnce(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sa, sb := h.session("alpha"), h.session("beta")
	if sa == sb {
		t.Fatal("two sessions got the same id")
	}
	ra, rb := h.promptAsync(sa, "updates 50"), h.promptAsync(sb, "updates 50")
	for _, r := range []promptResult{wait(t, ra, "alpha prompt"), wait(t, rb, "beta prompt")} {
		if r.err != nil || r.stop != acp.StopEndTurn {
			t.Fatalf("prompt: stop=%q err=%v", r.stop, r.err)
		}
	}
	msgs := h.editor.Messages()
	for sid, agent := range map[string]string{sa: "alpha", sb: "beta"} {
		texts := testkit.Texts(msgs, sid)
		if len(texts) != 50 {
			t.Fatalf("session of %s got %d updates, want 50", agent, len(texts))
		}
		for i, x := range texts {
			if want := fmt.Sprintf("%s:%d", agent, i+1); x != want {
				t.Fatalf("session of %s update %d = %q, want %q", agent, i, x, want)
			}
		}
	}
	// agents/list reports both running with their initialize answers.
	var list struct {
		Agents []agentInfo `json:"agents"`
	}
	if err := h.editor.Conn.Call(tctx(t), acp.MethodAgentsList, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, a := range list.Agents {
		status[a.ID] = a.Status
		if a.Status == statusRunning && (a.AgentInfo == nil || a.AgentInfo.Name != a.ID || a.Pid == 0) {
			t.Fatalf("running agent %s lacks its initialize answer or pid: %+v", a.ID, a)
		}
	}
	// The built-in demo agent is always configured, and idle until used.
	if len(list.Agents) != 3 || status["alpha"] != statusRunning || status["beta"] != statusRunning || status["demo"] != statusIdle {
		t.Fatalf("agents/list statuses = %v", status)
	}
}

func TestTenThousandUpdatesInOrderBeforeResponse(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	stop, err := h.editor.Prompt(tctx(t), sid, "updates 10000")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q %v", stop, err)
	}
	// The editor records notifications on its read loop before it processes
	// the response that follows them, so all must be here already.
	texts := testkit.Texts(h.editor.Messages(), sid)
	if len(texts) != 10000 {
		t.Fatalf("got %d updates before the prompt response, want 10000", len(texts))
	}
	for i, x := range texts {
		if x != fmt.Sprintf("alpha:%d", i+1) {
			t.Fatalf("update %d = %q: out of order", i, x)
		}
	}
}

func TestConcurrentApprovalsSameToolCallID(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm a b a c")
	ctx := tctx(t)
	seen := map[string]bool{}
	answers := map[string]string{}
	var reqs []*testkit.PermissionRequest
	for range 4 {
		p, err := h.editor.NextPermission(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.Meta.ApprovalID == "" || seen[p.Meta.ApprovalID] {
			t.Fatalf("approval id %q missing or repeated", p.Meta.ApprovalID)
		}
		seen[p.Meta.ApprovalID] = true
		if p.SessionID != sid || p.Meta.Agent != "alpha" {
			t.Fatalf("permission under session %q agent %q", p.SessionID, p.Meta.Agent)
		}
		for _, id := range []string{optAllowOnce, optRejectOnce, optRejectStop, optBypass} {
			if !p.HasOption(id) {
				t.Fatalf("option %s not offered: %+v", id, p.Options)
			}
		}
		reqs = append(reqs, p)
	}
	// Answer in reverse order: c and the second a allowed, b and the first a denied.
	for i := len(reqs) - 1; i >= 0; i-- {
		opt := optRejectOnce
		if i%2 == 1 {
			opt = optAllowOnce
		}
		answers[reqs[i].Meta.ApprovalID] = opt
		reqs[i].Answer(acp.Selected(opt))
	}
	r := wait(t, res, "prompt")
	if r.err != nil {
		t.Fatal(r.err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	last := texts[len(texts)-1]
	allowed, rejected := strings.Count(last, "=allow"), strings.Count(last, "=reject")
	if allowed != 2 || rejected != 2 {
		t.Fatalf("agent got %q: want 2 allow and 2 reject", last)
	}
	resolved := testkit.Resolved(h.editor.Messages())
	byID := map[string]int{}
	for _, x := range resolved {
		byID[x["approvalId"].(string)]++
	}
	for id := range seen {
		if byID[id] != 1 {
			t.Fatalf("approval %s announced resolved %d times, want 1", id, byID[id])
		}
	}
}

func TestRespondFirstAnswerWins(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm x")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	// Answer from another surface first.
	var out map[string]any
	if err := h.editor.Conn.Call(tctx(t), acp.MethodApprovalsRespond, map[string]any{"approvalId": p.Meta.ApprovalID, "optionId": optAllowOnce}, &out); err != nil {
		t.Fatalf("respond: %v", err)
	}
	err = h.editor.Conn.Call(tctx(t), acp.MethodApprovalsRespond, map[string]any{"approvalId": p.Meta.ApprovalID, "optionId": optRejectOnce}, &out)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound || !strings.Contains(ae.Message, "already resolved by user") {
		t.Fatalf("second answer: %v, want -32002 naming the first answer", err)
	}
	// The editor's own pending request is withdrawn.
	select {
	case <-p.Withdrawn():
	case <-time.After(10 * time.Second):
		t.Fatal("the forwarded request was not withdrawn with $/cancel_request")
	}
	r := wait(t, res, "prompt")
	if r.err != nil {
		t.Fatal(r.err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if got := texts[len(texts)-1]; got != "x=allow" {
		t.Fatalf("agent got %q, want x=allow", got)
	}
	// Unknown approval and unknown option: clear errors.
	err = h.editor.Conn.Call(tctx(t), acp.MethodApprovalsRespond, map[string]any{"approvalId": "nope", "optionId": optAllowOnce}, &out)
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound || !strings.Contains(ae.Message, "unknown id") {
		t.Fatalf("unknown approval: %v", err)
	}
}

func TestApprovalTimeout(t *testing.T) {
	h := start(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 1}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm slow")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if p.Meta.ExpiresAt == "" {
		t.Fatal("no expiresAt on the card")
	}
	r := wait(t, res, "prompt after timeout")
	if r.err != nil {
		t.Fatal(r.err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if got := texts[len(texts)-1]; got != "slow=reject" {
		t.Fatalf("agent got %q, want slow=reject (timeout outcome reject)", got)
	}
	resolved := testkit.Resolved(h.editor.Messages())
	if len(resolved) != 1 || resolved[0]["by"] != "timeout" {
		t.Fatalf("resolved = %v, want one by timeout", resolved)
	}
	// The card's request was withdrawn ($/cancel_request): a late click has nothing to answer.
	select {
	case <-p.Withdrawn():
	case <-time.After(10 * time.Second):
		t.Fatal("the timed-out request was not withdrawn from the editor")
	}
}

func TestCancelResolvesPendingApprovals(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm a b\nwait")
	ctx := tctx(t)
	for range 2 {
		if _, err := h.editor.NextPermission(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.editor.Conn.Notify(ctx, acp.MethodSessionCancel, map[string]string{"sessionId": sid}); err != nil {
		t.Fatal(err)
	}
	r := wait(t, res, "cancelled prompt")
	if r.err != nil || r.stop != acp.StopCancelled {
		t.Fatalf("prompt: stop=%q err=%v, want cancelled", r.stop, r.err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if got := texts[len(texts)-2]; got != "a=cancelled b=cancelled" {
		t.Fatalf("agent got %q, want both cancelled", got)
	}
	for _, x := range testkit.Resolved(h.editor.Messages()) {
		if x["by"] != "cancel" || x["decision"] != "cancelled" {
			t.Fatalf("resolved %v, want by cancel", x)
		}
	}
}

func TestAgentEndTurnAfterCancelReportedCancelled(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "endturn-on-cancel")
	// Wait until the prompt reached the agent, then cancel.
	ctx := tctx(t)
	if err := h.editor.WaitFor(ctx, "the agent waiting", func(msgs []testkit.Message) bool {
		return len(testkit.Texts(msgs, sid)) > 0
	}); err != nil {
		t.Fatal(err)
	}
	_ = h.editor.Conn.Notify(ctx, acp.MethodSessionCancel, map[string]string{"sessionId": sid})
	r := wait(t, res, "prompt")
	if r.err != nil || r.stop != acp.StopCancelled {
		t.Fatalf("stop=%q err=%v, want cancelled even though the agent said end_turn", r.stop, r.err)
	}
}

// Answer and cancel race: the agent gets exactly one answer, one resolution is announced.
func TestAnswerCancelRace(t *testing.T) {
	for i := range 10 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h := start(t, twoAgents())
			h.init(false)
			sid := h.session("")
			res := h.promptAsync(sid, "perm r")
			p, err := h.editor.NextPermission(tctx(t))
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); p.Answer(acp.Selected(optAllowOnce)) }()
			go func() {
				defer wg.Done()
				_ = h.editor.Conn.Notify(context.Background(), acp.MethodSessionCancel, map[string]string{"sessionId": sid})
			}()
			wg.Wait()
			r := wait(t, res, "prompt")
			if r.err != nil {
				t.Fatal(r.err)
			}
			texts := testkit.Texts(h.editor.Messages(), sid)
			got := texts[len(texts)-1]
			if got != "r=allow" && got != "r=cancelled" {
				t.Fatalf("agent got %q", got)
			}
			if n := len(testkit.Resolved(h.editor.Messages())); n != 1 {
				t.Fatalf("%d resolutions announced, want 1", n)
			}
		})
	}
}

func TestChildCrashWithApprovalPending(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "crash")
	r := wait(t, res, "prompt of a crashing agent")
	var ae *acp.Error
	if !errors.As(r.err, &ae) || !strings.Contains(ae.Message, "exited") || !strings.Contains(ae.Message, "alpha") {
		t.Fatalf("prompt error = %v, want a clear 'agent alpha exited' error", r.err)
	}
	if !strings.Contains(ae.Message, "code 3") {
		t.Fatalf("prompt error %q does not say how the agent ended", ae.Message)
	}
	ctx := tctx(t)
	if err := h.editor.WaitFor(ctx, "crashed status", func(msgs []testkit.Message) bool {
		for _, m := range msgs {
			if m.Method == acp.MethodAgentStatus && strings.Contains(string(m.Params), `"crashed"`) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if h.bridge.broker.Len() != 0 {
		t.Fatalf("%d approvals left pending after the crash", h.bridge.broker.Len())
	}
	// The next use restarts it.
	sid2 := h.session("")
	stop, err := h.editor.Prompt(ctx, sid2, "updates 3")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("after restart: %q %v", stop, err)
	}
	// The old session says clearly that its process is gone.
	_, err = h.editor.Prompt(ctx, sid, "updates 1")
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "start a new session") {
		t.Fatalf("prompt on a dead session: %v", err)
	}
}

func TestUnknownChildSessionPermissionShownOnActiveSession(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "subperm")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if p.SessionID != sid {
		t.Fatalf("sub-agent permission shown on %q, want the active session %q", p.SessionID, sid)
	}
	p.Answer(acp.Selected(optRejectOnce))
	wait(t, res, "prompt")
	texts := testkit.Texts(h.editor.Messages(), sid)
	if got := texts[len(texts)-1]; got != "subperm=reject" {
		t.Fatalf("agent got %q", got)
	}
}

func TestBareRequestMergedWithCachedToolCall(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "bare t1")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if p.ToolCall.Title == nil || *p.ToolCall.Title != "`rm -rf build`" || !strings.Contains(string(p.ToolCall.RawInput), "rm -rf build") {
		t.Fatalf("card tool call not merged with the cached tool_call: %s", p.Params)
	}
	if p.Meta.Tool != "Bash" || p.Meta.Specifier != "Bash(rm -rf build)" {
		t.Fatalf("meta tool %q specifier %q", p.Meta.Tool, p.Meta.Specifier)
	}
	p.Answer(acp.Selected(optAllowOnce))
	wait(t, res, "prompt")
}

func TestChildGarbageAndLongLineSurvive(t *testing.T) {
	h := start(t, "defaultAgent: g\nmaxLineBytes: 4096\nagents:\n"+testkit.FakeAgentYAML("g", "--garbage", "--long-line=10000"))
	h.init(false)
	sid := h.session("")
	stop, err := h.editor.Prompt(tctx(t), sid, "updates 2")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after garbage: %q %v", stop, err)
	}
	kinds := map[string]bool{}
	for _, e := range h.logs.FilterMessageSnippet("dropped a line from the agent").All() {
		kinds[e.ContextMap()["kind"].(string)] = true
	}
	for _, k := range []string{"invalid-json", "line-too-long"} {
		if !kinds[k] {
			t.Fatalf("no log of a dropped %s line; logged kinds %v", k, kinds)
		}
	}
}

func TestBadParamsFromEditor(t *testing.T) {
	h := start(t, twoAgents())
	ctx := tctx(t)
	cases := []struct {
		method string
		params any
		code   int64
		substr string
	}{
		{acp.MethodInitialize, map[string]any{}, acp.CodeInvalidParams, "protocolVersion is required"},
		{acp.MethodSessionNew, map[string]any{"cwd": "relative"}, acp.CodeInvalidParams, "absolute"},
		{acp.MethodSessionNew, map[string]any{"cwd": h.ws, "_meta": map[string]any{"acp-bridge": map[string]string{"agent": "nope"}}}, acp.CodeInvalidParams, `unknown agent "nope" (configured: alpha, beta, demo)`},
		{acp.MethodSessionPrompt, map[string]any{"prompt": []any{}}, acp.CodeInvalidParams, "sessionId is required"},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": "ghost", "prompt": []any{}}, acp.CodeResourceNotFound, `unknown session "ghost"`},
		{acp.MethodSessionPrompt, []int{1}, acp.CodeInvalidParams, "must be a JSON object"},
		{"session/nonsense", map[string]any{}, acp.CodeMethodNotFound, "session/nonsense"},
		{acp.MethodApprovalsRespond, map[string]any{"approvalId": "x"}, acp.CodeInvalidParams, "optionId are required"},
	}
	for _, c := range cases {
		var out json.RawMessage
		err := h.editor.Conn.Call(ctx, c.method, c.params, &out)
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != c.code || !strings.Contains(ae.Message, c.substr) {
			t.Errorf("%s %v: err = %v, want code %d containing %q", c.method, c.params, err, c.code, c.substr)
		}
	}
}

func TestEditorDisconnectStopsChildren(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("alpha")
	h.session("beta")
	res := h.promptAsync(sid, "perm p\nwait")
	if _, err := h.editor.NextPermission(tctx(t)); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, a := range []string{"alpha", "beta"} {
		rt, _ := h.bridge.agent(a)
		rt.mu.Lock()
		pids = append(pids, rt.proc.Pid())
		rt.mu.Unlock()
	}
	_ = h.inW.Close() // the editor goes away mid-turn
	select {
	case <-h.done:
	case <-time.After(20 * time.Second):
		t.Fatal("bridge did not return after the editor disconnected")
	}
	for _, pid := range pids {
		if processAlive(pid) {
			t.Fatalf("child %d still running after the editor disconnected", pid)
		}
	}
	_ = res
}

func TestBypassOptionPersistsAndApplies(t *testing.T) {
	h := start(t, twoAgents())
	persisted := make(chan map[string]any, 1)
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == acp.MethodSettingsPersist {
			var p map[string]any
			_ = json.Unmarshal(params, &p)
			persisted <- p
			return map[string]bool{"persisted": true}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm one")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.Selected(optBypass))
	wait(t, res, "prompt")
	got := wait(t, persisted, "settings/persist")
	if got["kind"] != "bypass" || got["agent"] != "alpha" {
		t.Fatalf("persist = %v", got)
	}
	// The next request is allowed without a card.
	stop, err := h.editor.Prompt(tctx(t), sid, "perm two")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatal(stop, err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if got := texts[len(texts)-1]; got != "two=allow" {
		t.Fatalf("after bypass the agent got %q, want two=allow", got)
	}
	if len(h.editor.Permissions) != 0 {
		t.Fatal("a card was shown after bypass")
	}
}

func TestPersistFallsBackToConfigFile(t *testing.T) {
	h := start(t, twoAgents()) // the fake editor does not implement settings/persist
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm keep")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: acp.OutcomeSelected, OptionID: optAllowAlways},
		Meta: json.RawMessage(`{"acp-bridge":{"rule":"Bash(touch *)","scope":"user"}}`)})
	wait(t, res, "prompt")
	ctx := tctx(t)
	for {
		data, _ := os.ReadFile(h.cfg)
		if strings.Contains(string(data), "Bash(touch *)") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("rule never written to %s:\n%s", h.cfg, data)
		case <-time.After(20 * time.Millisecond):
		}
	}
	// And it applies: the next identical call goes through without a card.
	stop, err := h.editor.Prompt(ctx, sid, "perm again")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatal(stop, err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if got := texts[len(texts)-1]; got != "again=allow" {
		t.Fatalf("after always-allow the agent got %q", got)
	}
}

func TestFSReadIsPolicyChecked(t *testing.T) {
	h := start(t, "defaultAgent: alpha\npermissions: {deny: [\"Read(.env*)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	for name, text := range map[string]string{".env": "SECRET=1", "main.go": "file-content"} {
		if err := os.WriteFile(filepath.Join(h.ws, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == acp.MethodFSReadTextFile {
			return map[string]string{"content": "from-the-editor"}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	h.init(true)
	sid := h.session("")
	ctx := tctx(t)
	if _, err := h.editor.Prompt(ctx, sid, "read "+filepath.Join(h.ws, ".env")+"\nread "+filepath.Join(h.ws, "main.go")); err != nil {
		t.Fatal(err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if len(texts) != 2 || !strings.HasPrefix(texts[0], "read-error:") || !strings.Contains(texts[0], "Read(.env*)") || texts[1] != "read:file-content" {
		t.Fatalf("texts = %q: want the .env read refused naming the rule, main.go served", texts)
	}
	for _, m := range h.editor.Messages() {
		if m.Method == acp.MethodFSReadTextFile {
			// an editor that is not our extension is never asked: it would
			// follow links the decision did not resolve.
			t.Fatalf("a read reached an editor that does not say openDocumentFs: %s", m.Params)
		}
	}
}

func TestChildNeverAnswersInitialize(t *testing.T) {
	h := start(t, "defaultAgent: h\nagents:\n"+testkit.FakeAgentYAML("h", "--hang-init")+"    initTimeoutSeconds: 1\n")
	h.init(false)
	_, err := h.editor.NewSession(tctx(t), h.ws, "")
	var ae *acp.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "no answer within 1s (agents.h.initTimeoutSeconds)") {
		t.Fatalf("session/new on a hung agent: %v", err)
	}
}

func TestChildExitsDuringInitialize(t *testing.T) {
	h := start(t, "defaultAgent: e\nagents:\n"+testkit.FakeAgentYAML("e", "--exit-init"))
	h.init(false)
	_, err := h.editor.NewSession(tctx(t), h.ws, "")
	var ae *acp.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "agent exited") {
		t.Fatalf("session/new on an agent that exits: %v", err)
	}
}

// processAlive reports whether pid still exists (as a process that is not
// yet reaped). It polls briefly: a stopped process may take a moment to go.
func processAlive(pid int) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func TestSettingsDidChangeAppliesAndRefusesBadOnes(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	ctx := tctx(t)
	// Editor settings allow `touch *`: the next call goes through without a card.
	if err := h.editor.Conn.Notify(ctx, acp.MethodSettingsDidChange, map[string]any{
		"settings": map[string]any{"permissions": map[string]any{"allow": []string{"Bash(touch *)"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.Prompt(ctx, sid, "perm one"); err != nil {
		t.Fatal(err)
	}
	if texts := testkit.Texts(h.editor.Messages(), sid); texts[len(texts)-1] != "one=allow" {
		t.Fatalf("with the editor's allow rule the agent got %q", texts[len(texts)-1])
	}
	// A bad update is refused whole and reported; the previous settings stay.
	if err := h.editor.Conn.Notify(ctx, acp.MethodSettingsDidChange, map[string]any{
		"settings": map[string]any{"permissions": map[string]any{"allow": []string{}, "defaultMode": "yolo"}},
	}); err != nil {
		t.Fatal(err)
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
	if _, err := h.editor.Prompt(ctx, sid, "perm two"); err != nil {
		t.Fatal(err)
	}
	if texts := testkit.Texts(h.editor.Messages(), sid); texts[len(texts)-1] != "two=allow" {
		t.Fatalf("after a refused update the previous allow rule should hold; agent got %q", texts[len(texts)-1])
	}
}

func TestAllowForThisSessionAndRevoke(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	s1, s2 := h.session(""), h.session("")
	ctx := tctx(t)
	res := h.promptAsync(s1, "perm x")
	p, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: acp.OutcomeSelected, OptionID: optAllowSession},
		Meta: json.RawMessage(`{"acp-bridge":{"rule":"Bash(touch *)"}}`)})
	wait(t, res, "prompt")
	// Same session: allowed without a card. Another session: still asks.
	if _, err := h.editor.Prompt(ctx, s1, "perm y"); err != nil {
		t.Fatal(err)
	}
	if texts := testkit.Texts(h.editor.Messages(), s1); texts[len(texts)-1] != "y=allow" {
		t.Fatalf("session grant not applied: %q", texts[len(texts)-1])
	}
	res2 := h.promptAsync(s2, "perm z")
	p2, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p2.SessionID != s2 {
		t.Fatalf("card for %s, want %s", p2.SessionID, s2)
	}
	p2.Answer(acp.Selected(optRejectOnce))
	wait(t, res2, "prompt in the other session")
	// grants/list shows it; grants/revoke removes it at once.
	var list struct {
		Grants []map[string]string `json:"grants"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodGrantsList, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Grants) != 1 || list.Grants[0]["rule"] != "Bash(touch *)" || list.Grants[0]["sessionId"] != s1 {
		t.Fatalf("grants/list = %v", list.Grants)
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodGrantsRevoke, map[string]string{"sessionId": s1, "rule": "Bash(touch *)"}, nil); err != nil {
		t.Fatal(err)
	}
	res3 := h.promptAsync(s1, "perm w")
	p3, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p3.Answer(acp.Selected(optRejectOnce))
	wait(t, res3, "prompt after revoke")
}

// A persisted always-allow rule removed from the settings file is revoked at once.
func TestRemovingPersistedRuleRevokes(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	ctx := tctx(t)
	changed := make(chan struct{}, 16)
	h.store.OnChange(func(*settings.Snapshot) { changed <- struct{}{} })
	res := h.promptAsync(sid, "perm a")
	p, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: acp.OutcomeSelected, OptionID: optAllowAlways},
		Meta: json.RawMessage(`{"acp-bridge":{"rule":"Bash(touch *)","scope":"user"}}`)})
	wait(t, res, "prompt")
	wait(t, changed, "settings change after the grant was written")
	data, err := os.ReadFile(h.cfg)
	if err != nil || !strings.Contains(string(data), "Bash(touch *)") {
		t.Fatalf("rule not in the config file: %s %v", data, err)
	}
	// The person deletes the rule from the file.
	if err := writeConfig(h.cfg, []byte(twoAgents())); err != nil {
		t.Fatal(err)
	}
	wait(t, changed, "settings reload after the edit")
	res2 := h.promptAsync(sid, "perm b")
	p2, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatalf("the removed rule still allowed the call: %v", err)
	}
	p2.Answer(acp.Selected(optRejectOnce))
	wait(t, res2, "prompt")
}

func TestApprovalsListForALateWebview(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	sid := h.session("")
	ctx := tctx(t)
	res := h.promptAsync(sid, "perm l1 l2")
	var ids []string
	for range 2 {
		p, err := h.editor.NextPermission(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.Meta.ApprovalID)
	}
	var list struct {
		Approvals []struct {
			ApprovalID string                 `json:"approvalId"`
			SessionID  string                 `json:"sessionId"`
			Agent      string                 `json:"agent"`
			Options    []acp.PermissionOption `json:"options"`
			Meta       map[string]any         `json:"meta"`
			ExpiresAt  string                 `json:"expiresAt"`
		} `json:"approvals"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodApprovalsList, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Approvals) != 2 {
		t.Fatalf("approvals/list has %d entries, want 2", len(list.Approvals))
	}
	for _, a := range list.Approvals {
		if a.SessionID != sid || a.Agent != "alpha" || len(a.Options) == 0 || a.Meta["specifier"] == nil || a.ExpiresAt == "" {
			t.Fatalf("entry %+v", a)
		}
	}
	// Answer both from the "late webview" through approvals/respond.
	for _, id := range ids {
		if err := h.editor.Conn.Call(ctx, acp.MethodApprovalsRespond, map[string]string{"approvalId": id, "optionId": optAllowOnce}, nil); err != nil {
			t.Fatal(err)
		}
	}
	wait(t, res, "prompt")
	if err := h.editor.Conn.Call(ctx, acp.MethodApprovalsList, map[string]any{}, &list); err != nil || len(list.Approvals) != 0 {
		t.Fatalf("after answering: %v %v", list.Approvals, err)
	}
}

func TestTerminalCreateIsPolicyChecked(t *testing.T) {
	h := start(t, "defaultAgent: alpha\npermissions: {allow: [\"Bash(echo *)\"], deny: [\"Bash(rm *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	var created []string
	var mu sync.Mutex
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		switch method {
		case acp.MethodTerminalCreate:
			var p struct {
				SessionID string   `json:"sessionId"`
				Command   string   `json:"command"`
				Args      []string `json:"args"`
			}
			_ = json.Unmarshal(params, &p)
			mu.Lock()
			created = append(created, p.SessionID+" "+p.Command+" "+strings.Join(p.Args, " "))
			mu.Unlock()
			return map[string]string{"terminalId": "t1"}, nil
		case acp.MethodTerminalOutput:
			return map[string]any{"output": "hi\n", "truncated": false}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	if _, err := h.editor.Initialize(tctx(t), false, true); err != nil {
		t.Fatal(err)
	}
	sid := h.session("")
	if _, err := h.editor.Prompt(tctx(t), sid, "term echo hi\nterm rm -rf x"); err != nil {
		t.Fatal(err)
	}
	texts := testkit.Texts(h.editor.Messages(), sid)
	if len(texts) != 2 || texts[0] != "term:t1:hi\n" || !strings.HasPrefix(texts[1], "term-error:") || !strings.Contains(texts[1], "Bash(rm *)") {
		t.Fatalf("texts %q", texts)
	}
	mu.Lock()
	defer mu.Unlock()
	want := sid + " echo hi"
	if m := sandbox.Probe(); m.Available {
		// The terminal runs in the agent's sandbox (TestTerminalIsSandboxed).
		want = sid + " " + m.Path + " "
	}
	if len(created) != 1 || !strings.HasPrefix(created[0], want) || !strings.HasSuffix(created[0], " echo hi") {
		t.Fatalf("terminals created in the editor: %q, want one like %q (the denied one must not reach it; ids must be the bridge's)", created, want+"... echo hi")
	}
}

// A terminal the editor runs for an agent runs in the agent's sandbox: the
// fake editor here runs terminal/create's command for real, as VS Code
// does; a command that writes outside the workspace fails there, and the
// same command unwrapped succeeds (the control).
func TestTerminalIsSandboxed(t *testing.T) {
	if m := sandbox.Probe(); !m.Available {
		t.Skip(m.Problem)
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	h := start(t, "defaultAgent: alpha\npermissions: {allow: [\"Bash(touch *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	var mu sync.Mutex
	var ran [][]string
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		switch method {
		case acp.MethodTerminalCreate:
			var p struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			_ = json.Unmarshal(params, &p)
			out, err := exec.Command(p.Command, p.Args...).CombinedOutput()
			mu.Lock()
			ran = append(ran, append([]string{p.Command}, p.Args...))
			mu.Unlock()
			return map[string]string{"terminalId": fmt.Sprintf("t-%v-%s", err == nil, out)}, nil
		case acp.MethodTerminalOutput:
			return map[string]any{"output": "", "truncated": false}, nil
		}
		return nil, acp.MethodNotFound(method)
	}
	if _, err := h.editor.Initialize(tctx(t), false, true); err != nil {
		t.Fatal(err)
	}
	sid := h.session("")
	if _, err := h.editor.Prompt(tctx(t), sid, "term touch "+outside); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("the terminal wrote %s outside the workspace", outside)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 1 {
		t.Fatalf("terminals run: %q", ran)
	}
	argv := ran[0]
	// the command follows the last "--" (bwrap's, then the in-sandbox init's)
	last := slices.Index(argv, "--")
	for i, a := range argv {
		if a == "--" {
			last = i
		}
	}
	inner := argv[last+1:]
	if err := exec.Command(inner[0], inner[1:]...).Run(); err != nil {
		t.Fatalf("control: %q unwrapped failed: %v", inner, err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("control: %q unwrapped did not create the file: the test proves nothing", inner)
	}
}

// An agent that sends an update right after its session/new answer (as
// Claude's adapter does): the update reaches the editor under the new
// session's id, after the session/new answer, never dropped or misrouted.
func TestUpdateRightAfterSessionNew(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	ctx := tctx(t)
	var ids []string
	for range 8 {
		ids = append(ids, h.session(""))
	}
	if err := h.editor.WaitFor(ctx, "one available_commands_update per session", func(msgs []testkit.Message) bool {
		for _, id := range ids {
			if len(testkit.Updates(msgs, id)) == 0 {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	msgs := h.editor.Messages()
	for _, id := range ids {
		ups := testkit.Updates(msgs, id)
		if len(ups) != 1 || !strings.Contains(string(ups[0]), "available_commands_update") {
			t.Fatalf("session %s got %d updates: %s", id, len(ups), ups)
		}
	}
	// Each session's update names its own child session: none misrouted.
	for i, id := range ids {
		want := fmt.Sprintf("alpha-session-%d", i+1)
		if up := string(testkit.Updates(msgs, id)[0]); !strings.Contains(up, want) {
			t.Fatalf("session %d (%s) got %s, want the update of %s", i, id, up, want)
		}
	}
	if n := len(h.logs.FilterMessageSnippet("dropped").All()); n != 0 {
		t.Fatalf("%d updates dropped", n)
	}
}

// A burst of updates right after the session/new answer: the bridge holds
// some of them until the editor has the session, while it goes on reading
// the lines that follow into the same read buffer. Every update must
// arrive whole, in order, naming its own session.
func TestBurstRightAfterSessionNewArrivesIntact(t *testing.T) {
	const burst = 200
	h := start(t, "defaultAgent: alpha\nagents:\n"+testkit.FakeAgentYAML("alpha", fmt.Sprintf("--new-burst=%d", burst)))
	h.init(false)
	ctx := tctx(t)
	var ids []string
	for range 4 {
		ids = append(ids, h.session(""))
	}
	if err := h.editor.WaitFor(ctx, "every burst", func(msgs []testkit.Message) bool {
		for _, id := range ids {
			if len(testkit.Texts(msgs, id)) < burst {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	msgs := h.editor.Messages()
	for i, id := range ids {
		texts := testkit.Texts(msgs, id)
		if len(texts) != burst {
			t.Fatalf("session %s: %d texts, want %d", id, len(texts), burst)
		}
		for j, x := range texts {
			want := fmt.Sprintf("alpha-session-%d burst %d %s", i+1, j+1, strings.Repeat("x", 2<<10))
			if x != want {
				t.Fatalf("session %s text %d: %.60q..., want %.60q...", id, j+1, x, want)
			}
		}
	}
}

// Bad rules are reported to the editor after initialize and on every
// settings change, and they never widen what is allowed.
func TestBadRulesReported(t *testing.T) {
	h := start(t, "defaultAgent: alpha\npermissions: {deny: [\"Bash(rm *\", \"bash(curl *)\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.init(false)
	ctx := tctx(t)
	hasProblem := func(substr string) func([]testkit.Message) bool {
		return func(msgs []testkit.Message) bool {
			for _, m := range msgs {
				if m.Method == acp.MethodRulesInvalid && strings.Contains(string(m.Params), substr) {
					return true
				}
			}
			return false
		}
	}
	if err := h.editor.WaitFor(ctx, "rules/invalid after initialize", hasProblem(`Bash(rm *`)); err != nil {
		t.Fatal(err)
	}
	// a rule that can never match is reported under its key, with the fix
	// (docs/policy.md, "Rules that cannot match").
	for _, want := range []string{`permissions.deny`, `did you mean Bash(curl *)?`} {
		if err := h.editor.WaitFor(ctx, "rules/invalid naming "+want, hasProblem(want)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.editor.Conn.Notify(ctx, acp.MethodSettingsDidChange, map[string]any{
		"settings": map[string]any{"permissions": map[string]any{"allow": []string{"Bash(touch *)", "Read(~bad)"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := h.editor.WaitFor(ctx, "rules/invalid after didChange", hasProblem(`Read(~bad)`)); err != nil {
		t.Fatal(err)
	}
	// The broken deny rule on Bash makes Bash calls ask, even though touch is allowed.
	sid := h.session("")
	res := h.promptAsync(sid, "perm x")
	p, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.Selected(optRejectOnce))
	wait(t, res, "prompt")
}

// session/list, session/load, session/set_mode and session/set_config_option
// route to the owning agent with ids mapped both ways (the modes are the
// bridge's: modes_test.go).
func TestSessionMethodsRouteToTheOwningAgent(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	ctx := tctx(t)
	sa, sb := h.session("alpha"), h.session("beta")

	// list: the agent's sessions under the bridge's ids.
	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionList, map[string]any{"_meta": map[string]any{"acp-bridge": map[string]string{"agent": "beta"}}}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0]["sessionId"] != sb {
		t.Fatalf("session/list for beta = %v, want just %s", list.Sessions, sb)
	}

	// set_mode: a policy mode the child does not offer changes only the bridge's mode...
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": sa, "modeId": "plan"}, nil); err != nil {
		t.Fatal(err)
	}
	s, _ := h.bridge.session(sa)
	if got := h.bridge.effectiveMode(s); got != "plan" {
		t.Fatalf("policy mode %s, want plan", got)
	}
	// ...an agent-only mode its profile does not let through is refused,
	// naming the bridge's modes...
	err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": sa, "modeId": "fast"}, nil)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, "acp-bridge's modes are default, acceptEdits, plan, dontAsk, bypassPermissions") {
		t.Fatalf("agent-only mode: %v", err)
	}
	// ...and a mode nobody knows is a clear error.
	err = h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": sa, "modeId": "warp"}, nil)
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, `unknown mode "warp"`) {
		t.Fatalf("unknown mode: %v", err)
	}

	// set_config_option: routed, the child's answer passes through.
	var cfg struct {
		ConfigOptions []map[string]any `json:"configOptions"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetConfigOpt, map[string]any{"sessionId": sb, "configId": "model", "value": "m2"}, &cfg); err != nil {
		t.Fatal(err)
	}
	// The answer shows the bridge's mode option first, then the child's.
	if len(cfg.ConfigOptions) != 2 || cfg.ConfigOptions[0]["id"] != "mode" || cfg.ConfigOptions[0]["currentValue"] != "default" ||
		cfg.ConfigOptions[1]["currentValue"] != "m2" {
		t.Fatalf("set_config_option = %v", cfg.ConfigOptions)
	}

	// load: an id the agent knows but the bridge never issued; the replay
	// arrives before the answer, under the same id.
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionLoad, map[string]any{"sessionId": "alpha-old-7", "cwd": h.ws, "mcpServers": []any{},
		"_meta": map[string]any{"acp-bridge": map[string]string{"agent": "alpha"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Texts(h.editor.Messages(), "alpha-old-7"); len(got) != 1 || got[0] != "replay:alpha-old-7" {
		t.Fatalf("replay before the load answer: %v", got)
	}
	if stop, err := h.editor.Prompt(ctx, "alpha-old-7", "updates 1"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt on the loaded session: %q %v", stop, err)
	}
}

// agents.X.startOnLaunch starts that agent (only) right after initialize,
// offered the editor's capabilities, before any session asks for it.
func TestStartOnLaunch(t *testing.T) {
	h := start(t, "defaultAgent: alpha\nagents:\n"+testkit.FakeAgentYAML("alpha")+"    startOnLaunch: true\n"+testkit.FakeAgentYAML("beta"))
	h.init(true)
	ctx := tctx(t)
	if err := h.editor.WaitFor(ctx, "alpha running without a session", func(msgs []testkit.Message) bool {
		for _, m := range msgs {
			if m.Method == acp.MethodAgentStatus && strings.Contains(string(m.Params), `"id":"alpha"`) && strings.Contains(string(m.Params), `"status":"running"`) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Agents []agentInfo `json:"agents"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodAgentsList, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	for _, a := range list.Agents {
		if a.ID == "beta" && a.Status != statusIdle {
			t.Fatalf("beta (no startOnLaunch) is %s", a.Status)
		}
	}
}

// A settings change that changes a running agent's sandbox (a new Read deny
// rule naming an existing file) marks the sandbox stale in the agent's
// status: the process keeps its mounts until it restarts, and says so.
func TestSandboxStaleAfterSettingsChange(t *testing.T) {
	if m := sandbox.Probe(); !m.Available {
		t.Skip(m.Problem)
	}
	cfg := "defaultAgent: alpha\nagents:\n" + testkit.FakeAgentYAML("alpha")
	h := start(t, cfg)
	if err := os.WriteFile(filepath.Join(h.ws, "secret.txt"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.init(false)
	h.session("")
	ctx := tctx(t)
	stale := func() bool {
		var list struct {
			Agents []struct {
				ID      string       `json:"id"`
				Sandbox *SandboxPlan `json:"sandbox"`
			} `json:"agents"`
		}
		if err := h.editor.Conn.Call(ctx, acp.MethodAgentsList, map[string]any{}, &list); err != nil {
			t.Fatal(err)
		}
		for _, a := range list.Agents {
			if a.ID == "alpha" {
				if a.Sandbox == nil || !a.Sandbox.Confined {
					t.Fatalf("alpha is not confined: %+v", a.Sandbox)
				}
				return a.Sandbox.Stale
			}
		}
		t.Fatal("alpha is not listed")
		return false
	}
	if stale() {
		t.Fatal("stale before any change")
	}
	if err := writeConfig(h.cfg, []byte(cfg+"permissions: {deny: [\"Read(secret.txt)\"]}\n")); err != nil {
		t.Fatal(err)
	}
	err := h.editor.WaitFor(ctx, "agent status with a stale sandbox", func(ms []testkit.Message) bool {
		for _, m := range ms {
			if m.Method == acp.MethodAgentStatus && strings.Contains(string(m.Params), `"stale":true`) {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	if !stale() {
		t.Fatal("agents/list does not say the sandbox is stale")
	}
}
