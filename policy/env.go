package policy

import (
	"path"
	"strings"
)

// Env is where a call runs.
type Env struct {
	Cwd         string // the session's working directory
	ProjectRoot string // the workspace root ("" = Cwd)
	Home        string // the user's home directory (~)
	// AdditionalDirectories are more directories whose files may be read
	// without asking (and edited in acceptEdits).
	AdditionalDirectories []string
	// FS resolves symlinks; nil means paths are taken as they are.
	FS FS
}

// envx is Env cleaned for one evaluation.
type envx struct {
	cwd, root, home string
	extra           []string
	fs              FS
	realRoots       []string // symlink-resolved workspace roots, computed on demand
	realDone        bool
}

func cleanAbs(p string) string {
	if p == "" || !path.IsAbs(p) {
		return ""
	}
	return path.Clean(p)
}

func newEnvx(env Env) envx {
	e := envx{cwd: cleanAbs(env.Cwd), root: cleanAbs(env.ProjectRoot), home: cleanAbs(env.Home), fs: env.FS}
	if e.cwd == "" {
		e.cwd = e.root
	}
	if e.root == "" {
		e.root = e.cwd
	}
	e.extra = env.AdditionalDirectories
	return e
}

// inWorkspace: p (absolute, clean) is under Cwd, ProjectRoot or an
// additional directory.
func (e *envx) inWorkspaceLexical(p string) bool {
	if within(p, e.cwd) || within(p, e.root) {
		return true
	}
	for _, d := range e.extra {
		if d = canonPath(d, e.cwd, e.home); d != "" && within(p, d) {
			return true
		}
	}
	return false
}

func (e *envx) realRootList() []string {
	if !e.realDone {
		e.realDone = true
		add := func(d string) {
			if d == "" {
				return
			}
			if r := resolveReal(e.fs, d); r != d {
				e.realRoots = append(e.realRoots, r)
			}
		}
		add(e.cwd)
		add(e.root)
		for _, d := range e.extra {
			add(canonPath(d, e.cwd, e.home))
		}
	}
	return e.realRoots
}

// inWorkspace: both the path and its symlink target are in the workspace.
func (e *envx) inWorkspace(pi pathInfo) bool {
	if (pi.unknown && !pi.under) || !e.inWorkspaceLexical(pi.abs) {
		return false
	}
	if pi.real == pi.abs || e.inWorkspaceLexical(pi.real) {
		return true
	}
	for _, r := range e.realRootList() {
		if within(pi.real, r) {
			return true
		}
	}
	return false
}

// protectedName names abs if a recursive delete of it would be a
// disaster: /, home, the workspace root, or a parent of one of them.
func (e *envx) protectedName(abs string) string {
	switch {
	case abs == "/":
		return "/ (the whole file system)"
	case e.home != "" && abs == e.home:
		return "the home directory (" + abs + ")"
	case abs == e.root || abs == e.cwd:
		return "the workspace root (" + abs + ")"
	case within(e.root, abs) || within(e.cwd, abs):
		return "a parent of the workspace root (" + abs + ")"
	case e.home != "" && within(e.home, abs):
		return "a parent of the home directory (" + abs + ")"
	}
	return ""
}

// pathInfo is a canonical path: abs is lexical (cleaned, absolute), real
// has symlinks resolved.
type pathInfo struct {
	raw       string
	abs, real string
	unknown   bool
	recursive bool
	// under: the path is unknown but lies somewhere under abs (a glob).
	under bool
}

// infoRef is info, computed once per ref.
func (e *envx) infoRef(ref *pathRef) pathInfo {
	if ref.info == nil {
		pi := e.info(*ref)
		ref.info = &pi
	}
	return *ref.info
}

func (e *envx) info(ref pathRef) pathInfo {
	pi := pathInfo{raw: ref.raw, unknown: ref.unknown, recursive: ref.recursive, under: ref.under}
	if ref.unknown && !ref.under {
		return pi
	}
	cwd := ref.cwd
	if cwd == "" {
		cwd = e.cwd
	}
	pi.abs = canonPath(ref.raw, cwd, e.home)
	pi.real = resolveReal(e.fs, pi.abs)
	return pi
}

