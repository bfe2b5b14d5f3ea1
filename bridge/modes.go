package bridge

// The bridge owns each session's mode (design.md, "Modes"; docs/agents.md).
//
// The bridge's five modes decide every permission request. The child is kept
// in its most asking mode (its profile says which): set there at session/new
// and session/load, never sent a mode or config change that would make it
// stop asking, and put back when it switches itself out (Claude's
// ExitPlanMode does). The editor sees the bridge's modes: `modes` and the
// `mode` config option of session results are the bridge's, the child's own
// mode updates are not forwarded as such. What cannot be set or confirmed is
// said, in _meta["acp-bridge"].childMode, in the chat and in the audit log.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// modeOptionID is the id of the bridge's mode config option (the id the
// ACP spec's example gives its mode selector).
const modeOptionID = "mode"

// agentOptionID is the id of the config option that shows an agent's own
// selector modes (profiles.Profile.SelectModes: OpenCode's build and plan
// agents), next to the bridge's mode option. A child option of this id is
// never shown.
const agentOptionID = "acp-bridge/agent"

// childModeTimeout bounds one set_mode / set_config_option to a child.
const childModeTimeout = 10 * time.Second

// bridgeModes are the bridge's modes as the editor sees them (policy.Modes,
// policy.ModeTexts).
var bridgeModes = func() []acp.SessionMode {
	out := make([]acp.SessionMode, len(policy.Modes))
	for i, m := range policy.Modes {
		out[i] = acp.SessionMode{ID: string(m), Name: policy.ModeTexts[m].Name, Description: policy.ModeTexts[m].Description}
	}
	return out
}()

func bridgeModeIDs() string {
	ids := make([]string, len(bridgeModes))
	for i, m := range bridgeModes {
		ids[i] = m.ID
	}
	return strings.Join(ids, ", ")
}

// childModeReport is _meta["acp-bridge"].childMode: whether the child is in
// an asking mode, which, how the bridge knows, and why not.
type childModeReport = wire.ChildModeReport

// childModeState is what the bridge knows of a child's own mode; guarded by
// session.mu.
type childModeState struct {
	offered []string // the child's mode ids
	current string   // its mode as last known
	optID   string   // its config option of category mode; "" = session/set_mode
	options []json.RawMessage
	hasOpts bool              // the child answers with configOptions
	names   map[string]string // the child's mode names by id
	report  childModeReport
	// beforePlan is the child's mode before the bridge's plan mode put it
	// in its profile's PlanMode; leaving plan puts it back there.
	beforePlan string
	// restoring: a put-back is in flight (one switch may show in several
	// updates: current_mode_update, config_option_update).
	restoring bool
}

// childModes is what one session result says of the child's mode.
type childModes struct {
	offered, optValues []string
	names              map[string]string
	current            string
	optID              string
	options            []json.RawMessage
	hasOpts            bool
}

// configOption is what the bridge reads of one session config option.
type configOption struct {
	ID           string          `json:"id"`
	Category     string          `json:"category"`
	CurrentValue json.RawMessage `json:"currentValue"`
	Options      []struct {
		Value   string `json:"value"`
		Options []struct {
			Value string `json:"value"`
		} `json:"options"` // a group of values
	} `json:"options"`
}

func (c configOption) values() []string {
	var out []string
	for _, o := range c.Options {
		if o.Value != "" {
			out = append(out, o.Value)
		}
		for _, g := range o.Options {
			out = append(out, g.Value)
		}
	}
	return out
}

func (c configOption) current() string {
	var s string
	_ = json.Unmarshal(c.CurrentValue, &s)
	return s
}

// readChildModes reads `modes` and `configOptions` of a session result (or
// of a config_option_update).
func readChildModes(o acp.Object) childModes {
	var cm childModes
	if raw, ok := o["modes"]; ok {
		var st acp.SessionModeState
		if json.Unmarshal(raw, &st) == nil {
			cm.current = st.CurrentModeID
			cm.names = map[string]string{}
			for _, m := range st.AvailableModes {
				cm.offered = append(cm.offered, m.ID)
				cm.names[m.ID] = m.Name
			}
		}
	}
	if raw, ok := o["configOptions"]; ok {
		cm.hasOpts = true
		_ = json.Unmarshal(raw, &cm.options)
		for _, r := range cm.options {
			var c configOption
			if json.Unmarshal(r, &c) != nil || c.Category != "mode" || cm.optID != "" {
				continue
			}
			cm.optID, cm.optValues = c.ID, c.values()
			if cm.current == "" || len(cm.offered) == 0 {
				cm.current = c.current()
			}
		}
		if len(cm.offered) == 0 {
			cm.offered = cm.optValues
		}
	}
	return cm
}

