package policy

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// parseWords parses line as one simple command with the given dialect and
// returns its words after quote removal. It fails the test when the line is
// anything but a single plain command: no assignment, redirect, expansion,
// pipeline or second statement.
func parseWords(t testing.TB, line string, lang syntax.LangVariant) []string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q: %d statements, want 1", line, len(f.Stmts))
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) != 0 || st.Negated || st.Background || len(call.Assigns) != 0 {
		t.Fatalf("%q: not a single plain command: %#v", line, st.Cmd)
	}
	for _, w := range call.Args {
		for _, p := range w.Parts {
			switch p.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			default:
				t.Fatalf("%q: word part %T could expand", line, p)
			}
		}
	}
	fields, err := expand.Fields(&expand.Config{}, call.Args...)
	if err != nil {
		t.Fatalf("expand %q: %v", line, err)
	}
	return fields
}

func TestShellJoinRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want string // the exact rendering, when it matters
	}{
		{"plain", []string{"ls", "-la", "src/"}, "ls -la src/"},
		{"spaces", []string{"echo", "hello world", "  lead"}, "echo 'hello world' '  lead'"},
		{"single quote", []string{"git", "commit", "-m", "it's done"}, `git commit -m 'it'\''s done'`},
		{"dollar and backtick", []string{"echo", "$HOME", "`id`", "$(rm -rf /)"}, `echo '$HOME' '` + "`id`" + `' '$(rm -rf /)'`},
		{"backslashes", []string{"printf", `a\nb`, `\`, `\\`}, ""},
		{"double quotes", []string{"echo", `"quoted"`, `a"b`}, ""},
		{"operators", []string{"echo", ";", "&&", "|", ">", "<", "&", "||", "(", ")"}, ""},
		{"glob and brace", []string{"ls", "*.go", "?", "[ab]", "{a,b}", "~", "~/x"}, ""},
		{"comment and history", []string{"echo", "#not-a-comment", "!x", "a#b"}, ""},
		{"empty words", []string{"touch", "", "x"}, "touch '' x"},
		{"newline and tab", []string{"echo", "a\nb", "c\td"}, ""},
		{"assignment-looking command", []string{"FOO=bar", "x=y"}, "'FOO=bar' x=y"},
		{"reserved word as command", []string{"if", "then"}, "'if' then"},
		{"time as command", []string{"time", "ls"}, "'time' ls"},
		{"unicode", []string{"echo", "héllo", "日本"}, ""},
		{"dash words", []string{"rm", "--", "-rf"}, "rm -- -rf"},
		{"equals in args", []string{"go", "test", "-run=TestX", "--count=1"}, "go test -run=TestX --count=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := ShellJoin(c.argv[0], c.argv[1:])
			if c.want != "" && line != c.want {
				t.Errorf("ShellJoin = %s, want %s", line, c.want)
			}
			for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX} {
				if got := parseWords(t, line, lang); !slices.Equal(got, c.argv) {
					t.Errorf("%v: %s parses back as %q, want %q", lang, line, got, c.argv)
				}
			}
		})
	}
}

// parser; found by FuzzShellJoin: inside single quotes "\r\n" came back "\n").
func TestShellJoinCarriageReturn(t *testing.T) {
	argv := []string{"0", "\r\n", "a\x01b'c\\"}
	line := ShellJoin(argv[0], argv[1:])
	if got := parseWords(t, line, syntax.LangBash); !slices.Equal(got, argv) {
		t.Fatalf("%s parses back as %q, want %q", line, got, argv)
	}
}

func FuzzShellJoin(f *testing.F) {
	for _, s := range []string{"", "a b", "it's", `\`, "$x", "`x`", "\n", "if", "A=b", "~", "#", "{a,b}", "日本"} {
		f.Add(s, "arg "+s)
	}
	f.Fuzz(func(t *testing.T, cmd, arg string) {
		if strings.ContainsRune(cmd+arg, 0) || !utf8.ValidString(cmd) || !utf8.ValidString(arg) {
			t.Skip("an argv cannot hold NUL; the parser reads UTF-8")
		}
		argv := []string{cmd, arg}
		line := ShellJoin(cmd, []string{arg})
		if got := parseWords(t, line, syntax.LangBash); !slices.Equal(got, argv) {
			t.Fatalf("%s parses back as %q, want %q", line, got, argv)
		}
	})
}

// TestJoinNamedEqualsJoinWords: joinNamed is joinWords of the name word
// and the arguments (no line), for no, one and several arguments, empty
// ones and ones with blanks; shortOptName is "-" + string(c) for every byte.
func TestJoinNamedEqualsJoinWords(t *testing.T) {
	for _, args := range [][]string{nil, {"x"}, {"", "a b", "-la"}, {"sub7", "x", "y z", ""}} {
		var ws []word
		for i, s := range args {
			ws = append(ws, word{s: s, static: true, off: 10 + i})
		}
		for _, name := range []string{"tool5", "", "pip3"} {
			want := joinWords(append([]word{{s: name, static: true, off: -1}}, ws...), "")
			if got := joinNamed(name, ws); got != want {
				t.Errorf("joinNamed(%q, %q) = %q, want %q", name, args, got, want)
			}
		}
	}
	for c := 0; c < 256; c++ {
		if got, want := shortOptName(byte(c)), "-"+string(rune(byte(c))); got != want {
			t.Fatalf("shortOptName(%d) = %q, want %q", c, got, want)
		}
	}
}
