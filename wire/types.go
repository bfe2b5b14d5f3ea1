package wire

import (
	"encoding/json"
	"reflect"
)

// Field tags: `json` names the field on the wire (omitempty or a pointer:
// optional); `ts:"<type>"` narrows a string to the values it takes in
// TypeScript; `wire:"ignored=<why>"` marks a field the bridge sends that the
// VS Code extension deliberately does not read (the drift test of wire/gen
// fails for a sent field that is neither read nor so marked).

// ---- initialize -------------------------------------------------------------

// InitializeMeta is _meta["acp-bridge"] of the initialize result.
type InitializeMeta struct {
	Version      string      `json:"version"`
	Agents       []AgentName `json:"agents"`
	DefaultAgent string      `json:"defaultAgent"`
	// PolicyModes are the five mode ids in the order a UI shows them.
	PolicyModes []string `json:"policyModes" wire:"ignored=the extension takes the richer Modes"`
	// Modes are the bridge's modes with their names, descriptions and
	// strictness order; SettingsAliases the other spellings settings accept.
	Modes           []ModeInfo        `json:"modes"`
	SettingsAliases map[string]string `json:"settingsAliases" wire:"ignored=the generated MODE_TABLE holds the same table for settings built before initialize"`
	WorkspaceTrust  TrustReport       `json:"workspaceTrust"`
	Audit           AuditStatus       `json:"audit" wire:"ignored=shown by the audit log view from the log file itself; kept for other editors"`
	Attach          *AttachHandover   `json:"attach,omitempty"`
	Attached        bool              `json:"attached,omitempty" wire:"ignored=the extension knows it re-attached: it sent the attach"`
	// Managed is the organisation's managed tier (docs/org.md), when one is in place.
	Managed *ManagedReport `json:"managed,omitempty"`
	// Telemetry says where the OpenTelemetry decision events go (docs/org.md "The collector").
	Telemetry TelemetryStatus `json:"telemetry" wire:"ignored=not shown yet; 'acp-bridge agents' and the bridge's log say where the events go; kept for other editors"`
	// NotPassed: what an agent may offer that the bridge does not pass
	// through, and why (docs/agents.md, "What passes through").
	NotPassed []NotPassed `json:"notPassed" wire:"ignored=for editors that explain what an agent offers directly but not through the bridge"`
}

