package bridge

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFollowUpPrompt: the follow-up's params name the child's session and
// carry one text block per part: the denial block (each line as noted:
// the policy's or the person's words), then the note that the message is
// the bridge's, not the person's.
func TestFollowUpPrompt(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
	}{
		{"a rule", []string{"Bash(rm -rf build) was denied: acp-bridge's policy denied it: matches deny rule Bash(rm *)"}},
		{"a person and a rule", []string{"Bash(rm -rf a) was denied: the person said: no", "Write(/x) was denied: acp-bridge's policy denied it: protected"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p struct {
				SessionID string `json:"sessionId"`
				Prompt    []struct{ Type, Text string }
			}
			if err := json.Unmarshal(followUpPrompt("child-7", c.lines), &p); err != nil {
				t.Fatal(err)
			}
			if p.SessionID != "child-7" {
				t.Errorf("sessionId %q", p.SessionID)
			}
			if len(p.Prompt) != 2 || p.Prompt[0].Type != "text" || p.Prompt[1].Type != "text" {
				t.Fatalf("prompt %+v", p.Prompt)
			}
			if !strings.HasPrefix(p.Prompt[0].Text, "[acp-bridge] Since your last turn") {
				t.Errorf("first block %q", p.Prompt[0].Text)
			}
			for _, l := range c.lines {
				if !strings.Contains(p.Prompt[0].Text, "- "+l+"\n") {
					t.Errorf("the block lacks %q: %q", l, p.Prompt[0].Text)
				}
			}
			if p.Prompt[1].Text != followUpText || !strings.Contains(followUpText, "not from the person") {
				t.Errorf("second block %q", p.Prompt[1].Text)
			}
		})
	}
}
