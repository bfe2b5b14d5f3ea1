package policy

import "encoding/json"

// Decision is what the policy says about one call.
type Decision string

const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Source says what produced a decision (audit log, resolved notifications).
type Source string

const (
	SourceRule         Source = "rule"
	SourceMode         Source = "mode"
	SourceReadOnly     Source = "read-only"
	SourceBreaker      Source = "breaker"
	SourceBypass       Source = "bypass"
	SourceUser         Source = "user"
	SourceSessionGrant Source = "session-grant"
	SourceTimeout      Source = "timeout"
	SourceCancel       Source = "cancel"
	SourceAgentExit    Source = "agent-exit"
	SourceEditorGone   Source = "editor-gone"
	SourceShutdown     Source = "shutdown"
	SourceDefault      Source = "default" // nothing matched: the mode's default (ask)
	SourceUnknownCall  Source = "unknown-call"
)

// Mode is a permission mode.
type Mode string

const (
	ModeDefault     Mode = "default"
	ModeAcceptEdits Mode = "acceptEdits"
	ModePlan        Mode = "plan"
	ModeDontAsk     Mode = "dontAsk"
	ModeBypass      Mode = "bypassPermissions"
)

// Call is a tool call in canonical form, whatever agent sent it.
type Call struct {
	// Tool is Bash, Read, Edit, WebFetch, WebSearch, mcp__server__tool, or
	// the agent's own tool name. "" means the call was not understood (ask).
	Tool string `json:"tool"`
	// Command is the shell command line of a Bash call.
	Command string `json:"command,omitempty"`
	// Paths are the files a Read or Edit call touches, absolute or relative
	// to the call's directory (Cwd, else Env.Cwd).
	Paths []string `json:"paths,omitempty"`
	// URL of a WebFetch call; Query of a WebSearch call.
	URL   string `json:"url,omitempty"`
	Query string `json:"query,omitempty"`
	// URLs are further URLs the same WebFetch call fetches (a prompt that
	// names several). Each is checked as URL is: a deny or ask rule on any
	// of their hosts decides, and an allow rule must cover all of them.
	URLs []string `json:"urls,omitempty"`
	// Kind is the ACP tool kind as sent (read, edit, delete, move, search,
	// execute, think, fetch, switch_mode, other), "" if none.
	Kind  string `json:"kind,omitempty"`
	Title string `json:"title,omitempty"`
	// Input is the agent's rawInput, as sent.
	Input json.RawMessage `json:"input,omitempty"`
	// Cwd is the directory the tool runs in when the call names its own
	// (rawInput cwd, workdir, working_directory; terminal/create's cwd):
	// the relative paths and the command of the call are read against it
	// instead of Env.Cwd, as `cd Cwd && ...` would be. It is never a
	// workspace root: outside the workspace, the call's relative paths are
	// outside paths (red team 16). Relative to Env.Cwd.
	Cwd string `json:"cwd,omitempty"`
	// Unread says what of the input the reader could not read (nested too
	// deep, too many members, not JSON): the call is uncertain, and asks
	// (denied where the mode never asks). "" when all was read.
	Unread string `json:"unread,omitempty"`
}
