package policy

import (
	"path"
	"strings"
)

// Programs that run code handed to them (docs/policy.md, "What the static
// reading holds", "Wrappers in all their flag forms"): what is shell code
// is read as shell code, so its commands meet rules; what is another
// language's code is opaque: the call is uncertain, and the naive pieces of
// the code (cut at every operator) still meet deny rules.

// interpreters maps a program to its options that take inline code, its
// options that take a separate value, and its options that only print
// information (a call with one of them runs no program).
type interpSpec struct {
	code  []string // -c, -e, --eval ...
	value string   // short options taking a separate value
	long  []string // long options taking a separate value
	info  []string // -V, --version, ...
	// module: options that name a module or file to run instead of a script.
	module []string
}

var interpreters = map[string]interpSpec{
	"python": {code: []string{"-c"}, value: "cmWXQ", module: []string{"-m"}, info: []string{"-V", "--version", "-h", "--help", "-VV"}},
	"node": {code: []string{"-e", "--eval", "-p", "--print"}, value: "r", long: []string{"require", "import", "loader",
		"experimental-loader", "conditions", "title", "input-type"}, info: []string{"-v", "--version", "-h", "--help"}},
	"deno":      {code: []string{"eval"}, info: []string{"-V", "--version", "-h", "--help"}},
	"bun":       {code: []string{"-e", "--eval", "-p", "--print"}, info: []string{"-v", "--version", "-h", "--help"}},
	"perl":      {code: []string{"-e", "-E"}, value: "I", info: []string{"-v", "--version", "-h", "-V"}},
	"ruby":      {code: []string{"-e"}, value: "IrCEFK", info: []string{"-v", "--version", "-h", "--help"}},
	"php":       {code: []string{"-r", "-R", "-B", "-E", "-F"}, value: "cdz", info: []string{"-v", "--version", "-h", "-i", "-m"}},
	"lua":       {code: []string{"-e"}, value: "l", info: []string{"-v"}},
	"osascript": {code: []string{"-e"}, value: "l", info: []string{}},
	"Rscript":   {code: []string{"-e"}, info: []string{"--version"}},
	"julia":     {code: []string{"-e", "--eval", "-E", "--print"}, info: []string{"-v", "--version", "-h"}},
	"pwsh":      {code: []string{"-c", "-command", "-Command", "-EncodedCommand", "-e"}, info: []string{"-v", "-Version"}},
	"tclsh":     {info: []string{}},
	"groovy":    {code: []string{"-e"}, info: []string{"-v", "--version"}},
	// R's system(), expect's spawn/exec and dc's ! run programs: without a
	// script they run what standard input holds.
	"R":      {code: []string{"-e"}, value: "fg", info: []string{"--version", "-h", "--help"}},
	"expect": {code: []string{"-c"}, value: "f", info: []string{"-v"}},
	"dc":     {code: []string{"-e", "--expression"}, value: "f", long: []string{"file"}, info: []string{"-V", "--version", "-h", "--help"}},
}

// interpName returns the interpreters key for a program name (python3.12 is
// python, nodejs is node).
func interpName(base string) string {
	switch {
	case strings.HasPrefix(base, "python"), strings.HasPrefix(base, "pypy"):
		return "python"
	case base == "nodejs":
		return "node"
	case strings.HasPrefix(base, "perl") && (base == "perl" || isDigits(strings.ReplaceAll(base[4:], ".", ""))):
		return "perl"
	case strings.HasPrefix(base, "ruby") && (base == "ruby" || isDigits(strings.ReplaceAll(base[4:], ".", ""))):
		return "ruby"
	case strings.HasPrefix(base, "php") && (base == "php" || isDigits(strings.ReplaceAll(base[3:], ".", ""))):
		return "php"
	case base == "luajit" || strings.HasPrefix(base, "lua5") || base == "lua":
		return "lua"
	case base == "powershell":
		return "pwsh"
	case base == "wish":
		return "tclsh"
	}
	if _, ok := interpreters[base]; ok {
		return base
	}
	return ""
}

