package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// editorHandler serves the editor: the bridge as an ACP agent.
type editorHandler struct{ b *Bridge }

var policyModes = policy.Modes

// bridgeMeta is _meta["acp-bridge"] of session/new, load and list params.
type bridgeMeta struct {
	Agent string `json:"agent,omitempty"`
	Mode  string `json:"mode,omitempty"`
}

// PrepareRequest runs inline: a prompt's turn exists before any later
// session/cancel is handled.
func (h *editorHandler) PrepareRequest(ctx context.Context, method string, params json.RawMessage) context.Context {
	if method != acp.MethodSessionPrompt {
		return ctx
	}
	var p acp.SessionIDParams
	if json.Unmarshal(params, &p) != nil {
		return ctx
	}
	s, err := h.b.session(p.SessionID)
	if err != nil {
		return ctx
	}
	return withTurn(ctx, s.beginTurn())
}

func (h *editorHandler) HandleNotification(ctx context.Context, method string, params json.RawMessage) {
	b := h.b
	switch method {
	case acp.MethodSessionCancel:
		var p acp.SessionIDParams
		if err := json.Unmarshal(params, &p); err != nil {
			b.log.Warn("bad session/cancel params", zap.Error(err))
			return
		}
		b.cancelSession(p.SessionID, "session/cancel")
	case acp.MethodSettingsDidChange:
		var p struct {
			Settings json.RawMessage `json:"settings"`
		}
		if err := json.Unmarshal(params, &p); err != nil || len(p.Settings) == 0 {
			b.reportSettingsError(fmt.Errorf("%s: params must be {\"settings\": {...}}", acp.MethodSettingsDidChange))
			return
		}
		if b.store == nil {
			return
		}
		if err := b.store.ApplyEditor(p.Settings); err != nil {
			b.edSet.refuse(err)
			b.reportSettingsError(err)
			return
		}
		b.edSet.ok()
		b.settingsChanged()
		b.log.Info("editor settings applied")
	case acp.MethodWorkspaceDidChangeTrust:
		var p struct {
			Trusted *bool `json:"trusted"`
		}
		if err := json.Unmarshal(params, &p); err != nil || p.Trusted == nil {
			b.reportSettingsError(fmt.Errorf("%s: params must be {\"trusted\": true|false}", acp.MethodWorkspaceDidChangeTrust))
			return
		}
		b.setWorkspaceTrust(*p.Trusted, method)
		b.settingsChanged()
	default:
		if acp.IsAgentExtension(method) {
			b.notifyExtension(method, params) // passthrough.go
			return
		}
		b.log.Debug("ignored notification from the editor", zap.String("method", method))
	}
}

func (b *Bridge) reportSettingsError(err error) {
	b.log.Error("editor settings refused; the previous settings stay in force", zap.Error(err))
	b.notifyEditor(acp.MethodSettingsInvalid, map[string]any{"error": err.Error()})
}

// cancelSession cancels a session's turns and resolves its approvals as
// cancelled, then tells the child (never blocking: writes are queued).
func (b *Bridge) cancelSession(id, why string) {
	s, err := b.session(id)
	if err != nil {
		b.log.Debug("cancel for unknown session", zap.String("session", id))
		return
	}
	sent := s.cancel()
	n := b.broker.ResolveSession(id, permission.Resolution{Outcome: acp.OutcomeCancelled, By: policy.SourceCancel})
	b.log.Info("session cancelled", zap.String("session", id), zap.String("why", why), zap.Int("approvalsCancelled", n))
	if !sent {
		return
	}
	if conn := s.agent.connFor(s.gen); conn != nil {
		_ = conn.Notify(context.Background(), acp.MethodSessionCancel, acp.SessionIDParams{SessionID: s.childID})
	}
}

