package policy

import (
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Reading the host of a URL the way the programs that fetch it do.
//
// A WebFetch(domain:evil.com) deny must hold for every spelling a URL
// parser turns into evil.com: full-width letters, ideographic full stops,
// a trailing dot, upper case, punycode, userinfo (good.com@evil.com),
// backslashes (WHATWG parsers read evil.com\@good.com as evil.com), numeric
// IPv4 forms (127.1, 2130706433, 0x7f000001, 0177.0.0.1), IPv4-mapped IPv6
// literals, URLs without a scheme. hostsOf returns every host the URL may
// reach under the readings that disagree (a WHATWG parser and an RFC 3986
// one, the first and the last "@"); a deny or ask rule applies when it
// names any of them, an allow rule only when it names all of them. A URL
// whose host holds spaces or control characters, or that does not parse
// under one of the readings, has no host (the caller asks).
//
// Host names are mapped with golang.org/x/net/idna under the UTS #46
// lookup mapping (non-transitional, as browsers do): it is the Go team's
// implementation of the standard, kept in step with Unicode releases, and
// made for exactly this (turning what a person or a program typed into
// the name that is looked up). Writing our own mapping table would lag
// Unicode and miss cases.

// idnaLookup is UTS #46 lookup mapping without the STD3 restriction
// (underscores occur in real host names; they are not a way to spell
// another host).
var idnaLookup = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false), idna.BidiRule())

// hostsOf returns the normalised hosts raw may reach; ok false when the
// URL cannot be read with confidence (the hosts that could be read are
// still returned, for deny and ask rules).
func hostsOf(raw string) (hosts []string, ok bool) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == unicode.ReplacementChar {
			return nil, false
		}
	}
	readings := []string{s}
	if strings.ContainsRune(s, '\\') {
		// WHATWG: a backslash is a slash in http(s) URLs; other parsers
		// keep it. Both are read.
		readings = append(readings, strings.ReplaceAll(s, "\\", "/"))
	}
	add := func(h string) {
		for _, x := range hosts {
			if x == h {
				return
			}
		}
		hosts = append(hosts, h)
	}
	ok = true
	for _, rd := range readings {
		auths, aok := authorityOf(rd)
		if !aok {
			ok = false
		}
		// userinfo ends at the last "@" (WHATWG) or the first (some
		// RFC 3986 readers): read both.
		var cands []string
		for _, auth := range auths {
			if i := strings.LastIndexByte(auth, '@'); i >= 0 {
				cands = append(cands, auth[i+1:])
				if j := strings.IndexByte(auth, '@'); j != i {
					cands = append(cands, auth[j+1:])
				}
			} else {
				cands = append(cands, auth)
			}
		}
		for _, c := range cands {
			hp, pok := stripPort(c)
			h, hok := normHost(hp)
			if hok {
				add(h)
			}
			ok = ok && hok && pok
		}
	}
	return hosts, ok && len(hosts) > 0
}

// authorityOf returns the authority part of a URL, supplying http:// when
// the URL has no scheme ("evil.com/x", "//evil.com", "evil.com:8080").
// For a special scheme it returns WHATWG's reading and, when the two
// differ, the RFC 3986 one; ok is false when a reading finds no host.
func authorityOf(s string) (auths []string, ok bool) {
	cut := func(rest string) string {
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	ok = true
	var rest string
	switch i := strings.IndexByte(s, ':'); {
	case i > 0 && specialScheme(s[:i]):
		// WHATWG: after a special scheme any run of slashes and
		// backslashes, even none (https:evil.com, https:/\evil.com),
		// leads to the host. An RFC 3986 reader takes what follows "//".
		rest = cut(strings.TrimLeft(s[i+1:], "/\\"))
		if strings.HasPrefix(s[i+1:], "//") {
			if r := cut(s[i+3:]); r != rest {
				if r == "" {
					ok = false
				} else {
					auths = append(auths, r)
				}
			}
		} else {
			ok = false // no "//": an RFC 3986 reader sees no host
		}
	case strings.Contains(s, "://") && validScheme(s[:strings.Index(s, "://")]):
		rest = cut(s[strings.Index(s, "://")+3:])
	case strings.HasPrefix(s, "//"):
		rest = cut(s[2:])
	case i > 0 && validScheme(s[:i]) && !looksLikePort(s[i+1:]):
		// mailto:, javascript:, data:, file:x ... no host to check.
		return nil, false
	default:
		rest = cut(s)
	}
	if rest == "" {
		return auths, false
	}
	return append([]string{rest}, auths...), ok
}

func specialScheme(s string) bool {
	switch strings.ToLower(s) {
	case "http", "https", "ws", "wss", "ftp":
		return true
	}
	return false
}

func validScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// looksLikePort: what follows "host:" in a URL without a scheme.
func looksLikePort(s string) bool {
	j := strings.IndexAny(s, "/?#")
	if j < 0 {
		j = len(s)
	}
	return isDigits(s[:j]) || j == 0
}

// stripPort removes ":port" (the brackets of an IPv6 literal are kept);
// false when the port is not a number.
func stripPort(hp string) (string, bool) {
	if strings.HasPrefix(hp, "[") {
		i := strings.IndexByte(hp, ']')
		if i < 0 {
			return hp, false
		}
		rest := hp[i+1:]
		return hp[:i+1], rest == "" || rest[0] == ':' && isDigitsOrEmpty(rest[1:])
	}
	if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		return hp[:i], isDigitsOrEmpty(hp[i+1:])
	}
	return hp, true
}

