package policy

import (
	"strings"
	"testing"
)

// The exact rule suggested for a command whose options write or run
// programs allows it; no prefix rule is offered (it would not cover it).
func TestSuggestRulesWithDangerousOptions(t *testing.T) {
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}
	for _, cmd := range []string{"sort -o out f", "git log --output=log.txt", "sed -n 'w out' f",
		"uniq f out", "rg --pre cat foo"} {
		call := Call{Tool: "Bash", Command: cmd}
		got := SuggestRules(call, env)
		if len(got) == 0 {
			t.Errorf("%q: no suggestion", cmd)
			continue
		}
		for _, r := range got {
			if strings.HasSuffix(r, " *)") {
				t.Errorf("%q: prefix rule %q suggested", cmd, r)
			}
		}
		pol, errs := Compile([]RuleText{{List: "allow", Text: got[0]}})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if v := Evaluate(Input{Call: call, Env: env, Policy: pol}); v.Decision != Allow {
			t.Errorf("%q with its exact rule %q: %s (%s)", cmd, got[0], v.Decision, v.Reason)
		}
	}
}

func TestOptionMentioned(t *testing.T) {
	for _, c := range []struct {
		rule, opt string
		want      bool
	}{
		{"sort -o *", "-o", true},
		{"sort -uo *", "-o", true},
		{"sort *", "-o", false},
		{"sort --output=*", "--output", true},
		{"sort --output *", "-o", false},
		{"git log --output=*", "--output", true},
		{"git log *", "--output", false},
		{"uniq * out.txt", "out.txt", true},
		{"awk *system*", "system", true},
	} {
		p, err := compileBashPattern(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := optionMentioned(&p, c.opt); got != c.want {
			t.Errorf("optionMentioned(%q, %q) = %v", c.rule, c.opt, got)
		}
	}
}

// sed scripts and awk programs: what they write, read and run.
func TestScriptEffects(t *testing.T) {
	e := newEnvx(Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"})
	for _, c := range []struct {
		cmd       string
		writes    string // comma-joined raw paths
		reads     string // raw paths of reads other than the command's file operands
		subs      int    // sub-commands in all (programs included)
		uncertain bool
	}{
		{"sed -n 'w out' f", "out", "f", 1, false},
		{"sed -n '/x/w out\np' f", "out", "f", 1, false},
		{"sed 's/a/b/w out' f", "out", "f", 1, false},
		{"sed 's/a/b/gw out' f", "out", "f", 1, false},
		{"sed 's|w|x|' f", "", "f", 1, false},
		{"sed 'r in' f", "", "in,f", 1, false},
		{"sed '1e ls' f", "", "f", 2, false},
		{"sed 's/x/y/e' f", "", "f", 1, true},
		{"sed -i.bak s/a/b/ f", "f", "f", 1, false},
		{"sed --sandbox 'w out' f", "", "f", 1, false},
		{"sed 'a\\\nw text' f", "", "f", 1, false},
		{"awk '{print > \"out\"}' f", "out", "f", 1, false},
		{"awk '{print $1 >> \"out\"}' f", "out", "f", 1, false},
		{"awk '$1 > 5' f", "", "f", 1, false},
		{"awk 'BEGIN{system(\"ls -la\")}'", "", "", 2, false},
		{"awk '{print | \"sort\"}' f", "", "f", 2, false},
		{"awk '{print | \"sort\" x}' f", "", "f", 1, true},
		{"awk 'BEGIN{while ((getline l < \"in\") > 0) print l}'", "", "in", 1, false},
		{"awk '/a|b/' f", "", "f", 1, false},
		{"awk 'BEGIN { x = 4 / 2; print x }'", "", "", 1, false},
		{"awk -v OFS=, '{print $1, $2}' f", "", "f", 1, false},
	} {
		an := analyzeShell(c.cmd, &e)
		var w, r []string
		sc := &an.subs[len(an.subs)-1] // programs it runs come first
		for _, ref := range sc.writes {
			w = append(w, ref.raw)
		}
		for _, ref := range sc.reads {
			r = append(r, ref.raw)
		}
		if strings.Join(w, ",") != c.writes || strings.Join(r, ",") != c.reads || len(an.subs) != c.subs || (an.uncertain != "") != c.uncertain {
			t.Errorf("%q: writes %q reads %q subs %d uncertain %q; want %q %q %d %v", c.cmd, w, r, len(an.subs), an.uncertain, c.writes, c.reads, c.subs, c.uncertain)
		}
	}
}