func (h *editorHandler) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	b := h.b
	switch method {
	case acp.MethodInitialize:
		return b.initialize(params)
	case acp.MethodAuthenticate:
		return b.authenticate(ctx, params) // auth.go
	case acp.MethodSessionNew:
		return b.newSession(ctx, params)
	case acp.MethodSessionLoad, acp.MethodSessionResume:
		return b.reopenSession(ctx, method, params)
	case acp.MethodSessionFork:
		return b.forkSession(ctx, params) // sessionops.go
	case acp.MethodSessionList:
		return b.listSessions(ctx, params)
	case acp.MethodSessionPrompt:
		return b.prompt(ctx, params)
	case acp.MethodSessionSetMode:
		return b.setMode(ctx, params)
	case acp.MethodSessionSetConfigOpt:
		return b.setConfigOption(ctx, params)
	case acp.MethodSessionClose:
		return b.closeSession(ctx, params) // sessionops.go
	case acp.MethodSessionDelete:
		return b.deleteSession(ctx, params) // sessionops.go
	case acp.MethodAgentsList:
		return b.agentsList(), nil
	case acp.MethodApprovalsList:
		return b.approvalsList(), nil
	case acp.MethodApprovalsRespond:
		return b.approvalsRespond(params)
	case acp.MethodGrantsList:
		return b.grantsList(), nil
	case acp.MethodGrantsRevoke:
		return b.grantsRevoke(params)
	case MethodPolicyCheck:
		return b.policyCheck(params)
	case MethodPolicyExplain:
		return b.policyExplain(params)
	case MethodGrantsStored:
		return b.grantsStored()
	case MethodGrantsRemoveStored:
		return b.grantsRemoveStored(params)
	case MethodSessionsLive:
		return b.liveSessions(), nil
	case acp.MethodWorkspaceApprove:
		return b.workspaceApprove(params)
	case wire.SettingsLayers:
		return b.settingsLayers(params) // settingslayers.go
	case acp.MethodSessionSetModel:
		return b.forwardExtension(ctx, method, params)
	default:
		if acp.IsAgentExtension(method) {
			return b.forwardExtension(ctx, method, params) // passthrough.go
		}
		return nil, acp.MethodNotFound(method)
	}
}

func (b *Bridge) initialize(params json.RawMessage) (any, error) {
	var p acp.InitializeRequest
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(acp.MethodInitialize, err)
	}
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(params, &probe)
	if _, ok := probe["protocolVersion"]; !ok {
		return nil, acp.InvalidParams(acp.MethodInitialize, errors.New("protocolVersion is required"))
	}
	var meta struct {
		WorkspaceTrusted *bool `json:"workspaceTrusted"`
		OpenDocumentFS   bool  `json:"openDocumentFs"`
	}
	if err := acp.BridgeMeta(acp.Object(probe), &meta); err != nil {
		// The workspace stays as trusted as it was: not trusting is safe.
		b.log.Warn("initialize: bad _meta[\"acp-bridge\"] ignored; workspace trust unchanged", zap.Error(err))
	} else if meta.WorkspaceTrusted != nil {
		// Before the answer: what it lists, and the agents started on
		// launch, follow the editor's trust.
		b.setWorkspaceTrust(*meta.WorkspaceTrusted, acp.MethodInitialize)
	}
	b.mu.Lock()
	b.editorCaps = p.ClientCapabilities
	b.editorOpenDocs = meta.OpenDocumentFS
	b.mu.Unlock()
	snap := b.snapshot()
	agents := []wire.AgentName{}
	for _, n := range snap.AgentNames() {
		agents = append(agents, wire.AgentName{ID: n, Name: n})
	}
	modes := []string{}
	for _, m := range policyModes {
		if snap.Managed.ModeAllowed(string(m)) == nil {
			modes = append(modes, string(m))
		}
	}
	res := map[string]any{
		"protocolVersion":   acp.ProtocolVersion,
		"agentCapabilities": b.bridgeCapabilities(), // capabilities.go
		"authMethods":       b.allAuthMethods(),     // auth.go
		"agentInfo":         acp.Implementation{Name: "acp-bridge", Title: "ACP Bridge", Version: b.opts.Version},
		"_meta": map[string]any{acp.MetaKey: wire.InitializeMeta{
			Version: b.opts.Version, Agents: agents, DefaultAgent: snap.Config.DefaultAgent, PolicyModes: modes,
			Modes: modeInfos(snap.Managed), SettingsAliases: settingsAliases(),
			WorkspaceTrust: trustOf(snap).wire(), Audit: b.auditStatus(), Managed: managedOf(snap), Telemetry: b.telemetryStatus(),
			NotPassed: notPassed,
		}},
	}
	// After the answer, the editor hears of any bad rule in its settings.
	return acp.AfterReply{Result: res, Then: func() {
		b.mu.Lock()
		first := !b.initialized
		b.initialized = true
		b.mu.Unlock()
		b.reportRuleProblems(false, true)
		b.reportTrust(true)
		if first {
			go b.startAgentsOnLaunch(b.lifetime)
		}
	}}, nil
}

