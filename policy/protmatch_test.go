package policy

import (
	"math/rand"
	"path"
	"strings"
	"testing"
	"unicode"
)

// The matcher before protmatch.go, kept as the reference: every rule
// segment compared with strings.ToLower on both sides, every rule of every
// table tried in order at every position.

func segMatchRef(pat, lit string) bool {
	pat, lit = strings.ToLower(pat), strings.ToLower(lit)
	if pat == lit {
		return true
	}
	if !strings.ContainsAny(pat, "*?[\\") {
		return false
	}
	if strings.HasPrefix(lit, ".") && !strings.HasPrefix(pat, ".") && !strings.HasPrefix(pat, "\\.") {
		return false
	}
	return matchGlob(pat, lit)
}

func runAtRef(r, lit []string, i int) bool {
	if i+len(r) > len(lit) {
		return false
	}
	for k := range r {
		if !segMatchRef(r[k], lit[i+k]) {
			return false
		}
	}
	return true
}

func homeRunRef(r []string, rel []string) bool {
	return len(rel) >= len(r) && runAtRef(r, rel, 0)
}

func protectedFileRef(e *envx, p string) string {
	lp := strings.ToLower(p)
	for _, pp := range e.protected {
		if within(p, pp) || within(lp, strings.ToLower(pp)) {
			return "write to the protected policy file " + pp
		}
	}
	segs := splitAbs(p)
	for _, r := range anywhereRules {
		for i := 0; i+len(r.segs) <= len(segs); i++ {
			if runAtRef(r.segs, segs, i) {
				name := strings.Join(segs[i:i+len(r.segs)], "/")
				return "write to " + r.what + " " + name + " (" + p + ")"
			}
		}
	}
	if h := strings.ToLower(e.home); h != "" && h != "/" && within(lp, h) && lp != h {
		rel := splitAbs(lp[len(h)+1:])
		for _, r := range homeRules {
			if homeRunRef(r.segs, rel) {
				return "write to " + r.what + " ~/" + strings.Join(r.segs, "/") + " (" + p + ")"
			}
		}
		for _, d := range startupHomeDirs {
			if homeRunRef(splitAbs(d), rel) {
				return "write to the login or shell startup file ~/" + d
			}
		}
	}
	for _, d := range systemStartup {
		if within(lp, strings.ToLower(d)) {
			return "write to the system startup or security file " + d
		}
	}
	return ""
}

func persistPlaceRef(abs, relHome string) string {
	if relHome != "" {
		for _, p := range persistHomePrefixes {
			if strings.HasPrefix(relHome+"/", p) || strings.HasPrefix(relHome, p) {
				return "write to ~/" + relHome + ", a place that runs code later"
			}
		}
		if strings.HasPrefix(relHome, ".local/lib/python") && (strings.HasSuffix(relHome, ".pth") ||
			strings.Contains(relHome, "/site-packages/") && (path.Base(relHome) == "sitecustomize.py" || path.Base(relHome) == "usercustomize.py")) {
			return "write to ~/" + relHome + ", a Python start-up file"
		}
	}
	if strings.HasSuffix(abs, ".pth") && strings.Contains(abs, "-packages/") {
		return "write to " + abs + ", a Python start-up file"
	}
	for _, p := range []string{"/etc/", "/var/spool/cron/", "/usr/local/bin/", "/usr/bin/", "/usr/lib/systemd/", "/lib/systemd/"} {
		if strings.HasPrefix(abs, p) {
			return "write to " + abs + ", a system place that runs code or configures the system"
		}
	}
	return ""
}

