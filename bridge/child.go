package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/approvals"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/wire"
)

// childHandler serves one child agent process: the bridge as an ACP client.
type childHandler struct {
	a   *agentRT
	gen int
	// Requests of this process in flight at the bridge (inflight.go):
	// permission requests, and everything else it asks of the editor or
	// the bridge's services.
	asks, others inflight
}

// HandleNotification runs on the child's read loop. session/update is
// forwarded synchronously: that is what keeps order and puts each update on
// the editor's wire before the prompt response that follows it.
func (h *childHandler) HandleNotification(ctx context.Context, method string, params json.RawMessage) {
	a := h.a
	if method != acp.MethodSessionUpdate {
		if acp.IsAgentExtension(method) {
			a.childNotification(ctx, method, params) // passthrough.go
			return
		}
		a.log.Debug("ignored notification from agent", zap.String("method", method))
		return
	}
	a.forwardUpdate(ctx, params)
}

// HandleSessionUpdate is HandleNotification for a session/update the
// stream has already read (acp.SessionUpdateHandler).
func (h *childHandler) HandleSessionUpdate(ctx context.Context, u acp.SessionUpdate) {
	h.a.forward(ctx, scannedUpdate(u))
}

func (h *childHandler) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	// Bounded per agent process and kind (inflight.go): past the bound the
	// request is answered at once, never held.
	slots, kind := &h.others, "requests"
	if method == acp.MethodRequestPermission {
		slots, kind = &h.asks, "permission requests"
	}
	release, refused, ok := slots.acquire(len(params))
	if !ok {
		if refused == 1 {
			h.a.log.Warn("agent has too many requests in flight; refusing more of this kind until some are answered",
				zap.String("method", method), zap.String("kind", kind), zap.Int("max", maxChildInFlight))
		} else {
			h.a.log.Debug("request refused: too many in flight", zap.String("method", method))
		}
		return nil, tooMany(method, kind)
	}
	defer release()
	return h.handleRequest(ctx, method, params)
}

func (h *childHandler) handleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	b := h.a.b
	switch method {
	case acp.MethodRequestPermission:
		return b.requestPermission(ctx, h.a, params)
	case acp.MethodFSReadTextFile, acp.MethodFSWriteTextFile, acp.MethodTerminalCreate:
		return b.clientOp(ctx, h.a, method, params)
	case acp.MethodTerminalOutput, acp.MethodTerminalWaitForExit, acp.MethodTerminalKill, acp.MethodTerminalRelease:
		return b.forwardToEditor(ctx, h.a, method, params)
	case acp.MethodElicitationCreate:
		return b.childToEditor(ctx, h.a, method, params)
	default:
		if acp.IsAgentExtension(method) {
			return b.childToEditor(ctx, h.a, method, params)
		}
		return nil, acp.MethodNotFound(method)
	}
}

// forwarded is what the editor is shown for one approval (also kept for approvals/list).
type forwarded struct {
	SessionID string                 `json:"sessionId"`
	ToolCall  json.RawMessage        `json:"toolCall"`
	Options   []acp.PermissionOption `json:"options"`
	Meta      approvalMeta           `json:"-"`
	created   time.Time
}

func (f *forwarded) offers(optionID string) bool {
	for _, o := range f.Options {
		if o.OptionID == optionID {
			return true
		}
	}
	return false
}

func (f *forwarded) optionIDs() string {
	s := ""
	for i, o := range f.Options {
		if i > 0 {
			s += ", "
		}
		s += o.OptionID
	}
	return s
}