// stdinPaths name standard input as a file.
var stdinPaths = map[string]bool{"-": true, "/dev/stdin": true, "/dev/fd/0": true, "/proc/self/fd/0": true}

// runsCode handles the programs that run code given on their command line
// or on their standard input. It returns true when it recorded the call.
// interp is interpName(base) (remembered with the name's facts).
func (a *analyzer) runsCode(base, interp string, ws []word, text string, alts []string, ctx walkCtx) bool {
	args := ws[1:]
	if name := interp; name != "" {
		return a.interpreter(name, base, args, text, alts, ctx)
	}
	switch base {
	case "awk", "gawk", "mawk", "nawk", "busybox-awk", "sed", "gsed":
		// Their programs are read where they are classified
		// (shell_scripts.go): what they write, read and run.
		return false
	case "make", "gmake", "bmake":
		for _, w := range args {
			s := w.s
			switch {
			case !w.static:
			case s == "-E" || strings.HasPrefix(s, "--eval") || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsRune(s, 'E'):
				a.setUncertain("make --eval runs makefile code given on the command line")
			case isAssignWord(s):
				if n := s[:strings.IndexByte(s, '=')]; n == "SHELL" || envDangerous(n) {
					a.setUncertain("make " + n + "=... changes what make runs")
				}
			case strings.HasPrefix(s, ".SHELLFLAGS="):
				a.setUncertain("make .SHELLFLAGS=... changes what make runs")
			}
		}
		return false
	case "tar", "gtar", "bsdtar":
		for i, w := range args {
			s := w.s
			if !w.static {
				continue
			}
			for _, o := range []string{"--to-command", "--checkpoint-action", "--use-compress-program", "--info-script",
				"--new-volume-script", "--rsh-command", "--rmt-command", "--compress-program"} {
				if strings.HasPrefix(s, o) {
					a.setUncertain("tar " + o + " runs a program given on the command line")
				}
			}
			short := len(s) > 1 && s[0] == '-' && s[1] != '-' || i == 0 && !strings.HasPrefix(s, "-")
			if short && (strings.ContainsRune(s, 'I') || strings.ContainsRune(s, 'F')) {
				a.setUncertain("tar -I/-F runs a program given on the command line")
			}
		}
		return false
	case "rsync":
		for i := 0; i < len(args); i++ {
			s := args[i].s
			if !args[i].static {
				continue
			}
			var val word
			switch {
			case strings.HasPrefix(s, "--rsh=") || strings.HasPrefix(s, "--rsync-path="):
				val = staticWord(s[strings.IndexByte(s, '=')+1:])
			case s == "--rsh" || s == "--rsync-path":
				if i+1 < len(args) {
					val = args[i+1]
					i++
				}
			case len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.IndexByte(s, 'e') > 0:
				if j := strings.IndexByte(s, 'e'); j+1 < len(s) {
					val = staticWord(s[j+1:])
				} else if i+1 < len(args) {
					val = args[i+1]
					i++
				}
			default:
				continue
			}
			a.shellCode(val, "rsync -e", ctx)
		}
		return false
	case "ssh", "scp", "sftp", "slogin":
		return a.sshCmd(base, args, text, alts, ctx)
	case "autossh":
		// autossh passes its arguments to ssh (programs_rt4.go).
		return a.sshCmd("ssh", autosshArgs(args), text, alts, ctx)
	case "su", "runuser", "script":
		opts, _, ok := parseOpts(args, optSpec{short: "cCgGsuwlfIOBEoTt", long: []string{"command", "session-command",
			"group", "supp-group", "shell", "user", "whitelist-environment", "log-out", "log-in", "log-io", "log-timing", "echo"}})
		code, hasCode := findOpt(opts, "-c", "--command", "-C", "--session-command")
		if !ok || !hasCode {
			return false
		}
		a.addSub(subCmd{text: text, alts: alts, kind: skNeedRule}, ctx)
		inner := ctx
		inner.gate = true
		a.shellCode(code, base+" -c", inner)
		return true
	case "npx", "bunx", "pnpx":
		return a.pkgExec(base, args, text, alts, ctx)
	case "npm", "pnpm", "yarn", "bun":
		// the program's global options may stand before the subcommand
		// (pnpm -r exec, pnpm --filter x exec): they are the runner's.
		at := subcommandAt(base, args) // programs_rt4.go
		if at < len(args) && args[at].static {
			switch args[at].s {
			case "exec", "x", "dlx":
				if base == "bun" && args[at].s != "x" {
					return false
				}
				return a.pkgExec(base+" "+args[at].s, append(args[:at:at], args[at+1:]...), text, alts, ctx)
			}
		}
		// pnpm -c exec 'cmd': shell mode.
		if base == "pnpm" {
			for i, w := range args {
				if w.static && (w.s == "-c" || w.s == "--shell-mode") && i+1 < len(args) && args[i+1].s == "exec" {
					return a.pkgExec("pnpm exec", append([]word{staticWord("-c")}, args[i+2:]...), text, alts, ctx)
				}
			}
		}
		return false
	case "hash":
		for _, w := range args {
			if !w.static || strings.HasPrefix(w.s, "-") && strings.ContainsRune(w.s, 'p') {
				a.setUncertain("hash -p makes a command name run another program")
			}
		}
		return false
	case "alias":
		for _, w := range args {
			if !w.static || strings.Contains(w.s, "=") {
				a.setUncertain("an alias changes what a command name runs (where aliases are expanded)")
			}
		}
		return false
	case "enable":
		for _, w := range args {
			if !w.static || strings.HasPrefix(w.s, "-") && strings.ContainsRune(w.s, 'f') {
				a.setUncertain("enable -f loads a builtin from a shared library")
			}
		}
		return false
	case "source", ".":
		if len(args) == 0 || !args[0].static || !args[0].pathOK || stdinPaths[args[0].s] {
			a.setUncertain(base + " runs shell code known only at run time")
		}
		return false
	}
	return false
}

