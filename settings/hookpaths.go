package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// What a decision hook runs lies outside every tree an agent may write
// (docs/settings.md "hooks", docs/sandbox.md "Programs the bridge runs
// outside every sandbox"). A hook runs outside every sandbox with the
// bridge's rights, and what it runs is more than the files its command
// names: an interpreter loads modules beside its script (Python's
// json.py, a sourced lib.sh, node_modules), a script named inside a
// `sh -c` string or an option's value (`--require=FILE`), a symlink's
// target. Protecting the named files in the sandbox (Store.HookPrograms)
// leaves their neighbours writable; red team 14 planted each. So the place
// is refused instead: a hook whose program, or any path its arguments name,
// lies inside a writable tree (or resolves into one) is a settings error,
// at load and on every reload, naming the tree and why it is writable; an
// argument that is shell code with a variable or a substitution (the files
// it names cannot be read off it) is refused too. And a hook runs with an
// environment an agent's tree cannot steer (HookEnviron): PATH without the
// entries inside writable trees, and none of PYTHONPATH, NODE_OPTIONS,
// BASH_ENV, LD_PRELOAD and the like.

// hookPathProblems checks every command hook of cfg against trees.
func hookPathProblems(cfg Config, trees []WritableTree, readOnly []string, home string) []*FieldError {
	var out []*FieldError
	for i, h := range cfg.Hooks {
		if len(h.Command) == 0 {
			continue
		}
		key := fmt.Sprintf("hooks[%d].command", i)
		paths, doubt := hookPaths(h.Command, home)
		if doubt != "" {
			out = append(out, &FieldError{Key: key, Msg: fmt.Sprintf("hook %s: %s; write the paths out", h.Name, doubt)})
			continue
		}
		for _, p := range paths {
			if where := writableWhere(p, trees, readOnly); where != "" {
				out = append(out, &FieldError{Key: key, Msg: fmt.Sprintf("hook %s runs %s, which is %s: an agent could change what the hook runs outside the sandbox (a module, library or script beside it); keep a hook's program and scripts outside every tree an agent may write", h.Name, p, where)})
				break
			}
		}
	}
	return out
}

// hookSeparators split an argument into the words that may name files:
// shell syntax, option values (--file=PATH), lists (a:b, a,b).
const hookSeparators = " \t\r\n;&|()<>'\"`=,:{}[]"

// hookPaths are the paths a hook's command names: its program, every
// argument that is a path, and every path-like word inside an argument
// (an option's value, a word of a `sh -c` string). A relative word with a
// slash is read from "/" (the hook's directory); "~/" from home. doubt is
// set when an argument is shell code using a variable or a substitution.
func hookPaths(command []string, home string) (paths []string, doubt string) {
	add := func(w string) {
		switch {
		case w == "~" || strings.HasPrefix(w, "~/"):
			if home != "" {
				paths = append(paths, filepath.Join(home, strings.TrimPrefix(w, "~")))
			}
		case strings.HasPrefix(w, "/"):
			paths = append(paths, filepath.Clean(w))
		case strings.Contains(w, "/"):
			paths = append(paths, filepath.Join("/", w))
		}
	}
	for i, a := range command {
		if i == 0 {
			add(a)
			continue
		}
		if strings.ContainsAny(a, " \t\n;&|") && strings.ContainsAny(a, "$`") {
			return nil, fmt.Sprintf("argument %d (%q) is shell code with a variable or a substitution: the files it runs cannot be checked", i, a)
		}
		add(a)
		for _, w := range strings.FieldsFunc(a, func(r rune) bool { return strings.ContainsRune(hookSeparators, r) }) {
			if w != a {
				add(w)
			}
		}
	}
	return paths, ""
}

// writableWhere says which writable tree p lies in (or resolves into),
// "" when none. A path inside one of readOnly (the user config directory,
// which every sandbox keeps read-only) is fine.
func writableWhere(p string, trees []WritableTree, readOnly []string) string {
	abs := filepath.Clean(p)
	real := resolveExisting(abs)
	for _, ro := range readOnly {
		if ro != "" && within(abs, filepath.Clean(ro)) && within(real, resolveExisting(filepath.Clean(ro))) {
			return ""
		}
	}
	tmp := filepath.Clean(os.TempDir())
	for _, c := range []string{abs, real} {
		for _, t := range trees {
			for _, root := range []string{t.Path, resolveExisting(t.Path)} {
				if within(c, root) {
					return fmt.Sprintf("inside %s, and %s", t.Path, t.Why)
				}
			}
		}
		if rel, err := filepath.Rel(tmp, c); err == nil && !strings.HasPrefix(rel, "..") && strings.HasPrefix(rel, SandboxTempPrefix) {
			return "inside an agent's private temp directory (" + tmp + string(filepath.Separator) + SandboxTempPrefix + "*)"
		}
	}
	return ""
}

// hookEnvKeep are the variables a hook inherits from the bridge (besides
// PATH, filtered, and LC_*): nothing that names code to load.
var hookEnvKeep = map[string]bool{"HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true}

// defaultHookPath is a hook's PATH when the bridge's has no usable entry.
const defaultHookPath = "/usr/local/bin:/usr/bin:/bin"

// hookEnviron is the environment a command hook runs with
// (Snapshot.HookEnv): HOME, USER, LOGNAME, LANG, LANGUAGE, LC_*, TZ, TMPDIR
// from environ, and PATH with only its absolute entries outside every tree
// an agent may write (an editor started from an activated virtualenv names
// the workspace's .venv/bin: /usr/bin/env python3 would run the agent's
// python3).
func hookEnviron(environ []string, trees []WritableTree, readOnly []string) []string {
	var out []string
	path := ""
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case k == "PATH":
			path = v
		case hookEnvKeep[k] || strings.HasPrefix(k, "LC_"):
			out = append(out, kv)
		}
	}
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) && writableWhere(d, trees, readOnly) == "" {
			keep = append(keep, d)
		}
	}
	// Python's user site (~/.local/lib/python*/site-packages, its .pth
	// files run at start) lies under HOME, which a workspace that is the
	// home directory makes writable (red team 14b).
	out = append(out, "PYTHONNOUSERSITE=1")
	if len(keep) == 0 {
		return append(out, "PATH="+defaultHookPath)
	}
	return append(out, "PATH="+strings.Join(keep, string(filepath.ListSeparator)))
}
