package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/wire"
)

// ErrEditorGone is what Asked.Answer wraps when the editor went away.
var ErrEditorGone = errors.New("the editor is gone")

const timeFormat = time.RFC3339Nano

func newID() string { return uuid.NewString() }

// Forwarded is what the editor is shown for one approval (also kept in the
// broker, for approvals/list).
type Forwarded struct {
	SessionID string                 `json:"sessionId"`
	ToolCall  json.RawMessage        `json:"toolCall"`
	Options   []acp.PermissionOption `json:"options"`
	Meta      Meta                   `json:"-"`
	created   time.Time
}

// Offers says whether optionID was on the card.
func (f *Forwarded) Offers(optionID string) bool {
	for _, o := range f.Options {
		if o.OptionID == optionID {
			return true
		}
	}
	return false
}

// OptionIDs lists the card's option ids, for an error message.
func (f *Forwarded) OptionIDs() string {
	s := ""
	for i, o := range f.Options {
		if i > 0 {
			s += ", "
		}
		s += o.OptionID
	}
	return s
}

// Params is the session/request_permission the editor is sent.
func (f *Forwarded) Params() json.RawMessage {
	// One marshal of a fixed shape (an acp.Object would marshal each member
	// and then the whole again); _meta holds only the bridge's key.
	b, err := json.Marshal(struct {
		SessionID string                 `json:"sessionId"`
		ToolCall  json.RawMessage        `json:"toolCall"`
		Options   []acp.PermissionOption `json:"options"`
		Meta      map[string]Meta        `json:"_meta"`
	}{f.SessionID, f.ToolCall, f.Options, map[string]Meta{acp.MetaKey: f.Meta}})
	if err != nil {
		// Unreachable: the tool call was read as JSON and the rest is ours.
		panic(fmt.Sprintf("permission: marshal permission request: %v", err))
	}
	return b
}

// Meta is _meta["acp-bridge"] of a forwarded permission request: the card,
// declared once in wire (wire.CardMeta).
type Meta = wire.CardMeta

// ask opens an approval, shows it to the editor and waits for exactly one
// resolution. It returns the resolution and what was shown.
func (f *Flow) ask(ctx context.Context, s Session, call policy.Call, d Decision, toolCall json.RawMessage,
	toolCallID string, options []acp.PermissionOption, operation string) (Resolution, *Forwarded, error) {
	w, res, fwd, err := f.show(ctx, s, call, d, toolCall, toolCallID, options, operation)
	if w == nil {
		return res, fwd, err
	}
	// The caller (an fs/* or terminal/create request) waits for the
	// resolution that then delivers (one path for every card).
	done := make(chan Resolution, 1)
	w.then(ctx, f, s, func(r Resolution) { done <- r })
	return <-done, w.fwd, nil
}

// waiting is an approval shown to the editor, waiting for its resolution:
// with then's callbacks, all a pending approval holds.
type waiting struct {
	id    string
	appr  *Approval
	shown Asked
	// shownOK: the editor was asked (its Done will close).
	shownOK bool
	fwd     *Forwarded
}

