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
// value of -s). sqlite3's code is read by its hook (programs_sqlite.go).
func (a *analyzer) declArgCode(d *progDecl, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	if d.escape != nil {
		for _, o := range opts {
			if o.val != nil && !containsStr(d.escapeOpts, o.name) && o.val.static {
				a.declEscape(d, sc, "", *o.val, ctx)
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
