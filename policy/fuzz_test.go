package policy

import (
	"path"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// evalWithin fails the test if one evaluation takes over a second: the
// engine must stay fast on any input.
func evalWithin(t *testing.T, in Input) Verdict {
	t.Helper()
	done := make(chan Verdict, 1)
	go func() { done <- Evaluate(in) }()
	select {
	case v := <-done:
		// Evaluate turns a panic into an ask: a fuzzer must still see it.
		if v.Source == SourceUnknownCall && strings.Contains(v.Reason, "internal error") {
			t.Fatalf("Evaluate panicked on %q: %s", in.Call.Command, v.Reason)
		}
		return v
	case <-time.After(time.Second):
		t.Fatalf("Evaluate took over a second on %q", in.Call.Command)
	}
	return Verdict{}
}

var fuzzEnv = Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"}

// FuzzCompileRule: the rule parser never panics; a rule either compiles or
// yields a RuleError naming it; a broken deny rule never lets its tool be
// allowed; and a Bash deny rule denies the very command it spells.
func FuzzCompileRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(ls *)", "Bash(npm run:*)", "Bash(rm -rf *", "Read(~/x/**)",
		"Edit(//etc/[a-z]*)", "WebFetch(domain:*.example.com)", "mcp__s__*", "Bash(echo \"a b\")",
		"Read(a[)", "Bash(git * --force)", "Task(x)", "Bash(())", "Edit(../x)", "Bash(\\*)"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, text string, which uint8) {
		list := []string{"deny", "ask", "allow"}[int(which)%3]
		pol, errs := Compile([]RuleText{{List: list, Text: text, Origin: Origin{Layer: "user"}}})
		if pol == nil {
			t.Fatal("nil policy")
		}
		for _, e := range errs {
			if e.Error() == "" || e.Err == nil {
				t.Fatalf("empty RuleError for %q", text)
			}
		}
		tool := poisonTool(text)
		calls := []Call{
			{Tool: "Bash", Command: "ls"}, {Tool: "Read", Paths: []string{"a"}}, {Tool: "Edit", Paths: []string{"/etc/x"}},
			{Tool: "WebFetch", URL: "https://example.com"}, {Tool: "mcp__s__t"}, {Tool: tool},
		}
		for _, c := range calls {
			v := Evaluate(Input{Call: c, Mode: ModeBypass, Env: fuzzEnv, Policy: pol})
			poisoned := tool == "*" || canonicalTool(c.Tool) == tool || (tool == "mcp__" && strings.HasPrefix(c.Tool, "mcp__"))
			if len(errs) > 0 && list != "allow" && v.Decision == Allow && poisoned {
				t.Fatalf("broken %s rule %q let %s be allowed", list, text, Specifier(c))
			}
		}
		if list == "deny" && len(errs) == 0 && strings.HasPrefix(text, "Bash(") && strings.HasSuffix(text, ")") {
			// the command spelled by the rule (one simple command, no
			// wildcard) must be denied.
			spec := strings.TrimSpace(text[5 : len(text)-1])
			if spec == "" || strings.ContainsAny(spec, "*") || strings.Contains(spec, ":*") {
				return
			}
			e := newEnvx(fuzzEnv)
			an := analyzeShell(spec, &e)
			if an.uncertain != "" || len(an.subs) != 1 || an.subs[0].kind != skNormal {
				return
			}
			// only when the shell reads the spec as the same words the
			// rule does (a # starts a comment in the shell, not in a rule).
			if r := pol.deny.all[0]; r.kind != rkBash || r.bash.glob != an.subs[0].text {
				return
			}
			v := Evaluate(Input{Call: Call{Tool: "Bash", Command: spec}, Mode: ModeBypass, Env: fuzzEnv, Policy: pol})
			if v.Decision == Allow {
				t.Fatalf("deny rule %q does not deny the command %q: %s", text, spec, v.Reason)
			}
		}
	})
}

var denyPolicy, _ = Compile([]RuleText{
	{List: "allow", Text: "Bash"},
	{List: "allow", Text: "Edit"},
	{List: "allow", Text: "Read"},
	{List: "deny", Text: "Bash(rm *)"},
	{List: "deny", Text: "Read(.env)"},
})

// rmForms run rm -rf x in ways the matcher must see through.
var rmForms = []string{
	"rm -rf x", "r\\m -rf x", "'rm' -rf x", "\"rm\" -rf x", "/bin/rm -rf x", "$(rm -rf x)", "`rm -rf x`",
	"bash -c 'rm -rf x'", "sh -c \"rm -rf x\"", "timeout 5 rm -rf x", "sudo -u root rm -rf x", "env A=1 rm -rf x",
	"A=1 rm -rf x", "nice -n 5 rm -rf x", "eval rm -rf x", "xargs -0 rm -rf x", "find . -exec rm -rf x {} +",
	"command rm -rf x", "nohup rm -rf x", "(rm -rf x)", "{ rm -rf x; }", "if true; then rm -rf x; fi",
	"echo <(rm -rf x)", "cat .env", "cat < .env", "bash -lc 'cd a && rm -rf x'", "$'\\x72m' -rf x",
}

// trimFuzz bounds a fragment and drops NUL bytes (which bash drops too);
// quotes, backslashes, comments and heredoc openers stay: whether they
// turn the rm into data is decided by rmIsCode.
func trimFuzz(s string) string {
	if len(s) > 400 {
		s = s[:400]
	}
	return strings.ReplaceAll(s, "\x00", "")
}

// rmIsCode reports whether cmd parses with the rm form spanning
// [start,end) as whole statements: then the fragments around it did not
// make it data (a quote, a comment, a heredoc body, a word), and the
// engine must see it. parsed is false when cmd does not parse.
func rmIsCode(cmd string, start, end int) (isCode, parsed bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false, false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if isCode {
			return false
		}
		if st, ok := n.(*syntax.Stmt); ok && int(st.Pos().Offset()) == start {
			e := int(st.End().Offset())
			if e >= end && strings.Trim(cmd[end:e], " \t;&") == "" {
				isCode = true
			}
		}
		return true
	})
	return isCode, true
}

// FuzzShellDeny: a command line with `rm -rf x` (in some disguise) as a
// sub-command, between arbitrary fragments, is never allowed under a deny
// on Bash(rm *) — whatever else the policy allows and in every mode —
// when the fragments leave it code (rmIsCode), and never when the line
// does not parse.
func FuzzShellDeny(f *testing.F) {
	for _, s := range []string{"ls", "echo hi", "a && b", "for i in 1 2; do", "$(", "case x in", "f() {", "}", "done",
		"|", "; ;", "exit", "`", ")", "{", "if", "then", "fi", "echo $((1+", "x=$(", "while :; do",
		"echo '", "'", "echo \"", "\\", "# c", "cat <<E", "E", "echo \\", "a#b", "<", "< f", "x='a b'", "$'\\''"} {
		f.Add(s, "", uint8(0), uint8(0))
		f.Add("echo a", s, uint8(3), uint8(7))
		f.Add(s, s, uint8(5), uint8(1))
	}
	seps := []string{" ; ", " && ", " || ", " | ", " |& ", " & ", "\n", " ;\n", "\n\n"}
	f.Fuzz(func(t *testing.T, pre, post string, form, sep uint8) {
		pre, post = trimFuzz(pre), trimFuzz(post)
		rm := rmForms[int(form)%len(rmForms)]
		s1 := seps[int(sep)%len(seps)]
		s2 := seps[int(sep/16)%len(seps)]
		cmd := pre + s1 + rm + s2 + post
		start := len(pre) + len(s1)
		isCode, parsed := rmIsCode(cmd, start, start+len(rm))
		if parsed && !isCode {
			return
		}
		for _, mode := range []Mode{ModeBypass, ModeDefault, ModeAcceptEdits} {
			v := evalWithin(t, Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: fuzzEnv, Policy: denyPolicy})
			if v.Decision == Allow {
				t.Fatalf("allowed %q in %s: %s (subs %q)", cmd, mode, v.Reason, v.SubCommands)
			}
		}
	})
}

// unquoteName is the command name a word spells with quotes and escapes
// removed, or "" if it holds an expansion (the oracle's own reading).
func unquoteName(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				b.WriteByte(v[i])
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return ""
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(l.Value)
			}
		default:
			return ""
		}
	}
	return b.String()
}

// FuzzShellOracle: for any command line that parses, if an independent
// walk of the syntax tree finds a simple command named rm anywhere, the
// engine must not allow it under Bash(rm *) deny.
func FuzzShellOracle(f *testing.F) {
	for _, s := range append([]string{"ls -la", "echo rm", "x=rm; $x", "cat <<'E'\nrm x\nE", "f() { rm x; }",
		"a | b && c; d &", "ls # rm -rf /", "'r'm x", "\"rm\" x", "r\\m x", "echo '#'; rm x", "ls #x\nrm x",
		"a#b; rm x", "cat <<E\n$(rm x)\nE", "bash <<E\nrm x\nE", "ls \\\nrm x"}, rmForms...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		v := evalWithin(t, Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeBypass, Env: fuzzEnv, Policy: denyPolicy})
		if v.Decision != Allow {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("allowed %q, which does not parse: %v", cmd, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
				if name := unquoteName(ce.Args[0]); name == "rm" || path.Base(name) == "rm" {
					t.Fatalf("allowed %q, which runs rm: %s", cmd, v.Reason)
				}
			}
			return true
		})
	})
}
