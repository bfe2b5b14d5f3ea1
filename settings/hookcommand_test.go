package settings

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Red team 14b: hookPaths reads the files a hook's command names off its
// words, and a shell (or an interpreter's -c code) builds paths the words
// do not spell: a relative word after a cd, a glob, a quote or a backslash
// inside the word (the separators split it into pieces none of which lies
// in the tree), a string concatenation, ~user. Each command below passed
// the word reader with the workspace as a writable tree; each is refused
// now (shell code, inline code, env --chdir: hookpaths.go), and each
// really runs the workspace's check.sh when run unchecked the way
// hooks.consultCommand runs it (the damage). Control: the same script
// spelled plainly is refused.
func TestHookPathsBuiltByTheShellRefused(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(root, "ran")
	writeFile(t, filepath.Join(ws, "check.sh"), "touch "+marker+"\n")
	writeFile(t, filepath.Join(ws, "check.py"), "open('"+marker+"','w').close()\n")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	base := filepath.Base(ws) // "ws"
	rel, _ := filepath.Rel("/", ws)
	cases := []struct {
		name string
		cmd  []string
	}{
		{"relative word after cd", []string{"/bin/sh", "-c", "cd " + root + " && exec sh " + base + "/check.sh"}},
		{"cd by words with no slash", []string{"/bin/sh", "-c", "cd / && cd " + strings.ReplaceAll(rel, "/", " && cd ") + " && exec sh check.sh"}},
		{"env --chdir then a relative script", []string{"/usr/bin/env", "--chdir=" + root, "sh", base + "/check.sh"}},
		{"a variable with no whitespace (${IFS})", []string{"/bin/sh", "-c", "exec${IFS}sh${IFS}$HOME/" + base + "/check.sh"}},
		{"a glob", []string{"/bin/sh", "-c", "exec sh " + root + "/w?/check.sh"}},
		{"a bracket glob (split at [ ])", []string{"/bin/sh", "-c", "exec sh " + root + "/w[s]/check.sh"}},
		{"empty quotes inside the word", []string{"/bin/sh", "-c", "exec sh " + root + "/w''s/check.sh"}},
		{"a backslash inside the word", []string{"/bin/sh", "-c", "exec sh " + root + "/w\\s/check.sh"}},
		{"python concatenation", []string{"/usr/bin/env", "python3", "-c", "exec(open('" + root + "/'+'" + base + "/check.py').read())"}},
		{"python chdir + relative", []string{"/usr/bin/env", "python3", "-c", "import os;os.chdir('" + root + "');exec(open('" + base + "/check.py').read())"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(marker)
			probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: c.cmd}}}, trees, nil, []string{"HOME=/nonexistent-home"})
			cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
			cmd.Dir = "/"
			cmd.Env = []string{"HOME=" + root, "PATH=/usr/local/bin:/usr/bin:/bin"} // HookEnv keeps HOME (here the workspace's parent)
			out, err := cmd.CombinedOutput()
			_, statErr := os.Stat(marker)
			ran := statErr == nil
			t.Logf("%q: problems %v; ran the workspace's script: %v (%v %s)", c.cmd, probs, ran, err, out)
			if len(probs) == 0 && ran {
				t.Errorf("HOLE: accepted a hook that runs a script in the workspace: %q", c.cmd)
			}
		})
	}
	// Control: spelled plainly, refused.
	plain := []string{"/bin/sh", "-c", "exec sh " + ws + "/check.sh"}
	if probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: plain}}}, trees, nil, []string{"HOME=/nonexistent-home"}); len(probs) == 0 {
		t.Fatalf("control: the plain spelling was accepted: %q", plain)
	}
}

// Red team 14b: a hook whose program is a package runner (npx) reads the
// runner's cache, which is a writable tree for an agent started through
// that runner (sandbox.RunnerDirs: ~/.npm). The hook's command names no
// path, so it loads; outside every sandbox, npx runs the package it finds
// in ~/.npm/_npx, which the agent may have written.
func TestHookThroughARunnerRefused(t *testing.T) {
	home := "/home/u"
	cfg := Config{
		Hooks:  []HookConfig{{Name: "guard", Command: []string{"npx", "--yes", "@corp/acp-hook@1"}}},
		Agents: map[string]Agent{"claude": {Command: "npx", Args: []string{"@zed-industries/claude-code-acp"}}},
	}
	trees := WritableTrees(cfg, "/w/proj", home)
	npm := false
	for _, tr := range trees {
		if tr.Path == filepath.Join(home, ".npm") {
			npm = true
		}
	}
	if !npm {
		t.Skipf("~/.npm is not a writable tree here: %v", trees)
	}
	if probs := hookPathProblems(cfg, trees, nil, []string{"HOME=" + home}); len(probs) == 0 {
		t.Errorf("HOLE: a hook run through npx (whose cache ~/.npm an agent may write) loads: %q; trees %v", cfg.Hooks[0].Command, trees)
	}
}

