package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
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
	return s.agent.cleanResult(method, res)
}

// cleanResult is an agent's answer to a request the editor made, as the
// editor may see it: any _meta["acp-bridge"] the agent put in it, at any
// depth, removed (only the bridge writes that key).
func (a *agentRT) cleanResult(method string, res json.RawMessage) (json.RawMessage, error) {
	if len(res) == 0 {
		return res, nil
	}
	out, ok := a.stripForeign(res, method+" result")
	if !ok {
		return nil, acp.Errorf(acp.CodeInternalError, "%s: agent %s answered with a result acp-bridge cannot read", method, a.name)
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
	if acp.IsAgentExtension(method) || method == acp.MethodElicitationCreate {
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
	if method == acp.MethodElicitationCreate {
		if err := b.checkElicitation(a, params); err != nil {
			return nil, err
		}
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

// checkElicitation: a question reaches the person only when the editor
// offers elicitation, it names one of the agent's own sessions (the card
// says whose question it is), and, for a URL the editor would open outside
// every sandbox, the URL meets the WebFetch rules: one a rule denies (or
// that plan or dontAsk would not fetch) is refused here.
func (b *Bridge) checkElicitation(a *agentRT, params json.RawMessage) error {
	method := acp.MethodElicitationCreate
	if len(b.editorCapabilities().Elicitation) == 0 {
		return acp.Errorf(acp.CodeMethodNotFound, "%s: the editor does not offer elicitation", method)
	}
	o, err := acp.ParseObject(params)
	if err != nil {
		return acp.InvalidParams(method, err)
	}
	s, known := a.sessionFor(o.String("sessionId"))
	if o.String("sessionId") == "" || !known || s == nil {
		return acp.InvalidParams(method, fmt.Errorf("sessionId must name one of agent %s's sessions, got %q", a.name, o.String("sessionId")))
	}
	if _, has := o["url"]; has || o.String("mode") == "url" {
		u := o.String("url")
		if u == "" {
			return acp.InvalidParams(method, errors.New("a url elicitation needs a url (a string)"))
		}
		call := policy.Call{Tool: "WebFetch", URL: u, Title: "Open " + u, Kind: "fetch"}
		if d, denied := b.flow.Check(b.lifetime, s, call); denied {
			return acp.Errorf(CodePermissionDenied, "%s refused by acp-bridge: the URL to open: %s", method, d.Verdict.Reason)
		}
	}
	return nil
}
