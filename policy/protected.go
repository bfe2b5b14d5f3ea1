package policy

import (
	"path"
	"strconv"
	"strings"
	"sync"
)

// Protected files: the files the policy itself lives in, and the files that
// make a program run code later (the editor's settings, other agents'
// policies, git's config and hooks, shell startup files, ssh's keys). A
// write to one asks in every mode and is never covered by an allow rule, a
// session grant, acceptEdits or bypass (a circuit breaker): the policy
// cannot be rewritten by what it governs. See docs/policy.md, "Protected
// files".

// protRule is a protected location. segs are path segments (each may be a
// glob segment); a path is protected when the segments appear as a run of
// its own segments (it is that location or inside it).
type protRule struct {
	segs []string
	what string // how the breaker names it
	// probe is a name the glob segment stands for when a glob or a
	// recursive operation is checked against the rule ("" = segs as is).
	probe string
}

// The rules below are read from the one table of protected places
// (places.go), which the OS sandbox reads too.

// anywhereRules are protected at any depth (the workspace's, and any
// directory's that could be opened as a workspace).
var anywhereRules = rulesOf(InRoot, false)

// homeRules are protected under the home directory.
var homeRules = rulesOf(InHome, false)

// startupHomeDirs: files and directories under home that run at login or at
// every shell start.
var startupHomeDirs = pathsOf(InHome, true)

// systemStartup: system-wide files and directories that run code at login,
// at every shell start, as root, or that govern ssh and other agents.
var systemStartup = pathsOf(InSystem, false)

// probeSegs are r's segments with each glob segment replaced by its probe.
func probeSegs(r protRule) []string {
	if r.probe == "" {
		return r.segs
	}
	out := append([]string(nil), r.segs...)
	for i, s := range out {
		if strings.ContainsAny(s, "*?[") {
			out[i] = r.probe
		}
	}
	return out
}

// devProbes stand for the block and memory devices when a glob is checked.
var devProbes = []string{"/dev/sda", "/dev/sdb", "/dev/hda", "/dev/vda", "/dev/xvda", "/dev/nvme0n1", "/dev/mmcblk0",
	"/dev/disk0", "/dev/rdisk0", "/dev/md0", "/dev/dm-0", "/dev/loop0", "/dev/mapper/root", "/dev/mem", "/dev/kmem", "/dev/port"}

// segsMatch: the glob segments pat match the literal segments lit (same
// length), as a shell expands them: a wildcard never matches a leading dot.
func segsMatch(pat, lit []string) bool {
	if len(pat) != len(lit) {
		return false
	}
	for i := range pat {
		if !segMatch(pat[i], lit[i]) {
			return false
		}
	}
	return true
}

func segMatch(pat, lit string) bool {
	// case-insensitive file systems (macOS, Windows) open .ACP-Bridge.yaml
	// as .acp-bridge.yaml: protected names match in any case.
	if !strings.ContainsAny(pat, "*?[\\") && isASCII(pat) && isASCII(lit) {
		// ASCII with no glob: equal once folded, without lower-casing
		// copies (the same answer as below).
		return asciiEqualFold(pat, lit)
	}
	pat, lit = strings.ToLower(pat), strings.ToLower(lit)
	if pat == lit {
		return true
	}
	if !strings.ContainsAny(pat, "*?[\\") {
		return false
	}
	if strings.HasPrefix(lit, ".") && !strings.HasPrefix(pat, ".") && !strings.HasPrefix(pat, "\\.") {
		return false
	}
	return matchGlob(pat, lit)
}

