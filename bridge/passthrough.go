package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// What is not about permissions passes through (docs/agents.md, "What
// passes through"): session/set_model to the session's agent, the editor's
// elicitation capability to every child and a child's elicitation/create to
// the editor, and extension methods (ACP: names that start with "_", other
// than the bridge's own _acp-bridge/*) in both directions, routed by
// sessionId. The permission surface (modes that change asking, permission
// requests, fs/*, terminal/*) stays the bridge's.

// forwardExtension is an editor's request for a session's agent: an
// extension method or session/set_model. The request names its session;
// without one the bridge cannot know which agent it is for.
func (b *Bridge) forwardExtension(ctx context.Context, method string, params json.RawMessage) (any, error) {
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	if o.String("sessionId") == "" {
		return nil, acp.Errorf(acp.CodeMethodNotFound,
			"%s: acp-bridge passes extension methods to the agent of the session they name, and this request names no sessionId", method)
	}
	s, conn, o, err := b.routed(ctx, method, params)
	if err != nil {
		return nil, err
	}
	var res json.RawMessage
	if err := conn.Call(ctx, method, o.Marshal(), &res); err != nil {
		return nil, s.agent.callError(method, err)
	}
	out, ok := s.agent.stripForeign(res, method+" result")
	if !ok {
		return nil, acp.Errorf(acp.CodeInternalError, "%s: agent %s answered with a result acp-bridge cannot read", method, s.agent.name)
	}
	return out, nil
}

// notifyExtension is an editor's extension notification for a session's
// agent. It runs on the editor's read loop, so it never starts an agent or
// waits: a session whose agent is not running drops it (logged).
func (b *Bridge) notifyExtension(method string, params json.RawMessage) {
	o, err := acp.ParseObject(params)
	if err != nil || o.String("sessionId") == "" {
		b.log.Warn("extension notification from the editor names no session; not forwarded", zap.String("method", method))
		return
	}
	s, err := b.session(o.String("sessionId"))
	if err != nil {
		b.log.Warn("extension notification from the editor for an unknown session; not forwarded", zap.String("method", method), zap.Error(err))
		return
	}
	conn := s.agent.connFor(s.gen)
	if conn == nil {
		b.log.Warn("extension notification for a session whose agent is not running; not forwarded", zap.String("method", method), zap.String("session", s.id))
		return
	}
	o.Set("sessionId", s.childID)
	if err := conn.Notify(context.Background(), method, o.Marshal()); err != nil {
		b.log.Warn("extension notification not forwarded", zap.String("method", method), zap.Error(err))
	}
}

// toEditor prepares a child's elicitation/create or extension message for
// the editor: its sessionId (if any) becomes the bridge's, its
// _meta["acp-bridge"] is removed, and an extension message says which agent
// sent it in _meta["acp-bridge"].agent.
func (a *agentRT) toEditor(method string, params json.RawMessage) (json.RawMessage, error) {
	stripped, ok := a.stripForeign(params, method)
	if !ok {
		return nil, errors.New("params cannot be read")
	}
	o, err := acp.ParseObject(stripped)
	if err != nil {
		return nil, err
	}
	if _, has := o["sessionId"]; has {
		s, known := a.sessionFor(o.String("sessionId"))
		if !known || s == nil {
			return nil, fmt.Errorf("session %q is not one of agent %s's sessions", o.String("sessionId"), a.name)
		}
		o.Set("sessionId", s.id)
	}
	if acp.IsAgentExtension(method) {
		meta := acp.Object{}
		if raw, has := o["_meta"]; has {
			if m, err := acp.ParseObject(raw); err == nil {
				meta = m
			}
		}
		meta.Set(acp.MetaKey, map[string]string{"agent": a.name})
		o["_meta"] = meta.Marshal()
	}
	return o.Marshal(), nil
}

// childToEditor serves a child's elicitation/create (only when the editor
// offered elicitation) or extension request by asking the editor.
func (b *Bridge) childToEditor(ctx context.Context, a *agentRT, method string, params json.RawMessage) (any, error) {
	if method == acp.MethodElicitationCreate && len(b.editorCapabilities().Elicitation) == 0 {
		return nil, acp.Errorf(acp.CodeMethodNotFound, "%s: the editor does not offer elicitation", method)
	}
	p, err := a.toEditor(method, params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	var out json.RawMessage
	if err := b.editor.Call(ctx, method, p, &out); err != nil {
		return nil, fmt.Errorf("editor: %w", err)
	}
	return out, nil
}

// childNotification forwards a child's extension notification to the
// editor, on the child's read loop (the editor's queue keeps its order with
// the session/update notifications around it).
func (a *agentRT) childNotification(ctx context.Context, method string, params json.RawMessage) {
	p, err := a.toEditor(method, params)
	if err != nil {
		a.log.Warn("extension notification from the agent not forwarded", zap.String("method", method), zap.Error(err))
		return
	}
	if err := a.b.editor.Notify(ctx, method, p); err != nil {
		a.log.Warn("extension notification from the agent not forwarded", zap.String("method", method), zap.Error(err))
	}
}
