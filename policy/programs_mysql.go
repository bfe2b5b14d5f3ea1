package policy

import (
	"strings"
)

// mysql's language (red team 17): the text of an -e value, of
// --init-command and of a here-doc or here-string on standard input.
// Client commands: the long forms at the start of a statement (tee F,
// pager CMD, source F, system CMD, edit, ssl_session_data_print F), the
// short forms anywhere on a line (\T F, \P CMD, \. F, \! CMD, \e). The
// SQL runs in the server, outside the sandbox: SELECT ... INTO OUTFILE or
// DUMPFILE 'F' writes F, LOAD DATA|XML INFILE 'F' and LOAD_FILE('F') read
// it (LOCAL INFILE: the client reads F), sys_exec('CMD') and sys_eval run
// CMD; SQL built or code loaded at run time (PREPARE FROM a non-literal,
// CREATE FUNCTION|PROCEDURE|EVENT|TRIGGER, INSTALL PLUGIN|COMPONENT, the
// server's log-file and plugin settings) is a doubt.

// mysqlText reads mysql text into e.
func mysqlText(s string, e *sqliteEffects) {
	mysqlClient(s, e)
	mysqlSQL(s, e, 0)
}

// mysqlClient: the client commands of mysql text.
func mysqlClient(s string, e *sqliteEffects) {
	first := func(rest string) string {
		if ws := lexWords(strings.TrimRight(strings.TrimSpace(rest), ";")); len(ws) > 0 {
			return ws[0]
		}
		return ""
	}
	for _, line := range strings.Split(s, "\n") {
		for _, stmt := range strings.Split(line, ";") {
			l := strings.TrimSpace(stmt)
			name, rest, _ := strings.Cut(l, " ")
			switch strings.ToLower(name) {
			case "tee", "ssl_session_data_print":
				if f := first(rest); f != "" {
					e.writes = append(e.writes, f)
				}
			case "pager":
				if c := strings.TrimSpace(rest); c != "" {
					e.code = append(e.code, c)
				}
			case "source":
				if f := first(rest); f != "" {
					e.reads = append(e.reads, f)
				}
				e.doubts = append(e.doubts, "mysql source runs the commands of a file the reader does not read")
			case "system":
				e.code = append(e.code, rest)
			case "edit":
				e.doubts = append(e.doubts, "mysql edit runs an editor")
			}
		}
		for i := strings.IndexByte(line, '\\'); i >= 0 && i+1 < len(line); {
			rest := line[i+2:]
			switch line[i+1] {
			case 'T':
				if f := first(rest); f != "" {
					e.writes = append(e.writes, f)
				}
			case 'P':
				if c := strings.TrimSpace(rest); c != "" {
					e.code = append(e.code, c)
				}
			case '.':
				if f := first(rest); f != "" {
					e.reads = append(e.reads, f)
				}
				e.doubts = append(e.doubts, "mysql \\. runs the commands of a file the reader does not read")
			case '!':
				e.code = append(e.code, rest)
			case 'e':
				e.doubts = append(e.doubts, "mysql \\e runs an editor")
			}
			j := strings.IndexByte(rest, '\\')
			if j < 0 {
				break
			}
			i += 2 + j
		}
	}
}

// mysqlDynamic: words that make the server load code or write files the
// reader cannot follow.
var mysqlDynamic = map[string]bool{"soname": true, "plugin": true, "component": true, "procedure": true, "event": true,
	"trigger": true, "general_log_file": true, "slow_query_log_file": true, "plugin_dir": true, "secure_file_priv": true,
	"init_file": true, "init_connect": true, "sql_mode": true}

