package policy

import (
	"reflect"
	"strings"
	"testing"
)

// TestDecideEqualsSeparateAnswers: the one reading of a call (Decide)
// answers exactly what Evaluate, SuggestRules and SessionGrantRules answer
// on their own, for every call of the benign table (policy_cases.jsonl) and
// of the adversarial corpus, in every mode, and for calls whose command the
// suggestions read differently from Evaluate (blanks around it) or that are
// too long to read.
func TestDecideEqualsSeparateAnswers(t *testing.T) {
	var ins []Input
	for _, c := range loadCases(t) {
		in := c.input(t)
		ins = append(ins, in)
		for _, m := range adversarialModes {
			in.Mode, in.AgentBypass = m.mode, m.agentBypass
			ins = append(ins, in)
		}
	}
	for _, cases := range loadAdversarial(t) {
		for _, c := range cases {
			for _, m := range adversarialModes {
				ins = append(ins, c.input(t, m.mode, m.agentBypass))
			}
		}
	}
	env := Env{Cwd: caseCwd, ProjectRoot: caseCwd, Home: caseHome}
	for _, call := range []Call{
		{Tool: "Bash", Command: "  echo hi > out.txt  "},
		{Tool: "Bash", Command: "\tnpm run build\n"},
		{Tool: "Bash", Command: "cat '*.txt' | grep -r secret ."},
		{Tool: "Bash", Command: strings.Repeat("echo x && ", 8000) + "true"},
		{Tool: "Bash", Command: ""},
		{Tool: "my_exec", Kind: "execute", Command: "rm -rf build"},
		{Tool: "mcp__fs__write", Kind: "edit", Paths: []string{"a.txt"}, Command: "make"},
		{Tool: "Edit", Paths: []string{"src/a b.go", "/etc/x[1].conf"}},
		{Tool: "WebFetch", URL: "https://docs.example.co.uk/x"},
		{Tool: "", Title: "something"},
	} {
		for _, m := range adversarialModes {
			ins = append(ins, Input{Call: call, Mode: m.mode, AgentBypass: m.agentBypass, Env: env})
		}
	}
	if len(ins) < 2000 {
		t.Fatalf("only %d inputs: the corpora did not load", len(ins))
	}
	shared := 0
	for i, in := range ins {
		got := Decide(in)
		want := Answer{
			Verdict:      Evaluate(in),
			Suggested:    SuggestRules(in.Call, in.Env),
			SessionGrant: SessionGrantRules(in.Call, in.Env),
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("input %d (%s, mode %s, agent bypass %v):\n Decide:   %+v\n separate: %+v",
				i, Specifier(in.Call), in.Mode, in.AgentBypass, got, want)
		}
		if len(got.Suggested) > 0 && isShellCall(in.Call) {
			shared++
		}
	}
	if shared < 500 {
		t.Errorf("only %d shell calls with suggestions: the comparison covers too little", shared)
	}
}

// TestDecideSharesTheAnalysis: Decide reads a shell command once (the
// separate functions read it three times).
func TestDecideSharesTheAnalysis(t *testing.T) {
	env := Env{Cwd: caseCwd, ProjectRoot: caseCwd, Home: caseHome}
	for _, tc := range []struct {
		cmd  string
		want int
	}{
		{"npm run build && npm test", 1},
		{"echo 'a b' > out.txt", 1},
		{" npm test", 2}, // Evaluate reads it as given, the suggestions trimmed
	} {
		analyses = 0
		analysesCounting = true
		Decide(Input{Call: Call{Tool: "Bash", Command: tc.cmd}, Env: env})
		analysesCounting = false
		if analyses != tc.want {
			t.Errorf("%q: %d analyses, want %d", tc.cmd, analyses, tc.want)
		}
	}
}
