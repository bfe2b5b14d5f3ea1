package policy

import (
	"strings"
)

// psql's language (red team 17): the text of a -c value or of standard
// input, read as psql's lexer does (src/bin/psql/psqlscanslash.l and
// src/fe_utils/psqlscan.l). A backslash outside SQL quotes ('..', E'..',
// "..", $tag$..$tag$, comments) starts a meta-command; its arguments
// continue to the end of the line or the next unquoted backslash. In an
// argument:
//   - '..' resolves backslash escapes (\n \t \b \r \f, octal \NNN, hex
//     \xHH; '' is '), ".." is kept with its quotes, `..` is a shell command;
//   - :NAME, :'NAME' and :"NAME" interpolate the variable NAME (set by
//     -v/--set/--variable NAME=VALUE or \set NAME VALUE; \gset, \getenv
//     and \prompt set variables at run time);
//   - \g and \gx take "(OPTION=VALUE ...)" before their file.
//
// The SQL goes to the server, which runs outside the agent's sandbox:
// COPY ... TO|FROM PROGRAM 'CMD' runs CMD, COPY ... TO 'F' writes F and
// COPY ... FROM 'F' reads it, and the server's file functions
// (pg_read_file, lo_import, lo_export, pg_file_write, ...) read or write
// theirs; SQL built at run time (DO, CREATE FUNCTION, \gexec,
// query_to_xml, dblink, LOAD, ALTER SYSTEM, ...) is a doubt.

// psqlVars: psql's variables as the reader knows them.
type psqlVars struct {
	vals    map[string][]string
	dynamic string // why a variable may hold a value the reader cannot know
}

func (v *psqlVars) set(name, val string) {
	if v.vals == nil {
		v.vals = map[string][]string{}
	}
	if strings.ContainsAny(val, ":`") {
		v.dynamic = "psql variable " + name + " holds an interpolation or a shell command"
		return
	}
	v.vals[name] = append(v.vals[name], val)
}

// psqlArgPiece: a piece of a meta-command argument: text, or a variable.
type psqlArgPiece struct {
	text string
	vr   string // the variable interpolated (text empty)
	q    byte   // :'vr' or :"vr": psql quotes the value ('v', "v")
}

// psqlMetaCmd: one meta-command: its name and arguments; pipe: the
// command of a '|CMD' operand (the rest of the line); line: the rest of
// the line as written (\! and \copy take it whole).
type psqlMetaCmd struct {
	name       string
	args       [][]psqlArgPiece
	pipe, line string
	backquote  bool
}

// psqlFilePipe: the meta-commands whose operand may be '|CMD'.
var psqlFilePipe = map[string]bool{"o": true, "out": true, "g": true, "gx": true, "w": true, "write": true}

