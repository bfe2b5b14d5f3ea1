package bridge

import (
	"fmt"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/settings"
)

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
	for _, r := range runtime {
		if r.List == settings.ListAllow && snap.Managed.ManagedRulesOnly {
			continue // "Always allow" from a card: not a managed rule
		}
		rules = append(rules, r)
	}
	pol, errs := policy.Compile(rules)
	for _, e := range errs {
		b.log.Warn("bad permission rule: it is ignored and can only make the bridge ask more", zap.String("agent", agent), zap.Error(e))
	}
	p.compiled[agent] = pol
	return pol, snap
}

// Decide implements permission.Decider.
func (p *policyDecider) Decide(req DecisionRequest) (policy.Verdict, policy.Env) {
	in, fs := p.input(req)
	defer fs.seal()
	return policy.Evaluate(in), in.Env
}

// Answer implements permission.Answerer: the verdict, the firmness of a
// default ask, the card's suggestions and the session grant from one
// reading of the call (policy.Decide).
func (p *policyDecider) Answer(req DecisionRequest) (policy.Answer, policy.Env) {
	in, fs := p.input(req)
	defer fs.seal()
	return policy.Decide(in), in.Env
}

// input is what the engine judges req with: the agent's compiled rules,
// the session's grants, the mode and bypass the managed tier leaves. Its
// file system remembers what it read until the caller seals it, when the
// decision is made (callFS).
func (p *policyDecider) input(req DecisionRequest) (policy.Input, *callFS) {
	pol, snap := p.policy(req.Agent)
	fs := newCallFS()
	env := policy.Env{
		Cwd: req.Cwd, ProjectRoot: p.b.opts.WorkspaceDir, Home: p.b.home,
		AdditionalDirectories: append(append([]string(nil), snap.Config.Permissions.AdditionalDirectories...), req.AdditionalDirectories...),
		FS:                    fs,
		ProtectedPaths:        p.b.policyFiles(),
	}
	if env.Cwd == "" {
		env.Cwd = env.ProjectRoot
	}
	var grants *policy.Policy
	if req.Session != nil && !snap.Managed.ManagedRulesOnly {
		// Under allowManagedPermissionRulesOnly a card's session grant is
		// one more lower allow rule: it does not count.
		grants = req.Session.Grants()
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
	// A default ask is firm when bypassPermissions would not allow it
	// either, or, where the managed tier forbids bypassPermissions, the
	// mode a request in bypassPermissions falls to.
	firmMode := policy.ModeBypass
	if snap.Managed.ModeAllowed(string(policy.ModeBypass)) != nil {
		bypass = false
		firmMode = managedFloor(snap.Managed)
	}
	if snap.Managed.ModeAllowed(string(mode)) != nil {
		mode = managedFloor(snap.Managed)
	}
	return policy.Input{
		Call: req.Call, Mode: mode, Env: env, Policy: pol, Session: grants, AgentBypass: bypass, FirmMode: firmMode,
	}, fs
}

// policyFiles are the settings' files and directories (the engine
// protects them from the agents' writes), the settings files that were
// read (Sources) and the audit log (an agent must not rewrite the record of
// what it did).
func (b *Bridge) policyFiles() []string {
	if b.store == nil {
		return b.opts.Programs
	}
	return append(append(b.store.PolicyFiles(), snapshotPolicyFiles(b.snapshot())...), b.opts.Programs...)
}

// programs are what runs outside every sandbox with the bridge's rights:
// its own executable and companion (Options.Programs) and the decision
// hooks' programs (settings.Store.HookPrograms).
func (b *Bridge) programs() []string {
	out := append([]string(nil), b.opts.Programs...)
	if b.store != nil {
		out = append(out, b.store.HookPrograms()...)
	}
	return out
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

// normalize and shellJoin are the readers of a child's calls; tests replace
// them to make them fail.
var (
	normalize = profiles.Normalize
	shellJoin = policy.ShellJoin
)
