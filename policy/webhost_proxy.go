package policy

import "strings"

// The host a fetch really connects to (docs/policy.md, "The host a
// command connects to"). curl and wget connect to a proxy instead of the
// URL's host when told to: curl -x/--proxy, --preproxy, --socks4/4a/5,
// --socks5-hostname; a proxy variable assigned before the command
// (https_proxy=... curl URL, which every program honouring the variables
// obeys) or set with wget -e http_proxy=...; and curl --connect-to and
// --resolve send the connection to another host or address whatever the
// URL says. Each of those hosts meets the WebFetch domain rules like the
// URL's own host (a deny names any of them: deny); a value known only at
// run time cannot be checked (with WebFetch rules present: ask).

// proxyVar: an environment variable that names a proxy: the common ones
// (http_proxy, https_proxy, ALL_PROXY, ...) and every program's own, which
// end in _proxy in any case (RSYNC_PROXY, npm_config_https_proxy,
// PIP_PROXY, CARGO_HTTP_PROXY); no_proxy lists hosts not proxied.
func proxyVar(name string) bool {
	n := strings.ToLower(name)
	if n == "proxy" || n == "goproxy" {
		return true // GOPROXY: a list of module proxies (proxyList)
	}
	return strings.HasSuffix(n, "_proxy") && !strings.HasSuffix(n, "no_proxy")
}

// wgetrcProxy: a wgetrc command (wget -e NAME=VALUE) that sets a proxy.
// wget reads command names case-insensitively and ignores '_' and '-'
// in them (https_proxy = httpsproxy = HTTPS-PROXY).
func wgetrcProxy(name string) bool {
	n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(name)))
	return n == "httpproxy" || n == "httpsproxy" || n == "ftpproxy" || n == "ftpsproxy"
}

// curlProxyFlags: curl's normalized flags whose value is a proxy.
var curlProxyFlags = []string{"x=", "--preproxy=", "--socks4=", "--socks4a=", "--socks5=", "--socks5-hostname=", "--proxy1.0="}

// proxyTargets returns the hosts (as URLs or host[:port]) a sub-command
// connects to besides its URLs, and whether one is known only at run time.
func proxyTargets(sc *subCmd) (targets []string, unknown bool) {
	add := func(v string) {
		if strings.ContainsAny(v, "$`") {
			unknown = true
			return
		}
		if v != "" {
			targets = append(targets, v)
		}
	}
	// hosts the reader found in the command's options (a declared proxy
	// option, git -c http.proxy, ssh -J).
	for _, p := range sc.proxies {
		add(p)
	}
	texts := append([]string{sc.text}, sc.alts...)
	for ti, text := range texts {
		ws := lexWords(text)
		if ti == 0 && sc.words() != nil {
			// the words as the walk read them: text lost the quotes, so
			// a blank inside a word (wget -e 'NAME<TAB>= VALUE') would
			// split it (red team 4).
			ws = sc.words()
		}
		// NAME=VALUE words before the command, after env (and its
		// options), or exported (export, declare -x ...: every later
		// program sees them): proxy variables.
		i := 0
		if len(ws) > 0 {
			switch ws[0] {
			case "env", "export", "declare", "typeset", "readonly", "local":
				i = 1
				for i < len(ws) && strings.HasPrefix(ws[i], "-") {
					if ws[0] == "env" && (ws[i] == "-u" || ws[i] == "-C" || ws[i] == "--unset" || ws[i] == "--chdir") {
						i++
					}
					i++
				}
			}
		}
		// NAME=VALUE of a proxy variable anywhere among the words (sudo
		// VAR=V cmd, env -i VAR=V cmd, xargs ... VAR=V): a host named there
		// meets the rules (stricter than where the program would read it).
		for _, w := range ws[i:] {
			if name, val, ok := strings.Cut(w, "="); ok && isAssignWord(w) && proxyVar(name) && !strings.ContainsAny(val, "$`") {
				for _, v := range proxyList(val) {
					add(v)
				}
			}
		}
		for i < len(ws) && isAssignWord(ws[i]) {
			name, val, _ := strings.Cut(ws[i], "=")
			if proxyVar(name) {
				for _, v := range proxyList(val) {
					add(v)
				}
				if strings.ContainsAny(val, "$`") {
					add(val)
				}
			}
			i++
		}
		n, ok := normalizeWords(ws[i:])
		if !ok {
			continue
		}
		for f := range n.flags {
			switch n.path {
			case "curl":
				for _, p := range curlProxyFlags {
					if v, ok := strings.CutPrefix(f, p); ok {
						add(v)
					}
				}
				if v, ok := strings.CutPrefix(f, "--connect-to="); ok {
					// HOST1:PORT1:HOST2:PORT2: the connection goes to HOST2.
					if strings.ContainsAny(v, "[]") {
						unknown = true // an IPv6 literal: read no further
						continue
					}
					if parts := strings.Split(v, ":"); len(parts) == 4 {
						add(parts[2])
					} else {
						unknown = true
					}
				}
				if v, ok := strings.CutPrefix(f, "--resolve="); ok {
					// [+]HOST:PORT:ADDR[,ADDR]...: HOST is reached at ADDR.
					parts := strings.SplitN(v, ":", 3)
					if len(parts) != 3 {
						unknown = true
						continue
					}
					for _, ad := range strings.Split(parts[2], ",") {
						add(strings.Trim(ad, "[]"))
					}
				}
			case "wget":
				// -e/--execute NAME=VALUE: a wgetrc command.
				if v, ok := strings.CutPrefix(f, "e="); ok {
					if name, val, ok := strings.Cut(v, "="); ok && wgetrcProxy(name) {
						add(strings.TrimSpace(val))
					}
				}
				if v, ok := strings.CutPrefix(f, "--execute="); ok {
					if name, val, ok := strings.Cut(v, "="); ok && wgetrcProxy(name) {
						add(strings.TrimSpace(val))
					}
				}
			}
		}
	}
	return targets, unknown
}