// shellCode reads val as a shell command line (unknown: uncertain).
func (a *analyzer) shellCode(val word, what string, ctx walkCtx) {
	if !val.static {
		a.setUncertain(what + " runs a command known only at run time")
		return
	}
	if strings.TrimSpace(val.s) == "" || ctx.depth >= maxDepth {
		return
	}
	cwd, known := a.cwd, a.cwdKnown
	ctx.depth++
	a.parseAndVisit(val.s, ctx)
	a.cwd, a.cwdKnown = cwd, known
}

// interpreter: python -c CODE, node -e CODE, perl -e CODE, ... are opaque;
// so is a program read from standard input. A script file is a plain
// command (an allow rule decides).
func (a *analyzer) interpreter(name, base string, args []word, text string, alts []string, ctx walkCtx) bool {
	spec := interpreters[name]
	var code []word
	reason := ""
	script := false
	info := false
	i := 0
	for i < len(args) {
		w := args[i]
		if !w.static {
			reason = "`" + base + "` takes an option or program known only at run time"
			break
		}
		s := w.s
		if s == "--" {
			i++
			script = i < len(args)
			break
		}
		if name == "deno" && s == "eval" {
			code = append(code, args[i+1:]...)
			break
		}
		if containsStr(spec.info, s) {
			info = true
			i++
			continue
		}
		if len(s) < 2 || s[0] != '-' {
			script = !stdinPaths[s]
			break
		}
		i++
		if name == "python" && len(s) > 2 && s[1] != '-' && s[1] != 'm' {
			// -Em, -sBm pkg, -Emtimeit: flags grouped before -m.
			if j := strings.IndexByte(s, 'm'); j > 0 && !strings.ContainsAny(s[1:j], spec.value) {
				s = "-" + s[j:]
			}
		}
		if containsStr(spec.module, s) || name == "python" && strings.HasPrefix(s, "-m") {
			script = true
			// python -m pip install --user x runs what `pip install
			// --user x` runs: the module is read as that program too, so
			// its declaration, deny rules and breakers apply.
			var mod []word
			if len(s) > 2 && name == "python" {
				mod = append([]word{staticWord(s[2:])}, args[i:]...)
			} else if i < len(args) && args[i].static {
				mod = args[i:]
			}
			if name == "python" && len(mod) > 1 && mod[0].static && pythonCodeModules[mod[0].s] {
				// python -m timeit STMT: the arguments are python code.
				code = append(code, mod[1:]...)
			}
			if len(mod) > 0 && ctx.depth < maxDepth {
				inner := ctx
				inner.depth++
				inner.gate = true // deny and ask rules and breakers; python's own allow rule covers it
				a.command(mod, inner)
			}
			break
		}
		matched := false
		for _, c := range spec.code {
			if s == c {
				if i < len(args) {
					code = append(code, args[i])
					i++
				}
				matched = true
				break
			}
			if strings.HasPrefix(c, "--") && strings.HasPrefix(s, c+"=") {
				code = append(code, staticWord(s[len(c)+1:]))
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if strings.HasPrefix(s, "--") {
			if n, v, eq := strings.Cut(s[2:], "="); containsStr(spec.long, n) {
				if !eq && i < len(args) {
					v = args[i].s
					i++
				}
				if body, ok := dataURLCode(v); ok { // --import data:...: code (programs_codeargs.go)
					code = append(code, staticWord(body))
				}
			}
			continue
		}
		// a cluster: -pe CODE, -Bc CODE, -lne CODE, -ecode.
		for j := 1; j < len(s); j++ {
			c := "-" + string(s[j])
			if containsStr(spec.code, c) {
				if j+1 < len(s) {
					code = append(code, staticWord(s[j+1:]))
				} else if i < len(args) {
					code = append(code, args[i])
					i++
				}
				break
			}
			if strings.IndexByte(spec.value, s[j]) >= 0 {
				v := s[j+1:]
				if j+1 == len(s) && i < len(args) {
					v = args[i].s
					i++
				}
				if body, ok := dataURLCode(v); ok { // -r data:...: code
					code = append(code, staticWord(body))
				}
				break
			}
		}
	}
	sc := subCmd{text: text, alts: alts}
	switch {
	case reason != "":
	case len(code) > 0:
		reason = "`" + base + "` runs " + name + " code given on the command line, which the reader cannot check"
	case !script && !info:
		reason = "`" + base + "` runs a program read from its standard input"
	}
	if loadPrograms(); programs[base] != nil {
		// an interpreter that is also a package manager (bun add -g,
		// deno install -g): what its declaration knows.
		a.declEffects(&sc, base, args, ctx)
	}
	a.addSub(sc, ctx)
	if reason != "" {
		a.setUncertain(reason)
		for _, c := range code {
			a.naiveSplit(c.s)
		}
		if !script && ctx.stdinSet {
			a.naiveSplit(ctx.stdin)
		}
	}
	return true
}

// sedScriptRisk reads a sed script command by command and says why it
// cannot be allowed without asking, or "".
func sedScriptRisk(sc string) string {
	n := len(sc)
	i := 0
	// skipDelim moves past text up to an unescaped delim.
	skipDelim := func(d byte) bool {
		for i < n {
			c := sc[i]
			i++
			if c == '\\' && i < n {
				i++
				continue
			}
			if c == d {
				return true
			}
			if c == '\n' && d != '\n' {
				return false
			}
		}
		return false
	}
	toEOL := func(stopSemi bool) {
		for i < n && sc[i] != '\n' && !(stopSemi && (sc[i] == ';' || sc[i] == '}')) {
			i++
		}
	}
	skipAddr := func() bool {
		for k := 0; k < 2; k++ {
			switch {
			case i < n && (sc[i] >= '0' && sc[i] <= '9' || sc[i] == '$' || sc[i] == '+' || sc[i] == '~'):
				for i < n && (sc[i] >= '0' && sc[i] <= '9' || sc[i] == '$' || sc[i] == '+' || sc[i] == '~') {
					i++
				}
			case i < n && sc[i] == '/':
				i++
				if !skipDelim('/') {
					return false
				}
				for i < n && (sc[i] == 'I' || sc[i] == 'M') {
					i++
				}
			case i+1 < n && sc[i] == '\\':
				d := sc[i+1]
				i += 2
				if !skipDelim(d) {
					return false
				}
				for i < n && (sc[i] == 'I' || sc[i] == 'M') {
					i++
				}
			}
			if k == 0 && i < n && sc[i] == ',' {
				i++
				continue
			}
			break
		}
		for i < n && (sc[i] == ' ' || sc[i] == '\t' || sc[i] == '!') {
			i++
		}
		return true
	}
	for i < n {
		c := sc[i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '}' {
			i++
			continue
		}
		if !skipAddr() {
			return "a sed script the reader cannot read"
		}
		if i >= n {
			return ""
		}
		c = sc[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case '#', ':':
			toEOL(false)
		case 'a', 'i', 'c':
			// text to the end of the line; a\ continues it on the next.
			for {
				toEOL(false)
				if i < n && i > 0 && sc[i-1] == '\\' {
					i++
					continue
				}
				break
			}
		case 'b', 't', 'T', 'v':
			toEOL(true)
		case 'q', 'Q', 'l', 'L':
			for i < n && (sc[i] == ' ' || sc[i] >= '0' && sc[i] <= '9') {
				i++
			}
		case 's', 'y':
			if i >= n {
				return "a sed script the reader cannot read"
			}
			d := sc[i]
			i++
			if d == '\\' || d == '\n' || !skipDelim(d) || !skipDelim(d) {
				return "a sed script the reader cannot read"
			}
			if c == 'y' {
				continue
			}
			for i < n && sc[i] != ';' && sc[i] != '\n' && sc[i] != '}' {
				switch sc[i] {
				case 'e':
					return "sed's s///e flag runs the pattern space as a shell command"
				case 'w', 'W':
					return "sed's s///w flag writes a file"
				}
				i++
			}
		case 'e':
			return "sed's e command runs a shell command"
		case 'w', 'W':
			return "sed's w command writes a file"
		case 'r', 'R':
			return "sed's r command reads a file"
		default:
			return "a sed script the reader cannot read"
		}
	}
	return ""
}

// jumpHosts: the hosts of an ssh jump list ([user@]host[:port],...,
// ssh://user@host:port), "$" when only known at run time.
func jumpHosts(w word) []string {
	if !w.static {
		return []string{"$"}
	}
	var hs []string
	for _, h := range strings.Split(w.s, ",") {
		h = strings.TrimPrefix(strings.TrimSpace(h), "ssh://")
		if at := strings.LastIndexByte(h, '@'); at >= 0 {
			h = h[at+1:]
		}
		if h != "" && !strings.EqualFold(h, "none") {
			hs = append(hs, h)
		}
	}
	return hs
}

// sshValued: the options of each program that take a value (OpenSSH's
// manuals): scp's -p preserves times and -P names the port, where ssh's -p
// names the port; reading scp with ssh's options took its source as -p's
// value and missed its destination (scp -p h:/x ~/.bashrc).
var sshValued = map[string]string{
	"ssh":    "BbcDEeFIiJLlmOopQRSWw",
	"slogin": "BbcDEeFIiJLlmOopQRSWw",
	"scp":    "cDFiJloPSX",
	"sftp":   "BbcDFiJloPRSsX",
}

// sshCmd: ssh [opts] host [command...]: the command is shell code (run by
// the remote shell). Options that run local programs (ProxyCommand,
// LocalCommand, -F config, scp -S) are uncertain.
func (a *analyzer) sshCmd(base string, args []word, text string, alts []string, ctx walkCtx) bool {
	opts, rest, ok := parseOpts(args, optSpec{short: sshValued[base]})
	sc := subCmd{text: text, alts: alts}
	if base == "scp" && (!ok || len(rest) < 2) {
		// scp copies SRC... to DST: fewer operands than that is a reading
		// of its options scp does not share
		a.setUncertain("scp's operands cannot be told from its options")
	}
	if base == "scp" && ok && len(rest) >= 2 {
		// scp SRC... DST: a local destination (no host: before its first
		// slash) is written, whatever the sources are, and under it a
		// whole tree with -r; local sources are read.
		recursive := false
		for _, o := range opts {
			recursive = recursive || o.name == "-r" || len(o.name) > 2 && o.name[1] != '-' && strings.ContainsRune(o.name[1:], 'r')
		}
		for i, w := range rest {
			local := !w.static || !scpRemote(w.s)
			switch {
			case !local:
			case i == len(rest)-1:
				ref := a.pathRef(w)
				ref.recursive = recursive
				sc.writes = append(sc.writes, ref)
			default:
				sc.reads = append(sc.reads, a.pathRef(w))
			}
		}
	}
	for _, o := range opts {
		// the hosts it connects through (ssh -J, -o ProxyJump): each
		// meets the WebFetch domain rules (webhost_proxy.go).
		switch o.name {
		case "-J":
			sc.proxies = append(sc.proxies, jumpHosts(o.val)...)
		case "-o":
			k, v, _ := strings.Cut(strings.TrimSpace(o.val.s), "=")
			if !strings.Contains(o.val.s, "=") {
				k, v, _ = strings.Cut(strings.TrimSpace(o.val.s), " ")
			}
			if strings.EqualFold(strings.TrimSpace(k), "proxyjump") {
				vw := o.val
				vw.s = strings.TrimSpace(v)
				sc.proxies = append(sc.proxies, jumpHosts(vw)...)
			}
		}
	}
	a.addSub(sc, ctx)
	if !ok {
		a.setUncertain(base + " takes an option known only at run time")
		return true
	}
	for _, o := range opts {
		switch o.name {
		case "-o":
			k, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(o.val.s)), "=")
			k, _, _ = strings.Cut(k, " ")
			switch k {
			case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "pkcs11provider",
				"securitykeyprovider", "include", "match", "remotecommand":
				a.setUncertain(base + " -o " + k + " runs a program the command does not name")
			}
			if !o.val.static {
				a.setUncertain(base + " takes an option known only at run time")
			}
		case "-F":
			a.setUncertain(base + " -F reads a configuration that can run programs")
		case "-S":
			if base != "ssh" {
				a.setUncertain(base + " -S runs another program as ssh")
			}
		}
	}
	if base != "ssh" || len(rest) < 2 {
		return true
	}
	src, ok := staticJoin(rest[1:])
	if !ok {
		a.setUncertain("ssh runs a remote command known only at run time")
		return true
	}
	inner := ctx
	inner.gate = false
	a.shellCode(staticWord(src), "ssh", inner)
	return true
}

// scpRemote: an scp operand names a remote file ([user@]host:path or
// scp://...), not a local one: a colon before any slash.
func scpRemote(s string) bool {
	if strings.HasPrefix(s, "scp://") {
		return true
	}
	c := strings.IndexByte(s, ':')
	sl := strings.IndexByte(s, '/')
	return c > 0 && (sl < 0 || c < sl)
}

// pkgExec: npx, npm exec, pnpm exec/dlx, yarn exec/dlx, bunx: the command
// (a package's program or a local one) is a deny/ask gate and the whole
// needs an allow rule; -c/--call 'S' is shell code.
func (a *analyzer) pkgExec(what string, args []word, text string, alts []string, ctx walkCtx) bool {
	sc := subCmd{text: text, alts: alts, kind: skNeedRule}
	opts, rest, ok := parseOpts(args, pkgExecSpec(what)) // programs_rt4.go
	if !ok {
		a.addSub(sc, ctx)
		a.setUncertain(what + " takes an option known only at run time")
		return true
	}
	a.pkgExecOpts(what, opts, &sc) // programs_rt3.go
	a.addSub(sc, ctx)
	inner := ctx
	inner.gate = true
	if code, ok := findOpt(opts, "-c", "--call"); ok {
		if code.s == "" && len(rest) > 0 {
			code = rest[0] // pnpm -c exec 'S'
		}
		a.shellCode(code, what+" -c", inner)
		return true
	}
	if len(rest) > 0 {
		a.command(rest, inner)
	}
	return true
}

// stdinShell handles a shell with no -c: reading a script file is a plain
// command (false); reading its commands from standard input, the static
// text of a here-doc or here-string is read as shell code, anything else
// (a pipe, a file) is uncertain.
func (a *analyzer) stdinShell(args []word, text string, alts []string, ctx walkCtx) bool {
	fromStdin := true
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static {
			return false
		}
		s := w.s
		if s == "-s" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsRune(s, 's') {
			fromStdin = true
			break
		}
		if s == "-" || s == "--" {
			if i+1 < len(args) && s == "--" {
				fromStdin = stdinPaths[args[i+1].s]
			}
			break
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
			if s == "--rcfile" || s == "--init-file" || s == "-o" || s == "+o" || s == "-O" || s == "+O" {
				i++
			}
			continue
		}
		fromStdin = stdinPaths[s] || stdinPaths[path.Clean(s)]
		break
	}
	if !fromStdin {
		return false
	}
	a.addSub(subCmd{text: text, alts: alts, kind: skGate}, ctx)
	if ctx.stdinSet && ctx.stdinStatic {
		a.shellCode(staticWord(ctx.stdin), "the shell", ctx)
		return true
	}
	a.setUncertain("a shell runs commands read from its standard input, which the reader cannot see")
	if ctx.stdinSet {
		a.naiveSplit(ctx.stdin)
	}
	return true
}

