package policy

import (
	"path"
	"sort"
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
	// ProtectedPaths are more files and directories the policy itself
	// lives in (the user config file and directory, --config): writes to
	// them ask in every mode, like the protected files every Env has
	// (docs/policy.md, "Protected files").
	ProtectedPaths []string
}

// envx is Env cleaned for one evaluation.
type envx struct {
	// cwd is the session's working directory: a workspace root, and the
	// base of the rules' ./ anchor. It is never the call's own directory.
	cwd, root, home string
	// callCwd is where the call's relative paths resolve and its command
	// starts: the call's own directory (Call.Cwd) when it names one, else
	// cwd. callCwdKnown is false when that directory cannot be known (a
	// variable, ~user, a symlink loop on the way): its relative paths are
	// then unknown.
	callCwd      string
	callCwdKnown bool
	extra        []string
	fs           FS
	realRoots    []string // symlink-resolved workspace roots, computed on demand
	realDone     bool
	protected    []string // Env.ProtectedPaths, clean and absolute
	probes       []probe  // protected locations, computed on demand
	probePaths   []string // their paths alone (probeList sets it)
	probeKey     string   // what probes depend on (probeList sets it)
	realProbes   []probe  // where those that are symlinks lead, computed on demand
	// infos holds the pathInfos infoRef computed, a block at a time.
	infos []pathInfo
}

func cleanAbs(p string) string {
	if p == "" || !path.IsAbs(p) {
		return ""
	}
	if isCleanAbs(p) {
		return p // path.Clean(p) == p, without Clean's scan (at every call)
	}
	return path.Clean(p)
}

// isCleanAbs: p is absolute and path.Clean(p) == p (no empty, . or ..
// element, no trailing slash): most paths are, and the scan is cheaper than
// Clean's (TestIsCleanAbs).
func isCleanAbs(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	start := 1 // the element being read starts here
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch p[start:i] {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}

func newEnvx(env Env) envx {
	e := envx{cwd: cleanAbs(env.Cwd), root: cleanAbs(env.ProjectRoot), home: cleanAbs(env.Home), fs: env.FS}
	if e.cwd == "" {
		e.cwd = e.root
	}
	if e.root == "" {
		e.root = e.cwd
	}
	e.callCwd, e.callCwdKnown = e.cwd, true
	e.extra = env.AdditionalDirectories
	for _, p := range env.ProtectedPaths {
		if !path.IsAbs(p) && !strings.HasPrefix(p, "~/") {
			continue // a relative protected path would move with the cwd
		}
		if c := canonPath(p, e.cwd, e.home); c != "" && c != "/" {
			e.protected = append(e.protected, c)
		}
	}
	return e
}

// newEnvxFor is newEnvx for call: the call's own directory (Call.Cwd:
// codex's {command, cwd}, a tool's workdir, terminal/create's cwd) is where
// its relative paths resolve and its command starts, as if the command were
// `cd <cwd> && ...` (red team 16). It is never a workspace root: a cwd
// outside the workspace makes the call's relative paths outside-workspace
// paths. The directory is the process's: a `..` in it is taken after the
// links before it (the kernel's chdir); a symlink loop, a variable or
// ~user leaves it unknown.
func newEnvxFor(c Call, env Env) envx {
	e := newEnvx(env)
	if c.Cwd == "" {
		return e
	}
	if strings.ContainsAny(c.Cwd, "$`") || (strings.HasPrefix(c.Cwd, "~") && c.Cwd != "~" && !strings.HasPrefix(c.Cwd, "~/")) {
		// a variable or another user's home: what the tool makes of it is
		// a guess (a doubt asks).
		e.callCwd, e.callCwdKnown = "", false
		return e
	}
	raw := absPath(c.Cwd, e.cwd, e.home)
	e.callCwd = canonPath(raw, "/", "")
	if e.fs != nil && hasDotDot(raw) {
		real, unsure := realPathAbs(e.fs, raw)
		if unsure {
			e.callCwd, e.callCwdKnown = "", false
			return e
		}
		e.callCwd = real
	}
	return e
}

// hasDotDot: the path has a ".." element.
func hasDotDot(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == ".." {
			return true
		}
	}
	return false
}

// callRef is the reference to a path the call names (a Read or Edit path,
// a path member of another tool): relative to the call's directory.
func (e *envx) callRef(p string, recursive bool) pathRef {
	ref := pathRef{raw: p, cwd: e.callCwd, recursive: recursive}
	if !e.callCwdKnown && !path.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
		ref.unknown, ref.vardep = true, true
	}
	return ref
}