// modeInfos are the bridge's modes for the editor: names, descriptions and
// strictness order, all from policy (the editor keeps no table of its own).
// modeInfos are the modes a person may choose (the managed tier may
// forbid some, docs/org.md), with their texts and strictness.
func modeInfos(mg *settings.Managed) []wire.ModeInfo {
	out := make([]wire.ModeInfo, 0, len(policyModes))
	for _, m := range policyModes {
		if mg.ModeAllowed(string(m)) != nil {
			continue
		}
		var strict []string
		for _, t := range policy.AtLeastAsStrictAs(m) {
			strict = append(strict, string(t))
		}
		out = append(out, wire.ModeInfo{ID: string(m), Name: policy.ModeTexts[m].Name, Description: policy.ModeTexts[m].Description, AtLeastAsStrictAs: strict})
	}
	return out
}

// settingsAliases are policy.SettingsAliases by name.
func settingsAliases() map[string]string {
	out := make(map[string]string, len(policy.SettingsAliases))
	for _, a := range policy.SettingsAliases {
		out[a.Name] = string(a.Mode)
	}
	return out
}

// pickAgent reads _meta["acp-bridge"] and returns the agent it names, else the default.
func (b *Bridge) pickAgent(o acp.Object) (*agentRT, bridgeMeta, error) {
	var m bridgeMeta
	if err := acp.BridgeMeta(o, &m); err != nil {
		return nil, m, acp.Errorf(acp.CodeInvalidParams, "%v", err)
	}
	name := m.Agent
	if name == "" {
		name = b.snapshot().Config.DefaultAgent
	}
	if name == "" {
		return nil, m, acp.Errorf(acp.CodeInvalidParams, "no agent given in _meta[%q].agent and no defaultAgent configured", acp.MetaKey)
	}
	a, err := b.agent(name)
	return a, m, err
}

