package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/settings"
)

// memAudit keeps audit records in memory; waitFor waits (on a channel,
// not by polling) until its records satisfy a condition.
type memAudit struct {
	mu      sync.Mutex
	recs    []audit.Record
	changed chan struct{} // closed and replaced at every Append
}

func (m *memAudit) Append(r audit.Record) error {
	m.mu.Lock()
	m.recs = append(m.recs, r)
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
	m.mu.Unlock()
	return nil
}

func (m *memAudit) waitFor(ctx context.Context, ok func([]audit.Record) bool) error {
	for {
		m.mu.Lock()
		if ok(m.recs) {
			m.mu.Unlock()
			return nil
		}
		if m.changed == nil {
			m.changed = make(chan struct{})
		}
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (m *memAudit) all() []audit.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]audit.Record(nil), m.recs...)
}

func (m *memAudit) decisions(session string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, r := range m.recs {
		if r.SessionID == session {
			out = append(out, r.Decision+": "+r.Reason)
		}
	}
	return out
}

// modesAgent is a fake agent of the given family with a mode kit, and the
// file it reports to.
func modesAgent(t *testing.T, name, family string, flags ...string) (yaml, report string) {
	dir := t.TempDir()
	report = filepath.Join(dir, name+".report")
	flags = append([]string{"--report=" + report}, flags...)
	// The agent runs in the OS sandbox: its report directory is one more
	// writable path (sandbox.allowWrite), as any path outside the
	// workspace must be.
	return testkit.FakeAgentYAML(name, flags...) + "    family: " + family + "\n    sandbox: {allowWrite: [\"" + dir + "\"]}\n", report
}

// recordedModes returns the modes the fake agent recorded for its session, in
// order ("default", "plan", "acceptEdits (by itself)", ...).
func recordedModes(t *testing.T, report, childID string) []string {
	t.Helper()
	data, err := os.ReadFile(report)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "mode="+childID+":"); ok {
			out = append(out, rest)
		}
	}
	return out
}

// waitChildMode waits until the fake agent's last recorded mode is want.
func waitChildMode(t *testing.T, report, childID, want string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := recordedModes(t, report, childID)
		if len(got) > 0 && got[len(got)-1] == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("child mode never became %q: %q", want, got)
		}
		time.Sleep(10 * time.Millisecond) // the fake agent reports to a file: nothing to wait on
	}
}

type newSessionResult struct {
	SessionID     string                `json:"sessionId"`
	Modes         acp.SessionModeState  `json:"modes"`
	ConfigOptions []map[string]any      `json:"configOptions"`
	Meta          map[string]bridgeInfo `json:"_meta"`
}

type bridgeInfo struct {
	Agent     string          `json:"agent"`
	Mode      string          `json:"mode"`
	ChildMode childModeReport `json:"childMode"`
}

func (h *harness) newSession(agent string) newSessionResult {
	h.t.Helper()
	var res newSessionResult
	err := h.editor.Conn.Call(tctx(h.t), acp.MethodSessionNew, map[string]any{"cwd": h.ws, "mcpServers": []any{},
		"_meta": map[string]any{"acp-bridge": map[string]string{"agent": agent}}}, &res)
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return res
}

func (h *harness) childID(sid string) string {
	s, err := h.bridge.session(sid)
	if err != nil {
		h.t.Fatal(err)
	}
	return s.childID
}

func (h *harness) mode(sid string) policy.Mode {
	s, err := h.bridge.session(sid)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.bridge.effectiveMode(s)
}

func optionByID(opts []map[string]any, id string) map[string]any {
	for _, o := range opts {
		if o["id"] == id {
			return o
		}
	}
	return nil
}

