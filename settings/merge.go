package settings

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acp-bridge/acp-bridge/policy"
)

// defaultsLayer is the shipped defaults as a layer.
func defaultsLayer(executable string) *layer {
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	no, yes := false, true
	return &layer{
		name:   LayerDefault,
		source: "built-in defaults",
		where:  func([]string) (string, int) { return "built-in defaults", 0 },
		agents: map[string]*agentLayer{
			DefaultAgentName: {command: str(executable), args: []string{"demo-agent"}, argsSet: true},
		},
		defaultAgent:   str(DefaultAgentName),
		defaultMode:    str(ModeDefault),
		timeoutSeconds: num(DefaultTimeoutSeconds),
		timeoutOutcome: str(OutcomeReject),
		auditPath:      str(""),
		auditMaxSizeMB: num(DefaultAuditMaxSizeMB),
		logLevel:       str(DefaultLogLevel),
		logFile:        str(""),
		maxLineBytes:   num(DefaultMaxLineBytes),
		startAgents:    &no,
		sandbox:        sandboxLayer{enabled: &yes, onUnavailable: str(SandboxWarn), network: str("all")},
		cancelUnasked:  &yes,
	}
}

// provenance remembers which layers set what, to name files in errors
// about the merged result.
type provenance struct {
	defaultAgent *layer
	agents       map[string][]*layer
}

// merge folds layers (lightest first) into a Config and the global rules.
// Scalars: the heaviest layer that sets one wins. Agents: merged per name,
// field by field (env per variable). Rules and additionalDirectories:
// concatenated, each rule keeping its origin.
func merge(layers []*layer, userConfigDir string) (Config, []Rule, provenance) {
	c := Config{Agents: map[string]Agent{}}
	var rules []Rule
	var timeoutSeconds, maxSizeMB int
	pv := provenance{agents: map[string][]*layer{}}
	for _, l := range layers {
		if l == nil {
			continue
		}
		if l.defaultAgent != nil {
			c.DefaultAgent, pv.defaultAgent = *l.defaultAgent, l
		}
		set(&c.Permissions.DefaultMode, l.defaultMode)
		set(&c.Permissions.CancelOnUnaskedDeny, l.cancelUnasked)
		set(&c.Permissions.TellAgentDenials, l.tellDenials)
		set(&c.Permissions.ContinueAfterDeny, l.continueDeny)
		set(&timeoutSeconds, l.timeoutSeconds)
		set(&c.Approvals.TimeoutOutcome, l.timeoutOutcome)
		set(&c.Audit.Path, l.auditPath)
		set(&maxSizeMB, l.auditMaxSizeMB)
		set(&c.Log.Level, l.logLevel)
		set(&c.Log.File, l.logFile)
		set(&c.MaxLineBytes, l.maxLineBytes)
		set(&c.StartAgentsOnLaunch, l.startAgents)
		set(&c.Sandbox.Enabled, l.sandbox.enabled)
		set(&c.Sandbox.OnUnavailable, l.sandbox.onUnavailable)
		set(&c.Sandbox.Network, l.sandbox.network)
		set(&c.Telemetry.Enabled, l.telemetry.enabled)
		set(&c.Telemetry.Endpoint, l.telemetry.endpoint)
		set(&c.Telemetry.Protocol, l.telemetry.protocol)
		set(&c.Telemetry.LogInput, l.telemetry.logInput)
		if l.telemetry.headers != nil {
			c.Telemetry.Headers = maps.Clone(l.telemetry.headers)
		}
		for _, d := range l.sandbox.allowWrite {
			if !slices.Contains(c.Sandbox.AllowWrite, d) {
				c.Sandbox.AllowWrite = append(c.Sandbox.AllowWrite, d)
			}
		}
		for _, d := range l.sandbox.allowDomains {
			if !slices.Contains(c.Sandbox.AllowDomains, d) {
				c.Sandbox.AllowDomains = append(c.Sandbox.AllowDomains, d)
			}
		}
		for _, d := range l.additionalDirs {
			if !slices.Contains(c.Permissions.AdditionalDirectories, d) {
				c.Permissions.AdditionalDirectories = append(c.Permissions.AdditionalDirectories, d)
			}
		}
		for _, r := range l.rules {
			rules = append(rules, l.rule(r, ""))
		}
		if l.name == LayerUser || l.name == LayerManaged {
			c.Hooks = append(c.Hooks, l.hooks...)
		}
		for _, name := range sortedKeys(l.agents) {
			al := l.agents[name]
			if l.name == LayerEnv {
				// Variable names are upper case: match a configured agent
				// whatever its case.
				for existing := range c.Agents {
					if strings.EqualFold(existing, name) {
						name = existing
						break
					}
				}
			}
			pv.agents[name] = append(pv.agents[name], l)
			a := c.Agents[name]
			a.Name = name
			set(&a.Command, al.command)
			if al.argsSet {
				a.Args = al.args
			}
			if len(al.env) > 0 {
				env := make(map[string]string, len(a.Env)+len(al.env))
				maps.Copy(env, a.Env)
				maps.Copy(env, al.env)
				a.Env = env
			}
			set(&a.Cwd, al.cwd)
			set(&a.Family, al.family)
			set(&a.Mode, al.mode)
			set(&a.BypassPermissions, al.bypass)
			set(&a.StartOnLaunch, al.startOnLaunch)
			if al.initTimeout != nil {
				a.InitTimeout = time.Duration(*al.initTimeout) * time.Second
			}
			for _, r := range al.rules {
				a.Rules = append(a.Rules, l.rule(r, name))
			}
			if al.sandbox.enabled != nil {
				v := *al.sandbox.enabled
				a.Sandbox.Enabled = &v
			}
			set(&a.Sandbox.Network, al.sandbox.network)
			a.Sandbox.AllowWrite = append(slices.Clip(a.Sandbox.AllowWrite), al.sandbox.allowWrite...)
			a.Sandbox.AllowDomains = append(slices.Clip(a.Sandbox.AllowDomains), al.sandbox.allowDomains...)
			c.Agents[name] = a
		}
	}
	c.Approvals.Timeout = time.Duration(timeoutSeconds) * time.Second
	c.Audit.MaxSizeBytes = int64(maxSizeMB) << 20
	if c.Audit.Path == "" && userConfigDir != "" {
		c.Audit.Path = filepath.Join(userConfigDir, "audit.jsonl")
	}
	return c, rules, pv
}