func splitAbs(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// protectedFile names the protected file or directory p (clean, absolute)
// is or lies in, "" if none. The rule tables are matched folded and
// indexed (protmatch.go); the answer is the first rule of each table that
// matches, as the plain loops over them would find it.
func (e *envx) protectedFile(p string) string {
	lp := strings.ToLower(p)
	for _, pp := range e.protected {
		if within(p, pp) || within(lp, strings.ToLower(pp)) {
			return "write to the protected policy file " + pp
		}
	}
	var buf [32]string
	segs := splitAbsInto(buf[:], p)
	if ri, i := anywhereFold.firstAnywhere(segs); ri >= 0 {
		r := anywhereRules[ri]
		name := strings.Join(segs[i:i+len(r.segs)], "/")
		return "write to " + r.what + " " + name + " (" + p + ")"
	}
	if h := strings.ToLower(e.home); h != "" && h != "/" && within(lp, h) && lp != h {
		var rbuf [32]string
		rel := splitAbsInto(rbuf[:], lp[len(h)+1:])
		if ri := homeFold.firstAtStart(rel); ri >= 0 {
			r := homeRules[ri]
			return "write to " + r.what + " ~/" + strings.Join(r.segs, "/") + " (" + p + ")"
		}
		if di := startupFold.firstAtStart(rel); di >= 0 {
			return "write to the login or shell startup file ~/" + startupHomeDirs[di]
		}
	}
	for i, d := range systemStartupLower {
		if within(lp, d) {
			return "write to the system startup or security file " + systemStartup[i]
		}
	}
	return ""
}

// probe is one concrete protected location and how its breaker names it.
type probe struct {
	path string
	name string
}

// probeList is every concrete protected location of this Env (under the
// workspace root, the working directory and home, the absolute ones, and
// Env.ProtectedPaths): where a recursive operation or a glob is checked
// against the rules. It depends on those paths alone (no file system is
// read), so the lists of the last environments are kept (probeCache):
// building one runs the breakers over about 150 places. The list is
// shared: callers only read it.
func (e *envx) probeList() []probe {
	if e.probes != nil {
		return e.probes
	}
	e.probeKey = probeKey(e)
	if set, ok := probeCache.get(e.probeKey); ok {
		e.probes, e.probePaths = set.list, set.paths
		return e.probes
	}
	set := probeSet{list: e.buildProbeList()}
	set.paths = make([]string, len(set.list))
	for i, pr := range set.list {
		set.paths[i] = pr.path
	}
	probeCache.put(e.probeKey, set)
	e.probes, e.probePaths = set.list, set.paths
	return e.probes
}

// probeSet is one Env's protected locations, and their paths alone (what a
// PlaceResolver is asked about).
type probeSet struct {
	list  []probe
	paths []string
}

// probeCache holds the probe lists of up to maxProbeLists environments
// (the bridge decides for a few workspaces and homes at a time); when it
// is full it starts again empty.
var probeCache = probeLists{m: map[string]probeSet{}}

const maxProbeLists = 64

type probeLists struct {
	mu sync.Mutex
	m  map[string]probeSet
}

func (c *probeLists) get(key string) (probeSet, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out, ok := c.m[key]
	return out, ok
}

func (c *probeLists) put(key string, out probeSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxProbeLists {
		clear(c.m)
	}
	c.m[key] = out
}

// probeKey is what probeList depends on: the workspace root, the working
// directory, home and the protected paths.
func probeKey(e *envx) string {
	var b strings.Builder
	for _, s := range []string{e.root, e.cwd, e.home} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	for _, s := range e.protected {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.String()
}

// buildProbeList computes probeList.
func (e *envx) buildProbeList() []probe {
	var out []probe
	add := func(p string) {
		if p == "" {
			return
		}
		for _, q := range out {
			if q.path == p {
				return
			}
		}
		n := e.writeBreakerAt(p, false, false)
		if n == "" {
			return
		}
		out = append(out, probe{path: p, name: n})
	}
	for _, a := range []string{e.root, e.cwd} {
		if a == "" {
			continue
		}
		add(path.Join(a, ".git"))
		for _, r := range anywhereRules {
			add(path.Join(a, strings.Join(probeSegs(r), "/")))
		}
	}
	if h := e.home; h != "" && h != "/" {
		for _, r := range homeRules {
			add(path.Join(h, strings.Join(probeSegs(r), "/")))
		}
		for _, d := range startupHomeDirs {
			add(path.Join(h, d))
		}
		for _, rc := range rcFiles {
			add(path.Join(h, rc))
		}
		add(path.Join(h, ".ssh", "authorized_keys"))
	}
	for _, p := range e.protected {
		add(p)
	}
	for _, d := range systemStartup {
		if path.IsAbs(d) { // not C:\ProgramData\...: a relative name here, resolved against the cwd at every decision for nothing
			add(d)
		}
	}
	if out == nil {
		out = []probe{}
	}
	return out
}

// probeUnder names a protected location that lies strictly inside dir (a
// recursive operation on dir reaches it), "" if none.
func (e *envx) probeUnder(dir string) string {
	if dir == "" {
		return ""
	}
	for _, pr := range e.probeList() {
		if pr.path != dir && within(pr.path, dir) {
			n := strings.TrimPrefix(strings.TrimPrefix(pr.name, "write to "), "write ")
			return n + " (inside " + dir + ")"
		}
	}
	return ""
}

// globBreaker checks a glob or brace write target against the protected
// locations: pattern is the word (~ expanded), cwd what it is relative to.
// It names what the glob could reach, "" if nothing; a pattern too large to
// expand is itself a reason to ask.
func (e *envx) globBreaker(pattern, cwd string, recursive bool) string {
	alts, ok := expandBraces(pattern, 64)
	if !ok {
		return "write to " + pattern + ", a brace expansion too large to check for protected files"
	}
	for _, alt := range alts {
		if !path.IsAbs(alt) {
			if cwd == "" {
				return "write to " + alt + ", relative to a directory known only at run time"
			}
			alt = cwd + "/" + alt
		}
		alt = path.Clean(alt)
		if !strings.ContainsAny(alt, "*?[") {
			// a brace alternative with no wildcard is a plain path.
			pi := pathInfo{raw: alt, abs: alt, recursive: recursive}
			pi.real, pi.unsure = realPath(e.fs, alt, "/", e.home)
			if b := e.writeBreaker(pi); b != "" {
				return b
			}
			continue
		}
		g := splitAbs(alt)
		if b := e.globHit(g, recursive); b != "" {
			return b + " (through the glob " + pattern + ")"
		}
	}
	return ""
}

func (e *envx) globHit(g []string, recursive bool) string {
	probes := e.probeList()
	for _, pr := range probes {
		p := splitAbs(pr.path)
		switch {
		case len(g) >= len(p):
			if segsMatch(g[:len(p)], p) {
				return pr.name
			}
		case recursive:
			if segsMatch(g, p[:len(g)]) {
				return pr.name
			}
		}
	}
	for _, d := range devProbes {
		if segsMatch(g, splitAbs(d)) {
			return "write to the device " + d
		}
	}
	for _, r := range anywhereRules {
		if !strings.HasPrefix(r.segs[0], ".") {
			// opencode.json, *.code-workspace, User/settings.json: a plain
			// * matches them, so rm -rf build/* would ask; the workspace
			// root's and the cwd's are among the probes above.
			continue
		}
		segs := probeSegs(r)
		for i := 0; i+len(segs) <= len(g); i++ {
			ok := true
			for k := range segs {
				if !segMatch(g[i+k], segs[k]) {
					ok = false
					break
				}
			}
			if ok {
				return "write to " + r.what + " " + strings.Join(r.segs, "/")
			}
		}
		if recursive {
			// the glob's last segments name a directory the rule's first
			// segments could be inside of.
			for k := 1; k < len(segs) && k <= len(g); k++ {
				if segsMatch(g[len(g)-k:], segs[:k]) {
					return "write to " + r.what + " " + strings.Join(r.segs, "/")
				}
			}
		}
	}
	if e.home != "" {
		h := splitAbs(e.home)
		if len(g) > len(h) && segsMatch(g[:len(h)], h) {
			// rc files directly in home
			for _, rc := range rcFiles {
				if segsMatch(g[len(h):], splitAbs(rc)) {
					return "write to the shell startup file ~/" + rc
				}
			}
		}
	}
	return ""
}

// expandBraces expands the unquoted brace alternatives of a word ({a,b},
// {1..3} is kept as is: it names no protected file). false when there would
// be more than max words.
func expandBraces(s string, max int) ([]string, bool) {
	out := []string{s}
	for round := 0; round < 16; round++ {
		changed := false
		var next []string
		for _, w := range out {
			pre, alts, post, ok := firstBrace(w)
			if !ok {
				next = append(next, w)
				continue
			}
			changed = true
			for _, a := range alts {
				next = append(next, pre+a+post)
			}
			if len(next) > max {
				return nil, false
			}
		}
		out = next
		if !changed {
			return out, true
		}
	}
	return nil, false
}

// firstBrace finds the first {x,y,...} group with a comma at its top level.
func firstBrace(w string) (pre string, alts []string, post string, ok bool) {
	for i := 0; i < len(w); i++ {
		if w[i] != '{' {
			continue
		}
		depth := 0
		start := i + 1
		var parts []string
		for j := i; j < len(w); j++ {
			switch w[j] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					if parts == nil {
						// {a..e}, {1..10}, {01..10..2}: bash's sequence
						// expressions
						if seq, ok := braceSequence(w[start:j]); ok {
							return w[:i], seq, w[j+1:], true
						}
						j = len(w)
						break
					}
					parts = append(parts, w[start:j])
					return w[:i], parts, w[j+1:], true
				}
			case ',':
				if depth == 1 {
					parts = append(parts, w[start:j])
					start = j + 1
				}
			}
		}
	}
	return "", nil, "", false
}