// A Claude-like child starts in its own `auto` (it would run tools unasked):
// session/new puts it in `default` through its mode config option and
// checks the answer; the editor sees the bridge's modes and mode option,
// the child's model option as it is.
func TestSessionNewPutsChildInAskingMode(t *testing.T) {
	yaml, report := modesAgent(t, "claude", "claude", "--modes=claude")
	h := start(t, "defaultAgent: claude\nagents:\n"+yaml)
	h.init(false)
	res := h.newSession("claude")

	if got := waitChildMode(t, report, h.childID(res.SessionID), "default"); !slices.Equal(got, []string{"default"}) {
		t.Fatalf("child modes = %q, want just default", got)
	}
	info := res.Meta["acp-bridge"]
	if want := (childModeReport{Asking: true, Mode: "default", Via: "config_option"}); info.ChildMode != want {
		t.Fatalf("childMode = %+v, want %+v", info.ChildMode, want)
	}
	if res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) != 5 || res.Modes.AvailableModes[4].ID != "bypassPermissions" {
		t.Fatalf("modes shown to the editor = %+v, want the bridge's", res.Modes)
	}
	for _, m := range res.Modes.AvailableModes {
		if m.ID == "auto" || m.Name == "" || m.Description == "" {
			t.Fatalf("editor mode %+v: want the bridge's modes, named and described", m)
		}
	}
	if len(res.ConfigOptions) != 2 {
		t.Fatalf("configOptions = %v, want the bridge's mode and the child's model", res.ConfigOptions)
	}
	mode, model := optionByID(res.ConfigOptions, "mode"), optionByID(res.ConfigOptions, "model")
	if mode == nil || mode["category"] != "mode" || mode["currentValue"] != "default" || len(mode["options"].([]any)) != 5 {
		t.Fatalf("mode option = %v", mode)
	}
	if model == nil || model["currentValue"] != "m1" {
		t.Fatalf("model option = %v", model)
	}
}

// The editor's mode changes set the bridge's mode; the child never receives
// a mode out of asking. An editor's "auto" is Claude's own classifier mode:
// refused, never taken for bypassPermissions. The model option is the
// child's and goes through.
func TestEditorModeChangesNeverStopTheChildAsking(t *testing.T) {
	yaml, report := modesAgent(t, "claude", "claude", "--modes=claude")
	h := start(t, "defaultAgent: claude\nagents:\n"+yaml)
	h.init(false)
	ctx := tctx(t)
	res := h.newSession("claude")
	sid, child := res.SessionID, h.childID(res.SessionID)
	waitChildMode(t, report, child, "default")

	setMode := func(id string) error {
		return h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": sid, "modeId": id}, nil)
	}
	for _, m := range []policy.Mode{policy.ModeBypass, policy.ModeAcceptEdits, policy.ModeDontAsk} {
		if err := setMode(string(m)); err != nil {
			t.Fatalf("set_mode %s: %v", m, err)
		}
		if got := h.mode(sid); got != m {
			t.Fatalf("bridge mode %s, want %s", got, m)
		}
	}
	// Claude's own non-asking modes (and aliases) are refused with -32602
	// naming the bridge's modes; the bridge's mode stays.
	for _, id := range []string{"auto", "autonomous", "auto_accept_all"} {
		err := setMode(id)
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, "acp-bridge's modes are default, acceptEdits, plan, dontAsk, bypassPermissions") {
			t.Fatalf("set_mode %s: %v, want -32602 naming the bridge's modes", id, err)
		}
	}
	if got := h.mode(sid); got != policy.ModeDontAsk {
		t.Fatalf("after refused ids the bridge mode is %s", got)
	}
	// The mode config option: the bridge's mode.
	var cfg struct {
		ConfigOptions []map[string]any `json:"configOptions"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetConfigOpt, map[string]any{"sessionId": sid, "configId": "mode", "value": "bypassPermissions"}, &cfg); err != nil {
		t.Fatal(err)
	}
	if got := h.mode(sid); got != policy.ModeBypass {
		t.Fatalf("set_config_option mode: bridge mode %s", got)
	}
	if o := optionByID(cfg.ConfigOptions, "mode"); o == nil || o["currentValue"] != "bypassPermissions" {
		t.Fatalf("set_config_option mode answer: %v", cfg.ConfigOptions)
	}
	err := h.editor.Conn.Call(ctx, acp.MethodSessionSetConfigOpt, map[string]any{"sessionId": sid, "configId": "mode", "value": "auto"}, nil)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
		t.Fatalf("set_config_option mode=auto: %v", err)
	}
	// The model option is forwarded; the answer shows the bridge's mode.
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetConfigOpt, map[string]any{"sessionId": sid, "configId": "model", "value": "m2"}, &cfg); err != nil {
		t.Fatal(err)
	}
	if o := optionByID(cfg.ConfigOptions, "model"); o == nil || o["currentValue"] != "m2" {
		t.Fatalf("model answer: %v", cfg.ConfigOptions)
	}
	if o := optionByID(cfg.ConfigOptions, "mode"); o == nil || o["currentValue"] != "bypassPermissions" || len(cfg.ConfigOptions) != 2 {
		t.Fatalf("mode option after model change: %v", cfg.ConfigOptions)
	}
	data, _ := os.ReadFile(report)
	if !strings.Contains(string(data), "config="+child+":model=m2") {
		t.Fatalf("the model change did not reach the child:\n%s", data)
	}
	// plan asks at least as much: the child follows, and comes back to its
	// asking mode with the bridge.
	if err := setMode("plan"); err != nil {
		t.Fatal(err)
	}
	waitChildMode(t, report, child, "plan")
	if err := setMode("default"); err != nil {
		t.Fatal(err)
	}
	got := waitChildMode(t, report, child, "default")
	for _, m := range got {
		if m != "default" && m != "plan" {
			t.Fatalf("the child was put in %q (all: %q)", m, got)
		}
	}
	// The child's own current_mode_update never reaches the editor as such.
	for _, u := range testkit.Updates(h.editor.Messages(), sid) {
		if strings.Contains(string(u), "current_mode_update") {
			t.Fatalf("child mode update forwarded: %s", u)
		}
	}
}

// Codex's `auto` applies workspace patches without asking (measured with
// the real codex-acp, docs/agents.md): a Codex child that starts in auto is
// moved to read-only, and an editor picking auto or full-access is refused;
// the bridge's mode is unchanged.
func TestCodexAutoIsKeptFromIt(t *testing.T) {
	yaml, report := modesAgent(t, "codex", "codex", "--modes=codex")
	h := start(t, "defaultAgent: codex\nagents:\n"+yaml)
	h.init(false)
	ctx := tctx(t)
	res := h.newSession("codex")
	if cm := res.Meta["acp-bridge"].ChildMode; !cm.Asking || cm.Mode != "read-only" {
		t.Fatalf("childMode = %+v, want asking in read-only", cm)
	}
	if res.Modes.CurrentModeID != "default" {
		t.Fatalf("editor mode %q", res.Modes.CurrentModeID)
	}
	for _, id := range []string{"auto", "full-access"} {
		err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": res.SessionID, "modeId": id}, nil)
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, `"`+id+`" is agent codex's own`) {
			t.Fatalf("set_mode %s: %v", id, err)
		}
	}
	if got := h.mode(res.SessionID); got != policy.ModeDefault {
		t.Fatalf("editor's auto on a Codex child put the bridge in %s", got)
	}
	if got := recordedModes(t, report, h.childID(res.SessionID)); !slices.Equal(got, []string{"read-only"}) {
		t.Fatalf("child modes = %q, want only read-only", got)
	}
}

