package acp

import "strings"

// ProtocolVersion is the ACP protocol version the bridge speaks on both sides.
const ProtocolVersion = 1

// ACP v1 methods, client -> agent.
const (
	MethodInitialize          = "initialize"
	MethodAuthenticate        = "authenticate"
	MethodSessionNew          = "session/new"
	MethodSessionLoad         = "session/load"
	MethodSessionResume       = "session/resume"
	MethodSessionList         = "session/list"
	MethodSessionClose        = "session/close"
	MethodSessionPrompt       = "session/prompt"
	MethodSessionCancel       = "session/cancel" // notification
	MethodSessionSetMode      = "session/set_mode"
	MethodSessionSetConfigOpt = "session/set_config_option"
	MethodCancelRequest       = "$/cancel_request" // notification, either direction
	MethodSessionUpdate       = "session/update"   // notification, agent -> client
	MethodRequestPermission   = "session/request_permission"
	MethodFSReadTextFile      = "fs/read_text_file"
	MethodFSWriteTextFile     = "fs/write_text_file"
	MethodTerminalCreate      = "terminal/create"
	MethodTerminalOutput      = "terminal/output"
	MethodTerminalWaitForExit = "terminal/wait_for_exit"
	MethodTerminalKill        = "terminal/kill"
	MethodTerminalRelease     = "terminal/release"
	// session/set_model was unstable (older agents still offer models at
	// session/new and take it); the bridge passes it to the session's agent.
	MethodSessionSetModel = "session/set_model"
	// elicitation/create, agent -> client: a question to the person.
	MethodElicitationCreate = "elicitation/create"
)

// BridgePrefix starts the bridge's own extension methods.
const BridgePrefix = "_acp-bridge/"

// IsAgentExtension says whether method is an agent's or an editor's own
// extension method (ACP: a name that starts with "_"), not the bridge's:
// the bridge passes those through between an editor and the session's
// agent, and never lets one pass for its own.
func IsAgentExtension(method string) bool {
	return len(method) > 1 && method[0] == '_' && !strings.HasPrefix(method, BridgePrefix)
}

// MetaKey is the key of the bridge's object inside every _meta it reads or writes.
const MetaKey = "acp-bridge"

// The bridge's extension surface toward the editor. docs/extension-surface.md
// documents each one; keep the two in step.
const (
	// Requests, editor -> bridge.
	MethodAgentsList       = "_acp-bridge/agents/list"
	MethodApprovalsList    = "_acp-bridge/approvals/list"
	MethodApprovalsRespond = "_acp-bridge/approvals/respond"
	MethodGrantsList       = "_acp-bridge/grants/list"
	MethodGrantsRevoke     = "_acp-bridge/grants/revoke"
	MethodPolicyExplain    = "_acp-bridge/policy/explain"
	// Notification, editor -> bridge.
	MethodSettingsDidChange = "_acp-bridge/settings/didChange"
	// Request, bridge -> editor.
	MethodSettingsPersist = "_acp-bridge/settings/persist"
	// Notifications, bridge -> editor.
	MethodApprovalResolved = "_acp-bridge/approval/resolved"
	MethodAgentStatus      = "_acp-bridge/agent/status"
	MethodSettingsInvalid  = "_acp-bridge/settings/invalid"
	MethodRulesInvalid     = "_acp-bridge/rules/invalid"
)
