package policy

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Red team 4 classes (docs/policy.md, "Red team 4 classes"): the values of
// environment variables as commands, the hosts a command connects to
// through its URL operands and index options, git's writes outside the
// work tree, options before a subcommand, subcommand abbreviations, and
// programs that read their commands from standard input.

// probeAssignWords: NAME=VALUE words after env or sudo: each value is
// probed as probeEnvValues does.
func (a *analyzer) probeAssignWords(ws []word, ctx walkCtx) {
	for _, w := range ws {
		if !w.static || !isAssignWord(w.s) {
			continue
		}
		name, val, _ := strings.Cut(w.s, "=")
		if !envSafe(name) {
			a.probe([]word{staticWord("env"), staticWord(val)}, ctx)
		}
	}
}

// probeEnvValues: the value of a variable assigned before a command may be
// a command the program runs (RSYNC_RSH, RSYNC_CONNECT_PROG, VIMINIT,
// HGMERGE, GIT_SSH_COMMAND, and whatever variable the next program
// invents): each value is probed like an unknown program's argument, so a
// deny or ask rule or a breaker that meets its words asks.
func (a *analyzer) probeEnvValues(as []*syntax.Assign, ctx walkCtx) {
	for _, x := range as {
		if x == nil || x.Value == nil || x.Name == nil || envSafe(x.Name.Value) {
			continue
		}
		a.probe([]word{staticWord("env"), a.word(x.Value)}, ctx)
	}
}

// vcsURL strips a VCS prefix pip and npm take before a URL (git+https://,
// hg+ssh://): the rest is the URL connected to.
func vcsURL(s string) string {
	for _, p := range []string{"git+", "hg+", "svn+", "bzr+"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest
		}
	}
	return s
}

// hostOpt: the value of a hostOpts option is a URL fetched from (an index,
// a registry): its host meets the WebFetch domain rules; a value known
// only at run time asks while such rules exist. A value that is not a URL
// (a local directory for pip --find-links) connects nowhere.
func (a *analyzer) hostOpt(sc *subCmd, o declOpt) {
	if o.val == nil {
		return
	}
	if !o.val.static {
		sc.proxies = append(sc.proxies, "$")
		return
	}
	if v := vcsURL(strings.TrimSpace(o.val.s)); strings.Contains(v, "://") {
		sc.proxies = append(sc.proxies, v)
	}
}

// gitRemoteHost: a git repository operand that names a remote: a URL
// (scheme://, VCS-prefixed) or scp-like [user@]host:path (a host with a
// dot or a user, so that a refspec main:main is not one). ext:: runs a
// command (code).
func gitRemoteHost(s string) (url string, code, ok bool) {
	if strings.HasPrefix(s, "ext::") {
		return "", true, true
	}
	if v := vcsURL(s); strings.Contains(v, "://") {
		if strings.HasPrefix(v, "file://") {
			return "", false, false
		}
		return v, false, true
	}
	c := strings.IndexByte(s, ':')
	if c <= 0 || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "refs/") {
		return "", false, false
	}
	host := s[:c]
	if strings.ContainsRune(host, '/') || !strings.ContainsAny(host, ".@") {
		return "", false, false
	}
	return "ssh://" + host + "/", false, true
}