// Red team 14b: "~user/" in a shell string is the user's home (the shell
// expands it); hookPaths reads only "~" and "~/" against home and joins any
// other word to "/". Control: "~/proj/check.sh" is refused.
func TestHookTildeUserRefused(t *testing.T) {
	home := "/home/u"
	trees := []WritableTree{{Path: "/home/u/proj", Why: "it is the workspace"}}
	for _, c := range []struct {
		arg     string
		refused bool
	}{
		{"exec sh ~u/proj/check.sh", true},
		{"exec sh ~/proj/check.sh", true}, // control
	} {
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{"/bin/sh", "-c", c.arg}}}}, trees, nil, []string{"HOME=" + home})
		t.Logf("%q: %v", c.arg, probs)
		if (len(probs) > 0) != c.refused {
			t.Errorf("HOLE: sh -c %q refused %v, want %v", c.arg, len(probs) > 0, c.refused)
		}
	}
}

// Red team 14b, legit: a hook kept in the user config directory loads,
// also when the workspace is the home directory that holds it (the user
// config directory is read-only to every sandbox). Not a hole: a control
// that nothing legit broke.
func TestHookInUserConfigDirLoads(t *testing.T) {
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "acp-bridge")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "hook.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{filepath.Join(home, "proj"), home} {
		trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
		for _, cmd := range [][]string{
			{"/bin/sh", filepath.Join(cfgDir, "hook.sh")},
			{filepath.Join(cfgDir, "hook.sh")}, // its #! names /bin/sh (was: sh -c "exec HOOK", shell code, now refused everywhere)
		} {
			if probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: cmd}}}, trees, []string{cfgDir}, []string{"HOME=" + home}); len(probs) > 0 {
				t.Errorf("workspace %s: a hook in the user config directory refused: %v", ws, probs)
			}
		}
	}
}

// Red team 14b: HookEnv keeps HOME, and an interpreter reads code from
// under HOME by itself: Python's user site (~/.local/lib/pythonX.Y/
// site-packages, its .pth lines run at every start). When that lies in a
// writable tree (the workspace is the home directory, or
// permissions.additionalDirectories / sandbox.allowWrite names ~/.local),
// a hook whose program and script are both outside every writable tree
// (/usr/bin/python3, the user config directory) loads, and runs the
// agent's .pth outside every sandbox. Control: with -s (no user site) the
// .pth does not run. NOTE: docs/sandbox.md says the sandbox floor keeps
// Python's user site read-only where a writable tree holds it, so an agent
// inside the sandbox cannot plant this .pth: the settings check alone does
// not stop it (defence in depth); see TestNodeHookModulesInTheHomeRefused for
// a place the floor does not keep.
func TestHookHomeUserSiteNotLoaded(t *testing.T) {
	py := "/usr/bin/python3"
	out, err := exec.Command(py, "-c", "import sys;print('%d.%d'%sys.version_info[:2])").Output()
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	ver := strings.TrimSpace(string(out))
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "acp-bridge")
	site := filepath.Join(home, ".local", "lib", "python"+ver, "site-packages")
	for _, d := range []string{cfgDir, site} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(cfgDir, "hook.py"), "print('{\"decision\":\"ask\"}')\n")
	writeFile(t, filepath.Join(site, "planted.pth"), "import os; open('"+marker+"', 'w').close()\n") // the agent's, in the workspace
	trees := []WritableTree{{Path: home, Why: "it is the workspace"}}
	for _, c := range []struct {
		cmd  []string
		hole bool
	}{
		{[]string{py, filepath.Join(cfgDir, "hook.py")}, true},
		{[]string{py, "-s", filepath.Join(cfgDir, "hook.py")}, false}, // control
	} {
		os.Remove(marker)
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: c.cmd}}}, trees, []string{cfgDir}, []string{"HOME=" + home})
		env := hookEnviron([]string{"HOME=" + home, "PATH=/usr/bin:/bin"}, trees, []string{cfgDir})
		cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
		cmd.Dir, cmd.Env = "/", env
		o, err := cmd.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("%q: problems %v; env %q; ran the planted .pth: %v (%v %s)", c.cmd, probs, env, statErr == nil, err, o)
		if c.hole && len(probs) == 0 && statErr == nil {
			t.Errorf("HOLE: a hook outside every writable tree ran the workspace's %s", filepath.Join(site, "planted.pth"))
		}
		if !c.hole && statErr == nil {
			t.Errorf("control: the .pth ran with -s")
		}
	}
}

