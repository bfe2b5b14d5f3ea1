package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Red team 4 (A): an MCP or agent tool that fetches meets the WebFetch
// domain deny rules of the hosts it carries, whatever the key, nesting or
// kind, in every mode; a harmless host stays as the tool's allow rule says.
func TestToolsMeetWebFetchDomainRules(t *testing.T) {
	o := policy.Origin{Layer: "user"}
	pol, errs := policy.Compile([]policy.RuleText{
		{List: "deny", Text: "WebFetch(domain:evil.com)", Origin: o},
		{List: "ask", Text: "WebFetch(domain:*.internal.example)", Origin: o},
		{List: "allow", Text: "mcp__fetch", Origin: o},
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		input string
		want  policy.Decision // in default mode and in bypass
	}{
		{`{"url":"https://evil.com/x"}`, policy.Deny},
		{`{"urls":["https://a.example/","https://evil.com/x"]}`, policy.Deny},
		{`{"request":{"url":"https://evil.com/x"}}`, policy.Deny},
		{`{"endpoint":"wss://evil.com/socket"}`, policy.Deny},
		{`{"target":"https://db.internal.example/"}`, policy.Ask},
		// red team 5: spellings lenient URL parsers read as evil.com
		{`{"url":"https:evil.com/x"}`, policy.Deny},
		{`{"url":"https:/evil.com/x"}`, policy.Deny},
		{`{"url":"https:///evil.com/x"}`, policy.Deny},
		{`{"url":"https:\\\\evil.com/x"}`, policy.Deny},
		{`{"url":" https://evil.com/x"}`, policy.Deny},
		{`{"url":"https://evil.com/x\n"}`, policy.Deny},
		{`{"url":"//evil.com/x"}`, policy.Deny},
		{`{"url":"ssh://evil.com/r"}`, policy.Deny},
		{`{"url":"git://evil.com/r"}`, policy.Deny},
		{`{"url":"https://ev\til.com/x"}`, policy.Ask},     // no two parsers agree: asks
		{`{"url":"https://a.example/docs"}`, policy.Allow}, // control
	} {
		for _, kind := range []string{"fetch", "other", "", "read"} {
			raw := `{"toolCallId":"a","title":"fetch","kind":"` + kind + `","rawInput":` + c.input + `,"_meta":{"claudeCode":{"toolName":"mcp__fetch__fetch"}}}`
			for _, fam := range []Family{FamilyClaude, FamilyGeneric, FamilyGemini, FamilyOpenCode} {
				call, err := Normalize(fam, json.RawMessage(raw))
				if err != nil {
					t.Fatal(err)
				}
				if fam != FamilyClaude && c.want == policy.Allow {
					continue // a family that does not read the tool name reads a fetch as WebFetch: not this control's
				}
				for _, m := range touchModes {
					v := policy.Evaluate(policy.Input{Call: call, Mode: m.mode, AgentBypass: m.agentBypass, Env: touchEnv, Policy: pol})
					switch {
					case c.want == policy.Deny && v.Decision != policy.Deny,
						c.want == policy.Ask && v.Decision == policy.Allow,
						c.want == policy.Allow && (m.mode == policy.ModeDefault || m.mode == policy.ModeBypass) && v.Decision != policy.Allow:
						t.Errorf("%s %s kind=%q in %s: %s (%s: %s), want %s", fam, c.input, kind, m.name, v.Decision, v.Source, v.Reason, c.want)
					}
				}
			}
		}
	}
}
