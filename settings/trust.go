package settings

import (
	"fmt"
	"github.com/acp-bridge/acp-bridge/policy"
	"slices"
	"strings"
)

// WorkspaceTrust says whether the workspace file's loosening settings apply,
// and what of that file the current Snapshot leaves out.
type WorkspaceTrust struct {
	// Trusted is the trust the Snapshot was built with.
	Trusted bool
	// Ignored lists each setting of the workspace file that does not apply,
	// in file order. Empty when nothing was left out.
	Ignored []IgnoredSetting
	// Pending is set when the workspace is trusted but its file is not the
	// version that was approved (approval.go): the file then only narrows.
	Pending *PendingApproval
}

// IgnoredSetting is one workspace setting the Snapshot leaves out.
type IgnoredSetting struct {
	Key    string `json:"key"`            // e.g. "agents.pwn.command", "permissions.allow"
	File   string `json:"file"`           // the workspace file
	Line   int    `json:"line,omitempty"` // 1-based line (YAML), else 0
	Reason string `json:"reason"`
	// Value is what the file sets there (e.g. "bypassPermissions", the
	// allow rule's text, the agent's command), when known.
	Value string `json:"value,omitempty"`
}

// Loosening is the short form of an ignored setting: its key and the value
// it would set, e.g. "permissions.defaultMode bypassPermissions".
func (i IgnoredSetting) Loosening() string {
	if i.Value == "" {
		return i.Key
	}
	return i.Key + " " + i.Value
}

func (i IgnoredSetting) String() string {
	where := i.File
	if i.Line > 0 {
		where = fmt.Sprintf("%s:%d", i.File, i.Line)
	}
	return fmt.Sprintf("%s: %s: %s", where, i.Key, i.Reason)
}

// Reasons, shared by the messages below.
const (
	untrustedReason  = "ignored until the workspace is trusted: a workspace file may only narrow the policy"
	neverFromWSAudit = "never read from a workspace file, trusted or not: set audit.path in the user config file, --config, ACP_BRIDGE_AUDIT_PATH or the editor's user settings"
	neverFromWSLog   = "never read from a workspace file, trusted or not: set log.file in the user config file, --config, ACP_BRIDGE_LOG_FILE, --log-file or the editor's user settings"
	// neverFromWSTelemetry: a repository must not choose where the
	// decisions (commands, paths) are sent.
	neverFromWSTelemetry = "never read from a workspace file, trusted or not: set telemetry.* in the user config file, --config, ACP_BRIDGE_TELEMETRY_* or the managed settings"
)

// StricterOrEqualMode tells whether mode w is at least as strict as mode t
// (canonical names): an untrusted workspace may set w where the trusted
// settings say t. The order is declared once, policy.AtLeastAsStrict.
func StricterOrEqualMode(w, t string) bool {
	return policy.AtLeastAsStrict(policy.Mode(w), policy.Mode(t))
}

// timeoutStrictness orders timeout outcomes: cancel (the turn stops) is
// stricter than reject (the turn goes on).
func stricterOrEqualOutcome(w, t string) bool {
	return w == t || (w == OutcomeCancel && t == OutcomeReject)
}

