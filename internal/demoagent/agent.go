package demoagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// AgentName is agentInfo.name in the initialize result.
const AgentName = "acp-bridge-demo"

// DefaultDelay is the pause between streamed steps that `acp-bridge
// demo-agent` should use; SlowDelay is the pause of a prompt saying "slow".
const (
	DefaultDelay = 40 * time.Millisecond
	SlowDelay    = 500 * time.Millisecond
)

// Mode ids the agent offers.
const (
	ModeDefault     = "default"
	ModeAcceptEdits = "acceptEdits"
	ModePlan        = "plan"
	ModeBypass      = "bypassPermissions"
)

var modes = []acp.SessionMode{
	{ID: ModeDefault, Name: "Default", Description: "Ask before every tool call"},
	{ID: ModeAcceptEdits, Name: "Accept Edits", Description: "Edit files without asking; ask for the rest"},
	{ID: ModePlan, Name: "Plan Mode", Description: "Read and run tests only; never edit or delete"},
	{ID: ModeBypass, Name: "Bypass Permissions", Description: "Run every tool call without asking"},
}

// Options configures Serve.
type Options struct {
	// Delay is the pause between streamed steps. Zero means no pause (tests);
	// the CLI passes DefaultDelay.
	Delay time.Duration
	// Logger receives diagnostics; nil discards them. Never stdout.
	Logger *zap.Logger
	// Version is agentInfo.version; "" means the module version from the
	// build info ("dev" when there is none).
	Version string
}

// Serve serves ACP v1 as an agent over NDJSON on in/out until in reaches EOF
// (nil) or ctx ends (ctx.Err()). in and out are closed on return when they
// are io.Closers.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Version == "" {
		opts.Version = buildVersion()
	}
	log := opts.Logger
	a := &agent{opts: opts, log: log, sessions: map[string]*session{}, ready: make(chan struct{})}
	stream := acp.NewStream(in, out, closers{in, out}, acp.StreamOptions{
		OnDrop: func(ev acp.StreamEvent) {
			log.Warn("dropped input line", zap.String("kind", ev.Kind), zap.Int("bytes", ev.Bytes), zap.String("prefix", ev.Prefix), zap.Error(ev.Err))
		},
	})
	conn := acp.NewConn(ctx, stream, a, acp.ConnOptions{
		Logf: func(format string, args ...any) { log.Debug(strings.TrimSpace(fmt.Sprintf(format, args...))) },
	})
	a.peer = conn
	close(a.ready)

	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	_ = conn.Close()
	conn.Wait()
	// jsonrpc2 also closes the conn when ctx ends, so Done may win the race.
	return ctx.Err()
}

// closers closes every member that is an io.Closer.
type closers []any

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		if cl, ok := c.(io.Closer); ok {
			if err := cl.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

type agent struct {
	opts Options
	log  *zap.Logger

	ready chan struct{} // closed once peer is set
	peer  acp.Peer

	mu       sync.Mutex
	sessions map[string]*session
	order    []string // session ids in creation order
}

type session struct {
	id  string
	cwd string

	// guarded by agent.mu
	mode      string
	title     string
	updatedAt time.Time
	turn      *turn
	always    map[string]bool // "always allow" keys chosen in this session
	nextTool  int
}

// turn is one running session/prompt.
type turn struct {
	cancel context.CancelFunc
}

var _ acp.Handler = (*agent)(nil)

// HandleNotification implements acp.Handler. It runs on the read loop.
func (a *agent) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != acp.MethodSessionCancel {
		a.log.Debug("ignoring notification", zap.String("method", method))
		return
	}
	var p acp.SessionIDParams
	if err := json.Unmarshal(params, &p); err != nil {
		a.log.Warn("bad session/cancel", zap.Error(err))
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[p.SessionID]
	if s == nil {
		a.log.Warn("session/cancel for an unknown session", zap.String("sessionId", p.SessionID))
		return
	}
	if s.turn != nil {
		s.turn.cancel()
	}
}

// HandleRequest implements acp.Handler. Each request runs in its own goroutine.
func (a *agent) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	select {
	case <-a.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	switch method {
	case acp.MethodInitialize:
		return a.initialize(params)
	case acp.MethodAuthenticate:
		return nil, acp.InvalidParams(method, errors.New("this agent has no auth methods"))
	case acp.MethodSessionNew:
		return a.newSession(params)
	case acp.MethodSessionList:
		return a.listSessions(params)
	case acp.MethodSessionSetMode:
		return a.setMode(ctx, params)
	case acp.MethodSessionPrompt:
		return a.prompt(ctx, params)
	default:
		return nil, acp.MethodNotFound(method)
	}
}

// decode unmarshals params into v, requiring a JSON object.
func decode(method string, params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return acp.InvalidParams(method, errors.New("params are required"))
	}
	if err := json.Unmarshal(params, v); err != nil {
		return acp.InvalidParams(method, err)
	}
	return nil
}

