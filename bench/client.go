package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Envelope is one JSON-RPC message, undecoded below the top level.
type Envelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// RPCError is an error answer.
type RPCError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// Client is the editor side of a benchmark: a lean NDJSON JSON-RPC client.
// It does the least an editor must do, so that the client is not what is
// measured: a session/update is recognised by its method near the start of
// the line and handed to OnUpdate undecoded; every other line is decoded.
type Client struct {
	// OnUpdate runs inline on the read loop for each session/update line.
	// line is only valid during the call.
	OnUpdate func(line []byte, at time.Time)
	// OnNotify runs inline for every other notification.
	OnNotify func(method string, params json.RawMessage)
	// OnRequest answers a request from the peer, in its own goroutine.
	// A nil result is sent as {}.
	OnRequest func(method string, params json.RawMessage) (any, *RPCError)

	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan Envelope
	done    chan struct{}
	err     error

	BytesIn atomic.Int64 // bytes read, newlines included
}

// NewClient returns a client writing to w; Run reads r.
func NewClient(w io.Writer) *Client {
	return &Client{w: w, pending: map[int64]chan Envelope{}, done: make(chan struct{})}
}

var updateMarker = []byte(`"method":"session/update"`)

// isUpdate reports whether line is a session/update notification. The
// method is looked for in the first 64 bytes: both encoders (jsonrpc2's,
// which sorts keys, and the bench agent's) put it there.
func isUpdate(line []byte) bool {
	head := line[:min(len(line), 64)]
	return bytes.Contains(head, updateMarker) && !bytes.Contains(head, []byte(`"id":`))
}

// Run reads messages until r fails; it then fails every pending call.
func (c *Client) Run(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var line []byte
	var err error
	for {
		line, err = readLine(br, line[:0])
		c.BytesIn.Add(int64(len(line) + 1))
		if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// Done is closed when Run returns.
func (c *Client) Done() <-chan struct{} { return c.done }

func (c *Client) dispatch(line []byte) {
	now := time.Now()
	if isUpdate(line) {
		if c.OnUpdate != nil {
			c.OnUpdate(line, now)
		}
		return
	}
	var env Envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return
	}
	switch {
	case env.Method == "" && env.ID != nil:
		id, err := strconv.ParseInt(string(env.ID), 10, 64)
		if err != nil {
			return
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- env
		}
	case env.ID == nil:
		if c.OnNotify != nil {
			c.OnNotify(env.Method, env.Params)
		}
	default:
		go c.serve(env)
	}
}

func (c *Client) serve(env Envelope) {
	var res any
	var rerr *RPCError
	if c.OnRequest != nil {
		res, rerr = c.OnRequest(env.Method, env.Params)
	} else {
		rerr = &RPCError{Code: -32601, Message: "method not found: " + env.Method}
	}
	var msg map[string]any
	if rerr != nil {
		msg = map[string]any{"jsonrpc": "2.0", "id": env.ID, "error": rerr}
	} else {
		if res == nil {
			res = struct{}{}
		}
		msg = map[string]any{"jsonrpc": "2.0", "id": env.ID, "result": res}
	}
	_ = c.send(msg)
}

func (c *Client) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(b)
	return err
}

// Start sends a request and returns a channel that receives its answer (or
// is closed if the connection ends first).
func (c *Client) Start(method string, params any) (<-chan Envelope, error) {
	ch := make(chan Envelope, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: connection closed: %w", method, c.err)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return ch, nil
}

// Call sends a request and waits for its answer; result may be nil.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	ch, err := c.Start(method, params)
	if err != nil {
		return err
	}
	select {
	case env, ok := <-ch:
		return decodeAnswer(method, env, ok, result)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func decodeAnswer(method string, env Envelope, ok bool, result any) error {
	if !ok {
		return fmt.Errorf("%s: connection closed before the answer", method)
	}
	if env.Error != nil {
		var e RPCError
		_ = json.Unmarshal(env.Error, &e)
		return fmt.Errorf("%s: %w", method, &e)
	}
	if result != nil {
		if err := json.Unmarshal(env.Result, result); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
	}
	return nil
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Initialize runs initialize (no fs, no terminal).
func (c *Client) Initialize(ctx context.Context) error {
	return c.Call(ctx, "initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]string{"name": "acp-bench", "version": "1"},
	}, nil)
}

// NewSession opens a session (with agent, if not "", in _meta["acp-bridge"]).
func (c *Client) NewSession(ctx context.Context, cwd, agent string) (string, error) {
	params := map[string]any{"cwd": cwd, "mcpServers": []any{}}
	if agent != "" {
		params["_meta"] = map[string]any{"acp-bridge": map[string]string{"agent": agent}}
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.Call(ctx, "session/new", params, &res); err != nil {
		return "", err
	}
	return res.SessionID, nil
}

// Prompt sends a prompt and waits for its stop reason.
func (c *Client) Prompt(ctx context.Context, sid, text string) (string, error) {
	var res struct {
		StopReason string `json:"stopReason"`
	}
	err := c.Call(ctx, "session/prompt", map[string]any{
		"sessionId": sid, "prompt": []map[string]string{{"type": "text", "text": text}},
	}, &res)
	return res.StopReason, err
}

// Marker returns the text between "#NAME:" and the next "#" in line.
func Marker(line []byte, name string) ([]byte, bool) {
	key := []byte("#" + name + ":")
	i := bytes.Index(line, key)
	if i < 0 {
		return nil, false
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '#')
	if j < 0 {
		return nil, false
	}
	return rest[:j], true
}

// SessionOf returns the sessionId of a session/update line.
func SessionOf(line []byte) string {
	var p struct {
		Params struct {
			SessionID string `json:"sessionId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(line, &p)
	return p.Params.SessionID
}

// AllowOnce picks the first allow_once option of a session/request_permission.
func AllowOnce(params json.RawMessage) (any, *RPCError) {
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &RPCError{Code: -32602, Message: err.Error()}
	}
	for _, o := range p.Options {
		if o.Kind == "allow_once" {
			return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": o.OptionID}}, nil
		}
	}
	return map[string]any{"outcome": map[string]string{"outcome": "cancelled"}}, nil
}
