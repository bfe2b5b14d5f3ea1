package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
)

// agentOptionOf reads the agent option of a list of config options: its
// current value and its values ("" and nil when absent).
func agentOptionOf(t *testing.T, opts []map[string]any) (current string, values []string) {
	t.Helper()
	o := optionByID(opts, agentOptionID)
	if o == nil {
		return "", nil
	}
	if o["category"] != "_agent" || o["type"] != "select" {
		t.Fatalf("agent option %v: want a select of category _agent", o)
	}
	current, _ = o["currentValue"].(string)
	list, _ := o["options"].([]any)
	for _, v := range list {
		m, _ := v.(map[string]any)
		s, _ := m["value"].(string)
		values = append(values, s)
	}
	return current, values
}

// OpenCode's session modes are its agents (build, plan): the editor sees
// them as the agent's own selector next to the bridge's modes and picks
// them (config option or session/set_mode); the bridge's mode is unchanged,
// and the child switching among them by itself is passed on, not undone.
// The bridge's plan (by set_mode, and at session/new) reaches its plan
// agent, and leaving plan takes it back to build.
func TestOpenCodeAgentsPassThrough(t *testing.T) {
	aud := &memAudit{}
	yaml, report := modesAgent(t, "oc", "opencode", "--modes=opencode")
	h := start(t, "defaultAgent: oc\nagents:\n"+yaml, func(o *Options) { o.Audit = aud })
	h.init(false)
	ctx := tctx(t)
	res := h.newSession("oc")
	sid, child := res.SessionID, h.childID(res.SessionID)
	if cm := res.Meta["acp-bridge"].ChildMode; !cm.Asking || cm.Via != "launch" {
		t.Fatalf("childMode %+v", cm)
	}
	if res.Modes.CurrentModeID != "default" || len(res.Modes.AvailableModes) != len(policy.Modes) {
		t.Fatalf("modes %+v: want the bridge's", res.Modes)
	}
	if optionByID(res.ConfigOptions, modeOptionID) == nil {
		t.Fatalf("config options %v: want the bridge's mode option", res.ConfigOptions)
	}
	if cur, vals := agentOptionOf(t, res.ConfigOptions); cur != "build" || !slices.Equal(vals, []string{"build", "plan"}) {
		t.Fatalf("agent option: current %q values %q, want build of [build plan]", cur, vals)
	}

	setOpt := func(id, v string) ([]map[string]any, error) {
		var r struct {
			ConfigOptions []map[string]any `json:"configOptions"`
		}
		err := h.editor.Conn.Call(ctx, acp.MethodSessionSetConfigOpt, map[string]any{"sessionId": sid, "configId": id, "value": v}, &r)
		return r.ConfigOptions, err
	}
	setMode := func(id string) error {
		return h.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]any{"sessionId": sid, "modeId": id}, nil)
	}

	// Picking its plan agent: the child's own mode, the bridge's unchanged.
	opts, err := setOpt(agentOptionID, "plan")
	if err != nil {
		t.Fatalf("agent option plan: %v", err)
	}
	if cur, _ := agentOptionOf(t, opts); cur != "plan" {
		t.Fatalf("after picking plan the agent option shows %q", cur)
	}
	waitChildMode(t, report, child, "plan")
	if m := h.mode(sid); m != policy.ModeDefault {
		t.Fatalf("picking OpenCode's plan agent changed the bridge's mode to %s", m)
	}
	// session/set_mode with its own agent id does the same.
	if err := setMode("build"); err != nil {
		t.Fatalf("set_mode build: %v", err)
	}
	waitChildMode(t, report, child, "build")
	if m := h.mode(sid); m != policy.ModeDefault {
		t.Fatalf("set_mode build changed the bridge's mode to %s", m)
	}
	// Anything else is refused, and reaches nothing.
	before := len(recordedModes(t, report, child))
	_, err = setOpt(agentOptionID, "yolo")
	wantCode(t, "agent option yolo", err, acp.CodeInvalidParams, "agent oc's own agents (build, plan)")
	wantCode(t, "set_mode yolo", setMode("yolo"), acp.CodeInvalidParams, `unknown mode "yolo"`)
	if got := recordedModes(t, report, child); len(got) != before {
		t.Fatalf("a refused pick reached the agent: %q", got)
	}

	// It switches to its plan agent by itself: left there, the editor told
	// through the agent option, nothing audited as not asking.
	if _, err := h.editor.Prompt(ctx, sid, "selfmode plan"); err != nil {
		t.Fatal(err)
	}
	if err := h.editor.WaitFor(ctx, "the agent option showing plan", func(ms []testkit.Message) bool {
		for _, u := range testkit.Updates(ms, sid) {
			var x struct {
				Kind    string           `json:"sessionUpdate"`
				Options []map[string]any `json:"configOptions"`
			}
			if json.Unmarshal(u, &x) == nil && x.Kind == "config_option_update" {
				if cur, _ := agentOptionOf(t, x.Options); cur == "plan" {
					return true
				}
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if got := recordedModes(t, report, child); got[len(got)-1] != "plan (by itself)" {
		t.Fatalf("the agent's own switch to plan was undone: %q", got)
	}
	if got := modeUpdates(h.editor.Messages(), sid); len(got) != 0 {
		t.Fatalf("the child's mode reached the editor as the session's mode: %q", got)
	}
	if err := setMode("build"); err != nil {
		t.Fatal(err)
	}
	waitChildMode(t, report, child, "build")

	// The bridge's plan reaches its plan agent; leaving it goes back to build.
	if err := setMode("plan"); err != nil {
		t.Fatal(err)
	}
	waitChildMode(t, report, child, "plan")
	if m := h.mode(sid); m != policy.ModePlan {
		t.Fatalf("bridge mode %s after set_mode plan", m)
	}
	if err := setMode("acceptEdits"); err != nil {
		t.Fatal(err)
	}
	waitChildMode(t, report, child, "build")

	// The bridge's plan given at session/new reaches it too.
	var planned newSessionResult
	if err := h.editor.Conn.Call(ctx, acp.MethodSessionNew, map[string]any{"cwd": h.ws, "mcpServers": []any{},
		"_meta": map[string]any{"acp-bridge": map[string]string{"agent": "oc", "mode": "plan"}}}, &planned); err != nil {
		t.Fatal(err)
	}
	if got := recordedModes(t, report, h.childID(planned.SessionID)); !slices.Equal(got, []string{"plan"}) {
		t.Fatalf("session/new in the bridge's plan: the child's modes %q, want [plan]", got)
	}
	if cur, _ := agentOptionOf(t, planned.ConfigOptions); cur != "plan" || planned.Modes.CurrentModeID != "plan" || !planned.Meta["acp-bridge"].ChildMode.Asking {
		t.Fatalf("session/new in plan: agent option %q, modes %+v, childMode %+v", cur, planned.Modes, planned.Meta["acp-bridge"].ChildMode)
	}
	for _, r := range aud.all() {
		if r.Decision == "child-not-asking" || r.Decision == "child-mode-restored" {
			t.Fatalf("audited: %+v", r)
		}
	}
}

// The bridge's plan given at session/new reaches a child whose plan mode
// is one of its forwarded modes (Claude's), after it was put in its asking
// mode; an agent without selector modes shows no agent option.
func TestSessionNewPlanReachesTheChildsPlan(t *testing.T) {
	yaml, report := modesAgent(t, "claude", "claude", "--modes=claude")
	h := start(t, "defaultAgent: claude\nagents:\n"+yaml)
	h.init(false)
	var res newSessionResult
	if err := h.editor.Conn.Call(tctx(t), acp.MethodSessionNew, map[string]any{"cwd": h.ws, "mcpServers": []any{},
		"_meta": map[string]any{"acp-bridge": map[string]string{"mode": "plan"}}}, &res); err != nil {
		t.Fatal(err)
	}
	if got := recordedModes(t, report, h.childID(res.SessionID)); !slices.Equal(got, []string{"default", "plan"}) {
		t.Fatalf("child modes %q, want [default plan]", got)
	}
	if cm := res.Meta["acp-bridge"].ChildMode; !cm.Asking {
		t.Fatalf("childMode %+v", cm)
	}
	if res.Modes.CurrentModeID != "plan" || optionByID(res.ConfigOptions, agentOptionID) != nil {
		t.Fatalf("modes %+v, options %v", res.Modes, res.ConfigOptions)
	}
	if err := h.editor.Conn.Call(tctx(t), acp.MethodSessionSetMode, map[string]any{"sessionId": res.SessionID, "modeId": "default"}, nil); err != nil {
		t.Fatal(err)
	}
	waitChildMode(t, report, h.childID(res.SessionID), "default")
}

// Which child mode goes with each bridge mode for OpenCode: plan to its
// plan agent, and back to the agent it left only when the bridge's plan
// took it there.
func TestChildTargetOpenCode(t *testing.T) {
	prof := profiles.ProfileByName("opencode")
	offered := []string{"build", "plan", "custom"}
	for _, c := range []struct {
		st   childModeState
		m    policy.Mode
		want string
	}{
		{childModeState{offered: offered, current: "build"}, policy.ModePlan, "plan"},
		{childModeState{offered: offered, current: "plan", beforePlan: "build"}, policy.ModeDefault, "build"},
		{childModeState{offered: offered, current: "plan", beforePlan: "build"}, policy.ModeBypass, "build"},
		// the person picked plan: the bridge's mode changes leave it there
		{childModeState{offered: offered, current: "plan"}, policy.ModeAcceptEdits, ""},
		// a remembered mode that may not be kept is not gone back to
		{childModeState{offered: offered, current: "plan", beforePlan: "custom"}, policy.ModeDefault, ""},
		{childModeState{offered: []string{"build"}, current: "build"}, policy.ModePlan, ""},
	} {
		if got := childTarget(prof, c.st, c.m); got != c.want {
			t.Errorf("%+v, bridge %s: target %q, want %q", c.st, c.m, got, c.want)
		}
	}
	for id, keep := range map[string]bool{"build": true, "plan": true, "custom": false, "": false} {
		if prof.KeepsAsking(id) != keep {
			t.Errorf("KeepsAsking(%q) = %v", id, !keep)
		}
	}
	if got := prof.RestoreTarget(offered); got != "build" {
		t.Errorf("RestoreTarget = %q, want build", got)
	}
	if strings.Join(profiles.ProfileByName("claude").SelectModes, ",") != "" {
		t.Error("claude's modes are approval modes: no selector modes")
	}
}