func (f *forwarded) params() json.RawMessage {
	// One marshal of a fixed shape (an acp.Object would marshal each member
	// and then the whole again); _meta holds only the bridge's key.
	b, err := json.Marshal(struct {
		SessionID string                  `json:"sessionId"`
		ToolCall  json.RawMessage         `json:"toolCall"`
		Options   []acp.PermissionOption  `json:"options"`
		Meta      map[string]approvalMeta `json:"_meta"`
	}{f.SessionID, f.ToolCall, f.Options, map[string]approvalMeta{acp.MetaKey: f.Meta}})
	if err != nil {
		// Unreachable: the tool call was read as JSON and the rest is ours.
		panic(fmt.Sprintf("bridge: marshal permission request: %v", err))
	}
	return b
}

// approvalMeta is _meta["acp-bridge"] of a forwarded permission request.
type approvalMeta = wire.CardMeta

// requestPermission decides a child's session/request_permission. It
// answers exactly once: by policy at once, or after the person (or a
// timeout, a cancel, an exit) resolves the approval.
func (b *Bridge) requestPermission(ctx context.Context, a *agentRT, params json.RawMessage) (any, error) {
	var req acp.RequestPermissionRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, acp.InvalidParams(acp.MethodRequestPermission, err)
	}
	if err := req.Validate(); err != nil {
		return nil, acp.InvalidParams(acp.MethodRequestPermission, err)
	}
	s, known := a.sessionFor(req.SessionID)
	if !known {
		// Perhaps a session whose session/new answer is still on its way.
		a.waitOpened(ctx)
		s, known = a.sessionFor(req.SessionID)
	}
	if s == nil {
		// Nowhere to show it and no session policy to apply: never allow.
		a.log.Warn("permission request for an unknown session, and the agent has no session to show it on: answered cancelled",
			zap.String("childSession", req.SessionID))
		return acp.Cancelled(), nil
	}
	if !known {
		a.log.Info("permission request from an unknown child session (sub-agent?) shown on the agent's active session",
			zap.String("childSession", req.SessionID), zap.String("session", s.id))
	}
	if s.isCancelled() {
		return acp.Cancelled(), nil
	}
	merged := s.cache.Merge(req.ToolCall)
	call, failure, nerr := b.normalizeSafely(a, merged)
	if nerr != nil {
		a.log.Debug("tool call not understood; the policy will ask", zap.Error(nerr))
	}
	d := b.decideOr(s, call, failure)
	toolCallID := toolCallIDOf(merged)
	s.markAsked(toolCallID) // unasked.go: this call was asked about
	if s.isCancelled() {
		// The turn was cancelled while the call was decided: ACP answers
		// every pending request cancelled.
		b.record(s, call, d, toolCallID, "", "cancelled", "", string(policy.SourceCancel), 0)
		return acp.Cancelled(), nil
	}

	answerAllow := pickOption(req.Options, acp.KindAllowOnce)
	answerReject := pickOption(req.Options, acp.KindRejectOnce)
	if prof, _ := a.profileOf(); prof.RejectAborts && d.verdict.Decision != policy.Allow {
		d.verdict.Reason += " (agent " + a.name + "'s only reject option ends its turn)"
	}
	switch d.verdict.Decision {
	case policy.Allow:
		if answerAllow != "" {
			b.record(s, call, d, toolCallID, "", "allow", answerAllow, string(d.verdict.Source), 0)
			return acp.Selected(answerAllow), nil
		}
		d.verdict.Reason += " (the agent offers no allow-once option, so the person decides)"
	case policy.Deny:
		b.record(s, call, d, toolCallID, "", "deny", answerReject, string(d.verdict.Source), 0)
		if answerReject == "" {
			return acp.Cancelled(), nil
		}
		return acp.Selected(answerReject), nil
	}

	// Ask the person.
	options := bridgeOptions(a.name, call, req.Options, d.verdict)
	res, fwd, err := b.ask(ctx, s, call, d, merged, toolCallID, options, "")
	if err != nil {
		return nil, err
	}
	return b.applyResolution(s, call, d, fwd, res, req.Options)
}

// decision is a verdict plus what was evaluated, for cards and the audit log.
type decision struct {
	verdict policy.Verdict
	mode    policy.Mode
	env     policy.Env
	// sandbox says what the OS sandbox still blocks of the call.
	sandbox string
}