// stripBridgeMeta removes our key from _meta before params go to a child.
func stripBridgeMeta(o acp.Object) {
	raw, ok := o["_meta"]
	if !ok {
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	delete(m, acp.MetaKey)
	if len(m) == 0 {
		delete(o, "_meta")
		return
	}
	o.Set("_meta", m)
}

func (b *Bridge) newSession(ctx context.Context, params json.RawMessage) (any, error) {
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionNew, err)
	}
	var p acp.NewSessionRequest
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionNew, err)
	}
	if p.Cwd, err = pathParam(acp.MethodSessionNew, o, "cwd", true); err != nil {
		return nil, err
	}
	if p.AdditionalDirectories, err = pathListParam(acp.MethodSessionNew, o, "additionalDirectories"); err != nil {
		return nil, err
	}
	if _, ok := o["mcpServers"]; !ok {
		o.Set("mcpServers", []any{}) // required by ACP; be lenient toward the editor, exact toward the child
	}
	a, meta, err := b.pickAgent(o)
	if err != nil {
		return nil, err
	}
	var mode policy.Mode
	if meta.Mode != "" {
		var ok bool
		if mode, ok = policy.ModeFromID(meta.Mode); !ok {
			return nil, acp.InvalidParams(acp.MethodSessionNew, fmt.Errorf("_meta[%q].mode %q is not one of acp-bridge's modes (%s)", acp.MetaKey, meta.Mode, bridgeModeIDs()))
		}
		if err := b.snapshot().Managed.ModeAllowed(string(mode)); err != nil {
			return nil, acp.InvalidParams(acp.MethodSessionNew, err)
		}
	}
	if err := b.sessionsBlocked(acp.MethodSessionNew); err != nil {
		return nil, err
	}
	conn, gen, err := a.ensure(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.sessionsBlocked(acp.MethodSessionNew); err != nil {
		return nil, err // the exporter went down while the agent started (red team 14b)
	}
	if err := a.checkMCPServers(acp.MethodSessionNew, o); err != nil {
		return nil, err
	}
	stripBridgeMeta(o)
	a.beginOpening()
	defer a.endOpening(context.WithoutCancel(ctx))
	var res json.RawMessage
	if err := conn.Call(ctx, acp.MethodSessionNew, o.Marshal(), &res); err != nil {
		return nil, a.callError(acp.MethodSessionNew, err)
	}
	if res, err = a.cleanResult(acp.MethodSessionNew, res); err != nil {
		return nil, err
	}
	ro, err := acp.ParseObject(res)
	if err != nil {
		return nil, acp.Errorf(acp.CodeInternalError, "agent %s answered session/new with a non-object: %v", a.name, err)
	}
	childID := ro.String("sessionId")
	if childID == "" {
		return nil, acp.Errorf(acp.CodeInternalError, "agent %s answered session/new without a sessionId", a.name)
	}
	if modes, ok := ro["modes"]; ok {
		a.rememberModes(modes)
	}
	s := newSession(uuid.NewString(), a, childID, gen, p.Cwd, p.AdditionalDirectories)
	s.setTrace(o)
	if mode != "" {
		s.setMode(mode)
	}
	a.registerOpened(s)
	// The child asks in its most asking mode; the editor sees the bridge's.
	report := b.settleChildMode(ctx, s, conn, ro)
	b.showBridgeModes(ro, s)
	ro.Set("sessionId", s.id)
	acp.SetBridgeMeta(ro, wire.SessionMeta{Agent: a.name, Mode: string(b.effectiveMode(s)), ChildMode: report, Sandbox: a.sandboxSummary(),
		ChildSessionID: s.childID, Capabilities: a.ownCapabilities()})
	// Updates the agent sent right after its answer go out right after ours.
	return acp.AfterReply{Result: ro.Marshal(), Then: func() {
		b.noticeTrust(s.id)
		a.releaseHeld(context.Background(), s)
		if !report.Asking {
			b.noticeChildMode(s, report.Reason)
		}
	}}, nil
}

func (b *Bridge) addSession(s *session) {
	b.mu.Lock()
	b.sessions[s.id] = s
	b.mu.Unlock()
	s.agent.addSession(s)
}

// reopenSession serves session/load and session/resume (resume: load
// without the replay, sent only to an agent that offers it).
func (b *Bridge) reopenSession(ctx context.Context, method string, params json.RawMessage) (any, error) {
	o, id, cwd, addDirs, err := sessionRefParams(method, params)
	if err != nil {
		return nil, err
	}
	s, lookupErr := b.session(id)
	var a *agentRT
	if lookupErr == nil {
		a = s.agent
	} else {
		// An id the bridge never issued: treat it as the agent's own id.
		if a, _, err = b.pickAgent(o); err != nil {
			return nil, err
		}
	}
	if err := b.sessionsBlocked(method); err != nil {
		return nil, err
	}
	conn, gen, err := a.ensure(ctx)
	if err != nil {
		return nil, err
	}
	if method == acp.MethodSessionResume {
		if err := requireSessionOp(a, "resume"); err != nil {
			return nil, err
		}
	}
	if err := a.checkMCPServers(method, o); err != nil {
		return nil, err
	}
	childID := id
	if s != nil {
		childID = s.childID
	}
	// Map before forwarding: the replay arrives as session/update under childID.
	ns := newSession(id, a, childID, gen, cwd, addDirs)
	ns.setTrace(o)
	if s != nil {
		ns.mode = s.modeOverride()
		if s.gen == gen { // the same process: what the bridge knew of the child's modes holds
			ns.child = s.childState()
			ns.child.restoring = false
		}
	}
	b.addSession(ns)
	stripBridgeMeta(o)
	o.Set("sessionId", childID)
	var res json.RawMessage
	if err := conn.Call(ctx, method, o.Marshal(), &res); err != nil {
		return nil, a.callError(method, err)
	}
	if res, err = a.cleanResult(method, res); err != nil {
		return nil, err
	}
	ro, err := acp.ParseObject(res)
	if err != nil {
		ro = acp.Object{}
	}
	report := b.settleChildMode(ctx, ns, conn, ro)
	b.showBridgeModes(ro, ns)
	acp.SetBridgeMeta(ro, wire.SessionMeta{Agent: a.name, Mode: string(b.effectiveMode(ns)), ChildMode: report, Sandbox: a.sandboxSummary(),
		Capabilities: a.ownCapabilities()})
	if !report.Asking {
		return acp.AfterReply{Result: ro.Marshal(), Then: func() { b.noticeChildMode(ns, report.Reason) }}, nil
	}
	return ro.Marshal(), nil
}

