package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
)

// Request is one call being decided: what was read, and the verdict so far.
// The flow fills it; each Stage reads it and may replace Verdict.
type Request struct {
	Session Session
	Call    policy.Call
	// Failure says why the call could not be read (a panic in the reader, a
	// command that could not be quoted): the engine is not consulted and
	// the call is asked about as an engine failure.
	Failure string
	// Operation is the method of a child's fs/* or terminal/create ("" for
	// a session/request_permission).
	Operation string
	// Resolved is, for fs/*, the path acted on, resolved before the decision;
	// for terminal/create, the directory the terminal runs in (its cwd,
	// resolved), "" when it names none.
	Resolved string
	// Mode and Env are what the call is judged under (Env set by the policy stage).
	Mode policy.Mode
	Env  policy.Env
	// Verdict is the verdict so far (zero before the first stage).
	Verdict policy.Verdict
	// OPADecisionID is OPA's own decision id, set by the OPA stage when its
	// verdict replaced the one so far (orgpolicy.PermissionStage); a later
	// stage that replaces the verdict clears it.
	OPADecisionID string
	// Firm: the policy's ask is not the mode's default but a doubt that
	// holds in every mode (bypassPermissions included: a command it cannot
	// check, a host no parser agrees on). A later stage (a hook, OPA) never
	// loosens a firm ask.
	Firm bool
	// Rules are the rules the policy read with its verdict (the card's
	// suggestions, the session grant); nil when the Decider answers only a
	// verdict or the policy was not consulted.
	Rules *Rules
}

// Rules are what the policy stage read for a card from the same reading of
// the call as its verdict (policy.Decide): the rules an "Always allow" /
// "Always deny" suggests, the rules an "Allow for this session" grants when
// the person does not edit the rule, and why reading them failed (a bug:
// both are then nil and the card offers none).
type Rules struct {
	Suggested    []string
	SessionGrant []string
	Failure      string
}

// Stage is one step of deciding. Decide returns the stage's verdict and
// true when it has a say (the verdict replaces the one so far), or false to
// leave the verdict as it is. Stages run in order, every one of them, each
// seeing the verdict of those before it; a stage that panics, or answers a
// verdict that is none of allow, deny, ask, leaves an engine-error ask in
// its place (deny in dontAsk) and the next stages still run. A stage must
// not block on a person: asking is the flow's job, after every stage.
type Stage interface {
	Name() string
	Decide(ctx context.Context, r *Request) (policy.Verdict, bool)
}

// DecisionRequest is one call handed to a Decider.
type DecisionRequest struct {
	Agent                 string
	SessionID             string
	Call                  policy.Call
	Mode                  policy.Mode
	Cwd                   string
	AdditionalDirectories []string
	Session               Session // nil when deciding outside a session (policy explain)
}

// Decider decides allow, deny or ask for one call: the policy engine over
// the settings' rules, the runtime grants and the session's grants, its
// modes and circuit breakers (bridge's policyDecider). Tests plug in their own.
type Decider interface {
	Decide(req DecisionRequest) (policy.Verdict, policy.Env)
}

// Answerer is a Decider that answers everything a card needs from one
// reading of the call (policy.Decide): the verdict, whether a default ask
// is firm, the suggested rules and the session grant. The policy stage
// prefers it; a plain Decider is asked a second time, under
// bypassPermissions, to tell a firm ask, and the suggestions and the grant
// are read again when a card needs them.
type Answerer interface {
	Decider
	Answer(req DecisionRequest) (policy.Answer, policy.Env)
}

// PolicyStage is the policy engine: rules (settings layers, runtime
// "always" grants, the session's grants), modes, bypass, circuit breakers
// and protected files, all in one policy.Evaluate (grants are weighed
// there, below deny rules and breakers, which is what keeps a grant from
// ever allowing what a deny or a breaker stops).
type PolicyStage struct{ Decider Decider }