func (b *Bridge) decide(s *session, call policy.Call) decision {
	return b.decideOr(s, call, "")
}

// decideOr is decide, unless failure says why the call could not be read:
// then the engine is not consulted and the call is asked about as an
// engine failure (bridge/policy.go).
func (b *Bridge) decideOr(s *session, call policy.Call, failure string) decision {
	// A decision holds for the settings it was made under: if they changed
	// while it was being made (a deny rule added, trust withdrawn), it is
	// made again under the new ones. Settings that keep changing leave an
	// allow as an ask.
	for try := 0; ; try++ {
		before := b.snapshot()
		d := b.decideOnce(s, call, failure)
		if b.snapshot() == before {
			return d
		}
		if try == 2 {
			if d.verdict.Decision == policy.Allow {
				d.verdict.Decision = policy.Ask
				d.verdict.Reason = "the settings changed while this call was being decided; asking (" + d.verdict.Reason + ")"
			}
			return d
		}
		b.log.Info("settings changed while deciding; deciding again", zap.String("session", s.id), zap.String("tool", call.Tool))
	}
}

func (b *Bridge) decideOnce(s *session, call policy.Call, failure string) decision {
	mode := b.effectiveMode(s)
	req := DecisionRequest{
		Agent: s.agent.name, SessionID: s.id, Call: call, Mode: mode,
		Cwd: s.cwd, AdditionalDirectories: s.addDirs, Session: s,
	}
	var v policy.Verdict
	var env policy.Env
	if failure != "" {
		v, env = b.engineFailed(s, req, env, failure, nil)
	} else {
		v, env = b.decideSafely(s, req) // a panic or a broken verdict becomes an ask
	}
	return decision{verdict: v, mode: mode, env: env, sandbox: s.agent.sandboxNote(call, env.Cwd, false)}
}

func toolCallIDOf(tc json.RawMessage) string {
	var f acp.ToolCallFields
	_ = json.Unmarshal(tc, &f)
	return f.ToolCallID
}

// pickOption returns the first option of a kind, or "".
func pickOption(opts []acp.PermissionOption, kind string) string {
	for _, o := range opts {
		if o.Kind == kind {
			return o.OptionID
		}
	}
	return ""
}