func (l *layer) rule(r ruleEntry, agent string) Rule {
	return Rule{List: r.list, Text: r.text, Layer: l.name, Agent: agent, File: l.file, Root: l.root}
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Validate checks a merged configuration and returns every problem, each a
// *FieldError naming its key. Load and every change run it after the
// per-layer checks, which already name the file of each bad value.
func Validate(c Config) []error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case c.DefaultAgent == "":
		add("defaultAgent", "required")
	case len(c.Agents) > 0:
		if _, ok := c.Agents[c.DefaultAgent]; !ok {
			add("defaultAgent", "%q is not a configured agent (configured: %s)", c.DefaultAgent, strings.Join(sortedKeys(c.Agents), ", "))
		}
	default:
		add("defaultAgent", "%q is not a configured agent (none configured)", c.DefaultAgent)
	}
	for _, name := range sortedKeys(c.Agents) {
		a := c.Agents[name]
		p := "agents." + name
		if !agentNameRE.MatchString(name) {
			add(p, "agent name must start with a letter or digit and hold only letters, digits, - and _")
		}
		if strings.TrimSpace(a.Command) == "" {
			add(p+".command", "required")
		}
		if a.Mode != "" {
			if _, ok := NormalizeMode(a.Mode); !ok {
				add(p+".mode", "%s", modeProblem(a.Mode))
			}
		}
		errs = append(errs, validateRules(p+".permissions", a.Rules)...)
	}
	if _, ok := NormalizeMode(c.Permissions.DefaultMode); !ok {
		add("permissions.defaultMode", "%s", modeProblem(c.Permissions.DefaultMode))
	}
	if c.Approvals.Timeout <= 0 {
		add("approvals.timeoutSeconds", "must be > 0")
	}
	if !slices.Contains(timeoutOutcomes, c.Approvals.TimeoutOutcome) {
		add("approvals.timeoutOutcome", "%s", oneOfProblem(c.Approvals.TimeoutOutcome, timeoutOutcomes))
	}
	if c.Audit.MaxSizeBytes <= 0 {
		add("audit.maxSizeMB", "must be > 0")
	}
	if !slices.Contains(logLevels, c.Log.Level) {
		add("log.level", "%s", oneOfProblem(c.Log.Level, logLevels))
	}
	if c.MaxLineBytes < MinMaxLineBytes {
		add("maxLineBytes", "must be >= %d", MinMaxLineBytes)
	}
	return errs
}

// validateRules checks rules' lists and that each has text; grammar is the
// policy engine's (ruleWarnings).
func validateRules(key string, rules []Rule) []error {
	var errs []error
	for _, r := range rules {
		if !slices.Contains(ruleLists, r.List) {
			errs = append(errs, &FieldError{Key: key, Msg: fmt.Sprintf("rule %q is in list %s", r.Text, oneOfProblem(r.List, ruleLists))})
			continue
		}
		if strings.TrimSpace(r.Text) == "" {
			errs = append(errs, &FieldError{Key: key + "." + r.List, Msg: "empty rule"})
		}
	}
	return errs
}

// ruleWarnings are the rules of every layer that can never take effect as
// written (policy.CheckRule: a mis-cased or misspelt tool, a malformed
// specifier), each under its key with its file and the fix. They are
// warnings, not load errors, on purpose: refusing the file would keep the
// previous settings, dropping every other rule the same edit added, and a
// broken workspace file would stop the bridge. In force, the policy engine
// drops a bad allow rule and turns a bad deny or ask rule into an ask for
// every call of its tool, so a broken deny never loosens anything
// (docs/policy.md, "Rules that cannot match").
func ruleWarnings(c Config, global []Rule) []*FieldError {
	var out []*FieldError
	check := func(key string, rules []Rule) {
		for _, r := range rules {
			if !slices.Contains(ruleLists, r.List) || strings.TrimSpace(r.Text) == "" {
				continue // a load error already
			}
			if err := policy.CheckRule(r.List, r.Text); err != nil {
				out = append(out, &FieldError{Source: r.File, Key: key + "." + r.List,
					Msg: fmt.Sprintf("rule %q can never take effect as written (as a deny or ask rule, every call of its tool asks instead): %v", r.Text, err)})
			}
		}
	}
	check("permissions", global)
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		check("agents."+name+".permissions", c.Agents[name].Rules)
	}
	return out
}