// bridgeModeState is the `modes` the editor is shown.
func bridgeModeState(m policy.Mode, avail []acp.SessionMode) acp.SessionModeState {
	return acp.SessionModeState{CurrentModeID: string(m), AvailableModes: avail}
}

// availableModes are the bridge's modes the managed tier lets a person
// choose (all of them without one): the editor's mode list shows only these.
func availableModes(mg *settings.Managed) []acp.SessionMode {
	out := make([]acp.SessionMode, 0, len(bridgeModes))
	for _, bm := range bridgeModes {
		if mg.ModeAllowed(bm.ID) == nil {
			out = append(out, bm)
		}
	}
	return out
}

// bridgeModeOption is the bridge's `mode` config option.
func bridgeModeOption(m policy.Mode, avail []acp.SessionMode) json.RawMessage {
	opts := make([]map[string]string, len(avail))
	for i, bm := range avail {
		opts[i] = map[string]string{"value": bm.ID, "name": bm.Name, "description": bm.Description}
	}
	raw, _ := json.Marshal(map[string]any{
		"id": modeOptionID, "name": "Mode", "description": "acp-bridge's permission mode: it decides every request of this agent",
		"category": "mode", "type": "select", "currentValue": string(m), "options": opts,
	})
	return raw
}

// editorConfigOptions is the child's options with its mode option(s)
// replaced by the bridge's (in the first one's place, else first).
func editorConfigOptions(child []json.RawMessage, childOptID string, m policy.Mode, avail []acp.SessionMode) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(child)+1)
	placed := false
	for _, r := range child {
		var c configOption
		_ = json.Unmarshal(r, &c)
		if c.ID == agentOptionID {
			continue // only the bridge's is shown
		}
		if c.Category == "mode" || (childOptID != "" && c.ID == childOptID) || c.ID == modeOptionID {
			if !placed {
				out = append(out, bridgeModeOption(m, avail))
				placed = true
			}
			continue
		}
		out = append(out, r)
	}
	if !placed {
		out = append([]json.RawMessage{bridgeModeOption(m, avail)}, out...)
	}
	return out
}

// showBridgeModes rewrites a session result for the editor: the bridge's
// modes and mode option in place of the child's.
func (b *Bridge) showBridgeModes(ro acp.Object, s *session) {
	m := b.effectiveMode(s)
	avail := availableModes(b.snapshot().Managed)
	ro.Set("modes", bridgeModeState(m, avail))
	s.mu.Lock()
	s.shown = m
	s.mu.Unlock()
	if opts, ok := b.editorOptions(s); ok {
		ro.Set("configOptions", opts)
	}
}

// editorOptions are the config options the editor is shown for a session:
// the child's, with the bridge's mode option in place of the child's mode
// option, and the agent option (agentOption) after them. ok is false when
// there are none to show (a child without config options nor selector
// modes: its session result carries none).
func (b *Bridge) editorOptions(s *session) (opts []json.RawMessage, ok bool) {
	st := s.childState()
	agent, hasAgent := agentOption(s)
	if !st.hasOpts && !hasAgent {
		return nil, false
	}
	opts = editorConfigOptions(st.options, st.optID, b.effectiveMode(s), availableModes(b.snapshot().Managed))
	if hasAgent {
		opts = append(opts, agent)
	}
	return opts, true
}

// selectModes are the child's offered modes its profile names as selector
// modes, in the child's order.
func selectModes(prof *profiles.Profile, st childModeState) []string {
	var out []string
	for _, m := range st.offered {
		if prof.Selects(m) {
			out = append(out, m)
		}
	}
	return out
}

