package wire

// Prefix starts every method of the bridge's own surface.
const Prefix = "_acp-bridge/"

// MetaKey is the key of the bridge's object inside every _meta it reads or writes.
const MetaKey = "acp-bridge"

// Method names. Methods lists each with its direction, kind and payloads.
const (
	AgentsList              = Prefix + "agents/list"
	AgentStatus             = Prefix + "agent/status"
	ApprovalsList           = Prefix + "approvals/list"
	ApprovalsRespond        = Prefix + "approvals/respond"
	ApprovalResolved        = Prefix + "approval/resolved"
	Attach                  = Prefix + "attach"
	GrantsList              = Prefix + "grants/list"
	GrantsRevoke            = Prefix + "grants/revoke"
	GrantsStored            = Prefix + "grants/stored"
	GrantsRemoveStored      = Prefix + "grants/removeStored"
	PolicyCheck             = Prefix + "policy/check"
	PolicyExplain           = Prefix + "policy/explain"
	RulesInvalid            = Prefix + "rules/invalid"
	SessionsLive            = Prefix + "sessions/live"
	SettingsDidChange       = Prefix + "settings/didChange"
	SettingsInvalid         = Prefix + "settings/invalid"
	SettingsLayers          = Prefix + "settings/layers"
	SettingsPersist         = Prefix + "settings/persist"
	TurnEnded               = Prefix + "turn/ended"
	WorkspaceApprove        = Prefix + "workspace/approve"
	WorkspaceDidChangeTrust = Prefix + "workspace/didChangeTrust"
	WorkspaceTrust          = Prefix + "workspace/trust"
)

// Direction says who sends a method.
type Direction string

const (
	EditorToBridge Direction = "editor -> bridge"
	BridgeToEditor Direction = "bridge -> editor"
)

// Kind says whether a method is answered.
type Kind string

const (
	Request      Kind = "request"
	Notification Kind = "notification"
)

// Method is one method of the surface. Params and Result name a payload of
// Payloads ("" for an empty object or no result).
type Method struct {
	Name   string
	Key    string // the TypeScript name: M.<Key>
	Dir    Direction
	Kind   Kind
	Params string
	Result string
	Doc    string
}

// Methods is the whole surface, in the order docs/extension-surface.md lists it.
var Methods = []Method{
	{ApprovalsRespond, "approvalsRespond", EditorToBridge, Request, "ApprovalsRespondParams", "ApprovalsRespondResult", "answers an approval from any surface; first answer wins"},
	{ApprovalsList, "approvalsList", EditorToBridge, Request, "", "ApprovalsListResult", "every approval still pending, oldest first"},
	{ApprovalResolved, "approvalResolved", BridgeToEditor, Notification, "ApprovalResolvedParams", "", "every decision, with or without a card"},
	{Attach, "attach", EditorToBridge, Request, "AttachParams", "AttachResult", "the first message on the re-attach socket"},
	{TurnEnded, "turnEnded", BridgeToEditor, Notification, "TurnEndedParams", "", "a turn whose editor went away ended"},
	{SessionsLive, "sessionsLive", EditorToBridge, Request, "", "SessionsLiveResult", "the bridge's live sessions"},
	{AgentsList, "agentsList", EditorToBridge, Request, "", "AgentsListResult", "the configured agents and their state"},
	{AgentStatus, "agentStatus", BridgeToEditor, Notification, "AgentEntry", "", "one entry of agents/list, whenever it changes"},
	{SettingsDidChange, "settingsDidChange", EditorToBridge, Notification, "SettingsDidChangeParams", "", "the editor's settings layer"},
	{SettingsLayers, "settingsLayers", EditorToBridge, Request, "SettingsLayersParams", "SettingsLayersResult", "the editor's raw settings layers, trust and approved pin; the bridge merges, narrows and pins them"},
	{SettingsInvalid, "settingsInvalid", BridgeToEditor, Notification, "SettingsInvalidParams", "", "settings refused as a whole"},
	{RulesInvalid, "rulesInvalid", BridgeToEditor, Notification, "RulesInvalidParams", "", "malformed rules"},
	{SettingsPersist, "settingsPersist", BridgeToEditor, Request, "SettingsPersistParams", "SettingsPersistResult", "store a grant in the editor's settings"},
	{PolicyCheck, "policyCheck", EditorToBridge, Request, "PolicyCheckParams", "PolicyCheckResult", "compile one rule"},
	{PolicyExplain, "policyExplain", EditorToBridge, Request, "PolicyExplainParams", "PolicyExplainResult", "what the policy would decide for one call"},
	{GrantsStored, "grantsStored", EditorToBridge, Request, "", "GrantsStoredResult", "rules and bypasses in the bridge's own config files"},
	{GrantsRemoveStored, "grantsRemoveStored", EditorToBridge, Request, "GrantsRemoveStoredParams", "GrantsRemoveStoredResult", "remove one stored grant"},
	{GrantsList, "grantsList", EditorToBridge, Request, "", "GrantsListResult", "the in-memory session grants"},
	{GrantsRevoke, "grantsRevoke", EditorToBridge, Request, "GrantsRevokeParams", "GrantsRevokeResult", "revoke one session grant"},
	{WorkspaceDidChangeTrust, "workspaceDidChangeTrust", EditorToBridge, Notification, "WorkspaceDidChangeTrustParams", "", "the editor's workspace trust changed"},
	{WorkspaceTrust, "workspaceTrust", BridgeToEditor, Notification, "TrustReport", "", "the workspace's trust as the bridge applies it"},
	{WorkspaceApprove, "workspaceApprove", EditorToBridge, Request, "WorkspaceApproveParams", "TrustReport", "approve a version of the workspace file"},
}
