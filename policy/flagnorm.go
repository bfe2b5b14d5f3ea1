package policy

import (
	"strings"
)

// Flag order (docs/policy.md, "What the static reading holds", class 10).
//
// `rm -fr x`, `rm -r -f x`, `rm -Rf x`, `rm --recursive --force x`,
// `rm -f -r -- x`, `rm -rfv x` and `rm x -rf` all do what `rm -rf x` does,
// and a deny (or ask) rule `Bash(rm -rf *)` must meet every one of them.
// For a few well-known commands the options of both the rule and the
// command are read into a set of canonical flags (short letters merged and
// split, long names mapped to their short form, aliases such as -R for -r,
// `--` dropped, options after operands taken as options where the program
// does so) and the operands kept in order. A deny or ask rule then matches
// when its flags are a subset of the command's and its operand pattern
// matches the command's operands. Allow rules are never read this way:
// `Bash(rm -rf build)` allows exactly that text.

// flagSpec says how one command reads its options.
type flagSpec struct {
	// long maps a long option name to its canonical flag ("" or missing:
	// the flag is "--name").
	long map[string]string
	// alias maps a short letter to its canonical one (R to r for rm).
	alias map[byte]byte
	// valued: short letters that take a value; longValued: long names.
	valued     string
	longValued map[string]bool
	// letters, if set: a dash word is an option group only if all its
	// letters are in it (chmod -x is a mode, not an option).
	letters string
	// stopAtOperand: options end at the first operand (docker run IMAGE
	// CMD...: what follows the image is the container's command).
	stopAtOperand bool
	// plusForce: an operand +ref means --force (git push).
	plusForce bool
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var (
	rmSpec = &flagSpec{
		long:  map[string]string{"recursive": "r", "force": "f", "verbose": "v", "dir": "d", "interactive": "i"},
		alias: map[byte]byte{'R': 'r'},
	}
	cpSpec = &flagSpec{
		long: map[string]string{"recursive": "r", "force": "f", "archive": "a", "verbose": "v", "interactive": "i",
			"no-clobber": "n", "target-directory": "t", "suffix": "S", "update": "u", "link": "l", "symbolic-link": "s",
			"dereference": "L", "no-dereference": "P", "preserve": "p", "backup": "b"},
		alias:      map[byte]byte{'R': 'r'},
		valued:     "tS",
		longValued: set("target-directory", "suffix"),
	}
	mvSpec = &flagSpec{
		long: map[string]string{"force": "f", "interactive": "i", "no-clobber": "n", "verbose": "v", "update": "u",
			"target-directory": "t", "suffix": "S", "backup": "b"},
		valued:     "tS",
		longValued: set("target-directory", "suffix"),
	}
	chmodSpec = &flagSpec{
		long:       map[string]string{"recursive": "R", "changes": "c", "silent": "f", "quiet": "f", "verbose": "v"},
		letters:    "Rcfv",
		longValued: set("reference"),
	}
	chownSpec = &flagSpec{
		long:       map[string]string{"recursive": "R", "changes": "c", "silent": "f", "quiet": "f", "verbose": "v", "no-dereference": "h"},
		letters:    "RcfvhHLP",
		longValued: set("reference", "from"),
	}
	curlSpec = &flagSpec{
		long: map[string]string{"request": "X", "data": "d", "header": "H", "output": "o", "user": "u", "form": "F",
			"upload-file": "T", "user-agent": "A", "referer": "e", "cookie": "b", "cookie-jar": "c", "proxy": "x",
			"max-time": "m", "config": "K", "insecure": "k", "location": "L", "silent": "s", "fail": "f",
			"include": "i", "verbose": "v", "remote-name": "O", "head": "I", "get": "G", "dump-header": "D",
			"write-out": "w", "range": "r", "continue-at": "C", "cert": "E", "quote": "Q", "time-cond": "z"},
		valued: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
		longValued: set("request", "data", "data-raw", "data-binary", "data-urlencode", "data-ascii", "header", "output",
			"user", "form", "form-string", "upload-file", "user-agent", "referer", "cookie", "cookie-jar", "proxy",
			"max-time", "config", "url", "cert", "key", "cacert", "capath", "resolve", "connect-to", "json",
			"variable", "write-out", "range", "dump-header", "retry", "limit-rate", "continue-at", "quote",
			"time-cond", "connect-timeout", "interface", "output-dir", "proto", "proto-redir", "max-redirs",
			"oauth2-bearer", "aws-sigv4", "unix-socket", "abstract-unix-socket", "trace", "trace-ascii", "stderr",
			"netrc-file", "cookie-jar", "ciphers", "proxy-user", "preproxy", "socks5", "socks5-hostname", "expect100-timeout"),
	}
	wgetSpec = &flagSpec{
		long: map[string]string{"output-document": "O", "output-file": "o", "append-output": "a", "directory-prefix": "P",
			"user-agent": "U", "execute": "e", "input-file": "i", "tries": "t", "timeout": "T", "quiet": "q",
			"recursive": "r", "no-check-certificate": "--no-check-certificate", "continue": "c", "mirror": "m"},
		valued: "OoaPUeitTwQBlAR",
		longValued: set("output-document", "output-file", "append-output", "directory-prefix", "user-agent", "execute",
			"input-file", "tries", "timeout", "post-data", "post-file", "body-data", "body-file", "method", "header",
			"user", "password", "http-user", "http-password", "load-cookies", "save-cookies", "level", "accept",
			"reject", "base", "wait", "quota", "limit-rate", "referer", "ca-certificate", "certificate", "private-key"),
	}
	dockerRunSpec = &flagSpec{
		long:          map[string]string{"interactive": "i", "tty": "t", "detach": "d", "env": "e", "volume": "v", "publish": "p", "workdir": "w", "user": "u", "label": "l", "memory": "m", "hostname": "h", "publish-all": "P"},
		valued:        "evpwulmhc",
		stopAtOperand: true,
		longValued: set("env", "volume", "publish", "workdir", "user", "label", "memory", "hostname", "name", "network",
			"net", "env-file", "entrypoint", "mount", "cap-add", "cap-drop", "device", "security-opt", "platform", "pid",
			"ipc", "userns", "restart", "cpus", "add-host", "dns", "tmpfs", "ulimit", "log-driver", "log-opt", "gpus",
			"runtime", "cgroupns", "uts", "expose", "link", "shm-size", "stop-signal", "health-cmd", "cpu-shares",
			"volumes-from", "group-add", "label-file", "pull", "cidfile", "mac-address", "ip", "ip6", "sysctl",
			"storage-opt", "isolation", "memory-swap", "oom-score-adj", "cgroup-parent", "device-cgroup-rule",
			"attach", "annotation", "domainname", "detach-keys"),
	}
	kubectlSpec = &flagSpec{
		long: map[string]string{"namespace": "n", "selector": "l", "filename": "f", "output": "o", "all-namespaces": "A",
			"recursive": "R", "kustomize": "k", "container": "c"},
		valued: "nlfock",
		longValued: set("namespace", "selector", "filename", "output", "context", "cluster", "kubeconfig", "user",
			"grace-period", "timeout", "field-selector", "cascade", "server", "token", "as", "as-group", "kustomize",
			"container", "request-timeout", "cache-dir", "certificate-authority", "client-certificate", "client-key",
			"tls-server-name", "password", "username", "raw", "wait-for", "for"),
	}
	gitPushSpec = &flagSpec{
		long: map[string]string{"force": "f", "force-with-lease": "f", "delete": "d", "verbose": "v", "quiet": "q",
			"push-option": "o", "set-upstream": "u", "no-verify": "--no-verify", "tags": "--tags", "all": "--all", "mirror": "--mirror"},
		valued:     "o",
		longValued: set("repo", "push-option", "receive-pack", "exec"),
		plusForce:  true,
	}
	gitSpec = &flagSpec{
		long: map[string]string{"force": "f", "quiet": "q", "verbose": "v", "recursive": "r", "delete": "d",
			"exclude": "e", "message": "m"},
		valued:     "emC",
		longValued: set("exclude", "message"),
	}
)

// dockerGlobalValued: docker options before the verb that take a value.
var dockerGlobalValued = set("-c", "--context", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey")

// normCmd is a command read with its spec.
type normCmd struct {
	path     string          // "rm", "git push", "docker run", "kubectl delete"
	flags    map[string]bool // canonical flags; valued ones also as name=value
	operands []string
}

// normalizeWords reads ws (a sub-command's words, quotes removed) with the
// spec of its command; ok false when the command is not a well-known one.
func normalizeWords(ws []string) (normCmd, bool) {
	if len(ws) == 0 {
		return normCmd{}, false
	}
	if ws[0] == "sudo" || ws[0] == "doas" {
		// sudo [options] CMD: the command read with its own spec, under
		// the sudo path (Bash(sudo rm -rf *) meets sudo -u x rm -fr y).
		i := 1
		for i < len(ws) && strings.HasPrefix(ws[i], "-") {
			if ws[i] == "--" {
				i++
				break
			}
			// which options take a value: the program's declaration
			// (programs_runners.go), so that `sudo --user root` and
			// `sudo -u root` read alike.
			if d, _ := lookupDecl(ws[0], nil); d != nil && containsStr(d.valued, ws[i]) {
				i++
			}
			i++
		}
		if i >= len(ws) {
			return normCmd{}, false
		}
		n, ok := normalizeWords(ws[i:])
		if ok {
			n.path = ws[0] + " " + n.path
		}
		return n, ok
	}
	var spec *flagSpec
	path := ws[0]
	rest := ws[1:]
	switch ws[0] {
	case "rm":
		spec = rmSpec
	case "cp":
		spec = cpSpec
	case "mv":
		spec = mvSpec
	case "chmod":
		spec = chmodSpec
	case "chown", "chgrp":
		spec = chownSpec
	case "curl":
		spec = curlSpec
	case "wget":
		spec = wgetSpec
	case "git":
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			return normCmd{}, false // global options: the stripped alternative is read instead
		}
		path, rest = "git "+rest[0], rest[1:]
		spec = gitSpec
		if path == "git push" {
			spec = gitPushSpec
		}
	case "docker", "podman":
		i := 0
		for i < len(rest) && strings.HasPrefix(rest[i], "-") {
			if dockerGlobalValued[rest[i]] {
				i++
			}
			i++
		}
		if i < len(rest) && rest[i] == "container" {
			i++
		}
		if i >= len(rest) || rest[i] != "run" && rest[i] != "create" {
			return normCmd{}, false
		}
		path, rest, spec = ws[0]+" "+rest[i], rest[i+1:], dockerRunSpec
	case "kubectl", "oc":
		spec = kubectlSpec
	default:
		return normCmd{}, false
	}
	n := normCmd{path: path, flags: map[string]bool{}}
	spec.read(rest, &n)
	if ws[0] == "kubectl" || ws[0] == "oc" {
		// the verb is the first operand (global flags may come first).
		if len(n.operands) == 0 {
			return normCmd{}, false
		}
		n.path, n.operands = ws[0]+" "+n.operands[0], n.operands[1:]
	}
	return n, true
}

func (s *flagSpec) read(args []string, n *normCmd) {
	afterDD := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case afterDD || s.stopAtOperand && len(n.operands) > 0:
			n.operands = append(n.operands, w)
		case w == "--":
			afterDD = true
		case strings.HasPrefix(w, "--") && len(w) > 2:
			name, val, hasEq := strings.Cut(w[2:], "=")
			name = s.expand(name)
			canon, ok := s.long[name]
			if !ok || canon == "" {
				canon = "--" + name
			}
			if !hasEq && s.longValued[name] && i+1 < len(args) {
				val, hasEq = args[i+1], true
				i++
			}
			n.flags[canon] = true
			if hasEq {
				n.flags[canon+"="+val] = true
			}
		case len(w) > 1 && w[0] == '-' && (s.letters == "" || allIn(w[1:], s.letters)):
			for j := 1; j < len(w); j++ {
				c := w[j]
				if a, ok := s.alias[c]; ok {
					c = a
				}
				name := string(c)
				n.flags[name] = true
				if strings.IndexByte(s.valued, w[j]) >= 0 {
					val := w[j+1:]
					if val == "" && i+1 < len(args) {
						val = args[i+1]
						i++
					}
					if val != "" {
						n.flags[name+"="+val] = true
					}
					break
				}
			}
		case s.plusForce && len(w) > 1 && w[0] == '+':
			n.flags["f"] = true
			n.operands = append(n.operands, w[1:])
		default:
			n.operands = append(n.operands, w)
		}
	}
}

