package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
)

// Message is one message the fake editor received.
type Message struct {
	Method string
	Params json.RawMessage
	Notif  bool
	At     time.Time
}

// PermissionRequest is a session/request_permission the editor received.
type PermissionRequest struct {
	Params json.RawMessage
	Meta   struct {
		ApprovalID     string   `json:"approvalId"`
		Agent          string   `json:"agent"`
		SessionID      string   `json:"sessionId"`
		ToolCallID     string   `json:"toolCallId"`
		Tool           string   `json:"tool"`
		Specifier      string   `json:"specifier"`
		MatchedRule    string   `json:"matchedRule"`
		Source         string   `json:"source"`
		Reason         string   `json:"reason"`
		Mode           string   `json:"mode"`
		Breaker        string   `json:"breaker"`
		SuggestedRules []string `json:"suggestedRules"`
		ExpiresAt      string   `json:"expiresAt"`
	}
	SessionID string
	ToolCall  acp.ToolCallFields
	Options   []acp.PermissionOption
	ctx       context.Context
	answer    chan acp.RequestPermissionResponse
}

// Answer replies to the request.
func (p *PermissionRequest) Answer(r acp.RequestPermissionResponse) { p.answer <- r }

// Withdrawn is closed when the bridge sent $/cancel_request for it.
func (p *PermissionRequest) Withdrawn() <-chan struct{} { return p.ctx.Done() }

// HasOption reports whether optionId was offered.
func (p *PermissionRequest) HasOption(id string) bool {
	for _, o := range p.Options {
		if o.OptionID == id {
			return true
		}
	}
	return false
}

// Editor is a fake editor: an ACP client of the bridge.
type Editor struct {
	Conn        *acp.Conn
	Permissions chan *PermissionRequest
	// OnRequest, if set, answers other requests from the bridge (fs, terminal, settings/persist).
	OnRequest func(method string, params json.RawMessage) (any, error)

	mu       sync.Mutex
	messages []Message
	tap      bool          // RecordWire was called: keep wire
	wire     []byte        // every byte read from the bridge since RecordWire, as read
	changed  chan struct{} // closed and replaced whenever a message or wire bytes are recorded
}

// wireTap records what the editor reads, for WaitWire.
type wireTap struct {
	r io.Reader
	e *Editor
}

func (t wireTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.e.mu.Lock()
		if t.e.tap {
			t.e.wire = append(t.e.wire, p[:n]...)
			close(t.e.changed)
			t.e.changed = make(chan struct{})
		}
		t.e.mu.Unlock()
	}
	return n, err
}

// RecordWire starts keeping what the editor reads (for WaitWire); off by
// default, so floods do not fill the test's memory.
func (e *Editor) RecordWire() {
	e.mu.Lock()
	e.tap = true
	e.mu.Unlock()
}

// WaitWire waits until done, given every whole line the bridge wrote since
// RecordWire, says so: for what the fake editor's connection does not keep
// (answers to requests written raw, errors with a null id).
func (e *Editor) WaitWire(ctx context.Context, what string, done func(lines []string) bool) error {
	for {
		e.mu.Lock()
		wire, ch := string(e.wire), e.changed
		e.mu.Unlock()
		var lines []string
		if i := strings.LastIndexByte(wire, '\n'); i >= 0 {
			lines = strings.Split(wire[:i], "\n")
		}
		if done(lines) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// NewEditor connects a fake editor to a bridge's stdin (w) and stdout (r).
func NewEditor(ctx context.Context, r io.Reader, w io.WriteCloser) *Editor {
	e := &Editor{Permissions: make(chan *PermissionRequest, 1024), changed: make(chan struct{})}
	gate := make(chan struct{})
	e.Conn = acp.NewConn(ctx, acp.NewStream(wireTap{r: r, e: e}, w, w, acp.StreamOptions{}), e, acp.ConnOptions{Gate: gate})
	close(gate)
	return e
}

func (e *Editor) record(m Message) {
	e.mu.Lock()
	e.messages = append(e.messages, m)
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// HandleNotification records in arrival order.
func (e *Editor) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	e.record(Message{Method: method, Params: append(json.RawMessage(nil), params...), Notif: true, At: time.Now()})
}

// HandleRequest records and serves requests from the bridge.
func (e *Editor) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	e.record(Message{Method: method, Params: append(json.RawMessage(nil), params...), At: time.Now()})
	if method == acp.MethodRequestPermission {
		p := &PermissionRequest{Params: params, ctx: ctx, answer: make(chan acp.RequestPermissionResponse, 1)}
		var body struct {
			SessionID string                 `json:"sessionId"`
			ToolCall  acp.ToolCallFields     `json:"toolCall"`
			Options   []acp.PermissionOption `json:"options"`
		}
		if err := json.Unmarshal(params, &body); err != nil {
			return nil, err
		}
		p.SessionID, p.ToolCall, p.Options = body.SessionID, body.ToolCall, body.Options
		_ = acp.BridgeMeta(mustObject(params), &p.Meta)
		e.Permissions <- p
		select {
		case r := <-p.answer:
			return r, nil
		case <-ctx.Done():
			return acp.Cancelled(), nil
		}
	}
	if e.OnRequest != nil {
		return e.OnRequest(method, params)
	}
	return nil, acp.MethodNotFound(method)
}

func mustObject(raw json.RawMessage) acp.Object {
	o, err := acp.ParseObject(raw)
	if err != nil {
		return acp.Object{}
	}
	return o
}

// Messages returns a copy of everything received so far.
func (e *Editor) Messages() []Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Message(nil), e.messages...)
}