// restrictWorkspace returns the part of the workspace layer ws that applies
// and what was left out. base is the merge of every other layer (what the
// settings would be without the workspace file). Whatever the trust, the
// audit path and the log file never come from the workspace file. Untrusted,
// only narrowing stays: deny and ask rules (global, and of agents the other
// layers configure), stricter modes and timeout outcome, an agent's
// bypassPermissions: false.
func restrictWorkspace(ws *layer, base Config, trusted bool) (*layer, []IgnoredSetting) {
	if ws == nil {
		return nil, nil
	}
	var ignored []IgnoredSetting
	ignore := func(reason string, path ...string) {
		_, line := ws.where(path)
		ignored = append(ignored, IgnoredSetting{Key: strings.Join(path, "."), File: ws.file, Line: line, Reason: reason})
	}
	// ignoreV is ignore with the value the file sets.
	ignoreV := func(value, reason string, path ...string) {
		ignore(reason, path...)
		ignored[len(ignored)-1].Value = value
	}
	out := *ws
	if ws.auditPath != nil {
		out.auditPath = nil
		ignore(neverFromWSAudit, "audit", "path")
	}
	if ws.logFile != nil {
		out.logFile = nil
		ignore(neverFromWSLog, "log", "file")
	}
	if len(ws.hooks) > 0 {
		out.hooks = nil
		ignore(neverHooks, "hooks")
	}
	if tl := ws.telemetry; tl.enabled != nil || tl.endpoint != nil || tl.protocol != nil || tl.headers != nil || tl.logInput != nil {
		// A repository must not send the decisions (commands, paths) elsewhere.
		out.telemetry = telemetryLayer{}
		ignore(neverFromWSTelemetry, "telemetry")
	}
	if trusted {
		return &out, sortIgnored(ignored)
	}

	// Untrusted: start from nothing and keep what narrows.
	keep := layer{name: ws.name, file: ws.file, root: ws.root, source: ws.source, where: ws.where, empty: ws.empty}
	if ws.defaultAgent != nil {
		ignoreV(*ws.defaultAgent, untrustedReason+" (it picks which agent runs)", "defaultAgent")
	}
	if ws.defaultMode != nil {
		if StricterOrEqualMode(*ws.defaultMode, base.Permissions.DefaultMode) {
			keep.defaultMode = ws.defaultMode
		} else {
			ignoreV(*ws.defaultMode, fmt.Sprintf("%s mode is not stricter than %s (the mode of the trusted settings); %s", *ws.defaultMode, base.Permissions.DefaultMode, untrustedReason), "permissions", "defaultMode")
		}
	}
	for _, r := range ws.rules {
		if r.list == ListAllow {
			ignoreV(r.text, fmt.Sprintf("allow rule %q %s", r.text, untrustedReason), "permissions", "allow")
			continue
		}
		keep.rules = append(keep.rules, r)
	}
	if ws.cancelUnasked != nil {
		if *ws.cancelUnasked {
			keep.cancelUnasked = ws.cancelUnasked
		} else {
			ignoreV("false", untrustedReason+" (it lets a turn go on after the agent ran a denied call unasked)", "permissions", "cancelOnUnaskedDeny")
		}
	}
	if ws.continueDeny != nil {
		ignoreV(fmt.Sprint(*ws.continueDeny), untrustedReason+" (it makes the bridge prompt the agent on its own)", "permissions", "continueAfterDeny")
	}
	if len(ws.additionalDirs) > 0 {
		ignoreV(strings.Join(ws.additionalDirs, ", "), fmt.Sprintf("%s %s", strings.Join(ws.additionalDirs, ", "), untrustedReason), "permissions", "additionalDirectories")
	}
	if ws.timeoutSeconds != nil {
		ignoreV(fmt.Sprint(*ws.timeoutSeconds), untrustedReason, "approvals", "timeoutSeconds")
	}
	if ws.timeoutOutcome != nil {
		if stricterOrEqualOutcome(*ws.timeoutOutcome, base.Approvals.TimeoutOutcome) {
			keep.timeoutOutcome = ws.timeoutOutcome
		} else {
			ignoreV(*ws.timeoutOutcome, fmt.Sprintf("%s is not stricter than %s; %s", *ws.timeoutOutcome, base.Approvals.TimeoutOutcome, untrustedReason), "approvals", "timeoutOutcome")
		}
	}
	if ws.auditMaxSizeMB != nil {
		ignoreV(fmt.Sprint(*ws.auditMaxSizeMB), untrustedReason, "audit", "maxSizeMB")
	}
	if ws.logLevel != nil {
		ignoreV(*ws.logLevel, untrustedReason, "log", "level")
	}
	if ws.maxLineBytes != nil {
		ignoreV(fmt.Sprint(*ws.maxLineBytes), untrustedReason, "maxLineBytes")
	}
	if ws.startAgents != nil {
		if *ws.startAgents {
			ignoreV("true", untrustedReason+" (it starts agents without a person asking)", "startAgentsOnLaunch")
		} else {
			keep.startAgents = ws.startAgents
		}
	}
	keep.sandbox = restrictSandbox(ws.sandbox, base.Sandbox.Network, ignoreV, "sandbox")
	for _, name := range sortedKeys(ws.agents) {
		a := ws.agents[name]
		baseAgent, known := base.Agents[name]
		if !known {
			what, value := "an agent defined only in the workspace file", "(new agent)"
			if a.command != nil {
				cmd := strings.Join(append([]string{*a.command}, a.args...), " ")
				what += fmt.Sprintf(" (command %q)", cmd)
				value = "command " + cmd
			}
			ignoreV(value, what+" runs only in a trusted workspace", "agents", name)
			continue
		}
		ka := &agentLayer{}
		field := func(set bool, key string, value func() string) {
			if set {
				ignoreV(value(), untrustedReason, "agents", name, key)
			}
		}
		field(a.command != nil, "command", func() string { return *a.command })
		field(a.argsSet, "args", func() string { return strings.Join(a.args, " ") })
		field(len(a.env) > 0, "env", func() string { return strings.Join(sortedKeys(a.env), ", ") })
		field(a.cwd != nil, "cwd", func() string { return *a.cwd })
		field(a.family != nil, "family", func() string { return *a.family })
		field(a.initTimeout != nil, "initTimeoutSeconds", func() string { return fmt.Sprint(*a.initTimeout) })
		if a.startOnLaunch != nil {
			if *a.startOnLaunch {
				ignoreV("true", untrustedReason+" (it starts the agent without a person asking)", "agents", name, "startOnLaunch")
			} else {
				ka.startOnLaunch = a.startOnLaunch
			}
		}
		if a.bypass != nil {
			if *a.bypass {
				ignoreV("true", untrustedReason, "agents", name, "bypassPermissions")
			} else {
				ka.bypass = a.bypass
			}
		}
		if a.mode != nil {
			trustedMode := baseAgent.EffectiveMode(base.Permissions.DefaultMode)
			if StricterOrEqualMode(*a.mode, trustedMode) {
				ka.mode = a.mode
			} else {
				ignoreV(*a.mode, fmt.Sprintf("%s mode is not stricter than %s (the agent's mode in the trusted settings); %s", *a.mode, trustedMode, untrustedReason), "agents", name, "mode")
			}
		}
		agentNet := base.Sandbox.Network
		if baseAgent.Sandbox.Network != "" {
			agentNet = baseAgent.Sandbox.Network
		}
		ka.sandbox = restrictSandbox(a.sandbox, agentNet, ignoreV, "agents", name, "sandbox")
		for _, r := range a.rules {
			if r.list == ListAllow {
				ignoreV(r.text, fmt.Sprintf("allow rule %q %s", r.text, untrustedReason), "agents", name, "permissions", "allow")
				continue
			}
			ka.rules = append(ka.rules, r)
		}
		if keep.agents == nil {
			keep.agents = map[string]*agentLayer{}
		}
		keep.agents[name] = ka
	}
	return &keep, sortIgnored(ignored)
}

