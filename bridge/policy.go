package bridge

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/settings"
)

// DecisionRequest is one call to decide.
type DecisionRequest struct {
	Agent                 string
	SessionID             string
	Call                  policy.Call
	Mode                  policy.Mode
	Cwd                   string
	AdditionalDirectories []string
	Session               *session
}

// Decider decides allow, deny or ask for one call. The policy engine is the
// production Decider; tests may plug in their own.
type Decider interface {
	Decide(req DecisionRequest) (policy.Verdict, policy.Env)
}

// policyDecider evaluates the settings' rules, the runtime grants and the
// session's grants with the approvals engine. Compiled policies are cached
// per settings snapshot and agent.
type policyDecider struct {
	b *Bridge

	mu       sync.Mutex
	snap     *settings.Snapshot
	runtime  int // len(b.runtimeRules) the cache was built with
	compiled map[string]*policy.Policy
}

func newPolicyDecider(b *Bridge) *policyDecider {
	return &policyDecider{b: b, compiled: map[string]*policy.Policy{}}
}

func (p *policyDecider) policy(agent string) (*policy.Policy, *settings.Snapshot) {
	b := p.b
	snap := b.snapshot()
	b.mu.Lock()
	runtime := append([]policy.RuleText(nil), b.runtimeRules...)
	b.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.snap != snap || p.runtime != len(runtime) {
		p.snap, p.runtime = snap, len(runtime)
		p.compiled = map[string]*policy.Policy{}
	}
	if pol, ok := p.compiled[agent]; ok {
		return pol, snap
	}
	var rules []policy.RuleText
	for _, r := range snap.AgentRules(agent) {
		rules = append(rules, ruleText(r))
	}
	rules = append(rules, runtime...)
	pol, errs := policy.Compile(rules)
	for _, e := range errs {
		b.log.Warn("bad permission rule: it is ignored and can only make the bridge ask more", zap.String("agent", agent), zap.Error(e))
	}
	p.compiled[agent] = pol
	return pol, snap
}

func (p *policyDecider) Decide(req DecisionRequest) (policy.Verdict, policy.Env) {
	pol, snap := p.policy(req.Agent)
	env := policy.Env{
		Cwd: req.Cwd, ProjectRoot: p.b.opts.WorkspaceDir, Home: p.b.home,
		AdditionalDirectories: append(append([]string(nil), snap.Config.Permissions.AdditionalDirectories...), req.AdditionalDirectories...),
		FS:                    policy.OSFS{},
		ProtectedPaths:        p.b.policyFiles(),
	}
	if env.Cwd == "" {
		env.Cwd = env.ProjectRoot
	}
	var grants *policy.Policy
	if req.Session != nil {
		grants, _ = req.Session.grantPolicy()
	}
	cfg := snap.Config.Agents[req.Agent]
	// The agent's bypass holds unless the session was explicitly put in a
	// stricter mode (plan, dontAsk), which then wins.
	bypass := cfg.BypassPermissions || p.b.runtimeBypassFor(req.Agent)
	if bypass && (req.Mode == policy.ModePlan || req.Mode == policy.ModeDontAsk) {
		bypass = false
	}
	// The managed tier (docs/org.md) holds here, where every decision is
	// made, whatever mode or bypass reached the request.
	mode := req.Mode
	if snap.Managed.ModeAllowed(string(policy.ModeBypass)) != nil {
		bypass = false
	}
	if snap.Managed.ModeAllowed(string(mode)) != nil {
		mode = managedFloor(snap.Managed)
	}
	v := policy.Evaluate(policy.Input{
		Call: req.Call, Mode: mode, Env: env, Policy: pol, Session: grants, AgentBypass: bypass,
	})
	return v, env
}

// policyFiles are the settings' files and directories (the engine
// protects them from the agents' writes), the settings files that were
// read (Sources) and the audit log (an agent must not rewrite the record of
// what it did).
func (b *Bridge) policyFiles() []string {
	if b.store == nil {
		return nil
	}
	return append(b.store.PolicyFiles(), snapshotPolicyFiles(b.snapshot())...)
}

// snapshotPolicyFiles: the settings files a snapshot was read from and its
// audit log.
func snapshotPolicyFiles(snap *settings.Snapshot) []string {
	if snap == nil {
		return nil
	}
	out := append([]string(nil), snap.Sources...)
	if snap.Config.Audit.Path != "" {
		out = append(out, snap.Config.Audit.Path)
	}
	return out
}

// ruleText carries a settings rule, with its origin, into the engine.
func ruleText(r settings.Rule) policy.RuleText {
	layer := r.Layer
	if r.Agent != "" {
		layer += " agent:" + r.Agent
	}
	return policy.RuleText{List: r.List, Text: r.Text, Origin: policy.Origin{Layer: layer, File: r.File, Root: r.Root}}
}