func (a *agent) initialize(params json.RawMessage) (any, error) {
	var p struct {
		ProtocolVersion *int `json:"protocolVersion"`
	}
	if err := decode(acp.MethodInitialize, params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == nil {
		return nil, acp.InvalidParams(acp.MethodInitialize, errors.New("protocolVersion is required"))
	}
	// An agent answers with the latest version it supports; the client
	// decides whether that is acceptable.
	return map[string]any{
		"protocolVersion": acp.ProtocolVersion,
		"agentCapabilities": map[string]any{
			"loadSession":         false,
			"promptCapabilities":  map[string]bool{"image": false, "audio": false, "embeddedContext": true},
			"sessionCapabilities": map[string]any{"list": map[string]any{}},
		},
		"agentInfo":   acp.Implementation{Name: AgentName, Title: "acp-bridge demo agent", Version: a.opts.Version},
		"authMethods": []any{},
	}, nil
}

func (a *agent) newSession(params json.RawMessage) (any, error) {
	var p struct {
		Cwd        string          `json:"cwd"`
		McpServers json.RawMessage `json:"mcpServers"`
	}
	if err := decode(acp.MethodSessionNew, params, &p); err != nil {
		return nil, err
	}
	var errs []error
	switch {
	case p.Cwd == "":
		errs = append(errs, errors.New("cwd is required"))
	case !filepath.IsAbs(p.Cwd) && !strings.HasPrefix(p.Cwd, "/"):
		errs = append(errs, fmt.Errorf("cwd must be an absolute path, got %q", p.Cwd))
	}
	var servers []json.RawMessage
	if len(p.McpServers) == 0 || string(p.McpServers) == "null" {
		errs = append(errs, errors.New("mcpServers is required (it may be [])"))
	} else if err := json.Unmarshal(p.McpServers, &servers); err != nil {
		errs = append(errs, fmt.Errorf("mcpServers must be an array: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionNew, err)
	}
	now := time.Now().UTC()
	s := &session{
		id:        "demo-" + uuid.NewString(),
		cwd:       p.Cwd,
		mode:      ModeDefault,
		updatedAt: now,
		always:    map[string]bool{},
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.order = append(a.order, s.id)
	a.mu.Unlock()
	a.log.Info("session created", zap.String("sessionId", s.id), zap.String("cwd", s.cwd))
	return map[string]any{
		"sessionId": s.id,
		"modes":     acp.SessionModeState{CurrentModeID: ModeDefault, AvailableModes: modes},
	}, nil
}

func (a *agent) listSessions(params json.RawMessage) (any, error) {
	var p struct {
		Cwd string `json:"cwd"`
	}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acp.InvalidParams(acp.MethodSessionList, err)
		}
	}
	type info struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
		Title     string `json:"title,omitempty"`
		UpdatedAt string `json:"updatedAt"`
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []info{}
	for _, id := range a.order {
		s := a.sessions[id]
		if p.Cwd != "" && s.cwd != p.Cwd {
			continue
		}
		out = append(out, info{SessionID: s.id, Cwd: s.cwd, Title: s.title, UpdatedAt: s.updatedAt.Format(time.RFC3339)})
	}
	return map[string]any{"sessions": out}, nil
}

// lookup returns the session named by a request, or an invalid-params error.
func (a *agent) lookup(method, id string) (*session, error) {
	if id == "" {
		return nil, acp.InvalidParams(method, errors.New("sessionId is required"))
	}
	a.mu.Lock()
	s := a.sessions[id]
	a.mu.Unlock()
	if s == nil {
		return nil, acp.InvalidParams(method, fmt.Errorf("unknown sessionId %q", id))
	}
	return s, nil
}

func modeIDs() []string {
	ids := make([]string, len(modes))
	for i, m := range modes {
		ids[i] = m.ID
	}
	return ids
}

func (a *agent) setMode(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	if err := decode(acp.MethodSessionSetMode, params, &p); err != nil {
		return nil, err
	}
	s, err := a.lookup(acp.MethodSessionSetMode, p.SessionID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(modeIDs(), p.ModeID) {
		return nil, acp.InvalidParams(acp.MethodSessionSetMode,
			fmt.Errorf("unknown modeId %q; valid ids: %s", p.ModeID, strings.Join(modeIDs(), ", ")))
	}
	a.mu.Lock()
	s.mode = p.ModeID
	a.mu.Unlock()
	a.log.Info("mode set", zap.String("sessionId", s.id), zap.String("mode", p.ModeID))
	err = a.peer.Notify(ctx, acp.MethodSessionUpdate, acp.SessionNotification{
		SessionID: s.id,
		Update:    mustJSON(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": p.ModeID}),
	})
	if err != nil {
		return nil, fmt.Errorf("send current_mode_update: %w", err)
	}
	return map[string]any{}, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("demoagent: marshal: %v", err)) // only plain values
	}
	return b
}

// promptText validates a prompt's content blocks and returns their text,
// and one line per context block (resource_link, resource) saying what came.
func promptText(blocks []json.RawMessage) (string, []string, error) {
	if len(blocks) == 0 {
		return "", nil, errors.New("prompt must not be empty")
	}
	var parts, context []string
	for i, raw := range blocks {
		var b struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			URI      string `json:"uri"`
			Resource *struct {
				URI  string  `json:"uri"`
				Text *string `json:"text"`
				Blob *string `json:"blob"`
			} `json:"resource"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return "", nil, fmt.Errorf("prompt[%d]: %w", i, err)
		}
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "resource_link":
			if b.URI == "" {
				return "", nil, fmt.Errorf("prompt[%d]: resource_link needs a uri", i)
			}
			context = append(context, "resource_link "+b.URI)
		case "resource":
			if b.Resource == nil || b.Resource.URI == "" {
				return "", nil, fmt.Errorf("prompt[%d]: resource needs resource.uri", i)
			}
			switch {
			case b.Resource.Text != nil:
				context = append(context, fmt.Sprintf("resource %s (%d bytes of text)", b.Resource.URI, len(*b.Resource.Text)))
			case b.Resource.Blob != nil:
				context = append(context, fmt.Sprintf("resource %s (blob)", b.Resource.URI))
			default:
				return "", nil, fmt.Errorf("prompt[%d]: resource needs text or blob", i)
			}
		case "":
			return "", nil, fmt.Errorf("prompt[%d]: type is required", i)
		default:
			return "", nil, fmt.Errorf("prompt[%d]: content type %q is not supported by this agent (see promptCapabilities)", i, b.Type)
		}
	}
	return strings.Join(parts, "\n"), context, nil
}

func (a *agent) prompt(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
	}
	if err := decode(acp.MethodSessionPrompt, params, &p); err != nil {
		return nil, err
	}
	s, err := a.lookup(acp.MethodSessionPrompt, p.SessionID)
	if err != nil {
		return nil, err
	}
	text, attached, err := promptText(p.Prompt)
	if err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionPrompt, err)
	}

	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	if s.turn != nil {
		a.mu.Unlock()
		return nil, acp.Errorf(acp.CodeInvalidRequest, "session %s already has a prompt running", s.id)
	}
	t := &turn{cancel: cancel}
	s.turn = t
	if s.title == "" {
		s.title = truncate(strings.TrimSpace(text), 60)
	}
	s.updatedAt = time.Now().UTC()
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		if s.turn == t {
			s.turn = nil
		}
		s.updatedAt = time.Now().UTC()
		a.mu.Unlock()
	}()

	r := &run{a: a, s: s, ctx: tctx, delay: a.opts.Delay, context: attached}
	stop, err := r.play(text)
	if err != nil {
		if tctx.Err() != nil {
			// Whatever failed, it failed because the turn was cancelled.
			return acp.PromptResponse{StopReason: acp.StopCancelled}, nil
		}
		return nil, err
	}
	a.log.Info("turn ended", zap.String("sessionId", s.id), zap.String("stopReason", stop))
	return acp.PromptResponse{StopReason: stop}, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
