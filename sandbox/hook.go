package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// ErrNoHookSandbox: this machine offers no sandbox to run a hook in.
var ErrNoHookSandbox = errors.New("no sandbox for decision hooks on this machine")

// HookArgv is argv run blind to what agents write (docs/sandbox.md,
// "Decision hooks run blind to what agents write"). A decision hook runs
// outside every agent's sandbox, with the bridge's rights, and it runs more
// than the files its command names: an interpreter loads modules and
// configuration, a script sources files or reads the session's directory
// from the request it is given. The settings check what the command names
// (settings/hookpaths.go); this is the floor under that check: the hook runs
// in a mount namespace where each tree an agent may write (mask: the
// workspace, additional directories, allowWrite, the agents' state
// directories and runner caches) and every agent's private temp directory
// and the root of the agents' private homes is an empty tmpfs, so whatever
// it loads, sources or reads, it cannot be a file an agent wrote. The places inside those trees that every agent's
// sandbox keeps read-only (keep: the bridge's user config directory) are
// bound back, read-only. Everything else is the host's, writable as the
// bridge's user may; the network is the host's. Every capability is
// dropped, so the hook cannot unmount what hides the trees. Its processes
// are alone in their PID namespace, with a /proc of their own: no agent's
// /proc/PID/root or cwd leads past the masks.
//
// A hook can therefore not read the workspace, even as data: a hook that
// needs a project's file must be given its content another way.
func HookArgv(mask, keep, argv []string) ([]string, error) {
	m := Probe()
	if !m.Available || m.Name != "bubblewrap" {
		return nil, ErrNoHookSandbox
	}
	masks, files := hookMasks(mask)
	// A PID and an IPC namespace of its own, with its own /proc: a running
	// agent's files have another name there, /proc/PID/root/... and
	// /proc/PID/cwd/..., magic links into the agent's own mount namespace
	// (where the workspace is bound writable) past every tmpfs laid below,
	// and a root-run bridge's hooks and agents, both root without
	// capabilities, may follow each other's (red team of session 16).
	a := []string{m.Path, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL",
		"--dev-bind", "/", "/", "--proc", "/proc"}
	for _, t := range masks {
		a = append(a, "--tmpfs", t)
	}
	for _, f := range files {
		// a tree that is one file (allowWrite naming a file): empty
		a = append(a, "--dev-bind", os.DevNull, f) // reads as empty, writes go nowhere
	}
	for _, k := range keep {
		k = filepath.Clean(k)
		if !filepath.IsAbs(k) || !underAny(k, masks) {
			continue
		}
		if _, err := os.Stat(k); err != nil {
			continue
		}
		a = append(a, "--ro-bind", k, k)
	}
	a = append(a, "--chdir", "/", "--")
	return append(a, argv...), nil
}

// hookMasks are the directories to hide: each tree and its real path, and
// every agent's private temp directory, those that exist as directories,
// outermost first, none under another; and files, the trees that are
// files (each name and its real path), none under a directory hidden.
func hookMasks(trees []string) (dirs, files []string) {
	var cand, fileCand []string
	add := func(p string) {
		p = filepath.Clean(p)
		if !filepath.IsAbs(p) || p == "/" {
			return
		}
		fi, err := os.Stat(p)
		if err != nil {
			return
		}
		names := []string{p}
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p && r != "/" {
			names = append(names, r)
		}
		switch {
		case fi.IsDir():
			cand = append(cand, names...)
		case fi.Mode().IsRegular():
			fileCand = append(fileCand, names...)
		}
	}
	for _, t := range trees {
		add(t)
	}
	if priv, err := filepath.Glob(filepath.Join(os.TempDir(), privatePrefix+"*")); err == nil {
		for _, p := range priv {
			add(p)
		}
	}
	// Agents' private homes (codex's, qwen's: MakeHome) live under their
	// own root, not in the settings' trees (red team 15b).
	add(HomesRoot())
	sort.Slice(cand, func(i, j int) bool { return len(cand[i]) < len(cand[j]) })
	for _, c := range cand {
		if !underAny(c, dirs) {
			dirs = append(dirs, c)
		}
	}
	for _, f := range fileCand {
		if !underAny(f, dirs) && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return dirs, files
}
