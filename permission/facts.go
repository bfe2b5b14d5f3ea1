package permission

import (
	"context"
	"encoding/json"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
	"github.com/acp-bridge/acp-bridge/policy"
)

// Session is what the package needs to know of, and do to, the session a
// request belongs to. bridge's session implements it; tests use a fake.
type Session interface {
	ID() string
	Agent() Agent
	// Mode is the session's effective mode (its override, else the agent's
	// bypass, else the settings').
	Mode() policy.Mode
	Cwd() string
	AdditionalDirectories() []string
	// Cancelled: the session's turn was cancelled (nothing is done for it).
	Cancelled() bool
	// Grant adds an "Allow for this session" rule; Grants is their policy (nil: none).
	Grant(rule string) error
	Grants() *policy.Policy
	// MergeToolCall merges a (perhaps partial) tool call with what the
	// session's tool-call cache knows of it.
	MergeToolCall(raw json.RawMessage) json.RawMessage
	// MarkAsked records that the agent asked about toolCallID (so it is not
	// judged again as unasked).
	MarkAsked(toolCallID string)
	// CancelTurn cancels the session's turn (session/cancel to the agent).
	CancelTurn(why string)
	// WithdrawnBy says who ended a request whose context ended: the agent
	// exited (policy.SourceAgentExit) or withdrew it (policy.SourceCancel).
	WithdrawnBy() policy.Source
	// Traceparent is the W3C trace context the editor sent with the
	// session's latest prompt (or session/new), "" if none: the audit
	// records (and the OpenTelemetry decision events) carry it.
	Traceparent() string
	// NoteDenial keeps one line for the agent's model: a call that was
	// denied and why, said at the start of the session's next prompt.
	NoteDenial(line string)
}

// Agent is what the package needs of the agent process behind a session:
// its name, its profile (how its calls read, whether its reject ends its
// turn) and its OS sandbox.
type Agent interface {
	Name() string
	// Normalize reads a tool call through the agent family's adapter.
	Normalize(toolCall json.RawMessage) (policy.Call, error)
	// RejectAborts: the agent's only reject option ends its turn.
	RejectAborts() bool
	// SandboxNote says what the agent's OS sandbox still blocks of call
	// (viaEditor: done by the bridge or the editor, bounded by the sandbox).
	SandboxNote(call policy.Call, cwd string, viaEditor bool) string
	// SandboxPermits says whether the agent's sandbox lets it read (or
	// write) path, and if not why.
	SandboxPermits(write bool, path string) (ok bool, why string)
	// StripForeign removes the agent's _meta["acp-bridge"] from JSON the
	// editor will be shown (ok false: it could not be checked).
	StripForeign(raw json.RawMessage, what string) (json.RawMessage, bool)
	StripOptions(opts []acp.PermissionOption) []acp.PermissionOption
}

// Editor is the person's side: it can be asked, and told.
type Editor interface {
	// Ask shows a permission request (session/request_permission params).
	Ask(ctx context.Context, params json.RawMessage) (Asked, error)
	// Notify sends a notification; failures are the editor's to log.
	Notify(method string, params any)
}

// Asked is one permission request shown to the editor.
type Asked interface {
	// Done is closed when the editor answered (or went away).
	Done() <-chan struct{}
	// Answer reads the answer once Done is closed; an error wrapping
	// ErrEditorGone means the editor went away.
	Answer() (EditorAnswer, error)
	// Withdraw takes the request back ($/cancel_request): it was resolved elsewhere.
	Withdraw()
	// OnDone arranges for f to run once Done is closed, with no goroutine
	// waiting for it (at once if it is closed). f is quick: it may run on
	// the editor connection's read loop.
	OnDone(f func())
}

// EditorAnswer is the editor's answer to a shown request.
type EditorAnswer struct {
	Outcome  string // "selected" or "cancelled"
	OptionID string
	// Rule and Scope carry an "Always allow/deny" rule as the person edited it.
	Rule, Scope string
	// Reason is the person's own words with a deny ("Deny with a reason…").
	Reason string
}

// Grants applies the grants that outlive a session: at once, and persisted
// (through the editor when it can store them, else the bridge's own file).
type Grants interface {
	Always(agent, list, rule, scope string)
	Bypass(agent, scope string)
}

// Auditor records decisions. *audit.Log implements it.
type Auditor interface {
	Append(audit.Record) error
}

// Config is the part of the settings the flow reads, per request.
type Config struct {
	// Timeout of an approval (<= 0: none); TimeoutCancels: a timeout
	// answers cancelled rather than reject_once.
	Timeout        time.Duration
	TimeoutCancels bool
	// CancelOnUnaskedDeny: a denied tool call that ran unasked cancels the turn.
	CancelOnUnaskedDeny bool
	// TellAgentDenials: what the policy denied is noted for the agent's
	// model too (a person's own reason always is).
	TellAgentDenials bool
	// BypassDisabled, when set, says why bypass cannot be granted (the
	// managed tier): the card does not offer it and an answer choosing it
	// is refused.
	BypassDisabled string
}
