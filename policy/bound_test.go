package policy

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// refMatchGlob is the backtracking matcher the policy used before bounded
// matching: exponential on patterns such as *a*a*a*a*b, but a plain reading
// of the glob language. The tests hold the linear matcher to it on inputs
// small enough for it to finish.
func refMatchGlob(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			if len(p) >= 2 && p[1] == '*' {
				rest := strings.TrimPrefix(p[2:], "/")
				if rest == "" {
					return true
				}
				if refMatchGlob(rest, s) {
					return true
				}
				for i := 0; i < len(s); i++ {
					if s[i] == '/' && refMatchGlob(rest, s[i+1:]) {
						return true
					}
				}
				return false
			}
			p = p[1:]
			for i := 0; i <= len(s); i++ {
				if refMatchGlob(p, s[i:]) {
					return true
				}
				if i < len(s) && s[i] == '/' {
					break
				}
			}
			return false
		case '?':
			if s == "" || s[0] == '/' {
				return false
			}
			_, n := utf8.DecodeRuneInString(s)
			p, s = p[1:], s[n:]
		case '[':
			if s == "" || s[0] == '/' {
				return false
			}
			r, n := utf8.DecodeRuneInString(s)
			cls, m, valid := parseClass(p[1:])
			if !valid {
				if s[0] != '[' {
					return false
				}
				p, s = p[1:], s[1:]
				continue
			}
			if !cls.match(r) {
				return false
			}
			p, s = p[1+m:], s[n:]
		case '\\':
			if len(p) < 2 || s == "" || s[0] != p[1] {
				return false
			}
			p, s = p[2:], s[1:]
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

// refMatchPrefix: the whole path or a leading part before a "/".
func refMatchPrefix(p, s string) bool {
	if refMatchGlob(p, s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && refMatchGlob(p, s[:i]) {
			return true
		}
	}
	return false
}

// refWild: * matches anything; with stop, a prefix before a stop byte too.
func refWild(p, s string) bool {
	if p == "" {
		return s == ""
	}
	if p[0] == '*' {
		for i := 0; i <= len(s); i++ {
			if refWild(p[1:], s[i:]) {
				return true
			}
		}
		return false
	}
	return s != "" && s[0] == p[0] && refWild(p[1:], s[1:])
}

func refWildStop(p, s string, stop byte) bool {
	if refWild(p, s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == stop && refWild(p, s[:i]) {
			return true
		}
	}
	return false
}

// stepBound is the constant of the bound the matchers are held to:
// steps <= stepBound * (len(pattern)+1) * (len(input)+1).
const stepBound = 12

func checkBound(t *testing.T, what, p, s string, steps int) {
	t.Helper()
	if limit := stepBound * (len(p) + 1) * (len(s) + 1); steps > limit {
		t.Fatalf("%s: pattern %q (%d bytes) on %q (%d bytes): %d steps, bound %d", what, p, len(p), s, len(s), steps, limit)
	}
}

// checkMatchers runs both matchers on (p, s): the step bound always, and
// agreement with the reference matchers when the input is small enough for
// them to finish.
func checkMatchers(t *testing.T, p, s string) {
	t.Helper()
	steps := 0
	got := compileGlob(p).match(s, '/', &steps)
	checkBound(t, "path glob", p, s, steps)
	steps = 0
	got0 := compileGlob(p).match(s, 0, &steps)
	checkBound(t, "path glob (whole)", p, s, steps)
	steps = 0
	segs := strings.Split(p, "*")
	gotW := wildSegs(segs, s, ' ', &steps)
	checkBound(t, "wildcard", p, s, steps)
	steps = 0
	gotW0 := wildSegs(segs, s, 0, &steps)
	checkBound(t, "wildcard (whole)", p, s, steps)
	if strings.Count(p, "*") > 4 || len(s) > 24 || len(p) > 24 {
		return
	}
	if want := refMatchPrefix(p, s); got != want {
		t.Fatalf("path glob %q on %q: %v, reference %v", p, s, got, want)
	}
	if want := refMatchGlob(p, s); got0 != want {
		t.Fatalf("path glob (whole) %q on %q: %v, reference %v", p, s, got0, want)
	}
	if want := refWildStop(p, s, ' '); gotW != want {
		t.Fatalf("wildcard %q on %q: %v, reference %v", p, s, gotW, want)
	}
	if want := refWild(p, s); gotW0 != want {
		t.Fatalf("wildcard (whole) %q on %q: %v, reference %v", p, s, gotW0, want)
	}
}

// FuzzMatchBound: on any pattern and input, every matcher stays within
// stepBound x (len(pattern)+1) x (len(input)+1) steps (counted, not timed)
// and agrees with the backtracking reference where that one can finish.
func FuzzMatchBound(f *testing.F) {
	for _, c := range [][2]string{
		{"*a*a*a*a*a*a*b", strings.Repeat("a", 90)},
		{"**/**/**/**/x", strings.Repeat("a/", 45)},
		{"a/**/b/**/c", "a/b/x/b/c/d"},
		{"[a-z]*?.key", "é/x.key"},
		{"[!a]\\*", "b*"},
		{"*.env*", ".env.local"},
		{"ls *", "ls -la"},
		{"git * push", "git remote push origin"},
		{"[", "["},
		{"x\\", "x"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		checkMatchers(t, p, s)
	})
}

// TestMatchBoundRandom is the fuzz property on random patterns and inputs
// over a small alphabet (where backtracking blows up), run by go test.
func TestMatchBoundRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	alpha := []string{"a", "b", "/", "*", "**", "?", "[ab]", "[!a]", "\\*", ".", "é"}
	inAlpha := "ab/.*é"
	for n := 0; n < 20000; n++ {
		var pb strings.Builder
		for k := rng.Intn(10); k > 0; k-- {
			pb.WriteString(alpha[rng.Intn(len(alpha))])
		}
		var sb strings.Builder
		for k := rng.Intn(16); k > 0; k-- {
			if rng.Intn(6) == 5 {
				sb.WriteString("é")
				continue
			}
			sb.WriteByte(inAlpha[rng.Intn(5)])
		}
		checkMatchers(t, pb.String(), sb.String())
	}
}