// urlOperands: the plain arguments of a declaration with urlArgs that name
// a remote are hosts it connects to (git clone URL, pip install URL, npm i
// URL); their hosts meet the WebFetch domain rules.
func (a *analyzer) urlOperands(d *progDecl, sc *subCmd, plain []word) {
	git := d.urlArgs == "git" || d.urlArgs == "git2"
	for i, w := range plain {
		if !w.static {
			if git {
				sc.proxies = append(sc.proxies, "$") // git clone "$URL"
			}
			continue
		}
		s := strings.TrimSpace(w.s)
		if git {
			// the repository is the first plain word (the second for git
			// remote add NAME URL); later ones are refspecs (v1.2:v1.2)
			// or directories, where only a scheme:// URL is one.
			repo := i == 0 && d.urlArgs == "git" || i == 1 && d.urlArgs == "git2"
			u, code, ok := gitRemoteHost(s)
			if !repo && !code && !strings.Contains(u, "://") || !repo && strings.HasPrefix(u, "ssh://") && !strings.Contains(s, "://") {
				continue
			}
			switch {
			case code:
				sc.readOnly = false
				a.setUncertain("git's ext:: transport runs a command: " + s)
				a.naiveSplit(strings.TrimPrefix(s, "ext::"))
			case ok:
				sc.proxies = append(sc.proxies, u)
			}
			continue
		}
		// a requirement "name @ URL ; marker" holds the URL as one token.
		try := func(t string) {
			if v := vcsURL(specURL(t)); strings.Contains(v, "://") && !strings.HasPrefix(v, "file://") {
				sc.proxies = append(sc.proxies, v)
			}
		}
		if strings.IndexByte(s, ' ') < 0 && strings.IndexByte(s, '\t') < 0 && strings.IndexByte(s, ';') < 0 {
			if s != "" {
				try(s) // one token, the common case: no iterator
			}
			continue
		}
		for t := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ';' }) {
			try(t)
		}
	}
}

// declPlainRT4: what a declaration's plain arguments name (URLs), its
// hook, and the code it reads from standard input.
func (a *analyzer) declPlainRT4(d *progDecl, sc *subCmd, base string, opts []declOpt, plain []word, ctx walkCtx) {
	if d.urlArgs != "" {
		a.urlOperands(d, sc, plain)
	}
	inner := ctx
	inner.gate = true
	if d.hook != nil {
		d.hook(a, sc, opts, plain, inner)
	}
	if !containsStr(d.stdinNames, base) && !hasDeclOpt(opts, d.stdinWith) {
		return
	}
	switch {
	case ctx.stdinSet && ctx.stdinStatic:
		sc.readOnly = false
		if d.escape == nil {
			a.shellCode(staticWord(ctx.stdin), base, inner)
			return
		}
		for _, line := range strings.Split(ctx.stdin, "\n") {
			a.declEscape(d, sc, "<stdin>", staticWord(line), inner) // commands, as an escapeOpts value
		}
	case ctx.stdinSet || ctx.inPipe || ctx.stdinFile:
		// A pipe, a here-doc the reader cannot see, or a file (< F):
		// commands the reader never reads.
		sc.readOnly = false
		a.setUncertain(base + " reads its commands from standard input, which the reader cannot see")
		if ctx.stdinSet {
			a.naiveSplit(ctx.stdin)
		}
	}
}

// placeTarget: val is a place the program writes (with everything under
// it) that must be inside the workspace: outside it, or unknown, the call
// is a circuit breaker (asks in every mode); inside it is an ordinary
// write. prefix: val is a path prefix (git checkout-index --prefix=DIR/
// writes DIR/<file>; --prefix=x writes x<file> beside it).
func (a *analyzer) placeTarget(d *progDecl, sc *subCmd, opt string, val *word, prefix bool) {
	what := strings.TrimSpace(d.name + " " + opt)
	if val == nil || !val.static || !val.pathOK || val.glob || val.brace {
		sc.readOnly = false
		if sc.breaker == "" {
			sc.breaker = what + " writes into a place known only at run time"
		}
		return
	}
	p := val.path
	if prefix && !strings.HasSuffix(p, "/") {
		p = path.Dir(p)
	}
	w := staticWordPath(p)
	ref := a.pathRef(w)
	ref.recursive = true
	sc.writes = append(sc.writes, ref)
	if !a.cwdKnown && !path.IsAbs(p) && !strings.HasPrefix(p, "~") {
		if sc.breaker == "" {
			sc.breaker = what + " writes into a place relative to an unknown directory"
		}
		return
	}
	if !a.placeInside(p) && sc.breaker == "" {
		sc.breaker = what + " writes outside the workspace (" + val.s + ")"
	}
}

// placeInside: p is inside the workspace lexically and after its links.
func (a *analyzer) placeInside(p string) bool {
	abs := canonPath(p, a.cwd, a.env.home)
	real, unsure := realPath(a.env.fs, p, a.cwd, a.env.home)
	inside := !unsure && a.env.inWorkspaceLexical(abs)
	if inside && real != abs && !a.env.inWorkspaceLexical(real) {
		inside = false
		for _, r := range a.env.realRootList() {
			if within(real, r) {
				inside = true
			}
		}
	}
	return inside
}

