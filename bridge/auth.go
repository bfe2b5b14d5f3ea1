package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/acp-bridge/acp-bridge/acp"
)

// Logins (issue 20, docs/agents.md "Logins"): each agent's own authMethods
// reach the editor under "<agent>/<methodId>", with _meta["acp-bridge"]
// {agent, methodId}; authenticate with such an id goes to that agent with
// the agent's own id. Only methods the agent performs itself through
// authenticate (ACP type "agent", the default) pass: a "terminal" method
// asks the client to run the agent's program in a terminal, which here
// would be outside the bridge and its sandbox, and other types are not
// known to the bridge. Of a method that passes, only id, name, description
// and type reach the editor: no _meta of the agent's.

// authMethodMeta is _meta["acp-bridge"] of a namespaced auth method.
type authMethodMeta struct {
	Agent    string `json:"agent"`
	MethodID string `json:"methodId"`
}

// authMethods are the agent's own auth methods as the editor sees them:
// namespaced, without any _meta["acp-bridge"] the agent wrote. Nil when the
// agent is not initialized or offers none the bridge passes.
func (a *agentRT) authMethods() []acp.Object {
	a.mu.Lock()
	raw := a.init.AuthMethods
	a.mu.Unlock()
	if len(raw) == 0 {
		return nil
	}
	clean, ok := a.stripForeign(raw, "initialize authMethods")
	if !ok {
		return nil
	}
	var list []acp.Object
	if json.Unmarshal(clean, &list) != nil {
		a.log.Debug("initialize: authMethods is not a list of objects; none passed")
		return nil
	}
	var out []acp.Object
	for _, m := range list {
		id := m.String("id")
		if m == nil || id == "" || !agentAuthType(m) {
			continue
		}
		// Only the fields ACP defines for an agent login pass, and _meta only
		// as the bridge's own: an agent's _meta (Zed's "terminal-auth"
		// {command, args}, or any other) could have the editor run a program
		// on the host, outside the sandbox (red team 6).
		c := acp.Object{}
		for _, k := range []string{"name", "description", "type"} {
			if v, ok := m[k]; ok {
				c[k] = v
			}
		}
		c.Set("id", a.name+"/"+id)
		acp.SetBridgeMeta(c, authMethodMeta{Agent: a.name, MethodID: id})
		out = append(out, c)
	}
	return out
}

// agentAuthType: the method has no type or type "agent".
func agentAuthType(m acp.Object) bool {
	raw, has := m["type"]
	if !has || string(raw) == "null" {
		return true
	}
	return m.String("type") == "agent"
}

// allAuthMethods are the auth methods of every agent running now, by agent name.
func (b *Bridge) allAuthMethods() []acp.Object {
	b.mu.Lock()
	running := make([]*agentRT, 0, len(b.agents))
	for _, a := range b.agents {
		running = append(running, a)
	}
	b.mu.Unlock()
	sort.Slice(running, func(i, j int) bool { return running[i].name < running[j].name })
	out := []acp.Object{}
	for _, a := range running {
		if a.running() {
			out = append(out, a.authMethods()...)
		}
	}
	return out
}

// authenticate routes {methodId: "<agent>/<id>"} to that agent as
// {methodId: "<id>"}, starting the agent if it is not running (its methods
// are known only once it answered initialize).
func (b *Bridge) authenticate(ctx context.Context, params json.RawMessage) (any, error) {
	method := acp.MethodAuthenticate
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	id := o.String("methodId")
	if id == "" {
		return nil, acp.InvalidParams(method, errors.New("methodId is required (a string)"))
	}
	name, own, ok := strings.Cut(id, "/")
	if !ok || name == "" || own == "" {
		return nil, acp.InvalidParams(method, fmt.Errorf("methodId %q is not one of acp-bridge's: they are \"<agent>/<the agent's methodId>\", as initialize and _acp-bridge/agents/list give them", id))
	}
	if _, configured := b.snapshot().Config.Agents[name]; !configured {
		return nil, acp.InvalidParams(method, fmt.Errorf("methodId %q names no configured agent (%q)", id, name))
	}
	a, err := b.agent(name)
	if err != nil {
		return nil, err
	}
	conn, _, err := a.ensure(ctx)
	if err != nil {
		return nil, err
	}
	var offered []string
	found := false
	for _, m := range a.authMethods() {
		offered = append(offered, m.String("id"))
		found = found || m.String("id") == id
	}
	if !found {
		return nil, acp.InvalidParams(method, fmt.Errorf("methodId %q: agent %s offers no such method through acp-bridge (it offers: %s)", id, name, noneIfEmpty(strings.Join(offered, ", "))))
	}
	stripBridgeMeta(o)
	o.Set("methodId", own)
	var res json.RawMessage
	if err := conn.Call(ctx, method, o.Marshal(), &res); err != nil {
		return nil, a.callError(method, err)
	}
	return a.cleanResult(method, res)
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
