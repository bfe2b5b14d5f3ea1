package policy

import (
	"fmt"
	"testing"
)

// TestPathIndexEqualsLinear: the indexed path rules find the same first
// rule as trying every rule in order, for rules of every anchor and form
// (bare names, relative and anchored globs, ~/, //, ../, classes, escapes,
// **, the base itself, a bare tool) and paths lexical, through symlinks,
// recursive, and equal to a rule's base, in deny/ask (either) and allow
// semantics.
func TestPathIndexEqualsLinear(t *testing.T) {
	specs := []string{
		"Read(.env)", "Read(.env*)", "Read(secrets/**)", "Read(src/*.key)", "Read(/conf/app.yaml)",
		"Read(./build/out)", "Read(~/.ssh/**)", "Read(//etc/shadow)", "Read(//etc/ssh/*)", "Read(../sibling/**)",
		"Read(**/id_[rd]sa)", "Read(dir\\*x/f)", "Read(a/**/b/c.txt)", "Read(/)", "Read(~)", "Read(.)",
		"Read(**/node_modules/**)", "Read(w/proj/deep/**)", "Read(link/**)", "Read(real/**)", "Read(//tmp/t*/x)",
		"Read(proj)", "Read(*.pem)", "Read(/src/**/*.go)",
	}
	paths := []pathRef{
		{raw: ".env"}, {raw: "sub/.env.local"}, {raw: "secrets/a/b"}, {raw: "src/x.key"}, {raw: "conf/app.yaml"},
		{raw: "build/out/y"}, {raw: "/home/u/.ssh/id_rsa"}, {raw: "/etc/shadow"}, {raw: "/etc/ssh/sshd_config"},
		{raw: "../sibling/f"}, {raw: "deep/id_dsa"}, {raw: "dir*x/f"}, {raw: "a/x/y/b/c.txt"}, {raw: "/"},
		{raw: "/home/u"}, {raw: "."}, {raw: "pkg/node_modules/m/i.js"}, {raw: "/w/proj/deep/z"}, {raw: "link/f"},
		{raw: "real/f"}, {raw: "/tmp/t1/x"}, {raw: "/w/proj"}, {raw: "k.pem"}, {raw: "src/a/b.go"},
		{raw: "src", recursive: true}, {raw: ".", recursive: true}, {raw: "/w", recursive: true}, {raw: "secrets", recursive: true},
		{raw: "/home/u", recursive: true}, {raw: "link", recursive: true}, {raw: "README.md"}, {raw: "run"},
	}
	fsys := MapFS{"/w/proj/link": "/w/proj/real", "/w/proj/real": "", "/w/proj/loop": "/w/proj/loop2", "/w/proj/loop2": "/w/proj/loop"}
	paths = append(paths, pathRef{raw: "loop/f"})
	for _, list := range []string{"deny", "allow"} {
		var rules []RuleText
		for i, sp := range specs {
			// every spec twice, in two layers with different roots, so a
			// later rule of a bucket can match before an earlier one of
			// another.
			rules = append(rules, RuleText{List: list, Text: sp, Origin: Origin{Layer: "workspace", Root: "/w/proj"}})
			rules = append(rules, RuleText{List: list, Text: specs[len(specs)-1-i], Origin: Origin{Layer: "user", Root: "/w"}})
		}
		pol, errs := Compile(rules)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", list, errs)
		}
		set := &pol.deny
		if list == "allow" {
			set = &pol.allow
		}
		rs, ix := set.pathRules("Read")
		if len(rs) < pathIndexMin || ix == nil || len(ix.bySeg) == 0 {
			t.Fatalf("%s: %d rules, index %v: the test does not reach the index", list, len(rs), ix)
		}
		for _, fsUsed := range []FS{nil, fsys} {
			for _, cwd := range []string{"/w/proj", "/w/proj/src", "/home/u"} {
				e := newEnvx(Env{Cwd: cwd, ProjectRoot: "/w/proj", Home: "/home/u", FS: fsUsed})
				ev := &evaluator{env: &e, pol: pol}
				for _, ref := range paths {
					ref.cwd = cwd
					pi := ev.env.info(ref)
					for _, either := range []bool{true, false} {
						got := ix.match(ev, pi, either)
						want := ev.matchPathIn(rs, pi, either)
						if got != want {
							t.Errorf("%s fs=%v cwd %s path %s (real %s, recursive %v) either=%v: index %s, linear %s",
								list, fsUsed != nil, cwd, pi.abs, pi.real, pi.recursive, either, ruleName(got), ruleName(want))
						}
					}
				}
			}
		}
	}
}

func ruleName(r *rule) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%s (#%d)", r.text, r.idx)
}

// TestPathIndexFilter: the length and first-byte filter never turns away a
// segment that is filed (every key passes, whatever its length or first
// byte, 63 bytes and longer included), and turns away components whose
// length or first byte no key has, so the map is asked less.
func TestPathIndexFilter(t *testing.T) {
	long := "x" + fmt.Sprintf("%070d", 7) // 71 bytes: bit 63
	keys := []string{"dir7", "node_modules", ".ssh", "Z", "\xffz", long, "é"}
	ix := &pathIndex{}
	for _, k := range keys {
		ix.add(&rule{kind: rkPath, path: pathPattern{glob: "**/" + k + "/**"}})
	}
	if len(ix.bySeg) != len(keys) {
		t.Fatalf("filed %d segments, want %d: %v", len(ix.bySeg), len(keys), ix.bySeg)
	}
	for k := range ix.bySeg {
		if !ix.mayHave(k) {
			t.Errorf("filed segment %q turned away", k)
		}
	}
	for _, tc := range []struct {
		seg  string
		want bool
	}{
		{"", false},             // never a key
		{"w", false},            // no key of length 1 starts with w
		{"README.md", false},    // length 9: no key
		{"dirX", true},          // length 4 and first byte d: the map decides
		{"y" + long[1:], false}, // length of a key, first byte of none
		{"Y", false},
		{"Z", true},
	} {
		if got := ix.mayHave(tc.seg); got != tc.want {
			t.Errorf("mayHave(%q) = %v, want %v", tc.seg, got, tc.want)
		}
	}
}
