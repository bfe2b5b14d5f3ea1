package policy

import (
	"regexp"
	"strings"
	"testing"
)

func mustCompile(t testing.TB, rules ...RuleText) *Policy {
	t.Helper()
	p, errs := Compile(rules)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return p
}

// FuzzFlagOrder: rm with -r and -f spelled in any order, split or joined,
// long or short, before or after the operand, always meets a deny on
// Bash(rm -rf *), whatever else is on the line.
func FuzzFlagOrder(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "x")
	f.Add([]byte{7, 3, 9, 1, 200}, "build")
	pol := mustCompile(f, RuleText{List: "deny", Text: "Bash(rm -rf *)"}, RuleText{List: "allow", Text: "Bash"})
	r := []string{"-r", "-R", "--recursive"}
	fo := []string{"-f", "--force"}
	both := []string{"-rf", "-fr", "-Rf", "-fR", "-rfv", "-vrf", "-frv"}
	extra := []string{"-v", "-i", "--verbose", "-d", "--one-file-system", "-I"}
	f.Fuzz(func(t *testing.T, picks []byte, operand string) {
		if len(picks) == 0 || len(picks) > 16 {
			return
		}
		operand = strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '/' || c == '_' {
				return c
			}
			return -1
		}, operand)
		if operand == "" || operand[0] == '-' {
			operand = "x"
		}
		var words []string
		if picks[0]%2 == 0 {
			words = []string{both[int(picks[0]/2)%len(both)]}
		} else {
			words = []string{r[int(picks[0]/2)%len(r)], fo[int(picks[0]/8)%len(fo)]}
		}
		for _, p := range picks[1:] {
			words = append(words, extra[int(p)%len(extra)])
		}
		// shuffle with the picks, place the operand anywhere (GNU rm
		// takes options after operands).
		for i := len(words) - 1; i > 0; i-- {
			j := int(picks[i%len(picks)]) % (i + 1)
			words[i], words[j] = words[j], words[i]
		}
		at := int(picks[len(picks)-1]) % (len(words) + 1)
		words = append(words[:at], append([]string{operand}, words[at:]...)...)
		cmd := "rm " + strings.Join(words, " ")
		for _, mode := range []Mode{ModeBypass, ModeDefault} {
			if v := evalWithin(t, Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: fuzzEnv, Policy: pol}); v.Decision != Deny {
				t.Fatalf("%q in %s: %s (%s)", cmd, mode, v.Decision, v.Reason)
			}
		}
	})
}

// FuzzHiddenRead: any command given the denied file as an argument, in any
// of the spellings a program reads as a file name, is never allowed under
// a Read(.env) deny, in every mode.
func FuzzHiddenRead(f *testing.F) {
	f.Add(uint8(0), uint8(0), "x")
	f.Add(uint8(5), uint8(3), "-n")
	pol := mustCompile(f, RuleText{List: "deny", Text: "Read(.env)"}, RuleText{List: "allow", Text: "Bash"})
	progs := []string{"cat", "sort", "awk 1", "sed -n p", "base64", "strings", "xxd", "od -c", "cut -c1-", "jq .", "less", "tac",
		"python3 x.py", "node x.js", "mytool", "curl -d", "curl -T", "docker run --env-file", "git show", "git blame", "git log -p --",
		"tar -cf /tmp/a.tar", "zip /tmp/a.zip", "cp", "scp", "rsync", "diff", "grep -r x", "source", ".", "nl", "perl -ne print"}
	forms := []string{".env", "./.env", "$PWD/.env", "@.env", "--file=.env", "-f.env", "HEAD:.env", ":.env", "sub/../.env",
		"/w/p/.env", "~/../../w/p/.env", "file:///w/p/.env", "x=.env", "'.env'", "\".env\"", ".e\\nv", "$HOME/../../w/p/.env"}
	f.Fuzz(func(t *testing.T, p, form uint8, other string) {
		other = strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c == '-' || c == '.' {
				return c
			}
			return -1
		}, other)
		if len(other) > 20 {
			other = other[:20]
		}
		cmd := progs[int(p)%len(progs)] + " " + other + " " + forms[int(form)%len(forms)]
		if strings.HasSuffix(other, "-") || other == "--" {
			cmd = progs[int(p)%len(progs)] + " " + forms[int(form)%len(forms)]
		}
		for _, mode := range []Mode{ModeBypass, ModeDefault, ModePlan} {
			if v := evalWithin(t, Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: mode, Env: fuzzEnv, Policy: pol}); v.Decision == Allow {
				t.Fatalf("%q allowed in %s: %s", cmd, mode, v.Reason)
			}
		}
	})
}