// WaitFor waits until match returns true for the messages received so far.
func (e *Editor) WaitFor(ctx context.Context, what string, match func([]Message) bool) error {
	for {
		e.mu.Lock()
		msgs := append([]Message(nil), e.messages...)
		ch := e.changed
		e.mu.Unlock()
		if match(msgs) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// NextPermission waits for the next permission request.
func (e *Editor) NextPermission(ctx context.Context) (*PermissionRequest, error) {
	select {
	case p := <-e.Permissions:
		return p, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for a permission request: %w", ctx.Err())
	}
}

// Initialize runs initialize with the given capabilities.
func (e *Editor) Initialize(ctx context.Context, fs, terminal bool) (json.RawMessage, error) {
	var res json.RawMessage
	err := e.Conn.Call(ctx, acp.MethodInitialize, map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": fs, "writeTextFile": fs}, "terminal": terminal},
		"clientInfo":         map[string]string{"name": "fake-editor", "version": "1"},
	}, &res)
	return res, err
}

// NewSession opens a session with an agent ("" = default) and returns its id.
func (e *Editor) NewSession(ctx context.Context, cwd, agent string) (string, error) {
	params := map[string]any{"cwd": cwd, "mcpServers": []any{}}
	if agent != "" {
		params["_meta"] = map[string]any{"acp-bridge": map[string]string{"agent": agent}}
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := e.Conn.Call(ctx, acp.MethodSessionNew, params, &res); err != nil {
		return "", err
	}
	return res.SessionID, nil
}

// Prompt sends a prompt and returns the stop reason.
func (e *Editor) Prompt(ctx context.Context, sessionID, text string) (string, error) {
	var res acp.PromptResponse
	err := e.Conn.Call(ctx, acp.MethodSessionPrompt, map[string]any{
		"sessionId": sessionID, "prompt": []map[string]string{{"type": "text", "text": text}},
	}, &res)
	return res.StopReason, err
}

// Updates returns the session/update notifications of a session, in order.
func Updates(msgs []Message, sessionID string) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range msgs {
		if m.Method != acp.MethodSessionUpdate {
			continue
		}
		var p acp.SessionNotification
		if json.Unmarshal(m.Params, &p) == nil && p.SessionID == sessionID {
			out = append(out, p.Update)
		}
	}
	return out
}

// Texts returns the text of agent_message_chunk updates of a session, in order.
func Texts(msgs []Message, sessionID string) []string {
	var out []string
	for _, u := range Updates(msgs, sessionID) {
		var x struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(u, &x) == nil && x.SessionUpdate == "agent_message_chunk" {
			out = append(out, x.Content.Text)
		}
	}
	return out
}

// Resolved returns the _acp-bridge/approval/resolved notifications.
func Resolved(msgs []Message) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if m.Method == acp.MethodApprovalResolved {
			var x map[string]any
			if json.Unmarshal(m.Params, &x) == nil {
				out = append(out, x)
			}
		}
	}
	return out
}
