package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// The permission flow (read, decide, ask, apply, record) lives in package
// permission; the bridge hands it the session's facts (session and agentRT
// implement permission.Session and permission.Agent), an editor that can
// ask and notify (editorAsker), and the grants that outlive a session
// (grants.go).

// Names the bridge's tests and callers use, now the permission package's.
type (
	// DecisionRequest is one call handed to a Decider.
	DecisionRequest = permission.DecisionRequest
	// Decider decides allow, deny or ask for one call.
	Decider = permission.Decider
)

// CodePermissionDenied answers a child's fs/terminal request that the policy
// or the person refused.
const CodePermissionDenied = permission.CodePermissionDenied

// SourceEngineError is the source of an ask made because the decision path failed.
const SourceEngineError = permission.SourceEngineError

// Bridge option ids (see docs/extension-surface.md).
const (
	optAllowOnce    = permission.OptAllowOnce
	optAllowSession = permission.OptAllowSession
	optAllowAlways  = permission.OptAllowAlways
	optRejectOnce   = permission.OptRejectOnce
	optRejectStop   = permission.OptRejectStop
	optRejectAlways = permission.OptRejectAlways
	optBypass       = permission.OptBypass
)

// newFlow wires the permission flow to b.
func newFlow(b *Bridge) *permission.Flow {
	return &permission.Flow{
		Stages: append(append([]permission.Stage{permission.PolicyStage{Decider: b.decider},
			hooks.Stage{Hooks: b.hooksInForce, Workspace: b.opts.WorkspaceDir}}, b.opts.Stages...), permission.SandboxBoundStage{}),
		Broker:      b.broker,
		Editor:      editorAsker{b},
		Grants:      bridgeGrants{b},
		Audit:       b.opts.Audit,
		Log:         b.log,
		Generation:  func() any { return b.snapshot() },
		ProjectRoot: b.opts.WorkspaceDir,
		Home:        b.home,
		Config: func() permission.Config {
			snap := b.snapshot()
			c := permission.Config{
				Timeout:             snap.Config.Approvals.Timeout,
				TimeoutCancels:      snap.Config.Approvals.TimeoutOutcome == "cancel",
				CancelOnUnaskedDeny: snap.Config.Permissions.CancelOnUnaskedDeny,
				TellAgentDenials:    snap.Config.Permissions.TellAgentDenials || snap.Config.Permissions.ContinueAfterDeny,
			}
			if err := snap.Managed.ModeAllowed(string(policy.ModeBypass)); err != nil {
				c.BypassDisabled = err.Error() // the managed tier's (bridge/managed.go)
			}
			return c
		},
	}
}

// editorAsker is the editor as the permission flow sees it.
type editorAsker struct{ b *Bridge }

func (e editorAsker) Notify(method string, params any) { e.b.notifyEditor(method, params) }

func (e editorAsker) Ask(ctx context.Context, params json.RawMessage) (permission.Asked, error) {
	if e.b.editor == nil {
		return nil, fmt.Errorf("no editor: %w", permission.ErrEditorGone)
	}
	p, err := e.b.editor.Start(ctx, acp.MethodRequestPermission, params)
	if err != nil {
		return nil, err
	}
	return shownRequest{e.b, p}, nil
}

// shownRequest is a session/request_permission the editor was sent.
type shownRequest struct {
	b *Bridge
	p *acp.Pending
}

func (r shownRequest) Done() <-chan struct{} { return r.p.Done() }
func (r shownRequest) Withdraw()             { r.b.editor.CancelRequest(r.p.ID()) }
func (r shownRequest) OnDone(f func())       { r.p.OnDone(f) }

func (r shownRequest) Answer() (permission.EditorAnswer, error) {
	var resp struct {
		Outcome acp.PermissionOutcome `json:"outcome"`
		Meta    json.RawMessage       `json:"_meta"`
	}
	if err := r.p.Wait(context.Background(), &resp); err != nil {
		if isClosed(err) {
			return permission.EditorAnswer{}, fmt.Errorf("%w: %w", permission.ErrEditorGone, err)
		}
		return permission.EditorAnswer{}, err
	}
	var m struct {
		Rule   string `json:"rule"`
		Scope  string `json:"scope"`
		Reason string `json:"reason"`
	}
	_ = acp.BridgeMeta(acp.Object{"_meta": resp.Meta}, &m)
	return permission.EditorAnswer{Outcome: resp.Outcome.Outcome, OptionID: resp.Outcome.OptionID, Rule: m.Rule, Scope: m.Scope, Reason: m.Reason}, nil
}

// bridgeGrants applies "always" rules and bypass at once and persists them (grants.go).
type bridgeGrants struct{ b *Bridge }

func (g bridgeGrants) Always(agent, list, rule, scope string) {
	g.b.grantAlways(agent, list, rule, scope)
}
func (g bridgeGrants) Bypass(agent, scope string) { g.b.grantBypass(agent, scope) }

