package permission

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/policy"
)

// CodePermissionDenied answers a child's fs/terminal request that the policy
// or the person refused.
const CodePermissionDenied = -32001

// Flow owns permission requests end to end: read, decide (Stages), ask
// (Broker, Editor), apply (grants, bypass, deny and stop) and record
// (Auditor, approval/resolved). Its fields are set once, before the first
// request; it is then safe for concurrent use.
type Flow struct {
	// Stages decide, in order (PolicyStage, SandboxBoundStage, ...).
	Stages []Stage
	Broker *Broker
	Editor Editor
	Grants Grants  // nil: "always" and bypass apply to nothing
	Audit  Auditor // nil: no audit log
	Log    *zap.Logger
	// Config is read once per request (the settings of that moment).
	Config func() Config
	// Generation changes whenever the settings do (a comparable value, e.g.
	// the snapshot pointer): a decision made across a change is made again.
	Generation func() any
	// ProjectRoot and Home complete the Env of a call the engine failed on.
	ProjectRoot, Home string
	// Suggest proposes "always" rules for a card (nil: policy.SuggestRules).
	Suggest func(policy.Call, policy.Env) []string
}

func (f *Flow) log() *zap.Logger {
	if f.Log == nil {
		return zap.NewNop()
	}
	return f.Log
}

func (f *Flow) config() Config {
	if f.Config == nil {
		return Config{}
	}
	return f.Config()
}

// RequestPermission decides a child's session/request_permission in s and
// waits for its answer (RequestPermissionThen, for a caller that can wait).
func (f *Flow) RequestPermission(ctx context.Context, s Session, req acp.RequestPermissionRequest) (any, error) {
	type answer struct {
		out any
		err error
	}
	ch := make(chan answer, 1)
	f.RequestPermissionThen(ctx, s, req, func(out any, err error) { ch <- answer{out, err} })
	a := <-ch
	return a.out, a.err
}

// RequestPermissionThen decides a child's session/request_permission in s
// and calls answer exactly once with the child's answer: before it returns
// when no card is shown (the stages decided, or the card could not be
// shown), else once the approval is resolved (the person, a timeout, a
// cancel, the child's withdrawal, an exit), on a deep worker. While the
// card is open no goroutine waits for it (waiting.then): ctx is the
// request's, whose end withdraws it.
func (f *Flow) RequestPermissionThen(ctx context.Context, s Session, req acp.RequestPermissionRequest, answer func(any, error)) {
	if s.Cancelled() {
		answer(acp.Cancelled(), nil)
		return
	}
	// Reading, deciding and showing run on a deep worker (shallow): the
	// caller's goroutine grows no stack for them.
	var (
		w    *waiting
		st   *requestState
		out  any
		err  error
		done bool
	)
	shallow(func() { w, st, out, done, err = f.openRequest(ctx, s, req) })
	if done {
		answer(out, err)
		return
	}
	w.then(ctx, f, s, func(res Resolution) {
		defer func() {
			if p := recover(); p != nil {
				f.log().Error("applying a permission request's answer panicked; the agent is told of an internal error",
					zap.String("approval", w.id), zap.Any("panic", p))
				answer(nil, acp.Errorf(acp.CodeInternalError, "internal error applying the answer to a permission request: %v", p))
			}
		}()
		answer(f.answerRequest(s, st, w, res, req.Options))
	})
}

// answerRequest applies the resolution of a request's card.
func (f *Flow) answerRequest(s Session, st *requestState, w *waiting, res Resolution, opts []acp.PermissionOption) (any, error) {
	return f.applyResolution(s, st.call, st.d, w.fwd, res, opts)
}

// requestState is what a permission request's answer is applied with.
type requestState struct {
	call policy.Call
	d    Decision
}