// inWorkspace: p (absolute, clean) is under the session's Cwd, ProjectRoot
// or an additional directory (never under the call's own directory).
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
	if (pi.unknown && !pi.under) || pi.unsure || !e.inWorkspaceLexical(pi.abs) {
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
	return systemDirName(abs)
}

// systemDirs are the top directories of Unix and macOS systems: a
// recursive delete, move or chmod of one, or of a directory right inside
// one (/usr/bin, /etc/ssh, /home/other), breaks the machine or another
// user's files.
var systemDirs = map[string]bool{
	"bin": true, "boot": true, "dev": true, "etc": true, "home": true, "lib": true, "lib32": true, "lib64": true,
	"libx32": true, "media": true, "mnt": true, "opt": true, "proc": true, "root": true, "run": true, "sbin": true,
	"snap": true, "srv": true, "sys": true, "usr": true, "var": true, "nix": true, "gnu": true,
	"System": true, "Library": true, "Applications": true, "Users": true, "Volumes": true, "private": true,
	"cores": true, "Network": true,
}

// systemDirList is systemDirs in a fixed order (verdicts name the first).
var systemDirList = func() []string {
	var out []string
	for d := range systemDirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}()

// tempDirs are children of system directories that are scratch space.
var tempDirs = map[string]bool{"/var/tmp": true, "/var/folders": true, "/private/tmp": true, "/private/var/tmp": true,
	"/private/var/folders": true, "/dev/shm": true, "/run/user": true}

