//go:build linux

package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// placeTree is a workspace with every kind of protected place in it: the
// workspace's repository (core.hooksPath = .husky), a nested repository, a
// gitfile and the git directory it names, a planted bare repository, the
// editor's and other agents' files, and a home with Claude's state.
func placeTree(t *testing.T) (home, ws string) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "home")
	ws = filepath.Join(home, "proj")
	files := map[string]string{
		"proj/.git/config":               "[core]\n\thooksPath = .husky\n",
		"proj/.git/HEAD":                 "ref: refs/heads/main\n",
		"proj/.git/hooks/pre-commit":     "#!/bin/sh\n",
		"proj/.git/info/exclude":         "\n",
		"proj/.git/objects/.keep":        "",
		"proj/.husky/pre-commit":         "#!/bin/sh\n",
		"proj/.vscode/settings.json":     "{}",
		"proj/.vscode/tasks.json":        "{}",
		"proj/.envrc":                    "export A=1\n",
		"proj/.acp-bridge.yaml":          "permissions: {}\n",
		"proj/.claude/settings.json":     "{}",
		"proj/sub/inner/.git/config":     "[core]\n",
		"proj/sub/inner/.git/HEAD":       "ref: refs/heads/main\n",
		"proj/sub/inner/.git/hooks/x":    "#!/bin/sh\n",
		"proj/sub/inner/.git/objects/.k": "",
		"proj/wt/.git":                   "gitdir: ../gd/wt\n",
		"proj/gd/wt/config":              "[core]\n",
		"proj/gd/wt/HEAD":                "ref: refs/heads/main\n",
		"proj/gd/wt/objects/.k":          "",
		"proj/s/HEAD":                    "ref: refs/heads/main\n",
		"proj/s/config":                  "[core]\n",
		"proj/s/objects/.k":              "",
		"proj/src/main.go":               "package main\n",
		".claude/settings.json":          "{}",
		".claude.json":                   `{"mcpServers":{}}`,
		".cache/claude-cli-nodejs/.k":    "",
	}
	for rel, c := range files {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, ws
}

func placeSpec(t *testing.T, home, ws string) Spec {
	t.Helper()
	s, err := Compute(Options{Workspace: []string{ws}, Home: home, StateDirs: StateDirs("claude", home), Policy: mustCompile(t),
		Env: policy.Env{Cwd: ws, ProjectRoot: ws, Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapshot is every entry under root: path -> content ("/" for a directory).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			out[p] = "/"
			return nil
		}
		b, _ := os.ReadFile(p)
		out[p] = string(b)
		return nil
	})
	return out
}

// placeDiff lists what changed of the place p (itself and what is inside)
// and of the directories above it up to root.
func placeDiff(before, after map[string]string, p, root string) []string {
	var out []string
	for q, v := range before {
		if q != p && !strings.HasPrefix(q, p+"/") {
			continue
		}
		if w, ok := after[q]; !ok {
			out = append(out, "gone: "+q)
		} else if v != w {
			out = append(out, "changed: "+q)
		}
	}
	for q := range after {
		if _, ok := before[q]; !ok && (q == p || strings.HasPrefix(q, p+"/")) {
			out = append(out, "new: "+q)
		}
	}
	for _, d := range ancestors(filepath.Dir(p), root) {
		if after[d] != "/" {
			out = append(out, "gone: "+d)
		}
	}
	sort.Strings(out)
	return out
}

// ancestors are p and every directory above it up to (not including) root.
func ancestors(p, root string) []string {
	var out []string
	for d := p; d != root && strings.HasPrefix(d, root+"/"); d = filepath.Dir(d) {
		out = append(out, d)
	}
	return out
}

// exchange is rename(2) with RENAME_EXCHANGE: it replaces a directory that
// is not empty, which a plain rename cannot.
const exchange = `python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); sys.exit(0 if l.renameat2(-100,sys.argv[1].encode(),-100,sys.argv[2].encode(),2)==0 else 1)'`

// attack is one damage attempt on a target path x (its script).
type attack struct {
	name   string
	script func(x string) string
}

var placeAttacks = []attack{
	{"rename away", func(x string) string { return fmt.Sprintf("mv %q %q", x, x+".away") }},
	{"replace", func(x string) string {
		return fmt.Sprintf("y=%q; if [ -d %q ]; then mkdir -p \"$y\" && echo evil > \"$y/config\"; else echo evil > \"$y\"; fi; %s \"$y\" %q",
			filepath.Join(filepath.Dir(x), ".y-"+filepath.Base(x)), x, exchange, x)
	}},
	{"remove", func(x string) string { return fmt.Sprintf("rm -rf %q", x) }},
}