// braceSequence expands the body of a bash sequence expression (x..y or
// x..y..step, x and y both integers or both single letters); more than
// 4096 items is not a sequence the reader expands (ok false).
func braceSequence(body string) ([]string, bool) {
	f := strings.Split(body, "..")
	if len(f) != 2 && len(f) != 3 {
		return nil, false
	}
	step := 1
	if len(f) == 3 {
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		if n != 0 {
			step = n
		}
	}
	letter := func(x string) bool {
		return len(x) == 1 && (x[0] >= 'a' && x[0] <= 'z' || x[0] >= 'A' && x[0] <= 'Z')
	}
	var out []string
	emit := func(from, to int, str func(int) string) bool {
		dir := step
		if to < from {
			dir = -step
		}
		for v := from; dir > 0 && v <= to || dir < 0 && v >= to; v += dir {
			if len(out) >= 4096 {
				return false
			}
			out = append(out, str(v))
		}
		return true
	}
	if letter(f[0]) && letter(f[1]) {
		return out, emit(int(f[0][0]), int(f[1][0]), func(v int) string { return string(rune(v)) })
	}
	a, errA := strconv.Atoi(f[0])
	b, errB := strconv.Atoi(f[1])
	if errA != nil || errB != nil {
		return nil, false
	}
	width := 0
	for _, x := range f[:2] {
		t := strings.TrimPrefix(x, "-")
		if len(t) > 1 && t[0] == '0' && len(x) > width {
			width = len(x)
		}
	}
	return out, emit(a, b, func(v int) string {
		n := strconv.Itoa(v)
		for len(n) < width {
			if v < 0 {
				n = "-0" + n[1:]
			} else {
				n = "0" + n
			}
		}
		return n
	})
}
