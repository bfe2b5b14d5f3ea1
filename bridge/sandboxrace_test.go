package bridge

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/acp-bridge/acp-bridge/agents"
)

// An agent start is retried only for bubblewrap's "Can't create file at P"
// or "Can't mkdir parents for P" naming an absolute path that is gone now (a host socket that vanished
// between the plan and the mounts): a line naming a path that exists, a
// relative path, or any other exit is not a lost race.
func TestSandboxSetupRace(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "vanished.sock")
	exit := func(lines ...string) error {
		return fmt.Errorf("initialize: agent exited: %w", &agents.ExitError{Agent: "a", Code: 1, StderrTail: lines})
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"a vanished socket", exit("bwrap: Can't create file at " + gone + ": Read-only file system"), true},
		{"a path that exists (an agent printing the line)", exit("bwrap: Can't create file at " + dir + ": Read-only file system"), false},
		{"a relative path", exit("bwrap: Can't create file at x.sock: Read-only file system"), false},
		{"another bwrap error", exit("bwrap: setting up uid map: Permission denied"), false},
		{"a vanished socket and its directory", exit("bwrap: Can't mkdir parents for " + gone + ": Read-only file system"), true},
		{"mkdir parents for a path that exists", exit("bwrap: Can't mkdir parents for " + dir + ": Read-only file system"), false},
		{"the line after other output", exit("starting", "bwrap: Can't create file at "+gone+": No such file or directory"), true},
		{"not an exit", errors.New("bwrap: Can't create file at " + gone + ": x"), false},
		{"nil", nil, false},
	} {
		if got := sandboxSetupRace(c.err); got != c.want {
			t.Errorf("%s: sandboxSetupRace = %v, want %v", c.name, got, c.want)
		}
	}
}
