package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/wire"
)

// session/resume, session/fork and session/close (issue 20; unstable ACP
// methods an agent offers in agentCapabilities.sessionCapabilities). Each
// goes to the session's agent only when that agent offers it, else -32601
// naming the agent. session/resume is session/load without the replay
// (reopenSession in editor.go). A fork is a new bridge session of the same
// agent process, in the source session's mode and under the same policy and
// sandbox (the agent's process is the one confined); the person's grants
// "for this session" stay with the source. A close first resolves the
// session's pending approvals as cancelled (so an agent waiting on one never
// holds its close up), then asks the agent, then forgets the session.

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
	b.forgetSession(s)
	return res, nil
}

// forgetSession drops a closed session from the bridge's maps; approvals
// it still had were resolved by cancelSession.
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
