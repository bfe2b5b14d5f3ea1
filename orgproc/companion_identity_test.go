package orgproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Red team 14b: oneName refuses a companion with a second name at each
// spawn, but the supervisor retries the spawn (backoff, at most
// MaxBackoff apart) and the check looks only at the link count of the
// moment. An agent holding the second name (a hard link in a tree it may
// write) rewrites the companion through it while it is refused (not
// running: no ETXTBSY), then removes its name: the count is 1 again, the
// next retry runs the agent's program outside every sandbox. Control: the
// first spawn is refused (two names), as TestCompanionWithTwoNamesNotRun.
func TestCompanionRewrittenThroughASecondNameThenUnlinkedNotRun(t *testing.T) {
	dir := t.TempDir()
	path := fakeCompanion(t, `printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{}}'`+"\nexec sleep 60\n")
	other := filepath.Join(dir, "agent-writable-name")
	if err := os.Link(path, other); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran-outside-the-sandbox")
	c := New(Options{Path: path, Version: testVersion, StartTimeout: 2 * time.Second, Backoff: 20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	t.Cleanup(func() { c.Close(t.Context()) })
	err := c.StartOPA(t.Context(), opaConfig(t, time.Second))
	t.Logf("first start (two names): %v", err)
	if err == nil || !strings.Contains(err.Error(), "has 2 names") {
		t.Fatalf("control: a hard-linked companion started: %v", err)
	}
	// The agent, through its own name of the same file:
	f, err := os.OpenFile(other, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("#!/bin/sh\ntouch " + marker + "\nexec sleep 60\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("the companion rewritten through its second name ran once that name was removed (spawns %d)", c.spawns.Load())
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("held: the rewritten companion did not run (spawns %d)", c.spawns.Load())
}

// Red team 14b: oneName follows a symlink (syscall.Stat) and counts the
// target's names only; nothing refuses a companion that is a symlink whose
// target lies in a tree an agent may write (a companion beside an
// installed bridge, linked to a build in a workspace). The sandbox guards
// Programs by their lexical path (sandbox/spec.go protect: rootOf(link) is
// "" when the link lies outside every writable tree), so the target stays
// writable and the agent's rewrite runs at the next spawn. Here the target
// is rewritten between two clients; the second runs it. Control: the hook
// check refuses the same shape (TestHookProgramResolvingIntoTheWorkspaceRefused).
func TestCompanionSymlinkedIntoATreeNotRun(t *testing.T) {
	ws := t.TempDir() // stands for the workspace
	target := fakeCompanion(t, `printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{}}'`+"\nexec sleep 60\n")
	real := filepath.Join(ws, Name)
	if err := os.Rename(target, real); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), Name) // beside the installed bridge
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := oneName(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("oneName accepted a symlinked companion: %v", err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	// The agent rewrites the target in its tree (nothing guards it).
	script, _ := os.ReadFile(real)
	planted := strings.Replace(string(script), "#!/bin/sh\n", "#!/bin/sh\ntouch "+marker+"\n", 1)
	if err := os.WriteFile(real, []byte(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	c := New(Options{Path: link, Version: testVersion, StartTimeout: 2 * time.Second, Backoff: 10 * time.Second})
	err := c.StartOPA(t.Context(), opaConfig(t, time.Second))
	c.Close(t.Context())
	_, statErr := os.Stat(marker)
	t.Logf("StartOPA through the link: %v; the rewritten target ran: %v", err, statErr == nil)
	if statErr == nil {
		t.Errorf("a companion linked into a writable tree ran (its target rewritten there)")
	}
}

// A companion whose directory is a symlink into a tree an agent may write
// (an install directory linked to a build in a workspace): the file itself
// is plain, with one name, but what runs is the file in the tree, which
// the sandbox does not guard (it guards the lexical path). oneName compares
// the real path with the path: refused, and the agent's rewrite never
// runs. Control: the same rewritten file started by its real path (no tree
// known to the client) runs: the damage the refusal prevents.
func TestCompanionThroughASymlinkedDirectoryNotRun(t *testing.T) {
	ws := t.TempDir() // stands for the workspace
	src := fakeCompanion(t, `printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{}}'`+"\nexec sleep 60\n")
	real := filepath.Join(ws, "build", Name)
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, real); err != nil {
		t.Fatal(err)
	}
	install := filepath.Join(t.TempDir(), "lib")
	if err := os.Symlink(filepath.Join(ws, "build"), install); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(install, Name)
	marker := filepath.Join(t.TempDir(), "ran")
	script, _ := os.ReadFile(real)
	planted := strings.Replace(string(script), "#!/bin/sh\n", "#!/bin/sh\ntouch "+marker+"\n", 1)
	if err := os.WriteFile(real, []byte(planted), 0o755); err != nil { // the agent, in its tree
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		refused bool
	}{{path, true}, {real, false}} {
		os.Remove(marker)
		cl := New(Options{Path: c.path, Version: testVersion, StartTimeout: 2 * time.Second, Backoff: 10 * time.Second})
		err := cl.StartOPA(t.Context(), opaConfig(t, time.Second))
		cl.Close(t.Context())
		_, statErr := os.Stat(marker)
		t.Logf("%s: StartOPA %v; the rewritten file ran: %v", c.path, err, statErr == nil)
		if c.refused {
			if err == nil || !strings.Contains(err.Error(), "through a symbolic link") {
				t.Errorf("a companion reached through a symlinked directory: %v, want refused", err)
			}
			if statErr == nil {
				t.Errorf("the companion reached through a symlinked directory ran")
			}
		} else if statErr != nil {
			t.Errorf("control: the rewritten file did not run by its real path (%v): the test shows nothing", err)
		}
	}
}