// agentOption is the config option of the agent's own selector modes
// (OpenCode's build and plan agents), when its profile names some it
// offers: a select whose values go to the child's own mode, category
// "_agent" (a custom ACP category). Its current value is the child's mode.
func agentOption(s *session) (json.RawMessage, bool) {
	prof, _ := s.agent.profileOf()
	st := s.childState()
	sel := selectModes(prof, st)
	if len(sel) == 0 {
		return nil, false
	}
	opts := make([]map[string]string, len(sel))
	for i, m := range sel {
		name := st.names[m]
		if name == "" {
			name = m
		}
		opts[i] = map[string]string{"value": m, "name": name}
	}
	raw, _ := json.Marshal(map[string]any{
		"id": agentOptionID, "name": "Agent",
		"description": "agent " + s.agent.name + "'s own agents: they choose what it does, not what it may do (acp-bridge's mode decides every permission request)",
		"category":    "_agent", "type": "select", "currentValue": st.current, "options": opts,
	})
	return raw, true
}

// rememberChildModes records what a session result said of the child.
func (s *session) rememberChildModes(cm childModes) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(cm.offered) > 0 {
		s.child.offered = cm.offered
	}
	if cm.current != "" {
		s.child.current = cm.current
	}
	if cm.optID != "" {
		s.child.optID = cm.optID
	}
	if len(cm.names) > 0 {
		s.child.names = cm.names
	}
	if cm.hasOpts {
		s.child.hasOpts, s.child.options = true, cm.options
	}
}

func (s *session) childState() childModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.child
	c.offered = slices.Clone(c.offered)
	return c
}

func (s *session) setChildReport(r childModeReport) {
	s.mu.Lock()
	s.child.report = r
	s.mu.Unlock()
}

// settleChildMode puts a new or loaded session's child in its asking mode
// and says how that went. Called before the editor has the session.
func (b *Bridge) settleChildMode(ctx context.Context, s *session, conn *acp.Conn, ro acp.Object) childModeReport {
	cm := readChildModes(ro)
	if len(cm.offered) == 0 && s.childState().offered == nil {
		// A load answer may leave modes out: the agent's modes (from its
		// session/new) still apply; the session's current one is unknown.
		cm.offered = s.agent.knownModeIDs()
	}
	s.rememberChildModes(cm)
	prof, launched := s.agent.profileOf()
	st := s.childState()
	var r childModeReport
	switch {
	case len(st.offered) == 0 && prof.AsksAtLaunch(launched):
		r = childModeReport{Asking: true, Via: "launch", Reason: "the agent offers no session modes; it was launched to ask (" + launchSummary(prof, launched) + ")"}
	case len(prof.AskingModes) == 0 && prof.AsksAtLaunch(launched):
		// Its session modes are not approval modes (OpenCode's build and
		// plan are agents); what makes it ask is how it was launched.
		r = childModeReport{Asking: true, Mode: st.current, Via: "launch", Reason: "the agent's modes do not set what it asks; it was launched to ask (" + launchSummary(prof, launched) + ")"}
	case len(st.offered) == 0:
		r = childModeReport{Reason: "the agent offers no session modes and nothing at its launch makes it ask: the bridge cannot confirm that it asks before acting"}
	case prof.IsAsking(st.current):
		r = childModeReport{Asking: true, Mode: st.current, Via: "initial"}
	default:
		target := prof.PickAsking(st.offered)
		if target == "" {
			r = childModeReport{Mode: st.current, Reason: fmt.Sprintf("%s and offers none of its asking modes (%s)", modeDesc(st.current), strings.Join(prof.AskingModes, ", "))}
			break
		}
		via, err := b.setChildMode(ctx, s, conn, target)
		if err != nil {
			r = childModeReport{Mode: st.current, Reason: fmt.Sprintf("%s and setting its asking mode %q failed: %v", modeDesc(st.current), target, err)}
			break
		}
		r = childModeReport{Asking: true, Mode: target, Via: via}
		b.log.Info("child put in its asking mode", zap.String("agent", s.agent.name), zap.String("session", s.id),
			zap.String("from", st.current), zap.String("to", target), zap.String("via", via))
	}
	if r.Asking {
		// The bridge's mode given at the start (session/new's
		// _meta["acp-bridge"].mode, the agent's or the settings' mode, a
		// fork's source) reaches the child's own mode that goes with it
		// (plan), as a later session/set_mode does.
		if err := b.followBridgeMode(ctx, s, conn, b.effectiveMode(s)); err != nil {
			r.Reason = strings.TrimPrefix(r.Reason+"; ", "; ") + err.Error()
			b.log.Warn("child did not follow the bridge's mode", zap.String("agent", s.agent.name), zap.String("session", s.id), zap.Error(err))
		}
	}
	s.setChildReport(r)
	if !r.Asking {
		b.log.Warn("child agent not confirmed in an asking mode", zap.String("agent", s.agent.name), zap.String("session", s.id), zap.String("reason", r.Reason))
		b.auditMode(s, "child-not-asking", r.Reason)
	}
	return r
}

