package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/wire"
)

// session/resume, session/fork, session/close and session/delete (issue 20;
// methods an agent offers in agentCapabilities.sessionCapabilities). Each
// goes to the session's agent only when that agent offers it, else -32601
// naming the agent. session/resume is session/load without the replay
// (reopenSession in editor.go). A fork is a new bridge session of the same
// agent process, in the source session's mode and under the same policy and
// sandbox (the agent's process is the one confined); the person's grants
// "for this session" stay with the source. A close first resolves the
// session's pending approvals as cancelled (so an agent waiting on one never
// holds its close up), then asks the agent, then releases the terminals the
// agent created in the session and forgets it (endSession).

// requireSessionOp is the -32601 for an agent that does not offer what.
func requireSessionOp(a *agentRT, what string) error {
	if a.offersSession(what) {
		return nil
	}
	return acp.Errorf(acp.CodeMethodNotFound, "session/%s: agent %s does not offer it (its initialize lists no sessionCapabilities.%s)", what, a.name, what)
}

func (b *Bridge) forkSession(ctx context.Context, params json.RawMessage) (any, error) {
	method := acp.MethodSessionFork
	o, id, cwd, addDirs, err := sessionRefParams(method, params)
	if err != nil {
		return nil, err
	}
	src, err := b.session(id)
	if err != nil {
		return nil, err
	}
	a := src.agent
	if err := b.sessionsBlocked(method); err != nil {
		return nil, err
	}
	conn, err := a.sessionConn(ctx, src)
	if err != nil {
		return nil, err
	}
	if err := requireSessionOp(a, "fork"); err != nil {
		return nil, err
	}
	if err := a.checkMCPServers(method, o); err != nil {
		return nil, err
	}
	stripBridgeMeta(o)
	o.Set("sessionId", src.childID)
	a.beginOpening()
	defer a.endOpening(context.WithoutCancel(ctx))
	var res json.RawMessage
	if err := conn.Call(ctx, method, o.Marshal(), &res); err != nil {
		return nil, a.callError(method, err)
	}
	if res, err = a.cleanResult(method, res); err != nil {
		return nil, err
	}
	ro, err := acp.ParseObject(res)
	if err != nil {
		return nil, acp.Errorf(acp.CodeInternalError, "agent %s answered %s with a non-object: %v", a.name, method, err)
	}
	childID := ro.String("sessionId")
	if childID == "" {
		return nil, acp.Errorf(acp.CodeInternalError, "agent %s answered %s without a sessionId", a.name, method)
	}
	if childID == src.childID {
		return nil, acp.Errorf(acp.CodeInternalError, "agent %s answered %s with the source session's own id", a.name, method)
	}
	if modes, ok := ro["modes"]; ok {
		a.rememberModes(modes)
	}
	s := newSession(uuid.NewString(), a, childID, src.gen, cwd, addDirs)
	s.setTrace(o)
	if m := src.modeOverride(); m != "" {
		s.setMode(m)
	}
	a.registerOpened(s)
	report := b.settleChildMode(ctx, s, conn, ro)
	b.showBridgeModes(ro, s)
	ro.Set("sessionId", s.id)
	acp.SetBridgeMeta(ro, wire.SessionMeta{Agent: a.name, Mode: string(b.effectiveMode(s)), ChildMode: report, Sandbox: a.sandboxSummary(),
		ChildSessionID: s.childID, Capabilities: a.ownCapabilities(), ForkedFrom: src.id})
	return acp.AfterReply{Result: ro.Marshal(), Then: func() {
		b.noticeTrust(s.id)
		a.releaseHeld(context.Background(), s)
		if !report.Asking {
			b.noticeChildMode(s, report.Reason)
		}
	}}, nil
}

func (b *Bridge) closeSession(ctx context.Context, params json.RawMessage) (any, error) {
	method := acp.MethodSessionClose
	s, conn, o, err := b.routed(ctx, method, params)
	if err != nil {
		return nil, err
	}
	if err := requireSessionOp(s.agent, "close"); err != nil {
		return nil, err
	}
	stripBridgeMeta(o)
	b.cancelSession(s.id, method)
	var res json.RawMessage
	if err := conn.Call(ctx, method, o.Marshal(), &res); err != nil {
		return nil, s.agent.callError(method, err)
	}
	if res, err = s.agent.cleanResult(method, res); err != nil {
		return nil, err
	}
	b.endSession(ctx, s, method)
	return res, nil
}