func isDigitsOrEmpty(s string) bool { return s == "" || isDigits(s) }

// normHost maps a host to the form a domain rule is compared with: lower
// case ASCII (punycode for other scripts), no trailing dot, IPv4 in dotted
// decimal, IPv6 in its canonical text (IPv4-mapped ones as IPv4).
func normHost(h string) (string, bool) {
	if h == "" {
		return "", false
	}
	if strings.ContainsRune(h, '%') {
		u, err := url.PathUnescape(h)
		if err != nil {
			return "", false
		}
		h = u
		if !utf8.ValidString(h) {
			return "", false
		}
		for _, r := range h {
			if unicode.IsControl(r) || unicode.IsSpace(r) || r == unicode.ReplacementChar {
				return "", false
			}
		}
	}
	if strings.HasPrefix(h, "[") {
		if !strings.HasSuffix(h, "]") {
			return "", false
		}
		a, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil || a.Zone() != "" {
			return "", false
		}
		return canonAddr(a), true
	}
	a, err := idnaLookup.ToASCII(h)
	if err != nil {
		return "", false
	}
	a = strings.ToLower(strings.TrimSuffix(a, "."))
	if a == "" || strings.HasSuffix(a, ".") {
		return "", false
	}
	if again, err := idnaLookup.ToASCII(a); err != nil || again != a {
		return "", false // a name that does not read back the same is no name
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "", false
		}
	}
	if ip, isIP, ok := parseIPv4(a); isIP {
		if !ok {
			return "", false
		}
		return ip, true
	}
	return a, true
}

func canonAddr(a netip.Addr) string {
	if a.Is4In6() {
		a = a.Unmap()
	}
	return a.String()
}

