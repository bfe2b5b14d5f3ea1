package settings

import (
	"path/filepath"
	"slices"
	"strings"
)

// A hook's environment (docs/settings.md "hooks"): what the bridge hands a
// command hook, computed once per settings load (Snapshot.HookEnv).

// hookEnvOwn are the variables the bridge sets for a hook (hookEnviron):
// env may not set them again.
var hookEnvOwn = []string{"PATH", "HOME", "PYTHONNOUSERSITE"}

// hookEnvKeep are the variables a hook inherits from the bridge (besides
// PATH, filtered, HOME, when outside every writable tree, and LC_*):
// nothing that names code to load.
var hookEnvKeep = map[string]bool{"USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true}

func hookEnvKeepNames() []string {
	out := make([]string, 0, len(hookEnvKeep))
	for k := range hookEnvKeep {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// defaultHookPath is a hook's PATH when the bridge's has no usable entry.
const defaultHookPath = "/usr/local/bin:/usr/bin:/bin"

// hookPATH are the entries of a hook's PATH: the bridge's absolute
// entries outside every writable tree (an editor started from an activated
// virtualenv names the workspace's .venv/bin: /usr/bin/env python3 would
// run the agent's python3), or defaultHookPath.
func hookPATH(environ []string, trees []WritableTree, readOnly []string) []string {
	var keep []string
	for _, d := range filepath.SplitList(environValue(environ, "PATH")) {
		if filepath.IsAbs(d) && writableWhere(d, trees, readOnly) == "" {
			keep = append(keep, d)
		}
	}
	if len(keep) == 0 {
		return filepath.SplitList(defaultHookPath)
	}
	return keep
}

// hookHome is a hook's HOME: the bridge's, unless it lies in a writable
// tree (the workspace is the home directory): interpreters read code
// from under HOME by themselves (node's ~/.node_modules, Python's user
// site, a tool's dotfiles), so there it is unset.
func hookHome(environ []string, trees []WritableTree, readOnly []string) string {
	home := environValue(environ, "HOME")
	if home == "" || !filepath.IsAbs(home) || writableWhere(home, trees, readOnly) != "" {
		return ""
	}
	return home
}

// hookEnviron is the environment a command hook runs with
// (Snapshot.HookEnv): USER, LOGNAME, LANG, LANGUAGE, LC_*, TZ, TMPDIR from
// environ, HOME (hookHome), PATH (hookPATH), and PYTHONNOUSERSITE=1
// (Python's user site, ~/.local/lib/python*/site-packages, whose .pth
// files run at start, lies under HOME; red team 14b).
func hookEnviron(environ []string, trees []WritableTree, readOnly []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if ok && (hookEnvKeep[k] || strings.HasPrefix(k, "LC_")) {
			out = append(out, kv)
		}
	}
	if home := hookHome(environ, trees, readOnly); home != "" {
		out = append(out, "HOME="+home)
	}
	out = append(out, "PYTHONNOUSERSITE=1")
	return append(out, "PATH="+strings.Join(hookPATH(environ, trees, readOnly), string(filepath.ListSeparator)))
}
