package bridge

import (
	"encoding/json"
	"errors"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// MethodPolicyCheck checks one rule with the policy engine, before an editor
// stores it ("Always allow" / "Always deny" on a card, a rule typed in a
// rules manager). It only compiles the rule: nothing is stored or applied.
const MethodPolicyCheck = wire.PolicyCheck

// CodePersistDeclined is the error an editor answers _acp-bridge/settings/persist
// with when the person chose not to store the grant anywhere: the bridge then
// neither writes its own config file nor keeps the runtime copy.
const CodePersistDeclined = wire.CodePersistDeclined

type policyCheckParams = wire.PolicyCheckParams

type policyCheckResult = wire.PolicyCheckResult

// policyCheck answers _acp-bridge/policy/check: {rule, list?} ->
// {ok, rule, list, error?}. A malformed rule is a result with ok=false and
// the engine's message, not a JSON-RPC error; bad params are.
func (b *Bridge) policyCheck(params json.RawMessage) (any, error) {
	var p policyCheckParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(MethodPolicyCheck, err)
	}
	if p.List == "" {
		p.List = string(policy.Allow)
	}
	switch p.List {
	case string(policy.Allow), string(policy.Ask), string(policy.Deny):
	default:
		return nil, acp.InvalidParams(MethodPolicyCheck, errors.New("list must be allow, ask or deny"))
	}
	res := policyCheckResult{OK: true, Rule: p.Rule, List: p.List}
	if p.Rule == "" {
		res.OK, res.Error = false, "the rule is empty"
		return res, nil
	}
	_, errs := policy.Compile([]policy.RuleText{{List: p.List, Text: p.Rule, Origin: policy.Origin{Layer: "check"}}})
	if len(errs) > 0 {
		res.OK, res.Error = false, errs[0].Err.Error()
	}
	return res, nil
}

// persistDeclined reports whether the editor's answer to settings/persist
// says "do not store this grant anywhere".
func persistDeclined(err error) bool {
	if acp.ErrorCode(err) == CodePersistDeclined {
		return true
	}
	var ae *acp.Error
	return errors.As(err, &ae) && ae.Code == CodePersistDeclined
}

// dropRuntimeGrant removes the runtime copy of a grant the person declined to store.
func (b *Bridge) dropRuntimeGrant(g settings.Grant) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if g.Kind == "bypass" {
		delete(b.runtimeBypass, g.Agent)
		return
	}
	kept := b.runtimeRules[:0]
	for _, r := range b.runtimeRules {
		if r.List == g.List && r.Text == g.Rule {
			continue
		}
		kept = append(kept, r)
	}
	b.runtimeRules = kept
	// The compiled-policy cache is keyed on the number of runtime rules; a
	// later grant could bring the count back, so drop the cache now.
	if pd, ok := b.decider.(*policyDecider); ok {
		pd.mu.Lock()
		pd.snap, pd.compiled = nil, map[string]*policy.Policy{}
		pd.mu.Unlock()
	}
}
