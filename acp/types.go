package acp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The types below are the parts of ACP v1 the bridge interprets. Fields it
// only carries stay json.RawMessage. See ../shared/docs/acp-protocol.md §2.

// Implementation names a client or an agent.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// FSCapabilities is clientCapabilities.fs.
type FSCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

// ClientCapabilities is what a client advertises in initialize.
type ClientCapabilities struct {
	FS       FSCapabilities `json:"fs"`
	Terminal bool           `json:"terminal"`
	// Elicitation is passed to every child as the editor offered it: a
	// question an agent asks is the person's to answer, not a permission.
	Elicitation json.RawMessage `json:"elicitation,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// InitializeRequest is the params of initialize.
type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
	Meta               json.RawMessage    `json:"_meta,omitempty"`
}

// InitializeResponse is the result of initialize. AgentCapabilities stays raw
// so a child's capabilities can be reported exactly.
type InitializeResponse struct {
	ProtocolVersion   int             `json:"protocolVersion"`
	AgentCapabilities json.RawMessage `json:"agentCapabilities,omitempty"`
	AuthMethods       json.RawMessage `json:"authMethods,omitempty"`
	AgentInfo         *Implementation `json:"agentInfo,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

// SessionModeState is the modes object of session/new.
type SessionModeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []SessionMode `json:"availableModes"`
}

// SessionMode is one mode an agent offers.
type SessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// PermissionOption is one choice of session/request_permission.
type PermissionOption struct {
	OptionID string          `json:"optionId"`
	Name     string          `json:"name"`
	Kind     string          `json:"kind"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// Permission option kinds.
const (
	KindAllowOnce    = "allow_once"
	KindAllowAlways  = "allow_always"
	KindRejectOnce   = "reject_once"
	KindRejectAlways = "reject_always"
)

// RequestPermissionRequest is the params of session/request_permission.
// ToolCall is a ToolCallUpdate, kept raw.
type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  json.RawMessage    `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	Meta      json.RawMessage    `json:"_meta,omitempty"`
}

// Validate checks the fields the bridge relies on.
func (r *RequestPermissionRequest) Validate() error {
	var errs []error
	if r.SessionID == "" {
		errs = append(errs, errors.New("sessionId is required"))
	}
	if len(r.ToolCall) == 0 || string(r.ToolCall) == "null" {
		errs = append(errs, errors.New("toolCall is required"))
	}
	if len(r.Options) == 0 {
		errs = append(errs, errors.New("options must not be empty"))
	}
	for i, o := range r.Options {
		if o.OptionID == "" {
			errs = append(errs, fmt.Errorf("options[%d].optionId is required", i))
		}
	}
	return errors.Join(errs...)
}

// Outcome values of a permission response.
const (
	OutcomeSelected  = "selected"
	OutcomeCancelled = "cancelled"
)

// PermissionOutcome is the outcome object of a permission response.
type PermissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

// RequestPermissionResponse is the result of session/request_permission.
type RequestPermissionResponse struct {
	Outcome PermissionOutcome `json:"outcome"`
	Meta    json.RawMessage   `json:"_meta,omitempty"`
}

// Selected answers with an option id.
func Selected(optionID string) RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: PermissionOutcome{Outcome: OutcomeSelected, OptionID: optionID}}
}

// Cancelled answers "cancelled".
func Cancelled() RequestPermissionResponse {
	return RequestPermissionResponse{Outcome: PermissionOutcome{Outcome: OutcomeCancelled}}
}

// ToolCallFields are the ToolCall / ToolCallUpdate fields the bridge reads.
// Every field is optional in an update.
type ToolCallFields struct {
	ToolCallID string          `json:"toolCallId"`
	Title      *string         `json:"title,omitempty"`
	Kind       *string         `json:"kind,omitempty"`
	Status     *string         `json:"status,omitempty"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"`
	Locations  json.RawMessage `json:"locations,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// SessionNotification is the params of session/update. Update stays raw.
type SessionNotification struct {
	SessionID string          `json:"sessionId"`
	Update    json.RawMessage `json:"update"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UpdateKind reads update.sessionUpdate, or "" if absent.
func UpdateKind(update json.RawMessage) string {
	var u struct {
		SessionUpdate string `json:"sessionUpdate"`
	}
	_ = json.Unmarshal(update, &u)
	return u.SessionUpdate
}

// SessionIDParams is any params object whose only field the bridge needs is sessionId.
type SessionIDParams struct {
	SessionID string `json:"sessionId"`
}

// NewSessionRequest is the params of session/new.
type NewSessionRequest struct {
	Cwd                   string          `json:"cwd"`
	McpServers            json.RawMessage `json:"mcpServers"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	Meta                  json.RawMessage `json:"_meta,omitempty"`
}

// PromptResponse is the result of session/prompt.
type PromptResponse struct {
	StopReason string          `json:"stopReason"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// Stop reasons.
const (
	StopEndTurn   = "end_turn"
	StopCancelled = "cancelled"
	StopRefusal   = "refusal"
)

// Object is a JSON object whose members are kept raw, for rewriting one or
// two members of a message and passing the rest through untouched.
type Object map[string]json.RawMessage

// ParseObject decodes raw as a JSON object.
func ParseObject(raw json.RawMessage) (Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return Object{}, nil
	}
	if o, ok := parseObjectFast(raw); ok {
		return o, nil
	}
	var o Object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("params must be a JSON object: %w", err)
	}
	return o, nil
}

// Set marshals v into member key.
func (o Object) Set(key string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("acp: marshal %s: %v", key, err)) // only called with plain values
	}
	o[key] = b
}

// String reads member key as a string ("" if absent or not a string).
func (o Object) String(key string) string {
	var s string
	_ = json.Unmarshal(o[key], &s)
	return s
}

// Marshal encodes the object.
func (o Object) Marshal() json.RawMessage {
	if b, ok := o.marshalFast(); ok {
		return b
	}
	b, _ := json.Marshal(map[string]json.RawMessage(o))
	return b
}

// BridgeMeta reads _meta["acp-bridge"] of a params object into v. Absent is not an error.
func BridgeMeta(o Object, v any) error {
	meta, ok := o["_meta"]
	if !ok {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(meta, &m); err != nil {
		return fmt.Errorf("_meta must be an object: %w", err)
	}
	b, ok := m[MetaKey]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("_meta[%q]: %w", MetaKey, err)
	}
	return nil
}

// SetBridgeMeta sets _meta["acp-bridge"] = v, keeping any other _meta keys.
func SetBridgeMeta(o Object, v any) {
	m := map[string]json.RawMessage{}
	if meta, ok := o["_meta"]; ok {
		_ = json.Unmarshal(meta, &m)
		if m == nil {
			m = map[string]json.RawMessage{}
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("acp: marshal _meta: %v", err))
	}
	m[MetaKey] = b
	o.Set("_meta", m)
}
