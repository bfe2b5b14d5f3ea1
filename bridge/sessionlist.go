package bridge

import (
	"context"
	"encoding/json"
	"sort"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// session/list (issue 20): sent only to agents that offer it; with no agent
// named, every running agent's sessions, each naming its agent.

func (b *Bridge) listSessions(ctx context.Context, params json.RawMessage) (any, error) {
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionList, err)
	}
	if _, err := pathParam(acp.MethodSessionList, o, "cwd", false); err != nil {
		return nil, err
	}
	var m bridgeMeta
	if err := acp.BridgeMeta(o, &m); err != nil {
		return nil, acp.Errorf(acp.CodeInvalidParams, "%v", err)
	}
	if m.Agent != "" {
		a, err := b.agent(m.Agent)
		if err != nil {
			return nil, err
		}
		sessions, cursor, err := b.listOf(ctx, a, o)
		if err != nil {
			return nil, err
		}
		out := acp.Object{}
		out.Set("sessions", sessions)
		if len(cursor) > 0 && string(cursor) != "null" {
			out["nextCursor"] = cursor
		}
		acp.SetBridgeMeta(out, map[string]any{"agent": a.name})
		return out.Marshal(), nil
	}
	// No agent named: every running agent that offers session/list, each
	// session saying whose it is (a cursor cannot span agents: none).
	var running []*agentRT
	b.mu.Lock()
	for _, a := range b.agents {
		running = append(running, a)
	}
	b.mu.Unlock()
	sort.Slice(running, func(i, j int) bool { return running[i].name < running[j].name })
	all := []acp.Object{}
	var asked []string
	for _, a := range running {
		if !a.running() || !a.offersSession("list") {
			continue
		}
		sessions, _, err := b.listOf(ctx, a, cloneObject(o))
		if err != nil {
			b.log.Warn("session/list: an agent's list left out", zap.String("agent", a.name), zap.Error(err))
			continue
		}
		all = append(all, sessions...)
		asked = append(asked, a.name)
	}
	out := acp.Object{}
	out.Set("sessions", all)
	acp.SetBridgeMeta(out, map[string]any{"agents": asked})
	return out.Marshal(), nil
}

// listOf asks one agent for its sessions, each under the bridge's id when
// it has one and saying whose it is. An agent that does not offer
// session/list is not asked.
func (b *Bridge) listOf(ctx context.Context, a *agentRT, o acp.Object) ([]acp.Object, json.RawMessage, error) {
	conn, _, err := a.ensure(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !a.offersSession("list") {
		return nil, nil, acp.Errorf(acp.CodeMethodNotFound, "agent %s does not offer session/list (its initialize lists no sessionCapabilities.list)", a.name)
	}
	stripBridgeMeta(o)
	var raw json.RawMessage
	if err := conn.Call(ctx, acp.MethodSessionList, o.Marshal(), &raw); err != nil {
		return nil, nil, a.callError(acp.MethodSessionList, err)
	}
	if raw, err = a.cleanResult(acp.MethodSessionList, raw); err != nil {
		return nil, nil, err
	}
	var res struct {
		Sessions   []acp.Object    `json:"sessions"`
		NextCursor json.RawMessage `json:"nextCursor,omitempty"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, acp.Errorf(acp.CodeInternalError, "agent %s answered session/list with %v", a.name, err)
	}
	if res.Sessions == nil {
		res.Sessions = []acp.Object{}
	}
	for _, so := range res.Sessions {
		if so == nil {
			continue
		}
		own := so.String("sessionId")
		if id := a.bridgeIDFor(own); id != "" {
			so.Set("sessionId", id)
		} else if own != "" {
			a.noteListed(own) // session/delete finds its agent
		}
		// Unknown ids pass as they are: session/load accepts them as the agent's own.
		acp.SetBridgeMeta(so, map[string]any{"agent": a.name})
	}
	return res.Sessions, res.NextCursor, nil
}

// running: the agent's process is up and initialized.
func (a *agentRT) running() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status == statusRunning && a.conn != nil
}

// cloneObject copies o's members (each agent's call strips its own _meta).
func cloneObject(o acp.Object) acp.Object {
	c := make(acp.Object, len(o))
	for k, v := range o {
		c[k] = v
	}
	return c
}

// offersSession reports whether the agent's initialize advertised
// agentCapabilities.sessionCapabilities.<what>.
func (a *agentRT) offersSession(what string) bool {
	a.mu.Lock()
	raw := a.init.AgentCapabilities
	a.mu.Unlock()
	var caps struct {
		Session map[string]json.RawMessage `json:"sessionCapabilities"`
	}
	if json.Unmarshal(raw, &caps) != nil {
		return false
	}
	v, ok := caps.Session[what]
	return ok && string(v) != "null"
}

// maxListed bounds the own session ids remembered per agent (an agent
// listing without end cannot grow the bridge's memory): past it, the
// oldest listing is forgotten and a delete of such an id names its agent.
const maxListed = 4096

// noteListed remembers that the agent's session/list named its own id.
func (a *agentRT) noteListed(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.listed == nil || len(a.listed) >= maxListed {
		a.listed = map[string]struct{}{}
	}
	a.listed[id] = struct{}{}
}

// wasListed reports whether the agent's session/list named id.
func (a *agentRT) wasListed(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.listed[id]
	return ok
}

// forgetListed drops a deleted id.
func (a *agentRT) forgetListed(id string) {
	a.mu.Lock()
	delete(a.listed, id)
	a.mu.Unlock()
}