// rcFiles are shell startup files: writing them runs code at every login.
var rcFiles = []string{".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".bash_login",
	".zshenv", ".zlogin", ".bash_logout", ".config/fish/config.fish", ".kshrc", ".cshrc", ".tcshrc"}

// writeBreaker names the circuit breaker a write to pi trips, if any.
func (e *envx) writeBreaker(pi pathInfo) string {
	if pi.unknown && !pi.under {
		return ""
	}
	for i, p := range [2]string{pi.abs, pi.real} {
		if i == 1 && p == pi.abs {
			break
		}
		if p == "/.git" || strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git") {
			return "write inside a .git directory (" + p + ")"
		}
		if e.home != "" && within(p, e.home) && p != e.home {
			rel := p[len(e.home)+1:]
			if e.home == "/" {
				rel = p[1:]
			}
			for _, rc := range rcFiles {
				if rel == rc {
					return "write to the shell startup file ~/" + rc
				}
			}
		}
		if strings.HasPrefix(p, "/dev/") && !isHarmlessDevice(p) {
			return "write to the device " + p
		}
		if pi.recursive {
			if n := e.protectedName(p); n != "" {
				return "recursive delete of " + n
			}
		}
	}
	return ""
}

// gitReadOnly: git subcommands (after global options) that only read.
func gitReadOnly(args []word) bool {
	if len(args) == 0 {
		return false
	}
	for _, w := range args {
		if !w.static {
			return false
		}
		s := w.s
		if strings.HasPrefix(s, "--output") || s == "-O" || strings.HasPrefix(s, "--open-files-in-pager") ||
			strings.HasPrefix(s, "--ext-diff") || s == "--exec" || strings.HasPrefix(s, "--upload-pack") {
			return false
		}
	}
	sub := args[0].s
	rest := args[1:]
	switch sub {
	case "status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog",
		"ls-tree", "cat-file", "grep", "rev-list", "merge-base", "show-ref", "name-rev", "version",
		"whatchanged", "count-objects", "check-ignore", "var":
		return true
	case "branch":
		for _, w := range rest {
			s := w.s
			switch s {
			case "-a", "--all", "-r", "--remotes", "-l", "--list", "-v", "-vv", "--verbose",
				"--show-current", "--no-color", "--color":
				continue
			}
			if strings.HasPrefix(s, "--contains") || strings.HasPrefix(s, "--merged") || strings.HasPrefix(s, "--no-merged") ||
				strings.HasPrefix(s, "--sort") || strings.HasPrefix(s, "--format") || strings.HasPrefix(s, "--points-at") {
				continue
			}
			return false
		}
		return true
	case "tag":
		for _, w := range rest {
			if w.s != "-l" && w.s != "--list" && !strings.HasPrefix(w.s, "--sort") && !strings.HasPrefix(w.s, "--contains") && w.s != "-n" {
				return false
			}
		}
		return true
	case "remote":
		return len(rest) == 0 || (len(rest) == 1 && (rest[0].s == "-v" || rest[0].s == "--verbose"))
	case "stash":
		return len(rest) > 0 && (rest[0].s == "list" || rest[0].s == "show")
	case "worktree":
		return len(rest) > 0 && rest[0].s == "list"
	case "config":
		for _, w := range rest {
			switch w.s {
			case "--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--show-scope",
				"--global", "--local", "--system", "--name-only", "--null", "-z":
			default:
				if strings.HasPrefix(w.s, "-") {
					return false
				}
			}
		}
		// only reads when asked to get or list
		for _, w := range rest {
			if w.s == "--get" || w.s == "--get-all" || w.s == "--get-regexp" || w.s == "--list" || w.s == "-l" {
				return true
			}
		}
		return false
	case "reflog":
		return len(rest) == 0 || rest[0].s == "show"
	}
	return false
}
