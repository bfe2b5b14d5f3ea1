package policy

import (
	"path"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Red team 5 (docs/policy.md, "Red team 5: hosts named anywhere in a
// command"). A WebFetch(domain:...) deny or ask rule is met by every host
// a command's words name, whatever program reads them and wherever it
// reads them from: the destination of ssh/scp/rsync/sftp ([user@]host,
// host:path, ssh://), an option value (ssh -o HostName=H, git push
// --repo=URL, wget --base=URL, npm --@scope:registry=URL), a package
// spec (name@URL, git+URL), an environment assignment (UV_INDEX_URL=URL,
// HF_ENDPOINT=URL), a socket address (nc H 80, openssl s_client -connect
// H:443, socat - TCP:H:80), an image reference (docker pull H/img:tag).
// No list of programs or options is consulted: each word is cut at every
// character that cannot be part of a host name and each piece is read as
// a host (its spellings normalised as a URL's host is: case, trailing dot,
// full-width letters and stops, punycode, percent-encoding, numeric IPv4),
// besides the word read whole as a URL (userinfo, backslashes, IPv6
// literals). A rule that names one of them applies: a deny denies, in
// every mode. Only deny and ask rules read these hosts; nothing is
// allowed by them, and a piece that is no host is ignored.
//
// Left out: a word holding a blank, for a program the policy knows that
// is not a network client (a command line another program runs is read as
// a command where the reader knows it runs one; a message such as git
// commit -m 'move off evil.com' names no host it connects to), and the
// programs of noHostScan, which print or search their arguments and
// connect nowhere (echo evil.com, grep -r evil.com .).
//
// A network client (netClients) with a word known only at run time
// (ssh "$HOST", nc $H 80), an option or variable named for a URL with
// such a value, a glob that may become a named host, or a network client
// fed by xargs cannot be checked against those rules: while WebFetch
// domain rules exist it asks. The values the line assigns to shell
// variables are read by fetchRule (H=evil.com; tool $H).

// noHostScan: programs that print, test or search their arguments and
// connect nowhere: a host in their words is text.
var noHostScan = map[string]bool{
	"echo": true, "printf": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true,
	"test": true, "[": true, "true": true, "false": true, ":": true, "man": true, "whatis": true, "apropos": true, "help": true,
}

// netClients: programs whose operands are hosts they connect to (or
// commands run on one): a word of theirs known only at run time may be a
// denied host.
var netClients = map[string]bool{
	"ssh": true, "scp": true, "sftp": true, "slogin": true, "autossh": true, "mosh": true, "rsync": true,
	"nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true, "ftp": true, "lftp": true, "tftp": true,
	"aria2c": true, "http": true, "https": true, "xh": true, "xhs": true, "httpie": true, "curlie": true,
	"hg": true, "svn": true, "sshfs": true, "rclone": true,
	// distributions' names of the same clients, and other clients of the same protocols
	"nc.openbsd": true, "nc.traditional": true, "netcat.openbsd": true, "netcat.traditional": true, "ncat.nmap": true,
	"dbclient": true, "plink": true, "pscp": true, "psftp": true, "mosh-client": true, "openssl": true, "gnutls-cli": true,
}

// hostRune: r may be part of a host name as some program reads it
// (letters of any script, digits, '-', '.', '_', percent-encoding, the
// full stops UTS #46 maps to '.', combining marks).
func hostRune(r rune) bool {
	switch r {
	case '-', '.', '_', '%', '\u3002', '\uff0e', '\uff61':
		return true
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// subProgram: the program a sub-command's words run: the first word after
// NAME=VALUE assignments, without its directory and version.
func subProgram(ws []string) string {
	for _, w := range ws {
		if isAssignWord(w) {
			continue
		}
		return canonProgram(baseName(w))
	}
	return ""
}

// wordHosts: the normalised hosts word names under any reading: whole as a
// URL, its value after '=' as one, from a scheme inside it on, and each
// piece between characters that cannot be part of a host (with a short
// option's letter before it, -Jhost, taken off too). A word with blanks is
// read word by word when blanks is set, else not at all.
func wordHosts(w string, blanks bool, add func(string)) {
	w = strings.TrimSpace(w)
	if !isASCII(w) {
		// compatibility forms read as resolvers read them: U+2024 ONE DOT
		// LEADER and U+FE52 SMALL FULL STOP are '.', full-width letters are
		// letters (Python's idna codec applies NFKC before IDNA)
		if n := norm.NFKC.String(w); n != w {
			wordHosts(n, blanks, add)
		}
	}
	if w == "" {
		return
	}
	if strings.IndexFunc(w, unicode.IsSpace) >= 0 {
		if blanks {
			for _, f := range strings.Fields(w) {
				wordHosts(f, false, add)
			}
		}
		return
	}
	readURL := func(s string) {
		hs, _ := hostsOf(s)
		for _, h := range hs {
			add(h)
		}
	}
	readURL(w)
	if _, v, ok := strings.Cut(w, "="); ok && v != "" {
		readURL(v)
	}
	if u := specURL(w); u != w {
		readURL(u) // name@https://h/x, --from=git+https://h/x
	}
	for _, p := range strings.FieldsFunc(w, func(r rune) bool { return !hostRune(r) }) {
		cands := []string{p}
		if t := strings.TrimLeft(p, "-"); t != p && t != "" {
			cands = append(cands, t)
			if len(p)-len(t) == 1 && len(t) > 1 {
				cands = append(cands, t[1:]) // -Jevil.com
			}
		}
		for _, c := range cands {
			c = strings.Trim(c, ".")
			if c == "" {
				continue
			}
			if h, ok := normHost(c); ok {
				add(h)
			}
		}
	}
}

// hostValued: an option or variable whose name says its value is a place
// connected to (--index-url=, --registry=, UV_DEFAULT_INDEX=, HF_ENDPOINT=,
// --@scope:registry=, --repo=): a value known only at run time may be a
// denied host.
// loose: also the looser names (base, from, connect, addr), read so for a
// network client or a program the policy does not know.
func hostValued(name string, loose bool) bool {
	n := strings.ToLower(name)
	for _, k := range []string{"url", "uri", "registry", "index", "endpoint", "remote", "repo", "host", "server", "mirror", "proxy"} {
		if strings.Contains(n, k) {
			return true
		}
	}
	if loose {
		for _, k := range []string{"connect", "base", "from", "addr", "target"} {
			if strings.Contains(n, k) {
				return true
			}
		}
	}
	return false
}

// specURL: the URL inside a package spec or option word, from its
// scheme on (x@https://h/x.tgz, x@git+ssh://git@h/x.git, --from=URL):
// the part npm, pnpm, yarn, bun and uv fetch; w itself when it holds none.
func specURL(w string) string {
	i := strings.Index(w, "://")
	if i <= 0 {
		return w
	}
	j := i
	for j > 0 && (isAlnum(w[j-1]) || w[j-1] == '+' || w[j-1] == '-' || w[j-1] == '.') {
		j--
	}
	return w[j:]
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// namedHosts returns the hosts sc's words name (every spelling of the
// words the reader kept, brace alternatives expanded), and unknown: a
// host it connects to is known only at run time (a network client's word
// with a variable, an option named for a URL with one, xargs feeding a
// network client).
// quiet: the words of the sub-commands that run a noHostScan program
// (quietWords): a wrapper's sub-command that ends with them (env echo H,
// sudo -u x grep H, bash -c 'echo H') is read without them.
// globs: the pieces with a glob character of a network client's or an
// unknown program's words (nc evil.c?m 80 connects to evil.com when a file
// of that name is in the directory): globHost asks when one may match a
// host a rule names.
func namedHosts(sc *subCmd, quiet [][]string) (hosts, globs []string, unknown bool) {
	seen := map[string]bool{}
	add := func(h string) {
		if !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	for ti, text := range append([]string{sc.text}, sc.alts...) {
		ws := lexWords(text)
		if ti == 0 && sc.words() != nil {
			ws = sc.words()
		}
		prog := subProgram(ws)
		trusted := progTrusted(ws)
		if hostWrapper(prog) && trusted {
			// env echo H, bash -c 'echo H': the wrapped text program's words;
			// never a network client's (echo H; ssh -l echo H).
			ws = dropQuiet(ws, quiet)
		}
		if sc.kind == skProbe {
			continue // a probe re-reads words of a command read here already
		}
		progAt := len(ws)
		for i, w := range ws {
			if !isAssignWord(w) {
				progAt = i
				break
			}
		}
		if textProgram(ws) {
			// a text program's words are text; the assignments before it
			// are not (MANPAGER='nc H 80' man ls: a command man runs)
			for _, w := range ws[:progAt] {
				if _, v, ok := strings.Cut(w, "="); ok && !noProxyAssign(w[:strings.IndexByte(w, '=')], true) {
					wordHosts(v, true, add)
				}
			}
			continue
		}
		// a word with blanks is text to a program the policy knows (git
		// commit -m '...'), but a command or a host list to a network
		// client (ssh -o 'ProxyCommand nc H 22', ssh h 'nc H 80') and
		// may be either to a program it does not know.
		// A wrapper's words (env, sudo, bash -c, timeout ...) are read
		// again as the command it runs, whose own reading decides.
		// a name that only looks like a known program (./true1, ./echo2:
		// programs_names.go) is read as one the policy does not know
		known := knownProgram(prog) && trusted
		blanks := (netClients[prog] || !known) && !(hostWrapper(prog) && trusted)
		unsure := netClients[prog] || !known
		if runtimeClient(ws) {
			unknown = true // echo evil.com | xargs nc: its operands come from the input
		}
		for i, w := range ws {
			name, _, assign := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if assign && noProxyAssign(name, i < progAt || assignsVars[prog] && trusted) {
				continue // NO_PROXY=evil.com: hosts reached without a proxy, not a connection
			}
			if strings.ContainsAny(w, "$`") {
				switch {
				case netClients[prog]:
					unknown = true
				case assign && hostValued(name, unsure):
					unknown = true // --index-url=$I, UV_INDEX_URL=$I
				case unsure && i > 0 && strings.HasPrefix(ws[i-1], "-") && !strings.Contains(ws[i-1], "=") && hostValued(strings.TrimLeft(ws[i-1], "-"), true):
					unknown = true // an unknown program's --url "$U"
				}
			}
			// the literal pieces of a word with a variable are read too:
			// https://evil.com$P still names evil.com.
			ws2, ok := expandBraces(w, 1024) // protected.go; more alternatives than a path has, each may be a host
			if !ok {
				ws2 = []string{w}
				unknown = true // more alternatives than the reader expands: any may be a named host
			}
			for _, x := range ws2 {
				wordHosts(x, blanks, add)
				if unsure && strings.ContainsAny(x, "*?[") {
					for _, p := range strings.FieldsFunc(x, func(r rune) bool { return !hostRune(r) && !strings.ContainsRune("*?[]", r) }) {
						if strings.ContainsAny(p, "*?[") {
							globs = append(globs, strings.ToLower(p))
						}
					}
				}
			}
		}
	}
	return hosts, globs, unknown
}

// uvProjectValued: the valued options of uv's project commands (uv add,
// sync, lock, pip compile, tool run): the index options (hosts, read as
// hostOpts, so a value known only at run time asks while WebFetch rules
// exist) and the others, so that their values are not read as operands.
var uvProjectValued = append([]string{"--python", "-p", "--directory", "--project", "--package", "--extra", "--group",
	"--only-group", "--no-group", "--with", "--with-requirements", "--with-editable", "--from", "--constraint", "-c",
	"--override", "-o", "--output-file", "-r", "--requirements", "--script", "--tag", "--rev", "--branch",
	"--optional", "--dev-group", "--marker", "-m", "--index-strategy", "--keyring-provider", "--resolution", "--prerelease",
	"--exclude-newer", "--refresh-package", "--reinstall-package", "--config-file", "--cache-dir"}, uvIndexOpts...)

func init() {
	declare(programsHostsDecls[:]...)
}

// quietWords: the words of the sub-commands of subs that run a
// noHostScan program.
func quietWords(subs []subCmd) [][]string {
	var q [][]string
	for i := range subs {
		if subs[i].kind == skProbe {
			continue // a guess at a command in an unknown program's words: it may connect to them
		}
		ws := subs[i].words()
		if ws == nil {
			ws = lexWords(subs[i].text)
		}
		if len(ws) > 0 && textProgram(ws) {
			q = append(q, ws)
		}
	}
	return q
}

// dropQuiet: ws without a tail that is one of quiet's word lists, or a
// last word that is one of them joined (bash -c 'echo H').
func dropQuiet(ws []string, quiet [][]string) []string {
	for _, q := range quiet {
		if len(q) < len(ws) && slicesEqual(ws[len(ws)-len(q):], q) {
			return ws[:len(ws)-len(q)]
		}
		if len(ws) > 1 && ws[len(ws)-1] == strings.Join(q, " ") {
			return ws[:len(ws)-1]
		}
	}
	return ws
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hostWrapper: programs that run their arguments as a command the reader
// reads as a sub-command of its own.
func hostWrapper(prog string) bool {
	if prefixWrappers[prog] != nil {
		return true
	}
	switch prog {
	case "env", "sudo", "doas", "run0", "pkexec", "xargs", "eval", "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash":
		return true
	}
	return false
}

// globHost: the first glob of globs that may name the domain of a
// WebFetch domain rule of rules ("" when none): the files of the
// directory decide what it becomes.
func globHost(globs []string, rules []*rule) string {
	for _, g := range globs {
		for _, rr := range rules {
			if rr.kind != rkDomain || rr.domainAny {
				continue
			}
			d := rr.domain
			if rr.domainWild {
				d = "x." + d
			}
			if ok, err := path.Match(g, d); ok || err != nil {
				return g
			}
		}
	}
	return ""
}

// runtimeClient: ws runs, through xargs or parallel, a network client or
// a program the policy does not know: its operands come from standard
// input, which the reader cannot see (echo evil.com | xargs nc -v; the
// words of echo are text, the host reaches nc through the pipe).
func runtimeClient(ws []string) bool {
	for i, w := range ws {
		switch baseName(w) {
		case "xargs":
			args := make([]word, 0, len(ws)-i-1)
			for _, x := range ws[i+1:] {
				args = append(args, staticWord(x))
			}
			rest, _, ok := skipXargs(args)
			if !ok {
				return true
			}
			if len(rest) == 0 {
				return false // xargs echo
			}
			p := canonProgram(baseName(rest[0].s))
			return netClients[p] || !knownProgram(p) && !hostWrapper(p)
		case "parallel", "sem":
			for _, x := range ws[i+1:] {
				if p := canonProgram(baseName(x)); netClients[p] {
					return true
				}
			}
			return false
		}
	}
	return false
}

// assignsVars: programs whose NAME=VALUE words set variables (export
// no_proxy=H), not operands.
var assignsVars = map[string]bool{"export": true, "env": true, "declare": true, "typeset": true, "local": true, "readonly": true, "set": true}

// noProxyAssign: name=VALUE sets a no_proxy variable (a list of hosts
// reached without a proxy, not a connection): only as an assignment
// (before the program, or to export/env) and only when name is a plain
// variable name; ?no_proxy= in a URL and no_proxy=@H to ssh are not.
func noProxyAssign(name string, assignment bool) bool {
	if !assignment || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || isAlnum(c)) {
			return false
		}
	}
	return strings.HasSuffix(strings.ToLower(name), "no_proxy")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// programsHostsDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsHostsDecls = [...]*progDecl{
	&progDecl{name: "uv add", valued: uvProjectValued, hostOpts: uvIndexOpts, urlArgs: "url",
		noMatch: []string{"uv add requests", "uv add --dev pytest"}},
	&progDecl{name: "uv sync", valued: uvProjectValued, hostOpts: uvIndexOpts,
		noMatch: []string{"uv sync", "uv sync --extra dev"}},
	&progDecl{name: "uv lock", valued: uvProjectValued, hostOpts: uvIndexOpts,
		noMatch: []string{"uv lock", "uv lock --upgrade"}},
	&progDecl{name: "uv pip compile", valued: uvProjectValued, hostOpts: uvIndexOpts,
		noMatch: []string{"uv pip compile r.in -o r.txt"}},
	&progDecl{name: "uv tool run", valued: uvProjectValued, hostOpts: uvIndexOpts, run: runAfterOpts,
		forms: []string{"uv tool run %s"}, match: []string{"uv tool run rm -rf x"},
		noMatch: []string{"uv tool run ruff check ."}},
}