// NotPassed is one entry of InitializeMeta.NotPassed.
type NotPassed struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// TelemetryStatus is InitializeMeta.Telemetry: {enabled: false}, or where
// the decision events go; Error says why a sink the settings ask for could
// not start.
type TelemetryStatus struct {
	Enabled  bool   `json:"enabled"`
	Endpoint string `json:"endpoint,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	// Managed: the managed tier requires the events.
	Managed  bool   `json:"managed,omitempty"`
	LogInput bool   `json:"logInput,omitempty"`
	Error    string `json:"error,omitempty"`
}

// ManagedReport is the managed tier as the editor shows it: set by the
// organisation, not changeable from here.
type ManagedReport struct {
	Files []string `json:"files"`
	// Problems: the tier is invalid and no agent starts (file:line: what).
	Problems         []string         `json:"problems,omitempty"`
	DisableBypass    bool             `json:"disableBypassPermissionsMode,omitempty"`
	ManagedRulesOnly bool             `json:"allowManagedPermissionRulesOnly,omitempty"`
	AllowedAgents    []string         `json:"allowedAgents,omitempty"`
	ModeFloor        string           `json:"modeFloor,omitempty"`
	Ignored          []IgnoredSetting `json:"ignored,omitempty"`
	Notes            []string         `json:"notes,omitempty"`
}

// AgentName is one entry of InitializeMeta.Agents.
type AgentName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ModeInfo is one of the bridge's modes (policy.Modes), as the editor shows it.
type ModeInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// AtLeastAsStrictAs are the modes this one is at least as strict as
	// (itself included): for every call its decision is theirs or stricter.
	AtLeastAsStrictAs []string `json:"atLeastAsStrictAs"`
}

// AuditStatus is InitializeMeta.Audit.
type AuditStatus struct {
	Enabled bool   `json:"enabled"`
	Path    string `json:"path"`
	Error   string `json:"error,omitempty"`
}

// AttachHandover is InitializeMeta.Attach: where and how to re-attach.
type AttachHandover struct {
	Socket       string `json:"socket"`
	Token        string `json:"token"`
	Pid          int    `json:"pid"`
	GraceSeconds int    `json:"graceSeconds"`
}

// ---- workspace trust --------------------------------------------------------

// TrustReport is _acp-bridge/workspace/trust, InitializeMeta.WorkspaceTrust
// and the result of _acp-bridge/workspace/approve.
type TrustReport struct {
	Trusted bool             `json:"trusted"`
	Ignored []IgnoredSetting `json:"ignored"`
	Pending *PendingApproval `json:"pending,omitempty"`
}

// IgnoredSetting is one setting of the workspace file that does not apply.
type IgnoredSetting struct {
	Key    string `json:"key"`
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	Value  string `json:"value,omitempty" wire:"ignored=Reason already names the value for the person"`
}

// PendingApproval is TrustReport.Pending: a trusted workspace file whose
// version was never approved.
type PendingApproval struct {
	File     string   `json:"file"`
	Digest   string   `json:"digest"`
	Approved string   `json:"approved"`
	Loosens  []string `json:"loosens"`
}

// WorkspaceDidChangeTrustParams: the editor's workspace trust.
type WorkspaceDidChangeTrustParams struct {
	Trusted *bool `json:"trusted"`
}

// WorkspaceApproveParams: the version the person reviewed.
type WorkspaceApproveParams struct {
	Digest string `json:"digest"`
}

// ---- approvals --------------------------------------------------------------

// CardMeta is _meta["acp-bridge"] of a session/request_permission the
// bridge sends the editor (an approval card).
type CardMeta struct {
	ApprovalID  string   `json:"approvalId"`
	Agent       string   `json:"agent"`
	SessionID   string   `json:"sessionId" wire:"ignored=the request's own sessionId says the same"`
	ToolCallID  string   `json:"toolCallId,omitempty" wire:"ignored=the request's toolCall.toolCallId says the same"`
	Tool        string   `json:"tool"`
	Specifier   string   `json:"specifier"`
	Paths       []string `json:"paths,omitempty"`
	SubCommands []string `json:"subCommands,omitempty"`
	MatchedRule string   `json:"matchedRule,omitempty"`
	Source      string   `json:"source"`
	Reason      string   `json:"reason"`
	// Breaker names the circuit breaker that asks (a protected file, rm -rf ~).
	Breaker        string   `json:"breaker,omitempty"`
	Mode           string   `json:"mode"`
	SuggestedRules []string `json:"suggestedRules,omitempty"`
	ExpiresAt      string   `json:"expiresAt,omitempty"`
	// Operation: fs/terminal requests, the method checked.
	Operation string `json:"operation,omitempty"`
	// Sandbox says what the OS sandbox will still block if this is allowed.
	Sandbox string `json:"sandbox,omitempty"`
	// RejectEndsTurn: the agent's only reject option ends its turn (Codex's
	// "abort"), so a Deny stops the agent's turn too.
	RejectEndsTurn bool `json:"rejectEndsTurn,omitempty"`
}

// PermissionOption is one option of a card (ACP's PermissionOption).
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// PendingApprovalEntry is one entry of _acp-bridge/approvals/list.
type PendingApprovalEntry struct {
	ApprovalID string             `json:"approvalId"`
	SessionID  string             `json:"sessionId"`
	Agent      string             `json:"agent"`
	ToolCall   json.RawMessage    `json:"toolCall"`
	Options    []PermissionOption `json:"options"`
	Meta       CardMeta           `json:"meta"`
	CreatedAt  string             `json:"createdAt" wire:"ignored=cards sort by arrival; expiresAt is what the card shows"`
	ExpiresAt  string             `json:"expiresAt,omitempty"`
}

// ApprovalsListResult is the result of _acp-bridge/approvals/list.
type ApprovalsListResult struct {
	Approvals []PendingApprovalEntry `json:"approvals"`
}

// ApprovalsRespondParams answers an approval from any surface. Rule, Scope
// and Reason are also what the editor puts in _meta["acp-bridge"] of its
// answer to a session/request_permission.
type ApprovalsRespondParams struct {
	ApprovalID string `json:"approvalId"`
	OptionID   string `json:"optionId"`
	Rule       string `json:"rule,omitempty"`
	Scope      string `json:"scope,omitempty"`
	// Reason is the person's own words with a deny ("Deny with a reason…"):
	// for the agent's model, so that it does not retry the same thing.
	Reason string `json:"reason,omitempty"`
}

// ApprovalsRespondResult is the result of _acp-bridge/approvals/respond.
type ApprovalsRespondResult struct {
	ApprovalID string `json:"approvalId" wire:"ignored=the caller knows which approval it answered"`
	Outcome    string `json:"outcome" wire:"ignored=always selected; the card closes on approval/resolved"`
}

// ApprovalResolvedParams is _acp-bridge/approval/resolved.
type ApprovalResolvedParams struct {
	ApprovalID string `json:"approvalId"`
	SessionID  string `json:"sessionId"`
	Agent      string `json:"agent"`
	ToolCallID string `json:"toolCallId,omitempty"`
	Decision   string `json:"decision"` // allow, deny, cancelled
	// OptionID is the option the person chose on the card (by user only);
	// AgentOptionID the agent's own option the bridge answered it with.
	OptionID      string `json:"optionId,omitempty"`
	AgentOptionID string `json:"agentOptionId,omitempty" wire:"ignored=the chat shows the person's choice (optionId) and who decided; the agent's own option is for the audit log"`
	By            string `json:"by"`
	Rule          string `json:"rule,omitempty"`
	Specifier     string `json:"specifier"`
	Reason        string `json:"reason,omitempty"`
}

// ---- notices (session/update agent_message_chunk _meta["acp-bridge"]) --------

// Notice kinds: NoticeMeta.Notice.
const (
	NoticeWorkspaceTrust   = "workspaceTrust"
	NoticeChildMode        = "childMode"
	NoticeUnaskedDenied    = "unaskedDenied"
	NoticeProtectedCreated = "protectedCreated"
)

// NoticeMeta is _meta["acp-bridge"] of a message the bridge itself says in a
// session: Notice names the kind, the other fields belong to some kinds only.
type NoticeMeta struct {
	Notice string `json:"notice"`
	// childMode
	Asking *bool  `json:"asking,omitempty" wire:"ignored=the notice's text says it; the chat shows the text"`
	Reason string `json:"reason,omitempty" wire:"ignored=the notice's text says it; the chat shows the text"`
	// unaskedDenied
	ToolCallID    string `json:"toolCallId,omitempty" wire:"ignored=the notice's text says it; the chat shows the text"`
	Specifier     string `json:"specifier,omitempty" wire:"ignored=the notice's text says it; the chat shows the text"`
	Rule          string `json:"rule,omitempty" wire:"ignored=the notice's text says it; the chat shows the text"`
	TurnCancelled *bool  `json:"turnCancelled,omitempty" wire:"ignored=the notice's text says it; the chat shows the text"`
	// protectedCreated
	Paths []string `json:"paths,omitempty" wire:"ignored=the notice's text lists them; the chat shows the text"`
}

// ---- sessions ---------------------------------------------------------------

// SessionMeta is _meta["acp-bridge"] of the session/new and session/load results.
type SessionMeta struct {
	Agent          string          `json:"agent"`
	Mode           string          `json:"mode"`
	ChildSessionID string          `json:"childSessionId,omitempty"`
	ChildMode      ChildModeReport `json:"childMode" wire:"ignored=the bridge also says it in the chat (notice childMode)"`
	Sandbox        SessionSandbox  `json:"sandbox" wire:"ignored=the agent list carries the plan; a warning also goes to the chat"`
	// Capabilities are the session's agent's own agentCapabilities (its
	// promptCapabilities, mcpCapabilities, sessionCapabilities), as it
	// answered initialize.
	Capabilities json.RawMessage `json:"capabilities,omitempty" wire:"ignored=the extension reads the same from agents/list"`
	// ForkedFrom is the bridge session a session/fork answer was forked from.
	ForkedFrom string `json:"forkedFrom,omitempty" wire:"ignored=the extension does not fork sessions yet"`
}

// ChildModeReport says whether the child is known to ask.
type ChildModeReport struct {
	Asking bool   `json:"asking"`
	Mode   string `json:"mode,omitempty"` // the child's own mode id
	Via    string `json:"via,omitempty"`  // initial, set_mode, config_option, launch
	Reason string `json:"reason,omitempty"`
}

// SessionSandbox is SessionMeta.Sandbox.
type SessionSandbox struct {
	Enabled   bool   `json:"enabled"`
	Confined  bool   `json:"confined"`
	Mechanism string `json:"mechanism,omitempty"`
	Warning   string `json:"warning,omitempty"`
}

// LiveSession is one entry of _acp-bridge/sessions/live.
type LiveSession struct {
	SessionID        string `json:"sessionId"`
	ChildSessionID   string `json:"childSessionId"`
	Agent            string `json:"agent"`
	Mode             string `json:"mode"`
	Cwd              string `json:"cwd,omitempty" wire:"ignored=a chat keeps the folder it was opened in"`
	TurnRunning      bool   `json:"turnRunning"`
	PendingApprovals int    `json:"pendingApprovals"`
}

// SessionsLiveResult is the result of _acp-bridge/sessions/live.
type SessionsLiveResult struct {
	Sessions []LiveSession `json:"sessions"`
}

// ---- re-attaching -------------------------------------------------------------

// AttachParams is the first message on the socket.
type AttachParams struct {
	Token string `json:"token"`
}

// AttachResult is the result of _acp-bridge/attach.
type AttachResult struct {
	Initialized      bool           `json:"initialized"`
	Sessions         []LiveSession  `json:"sessions"`
	PendingRequests  int            `json:"pendingRequests"`
	Buffered         int            `json:"buffered"`
	DetachedSeconds  int            `json:"detachedSeconds"`
	DroppedBySession map[string]int `json:"droppedBySession"`
}

// TurnEndedParams is _acp-bridge/turn/ended.
type TurnEndedParams struct {
	SessionID  string          `json:"sessionId"`
	StopReason string          `json:"stopReason,omitempty"`
	Error      json.RawMessage `json:"error,omitempty"`
}

// ---- agents -------------------------------------------------------------------

// AgentEntry is one entry of _acp-bridge/agents/list and _acp-bridge/agent/status.
type AgentEntry struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Command      string          `json:"command"`
	Args         []string        `json:"args"`
	Status       string          `json:"status"`
	Pid          int             `json:"pid,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// AuthMethods are the agent's own auth methods, ids "<agent>/<its id>"
	// (docs/agents.md "Logins"); present once the agent answered initialize.
	AuthMethods json.RawMessage `json:"authMethods,omitempty" wire:"ignored=the extension offers no login yet; other editors use it"`
	AgentInfo   json.RawMessage `json:"agentInfo,omitempty" wire:"ignored=diagnosis only (acp-bridge agents)"`
	Modes       json.RawMessage `json:"modes,omitempty" wire:"ignored=the child's own modes, for diagnosis; the editor shows the bridge's"`
	LastError   string          `json:"lastError,omitempty"`
	Restarts    int             `json:"restarts"`
	Family      string          `json:"family" wire:"ignored=diagnosis only (acp-bridge agents)"`
	Sandbox     json.RawMessage `json:"sandbox,omitempty" wire:"ignored=diagnosis only (acp-bridge agents); the warning reaches the chat"`
	// BypassPermissions: the agent runs with bypass permissions now.
	BypassPermissions bool `json:"bypassPermissions"`
	// Mode is the mode a new session of this agent starts in, as the bridge
	// merged the settings (the editor does not compute it).
	Mode string `json:"mode"`
}