// caseVariants: s as written, lower, upper, with random letters toggled,
// and with letters replaced by Unicode characters that strings.ToLower
// (or only Unicode case folding) maps to or near ASCII: the Kelvin sign
// (lower-cases to k), the long s (folds to s but is its own lower case),
// the dotted capital I (lower-cases to i and a combining dot), the dotless
// i, a fullwidth letter.
func caseVariants(rng *rand.Rand, s string) []string {
	out := []string{s, strings.ToLower(s), strings.ToUpper(s)}
	b := []byte(s)
	for i := range b {
		if rng.Intn(2) == 0 {
			b[i] = byte(unicode.SimpleFold(rune(b[i])))
		}
	}
	out = append(out, string(b))
	for _, sub := range [][2]string{{"k", "\u212a"}, {"s", "\u017f"}, {"i", "\u0130"}, {"i", "\u0131"}, {"c", "\uff43"}, {"e", "\u00e9"}} {
		if strings.Contains(s, sub[0]) {
			out = append(out, strings.Replace(s, sub[0], sub[1], 1))
		}
	}
	return out
}

// protectedSegments is every segment and every path of every protected
// table, with the globs' probes.
func protectedSegments() (segs []string, rels []string) {
	add := func(p string) {
		rels = append(rels, p)
		segs = append(segs, splitAbs(p)...)
	}
	for _, r := range anywhereRules {
		add(strings.Join(r.segs, "/"))
		add(strings.Join(probeSegs(r), "/"))
	}
	for _, r := range homeRules {
		add(strings.Join(r.segs, "/"))
		add(strings.Join(probeSegs(r), "/"))
	}
	for _, d := range startupHomeDirs {
		add(d)
	}
	for _, d := range rcFiles {
		add(d)
	}
	for _, d := range persistHomePrefixes {
		add(strings.TrimSuffix(d, "/"))
	}
	add(".local/lib/python3.12/site-packages/sitecustomize.py")
	add(".local/lib/python3.12/site-packages/x.pth")
	return segs, rels
}

