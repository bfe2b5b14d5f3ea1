package settings

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 15 (refused now: perl -M/-m LIST, data: URLs, env assignments the hook environment does not carry). Each case: a hook's command that hookPathProblems accepts
// with the workspace as a writable tree, and that, run the way
// hooks.consultCommand runs it (Dir "/", hookEnviron), runs a file of the
// workspace outside every sandbox (the damage). A case that is refused, or
// whose damage does not happen, passes. Control: the workspace's script
// named plainly is refused.
func TestHookInlineCodeSpellingsRefused(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	tools := filepath.Join(root, "tools") // outside every writable tree
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "ran")
	script := filepath.Join(ws, "check.sh")
	writeFile(t, script, "touch "+marker+"\n")
	writeFile(t, filepath.Join(ws, "check.mjs"), "import fs from 'fs'; fs.writeFileSync('"+marker+"', 'x');\n")
	writeFile(t, filepath.Join(tools, "hook.pl"), "print qq({\"decision\":\"ask\"}\\n);\n")
	writeFile(t, filepath.Join(tools, "hook.js"), "console.log('{\"decision\":\"ask\"}')\n")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/local/bin:/usr/bin:/bin"}
	fileURL := "file://" + filepath.Join(ws, "check.mjs")
	cases := []struct {
		name  string
		needs string
		cmd   []string
	}{
		// perl -M is a "value" option to the check, but perl pastes its
		// value into `use MODULE LIST;` and evaluates LIST at compile time.
		{"perl -M with a LIST that runs code", "/usr/bin/perl", []string{"/usr/bin/perl", "-Mlib system(join(q(),map(chr,(" + codeInts("/bin/sh "+script) + "))))", filepath.Join(tools, "hook.pl")}},
		{"perl -m with a LIST that runs code", "/usr/bin/perl", []string{"/usr/bin/perl", "-mlib system(join(q(),map(chr,(" + codeInts("/bin/sh "+script) + "))))", filepath.Join(tools, "hook.pl")}},
		{"perl -M cluster after -w", "/usr/bin/perl", []string{"/usr/bin/perl", "-wMlib system(join(q(),map(chr,(" + codeInts("/bin/sh "+script) + "))))", filepath.Join(tools, "hook.pl")}},
		// perl -dw: "d" is not the cluster's last letter, so the script is
		// not taken for its value; perl -d loads $PERL5DB, which is code.
		{"env PERL5DB=code perl -dw", "/usr/bin/perl", []string{"/usr/bin/env", "PERL5DB=BEGIN{system(join(q(),map(chr,(" + codeInts("/bin/sh "+script) + "))))}", "/usr/bin/perl", "-dw", filepath.Join(tools, "hook.pl")}},
		// node --import / --loader take a URL, and a data: URL is code.
		{"node --import=data: URL", "/usr/bin/node", []string{"/usr/bin/node", "--import=data:text/javascript,import(String.fromCharCode(" + codeInts(fileURL) + "))", filepath.Join(tools, "hook.js")}},
		{"node --import data: URL (separate)", "/usr/bin/node", []string{"/usr/bin/node", "--import", "data:text/javascript,import(String.fromCharCode(" + codeInts(fileURL) + "))", filepath.Join(tools, "hook.js")}},
		{"node --experimental-loader=data: URL", "/usr/bin/node", []string{"/usr/bin/node", "--experimental-loader=data:text/javascript,import(String.fromCharCode(" + codeInts(fileURL) + "))", filepath.Join(tools, "hook.js")}},
		{"node --loader=data: URL", "/usr/bin/node", []string{"/usr/bin/node", "--loader=data:text/javascript,import(String.fromCharCode(" + codeInts(fileURL) + "))", filepath.Join(tools, "hook.js")}},
		{"env NODE_OPTIONS=--import=data: URL", "/usr/bin/node", []string{"/usr/bin/env", "NODE_OPTIONS=--import=data:text/javascript,import(String.fromCharCode(" + codeInts(fileURL) + "))", "/usr/bin/node", filepath.Join(tools, "hook.js")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.needs); err != nil {
				t.Skipf("no %s", c.needs)
			}
			os.Remove(marker)
			probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: c.cmd}}}, trees, nil, environ)
			cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
			cmd.Dir, cmd.Env = "/", hookEnviron(environ, trees, nil)
			cmd.Stdin = strings.NewReader("{}")
			out, err := cmd.CombinedOutput()
			_, statErr := os.Stat(marker)
			ran := statErr == nil
			t.Logf("%q: problems %v; ran the workspace's file: %v (%v %s)", c.cmd, probs, ran, err, out)
			if len(probs) == 0 && ran {
				t.Errorf("HOLE: accepted a hook that runs a file of the workspace outside every sandbox: %q", c.cmd)
			}
		})
	}
	if probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{"/bin/sh", script}}}}, trees, nil, environ); len(probs) == 0 {
		t.Fatal("control: the workspace's script named plainly was accepted")
	}
}