// ruleProblems compiles every agent's rules and returns each bad rule once.
// Bad rules never widen what is allowed (the engine drops a bad allow rule
// and makes a bad deny/ask rule's tool ask), but people must hear of them.
func ruleProblems(snap *settings.Snapshot) []string {
	seen := map[string]bool{}
	var out []string
	// the settings layer names each bad rule's file, line and key
	// (docs/policy.md, "Rules that cannot match"); the compile below
	// catches anything it did not list.
	for _, fe := range snap.RuleWarnings {
		if msg := fe.Error(); !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	for _, name := range snap.AgentNames() {
		var rules []policy.RuleText
		for _, r := range snap.AgentRules(name) {
			rules = append(rules, ruleText(r))
		}
		_, errs := policy.Compile(rules)
		for _, e := range errs {
			if warned(snap, e.Rule) {
				continue
			}
			if msg := e.Error(); !seen[msg] {
				seen[msg] = true
				out = append(out, msg)
			}
		}
	}
	return out
}

// warned: the settings layer already reported rule r.
func warned(snap *settings.Snapshot, r policy.RuleText) bool {
	for _, fe := range snap.RuleWarnings {
		if strings.Contains(fe.Msg, fmt.Sprintf("rule %q ", r.Text)) {
			return true
		}
	}
	return false
}

// reportRuleProblems logs bad rules (if log) and tells the editor with
// _acp-bridge/rules/invalid (if notify and there are any).
func (b *Bridge) reportRuleProblems(log, notify bool) {
	problems := ruleProblems(b.snapshot())
	if log {
		for _, p := range problems {
			b.log.Warn("bad permission rule: ignored if an allow rule; if a deny or ask rule, calls of its tool ask", zap.String("problem", p))
		}
	}
	if notify && len(problems) > 0 {
		b.notifyEditor(acp.MethodRulesInvalid, map[string]any{"problems": problems})
	}
}

// SourceEngineError is the source of an ask the bridge made because the
// decision path failed (a panic in the engine or in a Decider, or a verdict
// that is none of allow, deny, ask): the person decides, never the failure.
const SourceEngineError policy.Source = "engine-error"

// decideSafely runs the Decider and turns a panic, or a verdict that says
// neither allow, deny nor ask, into an ask (engineFailed): the call gets a
// card (never a -32603 with nothing shown).
func (b *Bridge) decideSafely(s *session, req DecisionRequest) (v policy.Verdict, env policy.Env) {
	defer func() {
		if r := recover(); r != nil {
			v, env = b.engineFailed(s, req, env, fmt.Sprintf("panic: %v", r), debug.Stack())
		}
	}()
	v, env = b.decider.Decide(req)
	switch v.Decision {
	case policy.Allow, policy.Deny, policy.Ask:
	default:
		v, env = b.engineFailed(s, req, env, fmt.Sprintf("verdict %q is none of allow, deny, ask", v.Decision), nil)
	}
	return v, env
}

// engineFailed is the verdict for a call the decision path could not judge:
// ask (deny in dontAsk, where nobody is asked), with a reason naming the
// failure. The failure is logged with the call, and an audit line records
// it at once (the card's outcome gets its own line).
func (b *Bridge) engineFailed(s *session, req DecisionRequest, env policy.Env, what string, stack []byte) (policy.Verdict, policy.Env) {
	callJSON, _ := json.Marshal(req.Call)
	b.log.Error("the policy engine failed on a call; asking the person instead",
		zap.String("agent", req.Agent), zap.String("session", req.SessionID), zap.String("tool", req.Call.Tool),
		zap.ByteString("call", callJSON), zap.String("failure", what), zap.ByteString("stack", stack))
	v := policy.Verdict{Decision: policy.Ask, Source: SourceEngineError, Specifier: specifierOf(req.Call),
		Reason: "the policy engine failed on this call (" + what + "); a person must decide"}
	if req.Mode == policy.ModeDontAsk {
		v.Decision = policy.Deny
		v.Reason = "the policy engine failed on this call (" + what + "); dontAsk mode: denied"
	}
	if env.Cwd == "" {
		env = policy.Env{Cwd: req.Cwd, ProjectRoot: b.opts.WorkspaceDir, Home: b.home, AdditionalDirectories: req.AdditionalDirectories}
	}
	if s != nil && v.Decision == policy.Ask {
		// A deny is audited by its caller, as any deny is.
		b.audit(s, req.Call, decision{verdict: v, mode: req.Mode, env: env}, "", "", string(policy.Ask), "", string(SourceEngineError), "", 0)
	}
	return v, env
}

// specifierOf renders a call like a rule, for a card the engine could not
// render; it cannot fail.
func specifierOf(c policy.Call) (spec string) {
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

// suggestSafely is policy.SuggestRules, with a panic costing only the
// suggestions (logged), never the card.
func (b *Bridge) suggestSafely(call policy.Call, env policy.Env) (out []string) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("suggesting rules for a call failed; the card offers none", zap.String("tool", call.Tool),
				zap.String("failure", fmt.Sprint(r)), zap.ByteString("stack", debug.Stack()))
			out = nil
		}
	}()
	return policy.SuggestRules(call, env)
}

// normalizeSafely is profiles.Normalize, with a panic logged and reported
// as failure (the call is then asked about as an engine failure, never
// judged as an unknown call, which bypass would allow).
func (b *Bridge) normalizeSafely(a *agentRT, toolCall json.RawMessage) (call policy.Call, failure string, err error) {
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("reading a tool call failed; the person will be asked", zap.ByteString("toolCall", toolCall),
				zap.String("failure", fmt.Sprint(r)), zap.ByteString("stack", debug.Stack()))
			call, err = policy.Call{Input: toolCall}, fmt.Errorf("tool call not readable: %v", r)
			failure = fmt.Sprintf("panic reading the tool call: %v", r)
		}
	}()
	call, err = normalize(a.familyOf(), toolCall)
	return call, "", err
}

// normalize and shellJoin are the readers of a child's calls; tests replace
// them to make them fail.
var (
	normalize = profiles.Normalize
	shellJoin = policy.ShellJoin
)