// FuzzHostsOf: reading a URL never panics, the hosts it returns are in
// normal form (reading them again gives them back), and a URL naming
// evil.com in any spelling the reader returns is denied by a domain rule.
func FuzzHostsOf(f *testing.F) {
	for _, s := range []string{"https://evil.com/", "http://ｅｖｉｌ。com", "//a@b@c", "http://[::1]:80", "http://0x7f.1", "evil.com\\@x", "%65vil.com"} {
		f.Add(s)
	}
	pol := mustCompile(f, RuleText{List: "deny", Text: "WebFetch(domain:evil.com)"}, RuleText{List: "allow", Text: "WebFetch"})
	f.Fuzz(func(t *testing.T, u string) {
		hosts, _ := hostsOf(u)
		for _, h := range hosts {
			again, ok := normHost(h)
			if strings.Contains(h, ":") {
				again, ok = normHost("[" + h + "]")
			}
			if !ok || again != h {
				t.Fatalf("hostsOf(%q) gave %q, which reads back as %q (%v)", u, h, again, ok)
			}
			if h == "evil.com" {
				if v := evalWithin(t, Input{Call: Call{Tool: "WebFetch", URL: u}, Mode: ModeBypass, Env: fuzzEnv, Policy: pol}); v.Decision != Deny {
					t.Fatalf("%q reaches evil.com but is %s", u, v.Decision)
				}
			}
		}
	})
}

// callsSystem: system( as a call of awk's builtin, not the end of a longer name.
var callsSystem = regexp.MustCompile(`(^|[^A-Za-z0-9_])system\(`)

// FuzzScripts: sed scripts and awk programs of any text are read without
// a panic or a hang, and an awk program that calls system() or pipes is
// never covered by a prefix rule.
func FuzzScripts(f *testing.F) {
	for _, s := range []string{"{print}", "BEGIN{system(\"ls\")}", "/a|b/", "s/a/b/w f", "1e ls", "$!N;P;D", "a\\\ntext", "{print > \"f\"}", "y/ab/cd/"} {
		f.Add(s)
	}
	pol := mustCompile(f, RuleText{List: "allow", Text: "Bash(awk *)"}, RuleText{List: "allow", Text: "Bash(sed *)"})
	f.Fuzz(func(t *testing.T, prog string) {
		if len(prog) > 300 || strings.ContainsAny(prog, "'\x00") || strings.HasPrefix(prog, "-") {
			// A word that starts with - is an option to awk and sed (an
			// unknown one makes them fail), not a program.
			return
		}
		for _, cmd := range []string{"awk '" + prog + "' f", "sed '" + prog + "' f"} {
			v := evalWithin(t, Input{Call: Call{Tool: "Bash", Command: cmd}, Mode: ModeDefault, Env: fuzzEnv, Policy: pol})
			// without strings, regular expressions or comments, a
			// system( or a > after print is code, never data. (Asystem( is
			// another function's name, not system.)
			plain := !strings.ContainsAny(prog, "#\"/\\")
			if v.Decision == Allow && strings.HasPrefix(cmd, "awk") && plain &&
				(callsSystem.MatchString(prog) || strings.Contains(strings.ReplaceAll(prog, "||", ""), "|")) {
				t.Fatalf("%q allowed: %s", cmd, v.Reason)
			}
		}
	})
}