// Red team 14b: node resolves a bare require() by walking up from the
// script's directory (…/node_modules of every parent), then
// $HOME/.node_modules and $HOME/.node_libraries (HOME is kept in HookEnv).
// A node hook kept in the user config directory (read-only to every
// sandbox, so it loads) with a module its own node_modules lacks (an
// optional dependency, a typo, a package not installed yet) loads it from
// ~/node_modules or ~/.node_modules when the workspace is the home
// directory: the sandbox floor keeps Python's user site and PATH
// directories read-only, not these. Control: the same hook with the
// module in its own node_modules runs that one.
func TestNodeHookModulesInTheHomeRefused(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "acp-bridge")
	marker := filepath.Join(t.TempDir(), "ran")
	for _, planted := range []string{filepath.Join(home, "node_modules", "corp-optional"), filepath.Join(home, ".node_modules", "corp-optional2")} {
		if err := os.MkdirAll(planted, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(planted, "index.js"), "require('fs').appendFileSync('"+marker+"', '"+filepath.Base(planted)+" ');\n")
	}
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cfgDir, "hook.js"), "for (const m of ['corp-optional','corp-optional2']) { try { require(m) } catch (e) {} }\nconsole.log('{\"decision\":\"ask\"}')\n")
	trees := []WritableTree{{Path: home, Why: "it is the workspace"}}
	command := []string{node, filepath.Join(cfgDir, "hook.js")}
	probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: command}}}, trees, []string{cfgDir}, []string{"HOME=" + home})
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir, cmd.Env = "/", hookEnviron([]string{"HOME=" + home, "PATH=/usr/bin:/bin"}, trees, []string{cfgDir})
	out, err := cmd.CombinedOutput()
	got, _ := os.ReadFile(marker)
	t.Logf("problems %v; ran: %q (%v %s)", probs, got, err, out)
	if len(probs) == 0 && len(got) > 0 {
		t.Errorf("HOLE: a node hook in the user config directory loaded %s from the (writable) home", got)
	}
}

// Red team 14b: a hook program outside every writable tree whose #! line
// names an interpreter inside one (a console script pip wrote for a venv
// in the workspace, a script copied out of the project) passes: hookPaths
// reads argv, not the program's first line, and the kernel runs the
// workspace's interpreter outside every sandbox. Control: the
// interpreter named in argv is refused.
func TestHookShebangIntoTheWorkspaceRefused(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	bin := filepath.Join(ws, ".venv", "bin")
	tools := filepath.Join(root, "tools")
	for _, d := range []string{bin, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "ran")
	interp := filepath.Join(bin, "python3")
	if err := os.WriteFile(interp, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(tools, "corp-hook")
	if err := os.WriteFile(hook, []byte("#!"+interp+"\nprint('x')\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{hook}}}}, trees, nil, []string{"HOME=/nonexistent-home"})
	cmd := exec.Command(hook)
	cmd.Dir = "/"
	_ = cmd.Run()
	_, statErr := os.Stat(marker)
	t.Logf("problems %v; the workspace's interpreter ran: %v", probs, statErr == nil)
	if len(probs) == 0 && statErr == nil {
		t.Errorf("HOLE: a hook whose #! names %s loads and runs it", interp)
	}
	if ctl := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{interp, hook}}}}, trees, nil, []string{"HOME=/nonexistent-home"}); len(ctl) == 0 {
		t.Fatal("control: the interpreter named in argv was accepted")
	}
}