// modeDesc says which mode the child is in, as far as the bridge knows.
func modeDesc(current string) string {
	if current == "" {
		return "the agent's mode is unknown"
	}
	return fmt.Sprintf("the agent is in its mode %q", current)
}

func launchSummary(p *profiles.Profile, launched bool) string {
	var parts []string
	if launched {
		for _, f := range p.LaunchFlags {
			parts = append(parts, strings.TrimSpace(f.Name+" "+f.Value))
		}
	}
	for _, k := range sortedKeys(p.LaunchEnv) {
		parts = append(parts, k+"="+p.LaunchEnv[k])
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// setChildMode sets the child's own mode to id, through its mode config
// option when it has one (its answer must show id), else session/set_mode.
// via says which.
func (b *Bridge) setChildMode(ctx context.Context, s *session, conn *acp.Conn, id string) (via string, err error) {
	ctx, cancel := context.WithTimeout(ctx, childModeTimeout)
	defer cancel()
	st := s.childState()
	if st.optID != "" {
		var res json.RawMessage
		err := conn.Call(ctx, acp.MethodSessionSetConfigOpt, map[string]any{"sessionId": s.childID, "configId": st.optID, "value": id}, &res)
		if err != nil {
			return "config_option", fmt.Errorf("session/set_config_option %s=%s: %w", st.optID, id, err)
		}
		ro, perr := acp.ParseObject(res)
		if perr == nil {
			cm := readChildModes(ro)
			if cm.optID == st.optID && cm.current != id {
				return "config_option", fmt.Errorf("session/set_config_option %s=%s: the agent answered with %q", st.optID, id, cm.current)
			}
			cm.offered = nil // keep what the session result offered
			s.rememberChildModes(cm)
		}
	} else if err := conn.Call(ctx, acp.MethodSessionSetMode, map[string]any{"sessionId": s.childID, "modeId": id}, nil); err != nil {
		return "set_mode", fmt.Errorf("session/set_mode %s: %w", id, err)
	}
	s.mu.Lock()
	s.child.current = id
	s.mu.Unlock()
	if st.optID != "" {
		return "config_option", nil
	}
	return "set_mode", nil
}

// childTarget is the child mode that goes with bridge mode m: m itself when
// the profile lets it through and the child offers it (plan), else the
// child's asking mode ("" if it offers none).
//
// A profile's PlanMode (OpenCode's plan agent) is the target of the
// bridge's plan; leaving plan takes the child back to the mode the bridge's
// plan took it from (beforePlan), when that one may still be kept.
func childTarget(prof *profiles.Profile, st childModeState, m policy.Mode) string {
	if m == policy.ModePlan && prof.PlanMode != "" && slices.Contains(st.offered, prof.PlanMode) {
		return prof.PlanMode
	}
	if m != policy.ModePlan && st.beforePlan != "" && st.current == prof.PlanMode && prof.KeepsAsking(st.beforePlan) {
		return st.beforePlan
	}
	if prof.Forwardable(string(m)) && slices.Contains(st.offered, string(m)) {
		return string(m)
	}
	if prof.IsAsking(st.current) {
		return st.current
	}
	return prof.PickAsking(st.offered)
}

// followBridgeMode moves the child to the mode that goes with bridge mode
// m (childTarget), remembering where the bridge's plan took it from. The
// error says why it did not follow (the child keeps asking where it is).
func (b *Bridge) followBridgeMode(ctx context.Context, s *session, conn *acp.Conn, m policy.Mode) error {
	prof, _ := s.agent.profileOf()
	st := s.childState()
	target := childTarget(prof, st, m)
	if target == "" || target == st.current || !slices.Contains(st.offered, target) {
		return nil
	}
	if _, err := b.setChildMode(ctx, s, conn, target); err != nil {
		return fmt.Errorf("setting the agent's mode %q for acp-bridge's %s failed: %w", target, m, err)
	}
	s.mu.Lock()
	switch {
	case m == policy.ModePlan && prof.PlanMode != "" && target == prof.PlanMode:
		s.child.beforePlan = st.current
	default:
		s.child.beforePlan = ""
	}
	s.mu.Unlock()
	b.log.Info("child followed the bridge's mode", zap.String("session", s.id), zap.String("mode", string(m)), zap.String("childMode", target))
	return nil
}

// childNotAsking records that a running session's child may not ask any
// more: log, audit, and a message in the chat.
func (b *Bridge) childNotAsking(s *session, reason string) {
	st := s.childState()
	s.setChildReport(childModeReport{Mode: st.current, Reason: reason})
	b.log.Warn("child agent may run tools without asking", zap.String("agent", s.agent.name), zap.String("session", s.id), zap.String("reason", reason))
	b.auditMode(s, "child-not-asking", reason)
	b.noticeChildMode(s, reason)
}

// noticeChildMode tells the person, in the chat, that the child may run
// tools without asking.
func (b *Bridge) noticeChildMode(s *session, reason string) {
	text := "acp-bridge: agent " + s.agent.name + " is not known to ask before acting (" + reason +
		"). It may run tools without asking; the bridge still sees its tool calls, and decides every permission request it does send by the bridge's mode."
	_ = b.editor.Notify(context.Background(), acp.MethodSessionUpdate, map[string]any{
		"sessionId": s.id,
		"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text},
			"_meta": map[string]any{acp.MetaKey: wire.NoticeMeta{Notice: wire.NoticeChildMode, Asking: new(bool), Reason: reason}}},
	})
}

// auditMode writes a line about the child's mode to the audit log.
func (b *Bridge) auditMode(s *session, decision, reason string) {
	if b.opts.Audit == nil {
		return
	}
	if err := b.opts.Audit.Append(audit.Record{Time: time.Now().UTC(), Agent: s.agent.name, SessionID: s.id,
		Decision: decision, Source: "mode", Reason: reason, Traceparent: s.traceparent()}); err != nil {
		b.log.Error("audit log write failed", zap.Error(err))
	}
}

// setMode serves the editor's session/set_mode. A bridge mode sets the
// session's mode (the child follows only into a mode that asks at least as
// much); an id of the child's that its profile lets through (an asking mode,
// plan) goes to the child alone; anything else is refused. No alias: an
// editor's "auto" is never bypassPermissions.
func (b *Bridge) setMode(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionSetMode, err)
	}
	if p.ModeID == "" {
		return nil, acp.InvalidParams(acp.MethodSessionSetMode, errors.New("modeId is required"))
	}
	s, err := b.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if err := b.applyEditorMode(ctx, s, p.ModeID); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