// AgentsListResult is the result of _acp-bridge/agents/list.
type AgentsListResult struct {
	Agents []AgentEntry `json:"agents"`
}

// ---- settings and grants ------------------------------------------------------

// SettingsDidChangeParams is the editor's settings layer (docs/settings.md).
type SettingsDidChangeParams struct {
	Settings json.RawMessage `json:"settings"`
}

// SettingsLayersParams are the editor's own layers of its acpBridge.*
// settings, as the editor reads them, for the bridge to merge, cut down
// (workspace trust) and pin (docs/settings.md "VS Code").
type SettingsLayersParams struct {
	// Values: each key (without the "acpBridge." prefix) in each layer.
	Values map[string]EditorValue `json:"values"`
	// Trusted is the editor's workspace trust (VS Code's isTrusted).
	Trusted bool `json:"trusted"`
	// Approved is the digest of the workspace values the person approved,
	// as the editor keeps it where no agent can write ("" when none yet).
	Approved string `json:"approved,omitempty"`
	// Preview: answer what these values would give, apply nothing.
	Preview bool `json:"preview,omitempty"`
}

// EditorValue is one key in each of the editor's layers (VS Code's
// WorkspaceConfiguration.inspect()); absent: not set there.
type EditorValue struct {
	DefaultValue         json.RawMessage `json:"defaultValue,omitempty"`
	GlobalValue          json.RawMessage `json:"globalValue,omitempty"`
	WorkspaceValue       json.RawMessage `json:"workspaceValue,omitempty"`
	WorkspaceFolderValue json.RawMessage `json:"workspaceFolderValue,omitempty"`
}