// Red team 14b, what held: spellings of a workspace path the check
// resolves (//, /./, /proc/self/root, .., env -S), each refused.
func TestHookPathSpellingsRefused(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "check.sh"), "true\n")
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	for _, cmd := range [][]string{
		{"/bin/sh", "/" + ws + "/check.sh"},
		{"/bin/sh", root + "/./ws/./check.sh"},
		{"/bin/sh", "/proc/self/root" + ws + "/check.sh"},
		{"/bin/sh", "/proc/self/root" + ws + "/not-yet.sh"},
		{"/bin/sh", root + "/other/../ws/check.sh"},
		{"/usr/bin/env", "-S", "sh " + ws + "/check.sh"},
		{"/usr/bin/env", "-Ssh " + ws + "/check.sh"},
		{"/bin/sh", "-c", "exec sh " + ws + "/check.sh"},
	} {
		if probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: cmd}}}, trees, nil, []string{"HOME=/nonexistent-home"}); len(probs) == 0 {
			t.Errorf("HOLE: %q accepted", cmd)
		}
	}
}

// codeInts spells s as a comma-separated list of its byte values: inline
// code that builds a path out of numbers holds no path word and no shell
// metacharacter, so only the inline-code refusal can stop it.
func codeInts(s string) string {
	parts := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		parts[i] = strconv.Itoa(int(s[i]))
	}
	return strings.Join(parts, ",")
}