// ask opens an approval, forwards it to the editor and waits for exactly one
// resolution. It returns the resolution and what was shown.
func (b *Bridge) ask(ctx context.Context, s *session, call policy.Call, d decision, toolCall json.RawMessage,
	toolCallID string, options []acp.PermissionOption, operation string) (approvals.Resolution, *forwarded, error) {
	snap := b.snapshot()
	timeout := snap.Config.Approvals.Timeout
	timeoutRes := approvals.Resolution{Outcome: acp.OutcomeSelected, OptionID: optRejectOnce}
	if snap.Config.Approvals.TimeoutOutcome == "cancel" {
		timeoutRes = approvals.Resolution{Outcome: acp.OutcomeCancelled}
	}
	id := newID()
	meta := approvalMeta{
		ApprovalID: id, Agent: s.agent.name, SessionID: s.id, ToolCallID: toolCallID,
		Tool: call.Tool, Specifier: d.verdict.Specifier, Paths: call.Paths, SubCommands: d.verdict.SubCommands,
		MatchedRule: d.verdict.Rule, Source: string(d.verdict.Source), Reason: d.verdict.Reason, Breaker: d.verdict.Breaker,
		Mode: string(d.mode), SuggestedRules: b.suggestSafely(call, d.env), Operation: operation,
		Sandbox: d.sandbox,
	}
	if strings.HasPrefix(operation, "fs/") {
		meta.Sandbox = s.agent.sandboxNote(call, d.env.Cwd, true)
	}
	if prof, _ := s.agent.profileOf(); prof.RejectAborts && operation == "" {
		meta.RejectEndsTurn = true
	}
	if meta.Tool == "" {
		meta.Tool = "unknown"
	}
	// The tool call and the agent's options are the child's words: its
	// _meta["acp-bridge"] goes (only the bridge's own, in fwd.Meta, is shown).
	toolCall, ok := s.agent.stripForeign(toolCall, "permission request tool call")
	if !ok {
		toolCall = json.RawMessage(`{}`)
	}
	options = s.agent.stripOptions(options)
	fwd := &forwarded{SessionID: s.id, ToolCall: toolCall, Options: options}
	if ctx.Err() != nil {
		// The child withdrew the request or went away before it could be
		// shown: nobody is left to answer, so no card.
		fwd.Meta, fwd.created = meta, time.Now()
		return approvals.Resolution{Outcome: acp.OutcomeCancelled, By: b.withdrawnBy(s), At: fwd.created}, fwd, nil
	}
	appr, err := b.broker.Open(approvals.Ticket{
		ID: id, SessionID: s.id, Agent: s.agent.name, Timeout: timeout, TimeoutResolution: timeoutRes, Data: fwd,
	})
	if err != nil {
		return approvals.Resolution{}, nil, fmt.Errorf("open approval: %w", err)
	}
	if !appr.Expires.IsZero() {
		meta.ExpiresAt = appr.Expires.UTC().Format(timeFormat)
	}
	fwd.Meta = meta
	fwd.created = appr.Created

	// Forward to the editor; its answer resolves the approval (first wins).
	editorAnswered := false
	var editorDone <-chan struct{} // the editor's answer (or its end) is in
	pending, err := b.editor.Start(context.WithoutCancel(ctx), acp.MethodRequestPermission, fwd.params())
	if err != nil {
		_ = b.broker.Resolve(id, approvals.Resolution{Outcome: acp.OutcomeCancelled, By: policy.SourceEditorGone})
	} else {
		editorDone = pending.Done()
	}

	for waiting := true; waiting; {
		select {
		case <-appr.Done():
			waiting = false
		case <-editorDone:
			// On this goroutine: no second goroutine (and its stack) per
			// pending approval, and no hand-off on the way back.
			editorDone, editorAnswered = nil, true
			b.takeEditorAnswer(id, pending)
		case <-ctx.Done():
			// The child withdrew the request ($/cancel_request) or went away.
			_ = b.broker.Resolve(id, approvals.Resolution{Outcome: acp.OutcomeCancelled, By: b.withdrawnBy(s)})
			waiting = false
		}
	}
	res := appr.Resolution()
	if pending != nil && !editorAnswered {
		// Resolved elsewhere (another surface, timeout, cancel, exit): the
		// editor's request is moot; withdraw it.
		b.editor.CancelRequest(pending.ID())
	}
	return res, fwd, nil
}

// takeEditorAnswer reads the editor's answer to the forwarded request (its
// Done is closed) and resolves approval id with it (a no-op, logged, if
// something else resolved it first).
func (b *Bridge) takeEditorAnswer(id string, pending *acp.Pending) {
	var resp struct {
		Outcome acp.PermissionOutcome `json:"outcome"`
		Meta    json.RawMessage       `json:"_meta"`
	}
	werr := pending.Wait(context.Background(), &resp)
	r := approvals.Resolution{By: policy.SourceUser}
	switch {
	case werr != nil && isClosed(werr):
		r = approvals.Resolution{Outcome: acp.OutcomeCancelled, By: policy.SourceEditorGone}
	case werr != nil:
		b.log.Warn("editor answered the permission request with an error; treated as cancelled", zap.Error(werr))
		r.Outcome = acp.OutcomeCancelled
	default:
		r.Outcome = resp.Outcome.Outcome
		r.OptionID = resp.Outcome.OptionID
		var m struct {
			Rule   string `json:"rule"`
			Scope  string `json:"scope"`
			Reason string `json:"reason"`
		}
		_ = acp.BridgeMeta(acp.Object{"_meta": resp.Meta}, &m)
		r.Rule, r.Scope, r.Reason = m.Rule, m.Scope, m.Reason
	}
	if rerr := b.broker.Resolve(id, r); rerr != nil {
		b.log.Debug("editor answer came after the approval was resolved", zap.String("approval", id), zap.Error(rerr))
	}
}