// SettingsLayersResult is what the editor's layers give: the pin state of
// the workspace's own values and the agents in force.
type SettingsLayersResult struct {
	// Digest of the workspace's own values now: what the person approves.
	Digest string `json:"digest"`
	// Pinned: the workspace's values apply as a trusted workspace's.
	Pinned bool `json:"pinned"`
	// Approved is the approved digest when the workspace is trusted but
	// its values are not that version ("none": never approved).
	Approved string `json:"approved,omitempty"`
	// Pin is a digest to store as approved now (a trusted workspace first
	// seen without values).
	Pin string `json:"pin,omitempty"`
	// DefaultAgent and Agents are the merged settings' (every layer).
	DefaultAgent string                     `json:"defaultAgent"`
	Agents       map[string]ConfiguredAgent `json:"agents"`
	// Ignored: what of the editor's workspace layers does not apply, one
	// "source: key: reason" each.
	Ignored []string `json:"ignored"`
}

// ConfiguredAgent is an agent of the merged settings.
type ConfiguredAgent struct {
	Command           string   `json:"command"`
	Args              []string `json:"args"`
	BypassPermissions bool     `json:"bypassPermissions"`
	Mode              string   `json:"mode"`
}

// SettingsInvalidParams: every bad key, one per line.
type SettingsInvalidParams struct {
	Error string `json:"error"`
}

