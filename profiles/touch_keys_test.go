package profiles

import (
	"encoding/json"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Red-team (issue 21, class "tools"): MCP and unknown tools whose rawInput
// names a command or a path under keys the walk does not know. Each call
// is allowed in bypassPermissions although a deny rule names what it does.
func TestToolsJudgedByWhatTheyTouchAnyKey(t *testing.T) {
	o := policy.Origin{Layer: "user"}
	pol, errs := policy.Compile([]policy.RuleText{
		{List: "deny", Text: "Bash(rm *)", Origin: o},
		{List: "deny", Text: "Read(.env)", Origin: o},
		{List: "deny", Text: "Read(~/.ssh/**)", Origin: o},
		{List: "allow", Text: "mcp__shell", Origin: o},
		{List: "allow", Text: "mcp__fs", Origin: o},
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct{ name, kind, input string }{
		// commands under keys other than command/cmd/script/shell
		{"mcp__shell__exec", "execute", `{"code":"rm -rf ~"}`},
		{"mcp__shell__exec", "execute", `{"argv":["rm","-rf","~"]}`},
		{"mcp__shell__exec", "execute", `{"program":"rm","args":["-rf","~"]}`},
		{"mcp__shell__exec", "execute", `{"exec":"rm -rf ~"}`},
		{"mcp__shell__exec", "execute", `{"run":"rm -rf ~"}`},
		{"mcp__shell__exec", "execute", `{"commands":["ls","rm -rf ~"]}`},
		{"mcp__shell__exec", "other", `{"bash":"rm -rf ~"}`},
		// paths under keys the walk does not read, or reads as content
		{"mcp__fs__read", "read", `{"url":"file:///w/p/.env"}`},
		{"mcp__fs__read", "read", `{"name":".env"}`},
		{"mcp__fs__read", "read", `{"p":".env"}`},
		{"mcp__fs__read", "read", `{"directory":"/w/p","name":".env"}`},
		{"mcp__fs__read", "read", `{"path":"/proc/self/root/home/u/.ssh/id_rsa"}`},
		{"mcp__fs__read", "read", `{"resource":"file:///home/u/.ssh/id_rsa"}`},
		// two spellings of one key: which the tool reads is not known
		{"mcp__shell__exec", "execute", `{"program":"ls","Program":"rm","args":["-rf","~"]}`},
		{"mcp__fs__read", "read", `{"directory":"/w/p","name":"README","Name":".env"}`},
	} {
		raw := `{"toolCallId":"a","title":"` + c.name + `","kind":"` + c.kind + `","rawInput":` + c.input +
			`,"_meta":{"claudeCode":{"toolName":"` + c.name + `"}}}`
		call, err := Normalize(FamilyClaude, json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		v := policy.Evaluate(policy.Input{Call: call, Mode: policy.ModeBypass, Env: touchEnv, Policy: pol})
		if v.Decision == policy.Allow {
			t.Errorf("%s %s: allowed in bypassPermissions (%s: %s)", c.name, c.input, v.Source, v.Reason)
		}
	}
}

// The same tools' ordinary calls, under the same keys, stay as their allow
// rule says: reading any key does not make a harmless call ask. (A command
// an MCP tool carries meets the Bash rules as the command key's always did:
// in default mode one that runs code, go test, asks unless a rule allows
// it; these read.)
func TestToolsAnyKeyOrdinaryCallsStayAllowed(t *testing.T) {
	o := policy.Origin{Layer: "user"}
	pol, errs := policy.Compile([]policy.RuleText{
		{List: "deny", Text: "Bash(rm *)", Origin: o},
		{List: "deny", Text: "Read(.env)", Origin: o},
		{List: "allow", Text: "mcp__shell", Origin: o},
		{List: "allow", Text: "mcp__fs", Origin: o},
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, m := range []policy.Mode{policy.ModeDefault, policy.ModeBypass} {
		for _, c := range []struct{ name, kind, input string }{
			{"mcp__shell__exec", "execute", `{"code":"ls -la"}`},
			{"mcp__shell__exec", "execute", `{"argv":["git","status"]}`},
			{"mcp__shell__exec", "execute", `{"program":"ls","args":["-la","src"]}`},
			{"mcp__shell__exec", "execute", `{"commands":["git log --oneline"]}`},
			{"mcp__shell__exec", "other", `{"bash":"echo hi","timeout":30}`},
			{"mcp__fs__read", "read", `{"url":"https://example.com/a"}`},
			{"mcp__fs__read", "read", `{"name":"README.md"}`},
			{"mcp__fs__read", "read", `{"name":".gitignore"}`},
			{"mcp__fs__read", "read", `{"directory":"/w/p","name":"main.go"}`},
			{"mcp__fs__read", "read", `{"uri":"file:///w/p/src/a.go"}`},
		} {
			raw := `{"toolCallId":"a","title":"` + c.name + `","kind":"` + c.kind + `","rawInput":` + c.input +
				`,"_meta":{"claudeCode":{"toolName":"` + c.name + `"}}}`
			call, err := Normalize(FamilyClaude, json.RawMessage(raw))
			if err != nil {
				t.Fatal(err)
			}
			v := policy.Evaluate(policy.Input{Call: call, Mode: m, Env: touchEnv, Policy: pol})
			if v.Decision != policy.Allow {
				t.Errorf("%s %s %s: %s (%s: %s)", m, c.name, c.input, v.Decision, v.Source, v.Reason)
			}
		}
	}
}