// worstCases are the inputs that made the backtracking matchers
// exponential (class 15 of issue 21).
var worstCases = []struct{ name, pattern, input string }{
	{"stars", "*a*a*a*a*a*a*b", strings.Repeat("a", 90)},
	{"stars-long", strings.Repeat("*a", 40) + "*b", strings.Repeat("a", 4096)},
	{"globstars", "**/**/**/**/**/**/x", strings.Repeat("a/", 2048)},
	{"classes", strings.Repeat("*[a-c]", 20) + "*d", strings.Repeat("abc", 1000)},
}

// TestWorstCasesBounded: the worst cases, through the compiled rules the
// policy uses (Read deny rule, Bash deny rule), stay within the bound.
func TestWorstCasesBounded(t *testing.T) {
	for _, c := range worstCases {
		t.Run(c.name, func(t *testing.T) {
			pp, err := compilePathPattern(c.pattern, Origin{}, true)
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			pp.steps = &steps
			abs := "/w/p/" + c.input
			if pp.matchAt(abs, "/") {
				t.Fatalf("%q matched %q", c.pattern, abs)
			}
			if steps == 0 {
				t.Fatal("no steps counted: the counter is not wired")
			}
			checkBound(t, "Read rule", pp.glob, abs, steps)

			bp, err := compileBashPattern(strings.ReplaceAll(c.pattern, "/", " ") + " *")
			if err != nil {
				t.Fatal(err)
			}
			steps = 0
			cmd := strings.ReplaceAll(c.input, "/", " ")
			if bp.matchSteps(cmd, &steps) {
				t.Fatalf("Bash(%s) matched %q", bp.String(), cmd)
			}
			checkBound(t, "Bash rule", bp.glob, cmd, steps)
		})
	}
}