// expandSubs: with a subAbbrev list, each plain word that is not one of
// the names but an unambiguous prefix of exactly one is replaced by that
// name (what the program's own command parser does), for the breaker.
func (d *progDecl) expandSubs(ss []string) []string {
	if len(d.subAbbrev) == 0 {
		return ss
	}
	var out []string
	for i, x := range ss {
		if x == "" || strings.HasPrefix(x, "-") {
			continue
		}
		var full string
		if d.subSet != nil {
			if d.subSet[x] {
				continue
			}
			full = d.uniqueSubPrefixed(x)
		} else {
			if containsStr(d.subAbbrev, x) || containsStr(d.subKnown, x) {
				continue
			}
			full = uniquePrefixed(d.subAbbrev, x)
		}
		if full == "" {
			continue
		}
		if out == nil {
			out = append([]string(nil), ss...)
		}
		out[i] = full
	}
	if out == nil {
		return ss
	}
	return out
}

// npmCommands: npm's command names (npm 10/11, lib/utils/cmd-list.js),
// against which it resolves an abbreviation.
var npmCommands = []string{"access", "adduser", "audit", "bugs", "cache", "ci", "completion", "config", "dedupe", "deprecate",
	"diff", "dist-tag", "docs", "doctor", "edit", "exec", "explain", "explore", "find-dupes", "fund", "get", "help",
	"help-search", "init", "install", "install-ci-test", "install-test", "link", "ll", "login", "logout", "ls", "org",
	"outdated", "owner", "pack", "ping", "pkg", "prefix", "profile", "prune", "publish", "query", "rebuild", "repo",
	"restart", "root", "run", "run-script", "sbom", "search", "set", "shrinkwrap", "star", "stars", "start", "stop",
	"team", "test", "token", "undeprecate", "uninstall", "unpublish", "unstar", "update", "version", "view", "whoami"}

// npmAliases: npm's command aliases (npm add is install, npm ll is ls):
// known words, never taken for abbreviations of a longer command.
var npmAliases = []string{"add", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "up", "upgrade",
	"udpate", "it", "cit", "clean-install", "clean-install-test", "sit", "ln", "un", "unlink", "remove", "rm", "r", "rb", "x", "la",
	"list", "t", "tst", "v", "info", "show", "view", "s", "se", "find", "c", "conf", "author", "create", "innit", "issues", "home",
	"ddp", "hlep", "rum", "urn", "runt", "run-script", "verison", "why", "login", "add-user", "whoami", "dist-tags", "optimize"}

// gemCommands: RubyGems' commands (it takes any unambiguous prefix).
var gemCommands = []string{"build", "cert", "check", "cleanup", "contents", "dependency", "environment", "exec", "fetch",
	"generate_index", "help", "info", "install", "list", "lock", "mirror", "open", "outdated", "owner", "pristine", "push",
	"query", "rdoc", "rebuild", "search", "server", "signin", "signout", "sources", "specification", "stale", "uninstall",
	"unpack", "update", "which", "yank"}

// composerCommands: Composer's commands (Symfony Console takes any
// unambiguous prefix).
var composerCommands = []string{"about", "archive", "audit", "browse", "bump", "check-platform-reqs", "clear-cache", "config",
	"create-project", "depends", "diagnose", "dump-autoload", "exec", "fund", "global", "help", "init", "install", "licenses",
	"list", "outdated", "prohibits", "reinstall", "remove", "require", "run-script", "search", "self-update", "show",
	"status", "suggests", "update", "upgrade", "validate"}

// composerInstalls: composer's commands that install code (and aliases).
var composerInstalls = []string{"require", "install", "update", "upgrade", "reinstall", "create-project"}