// parseIPv4 reads a host as the WHATWG URL standard (and inet_aton) does:
// one to four parts, each decimal, octal (leading 0) or hex (0x), the last
// filling the remaining bytes. isIP says the host ends in a number (so a
// URL parser takes it as an address, or fails).
func parseIPv4(h string) (ip string, isIP, ok bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if hx, isHex := strings.CutPrefix(strings.ToLower(last), "0x"); !isDigits(last) && !(isHex && allHex(hx)) {
		return "", false, false // a domain name
	}
	if len(parts) > 4 {
		return "", true, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Part(p)
		if !ok {
			return "", true, false
		}
		nums[i] = n
	}
	var v uint64
	for i := 0; i < len(nums)-1; i++ {
		if nums[i] > 255 {
			return "", true, false
		}
		v = v<<8 | nums[i]
	}
	rest := uint(4 - (len(nums) - 1))
	lastN := nums[len(nums)-1]
	if lastN >= 1<<(8*rest) {
		return "", true, false
	}
	v = v<<(8*rest) | lastN
	return strconv.Itoa(int(v>>24&255)) + "." + strconv.Itoa(int(v>>16&255)) + "." +
		strconv.Itoa(int(v>>8&255)) + "." + strconv.Itoa(int(v&255)), true, true
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func ipv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// hostOf returns the one host a URL reaches, or "" when the readings
// disagree or it cannot be read (for suggestions and messages).
func hostOf(raw string) string {
	hs, ok := hostsOf(raw)
	if !ok || len(hs) != 1 {
		return ""
	}
	return hs[0]
}

// fetchURLs returns the URLs a curl or wget sub-command fetches (operands
// and --url values), and whether one of them is only known at run time.
func fetchURLs(sc *subCmd) (urls []string, unknown bool) {
	seen := map[string]bool{}
	for ti, text := range append([]string{sc.text}, sc.alts...) {
		ws := strings.Split(text, " ")
		if ti == 0 && sc.words() != nil {
			ws = sc.words() // the words, blanks inside them kept
		}
		n, ok := normalizeWords(ws)
		if !ok || n.path != "curl" && n.path != "wget" {
			continue
		}
		cands := n.operands
		for f := range n.flags {
			if v, ok := strings.CutPrefix(f, "--url="); ok {
				cands = append(cands, v)
			}
		}
		for _, u := range cands {
			if seen[u] {
				continue
			}
			seen[u] = true
			if strings.ContainsAny(u, "$`") {
				unknown = true
				continue
			}
			urls = append(urls, u)
		}
	}
	// the proxies and hosts it connects to instead (webhost_proxy.go).
	pt, pu := proxyTargets(sc)
	return append(urls, pt...), unknown || pu
}

// fetchRule: the first WebFetch domain rule of set naming a host that a
// curl or wget sub-command fetches from ("" url when none). Rules for every
// fetch (WebFetch, domain:*) are not applied to shell commands: they speak
// of the WebFetch tool. unreadable names a URL whose host cannot be read.
func (ev *evaluator) fetchRule(set *ruleSet, an *shellAnalysis) (r *rule, url, unreadable string) {
	if len(set.byTool["WebFetch"]) == 0 {
		return nil, "", ""
	}
	// proxy variables the line assigns as shell variables count for
	// every command of the line (a later export or set -a passes them on;
	// an already exported one changes by the assignment alone).
	subs := an.subs
	if len(an.proxies) > 0 {
		subs = append(append([]subCmd(nil), subs...), subCmd{text: "(proxy variables the command sets)", proxies: an.proxies})
	}
	meet := func(hosts []string, u string) {
		for _, rr := range set.byTool["WebFetch"] {
			if rr.kind != rkDomain || rr.domainAny || r != nil && rr.idx > r.idx {
				continue
			}
			for _, h := range hosts {
				if rr.domainMatches(h) && (r == nil || rr.idx < r.idx) {
					r, url = rr, u
				}
			}
		}
	}
	quiet := quietWords(subs)
	for i := range subs {
		urls, unknown := fetchURLs(&subs[i])
		if unknown && unreadable == "" {
			unreadable = subs[i].text
		}
		for _, u := range urls {
			hosts, ok := hostsOf(u)
			if !ok && unreadable == "" {
				unreadable = u
			}
			meet(hosts, u)
		}
		// the hosts its words name, whatever reads them (programs_hosts.go)
		named, globs, unknown := namedHosts(&subs[i], quiet)
		if unknown && unreadable == "" {
			unreadable = subs[i].text
		}
		for _, h := range named {
			meet([]string{h}, h)
		}
		if g := globHost(globs, set.byTool["WebFetch"]); g != "" && unreadable == "" {
			unreadable = g
		}
	}
	// bash's own connections: a redirect to /dev/tcp/HOST/PORT or
	// /dev/udp/HOST/PORT (cat < /dev/tcp/evil.com/80, exec 3<>/dev/tcp/...)
	for _, refs := range [][]pathRef{an.redirReads, an.redirWrites} {
		for _, p := range refs {
			h, ok := devNetHost(p.raw)
			if !ok {
				continue
			}
			hs, ok := expandBraces(h, 1024)
			if !ok || strings.ContainsAny(h, "$`*?[") {
				if unreadable == "" {
					unreadable = p.raw
				}
				continue
			}
			for _, x := range hs {
				wordHosts(x, false, func(n string) { meet([]string{n}, p.raw) })
			}
		}
	}
	// the values the line assigns to shell variables (H=evil.com; tool $H)
	for _, v := range an.assigned {
		wordHosts(v, false, func(h string) { meet([]string{h}, h) })
	}
	return r, url, unreadable
}

// devNetHost: the host of bash's network redirect path /dev/tcp/HOST/PORT
// or /dev/udp/HOST/PORT (bash opens a connection for it; no such file need
// exist).
func devNetHost(raw string) (string, bool) {
	for _, pre := range []string{"/dev/tcp/", "/dev/udp/"} {
		if rest, ok := strings.CutPrefix(path.Clean(raw)+"/", pre); ok {
			h, _, _ := strings.Cut(rest, "/")
			return h, h != ""
		}
	}
	return "", false
}