// RulesInvalidParams: one line per malformed rule.
type RulesInvalidParams struct {
	Problems []string `json:"problems"`
}

// SettingsPersistParams asks the editor to store a grant in its settings.
type SettingsPersistParams struct {
	Kind  string `json:"kind" ts:"\"rule\" | \"bypass\""`
	Scope string `json:"scope" ts:"\"user\" | \"workspace\""`
	Agent string `json:"agent,omitempty"`
	List  string `json:"list,omitempty" ts:"\"allow\" | \"ask\" | \"deny\""`
	Rule  string `json:"rule,omitempty"`
}

// SettingsPersistResult is the editor's answer.
type SettingsPersistResult struct {
	Persisted bool `json:"persisted"`
}

// PolicyCheckParams: one rule to compile.
type PolicyCheckParams struct {
	Rule string `json:"rule"`
	// List is allow (default), ask or deny.
	List string `json:"list,omitempty" ts:"\"allow\" | \"ask\" | \"deny\""`
}

// PolicyCheckResult is the engine's word on one rule.
type PolicyCheckResult struct {
	OK    bool   `json:"ok"`
	Rule  string `json:"rule" wire:"ignored=the caller sent it"`
	List  string `json:"list" wire:"ignored=the caller sent it"`
	Error string `json:"error,omitempty"`
}

// PolicyExplainParams: one call to explain.
type PolicyExplainParams struct {
	Agent string          `json:"agent,omitempty"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input,omitempty"`
	// Mode defaults to "default": rules decide, not the session's mode.
	Mode string `json:"mode,omitempty"`
}

// PolicyExplainResult is what the policy would decide.
type PolicyExplainResult struct {
	Decision  string `json:"decision"`
	Source    string `json:"source"`
	Rule      string `json:"rule,omitempty"`
	Reason    string `json:"reason"`
	Specifier string `json:"specifier"`
}

// StoredRule is a rule in the bridge's own config files.
type StoredRule struct {
	List  string `json:"list" ts:"\"allow\" | \"ask\" | \"deny\""`
	Rule  string `json:"rule"`
	Agent string `json:"agent,omitempty"`
	Scope string `json:"scope" ts:"\"user\" | \"workspace\""`
	File  string `json:"file"`
}

// StoredBypass is a bypass in the bridge's own config files.
type StoredBypass struct {
	Agent string `json:"agent"`
	Scope string `json:"scope" ts:"\"user\" | \"workspace\""`
	File  string `json:"file"`
}