// composerGlobal: composer [opts] global [opts] require|install|update|...
// installs code outside the workspace.
func composerGlobal(args []string) string {
	var plain []string
	skip := false
	for _, x := range args {
		switch {
		case skip:
			skip = false
		case x == "-d" || x == "--working-dir":
			skip = true
		case strings.HasPrefix(x, "-"):
		default:
			plain = append(plain, x)
		}
	}
	if len(plain) < 2 || plain[0] != "global" {
		return ""
	}
	sub := plain[1]
	if sub == "u" || sub == "i" || sub == "r" {
		return "composer global " + sub + " installs code outside the workspace (its programs run later)"
	}
	if containsStr(composerCommands, sub) && !containsStr(composerInstalls, sub) {
		return ""
	}
	// an abbreviation Symfony resolves to an install command (up is
	// update: upgrade is its alias).
	for _, c := range composerInstalls {
		if strings.HasPrefix(c, sub) {
			return "composer global " + sub + " installs code outside the workspace (its programs run later)"
		}
	}
	return ""
}

// uv pip's options: the index options are hosts it fetches from; -p /
// --python names the interpreter it installs into.
var (
	uvIndexOpts = []string{"-i", "--index-url", "--extra-index-url", "--default-index", "--index", "-f", "--find-links"}
	uvPipValued = append([]string{"-t", "--target", "--prefix", "-r", "--requirement", "-p", "--python", "-c", "--constraint"}, uvIndexOpts...)
)

// uvPipBreaker: uv pip install/sync into a system or user Python: --system,
// --user, or -p/--python naming an interpreter that is not a path inside
// the workspace (a version request finds a system Python; a path outside
// is one); a path inside (.venv/bin/python) is the project's.
func uvPipBreaker(what string) func([]string) string {
	return func(args []string) string {
		for i, x := range args {
			n, v, has := strings.Cut(x, "=")
			switch {
			case n == "--system" || n == "--user" || n == "--break-system-packages":
				return what + " writes into a system or user Python (it runs in every Python)"
			case n == "-p" || n == "--python" || strings.HasPrefix(x, "-p") && len(x) > 2 && !has:
				if !has {
					if n == "-p" || n == "--python" {
						if i+1 >= len(args) {
							return ""
						}
						v = args[i+1]
					} else {
						v = x[2:]
					}
				}
				if !uvProjectPython(v) {
					return what + " --python " + v + " installs into an interpreter outside the workspace (it runs in every use of it)"
				}
			}
		}
		return ""
	}
}

// uvProjectPython: v is a relative path into the project (not a version
// request, not absolute, not above it, not from the home).
func uvProjectPython(v string) bool {
	if !strings.Contains(v, "/") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.ContainsAny(v, "$`") {
		return false
	}
	c := path.Clean(v)
	return c != ".." && !strings.HasPrefix(c, "../")
}

// pkgExecSpec: the options of a package runner that take a value: its
// own and the valued options of its program's declaration (npm's,
// pnpm's), so that `npx --proxy H pkg` is not read as running H.
func pkgExecSpec(what string) optSpec {
	spec := optSpec{short: "pc", long: []string{"package", "call", "workspace", "prefix", "registry", "cache"}}
	if b := bareDecl(runnerProgram(what)); b != nil { // programs_rt3.go
		for _, v := range b.valued {
			if n, ok := strings.CutPrefix(v, "--"); ok {
				spec.long = append(spec.long, n)
			} else if len(v) == 2 && v != "-c" {
				spec.short += v[1:]
			}
		}
	}
	return spec
}

// subcommandAt: the index of base's subcommand in args, after the
// program's global options: its bare declaration's valued options (with
// their value) and flags, and any other long option (a flag); a short
// option it does not declare ends the search (bun -e is not a global
// option: it is bun's code). len(args) when there is none.
func subcommandAt(base string, args []word) int {
	b := bareDecl(base)
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static || w.s == "--" || !strings.HasPrefix(w.s, "-") || w.s == "-" {
			return i
		}
		name, _, eq := strings.Cut(w.s, "=")
		switch {
		case b != nil && containsStr(b.valued, name):
			if !eq {
				i++
			}
		case b != nil && containsStr(b.flags, name), strings.HasPrefix(w.s, "--"):
		case b != nil && len(w.s) > 2 && containsStr(b.valued, w.s[:2]):
			// -Cdir: a short valued option with its value attached
			// (npm -Cv explore x -- CMD; red team 16).
		default:
			return i
		}
	}
	return len(args)
}