// systemDirName names abs if it is a system directory or right inside one.
func systemDirName(abs string) string {
	segs := splitAbs(abs)
	if len(segs) == 0 || len(segs) > 3 || !systemDirs[segs[0]] {
		return ""
	}
	for t := range tempDirs {
		if within(abs, t) {
			return ""
		}
	}
	switch len(segs) {
	case 1:
		return "the system directory " + abs
	case 2:
		return "the system directory " + abs
	}
	// /private/var/x (macOS's /var), /usr/local/x
	if segs[0] == "private" || (segs[0] == "usr" && segs[1] == "local") {
		return "the system directory " + abs
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
	// unsure: a symlink loop (or too long a chain) leaves real unknown.
	unsure bool
	// pattern is the glob or brace word the path came from ("" if none).
	pattern string
	cwd     string // the directory a relative raw or pattern is relative to; "" unknown
}

// infoRef is info, computed once per ref.
func (e *envx) infoRef(ref *pathRef) pathInfo {
	if ref.info == nil {
		if len(e.infos) == cap(e.infos) {
			// a new block (never a grown copy: earlier blocks stay where
			// the refs point); an envx is not copied once in use.
			e.infos = make([]pathInfo, 0, 4+2*cap(e.infos))
		}
		e.infos = append(e.infos, e.info(*ref))
		ref.info = &e.infos[len(e.infos)-1]
	}
	return *ref.info
}

func (e *envx) info(ref pathRef) pathInfo {
	pi := pathInfo{raw: ref.raw, unknown: ref.unknown, recursive: ref.recursive, under: ref.under, pattern: ref.pattern}
	pi.cwd = ref.cwd // "" when the shell's directory is unknown (globBreaker asks)
	cwd := ref.cwd
	if cwd == "" {
		cwd = e.cwd
	}
	if ref.unknown && !ref.under {
		return pi
	}
	raw := absPath(ref.raw, cwd, e.home) // once for both (canonPath, realPath)
	if strings.Contains(raw, "proc/") || strings.Contains(raw, "/fd") {
		var procUnsure bool
		raw, procUnsure = procPath(raw, cwd) // paths_proc.go
		if procUnsure {
			pi.unsure = true
			pi.abs = path.Clean(raw)
			pi.real = pi.abs
			return pi
		}
	}
	if pi.abs = raw; !isCleanAbs(raw) {
		pi.abs = path.Clean(raw)
	}
	if e.fs == nil {
		pi.real = pi.abs // realPath without a file system
	} else {
		pi.real, pi.unsure = realPathAbs(e.fs, raw)
	}
	return pi
}

// rcFiles are shell startup files: writing them runs code at every login.
var rcFiles = []string{".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".bash_login",
	".zshenv", ".zlogin", ".bash_logout", ".config/fish/config.fish", ".kshrc", ".cshrc", ".tcshrc"}

// writeBreaker names the circuit breaker a write to pi trips, if any: a
// protected file (or a glob that could match one), a path known only at run
// time (it could be one), .git, a device, a recursive operation on a
// protected directory.
func (e *envx) writeBreaker(pi pathInfo) string {
	if pi.pattern != "" {
		if b := e.globBreaker(pi.pattern, pi.cwd, pi.recursive); b != "" {
			return b
		}
		if !pi.under {
			return ""
		}
	}
	if pi.unknown && !pi.under {
		return "write to " + pi.raw + ", a path known only at run time, which could be a protected file"
	}
	for i, p := range [2]string{pi.abs, pi.real} {
		if i == 1 && p == pi.abs {
			break
		}
		if b := e.writeBreakerAt(p, pi.recursive, pi.pattern == ""); b != "" {
			return b
		}
	}
	// a protected location that is itself a symlink (.vscode -> /tmp/v):
	// writing where it leads writes it.
	if pi.pattern == "" {
		for _, rp := range e.realProbeList() {
			if within(pi.real, rp.path) || within(pi.abs, rp.path) || pi.recursive && within(rp.path, pi.real) {
				return rp.name
			}
		}
	}
	return ""
}

// realProbeList: the protected locations whose real path differs from
// their own (they are, or lie under, a symlink), at their real path. Any of
// them may have become a link since the last call, so each is resolved
// for every decision: by the Env's FS, or, when it is a PlaceResolver, by
// what it keeps valid between decisions (docs/policy.md, "Protected places
// that are links").
func (e *envx) realProbeList() []probe {
	if e.fs == nil {
		return nil
	}
	if e.realProbes == nil {
		probes := e.probeList()
		var known []string
		if pr, ok := e.fs.(PlaceResolver); ok {
			known = pr.RealPlaces(e.probeKey, e.probePaths)
			if len(known) != len(probes) {
				known = nil
			}
		}
		out := []probe{}
		for i, pr := range probes {
			r := ""
			if known != nil {
				r = known[i]
			}
			if r == "" {
				r = resolveReal(e.fs, pr.path)
			}
			if r != pr.path {
				n := strings.TrimPrefix(strings.TrimPrefix(pr.name, "write to "), "write ")
				out = append(out, probe{path: r, name: "write to " + r + ", where " + n + " leads (a symlink)"})
			}
		}
		e.realProbes = out
	}
	return e.realProbes
}

// PlaceResolver is an FS that can tell where the protected places lead
// without resolving each of them again: the bridge's keeps each place's
// resolution for as long as the kernel reports no change to any directory
// entry the resolution read (bridge/placewatch.go).
type PlaceResolver interface {
	// RealPlaces returns, for each of places (clean, absolute), what
	// ResolveReal would return for it now, or "" where it cannot say (the
	// engine then resolves that place through the FS). key names the list:
	// the same key comes with the same places. The result is only read.
	RealPlaces(key string, places []string) []string
}

// ResolveReal is the engine's resolution of a clean absolute path: every
// symlink resolved; for a path that does not exist yet, its longest
// existing parent resolved and the rest appended; a dangling link leads to
// where its target would be created. With no fs it returns abs.
func ResolveReal(fs FS, abs string) string { return resolveReal(fs, abs) }

// writeBreakerAt checks one path (lexical or real). probes: a recursive
// operation is also checked for the protected locations inside p.
func (e *envx) writeBreakerAt(p string, recursive, probes bool) string {
	lp := strings.ToLower(p) // case-insensitive file systems: .GIT is .git
	if lp == "/.git" || strings.Contains(lp, "/.git/") || strings.HasSuffix(lp, "/.git") {
		return "write inside a .git directory (" + p + ")"
	}
	lh := strings.ToLower(e.home)
	if lh != "" && within(lp, lh) && lp != lh {
		rel := lp[len(lh)+1:]
		if lh == "/" {
			rel = lp[1:]
		}
		for _, rc := range rcFiles {
			if rel == rc {
				return "write to the shell startup file ~/" + rc
			}
		}
	}
	if lh != "" && within(lp, lh) && lp != lh {
		if b := persistPlace(lp, strings.TrimPrefix(lp[len(lh):], "/")); b != "" {
			return b
		}
	} else if b := persistPlace(lp, ""); b != "" {
		return b
	}
	if b := e.protectedFile(p); b != "" {
		return b
	}
	if strings.HasPrefix(p, "/dev/") && !isHarmlessDevice(p) {
		return "write to the device " + p
	}
	if recursive {
		if n := e.protectedName(p); n != "" {
			return "recursive write or delete of " + n
		}
		if probes {
			if n := e.probeUnder(p); n != "" {
				return "recursive operation on a directory holding a protected file: " + n
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
