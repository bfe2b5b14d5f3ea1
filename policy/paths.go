package policy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// FS is the engine's only window on the file system: symlink resolution.
type FS interface {
	// EvalSymlinks returns path with every symbolic link resolved, like
	// filepath.EvalSymlinks. It may fail for paths that do not exist.
	EvalSymlinks(path string) (string, error)
}

// OSFS resolves symlinks on the real file system.
type OSFS struct{}

// EvalSymlinks implements FS with filepath.EvalSymlinks.
func (OSFS) EvalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }

// Exists implements existsFS with one lstat(2).
func (OSFS) Exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// existsFS is an FS that can tell cheaply whether a path exists (the last
// component not followed). resolveReal uses it to skip the EvalSymlinks
// calls that must fail: each walks the path from the root.
type existsFS interface {
	Exists(path string) bool
}

// MapFS is an in-memory FS for tests and `policy eval`: link -> target.
// A relative target is relative to the link's directory. Paths that are
// not links (nor under one) resolve to themselves, existing or not.
type MapFS map[string]string

// errSymlinkLoop is returned by MapFS for too many link hops.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// EvalSymlinks resolves p component by component through the map, as the
// kernel does: each link is replaced by its target before the components
// that follow it (a ".." after a link climbs from the link's target, not
// from the link's directory).
func (m MapFS) EvalSymlinks(p string) (string, error) {
	if !path.IsAbs(p) {
		return "", fmt.Errorf("resolve %q: not an absolute path", p)
	}
	cur := "/"
	todo := strings.Split(p, "/")
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		target, ok := m[next]
		if !ok {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("resolve %q: %w", p, errSymlinkLoop)
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return cur, nil
}

// maxLinkHops bounds symlink resolution, as the kernel's ELOOP does.
const maxLinkHops = 40

// isLoop: err says a path could not be resolved for too many links.
func isLoop(err error) bool {
	return errors.Is(err, errSymlinkLoop) || errors.Is(err, syscall.ELOOP) ||
		strings.Contains(err.Error(), "too many links") || strings.Contains(err.Error(), "too many levels of symbolic links")
}

// realPath resolves raw (absolute or relative to cwd, ~ for home, not yet
// cleaned) as the kernel would open it: every symlink is followed before
// the ".." that comes after it, so with link -> ~/.ssh, link/../.ssh/x is
// ~/.ssh/x, not ./.ssh/x. unsure is set when a link loops (or the chain is
// too long): the real path cannot be known.
func realPath(fs FS, raw, cwd, home string) (real string, unsure bool) {
	return realPathAbs(fs, absPath(raw, cwd, home))
}

// realPathAbs is realPath of raw made absolute (absPath), not cleaned:
// links resolve before the .. after them.
func realPathAbs(fs FS, raw string) (real string, unsure bool) {
	if fs == nil {
		return path.Clean(raw), false
	}
	segs := strings.Split(raw, "/")
	firstUp := -1
	for i, s := range segs {
		if s == ".." {
			firstUp = i
			break
		}
	}
	if firstUp < 0 {
		return resolveRealx(fs, path.Clean(raw))
	}
	// the part before the first "..", then one component at a time.
	cur, unsure := resolveRealx(fs, path.Clean("/"+strings.Join(segs[:firstUp], "/")))
	for _, s := range segs[firstUp:] {
		switch s {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		var u bool
		cur, u = resolveRealx(fs, path.Join(cur, s))
		unsure = unsure || u
	}
	return cur, unsure
}

// resolveReal resolves symlinks in abs through fs. For a path that does
// not exist yet (a file about to be written), the longest existing parent
// is resolved and the rest appended. With no fs, or on failure, abs is
// returned unchanged.
func resolveReal(fs FS, abs string) string {
	r, _ := resolveRealx(fs, abs)
	return r
}

// resolveRealx is resolveReal that also says whether a symlink loop (or a
// chain too long to follow) left the real path unknown.
func resolveRealx(fs FS, abs string) (string, bool) {
	return resolveRealDepth(fs, abs, 0)
}

// readlinkFS is an FS that can read one link: a dangling link (its target
// does not exist yet) still leads somewhere, and writing through it creates
// the target there.
type readlinkFS interface {
	Readlink(path string) (string, error)
}

// Readlink implements readlinkFS with readlink(2).
func (OSFS) Readlink(p string) (string, error) { return os.Readlink(p) }

func resolveRealDepth(fs FS, abs string, depth int) (string, bool) {
	if fs == nil {
		return abs, false
	}
	if depth > maxLinkHops {
		return abs, true
	}
	rest := ""
	p := abs
	ex, canCheck := fs.(existsFS)
	unsure := false
	for i := 0; i < 256; i++ {
		// A path that does not exist cannot be resolved either (lstat
		// follows every component but the last, as EvalSymlinks does):
		// climb without trying.
		if !canCheck || ex.Exists(p) {
			r, err := fs.EvalSymlinks(p)
			if err == nil {
				if rest == "" {
					return r, unsure
				}
				return path.Join(r, rest), unsure
			}
			if isLoop(err) {
				unsure = true
			} else if rl, ok := fs.(readlinkFS); ok && canCheck {
				// p exists but does not resolve: a dangling link leads
				// to where its target will be created.
				if target, lerr := rl.Readlink(p); lerr == nil && target != "" {
					if !path.IsAbs(target) {
						dir, _ := resolveRealDepth(fs, path.Dir(p), depth+1)
						target = path.Join(dir, target)
					}
					return resolveRealDepth(fs, path.Join(path.Clean(target), rest), depth+1)
				}
			}
		}
		if p == "/" || p == "." || p == "" {
			break
		}
		dir, base := path.Split(p)
		if rest == "" {
			rest = base
		} else {
			rest = base + "/" + rest
		}
		p = path.Clean(dir)
	}
	return abs, unsure
}

// canonPath makes p absolute (against cwd, ~ against home) and clean.
func canonPath(p, cwd, home string) string {
	return path.Clean(absPath(p, cwd, home))
}

// absPath makes p absolute: ~ and ~/x against home, a relative path against
// cwd ("/" if unknown). It does not clean: realPath resolves symlinks
// before the .. that follows them.
func absPath(p, cwd, home string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	}
	if !path.IsAbs(p) {
		if cwd == "" {
			cwd = "/"
		}
		p = cwd + "/" + p
	}
	return p
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || (len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir)
}

type anchorKind uint8

const (
	anchorAbs  anchorKind = iota // //abs
	anchorHome                   // ~/x
	anchorRoot                   // /x: the rule source's root
	anchorCwd                    // ./x, x
)

// pathPattern is a compiled Read/Edit specifier.
type pathPattern struct {
	anchor anchorKind
	root   string // anchorRoot: Origin.Root ("" = Env.ProjectRoot)
	// glob is the gitignore-style pattern relative to the anchor's base;
	// "" means the base itself (and so everything under it). A bare name
	// gets a "**/" prefix (any depth).
	glob string
	// up: the glob starts with ../ segments; base and glob are joined at
	// match time.
	up bool
	// prog is glob compiled (nil for "" or up).
	prog *globProg
	// steps, when set (tests), counts the matcher's work.
	steps *int
}

// compilePathPattern compiles a Read/Edit specifier. strict is set for deny
// and ask rules: there a bare name (no slash) matches a file of that name
// anywhere, not only below the cwd, so `Read(.env*)` still denies after
// `cd ~` or for an absolute path elsewhere. (Claude Code scopes bare names to
// the cwd; for a deny that would be a way around it.)
func compilePathPattern(spec string, o Origin, strict bool) (pathPattern, error) {
	var p pathPattern
	s := spec
	switch {
	case strings.HasPrefix(s, "//"):
		p.anchor, s = anchorAbs, s[2:]
	case s == "~":
		p.anchor, s = anchorHome, ""
	case strings.HasPrefix(s, "~/"):
		p.anchor, s = anchorHome, s[2:]
	case strings.HasPrefix(s, "~"):
		return p, fmt.Errorf("%w %q: unknown anchor (use ~/ for the home directory)", ErrRuleSpecifier, spec)
	case strings.HasPrefix(s, "/"):
		p.anchor, p.root, s = anchorRoot, o.Root, s[1:]
	case s == "." || s == "./":
		p.anchor, s = anchorCwd, ""
	case strings.HasPrefix(s, "./"):
		p.anchor, s = anchorCwd, s[2:]
	case strings.HasPrefix(s, "$") || strings.HasPrefix(s, "%"):
		return p, fmt.Errorf("%w %q: unknown anchor (variables are not expanded; use //, ~/, / or ./)", ErrRuleSpecifier, spec)
	default:
		p.anchor = anchorCwd
		switch {
		case !strings.Contains(strings.TrimSuffix(s, "/"), "/") && s != ".." && s != ".":
			s = "**/" + s // a bare name matches at any depth
			if strict {
				p.anchor = anchorAbs // ... and, for deny and ask, anywhere
			}
		case strict && s != ".." && !strings.HasPrefix(s, "../"):
			// deny and ask: a relative pattern (secrets/**, src/*.key)
			// matches at any depth, anywhere (docs/policy.md, Paths).
			if !strings.HasPrefix(s, "**/") {
				s = "**/" + s
			}
			p.anchor = anchorAbs
		}
	}
	if strings.ContainsRune(s, 0) {
		return p, fmt.Errorf("%w %q: NUL in path", ErrRuleSpecifier, spec)
	}
	s = strings.TrimSuffix(s, "/") // dir-only: contents of a dir match anyway
	if s != "" {
		s = path.Clean(s)
		if s == "." {
			s = ""
		}
	}
	if s == ".." || strings.HasPrefix(s, "../") {
		if p.anchor == anchorAbs {
			s = strings.TrimLeft(path.Clean("/"+s), "/")
		} else {
			p.up = true
		}
	}
	// ** is special only as a whole segment; elsewhere it is *.
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		if seg != "**" {
			for strings.Contains(seg, "**") {
				seg = strings.ReplaceAll(seg, "**", "*")
			}
			segs[i] = seg
		}
		if err := checkGlobSegment(seg); err != nil {
			return p, fmt.Errorf("%w %q: %v", ErrRuleSpecifier, spec, err)
		}
	}
	p.glob = strings.Join(segs, "/")
	if p.glob != "" && !p.up {
		p.prog = compileGlob(p.glob)
	}
	return p, nil
}