// edEscape: ed's commands that run a shell command: `!CMD`, and `r !CMD`,
// `w !CMD`, `e !CMD` (everything after the first `!` of a line).
func edEscape(s string) (string, bool) {
	var code []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '!'); i >= 0 {
			code = append(code, line[i+1:])
		}
	}
	return strings.Join(code, "\n"), len(code) > 0
}

// m4Escape: m4's syscmd(CMD) and esyscmd(CMD) run CMD with the shell.
func m4Escape(s string) (string, bool) {
	var code []string
	for _, m := range []string{"syscmd("} { // esyscmd( too
		rest := s
		for {
			i := strings.Index(rest, m)
			if i < 0 {
				break
			}
			rest = rest[i+len(m):]
			depth, j := 1, 0
			for ; j < len(rest) && depth > 0; j++ {
				switch rest[j] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			end := j
			if depth == 0 {
				end = j - 1
			}
			code = append(code, strings.Trim(rest[:end], "`'[] "))
		}
	}
	return strings.Join(code, "\n"), len(code) > 0
}

// aptHook: apt-get -o KEY=VALUE: a proxy key (Acquire::http::Proxy,
// Acquire::https::Proxy::host) is a host it connects through; a key whose
// value apt runs (APT::Update::Pre-Invoke, DPkg::Post-Invoke,
// DPkg::Pre-Install-Pkgs, Acquire::http::Proxy-Auto-Detect) is code.
func aptHook(a *analyzer, sc *subCmd, opts []declOpt, _ []word, ctx walkCtx) {
	for _, o := range opts {
		if o.name != "-o" && o.name != "--option" || o.val == nil {
			continue
		}
		if !o.val.static {
			a.setUncertain("apt-get -o sets configuration known only at run time")
			continue
		}
		k, v, _ := strings.Cut(o.val.s, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		switch {
		case strings.Contains(k, "invoke") || strings.Contains(k, "install-pkgs") || strings.Contains(k, "auto-detect") || strings.HasSuffix(k, "::path"):
			sc.readOnly = false
			a.shellCode(staticWord(v), "apt-get -o "+k, ctx)
		case strings.HasSuffix(k, "::proxy") || strings.Contains(k, "::proxy::"):
			if !strings.EqualFold(v, "direct") && v != "" {
				sc.proxies = append(sc.proxies, v)
			}
		}
	}
}

// mvnHook: mvn -Dexec.executable=PROG -Dexec.args=ARGS (exec-maven-plugin's
// exec:exec) runs PROG ARGS.
func mvnHook(a *analyzer, sc *subCmd, opts []declOpt, _ []word, ctx walkCtx) {
	var exe, args string
	found, known := false, true
	for _, o := range opts {
		if o.name != "-D" || o.val == nil {
			continue
		}
		k, v, _ := strings.Cut(o.val.s, "=")
		switch k {
		case "exec.executable", "exec.args", "exec.commandlineArgs":
			found = true
			known = known && o.val.static
			if k == "exec.executable" {
				exe = v
			} else {
				args = v
			}
		}
	}
	if !found {
		return
	}
	sc.readOnly = false
	if !known {
		a.setUncertain("mvn runs a program known only at run time (exec.executable)")
		return
	}
	a.shellCode(staticWord(strings.TrimSpace(exe+" "+args)), "mvn exec", ctx)
}

// goEnvHook: go env -w NAME=VALUE persists the variable for every later go
// command: it is judged as the variable set before a go command is (the
// environment tiers, its value probed, a proxy host).
func goEnvHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	if !hasDeclOpt(opts, []string{"-w"}) {
		return
	}
	sc.readOnly = false
	for _, w := range plain {
		if !w.static {
			a.setUncertain("go env -w sets a variable known only at run time")
			continue
		}
		name, val, ok := strings.Cut(w.s, "=")
		if !ok {
			continue
		}
		if envDangerous(name) || shellVarDangerous(name) {
			a.setUncertain("go env -w sets " + name + ", which changes what every later go command runs or fetches")
		}
		if strings.EqualFold(name, "GOPROXY") || proxyVar(name) {
			sc.proxies = append(sc.proxies, proxyList(val)...)
		}
		a.probe([]word{staticWord("env"), staticWord(val)}, ctx)
	}
}

// proxyList: a proxy value that lists several (GOPROXY's
// "https://a,https://b|direct"): each host; direct and off connect nowhere.
func proxyList(v string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '|' }) {
		p = strings.TrimSpace(p)
		if p != "" && p != "direct" && p != "off" {
			out = append(out, p)
		}
	}
	return out
}

