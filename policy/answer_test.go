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
	shared, firm, soft := 0, 0, 0
	for i, in := range ins {
		got := Decide(in)
		want := Answer{
			Verdict:      Evaluate(in),
			Suggested:    SuggestRules(in.Call, in.Env),
			SessionGrant: SessionGrantRules(in.Call, in.Env),
		}
		if want.Verdict.Decision == Ask && want.Verdict.Source == SourceDefault {
			bin := in
			bin.Mode, bin.AgentBypass = ModeBypass, false
			want.Firm = Evaluate(bin).Decision != Allow
			if want.Firm {
				firm++
			} else {
				soft++
			}
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
	if firm < 50 || soft < 50 {
		t.Errorf("%d firm and %d soft default asks: the comparison of Firm covers too little", firm, soft)
	}
}

// TestDecideFirmMode: Answer.Firm is judged under Input.FirmMode when set
// (a managed tier that forbids bypassPermissions names its floor), else
// under bypassPermissions.
func TestDecideFirmMode(t *testing.T) {
	env := Env{Cwd: caseCwd, ProjectRoot: caseCwd, Home: caseHome}
	for _, tc := range []struct {
		name     string
		call     Call
		firmMode Mode
		want     Answer // Verdict.Decision, Verdict.Source and Firm are compared
	}{
		{"plain command, bypass allows it", Call{Tool: "Bash", Command: "npm run build"}, "",
			Answer{Verdict: Verdict{Decision: Ask, Source: SourceDefault}}},
		{"plain command, the floor is default", Call{Tool: "Bash", Command: "npm run build"}, ModeDefault,
			Answer{Verdict: Verdict{Decision: Ask, Source: SourceDefault}, Firm: true}},
		{"edit in the workspace, the floor is acceptEdits", Call{Tool: "Edit", Paths: []string{"src/a.go"}}, ModeAcceptEdits,
			Answer{Verdict: Verdict{Decision: Ask, Source: SourceDefault}}},
		{"edit in the workspace, the floor is plan", Call{Tool: "Edit", Paths: []string{"src/a.go"}}, ModePlan,
			Answer{Verdict: Verdict{Decision: Ask, Source: SourceDefault}, Firm: true}},
	} {
		got := Decide(Input{Call: tc.call, Env: env, FirmMode: tc.firmMode})
		if got.Verdict.Decision != tc.want.Verdict.Decision || got.Verdict.Source != tc.want.Verdict.Source || got.Firm != tc.want.Firm {
			t.Errorf("%s: %s/%s firm %v, want %s/%s firm %v", tc.name, got.Verdict.Decision, got.Verdict.Source, got.Firm,
				tc.want.Verdict.Decision, tc.want.Verdict.Source, tc.want.Firm)
		}
	}
}

// TestDecideSharesTheAnalysis: Decide reads a shell command once, its
// firmness check included (the separate functions read it three times, and
// a firmness check by a second Evaluate a fourth).
func TestDecideSharesTheAnalysis(t *testing.T) {
	env := Env{Cwd: caseCwd, ProjectRoot: caseCwd, Home: caseHome}
	for _, tc := range []struct {
		cmd  string
		mode Mode
		firm bool // a default ask, firm: the second look ran
	}{
		{"npm run build && npm test", ModeDefault, false},
		{"echo 'a b' > out.txt", ModeDefault, false},
		{" npm test", ModeDefault, false},
		{"\tnpm run build\n", ModeAcceptEdits, false},
		{`eval "$X"`, ModeDefault, true},
		{"ls", ModeBypass, false},
	} {
		in := Input{Call: Call{Tool: "Bash", Command: tc.cmd}, Env: env, Mode: tc.mode}
		before := ShellAnalyses()
		a := Decide(in)
		if n := ShellAnalyses() - before; n != 1 {
			t.Errorf("%q: Decide read it %d times, want 1", tc.cmd, n)
		}
		if a.Firm != tc.firm {
			t.Errorf("%q: firm %v, want %v (verdict %+v)", tc.cmd, a.Firm, tc.firm, a.Verdict)
		}
		// the control: the counter counts every reading.
		before = ShellAnalyses()
		Evaluate(in)
		SuggestRules(in.Call, in.Env)
		SessionGrantRules(in.Call, in.Env)
		if n := ShellAnalyses() - before; n != 3 {
			t.Errorf("%q: the separate functions read it %d times, want 3", tc.cmd, n)
		}
	}
}