// applyEditorMode is a mode id from the editor (set_mode or the mode config
// option).
func (b *Bridge) applyEditorMode(ctx context.Context, s *session, id string) error {
	prof, _ := s.agent.profileOf()
	st := s.childState()
	if m, ok := policy.ModeFromID(id); ok {
		if err := b.snapshot().Managed.ModeAllowed(string(m)); err != nil {
			return acp.Errorf(acp.CodeInvalidParams, "%v", err)
		}
		s.setMode(m)
		b.log.Info("session mode set", zap.String("session", s.id), zap.String("mode", string(m)))
		if conn := s.agent.connFor(s.gen); conn != nil {
			if err := b.followBridgeMode(ctx, s, conn, m); err != nil {
				b.childNotAsking(s, err.Error())
			}
		}
		return nil
	}
	if prof.KeepsAsking(id) && slices.Contains(st.offered, id) {
		return b.setChildOwnMode(ctx, s, id)
	}
	msg := fmt.Sprintf("unknown mode %q: acp-bridge's modes are %s", id, bridgeModeIDs())
	if slices.Contains(st.offered, id) {
		msg = fmt.Sprintf("mode %q is agent %s's own, and acp-bridge keeps the agent in a mode where it asks; acp-bridge's modes are %s (bypassPermissions allows everything but deny rules and circuit breakers)",
			id, s.agent.name, bridgeModeIDs())
	}
	return acp.Errorf(acp.CodeInvalidParams, "%s", msg)
}