// TestWorstCaseDecision: the decision itself, with an untrusted
// workspace's deny rule of the worst shape, is made (and correct).
func TestWorstCaseDecision(t *testing.T) {
	pol, errs := Compile([]RuleText{
		{List: "deny", Text: "Read(*a*a*a*a*a*a*b)", Origin: Origin{Layer: "workspace", Root: "/w/p"}},
		{List: "deny", Text: "Bash(*a*a*a*a*a*a*b *)", Origin: Origin{Layer: "workspace", Root: "/w/p"}},
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	name := strings.Repeat("a", 90)
	for _, c := range []struct {
		call Call
		want Decision
	}{
		{Call{Tool: "Read", Paths: []string{name}}, Allow},
		{Call{Tool: "Read", Paths: []string{name + "b"}}, Deny},
		{Call{Tool: "Bash", Command: "echo " + name}, Allow},
		{Call{Tool: "Bash", Command: "echo " + name + "b x"}, Deny},
	} {
		v := Evaluate(Input{Call: c.call, Mode: ModeBypass, Env: fuzzEnv, Policy: pol})
		if v.Decision != c.want {
			t.Errorf("%+v: %s (%s), want %s", c.call, v.Decision, v.Reason, c.want)
		}
	}
}

// BenchmarkWorstCaseMatch shows the worst cases now take microseconds.
func BenchmarkWorstCaseMatch(b *testing.B) {
	for _, c := range worstCases {
		g := compileGlob(c.pattern)
		b.Run("glob/"+c.name, func(b *testing.B) {
			for b.Loop() {
				g.match(c.input, '/', nil)
			}
		})
		segs := strings.Split(c.pattern, "*")
		b.Run("wild/"+c.name, func(b *testing.B) {
			for b.Loop() {
				wildSegs(segs, c.input, ' ', nil)
			}
		})
	}
	pol, _ := Compile([]RuleText{{List: "deny", Text: "Read(*a*a*a*a*a*a*b)", Origin: Origin{Layer: "workspace"}}})
	in := Input{Call: Call{Tool: "Read", Paths: []string{strings.Repeat("a", 90)}}, Mode: ModeDefault, Env: fuzzEnv, Policy: pol}
	b.Run("decision/Read90", func(b *testing.B) {
		for b.Loop() {
			Evaluate(in)
		}
	})
}

// TestWildSegsFastEqualsCounted: the uncounted matcher (the library's
// searches) answers as the counted one for every pattern and text of a
// generated set: wildcards anywhere, repeated and overlapping pieces, the
// stop byte inside, before and after the last piece, and empty pieces.
func TestWildSegsFastEqualsCounted(t *testing.T) {
	pieces := []string{"", "a", "ab", "ba", "aa", " ", "a ", " a", "secret", "x y"}
	texts := []string{"", "a", "aa", "ab", "aba", "ab ab", "a b a", "secret", "my secret x", "x y z", "aaaa b", " ", "abab ba"}
	n, matches := 0, 0
	for _, p1 := range pieces {
		for _, p2 := range pieces {
			for _, p3 := range pieces {
				for _, segs := range [][]string{{p1}, {p1, p2}, {p1, p2, p3}, {p1, p3, p2, p1}} {
					for _, text := range texts {
						for _, stop := range []byte{0, ' '} {
							steps := 0
							want := wildSegs(segs, text, stop, &steps)
							if got := wildSegs(segs, text, stop, nil); got != want {
								t.Fatalf("wildSegs(%q, %q, %q): uncounted %v, counted %v", segs, text, stop, got, want)
							}
							n++
							if want {
								matches++
							}
						}
					}
				}
			}
		}
	}
	if matches == 0 || matches == n {
		t.Fatalf("%d of %d match: the set does not tell the two apart", matches, n)
	}
}

// TestBashNeedFilterSound: the byte filter never turns away a text its
// pattern matches (every pattern x text of a generated set, boundary and
// wildcard forms included), and does turn some away.
func TestBashNeedFilterSound(t *testing.T) {
	specs := []string{"*secret0*", "npm run *", "git * --force*", "*", "a*b*c", "ls *", "tool5 sub*", "*.env", "x\\ y *", "*é*"}
	texts := []string{"", "npm run build", "cat secret0", "my secret0 x", "git push origin --force", "abc", "a b c", "ls -la", "lsof",
		"tool5 sub7 x", "cat .env", "x y z", "café", "sec ret0", "secret"}
	matched, turned := 0, 0
	for _, spec := range specs {
		p, err := compileBashPattern(spec)
		if err != nil {
			t.Fatalf("%q: %v", spec, err)
		}
		for _, text := range texts {
			var have byteSet
			have.addString(text)
			m := p.match(text)
			if m && !p.mayMatch(&have) {
				t.Fatalf("%q matches %q but the filter turns it away", spec, text)
			}
			if m {
				matched++
			}
			if !p.mayMatch(&have) {
				turned++
			}
		}
	}
	if matched == 0 || turned == 0 {
		t.Fatalf("matched %d, turned away %d: the set does not test the filter", matched, turned)
	}
}
