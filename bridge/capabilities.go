package bridge

import (
	"encoding/json"
	"fmt"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/wire"
)

// Each agent's own capabilities (issue 20, docs/agents.md "Capabilities per
// agent"). The bridge answers initialize once for all its agents, so what it
// says there is what it accepts at all; a session's answer (session/new,
// load, resume, fork) carries its agent's own agentCapabilities in
// _meta["acp-bridge"].capabilities, and _acp-bridge/agents/list carries
// each running agent's. What an agent does not take is refused at the
// bridge with an error naming the agent, never dropped: a prompt block of a
// kind the agent's promptCapabilities does not list, an MCP server of a
// transport its mcpCapabilities does not list.

// ownCapabilities is the agent's agentCapabilities from its initialize
// answer, without any _meta["acp-bridge"] it wrote (nil if none).
func (a *agentRT) ownCapabilities() json.RawMessage {
	a.mu.Lock()
	raw := a.init.AgentCapabilities
	a.mu.Unlock()
	if len(raw) == 0 {
		return nil
	}
	clean, ok := a.stripForeign(raw, "initialize agentCapabilities")
	if !ok {
		return nil
	}
	return clean
}

// capFlags reads agentCapabilities.<key> as {name: bool}; a value that is
// not true (absent, false, not a boolean) is false, as ACP's defaults say.
func capFlags(caps json.RawMessage, key string) map[string]bool {
	var all map[string]json.RawMessage
	if json.Unmarshal(caps, &all) != nil {
		return map[string]bool{}
	}
	var flags map[string]json.RawMessage
	if json.Unmarshal(all[key], &flags) != nil {
		return map[string]bool{}
	}
	out := make(map[string]bool, len(flags))
	for k, v := range flags {
		out[k] = string(v) == "true"
	}
	return out
}

// promptCapabilityOf is the promptCapabilities flag a content block type
// needs; "" for the baseline every agent takes (text, resource_link) and
// for types ACP does not gate (passed to the agent, which decides).
var promptCapabilityOf = map[string]string{"image": "image", "audio": "audio", "resource": "embeddedContext"}

// checkPrompt refuses a prompt with a block the agent does not accept.
func (a *agentRT) checkPrompt(prompt json.RawMessage) error {
	var blocks []struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(prompt, &blocks); err != nil {
		return acp.InvalidParams(acp.MethodSessionPrompt, fmt.Errorf("prompt must be a list of content blocks: %w", err))
	}
	var flags map[string]bool // read at the first block that needs one (text needs none)
	for i, bl := range blocks {
		need := promptCapabilityOf[bl.Type]
		if need == "" {
			continue
		}
		if flags == nil {
			flags = capFlags(a.ownCapabilities(), "promptCapabilities")
		}
		if !flags[need] {
			return acp.InvalidParams(acp.MethodSessionPrompt, fmt.Errorf(
				"prompt block %d is %s content, which agent %s does not accept (its promptCapabilities.%s is not true); acp-bridge does not drop it silently: leave it out or pick another agent",
				i, bl.Type, a.name, need))
		}
	}
	return nil
}

// checkMCPServers refuses an MCP server of a transport the agent does not
// take (stdio, a server without a type, every agent takes).
func (a *agentRT) checkMCPServers(method string, o acp.Object) error {
	raw, has := o["mcpServers"]
	if !has || string(raw) == "null" {
		return nil
	}
	var servers []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &servers); err != nil {
		return acp.InvalidParams(method, fmt.Errorf("mcpServers must be a list of MCP servers: %w", err))
	}
	flags := capFlags(a.ownCapabilities(), "mcpCapabilities")
	for _, s := range servers {
		if s.Type == "" || s.Type == "stdio" {
			continue
		}
		if !flags[s.Type] {
			return acp.InvalidParams(method, fmt.Errorf(
				"MCP server %q uses the %s transport, which agent %s does not accept (its mcpCapabilities.%s is not true)",
				s.Name, s.Type, a.name, s.Type))
		}
	}
	return nil
}

// bridgeCapabilities is initialize's agentCapabilities: what the bridge
// accepts at all. Prompt and MCP flags are the bridge's long-standing set
// (image, embedded context, http) and whatever any running agent takes
// besides; each session's agent is still checked (checkPrompt). The
// session methods are the bridge's: it routes each to the session's agent
// and answers -32601 naming the agent when it does not offer it.
func (b *Bridge) bridgeCapabilities() map[string]any {
	prompt := map[string]bool{"image": true, "audio": false, "embeddedContext": true}
	mcp := map[string]bool{"http": true, "sse": false}
	b.mu.Lock()
	agents := make([]*agentRT, 0, len(b.agents))
	for _, a := range b.agents {
		agents = append(agents, a)
	}
	b.mu.Unlock()
	for _, a := range agents {
		if !a.running() {
			continue
		}
		caps := a.ownCapabilities()
		for k, v := range capFlags(caps, "promptCapabilities") {
			if _, known := prompt[k]; known && v {
				prompt[k] = true
			}
		}
		for k, v := range capFlags(caps, "mcpCapabilities") {
			if _, known := mcp[k]; known && v {
				mcp[k] = true
			}
		}
	}
	return map[string]any{
		"loadSession":        true,
		"promptCapabilities": prompt,
		"mcpCapabilities":    mcp,
		"sessionCapabilities": map[string]any{
			"list": map[string]any{}, "resume": map[string]any{}, "fork": map[string]any{}, "close": map[string]any{}, "delete": map[string]any{},
		},
	}
}

// notPassed is initialize's _meta["acp-bridge"].notPassed: what an agent
// may offer directly that the bridge does not pass through, and why.
var notPassed = []wire.NotPassed{
	{What: "authMethods of type terminal", Reason: "the client would run the agent's own program in a terminal, outside acp-bridge and its OS sandbox; the client's terminal-auth capability is not offered to agents"},
	{What: "session/resume, session/fork, session/close, session/delete of an agent that does not offer them", Reason: "answered -32601 naming the agent; the bridge does not emulate them"},
	{What: "session/delete of an id no agent is known to own", Reason: "answered -32602: an id that is neither a bridge session nor listed by exactly one agent's session/list needs _meta[\"acp-bridge\"].agent, since a delete sent to a guessed agent would succeed having deleted nothing, or delete another agent's session"},
	{What: "modes and mode config options that change whether an agent asks, session/request_permission, fs/*, terminal/*", Reason: "the permission surface is acp-bridge's: it decides every permission request in one policy"},
}