// Red team 15 (refused now: env takes no option): the bridge sets PYTHONNOUSERSITE=1 for every hook and
// refuses `env PYTHONNOUSERSITE=...`, but env's -u and -i (both allowed)
// remove it. Python's user site (~/.local/lib/pythonX.Y/site-packages,
// its .pth lines run at start) is then read again. Here HOME lies outside
// every writable tree (so HookEnv keeps it) and ~/.local is one
// (permissions.additionalDirectories / sandbox.allowWrite, the case the
// hookEnviron comment names). Control: the same hook without env -u does
// not run the .pth.
func TestHookEnvUnsetRefused(t *testing.T) {
	py := "/usr/bin/python3"
	out, err := exec.Command(py, "-c", "import sys;print('%d.%d'%sys.version_info[:2])").Output()
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	ver := strings.TrimSpace(string(out))
	root := t.TempDir()
	home := filepath.Join(root, "home")
	tools := filepath.Join(root, "tools")
	local := filepath.Join(home, ".local")
	site := filepath.Join(local, "lib", "python"+ver, "site-packages")
	for _, d := range []string{tools, site} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "ran")
	writeFile(t, filepath.Join(tools, "hook.py"), "print('{\"decision\":\"ask\"}')\n")
	writeFile(t, filepath.Join(site, "planted.pth"), "import os; open('"+marker+"', 'w').close()\n")
	trees := []WritableTree{{Path: local, Why: "permissions.additionalDirectories names it"}}
	environ := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	for _, c := range []struct {
		cmd  []string
		hole bool
	}{
		{[]string{"/usr/bin/env", "-u", "PYTHONNOUSERSITE", py, filepath.Join(tools, "hook.py")}, true},
		{[]string{"/usr/bin/env", "-uPYTHONNOUSERSITE", py, filepath.Join(tools, "hook.py")}, true},
		{[]string{"/usr/bin/env", "--unset=PYTHONNOUSERSITE", py, filepath.Join(tools, "hook.py")}, true},
		{[]string{py, filepath.Join(tools, "hook.py")}, false}, // control
	} {
		os.Remove(marker)
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: c.cmd}}}, trees, nil, environ)
		cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
		cmd.Dir, cmd.Env = "/", hookEnviron(environ, trees, nil)
		o, err := cmd.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("%q: problems %v; ran the planted .pth: %v (%v %s)", c.cmd, probs, statErr == nil, err, o)
		if c.hole && len(probs) == 0 && statErr == nil {
			t.Errorf("HOLE: %q loads and runs the writable user site's .pth", c.cmd)
		}
		if !c.hole && statErr == nil {
			t.Errorf("control: the .pth ran without env -u: %v", fmt.Sprint(c.cmd))
		}
	}
}

// Red team 15 (refused now: env takes no option): `env -i` (allowed) clears PYTHONNOUSERSITE and HOME; with
// HOME unset, Python finds the user site from the password database
// (os.path.expanduser falls back to pwd), i.e. the real home, which is
// the workspace in the case where HookEnv unsets HOME ("the workspace is
// the home directory"). Run under bwrap with a temp directory bound over
// the user's password-database home, so nothing real is touched. Control:
// without env -i, the .pth does not run.
func TestHookEnvIgnoreEnvironmentRefused(t *testing.T) {
	py := "/usr/bin/python3"
	out, err := exec.Command(py, "-c", "import sys,pwd,os;print('%d.%d'%sys.version_info[:2]);print(pwd.getpwuid(os.getuid()).pw_dir)").Output()
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bwrap")
	}
	lines := strings.Fields(string(out))
	ver, pwHome := lines[0], lines[1]
	fake := t.TempDir() // stands for pwHome, which is the workspace
	tools := t.TempDir()
	site := filepath.Join(fake, ".local", "lib", "python"+ver, "site-packages")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(tools, "hook.py"), "print('{\"decision\":\"ask\"}')\n")
	writeFile(t, filepath.Join(site, "planted.pth"), "import os; open('"+marker+"', 'w').close()\n")
	trees := []WritableTree{{Path: pwHome, Why: "it is the workspace"}}
	environ := []string{"HOME=" + pwHome, "PATH=/usr/bin:/bin"}
	for _, c := range []struct {
		cmd  []string
		hole bool
	}{
		{[]string{"/usr/bin/env", "-i", py, filepath.Join(tools, "hook.py")}, true},
		{[]string{"/usr/bin/env", "-u", "PYTHONNOUSERSITE", py, filepath.Join(tools, "hook.py")}, true},
		{[]string{py, filepath.Join(tools, "hook.py")}, false}, // control
	} {
		os.Remove(marker)
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: c.cmd}}}, trees, nil, environ)
		env := hookEnviron(environ, trees, nil)
		argv := append([]string{"--bind", "/", "/", "--bind", fake, pwHome, "--dev", "/dev", "--proc", "/proc", "--chdir", "/", "--"}, c.cmd...)
		cmd := exec.Command(bw, argv...)
		cmd.Env = env
		o, err := cmd.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("%q: problems %v; env %q; ran the planted .pth: %v (%v %s)", c.cmd, probs, env, statErr == nil, err, o)
		if c.hole && len(probs) == 0 && statErr == nil {
			t.Errorf("HOLE: %q loads and runs the user site of the (writable) home", c.cmd)
		}
		if !c.hole && statErr == nil {
			t.Errorf("control: the .pth ran: %q", c.cmd)
		}
	}
}

