package settings

import (
	"fmt"
	"github.com/acp-bridge/acp-bridge/policy"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Layer names, lightest to heaviest. A Rule's Layer is one of these.
const (
	LayerDefault   = "default"
	LayerUser      = "user"
	LayerWorkspace = "workspace"
	LayerEnv       = "env"
	LayerEditor    = "editor"
)

// Rule lists.
const (
	ListAllow = "allow"
	ListAsk   = "ask"
	ListDeny  = "deny"
)

// Timeout outcomes of an approval nobody answered.
const (
	OutcomeReject = "reject"
	OutcomeCancel = "cancel"
)

// Modes, canonical names (Claude Code's).
const (
	ModeDefault     = "default"
	ModeAcceptEdits = "acceptEdits"
	ModePlan        = "plan"
	ModeDontAsk     = "dontAsk"
	ModeBypass      = "bypassPermissions"
)

// WorkspaceFileName is the workspace layer's file, in the workspace root.
const WorkspaceFileName = ".acp-bridge.yaml"

// EnvPrefix starts every environment variable this package reads.
const EnvPrefix = "ACP_BRIDGE_"

// Shipped defaults.
const (
	DefaultAgentName      = "demo"
	DefaultTimeoutSeconds = 300
	DefaultAuditMaxSizeMB = 50
	DefaultLogLevel       = "info"
	DefaultMaxLineBytes   = 64 << 20
	// MinMaxLineBytes is the smallest accepted maxLineBytes.
	MinMaxLineBytes = 4096
	// fallbackExecutable is the demo agent's command when the running
	// binary cannot be found.
	fallbackExecutable = "acp-bridge"
)

// Options says where Load finds each layer. Zero values pick the defaults.
type Options struct {
	// ConfigFile is --config: the user file, which must then exist and parse.
	ConfigFile string
	// UserConfigDir holds config.{yaml,yml,json,toml} and the default audit
	// log. Default: os.UserConfigDir()/acp-bridge.
	UserConfigDir string
	// WorkspaceDir holds .acp-bridge.yaml; "" means no workspace layer.
	WorkspaceDir string
	// Environ is the environment (KEY=VALUE). Default: os.Environ().
	Environ []string
	// Executable is the demo agent's command. Default: os.Executable(),
	// else "acp-bridge".
	Executable string
	// Logger gets reload errors and notes; default zap.NewNop().
	Logger *zap.Logger
	// WorkspaceTrusted lets the workspace file loosen the policy (allow
	// rules, agents, bypass, ...); false, the default, lets it only narrow.
	// See docs/settings.md "Workspace trust" and Store.SetWorkspaceTrusted.
	WorkspaceTrusted bool

	// managedFile and managedDropins are the managed tier's places
	// (ManagedPaths). Unexported: nothing outside this package moves them;
	// the package's tests point them at temporary files.
	managedFile, managedDropins string
	// claudeFile and claudeDropins are Claude Code's managed places
	// (ClaudeManagedPaths), imported into the tier.
	claudeFile, claudeDropins string
}

// Snapshot is one immutable, validated view of the merged settings. Never
// modify it (nor its maps and slices): every reader shares it.
type Snapshot struct {
	Config Config
	// HookEnv is the environment command hooks run with (hookpaths.go:
	// nothing an agent's tree can steer); nil when no hook has a command.
	HookEnv []string
	// HookMask and HookKeep are what a command hook's sandbox hides (every
	// tree an agent may write) and binds back read-only inside them (the
	// user config directory): sandbox.HookArgv. Set with HookEnv.
	HookMask, HookKeep []string
	// Rules are the global allow/ask/deny rules of every layer, in layer
	// order (lightest first), each with its origin.
	Rules []Rule
	// Sources are the files that were read, lightest first.
	Sources []string
	// WorkspaceTrust says whether the workspace was trusted and what of the
	// workspace file was left out.
	WorkspaceTrust WorkspaceTrust
	// EditorIgnored lists what of the editor's workspace layers does not
	// apply (editorlayers.go), in key order.
	EditorIgnored []IgnoredSetting
	// InForce lists every mode, bypass and rule in force with its source
	// (inforce.go).
	InForce []InForce
	// RuleWarnings are rules that can never take effect as written
	// (ruleWarnings): reported, not refused; the policy engine keeps them
	// failing closed.
	RuleWarnings []*FieldError
	// Managed is the managed tier (managed.go, docs/org.md): never nil.
	Managed *Managed
}

// Config is the merged configuration.
type Config struct {
	DefaultAgent        string
	Agents              map[string]Agent
	Permissions         Permissions
	Approvals           Approvals
	Audit               Audit
	Telemetry           Telemetry
	Log                 Log
	MaxLineBytes        int
	StartAgentsOnLaunch bool
	Sandbox             Sandbox
	// Hooks are the decision hooks, the user file's then the managed
	// tier's (hooks.go).
	Hooks []HookConfig
}

// Sandbox configures the OS sandbox agents run in (docs/sandbox.md).
type Sandbox struct {
	// Enabled: agents run sandboxed (default true).
	Enabled bool
	// OnUnavailable is what happens when the machine offers no sandbox:
	// SandboxWarn runs the agent unconfined with a warning on every
	// session; SandboxRefuse does not start it.
	OnUnavailable string
	// Network is "all" or "none".
	Network string
	// AllowWrite are more writable paths, absolute.
	AllowWrite []string
	// AllowDomains are hosts ("example.com", "*.example.com", an IP) the
	// network "domains" reaches besides the WebFetch allow rules' domains.
	AllowDomains []string
}

// Sandbox settings' values.
const (
	SandboxWarn   = "warn"
	SandboxRefuse = "refuse"
)

var (
	sandboxOnUnavailable = []string{SandboxWarn, SandboxRefuse}
	sandboxNetworks      = []string{"all", "none", "loopback", "domains"}
)

// Agent is one configured child agent.
type Agent struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	// Cwd is the agent's working directory, absolute; "" means the session's.
	Cwd    string
	Family string
	// Mode is the agent's canonical mode, "" when not set (use the global one).
	Mode              string
	BypassPermissions bool
	StartOnLaunch     bool
	// InitTimeout bounds the agent's initialize answer; 0 = the bridge's default (30 s).
	InitTimeout time.Duration
	// Rules are the agent's own rules (agents.<name>.permissions), every layer.
	Rules []Rule
	// Sandbox is the agent's own sandbox settings (agents.<name>.sandbox);
	// Snapshot.SandboxFor merges them with the global ones.
	Sandbox AgentSandbox
}

