package policy

import "testing"

// TestRuleWordBlanks: a blank inside a word of an allow rule is a literal
// blank, not a word boundary; deny rules meet both spellings.
func TestRuleWordBlanks(t *testing.T) {
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u", FS: MapFS(map[string]string{})}
	for _, c := range []struct {
		list, rule, cmd string
		want            Decision
	}{
		{"allow", `Bash(rm 'old backup')`, `rm "old backup"`, Allow},
		{"allow", `Bash(rm 'old backup')`, `rm old\ backup`, Allow},
		{"allow", `Bash(rm old\ backup)`, `rm 'old backup'`, Allow},
		{"allow", `Bash(rm 'old backup')`, `rm old backup`, Ask},
		{"allow", `Bash(rm old backup)`, `rm old backup`, Allow},
		{"allow", `Bash(git commit -m 'a b' *)`, `git commit -m 'a b' --amend`, Allow},
		{"allow", `Bash(git commit -m 'a b' *)`, `git commit -m a b --amend`, Ask},
		{"allow", `Bash(git commit -m 'a *')`, `git commit -m 'a b c'`, Ask}, // a quoted * is literal
		{"allow", `Bash(git commit -m a\ *)`, `git commit -m 'a b c'`, Allow},
		{"allow", `Bash(git commit -m a\ *)`, `git commit -m 'a b' c`, Allow}, // a wildcard spans words, as everywhere
		{"allow", `Bash(echo 'x y')`, `echo 'x y' && rm 'x y'`, Ask},
		{"deny", `Bash(rm 'old backup')`, `rm old backup`, Deny},
		{"deny", `Bash(rm 'old backup')`, `rm 'old backup'`, Deny},
	} {
		rs := []RuleText{{List: c.list, Text: c.rule, Origin: Origin{Layer: "user"}}}
		if c.list == "deny" {
			rs = append(rs, RuleText{List: "allow", Text: "Bash", Origin: Origin{Layer: "user"}})
		}
		p, errs := Compile(rs)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		v := Evaluate(Input{Call: Call{Tool: "Bash", Command: c.cmd}, Mode: ModeDefault, Env: env, Policy: p})
		if v.Decision != c.want {
			t.Errorf("%s %s, %s: got %s (%s), want %s", c.list, c.rule, c.cmd, v.Decision, v.Reason, c.want)
		}
	}
}
