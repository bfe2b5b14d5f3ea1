package policy

import (
	"path"
	"strings"
)

// jq's modules (red team 16): `import "NAME" as $v;` reads NAME.json and
// `import "NAME" as m;` / `include "NAME";` load NAME.jq (or
// NAME/LAST.jq) from the directories of -L (or, without one, jq's default
// search path: ~/.jq, $ORIGIN/../lib/jq, $ORIGIN/../lib) and of the
// import's own metadata ({search: DIR} or a list), a relative one from the
// current directory. Each candidate file is a read; a module of code may
// import more (not seen): doubt. A header the reader cannot parse, a
// program known only at run time or read from a file (-f), or an import
// past the header is doubt too: ask.

// jqDefaultSearch: jq's search path when no -L is given.
var jqDefaultSearch = []string{"~/.jq", "$ORIGIN/../lib/jq", "$ORIGIN/../lib"}

func jqHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	var lib []word
	fromFile := false
	for _, o := range opts {
		switch o.name {
		case "-L", "--library-path":
			if o.val == nil {
				a.setUncertain("jq -L without a directory")
				return
			}
			lib = append(lib, *o.val)
		case "-f", "--from-file":
			fromFile = true
		}
	}
	if fromFile {
		a.setUncertain("jq reads its program from a file: the modules it imports are not seen")
		return
	}
	if len(plain) == 0 {
		return
	}
	prog := plain[0]
	if !prog.static {
		a.setUncertain("jq runs a program known only at run time (it may import modules)")
		return
	}
	if !jqMentionsModules(prog.s) {
		return
	}
	mods, ok := jqHeader(prog.s)
	if !ok {
		a.setUncertain("jq's program imports modules the reader cannot resolve")
		return
	}
	dirs := func(m jqModule) []string {
		var ds []string
		ds = append(ds, m.search...)
		if len(lib) == 0 {
			return append(ds, jqDefaultSearch...)
		}
		for _, w := range lib {
			if !w.static || !w.pathOK || w.glob || w.brace {
				ds = append(ds, "$")
				continue
			}
			ds = append(ds, w.path)
		}
		return ds
	}
	for _, m := range mods {
		if !m.data {
			a.setUncertain("jq loads the code of module " + m.name + ", which may import more files")
		}
		for _, d := range dirs(m) {
			files := []string{m.name + ".json"}
			if !m.data {
				files = []string{m.name + ".jq", m.name + "/" + path.Base(m.name) + ".jq"}
			}
			for _, f := range files {
				if strings.HasPrefix(d, "$") {
					optUnknownRead(sc, "jq "+d)
					sc.optReads = append(sc.optReads, optRead{opt: "-L", ref: pathRef{raw: d + "/" + f, unknown: true}})
					continue
				}
				w := staticWordPath(path.Join(d, f))
				a.optRead(sc, "-L", &w)
			}
		}
	}
}

// jqMentionsModules: the program text holds a word that loads modules.
func jqMentionsModules(s string) bool {
	return jqWordAt(s, "import") >= 0 || jqWordAt(s, "include") >= 0
}

// jqWordAt: the index of kw as a whole identifier in s, or -1.
func jqWordAt(s, kw string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], kw)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(kw)
		if (i == 0 || !jqIdentByte(s[i-1])) && (end == len(s) || !jqIdentByte(s[end])) {
			return i
		}
		from = i + 1
	}
}

func jqIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// jqModule is one import or include of a jq program's header.
type jqModule struct {
	name   string
	data   bool     // import "NAME" as $v: NAME.json
	search []string // the metadata's search directories
}

// jqHeader reads the module directive and imports that open a jq program;
// ok false when the header cannot be read for certain or another import
// or include follows it.
func jqHeader(s string) (mods []jqModule, ok bool) {
	p := &jqLex{s: s}
	if p.ident() == "module" {
		p.take()
		if _, ok := p.object(); !ok || !p.punct(';') {
			return nil, false
		}
	}
	for {
		kw := p.ident()
		if kw != "import" && kw != "include" {
			break
		}
		p.take()
		name, ok := p.str()
		if !ok || name == "" || strings.HasPrefix(name, "/") || strings.HasPrefix(name, "~") || strings.HasPrefix(name, "$") {
			return nil, false
		}
		m := jqModule{name: name}
		if kw == "import" {
			if p.ident() != "as" {
				return nil, false
			}
			p.take()
			v := p.ident()
			if v == "" {
				return nil, false
			}
			p.take()
			m.data = strings.HasPrefix(v, "$")
		}
		if p.peek() == '{' {
			meta, ok := p.object()
			if !ok {
				return nil, false
			}
			if m.search, ok = jqSearch(meta); !ok {
				return nil, false
			}
		}
		if !p.punct(';') {
			return nil, false
		}
		mods = append(mods, m)
	}
	if p.bad || jqMentionsModules(s[p.i:]) {
		return nil, false
	}
	return mods, true
}