// show opens an approval and shows it to the editor. With no editor to
// wait for (the request withdrawn, the approval not opened), w is nil and
// the rest is the answer.
func (f *Flow) show(ctx context.Context, s Session, call policy.Call, d Decision, toolCall json.RawMessage,
	toolCallID string, options []acp.PermissionOption, operation string) (w *waiting, res Resolution, fwd *Forwarded, err error) {
	cfg := f.config()
	timeoutRes := Resolution{Outcome: acp.OutcomeSelected, OptionID: OptRejectOnce}
	if cfg.TimeoutCancels {
		timeoutRes = Resolution{Outcome: acp.OutcomeCancelled}
	}
	a := s.Agent()
	id := newID()
	meta := Meta{
		ApprovalID: id, Agent: a.Name(), SessionID: s.ID(), ToolCallID: toolCallID,
		Tool: call.Tool, Specifier: d.Verdict.Specifier, Paths: call.Paths, SubCommands: d.Verdict.SubCommands,
		MatchedRule: d.Verdict.Rule, Source: string(d.Verdict.Source), Reason: d.Verdict.Reason, Breaker: d.Verdict.Breaker,
		Mode: string(d.Mode), SuggestedRules: f.suggestFor(call, d), Operation: operation,
		Sandbox: d.Sandbox,
	}
	if a.RejectAborts() && operation == "" {
		meta.RejectEndsTurn = true
	}
	if meta.Tool == "" {
		meta.Tool = "unknown"
	}
	// The tool call and the agent's options are the child's words: its
	// _meta["acp-bridge"] goes (only the bridge's own, in fwd.Meta, is shown).
	toolCall, ok := a.StripForeign(toolCall, "permission request tool call")
	if !ok {
		toolCall = json.RawMessage(`{}`)
	}
	options = a.StripOptions(options)
	fwd = &Forwarded{SessionID: s.ID(), ToolCall: toolCall, Options: options}
	if ctx.Err() != nil {
		// The child withdrew the request or went away before it could be
		// shown: nobody is left to answer, so no card.
		fwd.Meta, fwd.created = meta, time.Now()
		return nil, Resolution{Outcome: acp.OutcomeCancelled, By: s.WithdrawnBy(), At: fwd.created}, fwd, nil
	}
	appr, err := f.Broker.Open(Ticket{
		ID: id, SessionID: s.ID(), Agent: a.Name(), Timeout: cfg.Timeout, TimeoutResolution: timeoutRes, Data: fwd,
	})
	if err != nil {
		return nil, Resolution{}, nil, fmt.Errorf("open approval: %w", err)
	}
	if !appr.Expires.IsZero() {
		meta.ExpiresAt = appr.Expires.UTC().Format(timeFormat)
	}
	fwd.Meta = meta
	fwd.created = appr.Created

	// Show it to the editor; its answer resolves the approval (first wins).
	shown, err := f.Editor.Ask(context.WithoutCancel(ctx), fwd.Params())
	if err != nil {
		_ = f.Broker.Resolve(id, Resolution{Outcome: acp.OutcomeCancelled, By: policy.SourceEditorGone})
	}
	return &waiting{id: id, appr: appr, shown: shown, shownOK: err == nil, fwd: fwd}, Resolution{}, fwd, nil
}

// then calls k, on a deep worker, with the approval's one resolution: the
// editor's answer, any other surface's, the timeout, or the child
// withdrawing the request (ctx ends). No goroutine waits meanwhile: the
// approval's resolution (Broker.Then), the editor's answer (Asked.OnDone)
// and ctx's end (context.AfterFunc) each run a callback that resolves the
// approval or hands the rest to a deep worker (deepGo). What a pending card holds is w, the approval and these
// callbacks.
func (w *waiting) then(ctx context.Context, f *Flow, s Session, k func(Resolution)) {
	var editorAnswered atomic.Bool
	stop := context.AfterFunc(ctx, func() {
		// The child withdrew the request ($/cancel_request) or went away.
		_ = f.Broker.Resolve(w.id, Resolution{Outcome: acp.OutcomeCancelled, By: s.WithdrawnBy()})
	})
	if w.shownOK {
		w.shown.OnDone(func() {
			editorAnswered.Store(true)
			deepGo(func() { f.takeEditorAnswer(w.id, w.shown) })
		})
	}
	f.Broker.Then(w.appr, func() {
		stop()
		deepGo(func() {
			res := w.appr.Resolution()
			if w.shown != nil && !editorAnswered.Load() {
				// Resolved elsewhere (another surface, timeout, cancel,
				// exit): the editor's request is moot; withdraw it.
				w.shown.Withdraw()
			}
			k(res)
		})
	})
}

// takeEditorAnswer reads the editor's answer (its Done is closed) and
// resolves approval id with it (a no-op, logged, if something else resolved
// it first).
func (f *Flow) takeEditorAnswer(id string, shown Asked) {
	ans, err := shown.Answer()
	r := Resolution{By: policy.SourceUser}
	switch {
	case err != nil && errors.Is(err, ErrEditorGone):
		r = Resolution{Outcome: acp.OutcomeCancelled, By: policy.SourceEditorGone}
	case err != nil:
		f.log().Warn("editor answered the permission request with an error; treated as cancelled", zap.Error(err))
		r.Outcome = acp.OutcomeCancelled
	default:
		r.Outcome, r.OptionID, r.Rule, r.Scope, r.Reason = ans.Outcome, ans.OptionID, ans.Rule, ans.Scope, ans.Reason
	}
	if rerr := f.Broker.Resolve(id, r); rerr != nil {
		f.log().Debug("editor answer came after the approval was resolved", zap.String("approval", id), zap.Error(rerr))
	}
}