// Every protected place the sandbox computes for a tree holding each kind,
// and every directory up to the writable root, survives rename away,
// replacement and removal inside the real sandbox; every missing place
// that runs code cannot be created. Each attempt, unsandboxed on a fresh
// tree, does the damage.
func TestPlacesHoldUnderRenameAndCreation(t *testing.T) {
	requireMechanism(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	home, ws := placeTree(t)
	s := placeSpec(t, home, ws)
	// The table's places at the workspace root and in its git directories
	// are all covered: read-only, blocked, or inside one that is.
	kept := map[string]bool{}
	for _, p := range s.ReadOnly {
		kept[p] = true
	}
	for _, b := range s.Blocked {
		kept[b.Path] = true
	}
	isKept := func(p string) bool {
		for d := p; strings.HasPrefix(d, home); d = filepath.Dir(d) {
			if kept[d] {
				return true
			}
		}
		return false
	}
	for _, pl := range policy.Places() {
		if pl.Base != policy.InRoot || strings.ContainsAny(pl.Path, "*?") || (!pl.RunsCode && !pl.Git) {
			continue
		}
		if pl.Floor == policy.FloorPolicy {
			// the policy's only (rebase-merge, rebase-apply: policy/places.go
			// says why); the sandbox must leave it as it is.
			for _, root := range []string{ws, filepath.Join(ws, "sub", "inner")} {
				if p := filepath.Join(root, pl.Path); kept[p] {
					t.Errorf("the policy-only place %s is held by the sandbox at %s", pl.Path, root)
				}
			}
			continue
		}
		for _, root := range []string{ws, filepath.Join(ws, "sub", "inner")} {
			p := filepath.Join(root, pl.Path)
			if !isKept(p) {
				t.Errorf("the table's place %s is neither read-only nor blocked at %s", pl.Path, root)
			}
		}
	}
	for _, p := range []string{"proj/.husky", "proj/wt/.git", "proj/gd/wt/config", "proj/gd/wt/hooks", "proj/s/config", "proj/s/hooks",
		".claude/settings.json", ".claude/settings.local.json"} {
		if !isKept(filepath.Join(home, p)) {
			t.Errorf("%s is neither read-only nor blocked", p)
		}
	}

	type place struct {
		p   string
		anc []string // the place and every directory up to its writable root
	}
	var ps []place
	n := 0
	for _, p := range s.ReadOnly {
		root := ws
		if !strings.HasPrefix(p, ws+"/") {
			root = filepath.Join(home, ".claude")
		}
		ps = append(ps, place{p, ancestors(p, root)})
		n += len(ps[len(ps)-1].anc)
	}
	if n < 30 {
		t.Fatalf("only %d targets: %+v", n, s)
	}
	for _, a := range placeAttacks {
		t.Run(a.name, func(t *testing.T) {
			for _, pl := range ps {
				rel := strings.TrimPrefix(pl.p, home+"/")
				// sandboxed: every ancestor attacked in one run; the place
				// stays where it is, as it was.
				h, w := placeTree(t)
				sp := placeSpec(t, h, w)
				var script []string
				for _, x := range pl.anc {
					script = append(script, "( "+a.script(filepath.Join(h, strings.TrimPrefix(x, home+"/")))+" )")
				}
				before := snapshot(t, h)
				out, _ := runIn(t, sp, w, h, strings.Join(script, "; "))
				if d := placeDiff(before, snapshot(t, h), filepath.Join(h, rel), w); len(d) > 0 {
					t.Errorf("%s of the place %s or a directory above it changed it through the sandbox: %v\n%s", a.name, rel, d, out)
				}
				// the control: unsandboxed, each attempt alone moves, replaces
				// or removes the place.
				for _, x := range pl.anc {
					xr := strings.TrimPrefix(x, home+"/")
					h2, w2 := placeTree(t)
					before2 := snapshot(t, h2)
					cmd := exec.Command("/bin/sh", "-c", a.script(filepath.Join(h2, xr)))
					cmd.Dir = w2
					out2, _ := cmd.CombinedOutput()
					if d := placeDiff(before2, snapshot(t, h2), filepath.Join(h2, rel), w2); len(d) == 0 {
						t.Errorf("unsandboxed, %s of %s left the place %s as it was: it proves nothing\n%s", a.name, xr, rel, out2)
					}
				}
			}
		})
	}
	t.Run("create when missing", func(t *testing.T) {
		if len(s.Blocked) < 10 {
			t.Fatalf("only %d blocked places: %+v", len(s.Blocked), s.Blocked)
		}
		create := func(x string, dir bool) string {
			if dir {
				return fmt.Sprintf("mkdir -p %q/d && echo evil > %q/f; echo evil > %q/pre-commit", x, x, x)
			}
			return fmt.Sprintf("echo evil > %q", x)
		}
		// sandboxed: every missing place attempted in one run
		h, w := placeTree(t)
		sp := placeSpec(t, h, w)
		var script []string
		for _, b := range s.Blocked {
			script = append(script, "( "+create(filepath.Join(h, strings.TrimPrefix(b.Path, home+"/")), b.Dir)+" ) 2>/dev/null")
		}
		p, err := Prepare(sp, w, []string{"/bin/sh", "-c", strings.Join(script, "; ")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Created) != len(sp.Blocked) {
			t.Errorf("Prepare created %d mount points for %d blocked places", len(p.Created), len(sp.Blocked))
		}
		cmd := exec.Command(p.Path, p.Args...)
		cmd.Env = append(os.Environ(), "HOME="+h)
		out, _ := cmd.CombinedOutput()
		p.Cleanup()
		for _, b := range s.Blocked {
			rel := strings.TrimPrefix(b.Path, home+"/")
			if _, err := os.Lstat(filepath.Join(h, rel)); err == nil {
				t.Errorf("the missing place %s exists after the sandbox exited\n%s", rel, out)
			}
			// the control: unsandboxed, the place is created
			h2, _ := placeTree(t)
			c := exec.Command("/bin/sh", "-c", create(filepath.Join(h2, rel), b.Dir))
			if out, err := c.CombinedOutput(); err != nil {
				t.Errorf("unsandboxed, creating %s failed: %v %s", rel, err, out)
			} else if _, err := os.Lstat(filepath.Join(h2, rel)); err != nil {
				t.Errorf("unsandboxed, %s was not created", rel)
			}
		}
	})
}

// runIn runs script inside s in dir with HOME=home.
func runIn(t *testing.T, s Spec, dir, home, script string) (string, error) {
	t.Helper()
	p, err := Prepare(s, dir, []string{"/bin/sh", "-c", script}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup()
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Ordinary git work holds up with the places pinned: a repository can be
// created in a workspace that has none (the bridge names it after the
// turn), and in an existing one commits, branches and status work while
// its configuration and hooks stay as they were.
func TestSandboxGitWork(t *testing.T) {
	requireMechanism(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	id := "git -c user.email=a@b -c user.name=a"
	t.Run("init at the workspace root", func(t *testing.T) {
		home := t.TempDir()
		ws := filepath.Join(home, "proj")
		mustWrite(t, filepath.Join(ws, "main.go"), "package main\n")
		s := placeSpec(t, home, ws)
		out, err := runIn(t, s, ws, home, "set -e; git init -q . && git add . && "+id+" commit -qm first && git log --oneline | wc -l")
		if err != nil || !strings.Contains(out, "1") {
			t.Fatalf("git init + commit failed: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(ws, ".git", "HEAD")); err != nil {
			t.Fatalf("no repository after git init: %v", err)
		}
	})
	t.Run("work in an existing repository", func(t *testing.T) {
		home := t.TempDir()
		ws := filepath.Join(home, "proj")
		mustWrite(t, filepath.Join(ws, "main.go"), "package main\n")
		setup := exec.Command("/bin/sh", "-c", "git init -q . && git add . && "+id+" commit -qm first")
		setup.Dir = ws
		if out, err := setup.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		config, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))
		s := placeSpec(t, home, ws)
		out, err := runIn(t, s, ws, home, "set -e; echo '// x' >> main.go; git add main.go; "+id+" commit -qm second; git checkout -qb topic; git status --short; git log --oneline | wc -l; "+
			"git config core.fsmonitor 'touch pwned' && echo CONFIG-WRITTEN || true; echo x > .git/hooks/post-checkout && echo HOOK-WRITTEN || true")
		if err != nil || !strings.Contains(out, "2") {
			t.Fatalf("commit/branch in the sandbox failed: %v\n%s", err, out)
		}
		if strings.Contains(out, "CONFIG-WRITTEN") || strings.Contains(out, "HOOK-WRITTEN") {
			t.Errorf("git's config or hooks were writable:\n%s", out)
		}
		if now, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(now) != string(config) {
			t.Errorf(".git/config changed:\n%s", now)
		}
		if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "post-checkout")); err == nil {
			t.Error("a hook was planted")
		}
	})
}