// gitConfigWrite: `git config KEY VALUE` that sets a key git runs as a
// command (core.pager, core.fsmonitor, an alias starting with !, a
// filter driver, core.hooksPath, include.path, ...) writes code the
// reader cannot follow to where it runs: uncertain. So is git config
// --edit (an editor) and a key or value known only at run time.
func (a *analyzer) gitConfigWrite(args []word) {
	if len(args) == 0 || !args[0].static || args[0].s != "config" {
		return
	}
	var pos []word
	for i := 1; i < len(args); i++ {
		w := args[i]
		if !w.static {
			a.setUncertain("git config with a key or value known only at run time")
			return
		}
		s := w.s
		switch {
		case i == 1 && (s == "set" || s == "get" || s == "unset" || s == "list" || s == "rename-section" || s == "remove-section"):
			continue
		case i == 1 && s == "edit", s == "-e", s == "--edit":
			a.setUncertain("git config --edit runs an editor")
			return
		case s == "-f" || s == "--file" || s == "--blob" || s == "--type" || s == "--default" || s == "--comment" || s == "--value":
			i++
		case strings.HasPrefix(s, "-"):
		default:
			pos = append(pos, w)
		}
	}
	if len(pos) < 2 {
		return
	}
	key, val := strings.ToLower(pos[0].s), strings.TrimSpace(pos[1].s)
	code := gitCodeKey(key) || strings.HasPrefix(key, "alias.") && strings.HasPrefix(val, "!") ||
		key == "core.hookspath" || key == "include.path" || key == "init.templatedir" || strings.HasPrefix(key, "includeif.")
	if code {
		a.setUncertain("git config sets " + key + ", which makes git run a program")
	}
}

// pythonCodeModules: modules whose arguments are python code or debugger
// commands (python -m timeit 'import os; os.system(...)', python -m pdb -c
// '!import os').
var pythonCodeModules = map[string]bool{"timeit": true, "pdb": true}