func checkGlobSegment(seg string) error {
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(seg) && (seg[j] == '!' || seg[j] == '^') {
				j++
			}
			if j < len(seg) && seg[j] == ']' {
				j++
			}
			for j < len(seg) && seg[j] != ']' {
				if seg[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(seg) {
				return errors.New("unterminated [ in pattern")
			}
			i = j
		}
	}
	return nil
}

// base returns the directory the pattern is anchored at.
func (p *pathPattern) base(e *envx) string {
	switch p.anchor {
	case anchorAbs:
		return "/"
	case anchorHome:
		return e.home
	case anchorRoot:
		if p.root != "" {
			return path.Clean(p.root)
		}
		return e.root
	}
	return e.cwd
}

// matchAt reports whether the absolute path abs matches with the pattern
// anchored at base. Like gitignore, a pattern that matches a directory
// matches everything under it.
func (p *pathPattern) matchAt(abs, base string) bool {
	if base == "" {
		return false
	}
	glob := p.glob
	if p.up {
		joined := path.Join(base, glob)
		base, glob = "/", strings.TrimPrefix(joined, "/")
	}
	if !within(abs, base) {
		return false
	}
	var rel string
	switch {
	case abs == base:
		rel = ""
	case base == "/":
		rel = abs[1:]
	default:
		rel = abs[len(base)+1:]
	}
	if glob == "" {
		return true
	}
	prog := p.prog
	if prog == nil || p.up {
		prog = compileGlob(glob)
	}
	// the whole path, or any leading part of it ending before a "/".
	return prog.match(rel, '/', p.steps)
}