// Name implements Stage.
func (PolicyStage) Name() string { return "policy" }

// Decide implements Stage. An unreadable call (r.Failure) is not judged.
func (p PolicyStage) Decide(_ context.Context, r *Request) (policy.Verdict, bool) {
	if r.Failure != "" {
		return r.Verdict, false
	}
	req := DecisionRequest{
		Agent: r.Session.Agent().Name(), SessionID: r.Session.ID(), Call: r.Call, Mode: r.Mode,
		Cwd: r.Session.Cwd(), AdditionalDirectories: r.Session.AdditionalDirectories(), Session: r.Session,
	}
	if a, ok := p.Decider.(Answerer); ok {
		ans, env := a.Answer(req)
		r.Env = env
		r.Firm = ans.Verdict.Decision == policy.Ask && ans.Verdict.Source == policy.SourceDefault && ans.Firm
		r.Rules = &Rules{Suggested: ans.Suggested, SessionGrant: ans.SessionGrant, Failure: ans.SuggestFailure}
		return ans.Verdict, true
	}
	v, env := p.Decider.Decide(req)
	r.Env = env
	if v.Decision == policy.Ask && v.Source == policy.SourceDefault {
		// Would bypassPermissions allow it? If not, the ask is a doubt,
		// not the mode's default: firm.
		req.Mode = policy.ModeBypass
		bv, _ := p.Decider.Decide(req)
		r.Firm = bv.Decision != policy.Allow
	}
	return v, true
}

// SandboxBoundStage holds fs/* (Request.Resolved: the path acted on) and
// terminal/create's cwd (read: the directory it runs in; red team 16) to what
// the agent's own sandbox permits (the same Spec the agent runs in; for an
// unconfined agent the Spec it would run in): outside it, only a person's
// answer on a card for this operation lets it through, whatever the mode,
// rule or grant allowed; the card offers no session or "always" grant (a
// breaker's card), and where nobody is asked (dontAsk, plan) it is denied.
type SandboxBoundStage struct{}

// Name implements Stage.
func (SandboxBoundStage) Name() string { return "sandbox-bound" }

// Decide implements Stage.
func (SandboxBoundStage) Decide(_ context.Context, r *Request) (policy.Verdict, bool) {
	if r.Resolved == "" || r.Verdict.Decision == policy.Deny {
		return r.Verdict, false
	}
	ok, why := r.Session.Agent().SandboxPermits(r.Operation == acp.MethodFSWriteTextFile, r.Resolved)
	if ok {
		return r.Verdict, false
	}
	breaker := "outside this agent's sandbox: " + why
	asksNobody := r.Mode == policy.ModeDontAsk || r.Mode == policy.ModePlan
	v := r.Verdict
	if v.Decision == policy.Ask && v.Source == policy.SourceBreaker && !asksNobody {
		// already a breaker's card (a protected file): it keeps its name
		// and says the sandbox too.
		v.Reason += "; also " + breaker
		return v, true
	}
	served := "the file service does it"
	if r.Operation == acp.MethodTerminalCreate {
		served = "the terminal runs there"
	}
	out := policy.Verdict{Decision: policy.Ask, Source: policy.SourceBreaker, Breaker: breaker, Specifier: v.Specifier,
		Reason: breaker + "; " + served + " only on a person's answer for this operation"}
	if asksNobody {
		out.Decision = policy.Deny
		out.Reason = breaker + " (" + string(r.Mode) + " mode asks nobody)"
	}
	return out, true
}

// Decision is a verdict plus what was evaluated, for cards and the audit log.
type Decision struct {
	Verdict policy.Verdict
	Mode    policy.Mode
	Env     policy.Env
	// Sandbox says what the OS sandbox still blocks of the call.
	Sandbox string
	// OPADecisionID is OPA's decision id when the OPA stage decided.
	OPADecisionID string
	// Rules are the policy stage's rules for the card, read with its
	// verdict (nil: read them when needed).
	Rules *Rules
}