// jqSearch: the search directories of an import's metadata object (its
// text): "search": "DIR" or ["DIR", ...]; a value the reader cannot read
// is not ok.
func jqSearch(meta string) ([]string, bool) {
	p := &jqLex{s: meta[1 : len(meta)-1]}
	var dirs []string
	for !p.end() {
		var key string
		if p.peek() == '"' {
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			key = k
		} else {
			key = p.ident()
			if key == "" {
				return nil, false
			}
			p.take()
		}
		if !p.punct(':') {
			return nil, false
		}
		switch p.peek() {
		case '"':
			v, ok := p.str()
			if !ok {
				return nil, false
			}
			if key == "search" {
				dirs = append(dirs, v)
			}
		case '[':
			p.i++
			for {
				if p.punct(']') {
					break
				}
				v, ok := p.str()
				if !ok {
					return nil, false
				}
				if key == "search" {
					dirs = append(dirs, v)
				}
				if !p.punct(',') && p.peek() != ']' {
					return nil, false
				}
			}
		default:
			if key == "search" {
				return nil, false
			}
			// another key's value: a constant the reader skips
			// (numbers, true, false, null, objects).
			if p.peek() == '{' {
				if _, ok := p.object(); !ok {
					return nil, false
				}
			} else if p.ident() != "" {
				p.take()
			} else {
				for !p.end() && p.peek() != ',' && p.peek() != '}' {
					p.i++
				}
			}
		}
		if !p.punct(',') && !p.end() {
			return nil, false
		}
	}
	for i, d := range dirs {
		if strings.HasPrefix(d, "$ORIGIN") || strings.Contains(d, "$") {
			dirs[i] = "$"
		} else if d == "." || strings.HasPrefix(d, "./") {
			dirs[i] = strings.TrimPrefix(strings.TrimPrefix(d, "."), "/")
			if dirs[i] == "" {
				dirs[i] = "."
			}
		}
	}
	return dirs, !p.bad
}

// jqLex reads the tokens of a jq program's header.
type jqLex struct {
	s   string
	i   int
	tok string // the identifier peeked
	bad bool   // a comment continued with a backslash: not read
}

// skip passes blanks and comments.
func (p *jqLex) skip() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '#':
			j := strings.IndexByte(p.s[p.i:], '\n')
			if j < 0 {
				j = len(p.s) - p.i
			}
			line := strings.TrimRight(p.s[p.i:p.i+j], "\r")
			if strings.HasSuffix(line, "\\") {
				// jq 1.7.1 continues the comment on the next line, 1.6
				// does not: what follows is read two ways.
				p.bad = true
			}
			p.i += j
		default:
			return
		}
	}
}

func (p *jqLex) end() bool { p.skip(); return p.i >= len(p.s) }

func (p *jqLex) peek() byte {
	p.skip()
	if p.i >= len(p.s) {
		return 0
	}
	return p.s[p.i]
}

// ident peeks the identifier (or $name) at the cursor ("" if none).
func (p *jqLex) ident() string {
	p.skip()
	j := p.i
	for j < len(p.s) && (jqIdentByte(p.s[j]) || p.s[j] == ':' && j+1 < len(p.s) && p.s[j+1] == ':') {
		if p.s[j] == ':' {
			j++
		}
		j++
	}
	p.tok = p.s[p.i:j]
	return p.tok
}

// take consumes the identifier ident peeked.
func (p *jqLex) take() { p.i += len(p.tok); p.tok = "" }

func (p *jqLex) punct(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// str reads a string literal without interpolation.
func (p *jqLex) str() (string, bool) {
	if p.peek() != '"' {
		return "", false
	}
	var b strings.Builder
	for j := p.i + 1; j < len(p.s); j++ {
		switch c := p.s[j]; c {
		case '"':
			p.i = j + 1
			return b.String(), true
		case '\\':
			if j+1 >= len(p.s) {
				return "", false
			}
			j++
			switch e := p.s[j]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			default:
				return "", false // \( interpolation, \u escapes: not read
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// object reads a balanced {...} (strings skipped) and returns its text.
func (p *jqLex) object() (string, bool) {
	if p.peek() != '{' {
		return "", false
	}
	start, depth := p.i, 0
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				p.i++
				return p.s[start:p.i], true
			}
		case '"':
			if _, ok := p.str(); !ok {
				return "", false
			}
			continue
		case '#':
			p.skip()
			continue
		}
		p.i++
	}
	return "", false
}