// InForce is one setting in force as the bridge merged it: every layer,
// workspace narrowing and pins applied, plus the runtime grants.
type InForce struct {
	// Kind is "mode", "bypass" or "rule".
	Kind string `json:"kind"`
	// List is allow, ask or deny for a rule.
	List string `json:"list,omitempty"`
	// Value is the mode, "true" for a bypass, the rule's text.
	Value string `json:"value"`
	// Agent is "" for what applies to every agent.
	Agent string `json:"agent,omitempty"`
	// Source is the layer: default, user, workspace, env, editor, session <id>.
	Source string `json:"source"`
	File   string `json:"file,omitempty"`
}

// GrantsStoredResult is the result of _acp-bridge/grants/stored.
type GrantsStoredResult struct {
	Rules  []StoredRule   `json:"rules"`
	Bypass []StoredBypass `json:"bypass"`
	// InForce is every mode, bypass and rule in force, as the bridge applies them.
	InForce []InForce `json:"inForce"`
	// Pending: the workspace file's version waiting for approval, if any.
	Pending *PendingApproval `json:"pending,omitempty"`
}

// GrantsRemoveStoredParams names one stored grant.
type GrantsRemoveStoredParams struct {
	Kind  string `json:"kind" ts:"\"rule\" | \"bypass\""`
	Scope string `json:"scope" ts:"\"user\" | \"workspace\""`
	Agent string `json:"agent,omitempty"`
	List  string `json:"list,omitempty" ts:"\"allow\" | \"ask\" | \"deny\""`
	Rule  string `json:"rule,omitempty"`
}

// GrantsRemoveStoredResult says where it was removed from.
type GrantsRemoveStoredResult struct {
	Removed bool   `json:"removed" wire:"ignored=an error says otherwise"`
	File    string `json:"file" wire:"ignored=the list is read again after a removal"`
}

// SessionGrant is one in-memory "Allow for this session" grant.
type SessionGrant struct {
	SessionID string `json:"sessionId"`
	Agent     string `json:"agent"`
	Rule      string `json:"rule"`
}

// GrantsListResult is the result of _acp-bridge/grants/list.
type GrantsListResult struct {
	Grants []SessionGrant `json:"grants"`
}

// GrantsRevokeParams names one session grant.
type GrantsRevokeParams struct {
	SessionID string `json:"sessionId"`
	Rule      string `json:"rule"`
}

// GrantsRevokeResult: it was revoked (else CodeNotFound).
type GrantsRevokeResult struct {
	Revoked bool `json:"revoked" wire:"ignored=an error says otherwise"`
}

// Payload is one declared payload type.
type Payload struct {
	Type reflect.Type
	// Meta: sent inside _meta["acp-bridge"] of an ACP message (not the
	// params or result of a method of Methods).
	Meta string
}

func p[T any](meta string) Payload { return Payload{Type: reflect.TypeFor[T](), Meta: meta} }

// Payloads are the top-level payloads (those Methods name, and those sent in
// _meta); types they hold are found through them.
var Payloads = []Payload{
	p[InitializeMeta]("initialize result"),
	p[SessionMeta]("session/new and session/load results"),
	p[CardMeta]("session/request_permission (bridge -> editor)"),
	p[NoticeMeta]("session/update agent_message_chunk from the bridge itself"),
	p[ApprovalsListResult](""), p[ApprovalsRespondParams](""), p[ApprovalsRespondResult](""),
	p[ApprovalResolvedParams](""), p[AttachParams](""), p[AttachResult](""), p[TurnEndedParams](""),
	p[SessionsLiveResult](""), p[AgentsListResult](""), p[AgentEntry](""),
	p[SettingsDidChangeParams](""), p[SettingsLayersParams](""), p[SettingsLayersResult](""), p[SettingsInvalidParams](""), p[RulesInvalidParams](""),
	p[SettingsPersistParams](""), p[SettingsPersistResult](""),
	p[PolicyCheckParams](""), p[PolicyCheckResult](""), p[PolicyExplainParams](""), p[PolicyExplainResult](""),
	p[GrantsStoredResult](""), p[GrantsRemoveStoredParams](""), p[GrantsRemoveStoredResult](""),
	p[GrantsListResult](""), p[GrantsRevokeParams](""), p[GrantsRevokeResult](""),
	p[WorkspaceDidChangeTrustParams](""), p[TrustReport](""), p[WorkspaceApproveParams](""),
}
