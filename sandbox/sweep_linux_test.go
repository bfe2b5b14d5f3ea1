//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseManifest(t *testing.T) {
	cases := []struct {
		name string
		p    placeholder
		ok   bool
	}{
		{"empty dir .vscode", placeholder{Path: "/w/.vscode", Dir: true}, true},
		{"empty file .envrc", placeholder{Path: "/w/.envrc"}, true},
		{"json file", placeholder{Path: "/w/.vscode/settings.json", Content: "{}\n"}, true},
		{"git commondir", placeholder{Path: "/w/.git/commondir", Content: ".\n"}, true},
		{"git hooks dir", placeholder{Path: "/w/.git/hooks", Dir: true}, true},
		{"relative", placeholder{Path: "w/.envrc"}, false},
		{"dot-dot", placeholder{Path: "/w/../etc/.envrc"}, false},
		{"trailing slash", placeholder{Path: "/w/.vscode/", Dir: true}, false},
		{"root", placeholder{Path: "/", Dir: true}, false},
		{"not a place's name", placeholder{Path: "/w/important.txt"}, false},
		{"not a place's name (dir)", placeholder{Path: "/home/u/src", Dir: true}, false},
		{"content not what Prepare puts", placeholder{Path: "/w/.envrc", Content: "export A=1\n"}, false},
		{"json without its content", placeholder{Path: "/w/.mcp.json"}, false},
		{"dir with content", placeholder{Path: "/w/.vscode", Dir: true, Content: "{}\n"}, false},
		{"newline in path", placeholder{Path: "/w/x\n/.envrc"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := json.Marshal(manifest{Version: 1, Placeholders: []placeholder{c.p}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseManifest(data)
			if err != nil {
				t.Fatal(err)
			}
			if (len(got) == 1) != c.ok {
				t.Errorf("%+v: accepted %v, want %v", c.p, len(got) == 1, c.ok)
			}
		})
	}
	for _, bad := range []string{`{"version":2,"placeholders":[{"path":"/w/.envrc"}]}`, `not json`, `{"version":1,"placeholders":{}}`} {
		if _, err := parseManifest([]byte(bad)); err == nil {
			t.Errorf("manifest %q: no error", bad)
		}
	}
}

// Every placeholder Compute can ask for is one the sweep accepts: what a
// killed bridge made, the next one can remove.
func TestBlockedPlacesAreValidPlaceholders(t *testing.T) {
	h, w := placeTree(t)
	s := placeSpec(t, h, w)
	if len(s.Blocked) < 10 {
		t.Fatalf("only %d blocked places", len(s.Blocked))
	}
	for _, b := range s.Blocked {
		rp, err := resolvedPlace(b.Path)
		if err != nil {
			t.Fatal(err)
		}
		p := placeholder{Path: rp, Dir: b.Dir}
		if !b.Dir {
			p.Content = b.Content
		}
		if !validPlaceholder(p) {
			t.Errorf("blocked place %+v is not a valid placeholder", p)
		}
	}
}

// removePlaceholder removes only what is still exactly as made, and never
// through a link swapped in on the way. Each refusal has a control: the
// naive removal (os.Remove on the recorded path) does the damage.
func TestRemovePlaceholder(t *testing.T) {
	type setup func(t *testing.T, ws, outside string) placeholder
	cases := []struct {
		name    string
		setup   setup
		removed bool
		// kept is a path (with its content, "/" for a dir) that must still
		// be there afterwards; naive: os.Remove on the recorded path
		// removes it (the control).
		kept  func(ws, outside string) (string, string)
		naive bool
	}{
		{name: "empty dir", removed: true, setup: func(t *testing.T, ws, _ string) placeholder {
			mkdir(t, filepath.Join(ws, ".vscode"))
			return placeholder{Path: filepath.Join(ws, ".vscode"), Dir: true}
		}},
		{name: "file as made", removed: true, setup: func(t *testing.T, ws, _ string) placeholder {
			write(t, filepath.Join(ws, ".mcp.json"), "{}\n")
			return placeholder{Path: filepath.Join(ws, ".mcp.json"), Content: "{}\n"}
		}},
		{name: "file written since", setup: func(t *testing.T, ws, _ string) placeholder {
			write(t, filepath.Join(ws, ".envrc"), "export PATH=evil\n")
			return placeholder{Path: filepath.Join(ws, ".envrc")}
		}, kept: func(ws, _ string) (string, string) { return filepath.Join(ws, ".envrc"), "export PATH=evil\n" }, naive: true},
		{name: "dir filled since", setup: func(t *testing.T, ws, _ string) placeholder {
			write(t, filepath.Join(ws, ".husky", "pre-commit"), "x")
			return placeholder{Path: filepath.Join(ws, ".husky"), Dir: true}
		}, kept: func(ws, _ string) (string, string) { return filepath.Join(ws, ".husky", "pre-commit"), "x" }},
		{name: "link at the name", setup: func(t *testing.T, ws, outside string) placeholder {
			write(t, filepath.Join(outside, "target"), "")
			symlink(t, filepath.Join(outside, "target"), filepath.Join(ws, ".envrc"))
			return placeholder{Path: filepath.Join(ws, ".envrc")}
		}, kept: func(ws, _ string) (string, string) { return filepath.Join(ws, ".envrc"), "" }, naive: true},
		{name: "link swapped in on the way", setup: func(t *testing.T, ws, outside string) placeholder {
			// recorded as ws/sub/.envrc (sub a directory then); sub is now
			// a link to a tree outside holding an empty .envrc.
			write(t, filepath.Join(outside, ".envrc"), "")
			symlink(t, outside, filepath.Join(ws, "sub"))
			return placeholder{Path: filepath.Join(ws, "sub", ".envrc")}
		}, kept: func(_, outside string) (string, string) { return filepath.Join(outside, ".envrc"), "" }, naive: true},
		{name: "a file where a dir was made", setup: func(t *testing.T, ws, _ string) placeholder {
			write(t, filepath.Join(ws, ".codex"), "")
			return placeholder{Path: filepath.Join(ws, ".codex"), Dir: true}
		}, kept: func(ws, _ string) (string, string) { return filepath.Join(ws, ".codex"), "" }, naive: true},
	}
	for _, c := range cases {
		for _, naive := range []bool{false, true} {
			if naive && !c.naive {
				continue
			}
			name := c.name
			if naive {
				name += " (control: naive removal)"
			}
			t.Run(name, func(t *testing.T) {
				ws, outside := t.TempDir(), t.TempDir()
				p := c.setup(t, ws, outside)
				var removed bool
				if naive {
					removed = os.Remove(p.Path) == nil
				} else {
					removed = removePlaceholder(p)
				}
				if c.kept == nil {
					if removed != c.removed {
						t.Errorf("removed %v, want %v", removed, c.removed)
					}
					if _, err := os.Lstat(p.Path); c.removed && err == nil {
						t.Errorf("%s is still there", p.Path)
					}
					return
				}
				kp, want := c.kept(ws, outside)
				got, err := os.ReadFile(kp)
				intact := err == nil && string(got) == want
				if fi, lerr := os.Lstat(kp); lerr == nil && fi.Mode()&os.ModeSymlink != 0 && want == "" {
					intact = true // the link itself stays
				}
				if naive {
					if intact && removed {
						t.Errorf("control: naive removal reported success but %s is intact", kp)
					}
					if intact && !removed {
						t.Errorf("control: the naive removal did no damage: the case proves nothing")
					}
					return
				}
				if removed || !intact {
					t.Errorf("removed %v; %s now %q (%v), want %q kept", removed, kp, got, err, want)
				}
			})
		}
	}
}

// The sweep, on a temp directory of its own: a dead bridge's directory
// (lock file, lock free) goes with its placeholders still as made; a
// changed one, a manifest entry that names no placeholder place, the
// directory of a live bridge (Prepare's, lock held), a directory of the
// old format (no lock file) and another user's directory stay.
func TestSweep(t *testing.T) {
	if m := Probe(); !m.Available {
		t.Skipf("no sandbox: %s", m.Problem)
	}
	parent := t.TempDir()
	t.Setenv("TMPDIR", parent)
	live, dead := t.TempDir(), t.TempDir()

	// a live bridge: Prepare holds the lock
	spec := Spec{Writable: []string{live}, Network: NetworkAll, Blocked: []Path{
		{Path: filepath.Join(live, ".vscode"), Dir: true},
		{Path: filepath.Join(live, ".envrc")},
	}}
	prep, err := Prepare(spec, live, []string{"true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	liveDir := filepath.Dir(prep.TmpDir)
	if _, err := os.Stat(filepath.Join(liveDir, manifestName)); err != nil {
		t.Fatalf("Prepare wrote no manifest: %v", err)
	}

	// what a killed bridge leaves: its lock file (free), its manifest
	mk := func(name string, withLock bool, ps []placeholder) string {
		d := filepath.Join(parent, privatePrefix+name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if withLock {
			write(t, filepath.Join(d, lockName), "")
		}
		data, _ := json.Marshal(manifest{Version: 1, Placeholders: ps})
		write(t, filepath.Join(d, manifestName), string(data))
		mkdir(t, filepath.Join(d, "tmp", "agent-stuff"))
		return d
	}
	write(t, filepath.Join(dead, ".mcp.json"), "{}\n")
	mkdir(t, filepath.Join(dead, ".vscode"))
	write(t, filepath.Join(dead, ".envrc"), "export CHANGED=1\n")
	write(t, filepath.Join(dead, "notes.txt"), "")
	mkdir(t, filepath.Join(dead, "src"))
	deadPs := []placeholder{
		{Path: filepath.Join(dead, ".vscode"), Dir: true},
		{Path: filepath.Join(dead, ".mcp.json"), Content: "{}\n"},
		{Path: filepath.Join(dead, ".envrc")},                    // changed since
		{Path: filepath.Join(dead, "notes.txt")},                 // no place's name
		{Path: filepath.Join(dead, "x", "..", "src"), Dir: true}, // not clean
	}
	deadDir := mk("dead", true, deadPs)
	oldDir := mk("old", false, []placeholder{{Path: filepath.Join(dead, "src"), Dir: true}})
	otherDir := mk("other", true, nil)
	if err := os.Chown(otherDir, 65534, 65534); err != nil {
		t.Fatal(err)
	}

	if n := sweepIn(parent); n != 1 {
		t.Errorf("sweep removed %d directories, want 1", n)
	}
	gone := []string{deadDir, filepath.Join(dead, ".vscode"), filepath.Join(dead, ".mcp.json")}
	for _, p := range gone {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there after the sweep", p)
		}
	}
	stay := []string{liveDir, oldDir, otherDir, filepath.Join(dead, ".envrc"), filepath.Join(dead, "notes.txt"),
		filepath.Join(dead, "src"), filepath.Join(live, ".envrc"), filepath.Join(live, ".vscode")}
	for _, p := range stay {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s went: %v", p, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dead, ".envrc")); string(got) != "export CHANGED=1\n" {
		t.Errorf("the changed placeholder now holds %q", got)
	}
	prep.Cleanup()
	for _, p := range []string{liveDir, filepath.Join(live, ".envrc"), filepath.Join(live, ".vscode")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there after Cleanup", p)
		}
	}
	// Once the live bridge is done, its lock is free, but its directory
	// is gone too: nothing more to sweep.
	if n := sweepIn(parent); n != 0 {
		t.Errorf("second sweep removed %d directories, want 0", n)
	}
	// the control: the owner is what kept the other directory: given
	// back to this user, the sweep takes it.
	if err := os.Chown(otherDir, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	if n := sweepIn(parent); n != 1 {
		t.Errorf("after giving the other directory back to this user, the sweep removed %d, want 1", n)
	}
}

// A live bridge's lock is held by the kernel: a sweep cannot take it.
func TestPrepareHoldsTheLock(t *testing.T) {
	if m := Probe(); !m.Available {
		t.Skipf("no sandbox: %s", m.Problem)
	}
	t.Setenv("TMPDIR", t.TempDir())
	prep, err := Prepare(Spec{Writable: []string{t.TempDir()}, Network: NetworkAll}, "/", []string{"true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(filepath.Dir(prep.TmpDir), lockName)
	fd, err := unix.Open(lock, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != unix.EWOULDBLOCK {
		t.Errorf("flock on a live sandbox's lock: %v, want EWOULDBLOCK", err)
	}
	prep.Cleanup()
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Errorf("flock after Cleanup: %v, want it free", err)
	}
	if _, err := os.Stat(filepath.Dir(prep.TmpDir)); !os.IsNotExist(err) {
		t.Errorf("private directory after Cleanup: %v", err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// Two sandboxes on one workspace share a placeholder: the first made
// .vscode, the second found it (an empty directory, blocked whole) and
// bound over it. When the first ends, its Cleanup must not remove it:
// removing a directory on the host detaches the mount on it in the other
// sandbox's mount namespace, and the agent still running there could then
// create .vscode/tasks.json. The control removes it as the old Cleanup
// did (an empty directory it made: os.Remove) and the agent does the
// damage. The second, last out, removes it.
func TestSharedPlaceholderHeld(t *testing.T) {
	if m := Probe(); !m.Available {
		t.Skipf("no sandbox: %s", m.Problem)
	}
	places := []struct {
		name, place string
		dir         bool
		attack      string // run in the second sandbox once the first ended
		target      string // what the attack writes
	}{
		{"dir blocked whole", ".vscode", true, "mkdir -p .vscode 2>/dev/null; echo evil > .vscode/tasks.json", ".vscode/tasks.json"},
		{"file kept read-only", ".envrc", false, "echo evil > .envrc", ".envrc"},
	}
	for _, pl := range places {
		for _, naive := range []bool{false, true} {
			name := pl.name + ": held"
			if naive {
				name = pl.name + ": control: removed under the other sandbox"
			}
			t.Run(name, func(t *testing.T) { sharedPlaceholder(t, pl.place, pl.dir, pl.attack, pl.target, naive) })
		}
	}
}

// sharedPlaceholder runs one case of TestSharedPlaceholderHeld.
func sharedPlaceholder(t *testing.T, place string, dir bool, attack, target string, naive bool) {
	t.Setenv("TMPDIR", t.TempDir())
	ws := t.TempDir()
	vscode := filepath.Join(ws, place)
	spec := Spec{Writable: []string{ws}, Network: NetworkAll, Blocked: []Path{{Path: vscode, Dir: dir}}}
	first, err := Prepare(spec, ws, []string{"true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Created) != 1 {
		t.Fatalf("the first sandbox made %d placeholders, want 1", len(first.Created))
	}
	fifo, ready := filepath.Join(ws, "go"), filepath.Join(ws, "ready")
	for _, f := range []string{fifo, ready} {
		if err := unix.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !dir {
		// what Compute gives the second: an existing file place
		// is kept read-only, not blocked
		spec = Spec{Writable: []string{ws}, Network: NetworkAll, ReadOnly: []string{vscode}}
	}
	second, err := Prepare(spec, ws, []string{"/bin/sh", "-c", "echo up > ready; read x < go; " + attack}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(second.Path, second.Args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	up := make(chan error, 1)
	go func() { _, err := os.ReadFile(ready); up <- err }()
	select {
	case err := <-up:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-done:
		t.Fatalf("the sandboxed command ended before it was up: %v\n%s", err, out.String())
	}
	if naive {
		if err := os.Remove(vscode); err != nil {
			t.Fatalf("control: removing the shared placeholder: %v", err)
		}
	}
	first.Cleanup()
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("go\n")
			f.Close()
		}
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
		<-done
	case err := <-done:
		t.Fatalf("the sandboxed command ended before it was told to go: %v\n%s", err, out.String())
	}
	got, _ := os.ReadFile(filepath.Join(ws, target))
	created := strings.Contains(string(got), "evil")
	if naive && !created {
		t.Errorf("control: the agent could not write %s once the placeholder was removed: the test proves nothing\n%s", target, out.String())
	}
	if !naive {
		if created {
			t.Errorf("the agent wrote %s after the other sandbox's Cleanup\n%s", target, out.String())
		}
		if _, err := os.Lstat(vscode); err != nil {
			t.Errorf("the first Cleanup removed the placeholder the second holds: %v", err)
		}
	}
	second.Cleanup()
	if !naive {
		if _, err := os.Lstat(vscode); err == nil {
			t.Errorf("the placeholder is still there after the last sandbox using it ended")
		}
	}
}