// openRequest reads and decides the request and, when the person is to be
// asked, shows the card (w). done: the answer is out, err (no card, or it
// could not be shown).
func (f *Flow) openRequest(ctx context.Context, s Session, req acp.RequestPermissionRequest) (w *waiting, st *requestState, out any, done bool, err error) {
	a := s.Agent()
	merged := s.MergeToolCall(req.ToolCall)
	call, failure, nerr := f.Read(a, merged)
	if nerr != nil {
		f.log().Debug("tool call not understood; the policy will ask", zap.Error(nerr))
	}
	d := f.decide(ctx, &Request{Session: s, Call: call, Failure: failure})
	toolCallID := toolCallIDOf(merged)
	s.MarkAsked(toolCallID) // this call was asked about (not judged again as unasked)
	if s.Cancelled() {
		// The turn was cancelled while the call was decided: ACP answers
		// every pending request cancelled.
		f.Record(s, call, d, toolCallID, "", "cancelled", "", string(policy.SourceCancel), 0)
		return nil, nil, acp.Cancelled(), true, nil
	}

	answerAllow := pickOption(req.Options, acp.KindAllowOnce)
	answerReject := pickOption(req.Options, acp.KindRejectOnce)
	if a.RejectAborts() && d.Verdict.Decision != policy.Allow {
		d.Verdict.Reason += " (agent " + a.Name() + "'s only reject option ends its turn)"
	}
	switch d.Verdict.Decision {
	case policy.Allow:
		if answerAllow != "" {
			f.Record(s, call, d, toolCallID, "", "allow", answerAllow, string(d.Verdict.Source), 0)
			return nil, nil, acp.Selected(answerAllow), true, nil
		}
		d.Verdict.Reason += " (the agent offers no allow-once option, so the person decides)"
	case policy.Deny:
		f.Record(s, call, d, toolCallID, "", "deny", answerReject, string(d.Verdict.Source), 0)
		if answerReject == "" {
			return nil, nil, acp.Cancelled(), true, nil
		}
		return nil, nil, acp.Selected(answerReject), true, nil
	}

	// Ask the person.
	options := Options(a.Name(), call, req.Options, d.Verdict)
	if f.config().BypassDisabled != "" {
		options = slices.DeleteFunc(options, func(o acp.PermissionOption) bool { return o.OptionID == OptBypass })
	}
	w, res, fwd, err := f.show(ctx, s, call, d, merged, toolCallID, options, "")
	if err != nil {
		return nil, nil, nil, true, err
	}
	if w == nil {
		out, err = f.applyResolution(s, call, d, fwd, res, req.Options)
		return nil, nil, out, true, err
	}
	return w, &requestState{call: call, d: d}, nil, false, nil
}

func toolCallIDOf(tc json.RawMessage) string {
	var f acp.ToolCallFields
	_ = json.Unmarshal(tc, &f)
	return f.ToolCallID
}

// Operation is a child's fs/read_text_file, fs/write_text_file or
// terminal/create, read into a canonical call by the caller.
type Operation struct {
	Method string
	Call   policy.Call // Title and Kind set: they are the card's
	// Params are the child's params (shown as the card's rawInput).
	Params json.RawMessage
	// Resolved (fs/*) is the path acted on, resolved before the decision
	// (terminal/create: its cwd, resolved, which the sandbox bound judges);
	// Refused why it cannot be served (a /proc path, a link loop): denied.
	Resolved string
	Refused  error
	// Failure: the call could not be read (asked about as an engine failure).
	Failure string
}

// Operation decides a child's fs/* or terminal/create in s: nil when it may
// go ahead (the caller then serves or forwards it), else the child's error
// (CodePermissionDenied). Exactly one record is written either way.
func (f *Flow) Operation(ctx context.Context, s Session, op Operation) error {
	method, call := op.Method, op.Call
	if s.Cancelled() {
		return acp.Errorf(CodePermissionDenied, "%s refused: the turn was cancelled", method)
	}
	if op.Refused != nil {
		d := Decision{Mode: s.Mode(), Verdict: policy.Verdict{Decision: policy.Deny, Source: policy.SourceBreaker,
			Breaker: "the file service refuses this path", Reason: op.Refused.Error()}}
		f.Record(s, call, d, "", "", "deny", "", string(d.Verdict.Source), 0)
		return acp.Errorf(CodePermissionDenied, "%s refused by acp-bridge: %v", method, op.Refused)
	}
	d := f.decide(ctx, &Request{Session: s, Call: call, Failure: op.Failure, Operation: method, Resolved: op.Resolved})
	switch d.Verdict.Decision {
	case policy.Deny:
		f.Record(s, call, d, "", "", "deny", "", string(d.Verdict.Source), 0)
		return acp.Errorf(CodePermissionDenied, "%s refused by acp-bridge: %s", method, d.Verdict.Reason)
	case policy.Ask:
		tc := acp.Object{}
		tc.Set("toolCallId", "acp-bridge-"+newID())
		tc.Set("title", call.Title)
		tc.Set("kind", call.Kind)
		tc.Set("status", "pending")
		tc["rawInput"] = op.Params
		if len(call.Paths) > 0 {
			tc.Set("locations", []map[string]string{{"path": call.Paths[0]}})
		}
		raw := tc.Marshal()
		res, fwd, err := f.ask(ctx, s, call, d, raw, toolCallIDOf(raw), Options(s.Agent().Name(), call, nil, d.Verdict), method)
		if err != nil {
			return err
		}
		allowed := func() acp.RequestPermissionResponse { return acp.Selected("allow") }
		rejected := func() acp.RequestPermissionResponse { return acp.Selected("reject") }
		_, outcome := f.resolveToAnswer(s, call, d, fwd, res, allowed, rejected)
		f.finish(s, call, d, fwd, res, outcome, "")
		if outcome != "allow" {
			return acp.Errorf(CodePermissionDenied, "%s refused: %s by %s", method, outcome, res.By)
		}
		return nil
	}
	if s.Cancelled() {
		// Cancelled while it was being decided: nothing is done for a turn
		// the person stopped.
		f.Record(s, call, d, "", "", "cancelled", "", string(policy.SourceCancel), 0)
		return acp.Errorf(CodePermissionDenied, "%s refused: the turn was cancelled", method)
	}
	f.Record(s, call, d, "", "", "allow", "", string(d.Verdict.Source), 0)
	return nil
}

