package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Red team 14: a decision hook whose program or any file its command names
// lies in a tree an agent may write is refused at load, naming the hook's
// key and the tree: a module beside a Python script, a sourced library, a
// node_modules package, a symlinked program, a script inside `sh -c`, an
// option's value (--require=FILE), a venv interpreter. Each refused case
// has a control: the same command with its files outside every writable
// tree loads.
func TestHookPlacesRefusedInWritableTrees(t *testing.T) {
	cases := []struct {
		name    string
		command string // {d} is the hook's directory: the workspace, or the control's
		refused bool   // in the workspace (the control loads unless always)
		why     string
		always  bool // refused outside every writable tree too: shell code (-c) is never judged (hookpaths.go)
	}{
		{"python script (a module beside it would shadow json)", `[/usr/bin/python3, "{d}/hooks/check.py"]`, true, "it is the workspace", false},
		{"shell script (a library it sources)", `[/bin/sh, "{d}/hooks/check.sh"]`, true, "it is the workspace", false},
		{"node script (node_modules beside it)", `[/usr/bin/node, "{d}/hooks/check.js"]`, true, "it is the workspace", false},
		{"program is a symlink in the tree", `["{d}/bin/hook"]`, true, "it is the workspace", false},
		{"script inside sh -c", `[/bin/sh, -c, "exec {d}/hooks/check.sh --json"]`, true, `option "-c"`, true},
		{"script in an option's value", `[/usr/bin/node, "--require={d}/hooks/pre.js", /opt/x.js]`, true, "it is the workspace", false},
		{"a venv interpreter", `["{d}/.venv/bin/python3", /opt/check.py]`, true, "it is the workspace", false},
		{"a directory the shell changes into", `[/bin/sh, -c, "cd {d} && ./check.sh"]`, true, "could expand", true},
		{"the tree itself as an argument", `[/opt/hook, "{d}"]`, true, "it is the workspace", false},
		{"a path list", `[/usr/bin/python3, /opt/c.py, "--search=/opt:{d}/lib"]`, true, "it is the workspace", false},
	}
	for _, tc := range cases {
		for _, inWS := range []bool{true, false} {
			name := tc.name
			if !inWS {
				name += " (control: outside)"
			}
			t.Run(name, func(t *testing.T) {
				e := newEnv(t)
				home := filepath.Join(filepath.Dir(e.userDir), "home")
				dir := filepath.Join(filepath.Dir(e.userDir), "tools")
				if inWS {
					dir = e.wsDir
				}
				if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("../scripts/real.sh", filepath.Join(dir, "bin", "hook")); err != nil {
					t.Fatal(err)
				}
				cmd := strings.ReplaceAll(tc.command, "{d}", dir)
				writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: "+cmd+"\n")
				s, err := e.load(func(o *Options) { o.Environ = []string{"HOME=" + home} })
				if (!inWS && !tc.always) || !tc.refused {
					if err != nil {
						t.Fatalf("Load refused a hook outside every writable tree: %v", err)
					}
					if len(s.Snapshot().Config.Hooks) != 1 {
						t.Fatal("the hook was not loaded")
					}
					return
				}
				if err == nil {
					t.Fatalf("Load accepted a hook that runs files in the workspace: %s", cmd)
				}
				if msg := err.Error(); !strings.Contains(msg, "hooks[0].command:") || !strings.Contains(msg, tc.why) || !strings.Contains(msg, "hook guard") {
					t.Errorf("the error does not name the hook and the tree: %v", msg)
				}
			})
		}
	}
}

// A hook's program that is a symlink outside every tree, pointing into the
// workspace, is refused too: the file that runs is the target.
func TestHookProgramResolvingIntoTheWorkspaceRefused(t *testing.T) {
	e := newEnv(t)
	tools := filepath.Join(filepath.Dir(e.userDir), "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.wsDir, "real.sh"), "#!/bin/sh\n")
	if err := os.Symlink(filepath.Join(e.wsDir, "real.sh"), filepath.Join(tools, "hook")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: ["+filepath.Join(tools, "hook")+"]\n")
	if _, err := e.load(); err == nil || !strings.Contains(err.Error(), "it is the workspace") {
		t.Fatalf("a hook program linked into the workspace: %v", err)
	}
}

// Shell code (-c) is refused whatever it holds: a shell builds paths the
// check cannot read off the words (red team 14b: globs, quotes, ${IFS},
// cd). The error says why. Control: the same code in a script file
// outside every writable tree loads.
func TestHookShellCodeRefused(t *testing.T) {
	for _, c := range []struct {
		arg, why string
	}{
		{`exec "$HOME/hooks/check.sh"`, "could expand"},
		{"exec `cat /opt/which`", "could expand"},
		{"cat >/dev/null; echo '{\"decision\":\"ask\"}'", "could expand"},
		{"exec /opt/hooks/check.sh", `option "-c"`},
	} {
		e := newEnv(t)
		writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: [/bin/sh, -c, "+quoteYAML(c.arg)+"]\n")
		_, err := e.load()
		if err == nil || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "hook guard") {
			t.Errorf("sh -c %q: %v, want refused saying %q", c.arg, err, c.why)
		}
		// Control: the code in a script file outside every writable tree.
		script := filepath.Join(filepath.Dir(e.userDir), "tools", "check.sh")
		writeFile(t, script, c.arg+"\n")
		writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: [/bin/sh, "+script+"]\n")
		if _, err := e.load(); err != nil {
			t.Errorf("control: the script file %s was refused: %v", script, err)
		}
	}
}

func quoteYAML(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// A hook's environment: PATH keeps only absolute entries outside every
// writable tree (an editor started from an activated venv names
// {ws}/.venv/bin); what names code to load (PYTHONPATH, NODE_OPTIONS,
// BASH_ENV, LD_PRELOAD) is not passed; HOME, LANG, LC_* are.
func TestHookEnvironment(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: [/bin/true]\n")
	environ := []string{
		"PATH=" + filepath.Join(e.wsDir, ".venv/bin") + ":/usr/local/bin::relative/bin:/usr/bin:" + e.wsDir + ":/bin",
		"HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "PYTHONPATH=" + e.wsDir, "NODE_OPTIONS=--require=" + e.wsDir + "/x.js",
		"BASH_ENV=" + e.wsDir + "/env.sh", "LD_PRELOAD=" + e.wsDir + "/x.so", "SECRET_TOKEN=t",
	}
	s, err := e.load(func(o *Options) { o.Environ = environ })
	if err != nil {
		t.Fatal(err)
	}
	got := s.Snapshot().HookEnv
	want := []string{"HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "PATH=/usr/local/bin:/usr/bin:/bin", "PYTHONNOUSERSITE=1"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("hook environment %q, want %q", got, want)
	}
	// Without a command hook there is none to compute.
	e2 := newEnv(t)
	s2, err := e2.load(func(o *Options) { o.Environ = environ })
	if err != nil {
		t.Fatal(err)
	}
	if s2.Snapshot().HookEnv != nil {
		t.Fatalf("hook environment without hooks: %q", s2.Snapshot().HookEnv)
	}
	// Nothing usable left: a fixed PATH.
	if env := hookEnviron([]string{"PATH=" + e.wsDir}, []WritableTree{{Path: e.wsDir, Why: "ws"}}, nil); !slices.Equal(env, []string{"PYTHONNOUSERSITE=1", "PATH=" + defaultHookPath}) {
		t.Fatalf("no usable PATH entry: %q", env)
	}
}