// deleteSession serves session/delete: to the agent that owns the id, when
// it offers sessionCapabilities.delete. The id is a bridge session id (the
// session's agent, its own id), else an agent's own id: of the agent named
// in _meta["acp-bridge"].agent, else of the one agent whose session/list
// named it. An id no agent is known to own is refused (-32602): a delete
// sent to a guessed agent would "succeed silently" (ACP) having deleted
// nothing, or delete another agent's session of the same id. A live
// session is ended as a close ends it: its pending approvals are answered
// cancelled first, and after the agent's answer its terminals are released
// and the bridge forgets it.
func (b *Bridge) deleteSession(ctx context.Context, params json.RawMessage) (any, error) {
	method := acp.MethodSessionDelete
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	id := o.String("sessionId")
	if id == "" {
		return nil, acp.InvalidParams(method, errors.New("sessionId is required"))
	}
	var m bridgeMeta
	if err := acp.BridgeMeta(o, &m); err != nil {
		return nil, acp.Errorf(acp.CodeInvalidParams, "%v", err)
	}
	s, a, childID, err := b.sessionOwner(method, id, m.Agent)
	if err != nil {
		return nil, err
	}
	var conn *acp.Conn
	if s != nil {
		conn, err = a.sessionConn(ctx, s)
	} else {
		conn, _, err = a.ensure(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := requireSessionOp(a, "delete"); err != nil {
		return nil, err
	}
	stripBridgeMeta(o)
	o.Set("sessionId", childID)
	if s != nil {
		b.cancelSession(s.id, method)
	}
	var res json.RawMessage
	if err := conn.Call(ctx, method, o.Marshal(), &res); err != nil {
		return nil, a.callError(method, err)
	}
	if res, err = a.cleanResult(method, res); err != nil {
		return nil, err
	}
	if s != nil {
		b.endSession(ctx, s, method)
	}
	a.forgetListed(childID)
	return res, nil
}

// sessionOwner finds the agent that owns id for method: a live bridge
// session (s non-nil), the live session of the named agent whose own id it
// is, or an agent's own id (s nil) of the agent named, else of the single
// agent whose session/list named it.
func (b *Bridge) sessionOwner(method, id, named string) (s *session, a *agentRT, childID string, err error) {
	if s, err := b.session(id); err == nil && (named == "" || named == s.agent.name) {
		return s, s.agent, s.childID, nil
	}
	if named != "" {
		if a, err = b.agent(named); err != nil {
			return nil, nil, "", err
		}
		if bid := a.bridgeIDFor(id); bid != "" {
			if s, err := b.session(bid); err == nil {
				return s, a, s.childID, nil
			}
		}
		return nil, a, id, nil
	}
	b.mu.Lock()
	var owners []*agentRT
	for _, x := range b.agents {
		if x.wasListed(id) {
			owners = append(owners, x)
		}
	}
	b.mu.Unlock()
	switch len(owners) {
	case 1:
		a = owners[0]
		if bid := a.bridgeIDFor(id); bid != "" {
			if s, err := b.session(bid); err == nil {
				return s, a, s.childID, nil
			}
		}
		return nil, a, id, nil
	case 0:
		return nil, nil, "", acp.InvalidParams(method, fmt.Errorf(
			"session %q is not a session of acp-bridge and no agent's session/list named it: name its agent in _meta[%q].agent", id, acp.MetaKey))
	}
	names := make([]string, len(owners))
	for i, x := range owners {
		names[i] = x.name
	}
	sort.Strings(names)
	return nil, nil, "", acp.InvalidParams(method, fmt.Errorf(
		"session %q was listed by more than one agent (%s): name its agent in _meta[%q].agent", id, strings.Join(names, ", "), acp.MetaKey))
}

// endSession ends a closed or deleted session at the bridge: the bridge
// forgets it, then the terminals its agent created in it are released in
// the editor (their processes end, as the editor's terminal/release ends
// them).
// Approvals it still had were resolved by cancelSession.
//
// Forgotten first: a terminal/create of the session the editor answers
// after this (ownTerminal) finds the session gone and is released at once.
func (b *Bridge) endSession(ctx context.Context, s *session, why string) {
	b.forgetSession(s)
	s.agent.releaseSessionTerminals(ctx, s.id, why)
}

// forgetSession drops a closed session from the bridge's maps.
func (b *Bridge) forgetSession(s *session) {
	b.mu.Lock()
	if b.sessions[s.id] == s {
		delete(b.sessions, s.id)
	}
	b.mu.Unlock()
	s.agent.removeSession(s)
}

// sessionRefParams reads the params every call on an existing session
// shares (session/load, resume, fork): the object, its sessionId, cwd and
// additionalDirectories checked as paths, and mcpServers defaulted to [].
func sessionRefParams(method string, params json.RawMessage) (o acp.Object, id, cwd string, addDirs []string, err error) {
	o, err = acp.ParseObject(params)
	if err != nil {
		return nil, "", "", nil, acp.InvalidParams(method, err)
	}
	id = o.String("sessionId")
	if id == "" {
		return nil, "", "", nil, acp.InvalidParams(method, errors.New("sessionId is required"))
	}
	if cwd, err = pathParam(method, o, "cwd", true); err != nil {
		return nil, "", "", nil, err
	}
	if addDirs, err = pathListParam(method, o, "additionalDirectories"); err != nil {
		return nil, "", "", nil, err
	}
	if _, ok := o["mcpServers"]; !ok {
		o.Set("mcpServers", []any{})
	}
	return o, id, cwd, addDirs, nil
}