// Red team 15 (refused now: hookDevice, needScript): "a shell or an interpreter must be given a script file
// (without one it would read the request on stdin as code)": "-" is
// refused, but /dev/stdin, /dev/fd/0 and /proc/self/fd/0 name the same
// stdin, outside every writable tree. sh then reads the request JSON as
// code: a "$(...)" inside the agent's command string (a JSON string is a
// double-quoted sh word) runs outside every sandbox. The request here is
// the JSON hooks.consultCommand writes (json.Marshal of a Request), the
// command the agent asked for. Control: "-" is refused.
func TestHookScriptIsStdinRefused(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "ran")
	trees := []WritableTree{{Path: filepath.Join(root, "ws"), Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	// What hooks.consultCommand writes: {"call":{"tool":"Bash","input":{"command":...}},...}
	req := `{"call":{"tool":"Bash","input":{"command":"echo $(touch ` + marker + `)"}},"agent":"claude","sessionId":"s","mode":"default","workspace":"` + trees[0].Path + `"}`
	for _, cmd := range [][]string{
		{"/bin/sh", "/dev/stdin"},
		{"/bin/sh", "/dev/fd/0"},
		{"/bin/sh", "/proc/self/fd/0"},
		{"/usr/bin/bash", "/dev/stdin"},
	} {
		os.Remove(marker)
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: cmd}}}, trees, nil, environ)
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir, c.Env, c.Stdin = "/", hookEnviron(environ, trees, nil), strings.NewReader(req)
		o, err := c.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("%q: problems %v; the agent's $(...) ran: %v (%v %s)", cmd, probs, statErr == nil, err, o)
		if len(probs) == 0 && statErr == nil {
			t.Errorf("HOLE: %q accepted, and it runs the request on stdin as code", cmd)
		}
	}
	if probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{"/bin/sh", "-"}}}}, trees, nil, environ); len(probs) == 0 {
		t.Fatal(`control: "sh -" accepted`)
	}
}

// The env class as a property: every option of env, in every spelling,
// and every assignment to a variable the hook's environment does not
// carry, is refused before any program; kept variables load (control).
func TestHookEnvProperty(t *testing.T) {
	tools := t.TempDir()
	py := filepath.Join(tools, "hook.py")
	writeFile(t, py, "print(1)\n")
	trees := []WritableTree{{Path: filepath.Join(t.TempDir(), "ws"), Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	refused := [][]string{
		{"-i"}, {"--ignore-environment"}, {"-"}, {"-u", "PYTHONNOUSERSITE"}, {"-uPYTHONNOUSERSITE"}, {"--unset=PYTHONNOUSERSITE"}, {"--unset", "PATH"},
		{"-0"}, {"--"}, {"-S", "python3"}, {"-C", "/"}, {"--chdir=/"}, {"-v"}, {"--debug"}, {"--default-signal=PIPE"}, {"-iu", "HOME"},
		{"NODE_OPTIONS=--require=x"}, {"PYTHONPATH=/opt"}, {"PERL5LIB=/opt"}, {"PERL5OPT=-Mx"}, {"PERL5DB=BEGIN{}"}, {"RUBYOPT=-rx"}, {"RUBYLIB=/opt"},
		{"LD_PRELOAD=/opt/x.so"}, {"LD_LIBRARY_PATH=/opt"}, {"BASH_ENV=/opt/x"}, {"ENV=/opt/x"}, {"PYTHONSTARTUP=/opt/x"}, {"PYTHONNOUSERSITE="}, {"PATH=/usr/bin"}, {"HOME=/"}, {"=x"},
		{"LANG=C", "-i"},
	}
	for _, opts := range refused {
		cmd := append(append([]string{"/usr/bin/env"}, opts...), "/usr/bin/python3", py)
		if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: cmd}}}, trees, nil, environ); len(p) == 0 {
			t.Errorf("%q accepted", cmd)
		}
	}
	for _, opts := range [][]string{{}, {"LANG=C.UTF-8"}, {"LC_ALL=C", "TZ=UTC"}, {"TMPDIR=/var/tmp"}} {
		cmd := append(append([]string{"/usr/bin/env"}, opts...), "/usr/bin/python3", py)
		if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "g", Command: cmd}}}, trees, nil, environ); len(p) != 0 {
			t.Errorf("control: %q refused: %v", cmd, p[0])
		}
	}
}
