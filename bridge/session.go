package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/profiles"
)

// session is one bridge session: the editor's id for a session of one agent.
type session struct {
	id      string // the bridge's id, given to the editor
	idQuote []byte // id as a JSON string, made once, spliced into forwarded updates
	agent   *agentRT
	childID string // the agent's id for it
	gen     int    // the agent process generation that created it
	cwd     string
	addDirs []string
	cache   *profiles.ToolCallCache
	trace   atomic.Pointer[string] // _meta.traceparent of the latest prompt (trace.go)

	// holding and held: updates that arrived before the editor had this
	// session's id; guarded by agent.fwdMu (see updates.go).
	holding bool
	held    []update

	mu   sync.Mutex
	mode policy.Mode // "" = the agent's / global default
	// shown: the mode the editor was last told (a session result, a set_mode,
	// a current_mode_update after a settings change); "" = not told yet.
	shown  policy.Mode
	child  childModeState // the child's own mode (modes.go)
	grants []policy.RuleText
	grantP *policy.Policy // compiled grants, nil when none
	turns  map[*turn]struct{}
	// cancelled is set by session/cancel and cleared when a new turn starts:
	// permission requests arriving in between are answered "cancelled".
	cancelled bool
	// unasked: the tool calls asked about or judged as run unasked (unasked.go).
	unasked unaskedState
	// created: protected paths missing at the start, checked after each turn (created.go).
	created *createdWatch
	// denials: calls denied since the last prompt, told to the agent's
	// model at the start of the next one (denials.go). Under mu.
	denials []string
}

// turn is one session/prompt in flight.
type turn struct {
	cancelled bool // guarded by session.mu
	sent      bool // the prompt went to the child; guarded by session.mu
}

type turnKey struct{}

func withTurn(ctx context.Context, t *turn) context.Context {
	return context.WithValue(ctx, turnKey{}, t)
}
func turnFrom(ctx context.Context) *turn {
	t, _ := ctx.Value(turnKey{}).(*turn)
	return t
}

func newSession(id string, a *agentRT, childID string, gen int, cwd string, addDirs []string) *session {
	idQuote, _ := json.Marshal(id)
	return &session{
		id: id, idQuote: idQuote, agent: a, childID: childID, gen: gen, cwd: cwd, addDirs: addDirs,
		cache:   profiles.NewToolCallCache(1024),
		turns:   map[*turn]struct{}{},
		created: newCreatedWatch(append([]string{cwd}, addDirs...)...),
	}
}

// beginTurn registers a prompt (inline, on the editor's read loop).
func (s *session) beginTurn() *turn {
	t := &turn{}
	s.mu.Lock()
	s.turns[t] = struct{}{}
	s.cancelled = false
	s.mu.Unlock()
	return t
}

func (s *session) endTurn(t *turn) (cancelled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.turns, t)
	if len(s.turns) == 0 {
		s.cancelled = false
	}
	return t.cancelled
}

// cancel marks every turn cancelled; it reports whether any prompt already
// reached the child (then the child must be told).
func (s *session) cancel() (anySent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled = true
	for t := range s.turns {
		t.cancelled = true
		anySent = anySent || t.sent
	}
	return anySent
}

func (s *session) isCancelled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

func (s *session) setMode(m policy.Mode) {
	s.mu.Lock()
	s.mode = m
	if m != "" {
		s.shown = m // the editor learns it from the answer
	}
	s.mu.Unlock()
}

func (s *session) modeOverride() policy.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// grant adds an "Allow for this session" rule.
func (s *session) grant(rule string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.grants {
		if g.Text == rule {
			return nil
		}
	}
	next := append(append([]policy.RuleText(nil), s.grants...), policy.RuleText{
		List: "allow", Text: rule, Origin: policy.Origin{Layer: "session", Root: s.cwd},
	})
	p, errs := policy.Compile(next)
	if len(errs) > 0 {
		return errs[0]
	}
	s.grants, s.grantP = next, p
	return nil
}

func (s *session) revoke(rule string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, g := range s.grants {
		if g.Text == rule {
			next := append(append([]policy.RuleText(nil), s.grants[:i]...), s.grants[i+1:]...)
			s.grants = next
			s.grantP = nil
			if len(next) > 0 {
				s.grantP, _ = policy.Compile(next)
			}
			return true
		}
	}
	return false
}

func (s *session) grantPolicy() (*policy.Policy, []policy.RuleText) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grantP, s.grants
}

// Paths the bridge judges or hands on (a session's cwd and additional
// directories, a child's fs path or terminal cwd) are refused, as invalid
// params naming the field, unless they are plain: a JSON string of valid
// UTF-8 (encoding/json would quietly turn bad bytes and lone surrogates
// into U+FFFD, so the policy would judge another path than the one the
// editor or the OS acts on; U+FFFD itself is refused for that reason),
// absolute, without NUL, and without a ".." element (which the policy
// would resolve lexically and the OS through symlinks).

// pathParam reads and checks the path at o[field]; required says whether
// it may be absent (then "" is returned).
func pathParam(method string, o acp.Object, field string, required bool) (string, error) {
	raw, ok := o[field]
	if !ok || string(raw) == "null" {
		if required {
			return "", acp.InvalidParams(method, fmt.Errorf("%s is required (an absolute path)", field))
		}
		return "", nil
	}
	return checkPathJSON(method, field, raw)
}

// pathListParam reads and checks o[field], a list of paths (may be absent).
func pathListParam(method string, o acp.Object, field string) ([]string, error) {
	raw, ok := o[field]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, acp.InvalidParams(method, fmt.Errorf("%s must be a list of absolute paths", field))
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		p, err := checkPathJSON(method, fmt.Sprintf("%s[%d]", field, i), it)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// checkPathJSON decodes raw, a JSON string, and checks the path it holds.
func checkPathJSON(method, field string, raw json.RawMessage) (string, error) {
	if !utf8.Valid(raw) {
		return "", acp.InvalidParams(method, fmt.Errorf("%s is not valid UTF-8", field))
	}
	var p string
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", acp.InvalidParams(method, fmt.Errorf("%s must be a string (an absolute path)", field))
	}
	if strings.ContainsRune(p, utf8.RuneError) {
		return "", acp.InvalidParams(method, fmt.Errorf("%s is not valid UTF-8 (it holds U+FFFD or a lone surrogate escape)", field))
	}
	if err := checkPath(p); err != nil {
		return "", acp.InvalidParams(method, fmt.Errorf("%s %w", field, err))
	}
	return p, nil
}

// checkPath checks a decoded path: absolute, no NUL, no ".." element.
func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("is empty; an absolute path is required")
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("holds a NUL byte: %q", p)
	case !filepath.IsAbs(p):
		return fmt.Errorf("must be an absolute path, got %q", p)
	case len(p) > policy.MaxPathLen:
		return fmt.Errorf("is %d bytes long; the system opens no path longer than %d", len(p), policy.MaxPathLen)
	}
	for _, el := range strings.Split(filepath.ToSlash(p), "/") {
		if el == ".." {
			return fmt.Errorf("must not hold a \"..\" element, got %q", p)
		}
	}
	return nil
}