// mysqlSQL reads the server-side effects of mysql SQL into e.
func mysqlSQL(s string, e *sqliteEffects, depth int) {
	toks := mysqlTokens(s)
	lit := func(i int) (string, bool) {
		if i < len(toks) && toks[i].kind == 's' && !(i+1 < len(toks) && (toks[i+1].kind == 's' || toks[i+1].kind == 'x')) {
			return cString(toks[i].s), true
		}
		return "", false
	}
	server := func(what string, i int, write bool) {
		f, ok := lit(i)
		switch {
		case !ok:
			e.doubts = append(e.doubts, "the database server's "+what+" names a file known only at run time")
		case !strings.HasPrefix(f, "/"):
			e.doubts = append(e.doubts, "the database server's "+what+" names "+f+" in its own data directory")
		case write:
			e.writes = append(e.writes, f)
		default:
			e.reads = append(e.reads, f)
		}
	}
	stmt := 0 // index of the statement's first token
	for i, t := range toks {
		if t.kind == 'p' && t.s == ";" {
			stmt = i + 1
			continue
		}
		if t.kind != 'i' {
			continue
		}
		next := func(k int) string {
			if i+k < len(toks) && toks[i+k].kind == 'i' {
				return toks[i+k].s
			}
			return ""
		}
		switch {
		case t.s == "into" && (next(1) == "outfile" || next(1) == "dumpfile"):
			server("INTO "+strings.ToUpper(next(1)), i+2, true)
		case t.s == "infile":
			local := false
			for _, u := range toks[stmt:i] {
				local = local || u.kind == 'i' && u.s == "local"
			}
			if local {
				if f, ok := lit(i + 1); ok {
					e.reads = append(e.reads, f)
				} else {
					e.doubts = append(e.doubts, "mysql LOAD DATA LOCAL INFILE names a file known only at run time")
				}
			} else {
				server("LOAD INFILE", i+1, false)
			}
		case t.s == "load_file" && next(1) == "" && i+1 < len(toks) && toks[i+1].s == "(":
			server("LOAD_FILE()", i+2, false)
		case (t.s == "sys_exec" || t.s == "sys_eval") && i+1 < len(toks) && toks[i+1].s == "(":
			if c, ok := lit(i + 2); ok {
				e.code = append(e.code, c)
			} else {
				e.doubts = append(e.doubts, "mysql "+t.s+"() runs a command known only at run time")
			}
		case t.s == "prepare":
			for k := i + 1; k < len(toks) && !(toks[k].kind == 'p' && toks[k].s == ";"); k++ {
				if toks[k].kind == 'i' && toks[k].s == "from" {
					if q, ok := lit(k + 1); ok && depth < 4 {
						mysqlSQL(q, e, depth+1)
					} else {
						e.doubts = append(e.doubts, "mysql PREPARE runs SQL built at run time")
					}
					break
				}
			}
		case mysqlDynamic[t.s] || t.s == "function" && i > stmt:
			e.doubts = append(e.doubts, "the database server loads code or writes files through "+strings.ToUpper(t.s))
		}
	}
}

// mysqlTokens splits mysql SQL: 's' a string ('..' or "..") without
// backslash escapes, 'x' one with them, 'i' an identifier or keyword
// (lower case), 'p' punctuation. Executable comments (/*! .. */) are SQL.
func mysqlTokens(s string) []pgTok {
	var out []pgTok
	identByte := func(c byte) bool {
		return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSQLSpace(c):
			i++
		case c == '#' || c == '-' && strings.HasPrefix(s[i:], "-- "):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*!"):
			i += 3
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case strings.HasPrefix(s[i:], "*/"):
			i += 2
		case strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		case c == '\'' || c == '"' || c == '`':
			var b strings.Builder
			esc := false
			j := i + 1
			for j < len(s) {
				if s[j] == '\\' && c != '`' && j+1 < len(s) {
					esc = true
					b.WriteByte(s[j])
					b.WriteByte(s[j+1])
					j += 2
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			i = min(j+1, len(s))
			switch {
			case c == '`':
				out = append(out, pgTok{'i', strings.ToLower(b.String())})
			case esc || len(out) > 0 && out[len(out)-1].kind == 'i' && strings.HasPrefix(out[len(out)-1].s, "_"):
				out = append(out, pgTok{'x', b.String()}) // escapes, or a _charset introducer
			default:
				out = append(out, pgTok{'s', b.String()})
			}
		case identByte(c):
			j := i
			for j < len(s) && identByte(s[j]) {
				j++
			}
			out = append(out, pgTok{'i', strings.ToLower(s[i:j])})
			i = j
		default:
			out = append(out, pgTok{'p', string(c)})
			i++
		}
	}
	return out
}
