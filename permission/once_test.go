package permission

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
)

// evalDecider is the policy engine as a plain Decider (a verdict only).
type evalDecider struct{ pol *policy.Policy }

func onceEnv() policy.Env {
	return policy.Env{Cwd: "/work", ProjectRoot: "/work", Home: "/home/u"}
}

func (d evalDecider) input(req DecisionRequest) policy.Input {
	return policy.Input{Call: req.Call, Mode: req.Mode, Env: onceEnv(), Policy: d.pol}
}

func (d evalDecider) Decide(req DecisionRequest) (policy.Verdict, policy.Env) {
	return policy.Evaluate(d.input(req)), onceEnv()
}

// answerDecider is the same engine as an Answerer (policy.Decide).
type answerDecider struct{ evalDecider }

func (d answerDecider) Answer(req DecisionRequest) (policy.Answer, policy.Env) {
	return policy.Decide(d.input(req)), onceEnv()
}

// One permission request reads its command once: the verdict, whether its
// ask is firm, the card's suggested rules and the session grant all come
// from one analysis (policy.Decide through Answerer). The control is the
// same request through a plain Decider, which reads it again for the
// firmness check, the card and the grant; both give the same card, grant
// and firmness.
func TestOneReadingPerRequest(t *testing.T) {
	pol, errs := policy.Compile([]policy.RuleText{{List: "allow", Text: "Bash(ls *)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cases := []struct {
		name    string
		command string
		mode    policy.Mode
		answer  string // the option the person picks
		firm    bool
		grants  string // session grants after the answer
	}{
		{"compound, allowed for the session", "npm run build && npm test > out.txt", policy.ModeDefault, OptAllowSession, false,
			"Bash(npm run build),Bash(npm test),Edit(//work/out.txt)"},
		{"blanks around it, allowed once", "  make test\n", policy.ModeDefault, OptAllowOnce, false, ""},
		{"a command it cannot check: firm", `eval "$X"`, policy.ModeDefault, OptAllowSession, true, ""},
		{"a write outside the workspace", "cp a.txt /etc/x", policy.ModeAcceptEdits, OptAllowOnce, false, ""},
	}
	type seen struct {
		reads     int64
		firm      bool
		suggested []string
		grants    string
	}
	runOne := func(t *testing.T, d Decider, command string, mode policy.Mode, option string) seen {
		t.Helper()
		var firm bool
		probe := stageFunc{"probe", &[]string{}, func(r *Request) (policy.Verdict, bool) { firm = r.Firm; return r.Verdict, false }}
		r := newRig([]Stage{PolicyStage{Decider: d}, probe}, mode)
		before := policy.ShellAnalyses()
		done := run(r, context.Background(), permReq(command))
		card := answerCard(t, r.editor, &EditorAnswer{Outcome: acp.OutcomeSelected, OptionID: option})
		if out := <-done; out.err != nil {
			t.Fatal(out.err)
		}
		reads := policy.ShellAnalyses() - before
		if n := len(r.audit.records()); n != 1 {
			t.Fatalf("%d audit records, want 1", n)
		}
		return seen{reads: reads, firm: firm, suggested: card.meta(t).SuggestedRules, grants: strings.Join(r.session.grants, ",")}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			one := runOne(t, answerDecider{evalDecider{pol}}, c.command, c.mode, c.answer)
			if one.reads != 1 {
				t.Errorf("the request read its command %d times, want 1", one.reads)
			}
			if one.firm != c.firm || one.grants != c.grants {
				t.Errorf("firm %v, grants %q; want %v, %q", one.firm, one.grants, c.firm, c.grants)
			}
			call := policy.Call{Tool: "Bash", Command: c.command, Kind: "execute"}
			if want := policy.SuggestRules(call, onceEnv()); !reflect.DeepEqual(one.suggested, want) {
				t.Errorf("card suggests %q, SuggestRules %q", one.suggested, want)
			}
			plain := runOne(t, evalDecider{pol}, c.command, c.mode, c.answer)
			if plain.reads < 2 {
				t.Errorf("control: a plain Decider read the command %d times; the counter does not count", plain.reads)
			}
			if plain.firm != one.firm || plain.grants != one.grants || !reflect.DeepEqual(plain.suggested, one.suggested) {
				t.Errorf("plain Decider: firm %v, grants %q, suggests %q; Answerer: %v, %q, %q",
					plain.firm, plain.grants, plain.suggested, one.firm, one.grants, one.suggested)
			}
		})
	}
}
