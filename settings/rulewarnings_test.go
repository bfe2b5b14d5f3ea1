package settings

import (
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// TestRuleWarnings: a rule that can never match as written is reported
// under its key, with its file and the fix, without refusing the file (the
// other rules of the same file stay in force), and the policy compiled
// from the snapshot keeps the broken deny failing closed.
func TestRuleWarnings(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "agents:\n  demo:\n    command: x\n    permissions:\n      deny: [\"READ(.env)\"]\n"+
		"permissions:\n  allow: [Bash]\n  deny: [\"bash(rm *)\", \"Bash(curl *)\", \"Read(.env\"]\n")
	s := e.mustLoad()
	snap := s.Snapshot()
	type want struct{ key, frag string }
	wants := []want{
		{"permissions.deny", `"bash(rm *)"`},
		{"permissions.deny", "did you mean Bash(rm *)?"},
		{"permissions.deny", `"Read(.env"`},
		{"agents.demo.permissions.deny", "did you mean Read(.env)?"},
	}
	for _, w := range wants {
		found := false
		for _, fe := range snap.RuleWarnings {
			if fe.Key == w.key && fe.Source == e.userFile() && strings.Contains(fe.Msg, w.frag) {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning at %s naming %q in %v", w.key, w.frag, snap.RuleWarnings)
		}
	}
	if len(snap.RuleWarnings) != 3 {
		t.Errorf("%d warnings, want 3: %v", len(snap.RuleWarnings), snap.RuleWarnings)
	}
	for _, fe := range snap.RuleWarnings {
		if strings.Contains(fe.Msg, "curl") {
			t.Errorf("a good rule reported: %v", fe)
		}
	}
	var rules []policy.RuleText
	for _, r := range snap.Rules {
		rules = append(rules, policy.RuleText{List: r.List, Text: r.Text, Origin: policy.Origin{Layer: r.Layer, File: r.File, Root: r.Root}})
	}
	pol, errs := policy.Compile(rules)
	if len(errs) != 2 {
		t.Fatalf("compile errors %v, want 2", errs)
	}
	env := policy.Env{Cwd: e.wsDir, ProjectRoot: e.wsDir, Home: "/home/u"}
	for _, c := range []struct {
		cmd  string
		want policy.Decision
	}{{"rm -rf src", policy.Ask}, {"curl https://x.example/", policy.Deny}} {
		v := policy.Evaluate(policy.Input{Call: policy.Call{Tool: "Bash", Command: c.cmd}, Mode: policy.ModeBypass, Env: env, Policy: pol})
		if v.Decision != c.want {
			t.Errorf("%s in bypass: %s (%s), want %s", c.cmd, v.Decision, v.Reason, c.want)
		}
	}
}
