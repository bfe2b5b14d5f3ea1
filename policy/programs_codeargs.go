package policy

import (
	"strings"
)

// Code carried in the arguments of known programs (docs/policy.md, "Code
// in the arguments of known programs"): a program's own command language
// that pipes to or from a shell command (sqlite3 `.read '|CMD'`, psql
// `\o |CMD`), a function that runs an editor command (sqlite3 edit()), a
// module loaded from a data: URL (node --import data:...), and an ex
// command given as `+CMD` wherever the option scan put it.

// sqliteEscapeAll: sqliteEscape, and the dot-commands whose file operand
// is a command when it starts with a pipe (`.read '|CMD'`, `.import '|CMD'
// TABLE`), and edit(TEXT, EDITOR), which runs EDITOR as a command (with
// one argument, $VISUAL or $EDITOR: known only at run time).
func sqliteEscapeAll(s string) (string, bool) {
	code, ok := sqliteEscape(s)
	var more []string
	if ok {
		more = append(more, code)
	}
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		for _, p := range []string{".read", ".import", ".open", ".excel", ".save", ".backup", ".restore", ".load"} {
			rest, cut := strings.CutPrefix(l, p)
			if !cut || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
				continue
			}
			r := strings.TrimLeft(strings.TrimSpace(rest), "'\"")
			if strings.HasPrefix(r, "|") {
				// the command runs to its closing quote (or the line's end).
				c := strings.TrimPrefix(r, "|")
				if i := strings.IndexAny(c, "'\""); i >= 0 {
					c = c[:i]
				}
				more = append(more, c)
			}
		}
	}
	low := strings.ToLower(s)
	for i := strings.Index(low, "edit("); i >= 0; {
		args, _, _ := strings.Cut(s[i+len("edit("):], ")")
		if ed := sqlArgs(args); len(ed) >= 2 {
			more = append(more, ed[1]+" /tmp/sqlite-edit")
		} else {
			more = append(more, "$VISUAL /tmp/sqlite-edit")
		}
		j := strings.Index(low[i+1:], "edit(")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return strings.Join(more, "\n"), len(more) > 0
}

// sqlArgs splits the literal arguments of an SQL function call; an
// argument that is not a string literal is "$UNKNOWN" (a variable command
// word: uncertain).
func sqlArgs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && p[0] == '\'' && p[len(p)-1] == '\'' {
			out = append(out, shellQuote(strings.ReplaceAll(p[1:len(p)-1], "''", "'"), false))
		} else {
			out = append(out, "$UNKNOWN")
		}
	}
	return out
}

// sqliteFileReads: the files sqlite3's dot-commands read (`.import FILE
// TABLE`, `.read FILE`, `.open FILE`, `.restore FILE`, `.load LIB`).
func sqliteFileReads(s string) []string {
	var files []string
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		for _, p := range []string{".read", ".import", ".open", ".restore", ".load"} {
			rest, cut := strings.CutPrefix(l, p)
			if !cut || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
				continue
			}
			ws := lexWords(strings.TrimSpace(rest))
			for len(ws) > 0 && strings.HasPrefix(ws[0], "-") {
				ws = ws[1:] // .import --csv FILE TABLE
			}
			if len(ws) > 0 && !strings.HasPrefix(ws[0], "|") {
				files = append(files, ws[0])
			}
		}
	}
	return files
}

// psqlEscape: backslashBang, and the meta-commands that pipe to a command
// (`\o |CMD`, `\g |CMD`, `\w |CMD`), `\copy ... PROGRAM 'CMD'` and the
// server-side `COPY ... PROGRAM 'CMD'`.
func psqlEscape(s string) (string, bool) {
	code, ok := backslashBang(s)
	var more []string
	if ok {
		more = append(more, code)
	}
	for _, stmt := range strings.FieldsFunc(s, func(c rune) bool { return c == '\n' }) {
		l := strings.TrimSpace(stmt)
		for _, p := range []string{`\o`, `\out`, `\g`, `\gx`, `\w`, `\write`} {
			rest, cut := strings.CutPrefix(l, p)
			if cut && (rest == "" || rest[0] == ' ' || rest[0] == '|') {
				if r := strings.TrimSpace(rest); strings.HasPrefix(r, "|") {
					more = append(more, r[1:])
				}
			}
		}
		low := strings.ToLower(l)
		if i := strings.Index(low, "program"); i >= 0 && strings.Contains(low, "copy") {
			r := strings.TrimSpace(l[i+len("program"):])
			if len(r) >= 2 && r[0] == '\'' {
				if j := strings.IndexByte(r[1:], '\''); j >= 0 {
					more = append(more, r[1:1+j])
					continue
				}
			}
			more = append(more, "$UNKNOWN")
		}
	}
	return strings.Join(more, "\n"), len(more) > 0
}

// declArgCode: the words the option scan read as option values are read
// through the program's escape too (vim does not group short options:
// `-es` is one option, so `vim -es +'!CMD'` must not hide +'!CMD' as the
// value of -s), and sqlite3's dot-commands name the files they read.
func (a *analyzer) declArgCode(d *progDecl, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	if d.escape != nil {
		for _, o := range opts {
			if o.val != nil && !containsStr(d.escapeOpts, o.name) && o.val.static {
				a.declEscape(d, sc, *o.val, true, ctx)
			}
		}
	}
	if d.name == "sqlite3" {
		texts := plain
		for _, o := range opts {
			if o.name == "-cmd" && o.val != nil {
				texts = append(texts, *o.val)
			}
		}
		for _, w := range texts {
			if !w.static {
				continue
			}
			for _, f := range sqliteFileReads(w.s) {
				sc.reads = append(sc.reads, a.pathRef(staticWordPath(f)))
			}
		}
	}
}

// dataURLCode: a module named by a data: URL is code given on the command
// line (node --import data:text/javascript,...): its text, or false.
func dataURLCode(v string) (string, bool) {
	if len(v) < 5 || !strings.EqualFold(v[:5], "data:") {
		return "", false
	}
	_, body, _ := strings.Cut(v, ",")
	return body, true
}