// routed parses params with a bridge sessionId, rewrites it to the child's
// and returns the session and the child connection.
func (b *Bridge) routed(ctx context.Context, method string, params json.RawMessage) (*session, *acp.Conn, acp.Object, error) {
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, nil, nil, acp.InvalidParams(method, err)
	}
	id := o.String("sessionId")
	if id == "" {
		return nil, nil, nil, acp.InvalidParams(method, errors.New("sessionId is required"))
	}
	s, err := b.session(id)
	if err != nil {
		return nil, nil, nil, err
	}
	conn, err := s.agent.sessionConn(ctx, s)
	if err != nil {
		return nil, nil, nil, err
	}
	o.Set("sessionId", s.childID)
	return s, conn, o, nil
}

func (b *Bridge) prompt(ctx context.Context, params json.RawMessage) (any, error) {
	s, conn, o, err := b.routed(ctx, acp.MethodSessionPrompt, params)
	t := turnFrom(ctx)
	if err != nil {
		if t != nil && s != nil {
			s.endTurn(t)
		}
		return nil, err
	}
	if t == nil { // PrepareRequest could not find the session then; it exists now
		t = s.beginTurn()
	}
	if _, ok := o["prompt"]; !ok {
		s.endTurn(t)
		return nil, acp.InvalidParams(acp.MethodSessionPrompt, errors.New("prompt is required"))
	}
	if err := s.agent.checkPrompt(o["prompt"]); err != nil { // capabilities.go
		s.endTurn(t)
		return nil, err
	}
	s.setTrace(o)
	s.mu.Lock()
	if t.cancelled {
		s.mu.Unlock()
		s.endTurn(t)
		return acp.PromptResponse{StopReason: acp.StopCancelled}, nil
	}
	t.sent = true
	withDenials(o, s.denials) // denials.go (s.mu is held)
	s.denials = nil
	pending, err := conn.Start(ctx, acp.MethodSessionPrompt, o.Marshal())
	s.mu.Unlock()
	s.agent.setActive(s)
	if err != nil {
		s.endTurn(t)
		return nil, s.agent.callError(acp.MethodSessionPrompt, err)
	}
	var res json.RawMessage
	err = pending.Wait(ctx, &res)
	if err == nil {
		res, err = b.followUps(ctx, s, conn, t, res) // followup.go
	}
	cancelled := s.endTurn(t)
	b.noticeCreated(s)
	if err != nil {
		return nil, s.agent.callError(acp.MethodSessionPrompt, err)
	}
	if res, err = s.agent.cleanResult(acp.MethodSessionPrompt, res); err != nil {
		return nil, err
	}
	if cancelled {
		// Agents may answer end_turn to a cancelled turn; the editor asked to cancel.
		ro, perr := acp.ParseObject(res)
		if perr == nil && ro.String("stopReason") != acp.StopCancelled {
			b.log.Debug("agent ended a cancelled turn with another stop reason", zap.String("agent", s.agent.name), zap.String("stopReason", ro.String("stopReason")))
			ro.Set("stopReason", acp.StopCancelled)
			return ro.Marshal(), nil
		}
	}
	return res, nil
}

