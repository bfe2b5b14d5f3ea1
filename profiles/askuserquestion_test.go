package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Claude's AskUserQuestion, as the adapter (claude-agent-acp 0.101.0)
// announces it (kind "other", its tool name in _meta.claudeCode), is a
// question to the person: the policy reads it as thinking, so the bridge's
// plan and dontAsk do not refuse it (as an unasked call they would cancel
// the turn: interop/agents/test/elicitation-claude.test.mjs); a rule that
// names it still decides; another shape under that name is not understood
// (plan refuses it).
func TestClaudeAskUserQuestionIsThinking(t *testing.T) {
	question := map[string]any{"question": "Which colour?", "header": "Colour", "multiSelect": false,
		"options": []map[string]string{{"label": "Teal"}, {"label": "Mauve"}}}
	call := func(input map[string]any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"toolCallId": "toolu_1", "status": "completed", "kind": "other", "title": "Which colour?",
			"rawInput": input, "_meta": map[string]any{"claudeCode": map[string]any{"toolName": "AskUserQuestion"}}})
		return b
	}
	asked := call(map[string]any{"questions": []any{question}, "answers": map[string]string{"Which colour?": "Mauve"}})
	denyAsk, errs := policy.Compile([]policy.RuleText{{List: "deny", Text: "AskUserQuestion", Origin: policy.Origin{Layer: "user"}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	none, _ := policy.Compile(nil)
	tests := []struct {
		name     string
		toolCall json.RawMessage
		pol      *policy.Policy
		mode     policy.Mode
		tool     string
		want     policy.Decision
	}{
		{"plan", asked, none, policy.ModePlan, "AskUserQuestion", policy.Allow},
		{"dontAsk", asked, none, policy.ModeDontAsk, "AskUserQuestion", policy.Allow},
		{"default", asked, none, policy.ModeDefault, "AskUserQuestion", policy.Allow},
		{"a deny rule names it", asked, denyAsk, policy.ModePlan, "AskUserQuestion", policy.Deny},
		{"no questions", call(map[string]any{"questions": []any{}}), none, policy.ModePlan, "", policy.Deny},
		{"another key", call(map[string]any{"questions": []any{question}, "command": "rm -rf ~"}), none, policy.ModePlan, "", policy.Deny},
		{"questions not a list", call(map[string]any{"questions": "rm -rf ~"}), none, policy.ModeDontAsk, "", policy.Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Normalize(FamilyClaude, tc.toolCall)
			if err != nil || c.Tool != tc.tool {
				t.Fatalf("tool %q (%v), want %q", c.Tool, err, tc.tool)
			}
			v := policy.Evaluate(policy.Input{Call: c, Mode: tc.mode, Policy: tc.pol, Env: policy.Env{Cwd: "/w", Home: "/h"}})
			if v.Decision != tc.want {
				t.Errorf("%s: %s (%s), want %s", tc.mode, v.Decision, v.Reason, tc.want)
			}
		})
	}
}