// AgentSandbox is what agents.<name>.sandbox sets; nil / "" = the global value.
type AgentSandbox struct {
	Enabled      *bool
	Network      string
	AllowWrite   []string
	AllowDomains []string
}

// EffectiveMode is the mode a new session of this agent starts in:
// bypassPermissions when BypassPermissions is set, else the agent's Mode,
// else global.
func (a Agent) EffectiveMode(global string) string {
	switch {
	case a.BypassPermissions:
		return ModeBypass
	case a.Mode != "":
		return a.Mode
	default:
		return global
	}
}

// Permissions holds the global permission settings other than rules.
type Permissions struct {
	// DefaultMode is canonical (aliases are resolved).
	DefaultMode string
	// TellAgentDenials: the calls the policy (a rule, a hook, OPA) denied
	// are named, with their reasons, at the start of the session's next
	// prompt to the agent. (A reason the person gave with a deny always is.)
	TellAgentDenials bool
	// ContinueAfterDeny: when an agent's turn ended after a deny in that
	// turn, the bridge sends it one follow-up prompt on the same session
	// naming what was refused and why, and the editor's prompt is answered
	// with the follow-up's stop reason (bridge/followup.go). It implies
	// TellAgentDenials for the policy's denials.
	ContinueAfterDeny bool
	// CancelOnUnaskedDeny: a tool call an agent ran without asking that the
	// policy denies cancels the turn (default true).
	CancelOnUnaskedDeny bool
	// AdditionalDirectories are absolute, deduplicated, every layer.
	AdditionalDirectories []string
}

// Rule is one allow/ask/deny rule and where it came from. Text is not
// parsed here: the policy engine compiles it.
type Rule struct {
	List  string // allow, ask or deny
	Text  string // e.g. "Bash(npm run test *)"
	Layer string // default, user, workspace, env or editor
	// Agent is "" for a global rule, else the agent whose
	// agents.<name>.permissions holds it.
	Agent string
	// File is the file the rule was read from ("" for env and editor).
	File string
	// Root is the directory "/"-anchored patterns resolve against: the
	// workspace for workspace, env and editor rules, the user file's
	// directory for user rules.
	Root string
}

