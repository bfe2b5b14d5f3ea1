package policy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// An editor's mode id is one of the five names exactly: no alias, so an
// agent's own "auto" is never taken for bypassPermissions.
func TestModeFromID(t *testing.T) {
	for _, m := range Modes {
		if got, ok := ModeFromID(string(m)); !ok || got != m {
			t.Errorf("ModeFromID(%q) = %q, %v", m, got, ok)
		}
	}
	for _, bad := range []string{"auto", "autonomous", "auto_accept_all", "ask_every_time", "yolo", " plan", "", "Default"} {
		if got, ok := ModeFromID(bad); ok {
			t.Errorf("ModeFromID(%q) = %q, want refused", bad, got)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
	}{
		{"default", ModeDefault}, {"acceptEdits", ModeAcceptEdits}, {"plan", ModePlan},
		{"dontAsk", ModeDontAsk}, {"bypassPermissions", ModeBypass}, {"autonomous", ModeBypass},
		{"ask_every_time", ModeDefault}, {"auto_accept_read_only", ModeDefault},
		{"auto_accept_all", ModeBypass}, {" plan ", ModePlan},
	} {
		got, err := ParseMode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "yolo", "Default", "bypass", "auto"} {
		_, err := ParseMode(bad)
		if err == nil {
			t.Errorf("ParseMode(%q): no error", bad)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) || !strings.Contains(err.Error(), "bypassPermissions") {
			t.Errorf("ParseMode(%q) error %q should name the bad value and the valid ones", bad, err)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	origin := Origin{Layer: "user", File: "/home/u/.config/acp-bridge/config.yaml"}
	for _, tc := range []struct {
		list, text string
		want       error
	}{
		{"deny", "Bash(rm *", ErrRuleSyntax},
		{"deny", "Bash(rm *))", ErrRuleSyntax},
		{"deny", "Bash)", ErrRuleSyntax},
		{"deny", "Bash()", ErrRuleSpecifier},
		{"deny", "Bash( )", ErrRuleSpecifier},
		{"deny", "", ErrRuleSyntax},
		{"ask", "Bash(npm:* run)", ErrRuleSpecifier},
		{"ask", "Bash(echo 'x)", ErrRuleSpecifier},
		{"deny", "Read(~bob/x)", ErrRuleSpecifier},
		{"deny", "Read($HOME/x)", ErrRuleSpecifier},
		{"deny", "Read(a[b)", ErrRuleSpecifier},
		{"deny", "WebFetch(example.com)", ErrRuleSpecifier},
		{"deny", "WebFetch(domain:)", ErrRuleSpecifier},
		{"deny", "WebFetch(domain:exa mple.com)", ErrRuleSpecifier},
		{"deny", "WebFetch(*)", ErrRuleSpecifier},
		{"deny", "WebSearch(cats)", ErrRuleSpecifier},
		{"deny", "mcp__db(x)", ErrRuleSpecifier},
		{"deny", "mcp__", ErrRuleTool},
		{"deny", "Ba sh", ErrRuleTool},
		{"deny", "Bash*", ErrRuleTool},
		{"maybe", "Bash", ErrRuleList},
	} {
		_, errs := Compile([]RuleText{{List: tc.list, Text: tc.text, Origin: origin}})
		if len(errs) != 1 {
			t.Errorf("%s %q: %d errors, want 1", tc.list, tc.text, len(errs))
			continue
		}
		e := errs[0]
		if !errors.Is(e, tc.want) {
			t.Errorf("%s %q: error %v, want %v", tc.list, tc.text, e.Err, tc.want)
		}
		msg := e.Error()
		if !strings.Contains(msg, fmt.Sprintf("%q", tc.text)) || !strings.Contains(msg, tc.list) || !strings.Contains(msg, origin.File) {
			t.Errorf("error %q must name the rule, the list and the origin", msg)
		}
	}
	for _, good := range []string{"Bash", "Bash(*)", "Bash(ls *)", "Bash(npm run:*)", "Read(//etc/**)", "Read(~/x)",
		"Read(~)", "Edit(/src/**)", "Edit(./a)", "Edit(../x)", "Write(*.lock)", "WebFetch(domain:*.example.com)", "WebFetch(domain:*)",
		"WebFetch", "WebSearch", "mcp__s", "mcp__s__*", "mcp__s__t", "mcp__s__t*", "Task(explore *)", "Bash(echo $(date))"} {
		if _, errs := Compile([]RuleText{{List: "allow", Text: good}}); len(errs) != 0 {
			t.Errorf("%q: unexpected error %v", good, errs)
		}
	}
}

func TestPoisonedRuleNeverWidens(t *testing.T) {
	// a dropped allow rule changes nothing; a dropped deny rule asks.
	env := Env{Cwd: "/w", Home: "/h"}
	call := Call{Tool: "Bash", Command: "rm -rf build"}
	for _, mode := range Modes {
		clean, _ := Compile(nil)
		broken, errs := Compile([]RuleText{{List: "deny", Text: "Bash(rm -rf build"}})
		if len(errs) != 1 {
			t.Fatalf("want one error, got %v", errs)
		}
		vc := Evaluate(Input{Call: call, Mode: mode, Env: env, Policy: clean})
		vb := Evaluate(Input{Call: call, Mode: mode, Env: env, Policy: broken})
		if vb.Decision == Allow {
			t.Errorf("%s: a broken deny rule allowed the call", mode)
		}
		if rank(vb.Decision) < rank(vc.Decision) {
			t.Errorf("%s: broken deny rule made the policy more permissive: %s vs %s", mode, vb.Decision, vc.Decision)
		}
	}
}

func rank(d Decision) int {
	switch d {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2
}

func TestOversizeCommand(t *testing.T) {
	pol, _ := Compile([]RuleText{{List: "allow", Text: "Bash"}, {List: "deny", Text: "Bash(rm *)"}})
	env := Env{Cwd: "/w", Home: "/h"}
	big := "echo " + strings.Repeat("a", maxCommandBytes)
	v := Evaluate(Input{Call: Call{Tool: "Bash", Command: big}, Env: env, Policy: pol})
	if v.Decision != Ask || !strings.Contains(v.Reason, "64 KiB") {
		t.Errorf("oversize command: %s %q", v.Decision, v.Reason)
	}
	v = Evaluate(Input{Call: Call{Tool: "Bash", Command: "rm x; " + big}, Env: env, Policy: pol})
	if v.Decision != Deny {
		t.Errorf("oversize command with a clear rm: %s %q", v.Decision, v.Reason)
	}
	many := strings.Repeat("ls; ", maxSubCommands+10)
	v = Evaluate(Input{Call: Call{Tool: "Bash", Command: many}, Env: env, Policy: pol, Mode: ModeBypass})
	if v.Decision != Ask {
		t.Errorf("too many sub-commands: %s %q", v.Decision, v.Reason)
	}
}

func TestSpecifier(t *testing.T) {
	for _, tc := range []struct {
		call Call
		want string
	}{
		{Call{Tool: "Bash", Command: " npm run build "}, "Bash(npm run build)"},
		{Call{Tool: "Edit", Paths: []string{"/w/a.go"}}, "Edit(/w/a.go)"},
		{Call{Tool: "Write", Paths: []string{"/w/a.go", "/w/b.go"}}, "Edit(/w/a.go, /w/b.go)"},
		{Call{Tool: "WebFetch", URL: "https://Docs.Example.com/x"}, "WebFetch(domain:docs.example.com)"},
		{Call{Tool: "WebSearch", Query: "cats"}, "WebSearch(cats)"},
		{Call{Tool: "mcp__gh__issue"}, "mcp__gh__issue"},
		{Call{Tool: "", Title: "do stuff"}, "unknown(do stuff)"},
		{Call{Tool: "read_file", Kind: "read", Paths: []string{"a"}}, "read_file(a)"},
	} {
		if got := Specifier(tc.call); got != tc.want {
			t.Errorf("Specifier(%+v) = %q, want %q", tc.call, got, tc.want)
		}
	}
}

func TestSuggestRules(t *testing.T) {
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}
	for _, tc := range []struct {
		call Call
		want []string
	}{
		{Call{Tool: "Bash", Command: "npm run build"}, []string{"Bash(npm run build)", "Bash(npm run *)"}},
		{Call{Tool: "Bash", Command: "make"}, []string{"Bash(make)"}},
		{Call{Tool: "Bash", Command: "go test ./..."}, []string{"Bash(go test ./...)", "Bash(go test *)"}},
		{Call{Tool: "Bash", Command: "rm -rf build"}, []string{"Bash(rm -rf build)"}},
		{Call{Tool: "Bash", Command: "cd web && npm ci && ls"}, []string{"Bash(npm ci)", "Bash(npm *)"}},
		{Call{Tool: "Bash", Command: "timeout 5 cargo build --release"}, []string{"Bash(cargo build --release)", "Bash(cargo build *)"}},
		{Call{Tool: "Bash", Command: "echo 'oops"}, nil},
		{Call{Tool: "Bash", Command: "ls -la"}, []string{"Bash(ls -la)", "Bash(ls *)"}},
		{Call{Tool: "Edit", Paths: []string{"src/main.go"}}, []string{"Edit(//w/p/src/main.go)", "Edit(//w/p/src/**)"}},
		{Call{Tool: "Read", Paths: []string{"~/.npmrc"}}, []string{"Read(//home/u/.npmrc)"}},
		{Call{Tool: "WebFetch", URL: "https://api.github.com/x"}, []string{"WebFetch(domain:api.github.com)", "WebFetch(domain:*.github.com)"}},
		{Call{Tool: "WebFetch", URL: "https://go.dev/x"}, []string{"WebFetch(domain:go.dev)"}},
		{Call{Tool: "mcp__gh__create_issue"}, []string{"mcp__gh__create_issue", "mcp__gh__*"}},
		{Call{Tool: "Task"}, []string{"Task"}},
		{Call{Tool: ""}, nil},
	} {
		got := SuggestRules(tc.call, env)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("SuggestRules(%s) = %q, want %q", Specifier(tc.call), got, tc.want)
		}
		// every suggestion must compile and allow the call it was made for.
		for _, r := range got {
			pol, errs := Compile([]RuleText{{List: "allow", Text: r}})
			if len(errs) > 0 {
				t.Errorf("suggested rule %q does not compile: %v", r, errs)
				continue
			}
			if strings.HasSuffix(r, "**)") || strings.Contains(r, "*.") || strings.HasSuffix(r, "__*") || strings.HasSuffix(r, " *)") {
				continue
			}
			v := Evaluate(Input{Call: tc.call, Env: env, Policy: pol})
			if len(got) > 0 && r == got[0] && tc.call.Tool != "Bash" && v.Decision != Allow {
				t.Errorf("exact suggestion %q does not allow %s: %s", r, Specifier(tc.call), v.Reason)
			}
		}
	}
}

func TestSuggestedRulesAllowTheCall(t *testing.T) {
	env := Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}
	for _, cmd := range []string{"npm run build", "cd web && npm ci && npm test", "go test ./... | tee out.log", "make -j4 all"} {
		call := Call{Tool: "Bash", Command: cmd}
		var rules []RuleText
		for _, r := range SuggestRules(call, env) {
			rules = append(rules, RuleText{List: "allow", Text: r})
		}
		rules = append(rules, RuleText{List: "allow", Text: "Edit(//w/p/**)"})
		pol, _ := Compile(rules)
		if v := Evaluate(Input{Call: call, Env: env, Policy: pol}); v.Decision != Allow {
			t.Errorf("%q with its suggested rules: %s (%s)", cmd, v.Decision, v.Reason)
		}
	}
}

func TestMapFS(t *testing.T) {
	fs := MapFS{"/a/l": "/b", "/b/x": "y", "/loop": "/loop2", "/loop2": "/loop"}
	for _, tc := range []struct{ in, want string }{
		{"/a/l/f", "/b/f"}, {"/a/l/x/z", "/b/y/z"}, {"/c/d", "/c/d"}, {"/a/../a/l", "/b"},
	} {
		got, err := fs.EvalSymlinks(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("EvalSymlinks(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := fs.EvalSymlinks("/loop/x"); !errors.Is(err, errSymlinkLoop) {
		t.Errorf("loop: %v", err)
	}
	if _, err := fs.EvalSymlinks("rel"); err == nil {
		t.Error("relative path: no error")
	}
}

func TestOSFS(t *testing.T) {
	dir := t.TempDir()
	env := Env{Cwd: dir, Home: "/nonexistent-home", FS: OSFS{}}
	pol, _ := Compile([]RuleText{{List: "deny", Text: "Read(//etc/**)"}})
	// a file that does not exist yet resolves through its parent.
	v := Evaluate(Input{Call: Call{Tool: "Read", Paths: []string{"new/file.txt"}}, Env: env, Policy: pol})
	if v.Decision != Allow {
		t.Errorf("read inside temp workspace: %s %s", v.Decision, v.Reason)
	}
}

func TestConcurrentEvaluate(t *testing.T) {
	cases := loadCases(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range cases {
				c := &cases[i]
				in := c.input(t)
				if v := Evaluate(in); v.Decision != c.Want {
					t.Errorf("concurrent case %d (%s): %s, want %s", i+1, c.Src, v.Decision, c.Want)
				}
			}
		}()
	}
	wg.Wait()
}

func TestRulesAccessor(t *testing.T) {
	pol, errs := Compile([]RuleText{{List: "allow", Text: "Bash(ls)"}, {List: "deny", Text: "Read(x"}, {List: "deny", Text: "Edit(y)"}})
	if len(errs) != 1 || pol.Len() != 3 {
		t.Fatalf("errs=%v len=%d", errs, pol.Len())
	}
	if got := strings.Join(pol.Rules("ask"), ","); got != "Read(x" {
		t.Errorf("poisoned rule should sit in the ask list, got %q", got)
	}
	if got := strings.Join(pol.Rules("deny"), ","); got != "Edit(y)" {
		t.Errorf("deny list %q", got)
	}
}

// Paths longer than the system opens are not read (no decision is slowed by
// them): a call naming one, or a shell word used as one, is uncertain:
// asked, denied in dontAsk, never allowed, whatever the allow rules.
func TestOverlongPathsAreUncertain(t *testing.T) {
	long := "/w/proj" + strings.Repeat("/a", 30000)
	for _, c := range []policyCase{
		{Src: "x", Tool: "Read", Paths: []string{long}, Allow: []string{"Read"}, Deny: []string{"Read(~/.ssh/**)"}},
		{Src: "x", Tool: "Bash", Cmd: "cat " + long, Allow: []string{"Bash"}, Deny: []string{"Read(~/.ssh/**)"}},
	} {
		for _, m := range []Mode{ModeDefault, ModeBypass, ModeDontAsk} {
			in := c.input(t)
			in.Mode = m
			v := Evaluate(in)
			want := Ask
			if m == ModeDontAsk {
				want = Deny
			}
			if v.Decision != want || !strings.Contains(v.Reason, "4096") {
				t.Errorf("%s in %s: got %s (%s), want %s naming the bound", c.Tool, m, v.Decision, v.Reason, want)
			}
		}
	}
}