// setChildOwnMode sets a mode of the child's own that its profile lets
// through (an asking mode, a stricter one, a selector mode such as
// OpenCode's build and plan agents); the bridge's mode is unchanged. A
// person's pick of a selector mode ends any plan-mode memory: leaving the
// bridge's plan later leaves the child where the person put it.
func (b *Bridge) setChildOwnMode(ctx context.Context, s *session, id string) error {
	conn, err := s.agent.sessionConn(ctx, s)
	if err != nil {
		return err
	}
	if _, err := b.setChildMode(ctx, s, conn, id); err != nil {
		return acp.Errorf(acp.CodeInternalError, "agent %s refused its mode %q: %v", s.agent.name, id, err)
	}
	s.mu.Lock()
	s.child.beforePlan = ""
	s.mu.Unlock()
	b.log.Info("child's own mode set (it keeps asking)", zap.String("session", s.id), zap.String("childMode", id))
	return nil
}

// setConfigOption serves the editor's session/set_config_option: the mode
// option (the bridge's id, or the child's own mode option id) sets the
// bridge's mode; every other option is forwarded, and the answer's options
// shown with the bridge's mode option.
func (b *Bridge) setConfigOption(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string          `json:"sessionId"`
		ConfigID  string          `json:"configId"`
		Value     json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionSetConfigOpt, err)
	}
	if p.ConfigID == "" {
		return nil, acp.InvalidParams(acp.MethodSessionSetConfigOpt, errors.New("configId is required"))
	}
	s, err := b.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	st := s.childState()
	if p.ConfigID == agentOptionID {
		prof, _ := s.agent.profileOf()
		var v string
		sel := selectModes(prof, st)
		if json.Unmarshal(p.Value, &v) != nil || !slices.Contains(sel, v) {
			return nil, acp.InvalidParams(acp.MethodSessionSetConfigOpt, fmt.Errorf("the %q option takes one of agent %s's own agents (%s)", p.ConfigID, s.agent.name, strings.Join(sel, ", ")))
		}
		if err := b.setChildOwnMode(ctx, s, v); err != nil {
			return nil, err
		}
		opts, _ := b.editorOptions(s)
		return map[string]any{"configOptions": opts}, nil
	}
	if p.ConfigID == modeOptionID || (st.optID != "" && p.ConfigID == st.optID) {
		var v string
		if json.Unmarshal(p.Value, &v) != nil || v == "" {
			return nil, acp.InvalidParams(acp.MethodSessionSetConfigOpt, fmt.Errorf("the %q option takes a mode id (%s)", p.ConfigID, bridgeModeIDs()))
		}
		if err := b.applyEditorMode(ctx, s, v); err != nil {
			return nil, err
		}
		opts, _ := b.editorOptions(s)
		return map[string]any{"configOptions": opts}, nil
	}
	_, conn, o, err := b.routed(ctx, acp.MethodSessionSetConfigOpt, params)
	if err != nil {
		return nil, err
	}
	var res json.RawMessage
	if err := conn.Call(ctx, acp.MethodSessionSetConfigOpt, o.Marshal(), &res); err != nil {
		return nil, s.agent.callError(acp.MethodSessionSetConfigOpt, err)
	}
	if res, err = s.agent.cleanResult(acp.MethodSessionSetConfigOpt, res); err != nil {
		return nil, err
	}
	ro, perr := acp.ParseObject(res)
	if perr != nil {
		return res, nil
	}
	if _, ok := ro["configOptions"]; ok {
		cm := readChildModes(ro)
		cm.offered = nil
		s.rememberChildModes(cm)
		b.checkChildMode(s, cm.current, "its answer to session/set_config_option")
		opts, _ := b.editorOptions(s)
		ro.Set("configOptions", opts)
	}
	return ro.Marshal(), nil
}