// Origin describes where a rule came from, for people: e.g.
// "workspace agent:claude (/src/app/.acp-bridge.yaml)".
func (r Rule) Origin() string {
	s := r.Layer
	if r.Agent != "" {
		s += " agent:" + r.Agent
	}
	if r.File != "" {
		s += " (" + r.File + ")"
	}
	return s
}

// String is the rule as the person wrote it, with its list.
func (r Rule) String() string { return fmt.Sprintf("%s %s", r.List, r.Text) }

// Approvals configures unanswered approvals.
type Approvals struct {
	Timeout        time.Duration
	TimeoutOutcome string // reject or cancel
}

// Audit configures the audit log.
type Audit struct {
	// Path is absolute when a user config dir is known.
	Path         string
	MaxSizeBytes int64
}

// Telemetry configures the OpenTelemetry decision events (package
// telemetry, docs/org.md "The collector").
type Telemetry struct {
	Enabled bool
	// Endpoint is the OTLP base URL ("" = the OTEL_EXPORTER_OTLP_* variables,
	// else the OTLP default); Protocol grpc or http/protobuf ("" = the
	// OTEL_EXPORTER_OTLP_*PROTOCOL variables, else http/protobuf).
	Endpoint string
	Protocol string
	Headers  map[string]string
	// LogInput adds the call itself to each event (else only its sha256).
	LogInput bool
	// Managed: the managed tier requires the events. Endpoint, Protocol and
	// Headers are then the tier's alone, and no OTEL_* variable moves them.
	Managed bool
}

// Log configures the bridge's own log.
type Log struct {
	Level string // debug, info, warn or error
	File  string // "" means stderr
}

// SandboxFor is the sandbox an agent gets: the global settings, with the
// agent's own enabled and network when set, and both allowWrite lists.
func (s *Snapshot) SandboxFor(name string) Sandbox {
	sb := s.Config.Sandbox
	sb.AllowWrite = append([]string(nil), sb.AllowWrite...)
	a := s.Config.Agents[name].Sandbox
	if a.Enabled != nil {
		sb.Enabled = *a.Enabled
	}
	if a.Network != "" {
		sb.Network = a.Network
	}
	sb.AllowWrite = append(sb.AllowWrite, a.AllowWrite...)
	sb.AllowDomains = append(append([]string(nil), sb.AllowDomains...), a.AllowDomains...)
	return sb
}

// AgentRules returns the global rules followed by that agent's rules, in a
// new slice. An unknown agent gets the global rules only.
func (s *Snapshot) AgentRules(name string) []Rule {
	a := s.Config.Agents[name]
	out := make([]Rule, 0, len(s.Rules)+len(a.Rules))
	out = append(out, s.Rules...)
	return append(out, a.Rules...)
}

// AgentNames returns the configured agents' names, sorted.
func (s *Snapshot) AgentNames() []string {
	names := make([]string, 0, len(s.Config.Agents))
	for n := range s.Config.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Agent returns the named agent.
func (s *Snapshot) Agent(name string) (Agent, bool) {
	a, ok := s.Config.Agents[name]
	return a, ok
}

// canonicalModes are the accepted mode names, in the order error messages
// list them (policy.Modes: the modes are declared once, in policy/mode.go).
var canonicalModes = func() []string {
	out := make([]string, len(policy.Modes))
	for i, m := range policy.Modes {
		out[i] = string(m)
	}
	return out
}()

// modeAliasOrder is the order error messages list the aliases in.
var modeAliasOrder = func() []string {
	out := make([]string, len(policy.SettingsAliases))
	for i, a := range policy.SettingsAliases {
		out[i] = a.Name
	}
	return out
}()

// NormalizeMode returns the canonical name of a mode or alias, and whether
// s names a mode at all (policy.ParseMode, trimmed input refused).
func NormalizeMode(s string) (string, bool) {
	m, err := policy.ParseMode(s)
	if err != nil || strings.TrimSpace(s) != s {
		return "", false
	}
	return string(m), true
}

var logLevels = []string{"debug", "info", "warn", "error"}

var timeoutOutcomes = []string{OutcomeReject, OutcomeCancel}

var ruleLists = []string{ListAllow, ListAsk, ListDeny}
