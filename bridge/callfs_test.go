package bridge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// callFS answers what filepath.EvalSymlinks and lstat answer, path by path,
// on a tree with links (absolute, relative, through "..", to links),
// dangling links, a loop and a file used as a directory.
func TestCallFSAgreesWithTheFileSystem(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, p string) {
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	mk("ws/.git")
	mk("home/.config")
	mk("elsewhere/v")
	if err := os.WriteFile(filepath.Join(root, "ws/file"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln(filepath.Join(root, "elsewhere/v"), "ws/.vscode") // absolute
	ln("../elsewhere", "home/else")                      // relative
	ln("else/v/../v", "home/.config/opencode")           // through a link, then ".."
	ln("missing/target", "ws/dangling")                  // dangling
	ln("loop2", "ws/loop1")                              // loop
	ln("loop1", "ws/loop2")                              // loop
	ln("home/.config/opencode", "ws/chain")              // to a link
	paths := []string{
		"/", root, root + "/ws", root + "/ws/.git", root + "/ws/.git/config", root + "/ws/.vscode",
		root + "/ws/.vscode/settings.json", root + "/elsewhere/v", root + "/home/else/v", root + "/home/.config/opencode",
		root + "/home/.config/opencode/opencode.json", root + "/ws/dangling", root + "/ws/dangling/x", root + "/ws/loop1",
		root + "/ws/loop1/x", root + "/ws/chain", root + "/ws/chain/x", root + "/ws/file", root + "/ws/file/x",
		root + "/nope", root + "/nope/deeper/still", root + "/ws/../home/else", "relative/path", root + "//ws/./.git",
	}
	fs := newCallFS()
	for round := range 2 { // the second round answers from what was kept
		for _, p := range paths {
			want, wantErr := filepath.EvalSymlinks(p)
			got, gotErr := fs.EvalSymlinks(p)
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("round %d: EvalSymlinks(%q) = %q, %v; filepath says %q, %v", round, p, got, gotErr, want, wantErr)
			}
			if want, got := (policy.OSFS{}).Exists(p), fs.Exists(p); got != want {
				t.Errorf("round %d: Exists(%q) = %v, want %v", round, p, got, want)
			}
		}
	}
	// The engine's reading of a write through a protected place that is a
	// link finds where it leads, with callFS as with OSFS.
	for _, fsys := range []policy.FS{policy.OSFS{}, newCallFS()} {
		in := policy.Input{
			Call: policy.Call{Tool: "Bash", Command: "touch " + root + "/elsewhere/v/settings.json"},
			Mode: policy.ModeBypass,
			Env:  policy.Env{Cwd: root + "/ws", ProjectRoot: root + "/ws", Home: root + "/home", FS: fsys},
		}
		if v := policy.Evaluate(in); v.Decision == policy.Allow {
			t.Errorf("%T: a write where the workspace's .vscode leads (a link) was allowed in bypass: %+v", fsys, v)
		}
		// Control: the same write beside it, where no protected place leads.
		in.Call.Command = "touch " + root + "/elsewhere/plain.txt"
		if v := policy.Evaluate(in); v.Decision != policy.Allow {
			t.Errorf("%T: control: a plain write was not allowed in bypass: %+v", fsys, v)
		}
	}
}

// What one decision read is kept for that decision only: once sealed, a
// link put in place afterwards is seen. Unsealed (the control), the kept
// answer hides it.
func TestCallFSSealedReadsAgain(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, ".vscode")
	other := filepath.Join(root, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, seal := range []bool{false, true} {
		_ = os.Remove(p)
		fs := newCallFS()
		if fs.Exists(p) {
			t.Fatal("exists before it was made")
		}
		if r, err := fs.EvalSymlinks(p); err == nil {
			t.Fatalf("resolved a missing path to %q", r)
		}
		if err := os.Symlink(other, p); err != nil {
			t.Fatal(err)
		}
		if seal {
			fs.seal()
		}
		r, err := fs.EvalSymlinks(p)
		switch {
		case seal && (err != nil || r != other || !fs.Exists(p)):
			t.Errorf("sealed: EvalSymlinks = %q, %v, Exists %v; want %q: the link made after the decision", r, err, fs.Exists(p), other)
		case !seal && (err == nil || fs.Exists(p)):
			t.Errorf("control: unsealed, the kept answer should still say missing; got %q, %v", r, err)
		}
	}
}
