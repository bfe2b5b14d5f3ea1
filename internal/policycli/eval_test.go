package policycli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

var update = flag.Bool("update", false, "rewrite testdata/eval_out.jsonl")

// TestEvalGolden feeds testdata/eval_in.jsonl through Eval and compares
// with testdata/eval_out.jsonl (run with -update to rewrite it after
// checking the diff by hand).
func TestEvalGolden(t *testing.T) {
	in, err := os.ReadFile("testdata/eval_in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Eval(bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("testdata/eval_out.jsonl", out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/eval_out.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("output differs from testdata/eval_out.jsonl:\n%s", out.String())
	}
}

// TestEvalLines checks the meaning of each output line, independently of
// the golden file.
func TestEvalLines(t *testing.T) {
	in, err := os.ReadFile("testdata/eval_in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Eval(bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	nonEmpty := 0
	for _, l := range strings.Split(strings.TrimSpace(string(in)), "\n") {
		if strings.TrimSpace(l) != "" {
			nonEmpty++
		}
	}
	if len(lines) != nonEmpty {
		t.Fatalf("%d output lines for %d input lines", len(lines), nonEmpty)
	}
	type want struct {
		id, decision, source, rule, breaker, errSub string
		subs                                        int
	}
	wants := []want{
		{id: "1", decision: "allow", source: "rule", rule: "Bash(npm run *)", subs: 2},
		{id: `"two"`, decision: "deny", source: "rule", rule: "Bash(rm *)", subs: 2},
		{id: "3", decision: "ask", source: "breaker", breaker: "rm -r of /"},
		{id: "4", decision: "deny", rule: "Read(.env)"},
		{id: "5", decision: "ask", source: "breaker", breaker: "/etc/hosts"}, // a symlink out of the workspace into /etc: a persistence place
		{id: "6", decision: "allow", source: "mode"},
		{id: "7", decision: "allow", rule: "WebFetch(domain:*.example.com)"},
		{id: "8", decision: "deny", source: "mode"},
		{id: "9", decision: "allow", rule: "mcp__github"},
		{id: "10", decision: "ask", source: "rule"},
		{id: "11", decision: "deny", rule: "Read(/secrets/**)"},
		{id: "12", errSub: `unknown permission mode "yolo"`},
		{id: "13", decision: "allow", source: "read-only"},
		{id: "14", decision: "deny", source: "mode"},
		{id: "null", errSub: "line 15"},
		{id: "16", errSub: `Bash input needs "command"`},
		{id: "17", errSub: "cwd"},
		{id: "18", errSub: "unknown field"},
		{id: "19", decision: "ask", source: "unknown-call"},
	}
	for i, w := range wants {
		var r struct {
			ID          json.RawMessage `json:"id"`
			Decision    string          `json:"decision"`
			Source      string          `json:"source"`
			Rule        string          `json:"rule"`
			Breaker     string          `json:"breaker"`
			Reason      string          `json:"reason"`
			SubCommands []string        `json:"subCommands"`
			RuleErrors  []string        `json:"ruleErrors"`
			Error       string          `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if string(r.ID) != w.id {
			t.Errorf("line %d: id %s, want %s", i+1, r.ID, w.id)
		}
		if w.errSub != "" {
			if !strings.Contains(r.Error, w.errSub) || r.Decision != "" {
				t.Errorf("line %d: error %q, want one containing %q", i+1, r.Error, w.errSub)
			}
			continue
		}
		if r.Error != "" || r.Decision != w.decision || (w.source != "" && r.Source != w.source) ||
			(w.rule != "" && r.Rule != w.rule) || (w.breaker != "" && !strings.Contains(r.Breaker, w.breaker)) ||
			(w.subs > 0 && len(r.SubCommands) != w.subs) || r.Reason == "" {
			t.Errorf("line %d: got %s", i+1, lines[i])
		}
	}
	// line 10's broken deny rule is reported.
	if !strings.Contains(lines[9], `"ruleErrors"`) {
		t.Errorf("line 10 should report the rule error: %s", lines[9])
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestEvalWriteError(t *testing.T) {
	err := Eval(strings.NewReader(`{"id":1,"tool":"Bash","input":"ls","rules":{},"cwd":"/w"}`+"\n"), failWriter{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error not returned: %v", err)
	}
}

func TestEvalNoTrailingNewline(t *testing.T) {
	var out bytes.Buffer
	if err := Eval(strings.NewReader(`{"id":1,"tool":"Bash","input":"ls","rules":{},"cwd":"/w","home":"/h","symlinks":{}}`), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"decision":"allow"`) {
		t.Errorf("got %s", out.String())
	}
}

func TestCallFromInput(t *testing.T) {
	for _, tc := range []struct {
		tool, input string
		want        policy.Call
		err         bool
	}{
		{"Bash", `{"command":"ls"}`, policy.Call{Tool: "Bash", Command: "ls"}, false},
		{"Bash", `"ls -la"`, policy.Call{Tool: "Bash", Command: "ls -la"}, false},
		{"Bash", `{"cmd":"ls"}`, policy.Call{}, true},
		{"Bash", `[1]`, policy.Call{}, true},
		{"Read", `{"file_path":"a"}`, policy.Call{Tool: "Read", Paths: []string{"a"}}, false},
		{"Read", `"a"`, policy.Call{Tool: "Read", Paths: []string{"a"}}, false},
		{"Edit", `{"path":"b"}`, policy.Call{Tool: "Edit", Paths: []string{"b"}}, false},
		{"NotebookEdit", `{"notebook_path":"n.ipynb"}`, policy.Call{Tool: "NotebookEdit", Paths: []string{"n.ipynb"}}, false},
		{"Read", `{}`, policy.Call{}, true},
		{"WebFetch", `{"url":"https://x.org"}`, policy.Call{Tool: "WebFetch", URL: "https://x.org"}, false},
		{"WebSearch", `{"query":"q"}`, policy.Call{Tool: "WebSearch", Query: "q"}, false},
		{"mcp__s__t", `[1,2]`, policy.Call{Tool: "mcp__s__t"}, false},
	} {
		got, err := CallFromInput(tc.tool, json.RawMessage(tc.input))
		if (err != nil) != tc.err {
			t.Errorf("%s %s: err %v", tc.tool, tc.input, err)
			continue
		}
		if tc.err {
			continue
		}
		if got.Tool != tc.want.Tool || got.Command != tc.want.Command || got.URL != tc.want.URL || got.Query != tc.want.Query ||
			strings.Join(got.Paths, ",") != strings.Join(tc.want.Paths, ",") {
			t.Errorf("%s %s: got %+v", tc.tool, tc.input, got)
		}
	}
}

func TestExplain(t *testing.T) {
	pol, _ := policy.Compile([]policy.RuleText{{List: "deny", Text: "Bash(rm *)", Origin: policy.Origin{Layer: "user", File: "/h/.config/acp-bridge/config.yaml"}}})
	call := policy.Call{Tool: "Bash", Command: "cd build && rm -rf out"}
	v := policy.Evaluate(policy.Input{Call: call, Env: policy.Env{Cwd: "/w", Home: "/h"}, Policy: pol})
	var b bytes.Buffer
	Explain(&b, call, v)
	got := b.String()
	for _, want := range []string{"Bash(cd build && rm -rf out)", "DENY", "Bash(rm *) from user settings (/h/.config/acp-bridge/config.yaml)",
		"Sub-commands (2)", "1. cd build", "2. rm -rf out"} {
		if !strings.Contains(got, want) {
			t.Errorf("explanation lacks %q:\n%s", want, got)
		}
	}
	b.Reset()
	call = policy.Call{Tool: "Bash", Command: "rm -rf ~"}
	v = policy.Evaluate(policy.Input{Call: call, Mode: policy.ModeBypass, Env: policy.Env{Cwd: "/w", Home: "/h"}})
	Explain(&b, call, v)
	if !strings.Contains(b.String(), "Breaker:   rm -r of the home directory") {
		t.Errorf("breaker not explained:\n%s", b.String())
	}
}