// withdrawnBy says why a child's request ctx ended: the agent went away (its
// connection is gone) or it withdrew the request ($/cancel_request).
func (b *Bridge) withdrawnBy(s *session) policy.Source {
	c := s.agent.connFor(s.gen)
	if c == nil {
		return policy.SourceAgentExit
	}
	select {
	case <-c.Done(): // the connection ended under the request
		return policy.SourceAgentExit
	default:
		return policy.SourceCancel
	}
}

// Bridge option ids (see docs/extension-surface.md).
const (
	optAllowOnce    = "acp-bridge:allow_once"
	optAllowSession = "acp-bridge:allow_session"
	optAllowAlways  = "acp-bridge:allow_always"
	optRejectOnce   = "acp-bridge:reject_once"
	optRejectStop   = "acp-bridge:reject_and_stop"
	optRejectAlways = "acp-bridge:reject_always"
	optBypass       = "acp-bridge:bypass"
	agentOptPrefix  = "agent:"
)

// bridgeOptions lists what the person can choose, in design.md's order.
//
// A circuit breaker's card (a protected file, rm -rf ~, ...) offers no grant
// (session, always, bypass): a breaker asks whatever allows the call, so a
// grant would never take effect.
func bridgeOptions(agent string, call policy.Call, agentOpts []acp.PermissionOption, v policy.Verdict) []acp.PermissionOption {
	understood := call.Tool != ""
	breaker := v.Source == policy.SourceBreaker
	out := []acp.PermissionOption{{OptionID: optAllowOnce, Name: "Allow once", Kind: acp.KindAllowOnce}}
	if understood && !breaker {
		out = append(out, acp.PermissionOption{OptionID: optAllowSession, Name: "Allow for this session", Kind: acp.KindAllowAlways},
			acp.PermissionOption{OptionID: optAllowAlways, Name: "Always allow", Kind: acp.KindAllowAlways})
	}
	out = append(out, acp.PermissionOption{OptionID: optRejectOnce, Name: "Deny", Kind: acp.KindRejectOnce},
		acp.PermissionOption{OptionID: optRejectStop, Name: "Deny and stop the turn", Kind: acp.KindRejectOnce})
	if understood {
		out = append(out, acp.PermissionOption{OptionID: optRejectAlways, Name: "Always deny", Kind: acp.KindRejectAlways})
	}
	if agentOpts != nil && !breaker {
		out = append(out, acp.PermissionOption{OptionID: optBypass, Name: "Bypass permissions for " + agent, Kind: acp.KindAllowAlways})
	}
	for _, o := range agentExtras(call, agentOpts) {
		out = append(out, acp.PermissionOption{OptionID: agentOptPrefix + o.OptionID, Name: o.Name, Kind: o.Kind, Meta: o.Meta})
	}
	return out
}

// agentExtras are the agent's options with no bridge equivalent: for a mode
// switch (e.g. Claude's plan-exit) all of them; otherwise any second option
// of a kind the bridge already maps (allow_once/reject_once) and none of the
// "always" ones (the bridge's own grants replace them).
func agentExtras(call policy.Call, opts []acp.PermissionOption) []acp.PermissionOption {
	if call.Kind == "switch_mode" || call.Tool == "ExitPlanMode" {
		return opts
	}
	var out []acp.PermissionOption
	seen := map[string]bool{}
	for _, o := range opts {
		switch o.Kind {
		case acp.KindAllowOnce, acp.KindRejectOnce:
			if seen[o.Kind] {
				out = append(out, o)
			}
			seen[o.Kind] = true
		case acp.KindAllowAlways, acp.KindRejectAlways:
		default:
			out = append(out, o) // an unknown kind is shown, never auto-picked
		}
	}
	return out
}

