package policy

import (
	"errors"
	"strings"
	"testing"
)

// TestRulesThatCannotMatch: a rule that could never match as written is a
// RuleError naming the rule and the fix, and as a deny it makes its tool
// ask in every mode (bypass included) instead of vanishing.
func TestRulesThatCannotMatch(t *testing.T) {
	cases := []struct {
		text    string
		errIs   error
		fix     string // in the message
		call    Call   // a call the rule meant to stop
		allowed string // allow rule that would otherwise let call through
	}{
		{"bash(rm *)", ErrRuleTool, "did you mean Bash(rm *)?", Call{Tool: "Bash", Command: "rm -rf src"}, "Bash"},
		{"BASH(rm *)", ErrRuleTool, "did you mean Bash(rm *)?", Call{Tool: "Bash", Command: "rm x"}, "Bash"},
		{"Bassh(rm *)", ErrRuleTool, "did you mean Bash(rm *)?", Call{Tool: "Bash", Command: "rm x"}, "Bash"},
		{"read(.env)", ErrRuleTool, "did you mean Read(.env)?", Call{Tool: "Read", Paths: []string{".env"}}, "Read"},
		{"Reed(.env)", ErrRuleTool, "did you mean Read(.env)?", Call{Tool: "Read", Paths: []string{".env"}}, "Read"},
		{"webfetch(domain:x.example)", ErrRuleTool, "did you mean WebFetch(domain:x.example)?", Call{Tool: "WebFetch", URL: "https://x.example/"}, "WebFetch"},
		{"MCP__fs__read_file", ErrRuleTool, "did you mean mcp__fs__read_file?", Call{Tool: "mcp__fs__read_file"}, "mcp__fs"},
		{"Read(", ErrRuleSyntax, "unbalanced", Call{Tool: "Read", Paths: []string{".env"}}, "Read"},
		{"Read(.env", ErrRuleSyntax, "unbalanced", Call{Tool: "Read", Paths: []string{".env"}}, "Read"},
		{"Bash(rm -rf *", ErrRuleSyntax, "unbalanced", Call{Tool: "Bash", Command: "rm -rf x"}, "Bash"},
		{"WebFetch(x.example)", ErrRuleSpecifier, "domain:", Call{Tool: "WebFetch", URL: "https://x.example/"}, "WebFetch"},
		{"Read(~user/.ssh)", ErrRuleSpecifier, "~/", Call{Tool: "Read", Paths: []string{"/home/u/.ssh/id_rsa"}}, "Read"},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			o := Origin{Layer: "workspace", File: "/w/p/.acp-bridge.yaml", Root: "/w/p"}
			pol, errs := Compile([]RuleText{{List: "allow", Text: c.allowed, Origin: o}, {List: "deny", Text: c.text, Origin: o}})
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one for %q", errs, c.text)
			}
			e := errs[0]
			if !errors.Is(e, c.errIs) {
				t.Errorf("error %v is not %v", e, c.errIs)
			}
			msg := e.Error()
			for _, want := range []string{c.text, "/w/p/.acp-bridge.yaml", c.fix} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not name %q", msg, want)
				}
			}
			if err := CheckRule("deny", c.text); err == nil {
				t.Errorf("CheckRule accepts %q", c.text)
			}
			for _, m := range []Mode{ModeDefault, ModeAcceptEdits, ModeBypass, ModeDontAsk, ModePlan} {
				v := Evaluate(Input{Call: c.call, Mode: m, Env: fuzzEnv, Policy: pol})
				if v.Decision == Allow {
					t.Errorf("%s: %+v allowed (%s) although a deny rule was written for it", m, c.call, v.Reason)
				}
			}
			// the fixed rule, as the message proposes, does deny.
			if i := strings.Index(msg, "did you mean "); i >= 0 {
				fixed := strings.TrimSuffix(msg[i+len("did you mean "):], "?")
				fp, ferrs := Compile([]RuleText{{List: "allow", Text: c.allowed, Origin: o}, {List: "deny", Text: fixed, Origin: o}})
				if len(ferrs) != 0 {
					t.Fatalf("the proposed fix %q does not compile: %v", fixed, ferrs)
				}
				if v := Evaluate(Input{Call: c.call, Mode: ModeBypass, Env: fuzzEnv, Policy: fp}); v.Decision != Deny {
					t.Errorf("the proposed fix %q does not deny %+v: %s", fixed, c.call, v.Decision)
				}
			}
		})
	}
}

// TestAgentToolNamesStillCompile: names outside KnownTools that do not
// misspell one (an agent's own tools) are accepted, and known tools in
// their own case are never reported.
func TestAgentToolNamesStillCompile(t *testing.T) {
	names := append([]string{"delete_file", "write_file", "run_shell", "move_path", "Taskmaster", "Deploy"}, KnownTools...)
	for _, n := range names {
		for _, text := range []string{n, n + "(x)"} {
			if n == "WebSearch" && text != n || n == "WebFetch" && text != n {
				continue
			}
			if err := CheckRule("deny", text); err != nil {
				t.Errorf("%q: %v", text, err)
			}
		}
	}
}
