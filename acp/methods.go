package acp

import (
	"strings"

	"github.com/acp-bridge/acp-bridge/wire"
)

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
	MethodSessionDelete       = "session/delete"
	MethodSessionFork         = "session/fork" // unstable ACP
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
const BridgePrefix = wire.Prefix

// IsAgentExtension says whether method is an agent's or an editor's own
// extension method (ACP: a name that starts with "_"), not the bridge's:
// the bridge passes those through between an editor and the session's
// agent, and never lets one pass for its own.
func IsAgentExtension(method string) bool {
	return len(method) > 1 && method[0] == '_' && !strings.HasPrefix(method, BridgePrefix)
}

// MetaKey is the key of the bridge's object inside every _meta it reads or writes.
const MetaKey = wire.MetaKey

// The bridge's extension surface toward the editor, declared in package wire
// (wire.Methods lists every method; docs/extension-surface.md is generated
// from it).
const (
	// Requests, editor -> bridge.
	MethodAgentsList       = wire.AgentsList
	MethodApprovalsList    = wire.ApprovalsList
	MethodApprovalsRespond = wire.ApprovalsRespond
	MethodGrantsList       = wire.GrantsList
	MethodGrantsRevoke     = wire.GrantsRevoke
	MethodPolicyExplain    = wire.PolicyExplain
	// Notification, editor -> bridge.
	MethodSettingsDidChange = wire.SettingsDidChange
	// Request, bridge -> editor.
	MethodSettingsPersist = wire.SettingsPersist
	// Notifications, bridge -> editor.
	MethodApprovalResolved = wire.ApprovalResolved
	MethodAgentStatus      = wire.AgentStatus
	MethodSettingsInvalid  = wire.SettingsInvalid
	MethodRulesInvalid     = wire.RulesInvalid
)
