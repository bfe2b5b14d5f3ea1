package policy

import (
	"strings"
	"testing"
)

func TestArgReads(t *testing.T) {
	e := newEnvx(Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"})
	for _, c := range []struct {
		cmd  string
		want string // the known argument reads, comma-joined (raw)
	}{
		{"sort .env", ".env"},
		{"curl -d @.env x", "@.env,.env,x"},
		{"curl -F k=@f x", "k=@f,@f,f,f,x"},
		{"tool --file=.env", ".env"},
		{"tool -f.env", ".env,env,nv,v"}, // grouped flags: the value may start after any of them
		{"curl -sSd@.env u", "Sd@.env,.env,d@.env,.env,@.env,.env,.env,env,nv,v,u"},
		{"git show HEAD:.env", "HEAD:.env,.env"},
		{"curl file:///etc/passwd", "file:///etc/passwd,///etc/passwd"},
		{"dd if=.env", "if=.env,.env"},
		{"cat ~/x", "/home/u/x"},
		{"base64 $HOME/.ssh/k", "/home/u/.ssh/k"},
		{"echo .env", ""},
		{"git commit -m .env", ""},
		{"tool -- -x", "-x"},
	} {
		an := analyzeShell(c.cmd, &e)
		sc := &an.subs[len(an.subs)-1]
		for i := len(an.subs) - 1; i > 0 && sc.kind == skProbe; i-- {
			sc = &an.subs[i-1] // probes follow the command they read
		}
		var got []string
		for _, r := range sc.argReads {
			if !r.unknown {
				got = append(got, r.raw)
			}
		}
		if g := strings.Join(got, ","); g != c.want {
			t.Errorf("%q: argument reads %q, want %q", c.cmd, g, c.want)
		}
	}
}

func TestHiddenHelpers(t *testing.T) {
	for g, want := range map[string]bool{"**/.env": true, "**/.env*": true, ".ssh/**": true, "**/secrets/**": false, "src/*.go": false, "": false} {
		if hiddenOnly(g) != want {
			t.Errorf("hiddenOnly(%q) = %v", g, !want)
		}
	}
	for g, want := range map[string]bool{".e*": true, "sub/.env?": true, "*.go": false, "a/*/b": false, "./*": false, "../*": false} {
		if hiddenGlob(g) != want {
			t.Errorf("hiddenGlob(%q) = %v", g, !want)
		}
	}
}

func TestSearchReads(t *testing.T) {
	e := newEnvx(Env{Cwd: "/w/p", ProjectRoot: "/w/p", Home: "/home/u"})
	for _, c := range []struct {
		cmd        string
		roots      string // recursive reads, comma-joined
		skipHidden bool
	}{
		{"grep -r x", ".", false},
		{"grep -rn x src lib", "src,lib", false},
		{"grep -e x -R src", "src", false},
		{"grep x src", "", false},
		{"grep -d recurse x .", ".", false},
		{"rg x", ".", true},
		{"rg -e x -e y src", "src", true},
		{"rg --hidden x src", "src", false},
		{"rg -uu x", ".", false},
		{"rg -t go x src", "src", true},
		{"ag x", ".", true},
		{"ag -u x", ".", false},
		{"rg --files src", "src", true},
	} {
		an := analyzeShell(c.cmd, &e)
		sc := &an.subs[len(an.subs)-1]
		var roots []string
		for _, r := range sc.reads {
			if r.recursive {
				roots = append(roots, r.raw)
			}
		}
		if g := strings.Join(roots, ","); g != c.roots || len(roots) > 0 && sc.skipHidden != c.skipHidden {
			t.Errorf("%q: roots %q hidden-skipping %v; want %q %v", c.cmd, g, sc.skipHidden, c.roots, c.skipHidden)
		}
	}
}