// SourceEngineError is the source of an ask made because the decision path
// failed (a panic in a stage, or a verdict that is none of allow, deny,
// ask): the person decides, never the failure.
const SourceEngineError policy.Source = "engine-error"

// Decide runs the stages for call in s. A decision holds for the settings
// it was made under: if they changed while it was made (a deny rule added,
// trust withdrawn), it is made again under the new ones; settings that keep
// changing leave an allow as an ask.
func (f *Flow) Decide(ctx context.Context, s Session, call policy.Call, failure string) Decision {
	return f.decide(ctx, &Request{Session: s, Call: call, Failure: failure})
}

func (f *Flow) decide(ctx context.Context, proto *Request) Decision {
	for try := 0; ; try++ {
		var before any
		if f.Generation != nil {
			before = f.Generation()
		}
		r := *proto
		d := f.decideOnce(ctx, &r)
		if f.Generation == nil || f.Generation() == before {
			return d
		}
		if try == 2 {
			if d.Verdict.Decision == policy.Allow {
				d.Verdict.Decision = policy.Ask
				d.Verdict.Reason = "the settings changed while this call was being decided; asking (" + d.Verdict.Reason + ")"
			}
			return d
		}
		f.log().Info("settings changed while deciding; deciding again", zap.String("session", proto.Session.ID()), zap.String("tool", proto.Call.Tool))
	}
}

func (f *Flow) decideOnce(ctx context.Context, r *Request) Decision {
	r.Mode = r.Session.Mode()
	r.Verdict, r.Env, r.OPADecisionID, r.Firm, r.Rules = policy.Verdict{}, policy.Env{}, "", false, nil
	if r.Failure != "" {
		r.Verdict = f.engineFailed(r, r.Failure, nil)
	}
	for _, st := range f.Stages {
		id := r.OPADecisionID
		v, ok := f.runStage(ctx, st, r)
		switch {
		case !ok:
			r.OPADecisionID = id // no say: the id so far stands
		case r.OPADecisionID == id || v.Source == SourceEngineError:
			r.OPADecisionID = "" // this stage's verdict, not OPA's, stands
		}
		if ok {
			r.Verdict = v
		}
	}
	if r.Verdict.Decision == "" {
		// No stage had a say: nobody decided, so a person does.
		r.Verdict = f.engineFailed(r, "no stage decided", nil)
	}
	return Decision{Verdict: r.Verdict, Mode: r.Mode, Env: r.Env, OPADecisionID: r.OPADecisionID, Rules: r.Rules,
		Sandbox: r.Session.Agent().SandboxNote(r.Call, r.Env.Cwd, strings.HasPrefix(r.Operation, "fs/"))}
}

// runStage runs one stage; a panic, a broken verdict or, for a large call,
// a stage past its time budget (bound.go) becomes an engine-error ask.
func (f *Flow) runStage(ctx context.Context, st Stage, r *Request) (policy.Verdict, bool) {
	if callBytes(r.Call) > inlineCallBytes {
		return f.runStageBounded(ctx, st, r)
	}
	return f.runStageInline(ctx, st, r)
}

// runStageInline runs one stage on this goroutine.
func (f *Flow) runStageInline(ctx context.Context, st Stage, r *Request) (v policy.Verdict, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			v, ok = f.engineFailed(r, fmt.Sprintf("panic: %v", p), debug.Stack()), true
		}
	}()
	v, ok = st.Decide(ctx, r)
	if !ok {
		return v, false
	}
	switch v.Decision {
	case policy.Allow, policy.Deny, policy.Ask:
		return v, true
	}
	return f.engineFailed(r, fmt.Sprintf("verdict %q is none of allow, deny, ask", v.Decision), nil), true
}

