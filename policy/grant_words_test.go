package policy

import "testing"

// Red-team (issue 21 item 8, "a granted command keeps its quoting"): the
// session grant of a command drops the quotes around an argument with a
// blank, so "Allow for this session" on one file or message also allows the
// same words split into other arguments: other files, other options.
func TestGrantKeepsWordBoundaries(t *testing.T) {
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u", FS: MapFS(map[string]string{})}
	for _, p := range [][2]string{
		{"rm 'old backup'", "rm old backup"},                                 // removes two other files
		{"git commit -m 'wip --no-verify'", "git commit -m wip --no-verify"}, // skips the hooks
		{"find . -name 'x -delete'", "find . -name x -delete"},               // deletes
		{"tar cf a.tar 'src dir'", "tar cf a.tar src dir"},                   // other trees
		{"chmod 600 'my key'", "chmod 600 my key"},
	} {
		rules := SessionGrantRules(Call{Tool: "Bash", Command: p[0]}, env)
		var srules []RuleText
		for _, r := range rules {
			srules = append(srules, RuleText{List: "allow", Text: r, Origin: Origin{Layer: "session"}})
		}
		sess, errs := Compile(srules)
		if len(errs) > 0 {
			t.Fatalf("%q: %v", rules, errs)
		}
		if v := Evaluate(Input{Call: Call{Tool: "Bash", Command: p[0]}, Mode: ModeDefault, Env: env, Policy: &Policy{}, Session: sess}); v.Decision != Allow {
			t.Fatalf("%q: the grant %q does not cover its own command: %s", p[0], rules, v.Decision)
		}
		if v := Evaluate(Input{Call: Call{Tool: "Bash", Command: p[1]}, Mode: ModeDefault, Env: env, Policy: &Policy{}, Session: sess}); v.Decision == Allow {
			t.Errorf("grant %q of %q also allows %q (%s)", rules, p[0], p[1], v.Source)
		}
	}
}