// sortIgnored puts entries in file order (line, then key).
func sortIgnored(in []IgnoredSetting) []IgnoredSetting {
	slices.SortStableFunc(in, func(a, b IgnoredSetting) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Key, b.Key)
	})
	return in
}

// baseConfig merges every layer but the workspace one: what the settings
// say without the workspace file, against which "stricter" is judged.
func (s *Store) baseConfig(user, env *layer, editor editorSet) Config {
	c, _, _ := merge(append([]*layer{s.defaults, user, env}, editor.trustedLayers()...), s.opts.UserConfigDir)
	return c
}

// WorkspaceTrusted tells whether the workspace is trusted now.
func (s *Store) WorkspaceTrusted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trusted
}

// SetWorkspaceTrusted grants (true) or revokes (false) trust in the
// workspace and rebuilds the settings at once, as a settings change does:
// OnChange subscribers hear of it. If the workspace file's trusted settings
// make the merged result invalid, the trust is recorded (a later fix of the
// file applies) but the previous Snapshot stays and the error lists every
// problem. changed is false when the trust was already that.
func (s *Store) SetWorkspaceTrusted(trusted bool) (changed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trusted == trusted {
		return false, nil
	}
	s.trusted = trusted
	snap, problems := s.build(s.user, s.workspace, s.env, s.editor, nil)
	if err := asError(problems); err != nil {
		return true, fmt.Errorf("workspace trust %v: %w", trusted, err)
	}
	s.commitLocked(snap)
	return true, nil
}

// networkRank orders sandbox networks from the strictest.
var networkRank = map[string]int{"none": 0, "loopback": 1, "domains": 2, "all": 3}

// restrictSandbox keeps of an untrusted workspace's sandbox settings what
// narrows: turning the sandbox on, refusing to run unconfined, a stricter
// network. Turning it off, running unconfined, a looser network and more
// writable paths are ignored and reported.
func restrictSandbox(sl sandboxLayer, trustedNetwork string, ignore func(value, reason string, path ...string), path ...string) sandboxLayer {
	at := func(k string) []string { return append(append([]string(nil), path...), k) }
	var keep sandboxLayer
	if sl.enabled != nil {
		if *sl.enabled {
			keep.enabled = sl.enabled
		} else {
			ignore("false", untrustedReason+" (it turns the OS sandbox off)", at("enabled")...)
		}
	}
	if sl.onUnavailable != nil {
		if *sl.onUnavailable == SandboxRefuse {
			keep.onUnavailable = sl.onUnavailable
		} else {
			ignore(*sl.onUnavailable, untrustedReason+" (it lets agents run without the OS sandbox)", at("onUnavailable")...)
		}
	}
	if sl.network != nil {
		if trustedNetwork == "" {
			trustedNetwork = "all"
		}
		if networkRank[*sl.network] <= networkRank[trustedNetwork] {
			keep.network = sl.network
		} else {
			ignore(*sl.network, fmt.Sprintf("network %s is looser than %s; %s", *sl.network, trustedNetwork, untrustedReason), at("network")...)
		}
	}
	if len(sl.allowWrite) > 0 {
		ignore(strings.Join(sl.allowWrite, ", "), fmt.Sprintf("%s %s", strings.Join(sl.allowWrite, ", "), untrustedReason), at("allowWrite")...)
	}
	if len(sl.allowDomains) > 0 {
		ignore(strings.Join(sl.allowDomains, ", "), fmt.Sprintf("%s %s", strings.Join(sl.allowDomains, ", "), untrustedReason), at("allowDomains")...)
	}
	return keep
}