// autosshArgs: autossh [-M PORT] [-f] SSH-ARGS: the rest is ssh's.
func autosshArgs(args []word) []word {
	for len(args) > 0 && args[0].static {
		switch s := args[0].s; {
		case s == "-M" && len(args) > 1:
			args = args[2:]
		case strings.HasPrefix(s, "-M") || s == "-f" || s == "-V":
			args = args[1:]
		default:
			return args
		}
	}
	return args
}

func init() {
	declare(programsRt4Decls[:]...)
}

// uniquePrefixed is the one word of list that starts with x, "" when none
// or more than one does.
func uniquePrefixed(list []string, x string) string {
	full := ""
	for _, c := range list {
		if strings.HasPrefix(c, x) {
			if full != "" {
				return ""
			}
			full = c
		}
	}
	return full
}

// uniqueSubPrefixed is uniquePrefixed(d.subAbbrev, x) over the sorted
// words: those starting with x stand together from x's place on.
func (d *progDecl) uniqueSubPrefixed(x string) string {
	i, _ := slices.BinarySearch(d.subSorted, x)
	if i >= len(d.subSorted) || !strings.HasPrefix(d.subSorted[i], x) {
		return ""
	}
	if i+1 < len(d.subSorted) && strings.HasPrefix(d.subSorted[i+1], x) {
		return "" // two (a word listed twice counts twice, as in the list)
	}
	return d.subSorted[i]
}

// indexSubs builds subSorted and subSet from subAbbrev and subKnown.
func (d *progDecl) indexSubs() {
	if len(d.subAbbrev) == 0 {
		return
	}
	d.subSorted = slices.Sorted(slices.Values(d.subAbbrev))
	d.subSet = make(map[string]bool, len(d.subAbbrev)+len(d.subKnown))
	for _, w := range d.subAbbrev {
		d.subSet[w] = true
	}
	for _, w := range d.subKnown {
		d.subSet[w] = true
	}
}