// effectiveMode is the policy mode in force for a session now.
func (b *Bridge) effectiveMode(s *session) policy.Mode {
	if m := s.modeOverride(); m != "" {
		return m
	}
	return b.startMode(s.agent.name)
}

// startMode is the mode a new session of agent starts in: bypassPermissions
// for an agent with bypass (settings or a card's), else the agent's mode,
// else permissions.defaultMode (aliases read as settings read them), else
// default. agents/list sends it, so an editor never computes it.
func (b *Bridge) startMode(agent string) policy.Mode {
	snap := b.snapshot()
	cfg := snap.Config.Agents[agent]
	if cfg.BypassPermissions || b.runtimeBypassFor(agent) {
		return policy.ModeBypass
	}
	for _, candidate := range []string{cfg.Mode, snap.Config.Permissions.DefaultMode} {
		if candidate == "" {
			continue
		}
		if m, err := policy.ParseMode(candidate); err == nil {
			return m
		}
	}
	return policy.ModeDefault
}

func (b *Bridge) runtimeBypassFor(agent string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.runtimeBypass[agent]
}

func (b *Bridge) grantsList() wire.GrantsListResult {
	out := []wire.SessionGrant{}
	b.mu.Lock()
	sessions := make([]*session, 0, len(b.sessions))
	for _, s := range b.sessions {
		sessions = append(sessions, s)
	}
	b.mu.Unlock()
	for _, s := range sessions {
		_, gs := s.grantPolicy()
		for _, g := range gs {
			out = append(out, wire.SessionGrant{SessionID: s.id, Agent: s.agent.name, Rule: g.Text})
		}
	}
	return wire.GrantsListResult{Grants: out}
}

func (b *Bridge) grantsRevoke(params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		Rule      string `json:"rule"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.SessionID == "" || p.Rule == "" {
		return nil, acp.InvalidParams(acp.MethodGrantsRevoke, errors.New("sessionId and rule are required"))
	}
	s, err := b.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if !s.revoke(p.Rule) {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "session %s has no grant %q", p.SessionID, p.Rule)
	}
	return wire.GrantsRevokeResult{Revoked: true}, nil
}

// approvalsList is the result of _acp-bridge/approvals/list.
func (b *Bridge) approvalsList() map[string]any {
	out := []map[string]any{}
	for _, p := range b.flow.Pending() {
		a, fwd := p.Approval, p.Shown
		entry := map[string]any{
			"approvalId": a.ID, "sessionId": a.SessionID, "agent": a.Agent,
			"toolCall": fwd.ToolCall, "options": fwd.Options, "meta": fwd.Meta,
			"createdAt": a.Created.UTC().Format(time.RFC3339Nano),
		}
		if !a.Expires.IsZero() {
			entry["expiresAt"] = a.Expires.UTC().Format(time.RFC3339Nano)
		}
		out = append(out, entry)
	}
	return map[string]any{"approvals": out}
}

func (b *Bridge) approvalsRespond(params json.RawMessage) (any, error) {
	var p struct {
		ApprovalID string `json:"approvalId"`
		OptionID   string `json:"optionId"`
		Rule       string `json:"rule"`
		Scope      string `json:"scope"`
		Reason     string `json:"reason"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(acp.MethodApprovalsRespond, err)
	}
	if p.ApprovalID == "" || p.OptionID == "" {
		return nil, acp.InvalidParams(acp.MethodApprovalsRespond, errors.New("approvalId and optionId are required"))
	}
	if p.Scope != "" && p.Scope != "user" && p.Scope != "workspace" {
		return nil, acp.InvalidParams(acp.MethodApprovalsRespond, fmt.Errorf("scope must be \"user\" or \"workspace\", got %q", p.Scope))
	}
	if err := b.flow.Respond(p.ApprovalID, p.OptionID, p.Rule, p.Scope, p.Reason); err != nil {
		return nil, err
	}
	return map[string]any{"approvalId": p.ApprovalID, "outcome": acp.OutcomeSelected}, nil
}