// engineFailed is the verdict for a call the decision path could not judge:
// ask (deny in dontAsk, where nobody is asked), with a reason naming the
// failure. The failure is logged with the call, and an audit line records
// it at once (the card's outcome gets its own line).
func (f *Flow) engineFailed(r *Request, what string, stack []byte) policy.Verdict {
	callJSON, _ := json.Marshal(r.Call)
	f.log().Error("the policy engine failed on a call; asking the person instead",
		zap.String("agent", r.Session.Agent().Name()), zap.String("session", r.Session.ID()), zap.String("tool", r.Call.Tool),
		zap.ByteString("call", callJSON), zap.String("failure", what), zap.ByteString("stack", stack))
	v := policy.Verdict{Decision: policy.Ask, Source: SourceEngineError, Specifier: specifierOf(r.Call),
		Reason: "the policy engine failed on this call (" + what + "); a person must decide"}
	if r.Mode == policy.ModeDontAsk {
		v.Decision = policy.Deny
		v.Reason = "the policy engine failed on this call (" + what + "); dontAsk mode: denied"
	}
	if r.Env.Cwd == "" {
		r.Env = policy.Env{Cwd: r.Session.Cwd(), ProjectRoot: f.ProjectRoot, Home: f.Home, AdditionalDirectories: r.Session.AdditionalDirectories()}
	}
	if v.Decision == policy.Ask {
		// A deny is audited by its caller, as any deny is.
		f.audit(r.Session, r.Call, Decision{Verdict: v, Mode: r.Mode, Env: r.Env}, "", "", string(policy.Ask), "", string(SourceEngineError), "", 0)
	}
	return v
}

// specifierOf renders a call like a rule, for a card the engine could not
// render; it cannot fail.
func specifierOf(c policy.Call) string {
	tool := c.Tool
	if tool == "" {
		tool = "unknown"
	}
	arg := c.Command
	if arg == "" && len(c.Paths) > 0 {
		arg = c.Paths[0]
	}
	if arg == "" {
		return tool
	}
	return tool + "(" + arg + ")"
}

// suggestFor is the card's suggested rules for call decided as d: the
// Suggest hook when set, else what the policy stage read with its verdict,
// else policy.SuggestRules.
func (f *Flow) suggestFor(call policy.Call, d Decision) []string {
	if f.Suggest == nil && d.Rules != nil {
		if d.Rules.Failure != "" {
			f.log().Error("suggesting rules for a call failed; the card offers none", zap.String("tool", call.Tool),
				zap.String("failure", d.Rules.Failure))
		}
		return d.Rules.Suggested
	}
	return f.suggest(call, d.Env)
}

// suggest is the Suggest hook (policy.SuggestRules by default), with a
// panic costing only the suggestions (logged), never the card.
func (f *Flow) suggest(call policy.Call, env policy.Env) (out []string) {
	defer func() {
		if r := recover(); r != nil {
			f.log().Error("suggesting rules for a call failed; the card offers none", zap.String("tool", call.Tool),
				zap.String("failure", fmt.Sprint(r)), zap.ByteString("stack", debug.Stack()))
			out = nil
		}
	}()
	if f.Suggest != nil {
		return f.Suggest(call, env)
	}
	return policy.SuggestRules(call, env)
}

// Read reads a tool call through the agent's profile. A panic is logged
// and reported as failure (the call is then asked about as an engine
// failure, never judged as an unknown call, which bypass would allow).
func (f *Flow) Read(a Agent, toolCall json.RawMessage) (call policy.Call, failure string, err error) {
	defer func() {
		if r := recover(); r != nil {
			f.log().Error("reading a tool call failed; the person will be asked", zap.String("agent", a.Name()),
				zap.ByteString("toolCall", toolCall), zap.String("failure", fmt.Sprint(r)), zap.ByteString("stack", debug.Stack()))
			call, err = policy.Call{Input: toolCall}, fmt.Errorf("tool call not readable: %v", r)
			failure = fmt.Sprintf("panic reading the tool call: %v", r)
		}
	}()
	call, err = a.Normalize(toolCall)
	return call, "", err
}