// session as permission.Session.

func (s *session) ID() string                      { return s.id }
func (s *session) Agent() permission.Agent         { return s.agent }
func (s *session) Mode() policy.Mode               { return s.agent.b.effectiveMode(s) }
func (s *session) Cwd() string                     { return s.cwd }
func (s *session) AdditionalDirectories() []string { return s.addDirs }
func (s *session) Cancelled() bool                 { return s.isCancelled() }
func (s *session) Grant(rule string) error         { return s.grant(rule) }
func (s *session) MarkAsked(toolCallID string)     { s.markAsked(toolCallID) }
func (s *session) CancelTurn(why string)           { s.agent.b.cancelSession(s.id, why) }

func (s *session) Grants() *policy.Policy {
	p, _ := s.grantPolicy()
	return p
}

func (s *session) MergeToolCall(raw json.RawMessage) json.RawMessage { return s.cache.Merge(raw) }

// WithdrawnBy says why a child's request ctx ended: the agent went away (its
// connection is gone) or it withdrew the request ($/cancel_request).
func (s *session) WithdrawnBy() policy.Source {
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

// agentRT as permission.Agent.

func (a *agentRT) Name() string { return a.name }

func (a *agentRT) Normalize(toolCall json.RawMessage) (policy.Call, error) {
	return normalize(a.familyOf(), toolCall)
}

func (a *agentRT) RejectAborts() bool {
	prof, _ := a.profileOf()
	return prof.RejectAborts
}

func (a *agentRT) SandboxNote(call policy.Call, cwd string, viaEditor bool) string {
	return a.sandboxNote(call, cwd, viaEditor)
}

func (a *agentRT) StripForeign(raw json.RawMessage, what string) (json.RawMessage, bool) {
	return a.stripForeign(raw, what)
}

func (a *agentRT) StripOptions(opts []acp.PermissionOption) []acp.PermissionOption {
	return a.stripOptions(opts)
}

// SandboxPermits is sandbox.Spec.Permits of the agent's bound: the Spec it
// runs in when confined, else the Spec it would run in (SandboxPlan.Bound);
// when that cannot be computed there is no bound (docs/sandbox.md).
func (a *agentRT) SandboxPermits(write bool, path string) (bool, string) {
	a.mu.Lock()
	spec := a.sandbox.Bound
	a.mu.Unlock()
	op := sandbox.OpRead
	if write {
		op = sandbox.OpWrite
	}
	return spec.Permits(op, path)
}

// hooksInForce are the decision hooks of the settings of the moment
// (docs/org.md, "Decision hooks").
func (b *Bridge) hooksInForce() []hooks.Hook {
	snap := b.snapshot()
	cfg := snap.Config.Hooks
	out := make([]hooks.Hook, len(cfg))
	env := snap.HookEnv
	if env == nil {
		env = []string{} // never the bridge's whole environment
	}
	// Command hooks run blind to what agents write wherever bubblewrap
	// works, whether or not the settings sandbox any agent
	// (sandbox.HookArgv; red team 15b: a per-agent sandbox under a global
	// sandbox.enabled: false left hooks unwrapped). What is hidden is every
	// tree the settings let an agent write, and, read at each consultation,
	// every tree a running agent's sandbox still lets it write (settings
	// reloaded since it started apply at its next start; red team 15b: a
	// hook reloaded into such a tree is then hidden from itself, and the
	// call asks). Without bubblewrap, the settings' check of what a hook's
	// command names is all there is.
	var wrap func([]string) ([]string, error)
	if sandbox.Probe().Available {
		mask, keep := snap.HookMask, snap.HookKeep
		wrap = func(argv []string) ([]string, error) {
			return sandbox.HookArgv(append(slices.Clip(mask), b.runningWritable()...), keep, argv)
		}
	}
	for i, h := range cfg {
		out[i] = hooks.Hook{Name: h.Name, Command: h.Command, URL: h.URL, Timeout: h.Timeout, Tier: h.Tier, Env: env, Wrap: wrap}
		if h.URL != "" {
			// Its HTTP request is the companion's (Options.AuthZEN).
			out[i].Post = b.opts.AuthZEN
		}
	}
	return out
}

// runningWritable are the trees the sandboxes of the running agents let
// them write, as each was computed when its process started.
func (b *Bridge) runningWritable() []string {
	b.mu.Lock()
	agents := make([]*agentRT, 0, len(b.agents))
	for _, a := range b.agents {
		agents = append(agents, a)
	}
	b.mu.Unlock()
	var out []string
	for _, a := range agents {
		a.mu.Lock()
		if a.proc != nil && a.sandbox.Spec != nil {
			out = append(out, a.sandbox.Spec.Writable...)
		}
		a.mu.Unlock()
	}
	return out
}