// A child that switches itself out of asking (Claude's ExitPlanMode) is put
// back; the editor keeps seeing the bridge's mode; the audit says so.
func TestChildSwitchingItselfIsPutBack(t *testing.T) {
	yaml, report := modesAgent(t, "claude", "claude", "--modes=claude")
	aud := &memAudit{}
	h := start(t, "defaultAgent: claude\nagents:\n"+yaml, func(o *Options) { o.Audit = aud })
	h.init(false)
	ctx := tctx(t)
	res := h.newSession("claude")
	sid, child := res.SessionID, h.childID(res.SessionID)
	waitChildMode(t, report, child, "default")

	if stop, err := h.editor.Prompt(ctx, sid, "selfmode acceptEdits"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q %v", stop, err)
	}
	got := waitChildMode(t, report, child, "default")
	// The child reports its switch twice (current_mode_update and config_option_update); when the
	// first put-back is done before the second report is read, the bridge puts it back again:
	// harmless, and seen in a CI rehearsal. What holds: it is put back, and never left elsewhere.
	if len(got) < 3 || !slices.Equal(got[:3], []string{"default", "acceptEdits (by itself)", "default"}) || slices.ContainsFunc(got[3:], func(m string) bool { return m != "default" }) {
		t.Fatalf("child modes = %q", got)
	}
	sawOptions := false
	for _, u := range testkit.Updates(h.editor.Messages(), sid) {
		s := string(u)
		if strings.Contains(s, "current_mode_update") || strings.Contains(s, `"currentValue":"acceptEdits"`) {
			t.Fatalf("the child's own mode reached the editor: %s", s)
		}
		if strings.Contains(s, "config_option_update") {
			sawOptions = true
			var x struct {
				ConfigOptions []map[string]any `json:"configOptions"`
			}
			_ = json.Unmarshal(u, &x)
			if o := optionByID(x.ConfigOptions, "mode"); o == nil || o["currentValue"] != "default" || len(o["options"].([]any)) != 5 {
				t.Fatalf("config_option_update shown with %v, want the bridge's mode option", x.ConfigOptions)
			}
		}
	}
	if !sawOptions {
		t.Fatal("the child's config_option_update (its model option) was dropped")
	}
	d := aud.decisions(sid)
	// One record per put-back: one, or two when the second report was read after the first put-back.
	if len(d) < 1 || len(d) > 2 || slices.ContainsFunc(d, func(r string) bool {
		return !strings.HasPrefix(r, "child-mode-restored: agent claude switched itself to its mode \"acceptEdits\"")
	}) {
		t.Fatalf("audit = %q (child modes %q)", d, got)
	}
	if got := h.mode(sid); got != policy.ModeDefault {
		t.Fatalf("bridge mode %s", got)
	}
}

