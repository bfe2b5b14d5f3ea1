package bridge

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/policycli"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/wire"
)

// MethodPolicyExplain asks the policy what it would decide for one call of
// one agent, without running or recording anything. Editors use it before
// they put something into a prompt themselves (a file attached as context is
// a read the agent did not ask for): a Read deny rule must keep the file out.
const MethodPolicyExplain = acp.MethodPolicyExplain

type policyExplainParams = wire.PolicyExplainParams

type policyExplainResult = wire.PolicyExplainResult

// policyExplain answers _acp-bridge/policy/explain: {tool, input, agent?,
// mode?} -> {decision, source, rule?, reason, specifier}, decided by the same
// engine and rules as the agent's calls (settings, runtime grants), in the
// workspace directory.
func (b *Bridge) policyExplain(params json.RawMessage) (any, error) {
	var p policyExplainParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(MethodPolicyExplain, err)
	}
	if p.Tool == "" {
		return nil, acp.InvalidParams(MethodPolicyExplain, errors.New("tool is required"))
	}
	mode := policy.ModeDefault
	if p.Mode != "" {
		mode = policy.Mode(p.Mode)
		if !validMode(mode) {
			return nil, acp.InvalidParams(MethodPolicyExplain, fmt.Errorf("unknown mode %q", p.Mode))
		}
	}
	agent := p.Agent
	if agent == "" {
		agent = b.snapshot().Config.DefaultAgent
	}
	call, err := policycli.CallFromInput(p.Tool, p.Input)
	if err != nil {
		return nil, acp.InvalidParams(MethodPolicyExplain, err)
	}
	v, _ := b.decider.Decide(DecisionRequest{Agent: agent, Call: call, Mode: mode, Cwd: b.opts.WorkspaceDir})
	return policyExplainResult{Decision: string(v.Decision), Source: string(v.Source), Rule: v.Rule, Reason: v.Reason, Specifier: v.Specifier}, nil
}

func validMode(m policy.Mode) bool {
	for _, x := range policyModes {
		if x == m {
			return true
		}
	}
	return false
}