// programsRt4Decls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsRt4Decls = [...]*progDecl{
	// git subcommands that write outside the work tree or connect.
	&progDecl{name: "git archive", valued: []string{"-o", "--output", "--remote", "--exec", "--prefix", "--format", "--add-file", "--add-virtual-file", "--mtime"},
		programs: []string{"--exec"}, placeOpts: []string{"-o", "--output"}, hostOpts: []string{"--remote"},
		match:   []string{"git archive --remote=. --exec='rm -rf x' HEAD", "git archive -o /home/u/.bashrc HEAD"},
		noMatch: []string{"git archive -o out.tar HEAD", "git archive --format=zip HEAD"}},
	&progDecl{name: "git format-patch", valued: []string{"-o", "--output-directory", "--output", "-v", "--reroll-count", "--subject-prefix",
		"--signature-file", "--suffix", "--start-number", "--to", "--cc", "--from", "--in-reply-to", "--base"},
		placeOpts: []string{"-o", "--output-directory", "--output"},
		match:     []string{"git format-patch -o /home/u/.config/autostart HEAD~1"}, noMatch: []string{"git format-patch -o patches HEAD~1"}},
	&progDecl{name: "git submodule add", valued: []string{"-b", "--branch", "--name", "--reference", "--depth"}, urlArgs: "git",
		match: []string{"git submodule add 'ext::sh -c rm% -rf% x' sub"}, noMatch: []string{"git submodule add https://example.com/x vendor/x"}},
	&progDecl{name: "git remote add", valued: []string{"-t", "-m"}, urlArgs: "git2",
		match: []string{"git remote add o 'ext::sh -c rm% -rf% x'"}, noMatch: []string{"git remote add origin https://example.com/x"}},
	&progDecl{name: "git remote set-url", urlArgs: "git2", noMatch: []string{"git remote set-url origin https://example.com/x"}},
	// PATH written into the shell's startup files.
	&progDecl{name: "pipx ensurepath", breaker: always("pipx ensurepath writes PATH into the shell's startup files (it changes what runs later)"),
		match: []string{"pipx ensurepath"}},
	&progDecl{name: "uv tool update-shell", breaker: always("uv tool update-shell writes PATH into the shell's startup files (it changes what runs later)"),
		match: []string{"uv tool update-shell"}},
	&progDecl{name: "uv python update-shell", breaker: always("uv python update-shell writes PATH into the shell's startup files (it changes what runs later)"),
		match: []string{"uv python update-shell"}},
	&progDecl{name: "uv python install", breaker: flagBreaker("uv python install --default puts python on the PATH in ~/.local/bin (it runs later, everywhere)", "--default"),
		match: []string{"uv python install --default 3.12"}, noMatch: []string{"uv python install 3.12"}},
	&progDecl{name: "uv pip sync", valued: uvPipValued, hostOpts: uvIndexOpts, installsTo: []string{"-t", "--target", "--prefix"}, breaker: uvPipBreaker("uv pip sync"),
		match: []string{"uv pip sync --system requirements.txt", "uv pip sync -p /usr/bin/python3 requirements.txt"}, noMatch: []string{"uv pip sync requirements.txt"}},
	&progDecl{name: "ensurepip", breaker: flagBreaker("python -m ensurepip --user installs pip into the user's site and ~/.local/bin (it runs later)", "--user", "--root", "--altinstall", "--default-pip"),
		match: []string{"python3 -m ensurepip --user"}, noMatch: []string{"python3 -m ensurepip --help"}},
	// proxies and code in apt's configuration options.
	&progDecl{name: "apt-get", aliases: []string{"apt", "apt-cache"}, valued: []string{"-o", "--option", "-c", "--config-file", "-t", "--target-release"},
		uncertainWith: []string{"-c", "--config-file"}, hook: aptHook,
		forms: []string{"apt-get -o 'APT::Update::Pre-Invoke::=%s' update"},
		match: []string{"apt-get -o 'APT::Update::Pre-Invoke::=rm -rf x' update"}, noMatch: []string{"apt-get -o Dpkg::Options::=--force-confold install x", "apt-get update"}},
	// programs that read their commands from standard input.
	&progDecl{name: "ed", aliases: []string{"red"}, valued: []string{"-p", "--prompt"}, stdinNames: []string{"ed", "red"}, escape: edEscape,
		forms: []string{"ed -s f <<< '!%s'", "ed -s f <<< 'r !%s'"},
		match: []string{"ed -s f <<< '!rm -rf x'", "echo '!rm -rf x' | ed"}, noMatch: []string{"ed -s f <<< '1p'"}},
	&progDecl{name: "m4", valued: []string{"-D", "--define", "-U", "--undefine", "-I", "--include", "-F", "--freeze-state", "-R", "--reload-state"},
		stdinNames: []string{"m4"}, escape: m4Escape, forms: []string{"m4 <<< 'syscmd(%s)'"},
		match: []string{"m4 <<< 'syscmd(rm -rf x)'", "echo 'esyscmd(rm -rf x)' | m4"}, noMatch: []string{"m4 <<< 'define(x, 1)x'"}},
	// runners that hide a command.
	&progDecl{name: "npm explore", run: runAfterDashDash, skip: 1, forms: []string{"npm explore x -- %s"},
		match: []string{"npm explore x -- rm -rf x"}},
	&progDecl{name: "bun exec", codeArgs: true, forms: []string{"bun exec '%s'"}, match: []string{"bun exec 'rm -rf x'"}},
	&progDecl{name: "mvn", aliases: []string{"mvnw", "./mvnw"}, valued: []string{"-D", "-f", "--file", "-s", "--settings", "-P", "-pl", "-rf"}, hook: mvnHook,
		forms: []string{"mvn exec:exec -Dexec.executable=sh '-Dexec.args=-c \"%s\"'"},
		match: []string{"mvn exec:exec -Dexec.executable=rm -Dexec.args='-rf x'"}, noMatch: []string{"mvn -DskipTests package"}},
	&progDecl{name: "go env", hook: goEnvHook, match: []string{"go env -w GOFLAGS=-toolexec=rm"}, noMatch: []string{"go env GOPATH", "go env -w CGO_ENABLED=0"}},
}