// Check decides call in s, for a request that is refused on a deny and
// otherwise goes ahead without a card (a URL an elicitation would open):
// a deny is recorded and returned as true.
func (f *Flow) Check(ctx context.Context, s Session, call policy.Call) (Decision, bool) {
	d := f.decide(ctx, &Request{Session: s, Call: call})
	if d.Verdict.Decision != policy.Deny {
		return d, false
	}
	f.Record(s, call, d, "", "", "deny", "", string(d.Verdict.Source), 0)
	return d, true
}

// Unasked judges a tool call the agent reports finished without having
// asked about it (docs/policy.md, "Tool calls that were never asked
// about"): decided as if asked (in the session's mode) and audited as
// "unasked" with the verdict it would have had. One the policy denies
// raises a notice in the chat and, with Config.CancelOnUnaskedDeny, cancels
// the turn. It runs off the read loop.
func (f *Flow) Unasked(ctx context.Context, s Session, toolCallID string, toolCall json.RawMessage) policy.Verdict {
	call, failure, _ := f.Read(s.Agent(), toolCall)
	d := f.decide(ctx, &Request{Session: s, Call: call, Failure: failure})
	v := d.Verdict
	agent := s.Agent().Name()
	tier, file := ruleWhere(v)
	f.appendAudit(audit.Record{
		Time: time.Now().UTC(), Agent: agent, SessionID: s.ID(), ToolCallID: toolCallID,
		Specifier: v.Specifier, Decision: "unasked", Would: string(v.Decision),
		Source: string(v.Source), Rule: v.Rule,
		Reason:  "the agent ran this tool call without asking; the policy would " + verb(v.Decision) + ": " + v.Reason,
		Sandbox: d.Sandbox, RuleTier: tier, RuleFile: file, OPADecisionID: d.OPADecisionID, Traceparent: s.Traceparent(),
	}, call)
	if v.Decision != policy.Deny {
		f.log().Info("an agent ran a tool call without asking", zap.String("agent", agent), zap.String("session", s.ID()),
			zap.String("call", v.Specifier), zap.String("would", string(v.Decision)))
		return v
	}
	cancel := f.config().CancelOnUnaskedDeny
	f.log().Warn("an agent ran, without asking, a tool call the policy denies", zap.String("agent", agent),
		zap.String("session", s.ID()), zap.String("call", v.Specifier), zap.String("reason", v.Reason), zap.Bool("cancelTurn", cancel))
	text := "acp-bridge: agent " + agent + " ran " + v.Specifier + " without asking, and the policy denies it (" + v.Reason + ")."
	if cancel {
		text += " The turn is cancelled."
	}
	f.Editor.Notify(acp.MethodSessionUpdate, map[string]any{
		"sessionId": s.ID(),
		"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text},
			"_meta": map[string]any{acp.MetaKey: map[string]any{"notice": "unaskedDenied", "toolCallId": toolCallID,
				"specifier": v.Specifier, "rule": v.Rule, "reason": v.Reason, "turnCancelled": cancel}}},
	})
	if cancel {
		s.CancelTurn("the agent ran a denied tool call without asking")
	}
	return v
}

func verb(d policy.Decision) string {
	switch d {
	case policy.Allow:
		return "allow it"
	case policy.Deny:
		return "deny it"
	}
	return "ask"
}
