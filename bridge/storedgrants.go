package bridge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"

	"go.uber.org/zap"
	"go.yaml.in/yaml/v3"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// Grants stored in the bridge's own config files (the user file and the
// workspace's .acp-bridge.yaml), so an editor can list and revoke them next
// to its own settings: a grant the bridge stored when the editor could not
// must never be invisible.
const (
	MethodGrantsStored       = wire.GrantsStored
	MethodGrantsRemoveStored = wire.GrantsRemoveStored
)

type storedRule = wire.StoredRule

type storedBypass = wire.StoredBypass

// grantsStored answers _acp-bridge/grants/stored: {} -> {rules, bypass,
// inForce, pending}.
func (b *Bridge) grantsStored() (any, error) {
	snap := b.snapshot()
	rules := []storedRule{}
	add := func(r settings.Rule) {
		if r.File == "" || (r.Layer != settings.LayerUser && r.Layer != settings.LayerWorkspace) {
			return
		}
		rules = append(rules, storedRule{List: r.List, Rule: r.Text, Agent: r.Agent, Scope: r.Layer, File: r.File})
	}
	for _, r := range snap.Rules {
		add(r)
	}
	for _, name := range snap.AgentNames() {
		a, _ := snap.Agent(name)
		for _, r := range a.Rules {
			add(r)
		}
	}
	bypass := []storedBypass{}
	for _, file := range snap.Sources {
		scope := settings.ScopeUser
		if b.opts.WorkspaceDir != "" && filepath.Clean(file) == filepath.Join(b.opts.WorkspaceDir, settings.WorkspaceFileName) {
			scope = settings.ScopeWorkspace
		}
		for _, agent := range bypassAgentsIn(file) {
			bypass = append(bypass, storedBypass{Agent: agent, Scope: scope, File: file})
		}
	}
	// inForce: every mode and rule in force with its source (trust.go);
	// pending: what the workspace file would loosen once approved.
	return map[string]any{"rules": rules, "bypass": bypass, "inForce": b.inForce(), "pending": snap.WorkspaceTrust.Pending}, nil
}

// bypassAgentsIn lists the agents a settings file (YAML or JSON) sets
// bypassPermissions: true for. An unreadable file lists none (the settings
// loader reports its problems).
func bypassAgentsIn(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var doc struct {
		Agents map[string]struct {
			BypassPermissions bool `yaml:"bypassPermissions"`
		} `yaml:"agents"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	for name, a := range doc.Agents {
		if a.BypassPermissions {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// grantsRemoveStored answers _acp-bridge/grants/removeStored:
// {kind: "rule"|"bypass", scope, agent?, list?, rule?} -> {removed: true, file}.
// The file is edited atomically (settings.Store.RemoveRule) and the runtime
// copy of the grant, if any, goes too.
func (b *Bridge) grantsRemoveStored(params json.RawMessage) (any, error) {
	var p persistParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(MethodGrantsRemoveStored, err)
	}
	if b.store == nil {
		return nil, acp.Errorf(acp.CodeInternalError, "the bridge has no settings store")
	}
	g := settings.Grant{Kind: p.Kind, Scope: p.Scope, Agent: p.Agent, List: p.List, Rule: p.Rule}
	file, err := b.store.RemoveRule(g)
	if errors.Is(err, settings.ErrRuleNotFound) {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "%v", err)
	}
	if err != nil {
		return nil, acp.InvalidParams(MethodGrantsRemoveStored, err)
	}
	b.dropRuntimeGrant(g)
	b.log.Info("grant removed from the bridge's config file", zap.String("file", file), zap.String("kind", g.Kind), zap.String("rule", g.Rule), zap.String("agent", g.Agent))
	return wire.GrantsRemoveStoredResult{Removed: true, File: file}, nil
}
