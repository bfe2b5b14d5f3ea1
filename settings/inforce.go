package settings

import "sort"

// InForce is one mode or rule the settings put in force, with where it
// comes from: what a rules manager lists (every source, the workspace file
// included).
type InForce struct {
	// Kind is "mode" (permissions.defaultMode or agents.<name>.mode),
	// "bypass" (agents.<name>.bypassPermissions) or "rule".
	Kind string `json:"kind"`
	// List is allow, ask or deny for a rule.
	List string `json:"list,omitempty"`
	// Value is the mode, "true" for a bypass, the rule's text.
	Value string `json:"value"`
	// Agent is "" for what applies to every agent.
	Agent string `json:"agent,omitempty"`
	// Source is the layer: default, user, workspace, env or editor.
	Source string `json:"source"`
	File   string `json:"file,omitempty"`
}

// inForce lists the modes, bypasses and rules of the merged settings, each
// from the heaviest layer that sets it (layers lightest first, the
// workspace layer as restricted by trust).
func inForce(layers []*layer, rules []Rule, cfg Config) []InForce {
	var out []InForce
	var mode *layer
	agentMode := map[string]*layer{}
	agentBypass := map[string]*layer{}
	for _, l := range layers {
		if l == nil {
			continue
		}
		if l.defaultMode != nil {
			mode = l
		}
		for name, a := range l.agents {
			if a.mode != nil {
				agentMode[name] = l
			}
			if a.bypass != nil {
				agentBypass[name] = l
			}
		}
	}
	if mode != nil {
		out = append(out, InForce{Kind: "mode", Value: cfg.Permissions.DefaultMode, Source: mode.name, File: mode.file})
	}
	names := make([]string, 0, len(cfg.Agents))
	for n := range cfg.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := cfg.Agents[n]
		if l := agentMode[n]; l != nil && a.Mode != "" {
			out = append(out, InForce{Kind: "mode", Value: a.Mode, Agent: n, Source: l.name, File: l.file})
		}
		if l := agentBypass[n]; l != nil && a.BypassPermissions {
			out = append(out, InForce{Kind: "bypass", Value: "true", Agent: n, Source: l.name, File: l.file})
		}
	}
	add := func(r Rule) {
		out = append(out, InForce{Kind: "rule", List: r.List, Value: r.Text, Agent: r.Agent, Source: r.Layer, File: r.File})
	}
	for _, r := range rules {
		add(r)
	}
	for _, n := range names {
		for _, r := range cfg.Agents[n].Rules {
			add(r)
		}
	}
	return out
}