func TestProtectedMatcherEqualsReference(t *testing.T) {
	seed := int64(20261127)
	rng := rand.New(rand.NewSource(seed))
	segs, rels := protectedSegments()
	junk := []string{"out", "file-1.txt", "src", "a", ".", "..", "", "*", ".*", "x.code-workspace", "Foo.CODE-WORKSPACE",
		"authorized_keys2", "AUTHORIZED_KEYS.bak", "python3.11", "PYTHON3", "\u212aeys", "node_modules", "ünï", "[.]git", "\\.git"}
	envs := []Env{
		{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"},
		{Cwd: "/home/u/proj/sub", ProjectRoot: "/home/u/proj", Home: "/home/u", ProtectedPaths: []string{"/etc/acp/Policy.yaml", "~/.config/Acp"}},
		{Cwd: "/Users/Me/Proj", ProjectRoot: "/Users/Me/Proj", Home: "/Users/Me"},
		{Cwd: "/", ProjectRoot: "/", Home: "/"},
		{Cwd: "/w", ProjectRoot: "/w", Home: ""},
	}
	var checked, hits int
	variantHit := 0 // hits of a Unicode variant (the reference's ToLower at work)
	check := func(e *envx, p string, unicodeVariant bool) {
		t.Helper()
		checked++
		got, want := e.protectedFile(p), protectedFileRef(e, p)
		if got != want {
			t.Fatalf("seed %d, home %q: protectedFile(%q) = %q, the reference says %q", seed, e.home, p, got, want)
		}
		if want != "" {
			hits++
			if unicodeVariant {
				variantHit++
			}
		}
		lp := strings.ToLower(p)
		rel := ""
		if lh := strings.ToLower(e.home); lh != "" && within(lp, lh) && lp != lh {
			rel = strings.TrimPrefix(lp[len(lh):], "/")
		}
		if got, want := persistPlace(lp, rel), persistPlaceRef(lp, rel); got != want {
			t.Fatalf("persistPlace(%q, %q) = %q, the reference says %q", lp, rel, got, want)
		}
	}
	for _, env := range envs {
		e := newEnvx(env)
		bases := []string{e.root, e.cwd, e.home, "/", "/tmp/x/Y", "/etc", "/var/spool"}
		for _, base := range bases {
			if base == "" {
				continue
			}
			for _, rel := range rels {
				for k, v := range caseVariants(rng, rel) {
					uni := k >= 4 && !isASCII(v)
					check(&e, path.Join(base, v), uni)
					check(&e, path.Join(base, v, "inner", "f"), uni)
					check(&e, path.Join(base, "deep", v), uni)
				}
			}
			for _, d := range systemStartup {
				for _, v := range caseVariants(rng, d) {
					check(&e, path.Join(v, "x"), false)
				}
			}
		}
		// random paths from protected segments, their variants and junk
		for n := 0; n < 6000; n++ {
			k := 1 + rng.Intn(8)
			parts := make([]string, 0, k+1)
			if rng.Intn(2) == 0 && e.home != "" {
				parts = append(parts, e.home)
			}
			for j := 0; j < k; j++ {
				var s string
				if rng.Intn(3) == 0 {
					s = junk[rng.Intn(len(junk))]
				} else {
					s = segs[rng.Intn(len(segs))]
				}
				vs := caseVariants(rng, s)
				parts = append(parts, vs[rng.Intn(len(vs))])
			}
			p := path.Clean("/" + strings.Join(parts, "/"))
			check(&e, p, !isASCII(p))
		}
	}
	if hits == 0 || hits == checked || variantHit == 0 {
		t.Fatalf("the corpus does not tell matchers apart: %d paths, %d protected, %d through a Unicode variant", checked, hits, variantHit)
	}
	t.Logf("%d paths, %d protected (%d through a Unicode variant)", checked, hits, variantHit)
}

// TestSegMatchEqualsReference: segMatch (also what globHit reads a glob
// word with) answers as the reference for rule segments against glob
// words, literals and their case and Unicode variants, both ways round.
func TestSegMatchEqualsReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	segs, _ := protectedSegments()
	words := append([]string{"*", ".*", "*.json", "*.JSON", "?ssh", ".?SH", "[.]git", "\\.git", ".git*", "[!.]*", "settings.*",
		"\u212a*", "authorized_keys*", "*.code-workspace", "user", "USER"}, segs...)
	var n, hits int
	pick := func(s string) string { vs := caseVariants(rng, s); return vs[rng.Intn(len(vs))] }
	for _, a := range words {
		for _, b := range segs {
			for r := 0; r < 3; r++ {
				av, bv := pick(a), pick(b)
				for _, pr := range [][2]string{{av, bv}, {bv, av}, {a, bv}, {av, b}} {
					n++
					got, want := segMatch(pr[0], pr[1]), segMatchRef(pr[0], pr[1])
					if got != want {
						t.Fatalf("segMatch(%q, %q) = %v, the reference says %v", pr[0], pr[1], got, want)
					}
					if want {
						hits++
					}
				}
			}
		}
	}
	if hits == 0 || hits == n {
		t.Fatalf("%d pairs, %d matches: the corpus does not tell matchers apart", n, hits)
	}
}

// TestProtectedFileNoAlloc: checking an ordinary (lower-case) workspace
// path against every protected place allocates nothing (it used to split
// it and lower-case copies per rule). A path with upper case costs its
// lower-cased copies.
func TestProtectedFileNoAlloc(t *testing.T) {
	e := newEnvx(Env{Cwd: "/home/u/proj", ProjectRoot: "/home/u/proj", Home: "/home/u"})
	for _, p := range []string{"/home/u/proj/out/file-12.txt", "/w/p/src/main.go", "/home/u/proj/.vscode/notes.md"} {
		if b := e.protectedFile(p); b != "" {
			t.Fatalf("%s: %s", p, b)
		}
		if a := testing.AllocsPerRun(100, func() { e.protectedFile(p) }); a != 0 {
			t.Errorf("protectedFile(%q): %.0f allocations", p, a)
		}
	}
	// and it still finds one in any case
	if b := e.protectedFile("/home/u/proj/sub/.VSCode/Tasks.JSON"); !strings.Contains(b, "tasks") {
		t.Fatalf("a protected place in upper case: %q", b)
	}
}