// Every spelling class a hook's command could use to run a file of the
// workspace, crossed with the workspace as the target: Load refuses each,
// naming the hook and why, and each, run unchecked the way hooks runs it
// (Dir "/", the hook's environment, or the bridge's PATH for the PATH
// case), really runs the workspace's script: the damage the refusal
// prevents. (A class whose control does not run here, for want of the
// interpreter, is skipped, not passed.)
func TestHookSpellingClassesRefusedWithDamageControls(t *testing.T) {
	type spell struct {
		name, why string
		needs     string // a program the control runs
		// cmd builds the hook's command; root is the workspace's parent,
		// ws the workspace, script ws/check.sh (it touches the marker).
		cmd func(root, ws, script string) []string
		// environ is the bridge's environment (default: PATH and HOME).
		environ func(ws string) []string
		// prepare plants what the spelling needs, outside ws or in it.
		prepare func(t *testing.T, root, ws, script string)
	}
	shRun := "/bin/sh "
	cases := []spell{
		{name: "sh -c with a glob", why: "could expand", cmd: func(root, ws, s string) []string {
			return []string{"/bin/sh", "-c", "exec /bin/sh " + root + "/w?/check.sh"}
		}},
		{name: "sh -c with empty quotes inside a word", why: "could expand", cmd: func(root, ws, s string) []string {
			return []string{"/bin/sh", "-c", "exec /bin/sh " + root + "/w''s/check.sh"}
		}},
		{name: "sh -c with a backslash inside a word", why: "could expand", cmd: func(root, ws, s string) []string {
			return []string{"/bin/sh", "-c", "exec /bin/sh " + root + "/w\\s/check.sh"}
		}},
		{name: "sh -c with the IFS variable", why: "could expand", cmd: func(root, ws, s string) []string {
			return []string{"/bin/sh", "-c", "exec${IFS}/bin/sh${IFS}" + s}
		}},
		{name: "sh -c, cd then a relative word", why: "could expand", cmd: func(root, ws, s string) []string {
			return []string{"/bin/sh", "-c", "cd " + root + " && exec /bin/sh ws/check.sh"}
		}},
		{name: "bash -c with plain words", why: `option "-c"`, needs: "/bin/bash", cmd: func(root, ws, s string) []string {
			return []string{"/bin/bash", "-c", "exec /bin/sh " + s}
		}},
		{name: "env --chdir then a relative script", why: "option of env", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/env", "--chdir=" + root, "/bin/sh", "ws/check.sh"}
		}},
		{name: "env -C then a relative script", why: "option of env", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/env", "-C", root, "/bin/sh", "ws/check.sh"}
		}},
		{name: "env -S", why: "option of env", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/env", "-S" + shRun + s}
		}},
		{name: "python -c building the path from numbers", why: `option "-c"`, needs: "/usr/bin/python3", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/python3", "-c", "exec(bytes((" + codeInts("import os;os.system('/bin/sh "+s+"')") + ")).decode())"}
		}},
		{name: "python -Ic, a cluster", why: `option "-Ic"`, needs: "/usr/bin/python3", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/python3", "-Ic", "exec(bytes((" + codeInts("import os;os.system('/bin/sh "+s+"')") + ")).decode())"}
		}},
		{name: "node -e building the path from numbers", why: `option "-e"`, needs: "/usr/bin/node", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/node", "-e", "eval(String.fromCharCode(" + codeInts("require('child_process').execSync('/bin/sh "+s+"')") + "))"}
		}},
		{name: "node --print", why: `option "--print`, needs: "/usr/bin/node", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/node", "--print", "eval(String.fromCharCode(" + codeInts("require('child_process').execSync('/bin/sh "+s+"')") + "))"}
		}},
		{name: "perl -e building the path from numbers", why: `option "-e"`, needs: "/usr/bin/perl", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/perl", "-e", "system(join(q(),map(chr,(" + codeInts("/bin/sh "+s) + "))))"}
		}},
		{name: "a wrapper, timeout, running python -c", why: "runs the program (or the code) its arguments name", needs: "/usr/bin/python3", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/timeout", "5", "/usr/bin/python3", "-c", "exec(bytes((" + codeInts("import os;os.system('/bin/sh "+s+"')") + ")).decode())"}
		}},
		{name: "awk with its program as an argument", why: "could expand", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/awk", "BEGIN{system(\"/bin/sh " + s + "\")}"}
		}},
		{name: "a #! naming an interpreter in the workspace", why: "it is the workspace", cmd: func(root, ws, s string) []string {
			return []string{filepath.Join(root, "tools", "corp-hook")}
		}, prepare: func(t *testing.T, root, ws, s string) {
			interp := filepath.Join(ws, ".venv", "bin", "python3")
			if err := os.MkdirAll(filepath.Dir(interp), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(interp, []byte("#!/bin/sh\nexec /bin/sh "+s+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			hook := filepath.Join(root, "tools", "corp-hook")
			if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(hook, []byte("#!"+interp+"\nprint('x')\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "env and a bare name found in the workspace by the bridge's PATH", why: "not in the hook's PATH", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/env", "corp-hook"}
		}, environ: func(ws string) []string {
			return []string{"PATH=" + filepath.Join(ws, "bin") + ":/usr/bin:/bin"}
		}, prepare: plantWorkspaceHook},
		{name: "env setting PATH before a bare name", why: "which the bridge sets", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/env", "PATH=" + filepath.Join(ws, "bin"), "corp-hook"}
		}, prepare: plantWorkspaceHook},
		{name: "a package runner, npx", why: "package runner", cmd: func(root, ws, s string) []string {
			return []string{"/usr/bin/npx", "--yes", "corp-hook"}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			root, ws := filepath.Dir(e.wsDir), e.wsDir
			marker := filepath.Join(root, "ran")
			script := filepath.Join(ws, "check.sh")
			writeFile(t, script, ": >"+marker+"\n") // no program from PATH: the PATH case sets its own
			if c.prepare != nil {
				c.prepare(t, root, ws, script)
			}
			cmd := c.cmd(root, ws, script)
			environ := []string{"PATH=/usr/bin:/bin", "HOME=" + root}
			if c.environ != nil {
				environ = c.environ(ws)
			}
			js, _ := json.Marshal(cmd)
			writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: "+string(js)+"\n")
			_, err := e.load(func(o *Options) { o.Environ = environ })
			if err == nil || !strings.Contains(err.Error(), "hooks[0].command") || !strings.Contains(err.Error(), "hook guard") || !strings.Contains(err.Error(), c.why) {
				t.Errorf("Load: %v, want the hook refused saying %q", err, c.why)
			}
			if c.name == "a package runner, npx" {
				return // its damage needs the network and a cache; refused by name
			}
			if c.needs != "" {
				if _, err := os.Stat(c.needs); err != nil {
					t.Skipf("no %s for the control", c.needs)
				}
			}
			// Control: unchecked, the command runs the workspace's script.
			run := exec.Command(cmd[0], cmd[1:]...)
			run.Dir, run.Env = "/", environ
			out, runErr := run.CombinedOutput()
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("control: %q did not run the workspace's script unchecked (%v %s): the refusal is not shown to matter", cmd, runErr, out)
			}
		})
	}
}

