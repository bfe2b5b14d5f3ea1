package policy

import (
	"strings"
	"testing"
)

// "Allow for this session" grants the call as it was asked: the identical
// call is allowed next time, a different redirect target, a protected file
// or a breaker is not.
func TestSessionGrantRules(t *testing.T) {
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}
	for _, tc := range []struct {
		cmd   string
		want  []string
		again map[string]Decision // other commands under the grant, default mode
	}{
		{"echo hi > out.txt", []string{"Bash(echo hi)", "Edit(//w/p/out.txt)"}, map[string]Decision{
			"echo hi > out.txt":      Allow,
			"echo hi >> out.txt":     Allow,
			"echo hi > other.txt":    Ask,
			"echo hi > /tmp/out.txt": Ask,
			"echo bye > out.txt":     Allow, // echo is read-only: the grant is the write
			"rm out.txt":             Ask,
		}},
		{"go test ./... > log/test.out 2>&1", []string{"Bash(go test ./...)", "Edit(//w/p/log/test.out)"}, map[string]Decision{
			"go test ./... > log/test.out 2>&1": Allow,
			"go test ./... > log/other.out":     Ask,
			"go test ./pkg/...":                 Ask,
		}},
		{"sort < /etc/hosts > sorted.txt", []string{"Bash(sort)", "Edit(//w/p/sorted.txt)", "Read(//etc/hosts)"}, map[string]Decision{
			"sort < /etc/hosts > sorted.txt":  Allow,
			"sort < /etc/passwd > sorted.txt": Ask,
		}},
		{"npm run build", []string{"Bash(npm run build)"}, map[string]Decision{
			"npm run build": Allow, "npm run build && rm -rf /": Ask,
		}},
		{"echo x > .git/config", []string{"Bash(echo x)", "Edit(//w/p/.git/config)"}, map[string]Decision{
			"echo x > .git/config": Ask, // protected: no grant covers it
		}},
		{"echo x > $OUT", nil, nil},
		// a quoted * in the file name stays literal (grants keep quoting)
		{"echo x > 'a*b'", []string{"Bash(echo x)", `Edit(//w/p/a\*b)`}, map[string]Decision{
			"echo x > 'a*b'": Allow,
			"echo x > ab":    Ask,
			"echo x > aXb":   Ask,
		}},
		{"echo 'oops", nil, nil},
	} {
		got := SessionGrantRules(Call{Tool: "Bash", Command: tc.cmd}, env)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("SessionGrantRules(%q) = %q, want %q", tc.cmd, got, tc.want)
			continue
		}
		var rules []RuleText
		for _, r := range got {
			rules = append(rules, RuleText{List: "allow", Text: r})
		}
		sess, errs := Compile(rules)
		if len(errs) > 0 {
			t.Errorf("%q: grant does not compile: %v", tc.cmd, errs)
			continue
		}
		empty, _ := Compile(nil)
		for cmd, want := range tc.again {
			v := Evaluate(Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeDefault, Env: env, Policy: empty, Session: sess})
			if v.Decision != want {
				t.Errorf("grant of %q, then %q: %s (%s), want %s", tc.cmd, cmd, v.Decision, v.Reason, want)
			}
		}
	}
	// Other tools: the exact suggestion.
	if got := SessionGrantRules(Call{Tool: "Edit", Paths: []string{"src/a.go"}}, env); strings.Join(got, "|") != "Edit(//w/p/src/a.go)" {
		t.Errorf("Edit grant = %q", got)
	}
	if got := SessionGrantRules(Call{Tool: ""}, env); got != nil {
		t.Errorf("unknown tool grant = %q", got)
	}
}