// psqlLex splits psql text into its SQL (joined by newlines) and its
// meta-commands.
//
// psql lexes '..' as the server does: with standard_conforming_strings
// off (an old server, PGOPTIONS, set_config) a backslash escapes in it.
// Text with both is lexed both ways and the two readings joined, so
// neither setting hides a meta-command.
func psqlLex(s string) (string, []psqlMetaCmd) {
	sql, metas := psqlLexMode(s, false)
	if strings.Contains(s, "'") && strings.Contains(s, `\`) {
		if sql2, metas2 := psqlLexMode(s, true); sql2 != sql || len(metas2) != len(metas) {
			return sql + ";\n" + sql2, append(metas, metas2...)
		}
	}
	return sql, metas
}

// psqlLexMode: psqlLex with '..' read with backslash escapes or without.
func psqlLexMode(s string, backslashStrings bool) (string, []psqlMetaCmd) {
	var sql strings.Builder
	var metas []psqlMetaCmd
	identByte := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			sql.WriteString(s[i : i+j])
			i += j
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			depth, j := 0, i
			for j < len(s) {
				if strings.HasPrefix(s[j:], "/*") {
					depth++
					j += 2
				} else if strings.HasPrefix(s[j:], "*/") {
					depth--
					j += 2
					if depth == 0 {
						break
					}
				} else {
					j++
				}
			}
			sql.WriteString(s[i:j])
			i = j
		case c == '\'' || c == '"':
			esc := c == '\'' && (backslashStrings || i > 0 && (s[i-1] == 'e' || s[i-1] == 'E') && (i < 2 || !identByte(s[i-2])))
			j := i + 1
			for j < len(s) {
				if esc && s[j] == '\\' {
					j += 2
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(s))
			sql.WriteString(s[i:j])
			i = j
		case c == '$' && (i == 0 || !identByte(s[i-1])):
			j := i + 1
			for j < len(s) && identByte(s[j]) && !(j == i+1 && s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j < len(s) && s[j] == '$' {
				tag := s[i : j+1]
				end := strings.Index(s[j+1:], tag)
				k := len(s)
				if end >= 0 {
					k = j + 1 + end + len(tag)
				}
				sql.WriteString(s[i:k])
				i = k
				continue
			}
			sql.WriteByte(c)
			i++
		case c == '\\' && i+1 < len(s) && (s[i+1] == ';' || s[i+1] == ':'):
			// \; and \: put a literal ; or : into the query buffer
			// (psqlscan.l): `select 1 \; copy ...` sends two statements
			// (red team 17b).
			sql.WriteByte(s[i+1])
			i += 2
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			sql.WriteString("::") // a typecast, not a variable
			i += 2
		case c == ':' && i+1 < len(s) && isPsqlVarByte(s[i+1]):
			// :NAME in SQL is replaced by the variable's value, which
			// psql lexes as SQL (red team 17b): a marker psqlExpandSQL
			// replaces.
			k := i + 1
			for k < len(s) && isPsqlVarByte(s[k]) {
				k++
			}
			sql.WriteString(psqlVarMarker(':', s[i+1:k]))
			i = k
		case c == ':' && i+2 < len(s) && (s[i+1] == '\'' || s[i+1] == '"') && isPsqlVarByte(s[i+2]):
			k := i + 2
			for k < len(s) && isPsqlVarByte(s[k]) {
				k++
			}
			if k < len(s) && s[k] == s[i+1] {
				sql.WriteString(psqlVarMarker(s[i+1], s[i+2:k]))
				i = k + 1
				continue
			}
			sql.WriteByte(c)
			i++
		case c == '\\':
			m, j := psqlMetaAt(s, i+1)
			metas = append(metas, m)
			sql.WriteString(";\n") // \g, \gx... end the statement
			i = j
		default:
			sql.WriteByte(c)
			i++
		}
	}
	return sql.String(), metas
}

// psqlMetaAt reads the meta-command whose name starts at s[i]: the
// command and where the text after it starts.
func psqlMetaAt(s string, i int) (psqlMetaCmd, int) {
	var m psqlMetaCmd
	j := i
	for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j == i && j < len(s) {
		j++ // \! \? \\ \;
	}
	m.name = s[i:j]
	eol := strings.IndexByte(s[j:], '\n')
	if eol < 0 {
		eol = len(s)
	} else {
		eol += j
	}
	m.line = s[j:eol]
	if m.name == "!" || m.name == "copy" {
		return m, eol
	}
	if m.name == "\\" {
		return m, j
	}
	for j < eol {
		for j < eol && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\f') {
			j++
		}
		if j >= eol || s[j] == '\\' {
			break
		}
		if len(m.args) == 0 && psqlFilePipe[m.name] && s[j] == '|' {
			m.pipe = s[j+1 : eol]
			return m, eol
		}
		var arg []psqlArgPiece
		var b strings.Builder
		flush := func() {
			if b.Len() > 0 {
				arg = append(arg, psqlArgPiece{text: b.String()})
				b.Reset()
			}
		}
		for j < eol && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' && s[j] != '\f' && s[j] != '\\' {
			switch c := s[j]; {
			case c == '\'':
				j = psqlSingleQuoted(s, j+1, eol, &b)
			case c == '"':
				// kept with its quotes, and no variable in it (the
				// control: `\o "x:f"` wrote a file named "x:f").
				k := j + 1
				for k < eol && s[k] != '"' {
					k++
				}
				b.WriteString(s[j:min(k+1, eol)])
				j = min(k+1, eol)
			case c == '`':
				m.backquote = true
				k := strings.IndexByte(s[j+1:eol], '`')
				if k < 0 {
					j = eol
				} else {
					j += k + 2
				}
			case c == ':' && j+1 < eol && (s[j+1] == '\'' || s[j+1] == '"'):
				q := s[j+1]
				k := strings.IndexByte(s[j+2:eol], q)
				if k < 0 {
					b.WriteByte(c)
					j++
					continue
				}
				flush()
				arg = append(arg, psqlArgPiece{vr: s[j+2 : j+2+k], q: q})
				j += k + 3
			case c == ':' && j+1 < eol && isPsqlVarByte(s[j+1]):
				k := j + 1
				for k < eol && isPsqlVarByte(s[k]) {
					k++
				}
				flush()
				arg = append(arg, psqlArgPiece{vr: s[j+1 : k]})
				j = k
			default:
				b.WriteByte(c)
				j++
			}
		}
		flush()
		m.args = append(m.args, arg)
	}
	if j < eol && s[j] == '\\' {
		return m, j
	}
	return m, eol
}

func isPsqlVarByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// psqlSingleQuoted reads a single-quoted meta-command argument from s[i]
// (past the quote) into b, resolving psql's escapes; it returns the index
// past the closing quote.
func psqlSingleQuoted(s string, i, end int, b *strings.Builder) int {
	isOct := func(c byte) bool { return c >= '0' && c <= '7' }
	hexVal := func(c byte) (int, bool) {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0'), true
		case c >= 'a' && c <= 'f':
			return int(c-'a') + 10, true
		case c >= 'A' && c <= 'F':
			return int(c-'A') + 10, true
		}
		return 0, false
	}
	for i < end {
		c := s[i]
		switch {
		case c == '\'':
			if i+1 < end && s[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			return i + 1
		case c == '\\' && i+1 < end:
			i++
			switch d := s[i]; {
			case d == 'n':
				b.WriteByte('\n')
			case d == 't':
				b.WriteByte('\t')
			case d == 'b':
				b.WriteByte('\b')
			case d == 'r':
				b.WriteByte('\r')
			case d == 'f':
				b.WriteByte('\f')
			case isOct(d):
				v := int(d - '0')
				for k := 0; k < 2 && i+1 < end && isOct(s[i+1]); k++ {
					i++
					v = v*8 + int(s[i]-'0')
				}
				b.WriteByte(byte(v))
			case d == 'x':
				v, n := 0, 0
				for n < 2 && i+1 < end {
					h, ok := hexVal(s[i+1])
					if !ok {
						break
					}
					v = v*16 + h
					i++
					n++
				}
				if n == 0 {
					b.WriteByte('x')
				} else {
					b.WriteByte(byte(v))
				}
			default:
				b.WriteByte(d)
			}
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return end
}

// psqlArgValues: the values an argument may have (every value of each
// variable it interpolates), or false with why it cannot be known.
func psqlArgValues(arg []psqlArgPiece, vars *psqlVars) ([]string, string) {
	vals := []string{""}
	for _, p := range arg {
		if p.vr == "" {
			for i := range vals {
				vals[i] += p.text
			}
			continue
		}
		vs := vars.vals[p.vr]
		if len(vs) == 0 || vars.dynamic != "" {
			why := "psql interpolates variable " + p.vr + ", which the reader cannot know"
			if vars.dynamic != "" {
				why = vars.dynamic
			}
			return nil, why
		}
		var next []string
		for _, v := range vals {
			for _, x := range vs {
				// :'f' is f as an SQL literal, :"f" as an identifier:
				// a file named with the quotes; the bare value is judged
				// too (the reader's superset).
				alts := []string{x}
				switch p.q {
				case '\'':
					alts = append(alts, "'"+strings.ReplaceAll(x, "'", "''")+"'")
				case '"':
					alts = append(alts, `"`+strings.ReplaceAll(x, `"`, `""`)+`"`)
				}
				for _, x := range alts {
					if len(next) >= psqlMaxValues {
						// psql uses the value set last: dropping one would
						// read an argument as what it is not (red team 17b).
						return nil, "psql variable " + p.vr + " may hold more values than the reader follows"
					}
					next = append(next, v+x)
				}
			}
		}
		vals = next
	}
	for i := range vals {
		vals[i] = cString(vals[i])
	}
	return vals, ""
}

// psqlSetVars: the variables psql text sets (\set NAME VALUE...), and the
// commands that set them at run time.
func psqlSetVars(metas []psqlMetaCmd, vars *psqlVars) {
	for _, m := range metas {
		switch m.name {
		case "set":
			if len(m.args) == 0 {
				continue
			}
			name, why := psqlArgValues(m.args[0], &psqlVars{})
			if why != "" || len(name) != 1 {
				vars.dynamic = "psql \\set names a variable the reader cannot know"
				continue
			}
			var val []string
			for _, a := range m.args[1:] {
				vs, why := psqlArgValues(a, vars)
				if why != "" || len(vs) != 1 {
					vars.dynamic = "psql \\set " + name[0] + " takes a value the reader cannot know"
					break
				}
				val = append(val, vs[0])
			}
			vars.set(name[0], strings.Join(val, ""))
		case "gset", "getenv", "prompt":
			vars.dynamic = "psql \\" + m.name + " sets a variable at run time"
		}
	}
}

// psqlText reads psql text into e: its meta-commands' files, commands and
// doubts, and its SQL's server-side effects (vars: set by the caller from
// every text first).
func psqlText(s string, vars *psqlVars, e *sqliteEffects) {
	sql, metas := psqlLex(s)
	for _, m := range metas {
		psqlMetaEffects(m, vars, e)
	}
	if !strings.Contains(sql, "\x00") {
		pgServerSQL(sql, e)
		return
	}
	texts, why := psqlExpandSQL(sql, vars)
	psqlVarMarks(sql, func(_, _ int, q byte, name string) {
		for _, v := range vars.vals[name] {
			if q == ':' && strings.TrimLeft(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != "" && why == "" {
				// a value, a number or a name, is ordinary; SQL built
				// from a variable is read and still a doubt.
				e.doubts = append(e.doubts, "psql interpolates variable "+name+" as SQL")
				return
			}
		}
	})
	if why != "" {
		e.doubts = append(e.doubts, why)
		texts = []string{psqlVarsRestored(sql)}
	}
	for _, t := range texts {
		// the values are lexed as psql text where they stand: read the
		// result again (its meta-commands too: the reader's superset).
		sql2, metas2 := psqlLex(t)
		for _, m := range metas2 {
			psqlMetaEffects(m, vars, e)
		}
		pgServerSQL(psqlVarsRestored(sql2), e)
	}
}

// psqlMaxValues: the combinations of variable values the reader follows
// in one argument or one text; past it, a doubt.
const psqlMaxValues = 16

// psqlVarMarker: the mark psqlLexMode leaves in SQL for :NAME (q ':'),
// :'NAME' or :"NAME".
func psqlVarMarker(q byte, name string) string {
	return "\x00" + string(q) + name + "\x00"
}

// psqlVarMarks: the marks of sql, in order: the quote and the name.
func psqlVarMarks(sql string, each func(start, end int, q byte, name string)) {
	for i := 0; i < len(sql); {
		j := strings.IndexByte(sql[i:], 0)
		if j < 0 {
			return
		}
		start := i + j
		k := strings.IndexByte(sql[start+1:], 0)
		if k < 0 || k < 1 {
			return
		}
		end := start + 1 + k + 1
		each(start, end, sql[start+1], sql[start+2:end-1])
		i = end
	}
}

// psqlVarsRestored: sql with its marks written back as psql read them (a
// variable psql does not know is sent as it is).
func psqlVarsRestored(sql string) string {
	var b strings.Builder
	last := 0
	psqlVarMarks(sql, func(start, end int, q byte, name string) {
		b.WriteString(sql[last:start])
		if q == ':' {
			b.WriteString(":" + name)
		} else {
			b.WriteString(":" + string(q) + name + string(q))
		}
		last = end
	})
	b.WriteString(sql[last:])
	return b.String()
}

// psqlExpandSQL: sql with every combination of the values of the
// variables it interpolates (:'v' as a literal, :"v" as an identifier), or
// why the reader cannot know them.
func psqlExpandSQL(sql string, vars *psqlVars) ([]string, string) {
	outs := []string{""}
	last := 0
	why := ""
	psqlVarMarks(sql, func(start, end int, q byte, name string) {
		if why != "" {
			return
		}
		vs := vars.vals[name]
		if vars.dynamic != "" {
			why = vars.dynamic
			return
		}
		if len(vs) == 0 {
			vs = []string{psqlVarsRestored(sql[start:end])}
			q = ':'
		}
		var next []string
		for _, o := range outs {
			for _, v := range vs {
				switch q {
				case '\'':
					v = "'" + strings.ReplaceAll(v, "'", "''") + "'"
				case '"':
					v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
				}
				if len(next) >= psqlMaxValues {
					why = "psql variable " + name + " may hold more values than the reader follows"
					return
				}
				next = append(next, o+sql[last:start]+v)
			}
		}
		outs, last = next, end
	})
	if why != "" {
		return nil, why
	}
	for i := range outs {
		outs[i] += sql[last:]
	}
	return outs, ""
}

// psqlMetaEffects: what one meta-command does.
func psqlMetaEffects(m psqlMetaCmd, vars *psqlVars, e *sqliteEffects) {
	if m.backquote {
		e.doubts = append(e.doubts, "psql runs a backquoted shell command")
	}
	if m.pipe != "" {
		e.code = append(e.code, m.pipe)
		return
	}
	args := m.args
	if (m.name == "g" || m.name == "gx") && len(args) > 0 && len(args[0]) > 0 && strings.HasPrefix(args[0][0].text, "(") {
		// \g (OPTION=VALUE ...) FILE: the options end at ')'.
		for len(args) > 0 {
			last := args[0][len(args[0])-1]
			args = args[1:]
			if strings.HasSuffix(last.text, ")") {
				break
			}
		}
		if len(args) > 0 && len(args[0]) > 0 && strings.HasPrefix(args[0][0].text, "|") {
			e.code = append(e.code, strings.TrimPrefix(args[0][0].text, "|"))
			e.doubts = append(e.doubts, "psql \\"+m.name+" pipes to a command")
			return
		}
	}
	file := func(i int, write bool) {
		if i >= len(args) {
			return
		}
		vals, why := psqlArgValues(args[i], vars)
		if why != "" {
			e.doubts = append(e.doubts, why)
			return
		}
		for _, v := range vals {
			switch {
			case psqlFilePipe[m.name] && strings.HasPrefix(v, "|"):
				// openQueryOutputFile pipes to a name starting with '|'
				// however it was spelled ('|CMD', :f holding |CMD).
				e.code = append(e.code, v[1:])
			case write:
				e.writes = append(e.writes, v)
			default:
				e.reads = append(e.reads, v)
			}
		}
	}
	switch m.name {
	case "!":
		e.code = append(e.code, m.line)
	case "o", "out", "g", "gx", "w", "write", "s":
		file(0, true)
	case "lo_export":
		file(1, true)
	case "lo_import":
		file(0, false)
	case "i", "include", "ir", "include_relative":
		file(0, false)
		e.doubts = append(e.doubts, "psql \\"+m.name+" runs the commands of a file the reader does not read")
	case "e", "edit", "ef", "ev", "cd", "setenv":
		e.doubts = append(e.doubts, "psql \\"+m.name+" runs an editor or changes what later commands do")
	case "gexec":
		e.doubts = append(e.doubts, "psql \\gexec runs the results of a query as SQL")
	case "copy":
		psqlCopyLine(m.line, vars, e)
	}
}

// psqlCopyLine: \copy TABLE to|from 'F' (or F, or :VAR): the client's
// file; PROGRAM 'CMD' runs CMD.
func psqlCopyLine(line string, vars *psqlVars, e *sqliteEffects) {
	ws := lexWords(line)
	for i, w := range ws {
		lw := strings.ToLower(w)
		if (lw != "to" && lw != "from") || i+1 >= len(ws) {
			continue
		}
		f := ws[i+1]
		switch strings.ToLower(f) {
		case "stdin", "stdout", "pstdin", "pstdout":
			continue
		case "program":
			if i+2 < len(ws) {
				e.code = append(e.code, ws[i+2])
			} else {
				e.doubts = append(e.doubts, "psql \\copy runs a program the reader cannot read")
			}
			continue
		}
		if strings.HasPrefix(f, ":") {
			name := strings.Trim(f[1:], `'"`)
			vals, why := psqlArgValues([]psqlArgPiece{{vr: name}}, vars)
			if why != "" {
				e.doubts = append(e.doubts, why)
				continue
			}
			for _, v := range vals {
				if lw == "to" {
					e.writes = append(e.writes, v)
				} else {
					e.reads = append(e.reads, v)
				}
			}
			continue
		}
		if lw == "to" {
			e.writes = append(e.writes, f)
		} else {
			e.reads = append(e.reads, f)
		}
	}
}
