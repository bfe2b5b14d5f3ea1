package policy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// policyCase is one line of testdata/policy_cases.jsonl. Missing env fields
// take the defaults of caseEnv; mode "" is default.
type policyCase struct {
	Src        string            `json:"src"`
	Tool       string            `json:"tool"`
	Cmd        string            `json:"cmd"`
	Paths      []string          `json:"paths"`
	URL        string            `json:"url"`
	URLs       []string          `json:"urls"`
	Query      string            `json:"query"`
	Kind       string            `json:"kind"`
	Title      string            `json:"title"`
	Mode       string            `json:"mode"`
	Allow      []string          `json:"allow"`
	Ask        []string          `json:"ask"`
	Deny       []string          `json:"deny"`
	Session    []string          `json:"session"`
	Cwd        string            `json:"cwd"`
	CallCwd    string            `json:"callCwd"` // Call.Cwd: the call's own directory
	Extra      []string          `json:"additionalDirectories"`
	Symlinks   map[string]string `json:"symlinks"`
	AgentBypas bool              `json:"agentBypass"`

	// BadRule: the case's rules are expected not to compile (a poisoned
	// rule); otherwise a rule that does not compile fails the test.
	BadRule bool `json:"badRule"`

	Want    Decision `json:"want"`
	Source  Source   `json:"source"`
	Rule    string   `json:"rule"`
	Breaker string   `json:"breaker"` // substring of Verdict.Breaker
	Subs    []string `json:"subs"`
}

const (
	caseCwd  = "/w/proj"
	caseHome = "/home/u"
)

func loadCases(t testing.TB) []policyCase {
	t.Helper()
	data, err := os.ReadFile("testdata/policy_cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []policyCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var c policyCase
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("policy_cases.jsonl:%d: %v", n, err)
		}
		if c.Src == "" || c.Want == "" {
			t.Fatalf("policy_cases.jsonl:%d: every case needs src and want", n)
		}
		out = append(out, c)
	}
	return out
}

func (c *policyCase) input(t testing.TB) Input {
	t.Helper()
	var rules []RuleText
	origin := Origin{Layer: "workspace", File: caseCwd + "/.acp-bridge.yaml", Root: caseCwd}
	for _, l := range []struct {
		list  string
		texts []string
	}{{"deny", c.Deny}, {"ask", c.Ask}, {"allow", c.Allow}} {
		for _, txt := range l.texts {
			rules = append(rules, RuleText{List: l.list, Text: txt, Origin: origin})
		}
	}
	pol, errs := Compile(rules)
	if len(errs) > 0 && !c.BadRule {
		t.Fatalf("%s: rules do not compile (mark the case badRule if that is meant): %v", c.Src, errs)
	}
	var sess *Policy
	if len(c.Session) > 0 {
		var srules []RuleText
		for _, txt := range c.Session {
			srules = append(srules, RuleText{List: "allow", Text: txt, Origin: Origin{Layer: "session"}})
		}
		var errs []RuleError
		sess, errs = Compile(srules)
		if len(errs) > 0 {
			t.Fatalf("session rules: %v", errs)
		}
	}
	mode := ModeDefault
	if c.Mode != "" {
		m, err := ParseMode(c.Mode)
		if err != nil {
			t.Fatal(err)
		}
		mode = m
	}
	cwd := c.Cwd
	if cwd == "" {
		cwd = caseCwd
	}
	env := Env{Cwd: cwd, ProjectRoot: caseCwd, Home: caseHome, AdditionalDirectories: c.Extra}
	if c.Symlinks != nil {
		env.FS = MapFS(c.Symlinks)
	}
	call := Call{Tool: c.Tool, Command: c.Cmd, Paths: c.Paths, URL: c.URL, URLs: c.URLs, Query: c.Query, Kind: c.Kind, Title: c.Title, Cwd: c.CallCwd}
	return Input{Call: call, Mode: mode, Env: env, Policy: pol, Session: sess, AgentBypass: c.AgentBypas}
}

func caseName(c policyCase) string {
	s := c.Tool + "(" + c.Cmd + strings.Join(c.Paths, ",") + c.URL + c.Query + ")"
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

func TestPolicyCases(t *testing.T) {
	cases := loadCases(t)
	if len(cases) < 200 {
		t.Fatalf("only %d cases; the table must keep at least 200", len(cases))
	}
	for i, c := range cases {
		c := c
		t.Run(caseName(c), func(t *testing.T) {
			v := Evaluate(c.input(t))
			bad := v.Decision != c.Want ||
				(c.Source != "" && v.Source != c.Source) ||
				(c.Rule != "" && v.Rule != c.Rule) ||
				(c.Breaker != "" && !strings.Contains(v.Breaker, c.Breaker))
			if c.Subs != nil && strings.Join(v.SubCommands, "\n") != strings.Join(c.Subs, "\n") {
				bad = true
			}
			if bad {
				t.Errorf("case %d (%s)\n call: %s mode=%q\n got:  %s source=%s rule=%q breaker=%q subs=%q\n      %s\n want: %s source=%q rule=%q breaker~%q subs=%q",
					i+1, c.Src, v.Specifier, c.Mode, v.Decision, v.Source, v.Rule, v.Breaker, v.SubCommands, v.Reason,
					c.Want, c.Source, c.Rule, c.Breaker, c.Subs)
			}
			if v.Reason == "" {
				t.Errorf("case %d: empty reason", i+1)
			}
			if v.Breaker != "" && v.Source != SourceBreaker {
				t.Errorf("case %d: breaker %q with source %s", i+1, v.Breaker, v.Source)
			}
		})
	}
}