// expand reads an abbreviated long option (GNU getopt_long and git's
// parse-options take any unambiguous prefix: rm --rec --f, git push
// --force-w) as the one long option of the spec it begins; an ambiguous
// or unknown one stays as written.
func (s *flagSpec) expand(name string) string {
	if _, ok := s.long[name]; ok || s.longValued[name] || name == "" {
		return name
	}
	found := ""
	for k := range s.long {
		if strings.HasPrefix(k, name) {
			if found != "" && found != k {
				if s.long[found] == s.long[k] && s.long[k] != "" {
					continue // both mean the same flag (git push --forc)
				}
				return name
			}
			found = k
		}
	}
	for k := range s.longValued {
		if strings.HasPrefix(k, name) {
			if found != "" && found != k {
				return name
			}
			found = k
		}
	}
	if found == "" {
		return name
	}
	return found
}

func allIn(s, letters string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(letters, s[i]) < 0 {
			return false
		}
	}
	return true
}

// normPattern is a deny or ask Bash pattern read like a command: its
// flags must all be in the command's, its operands (with the command
// path) are a pattern over the command's operands.
type normPattern struct {
	path     string
	flags    []string
	operands bashPattern
}

// compileNormPattern reads p when its command is a well-known one and
// none of its option words holds a wildcard; nil otherwise.
func compileNormPattern(p *bashPattern) *normPattern {
	if p.first == "" || strings.IndexByte(p.glob, ' ') < 0 {
		return nil
	}
	ws := strings.Split(p.glob, " ")
	for _, w := range ws {
		if strings.HasPrefix(w, "-") && strings.IndexByte(w, wild) >= 0 {
			return nil
		}
	}
	n, ok := normalizeWords(ws)
	if !ok || strings.IndexByte(n.path, wild) >= 0 {
		return nil
	}
	for f := range n.flags {
		if strings.IndexByte(f, wild) >= 0 {
			return nil
		}
	}
	if len(n.flags) == 0 {
		return nil // nothing to reorder: the literal match says it all
	}
	np := &normPattern{path: n.path}
	for f := range n.flags {
		np.flags = append(np.flags, f)
	}
	g := strings.Join(append([]string{n.path}, n.operands...), " ")
	np.operands = bashPattern{glob: g, segs: strings.Split(g, string(wild)), boundary: p.boundary}
	np.operands.lead = g[0] == wild
	np.operands.trail = g[len(g)-1] == wild
	return np
}

func (np *normPattern) match(n *normCmd) bool {
	if np.path != n.path {
		return false
	}
	for _, f := range np.flags {
		if !n.flags[f] {
			return false
		}
	}
	return np.operands.match(strings.Join(append([]string{n.path}, n.operands...), " "))
}

// matchBashNorm returns the first deny/ask rule of set whose flag-order
// reading matches one of the texts of sc.
func matchBashNorm(set *ruleSet, sc *subCmd) *rule {
	if len(set.norm) == 0 {
		return nil
	}
	var best *rule
	try := func(text string) {
		n, ok := normalizeWords(strings.Split(text, " "))
		if !ok {
			return
		}
		for _, r := range set.norm {
			if best != nil && r.idx > best.idx {
				break
			}
			if r.norm.match(&n) {
				best = first(best, r)
				break
			}
		}
	}
	try(sc.text)
	for _, t := range sc.alts {
		try(t)
	}
	return best
}