// modeUpdate handles a child's current_mode_update or config_option_update
// on its read loop (only those kinds come here, so other updates pay
// nothing). A mode change is never forwarded as such: the editor keeps the
// bridge's mode; a child that left its asking mode is put back. It returns
// the update to forward, if any.
func (a *agentRT) modeUpdate(s *session, known bool, o update) (update, bool) {
	b := a.b
	if !known {
		// A session the bridge did not open (a sub-agent's): its mode is not
		// the shown session's, and the editor sees the bridge's mode anyway.
		a.log.Debug("mode update for an unknown child session dropped", zap.String("childSession", o.childID), zap.String("kind", o.kind))
		return o, false
	}
	body, err := acp.ParseObject(o.body)
	if err != nil {
		return o, false
	}
	switch o.kind {
	case "current_mode_update":
		id := body.String("currentModeId")
		if id == "" {
			return o, false
		}
		s.mu.Lock()
		s.child.current = id
		s.mu.Unlock()
		b.checkChildMode(s, id, "current_mode_update")
		prof, _ := s.agent.profileOf()
		if prof.Selects(id) {
			// The child's own agent changed: the editor's agent option says so.
			if opts, ok := b.editorOptions(s); ok {
				return configOptionUpdate(o.childID, opts)
			}
		}
		return o, false // the editor's mode is the bridge's, unchanged
	case "config_option_update":
		cm := readChildModes(body)
		if !cm.hasOpts {
			return o, true
		}
		cm.offered = nil
		s.rememberChildModes(cm)
		if cm.optID != "" {
			b.checkChildMode(s, cm.current, "config_option_update")
		}
		opts, _ := b.editorOptions(s)
		body.Set("configOptions", opts)
		params, err := acp.ParseObject(o.params)
		if err != nil {
			return o, false
		}
		params.Set("update", body)
		return update{params: params.Marshal(), childID: o.childID, kind: o.kind, body: params["update"]}, true
	}
	return o, true
}

// configOptionUpdate is a config_option_update of a child session with
// the options the editor is shown.
func configOptionUpdate(childID string, opts []json.RawMessage) (update, bool) {
	body, _ := json.Marshal(map[string]any{"sessionUpdate": "config_option_update", "configOptions": opts})
	params, _ := json.Marshal(map[string]any{"sessionId": childID, "update": json.RawMessage(body)})
	return update{params: params, childID: childID, kind: "config_option_update", body: body}, true
}

// checkChildMode reacts to the child being in mode id: a mode that does not
// ask (the agent switched itself) is logged, audited and undone.
func (b *Bridge) checkChildMode(s *session, id, seen string) {
	prof, _ := s.agent.profileOf()
	s.mu.Lock()
	if id == "" || prof.KeepsAsking(id) || len(s.child.offered) == 0 || s.child.restoring {
		s.mu.Unlock()
		return // an asking mode, modes not known yet (settleChildMode decides), or being put back
	}
	s.child.restoring = true
	offered := slices.Clone(s.child.offered)
	s.mu.Unlock()
	target := prof.RestoreTarget(offered)
	reason := fmt.Sprintf("agent %s switched itself to its mode %q (seen in %s), in which it may act without asking", s.agent.name, id, seen)
	b.log.Warn("child left its asking mode; putting it back", zap.String("session", s.id), zap.String("childMode", id), zap.String("to", target))
	b.auditMode(s, "child-mode-restored", reason+"; set back to "+target)
	if target == "" {
		s.mu.Lock()
		s.child.restoring = false
		s.mu.Unlock()
		b.childNotAsking(s, reason+" and offers none of its asking modes")
		return
	}
	// Not on the read loop: the child's answer is read by that loop.
	go func() {
		defer func() {
			s.mu.Lock()
			s.child.restoring = false
			s.mu.Unlock()
		}()
		conn := s.agent.connFor(s.gen)
		if conn == nil {
			return
		}
		if _, err := b.setChildMode(b.lifetime, s, conn, target); err != nil {
			b.childNotAsking(s, reason+fmt.Sprintf("; setting it back to %q failed: %v", target, err))
		}
	}()
}
