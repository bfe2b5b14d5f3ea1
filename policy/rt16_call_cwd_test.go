package policy

import "testing"

// TestRT16CallCwdIsNotTheWorkspace (red team 16): envFor replaces Env.Cwd
// with the call's own directory (Call.Cwd: codex's {command, cwd}, any
// tool's cwd/workdir), and envx.inWorkspaceLexical counts Env.Cwd as a
// workspace root. So a call that names a directory outside the workspace
// makes that directory "the workspace": `cat credentials` in ~/.aws is
// "read-only and stays in the workspace" (allowed in plan mode, every mode),
// `rm -rf projects` in ~ is one of "these file operations inside the
// workspace" (allowed in acceptEdits). With the sandbox on, the read
// happens (reads are confined only by Read deny rules); with it off
// (onUnavailable: warn, the default, where bubblewrap is missing; macOS)
// the delete happens too. Controls: the same files named by their paths.
func TestRT16CallCwdIsNotTheWorkspace(t *testing.T) {
	env := Env{Cwd: "/w/proj", ProjectRoot: "/w/proj", Home: "/home/u"}
	pol, errs := Compile(nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		mode Mode
		call Call
	}{
		{ModePlan, Call{Tool: "Bash", Command: "cat credentials", Cwd: "/home/u/.aws", Kind: "execute"}},
		{ModeDefault, Call{Tool: "Bash", Command: "cat credentials", Cwd: "/home/u/.aws", Kind: "execute"}},
		{ModePlan, Call{Tool: "Bash", Command: "grep -r password .", Cwd: "/etc", Kind: "execute"}},
		{ModeAcceptEdits, Call{Tool: "Bash", Command: "rm -rf projects", Cwd: "/home/u", Kind: "execute"}},
		{ModeAcceptEdits, Call{Tool: "Bash", Command: "mv projects /tmp/x", Cwd: "/home/u", Kind: "execute"}},
		{ModePlan, Call{Tool: "Read", Paths: []string{"credentials"}, Cwd: "/home/u/.aws", Kind: "read"}},
		{ModeAcceptEdits, Call{Tool: "Edit", Paths: []string{"notes.txt"}, Cwd: "/home/u/projects", Kind: "edit"}},
	} {
		abs := c.call
		abs.Cwd = ""
		switch {
		case c.call.Command == "cat credentials":
			abs.Command = "cat /home/u/.aws/credentials"
		case c.call.Command == "grep -r password .":
			abs.Command = "grep -r password /etc"
		case c.call.Command == "rm -rf projects":
			abs.Command = "rm -rf /home/u/projects"
		case c.call.Command == "mv projects /tmp/x":
			abs.Command = "mv /home/u/projects /tmp/x"
		case c.call.Tool == "Read":
			abs.Paths = []string{"/home/u/.aws/credentials"}
		case c.call.Tool == "Edit":
			abs.Paths = []string{"/home/u/projects/notes.txt"}
		}
		if v := Evaluate(Input{Call: abs, Policy: pol, Env: env, Mode: c.mode}); v.Decision == Allow {
			t.Fatalf("control %s %+v: allowed (%s)", c.mode, abs, v.Reason)
		}
		if v := Evaluate(Input{Call: c.call, Policy: pol, Env: env, Mode: c.mode}); v.Decision == Allow {
			t.Errorf("%s %s %q %v in %s: allowed (%s); the same files named by their paths are not", c.mode, c.call.Tool, c.call.Command, c.call.Paths, c.call.Cwd, v.Reason)
		}
	}
}