// applyResolution turns the person's (or the broker's) resolution into the
// child's answer, applying grants on the way.
func (b *Bridge) applyResolution(s *session, call policy.Call, d decision, fwd *forwarded,
	res approvals.Resolution, agentOpts []acp.PermissionOption) (any, error) {
	allow := func() acp.RequestPermissionResponse {
		if id := pickOption(agentOpts, acp.KindAllowOnce); id != "" {
			return acp.Selected(id)
		}
		if id := pickOption(agentOpts, acp.KindAllowAlways); id != "" {
			return acp.Selected(id) // the person allowed; the agent offers nothing narrower
		}
		return acp.Cancelled()
	}
	reject := func() acp.RequestPermissionResponse {
		if id := pickOption(agentOpts, acp.KindRejectOnce); id != "" {
			return acp.Selected(id)
		}
		return acp.Cancelled()
	}
	out, outcome := b.resolveToAnswer(s, call, d, fwd, res, allow, reject)
	b.finish(s, call, d, fwd, res, outcome, answerOption(out))
	if res.OptionID == optRejectStop && res.By == policy.SourceUser {
		return acp.AfterReply{Result: out, Then: func() { b.cancelSession(s.id, "deny and stop the turn") }}, nil
	}
	return out, nil
}

func answerOption(r acp.RequestPermissionResponse) string { return r.Outcome.OptionID }

// resolveToAnswer maps a resolution to an answer and applies grants.
// outcome is "allow", "deny" or "cancelled".
func (b *Bridge) resolveToAnswer(s *session, call policy.Call, d decision, fwd *forwarded, res approvals.Resolution,
	allow, reject func() acp.RequestPermissionResponse) (acp.RequestPermissionResponse, string) {
	if res.Outcome != acp.OutcomeSelected {
		return acp.Cancelled(), "cancelled"
	}
	if !fwd.offers(res.OptionID) {
		b.log.Warn("the editor chose an option that was not offered; treated as cancelled", zap.String("optionId", res.OptionID))
		return acp.Cancelled(), "cancelled"
	}
	rule := res.Rule
	if rule == "" && len(fwd.Meta.SuggestedRules) > 0 {
		rule = fwd.Meta.SuggestedRules[0]
	}
	switch res.OptionID {
	case optAllowOnce:
		return allow(), "allow"
	case optAllowSession:
		for _, r := range sessionGrantRules(res, call, d, fwd) {
			if err := s.grant(r); err != nil {
				b.log.Warn("session grant refused; allowed once only", zap.String("rule", r), zap.Error(err))
			}
		}
		return allow(), "allow"
	case optAllowAlways:
		b.grantAlways(s.agent.name, "allow", rule, res.Scope)
		return allow(), "allow"
	case optRejectOnce, optRejectStop:
		return reject(), "deny"
	case optRejectAlways:
		b.grantAlways(s.agent.name, "deny", rule, res.Scope)
		return reject(), "deny"
	case optBypass:
		b.grantBypass(s.agent.name, res.Scope)
		return allow(), "allow"
	}
	if len(res.OptionID) > len(agentOptPrefix) && res.OptionID[:len(agentOptPrefix)] == agentOptPrefix {
		agentOpt := res.OptionID[len(agentOptPrefix):]
		kind := ""
		for _, o := range fwd.Options {
			if o.OptionID == res.OptionID {
				kind = o.Kind
			}
		}
		outcome := "deny"
		if kind == acp.KindAllowOnce || kind == acp.KindAllowAlways {
			outcome = "allow"
		}
		return acp.Selected(agentOpt), outcome
	}
	return acp.Cancelled(), "cancelled"
}