// A child whose asking mode cannot be set is reported: _meta childMode,
// a message in the chat, the audit log. And it is not a formality: the
// stuck child really runs commands unasked.
func TestChildModeThatCannotBeSetIsReported(t *testing.T) {
	yaml, _ := modesAgent(t, "claude", "claude", "--modes=claude", "--stuck-modes")
	aud := &memAudit{}
	h := start(t, "defaultAgent: claude\nagents:\n"+yaml, func(o *Options) { o.Audit = aud })
	h.init(false)
	ctx := tctx(t)
	res := h.newSession("claude")
	cm := res.Meta["acp-bridge"].ChildMode
	if cm.Asking || cm.Mode != "auto" || !strings.Contains(cm.Reason, `setting its asking mode "default" failed`) {
		t.Fatalf("childMode = %+v", cm)
	}
	if err := h.editor.WaitFor(ctx, "the chat notice", func(msgs []testkit.Message) bool {
		for _, txt := range testkit.Texts(msgs, res.SessionID) {
			if strings.Contains(txt, "is not known to ask before acting") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if d := aud.decisions(res.SessionID); len(d) != 1 || !strings.HasPrefix(d[0], "child-not-asking: ") {
		t.Fatalf("audit = %q", d)
	}
	victim := filepath.Join(h.ws, "victim")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := h.editor.Prompt(ctx, res.SessionID, "run rm -rf victim"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stuck child's unasked rm did not run (stat: %v): the test would prove nothing", err)
	}
}

// The damage attempt of the issue: the editor asks for Claude's bypass; the
// bridge's mode is bypassPermissions, the child still asks, and the deny
// rule Bash(rm *) holds: nothing is removed.
func TestDenyRuleHoldsWhenEditorAsksForBypass(t *testing.T) {
	yaml, report := modesAgent(t, "claude", "claude", "--modes=claude")
	h := start(t, "defaultAgent: claude\npermissions: {deny: [\"Bash(rm *)\"]}\nagents:\n"+yaml)
	h.init(false)
	ctx := tctx(t)
	build := filepath.Join(h.ws, "build")
	if err := os.MkdirAll(build, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(build, "out.bin"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := h.newSession("claude")
	sid := res.SessionID
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{"sessionId": sid, "modeId": "bypassPermissions"}, nil); err != nil {
		t.Fatal(err)
	}
	if stop, err := h.editor.Prompt(ctx, sid, "run rm -rf build"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q %v", stop, err)
	}
	if txt := testkit.Texts(h.editor.Messages(), sid); !slices.Contains(txt, "run=reject") {
		t.Fatalf("the child's rm was not denied: %q", txt)
	}
	if _, err := os.Stat(filepath.Join(build, "out.bin")); err != nil {
		t.Fatalf("build was removed: %v", err)
	}
	if got := recordedModes(t, report, h.childID(sid)); !slices.Equal(got, []string{"default"}) {
		t.Fatalf("child modes = %q", got)
	}
	// And bypass does allow what no deny rule names, without a card.
	if _, err := h.editor.Prompt(ctx, sid, "run touch made.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); err != nil {
		t.Fatalf("bypass did not allow touch: %v", err)
	}
}

// "Allow for this session" on `echo hi > out.txt` allows the identical
// command next time (no card) and still asks for another redirect target.
func TestSessionGrantCoversTheRedirect(t *testing.T) {
	h := start(t, "defaultAgent: alpha\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.init(false)
	ctx := tctx(t)
	sid := h.session("alpha")

	res := h.promptAsync(sid, "bash echo hi > out.txt")
	p, err := h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.Selected(optAllowSession))
	wait(t, res, "first prompt")

	// The same command: allowed by the grant, no card (a card would block the prompt).
	if stop, err := h.editor.Prompt(ctx, sid, "bash echo hi > out.txt"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("second prompt: %q %v", stop, err)
	}
	if txt := testkit.Texts(h.editor.Messages(), sid); len(txt) < 2 || txt[len(txt)-1] != "bash=allow" {
		t.Fatalf("replies = %q", txt)
	}
	// Another target asks.
	res = h.promptAsync(sid, "bash echo hi > other.txt")
	p, err = h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.Meta.Specifier != "Bash(echo hi > other.txt)" {
		t.Fatalf("asked about %q", p.Meta.Specifier)
	}
	p.Answer(acp.Selected(optRejectOnce))
	wait(t, res, "third prompt")
	var grants struct {
		Grants []struct{ Rule string } `json:"grants"`
	}
	if err := h.editor.Conn.Call(ctx, acp.MethodGrantsList, map[string]any{}, &grants); err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, g := range grants.Grants {
		rules = append(rules, g.Rule)
	}
	if want := []string{"Bash(echo hi)", "Edit(/" + filepath.Join(h.ws, "out.txt") + ")"}; !slices.Equal(rules, want) {
		t.Fatalf("grants = %q, want %q", rules, want)
	}
}

// _meta["acp-bridge"].mode at session/new takes the bridge's mode names
// only: no alias from an editor.
func TestSessionNewModeTakesNoAlias(t *testing.T) {
	h := start(t, "defaultAgent: alpha\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	h.init(false)
	for _, id := range []string{"auto", "autonomous"} {
		err := h.editor.Conn.Call(context.Background(), acp.MethodSessionNew, map[string]any{"cwd": h.ws, "mcpServers": []any{},
			"_meta": map[string]any{"acp-bridge": map[string]string{"mode": id}}}, nil)
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, "not one of acp-bridge's modes") {
			t.Fatalf("session/new with mode %q: %v", id, err)
		}
	}
	var res newSessionResult
	if err := h.editor.Conn.Call(tctx(t), acp.MethodSessionNew, map[string]any{"cwd": h.ws, "mcpServers": []any{},
		"_meta": map[string]any{"acp-bridge": map[string]string{"mode": "plan"}}}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Modes.CurrentModeID != "plan" || res.Meta["acp-bridge"].Mode != "plan" {
		t.Fatalf("session/new mode plan: %+v %+v", res.Modes, res.Meta)
	}
}

// session/load: the loaded session's child is put in its asking mode too,
// and the editor sees the bridge's modes.
func TestSessionLoadPutsChildInAskingMode(t *testing.T) {
	yaml, report := modesAgent(t, "claude", "claude", "--modes=claude")
	h := start(t, "defaultAgent: claude\nagents:\n"+yaml)
	h.init(false)
	var res newSessionResult
	if err := h.editor.Conn.Call(tctx(t), acp.MethodSessionLoad, map[string]any{"sessionId": "claude-old-1", "cwd": h.ws, "mcpServers": []any{},
		"_meta": map[string]any{"acp-bridge": map[string]string{"agent": "claude"}}}, &res); err != nil {
		t.Fatal(err)
	}
	if want := (childModeReport{Asking: true, Mode: "default", Via: "config_option"}); res.Meta["acp-bridge"].ChildMode != want {
		t.Fatalf("childMode = %+v, want %+v", res.Meta["acp-bridge"].ChildMode, want)
	}
	if res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) != 5 {
		t.Fatalf("modes = %+v", res.Modes)
	}
	if got := recordedModes(t, report, "claude-old-1"); !slices.Equal(got, []string{"default"}) {
		t.Fatalf("child modes = %q", got)
	}
}

// Agents without session modes: the profile's launch environment and flags
// reach the process and are what childMode reports; an unknown agent is
// reported as not confirmed (result, chat, audit).
func TestLaunchMakesModelessAgentsAsk(t *testing.T) {
	goose, gooseReport := modesAgent(t, "goose", "goose", "--modes=none", "--report-launch")
	qwenDir := t.TempDir()
	qwenReport := filepath.Join(qwenDir, "qwen.report")
	qwen := testkit.FakeAgentYAML("q", "--report="+qwenReport, "qwen-code", "--yolo", "--approval-mode=yolo", "--modes=none", "--report-launch") +
		"    sandbox: {allowWrite: [\"" + qwenDir + "\"]}\n"
	plain := testkit.FakeAgentYAML("plain", "--modes=none")
	aud := &memAudit{}
	h := start(t, "defaultAgent: goose\nagents:\n"+goose+qwen+plain, func(o *Options) { o.Audit = aud })
	h.init(false)

	res := h.newSession("goose")
	cm := res.Meta["acp-bridge"].ChildMode
	if !cm.Asking || cm.Via != "launch" || !strings.Contains(cm.Reason, "GOOSE_MODE=approve") {
		t.Fatalf("goose childMode = %+v", cm)
	}
	if data, _ := os.ReadFile(gooseReport); !strings.Contains(string(data), "env=GOOSE_MODE=approve ") {
		t.Fatalf("GOOSE_MODE did not reach the agent:\n%s", data)
	}
	if res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) != 5 {
		t.Fatalf("modes = %+v", res.Modes)
	}

	res = h.newSession("q")
	if cm := res.Meta["acp-bridge"].ChildMode; !cm.Asking || cm.Via != "launch" || !strings.Contains(cm.Reason, "--approval-mode default") {
		t.Fatalf("qwen childMode = %+v", cm)
	}
	data, _ := os.ReadFile(qwenReport)
	launch := ""
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "launch="); ok {
			launch = rest
		}
	}
	if !strings.HasSuffix(launch, "qwen-code --modes=none --report-launch --approval-mode default") || strings.Contains(launch, "yolo") {
		t.Fatalf("qwen launched with %q", launch)
	}

	res = h.newSession("plain")
	if cm := res.Meta["acp-bridge"].ChildMode; cm.Asking || !strings.Contains(cm.Reason, "cannot confirm that it asks") {
		t.Fatalf("plain childMode = %+v", cm)
	}
	if d := aud.decisions(res.SessionID); len(d) != 1 || !strings.HasPrefix(d[0], "child-not-asking: ") {
		t.Fatalf("audit = %q", d)
	}
	if err := h.editor.WaitFor(tctx(t), "the chat notice", func(msgs []testkit.Message) bool {
		for _, txt := range testkit.Texts(msgs, res.SessionID) {
			if strings.Contains(txt, "agent plain is not known to ask before acting") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
}

// The put-back also works through session/set_mode (a child with no mode
// config option): Codex switching itself to full-access goes back to
// read-only.
func TestChildSwitchingItselfIsPutBackBySetMode(t *testing.T) {
	yaml, report := modesAgent(t, "codex", "codex", "--modes=codex")
	h := start(t, "defaultAgent: codex\nagents:\n"+yaml)
	h.init(false)
	res := h.newSession("codex")
	if _, err := h.editor.Prompt(tctx(t), res.SessionID, "selfmode full-access"); err != nil {
		t.Fatal(err)
	}
	if got := waitChildMode(t, report, h.childID(res.SessionID), "read-only"); !slices.Equal(got, []string{"read-only", "full-access (by itself)", "read-only"}) {
		t.Fatalf("child modes = %q", got)
	}
}

// An agent whose session modes are not approval modes (OpenCode's build and
// plan) and that its profile launches to ask (OPENCODE_PERMISSION) is
// reported asking via its launch, with no child-not-asking line.
func TestModesThatAreNotApprovalModes(t *testing.T) {
	aud := &memAudit{}
	yaml, _ := modesAgent(t, "oc", "opencode", "--modes=opencode")
	h := start(t, "defaultAgent: oc\nagents:\n"+yaml, func(o *Options) { o.Audit = aud })
	h.init(false)
	res := h.newSession("oc")
	cm := res.Meta["acp-bridge"].ChildMode
	if !cm.Asking || cm.Via != "launch" || !strings.Contains(cm.Reason, "OPENCODE_PERMISSION") {
		t.Fatalf("childMode = %+v, want asking via launch naming OPENCODE_PERMISSION", cm)
	}
	for _, r := range aud.all() {
		if r.Decision == "child-not-asking" {
			t.Fatalf("audited as not asking: %+v", r)
		}
	}
}

// Issue 13 reported "switching from Plan to Don't ask left the agent in
// plan". The child follows the bridge into plan; any other bridge mode
// takes it back to its asking mode (the interop matrix measures the same
// with the real Claude: its plan-dontAsk column).
func TestChildTargetLeavesPlan(t *testing.T) {
	for _, tc := range []struct {
		profile string
		offered []string
	}{
		{"claude", []string{"auto", "default", "acceptEdits", "plan", "bypassPermissions"}},
		{"gemini", []string{"default", "autoEdit", "yolo", "plan"}},
		{"qwen", []string{"plan", "default", "auto-edit", "auto", "yolo"}},
	} {
		prof := profiles.ProfileByName(tc.profile)
		st := childModeState{offered: tc.offered, current: "plan"}
		for _, m := range []policy.Mode{policy.ModeDefault, policy.ModeAcceptEdits, policy.ModeDontAsk, policy.ModeBypass} {
			if got := childTarget(prof, st, m); got != "default" {
				t.Errorf("%s in plan, bridge mode %s: child target %q, want default", tc.profile, m, got)
			}
		}
		if got := childTarget(prof, st, policy.ModePlan); got != "plan" {
			t.Errorf("%s, bridge mode plan: child target %q, want plan", tc.profile, got)
		}
	}
}

// modeUpdates are the current_mode_update modes the editor got for a session.
func modeUpdates(ms []testkit.Message, sid string) []string {
	var out []string
	for _, m := range ms {
		var p struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				Kind string `json:"sessionUpdate"`
				Mode string `json:"currentModeId"`
			} `json:"update"`
		}
		if m.Method == acp.MethodSessionUpdate && json.Unmarshal(m.Params, &p) == nil && p.SessionID == sid && p.Update.Kind == "current_mode_update" {
			out = append(out, p.Update.Mode)
		}
	}
	return out
}

// An agent's bypass revoked in the settings: every open session of it that
// ran in bypassPermissions (with no mode the editor set) is told its mode in
// force at once, and agents/list no longer says bypass; a session whose mode
// the editor set is not told anything.
func TestRevokedBypassIsAnnounced(t *testing.T) {
	withBypass := strings.Replace(twoAgents(), "  alpha:\n", "  alpha:\n    bypassPermissions: true\n", 1)
	h := start(t, withBypass)
	h.init(false)
	changed := make(chan struct{}, 16)
	h.store.OnChange(func(*settings.Snapshot) { changed <- struct{}{} })
	sid := h.session("alpha")
	if m := h.mode(sid); m != policy.ModeBypass {
		t.Fatalf("alpha with bypass starts in %q", m)
	}
	set := h.session("alpha")
	ctx := tctx(t)
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]any{"sessionId": set, "modeId": "plan"}, nil); err != nil {
		t.Fatal(err)
	}
	bypassListed := func() bool {
		var list struct {
			Agents []agentInfo `json:"agents"`
		}
		if err := h.editor.Conn.Call(ctx, acp.MethodAgentsList, map[string]any{}, &list); err != nil {
			t.Fatal(err)
		}
		for _, a := range list.Agents {
			if a.ID == "alpha" {
				return a.BypassPermissions
			}
		}
		t.Fatal("alpha not listed")
		return false
	}
	if !bypassListed() {
		t.Fatal("agents/list does not say alpha bypasses")
	}
	if err := writeConfig(h.cfg, []byte(twoAgents())); err != nil {
		t.Fatal(err)
	}
	wait(t, changed, "settings reload after the bypass was removed")
	if err := h.editor.WaitFor(ctx, "current_mode_update", func(ms []testkit.Message) bool { return len(modeUpdates(ms, sid)) > 0 }); err != nil {
		t.Fatal(err)
	}
	if got := modeUpdates(h.editor.Messages(), sid); !slices.Equal(got, []string{string(policy.ModeDefault)}) {
		t.Fatalf("mode updates after the revoke = %v, want [default]", got)
	}
	if bypassListed() {
		t.Fatal("agents/list still says alpha bypasses")
	}
	if got := modeUpdates(h.editor.Messages(), set); len(got) != 0 {
		t.Fatalf("a session whose mode the editor set was told %v", got)
	}
}
