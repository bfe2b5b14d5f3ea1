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

// psqlEscape: the commands psql text runs (psqlText, programs_pgsql.go):
// `\! CMD`, the meta-commands that pipe to a command
// (`\o |CMD`, `\g |CMD`, `\w |CMD`), `\copy ... PROGRAM 'CMD'` and the
// server-side `COPY ... PROGRAM 'CMD'`.
func psqlEscape(s string) (string, bool) {
	vars := &psqlVars{}
	_, metas := psqlLex(s)
	psqlSetVars(metas, vars)
	var e sqliteEffects
	psqlText(s, vars, &e) // programs_pgsql.go
	return strings.Join(e.code, "\n"), len(e.code) > 0
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