// Respond resolves a pending approval with a person's answer from any
// surface (_acp-bridge/approvals/respond): the first answer wins; a later
// one gets an error naming who answered first; an option the card did not
// offer is refused.
func (f *Flow) Respond(approvalID, optionID, rule, scope, reason string) error {
	if why := f.config().BypassDisabled; why != "" && optionID == OptBypass {
		return acp.Errorf(acp.CodeInvalidParams, "approval %s: %s cannot be chosen: %s", approvalID, OptBypass, why)
	}
	if a, ok := f.Broker.Get(approvalID); ok {
		if fwd, ok := a.Data.(*Forwarded); ok && !fwd.Offers(optionID) {
			return acp.Errorf(acp.CodeInvalidParams, "approval %s offers no option %q (offered: %s)", approvalID, optionID, fwd.OptionIDs())
		}
	}
	err := f.Broker.Resolve(approvalID, Resolution{
		Outcome: acp.OutcomeSelected, OptionID: optionID, By: policy.SourceUser, Rule: rule, Scope: scope, Reason: reason,
	})
	if err != nil {
		return &acp.Error{Code: acp.CodeResourceNotFound, Message: err.Error()}
	}
	return nil
}

// Pending is one approval waiting for a person, as approvals/list shows it.
type Pending struct {
	Approval *Approval
	Shown    *Forwarded
}

// Pending lists the approvals waiting for a person, oldest first.
func (f *Flow) Pending() []Pending {
	var out []Pending
	for _, a := range f.Broker.List() {
		if fwd, ok := a.Data.(*Forwarded); ok {
			out = append(out, Pending{Approval: a, Shown: fwd})
		}
	}
	return out
}

// Bridge option ids (see docs/extension-surface.md).
const (
	OptAllowOnce    = "acp-bridge:allow_once"
	OptAllowSession = "acp-bridge:allow_session"
	OptAllowAlways  = "acp-bridge:allow_always"
	OptRejectOnce   = "acp-bridge:reject_once"
	OptRejectStop   = "acp-bridge:reject_and_stop"
	OptRejectAlways = "acp-bridge:reject_always"
	OptBypass       = "acp-bridge:bypass"
	AgentOptPrefix  = "agent:"
)

// Options lists what the person can choose, in design.md's order.
//
// A circuit breaker's card (a protected file, rm -rf ~, ...) offers no grant
// (session, always, bypass): a breaker asks whatever allows the call, so a
// grant would never take effect.
func Options(agent string, call policy.Call, agentOpts []acp.PermissionOption, v policy.Verdict) []acp.PermissionOption {
	understood := call.Tool != ""
	breaker := v.Source == policy.SourceBreaker
	out := []acp.PermissionOption{{OptionID: OptAllowOnce, Name: "Allow once", Kind: acp.KindAllowOnce}}
	if understood && !breaker {
		out = append(out, acp.PermissionOption{OptionID: OptAllowSession, Name: "Allow for this session", Kind: acp.KindAllowAlways},
			acp.PermissionOption{OptionID: OptAllowAlways, Name: "Always allow", Kind: acp.KindAllowAlways})
	}
	out = append(out, acp.PermissionOption{OptionID: OptRejectOnce, Name: "Deny", Kind: acp.KindRejectOnce},
		acp.PermissionOption{OptionID: OptRejectStop, Name: "Deny and stop the turn", Kind: acp.KindRejectOnce})
	if understood {
		out = append(out, acp.PermissionOption{OptionID: OptRejectAlways, Name: "Always deny", Kind: acp.KindRejectAlways})
	}
	if agentOpts != nil && !breaker {
		out = append(out, acp.PermissionOption{OptionID: OptBypass, Name: "Bypass permissions for " + agent, Kind: acp.KindAllowAlways})
	}
	for _, o := range agentExtras(call, agentOpts) {
		out = append(out, acp.PermissionOption{OptionID: AgentOptPrefix + o.OptionID, Name: o.Name, Kind: o.Kind, Meta: o.Meta})
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
