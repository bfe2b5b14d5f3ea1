package bridge

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// grantAlways applies an "Always allow/deny" rule at once (runtime copy) and
// persists it: through the editor if it can, else into the bridge's own file.
func (b *Bridge) grantAlways(agent, list, rule, scope string) {
	if rule == "" {
		b.log.Warn("always-" + list + " chosen with no rule to store; applied once only")
		return
	}
	if scope == "" {
		scope = "user"
	}
	root := b.opts.WorkspaceDir
	b.mu.Lock()
	b.runtimeRules = append(b.runtimeRules, policy.RuleText{List: list, Text: rule,
		Origin: policy.Origin{Layer: "grant:" + scope, Root: root}})
	b.mu.Unlock()
	go b.persist(settings.Grant{Kind: "rule", Scope: scope, List: list, Rule: rule})
}

// grantBypass sets the agent's bypass for its later requests and persists it.
func (b *Bridge) grantBypass(agent, scope string) {
	if scope == "" {
		scope = "user"
	}
	if err := b.snapshot().Managed.ModeAllowed(string(policy.ModeBypass)); err != nil {
		b.log.Warn("bypass not granted", zap.String("agent", agent), zap.Error(err))
		return
	}
	b.mu.Lock()
	b.runtimeBypass[agent] = true
	b.mu.Unlock()
	go b.persist(settings.Grant{Kind: "bypass", Scope: scope, Agent: agent})
}

type persistParams = wire.SettingsPersistParams

// persist asks the editor to store a grant; if it cannot, the bridge writes
// its own config file (atomically, in the settings package).
func (b *Bridge) persist(g settings.Grant) {
	ctx, cancel := context.WithTimeout(b.lifetime, b.opts.PersistTimeout)
	defer cancel()
	if g.Scope == "workspace" {
		// The file this writes is the person's grant, not the agent's doing (created.go).
		targets, missing := b.beginOwnWrites()
		stored := false
		defer func() { b.endOwnWrites(targets, missing, stored) }()
		b.persistTo(ctx, g, &stored)
		return
	}
	b.persistTo(ctx, g, new(bool))
}

// persistTo is persist's body; *stored is set when the grant was stored.
func (b *Bridge) persistTo(ctx context.Context, g settings.Grant, stored *bool) {
	var res struct {
		Persisted bool `json:"persisted"`
	}
	err := b.editor.Call(ctx, acp.MethodSettingsPersist, persistParams{Kind: g.Kind, Scope: g.Scope, Agent: g.Agent, List: g.List, Rule: g.Rule}, &res)
	if err == nil && res.Persisted {
		b.log.Info("grant persisted by the editor", zap.String("kind", g.Kind), zap.String("rule", g.Rule), zap.String("agent", g.Agent), zap.String("scope", g.Scope))
		*stored = true
		return
	}
	if err == nil {
		err = fmt.Errorf("editor answered persisted=false")
	}
	if persistDeclined(err) {
		b.dropRuntimeGrant(g)
		b.log.Info("the person declined to store the grant; it is dropped", zap.String("kind", g.Kind), zap.String("rule", g.Rule), zap.String("agent", g.Agent))
		return
	}
	if b.store == nil {
		b.log.Error("grant could not be persisted: no settings store", zap.Error(err))
		return
	}
	path, perr := b.store.Persist(g)
	if perr != nil {
		b.log.Error("grant could not be persisted; it holds until the bridge restarts", zap.NamedError("editor", err), zap.Error(perr))
		return
	}
	*stored = true
	b.log.Info("grant written to the bridge's config file (the editor could not store it)",
		zap.String("path", path), zap.String("kind", g.Kind), zap.String("rule", g.Rule), zap.NamedError("editor", err))
}