// What a plain hook looks like still loads: a script file run by its
// interpreter (with options that take no code), a script whose #! names
// env and an interpreter found in the hook's PATH, env -i, an option
// with a URL. Each names only files outside every writable tree.
func TestHookPlainCommandsLoad(t *testing.T) {
	e := newEnv(t)
	tools := filepath.Join(filepath.Dir(e.userDir), "tools")
	py := filepath.Join(tools, "hook.py")
	sh := filepath.Join(tools, "hook.sh")
	js := filepath.Join(tools, "hook.js")
	envPy := filepath.Join(tools, "corp-hook")
	for p, body := range map[string]string{py: "print(1)\n", sh: "#!/bin/sh\necho\n", js: "console.log(1)\n", envPy: "#!/usr/bin/env python3\nprint(1)\n"} {
		writeFile(t, p, body)
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range [][]string{
		{"/usr/bin/python3", py},
		{"/usr/bin/python3", "-u", "-X", "utf8", "-W", "ignore", py, "--endpoint=https://policy.example.com/v1", "--retries", "3"},
		{"/bin/sh", "-eu", sh, "plain-arg"},
		{sh},
		{"/usr/bin/node", "--max-old-space-size=64", js},
		{envPy},
		{"/usr/bin/env", "python3", py},
		{"/usr/bin/env", "LANG=C.UTF-8", "LC_ALL=C", "python3", py},
	} {
		js, _ := json.Marshal(cmd)
		writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: "+string(js)+"\n")
		if _, err := e.load(func(o *Options) { o.Environ = []string{"PATH=/usr/bin:/bin", "HOME=/home/u"} }); err != nil {
			t.Errorf("a plain hook %q was refused: %v", cmd, err)
		}
	}
	// And what needs no script, or reads code on stdin, does not.
	for _, cmd := range [][]string{{"/usr/bin/python3"}, {"/usr/bin/python3", "-"}, {"/bin/sh"}, {"/bin/sh", "-s"}, {"/usr/bin/node"}, {"/usr/bin/env"}, {"/usr/bin/env", "-i", "/usr/bin/python3", py}} {
		js, _ := json.Marshal(cmd)
		writeFile(t, e.userFile(), "hooks:\n  - name: guard\n    command: "+string(js)+"\n")
		if _, err := e.load(func(o *Options) { o.Environ = []string{"PATH=/usr/bin:/bin"} }); err == nil {
			t.Errorf("%q (code from stdin, or no program) loaded", cmd)
		}
	}
}

// A hook's HOME is unset when it lies in a writable tree (the workspace is
// the home directory): node reads $HOME/.node_modules by itself. A node
// hook kept outside the home (no parent's node_modules in reach) with the
// hook's environment does not load the agent's ~/.node_modules/corp-x;
// control: the same run with HOME kept loads it. With the home outside
// every writable tree, HOME is kept.
func TestHookHomeUnsetWhenWritable(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	home, tools := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(home, ".node_modules", "corp-x", "index.js"), "require('fs').writeFileSync('"+marker+"', 'x');\n")
	script := filepath.Join(tools, "hook.js")
	writeFile(t, script, "try { require('corp-x') } catch (e) {}\nconsole.log('{\"decision\":\"ask\"}')\n")
	trees := []WritableTree{{Path: home, Why: "it is the workspace"}}
	environ := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	if probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{node, script}}}}, trees, nil, environ); len(probs) > 0 {
		t.Fatalf("a node hook outside the home refused: %v", probs)
	}
	for _, c := range []struct {
		env    []string
		loaded bool
	}{
		{hookEnviron(environ, trees, nil), false},
		{environ, true}, // control: HOME kept
	} {
		os.Remove(marker)
		cmd := exec.Command(node, script)
		cmd.Dir, cmd.Env = "/", c.env
		out, err := cmd.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("env %q: loaded %v (%v %s)", c.env, statErr == nil, err, out)
		if (statErr == nil) != c.loaded {
			t.Errorf("env %q: ~/.node_modules loaded %v, want %v", c.env, statErr == nil, c.loaded)
		}
	}
	if env := hookEnviron(environ, []WritableTree{{Path: filepath.Join(home, "proj"), Why: "it is the workspace"}}, nil); !slices.Contains(env, "HOME="+home) {
		t.Errorf("HOME outside every writable tree dropped: %q", env)
	}
}

// plantWorkspaceHook puts the agent's corp-hook in the workspace's bin/: a
// script that runs the damage script s.
func plantWorkspaceHook(t *testing.T, root, ws, s string) {
	p := filepath.Join(ws, "bin", "corp-hook")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexec /bin/sh "+s+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}
