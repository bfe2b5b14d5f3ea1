package policy

import (
	"strings"
)

// The SQL psql sends to the database server (red team 17): its files,
// programs and SQL built at run time (docs/policy.md, "sqlite3's language";
// psql's text is read in programs_pgsql.go).

// pgTok: a PostgreSQL token: 's' a plain string literal ('..' without
// backslashes, or $tag$..$tag$ without them), 'x' another string (E'..',
// U&'..', one with a backslash), 'i' an identifier or keyword (lower case unless quoted), 'p'
// punctuation, 'o' anything else.
// pgTok is a token of SQL as the database servers read it: the same shape
// as sqlite's, so that calls are read by the one linear reading
// (sqlMatches, sqlCallArgs).
type pgTok = sqlTok

// pgStringPrefix: the letters that make a string that follows them
// another kind (E'..' escapes, B'..' and X'..' bits, N'..' national);
// another word before a quote is a word (COPY t TO'/x').
var pgStringPrefix = map[string]bool{"e": true, "b": true, "x": true, "n": true}

// pgTokens splits SQL as PostgreSQL's lexer does, for what the reader
// needs.
func pgTokens(s string) []pgTok {
	return pgTokensMode(s, false)
}

// pgTokensMode: pgTokens with '..' read with backslash escapes
// (standard_conforming_strings off: an old server, PGOPTIONS, set_config,
// SET) or without.
func pgTokensMode(s string, backslashStrings bool) []pgTok {
	var out []pgTok
	identByte := func(c byte) bool {
		return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSQLSpace(c):
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			depth := 0
			for i < len(s) {
				if strings.HasPrefix(s[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(s[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c == '\'' || c == '"':
			prefixed := c == '\'' && len(out) > 0 && i > 0 && identByte(s[i-1]) && pgStringPrefix[out[len(out)-1].s]
			esc := prefixed || c == '\'' && backslashStrings
			var b strings.Builder
			j := i + 1
			for j < len(s) {
				if esc && s[j] == '\\' && j+1 < len(s) {
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
			case c == '"':
				out = append(out, pgTok{'i', b.String()})
			case prefixed:
				// E'..', U&'..', B'..', X'..': the prefix was read as an
				// identifier just before.
				out[len(out)-1] = pgTok{'x', b.String()}
			case esc && strings.Contains(b.String(), `\`):
				out = append(out, pgTok{'x', b.String()})
			case strings.Contains(b.String(), `\`):
				out = append(out, pgTok{'x', b.String()})
			default:
				out = append(out, pgTok{'s', b.String()})
			}
		case c == '$' && i+1 < len(s) && !(s[i+1] >= '0' && s[i+1] <= '9'):
			j := i + 1
			for j < len(s) && identByte(s[j]) && s[j] != '$' {
				j++
			}
			if j < len(s) && s[j] == '$' {
				tag := s[i : j+1]
				end := strings.Index(s[j+1:], tag)
				body := s[j+1:]
				k := len(s)
				if end >= 0 {
					body = s[j+1 : j+1+end]
					k = j + 1 + end + len(tag)
				}
				// a dollar-quoted body is its text, no escapes: plain when
				// it holds no backslash (COPY ... PROGRAM $q$CMD$q$ is CMD).
				kind := byte('s')
				if strings.Contains(body, `\`) {
					kind = 'x'
				}
				out = append(out, pgTok{kind, body})
				i = k
				continue
			}
			out = append(out, pgTok{'p', "$"})
			i++
		case identByte(c) && !(c >= '0' && c <= '9'):
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

// pgServerReads / pgServerWrites: the server's file functions and the
// argument naming the file (0-based).
var pgServerReads = map[string]int{"pg_read_file": 0, "pg_read_binary_file": 0, "pg_stat_file": 0, "pg_ls_dir": 0, "lo_import": 0,
	"pg_file_read": 0}
var pgServerWrites = map[string]int{"lo_export": 1, "pg_file_write": 0, "pg_file_rename": 0, "pg_file_unlink": 0, "pg_file_sync": 0}

// pgDynamic: what makes the server run code or SQL built at run time.
var pgDynamic = map[string]string{"query_to_xml": "f", "query_to_xmlschema": "f", "query_to_xml_and_xmlschema": "f",
	"dblink": "f", "dblink_exec": "f", "dblink_open": "f", "dblink_send_query": "f",
	"session_preload_libraries": "w", "local_preload_libraries": "w", "shared_preload_libraries": "w",
	"standard_conforming_strings": "w"}

// pgServerSQL reads the server-side effects of SQL text into e.
//
// The server lexes '..' with backslash escapes when
// standard_conforming_strings is off, which the session may have set
// (set_config, SET, PGOPTIONS, an old server): text whose strings hold a
// backslash is read both ways (red team 17b), so neither setting hides a
// statement.
func pgServerSQL(s string, e *sqliteEffects) {
	pgServerToks(pgTokens(s), e)
	if strings.Contains(s, "'") && strings.Contains(s, `\`) {
		pgServerToks(pgTokensMode(s, true), e)
	}
}

// pgServerToks: pgServerSQL over one reading's tokens.
func pgServerToks(toks []pgTok, e *sqliteEffects) {
	dynamic := ""
	file := func(what string, t []pgTok, write bool) {
		// one plain literal naming an absolute path: the server's file
		// (relative names are the server's data directory's).
		if len(t) == 0 || t[0].kind != 's' || len(t) > 1 && (t[1].kind == 's' || t[1].kind == 'x' || t[1].kind == 'p' && t[1].s == "|") {
			e.doubts = append(e.doubts, "the database server's "+what+" names a file known only at run time")
			return
		}
		f := cString(t[0].s)
		if !strings.HasPrefix(f, "/") {
			e.doubts = append(e.doubts, "the database server's "+what+" names "+f+" in its own data directory")
			return
		}
		if write {
			e.writes = append(e.writes, f)
		} else {
			e.reads = append(e.reads, f)
		}
	}
	stmtStart := true
	match := sqlMatches(toks)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		start := stmtStart
		stmtStart = t.kind == 'p' && t.s == ";"
		readsIt := i >= 2 && toks[i-1].kind == 'p' && toks[i-1].s == "(" && toks[i-2].kind == 'i' && toks[i-2].s == "current_setting"
		if (t.kind == 's' || t.kind == 'x') && !readsIt && pgDynamic[strings.ToLower(strings.TrimSpace(t.s))] == "w" && dynamic == "" {
			// set_config('standard_conforming_strings', 'off', false):
			// the setting named in a string (red team 17b);
			// current_setting('..') only reads it.
			dynamic = "the database server's session sets " + strings.ToLower(strings.TrimSpace(t.s)) + ", which changes how it reads what follows"
		}
		if t.kind != 'i' {
			continue
		}
		if i+1 < len(toks) && toks[i+1].kind == 'p' && toks[i+1].s == "(" {
			args := sqlCallArgs(toks, i+1, match)
			if k, ok := pgServerReads[t.s]; ok {
				if k < len(args) {
					file(t.s+"()", args[k], false)
				} else {
					e.doubts = append(e.doubts, "the database server's "+t.s+"() names a file the reader cannot see")
				}
			}
			if k, ok := pgServerWrites[t.s]; ok {
				if k < len(args) {
					file(t.s+"()", args[k], true)
				} else {
					e.doubts = append(e.doubts, "the database server's "+t.s+"() names a file the reader cannot see")
				}
			}
		}
		if t.s == "u" && i+1 < len(toks) && toks[i+1].kind == 'p' && toks[i+1].s == "&" {
			// U&"pg_read_fil\0065" and U&'..' spell a name or a string
			// with Unicode escapes the reader does not resolve.
			e.doubts = append(e.doubts, "the SQL spells a name or string with Unicode escapes (U&)")
		}
		if w, ok := pgDynamic[t.s]; ok && (w == "w" || i+1 < len(toks) && toks[i+1].kind == 'p' && toks[i+1].s == "(") && dynamic == "" {
			dynamic = "the database server runs " + t.s + ", which the reader does not follow"
		}
		if !start {
			continue
		}
		end := i + 1
		for end < len(toks) && !(toks[end].kind == 'p' && toks[end].s == ";") {
			end++
		}
		stmt := toks[i:end]
		switch t.s {
		case "do", "load":
			if dynamic == "" {
				dynamic = "the database server runs " + strings.ToUpper(t.s) + " code the reader does not follow"
			}
		case "create", "alter":
			for _, u := range stmt[1:] {
				if u.kind == 'i' && (u.s == "function" || u.s == "procedure" || u.s == "language" || u.s == "extension" ||
					u.s == "server" || u.s == "foreign" || u.s == "system" || u.s == "transform" || u.s == "trigger" ||
					u.s == "rule" || u.s == "subscription") {
					if dynamic == "" {
						dynamic = "the database server runs code an SQL " + strings.ToUpper(t.s) + " " + strings.ToUpper(u.s) + " defines"
					}
					break
				}
			}
		case "copy":
			pgCopy(stmt, file, e)
		}
	}
	if dynamic != "" {
		e.doubts = append(e.doubts, dynamic)
		e.hidden = append(e.hidden, pgLiterals(toks, 0)...)
	}
}

// pgCopy: COPY ... TO|FROM 'F' | PROGRAM 'CMD' | STDIN | STDOUT, at the
// statement's top level.
func pgCopy(stmt []pgTok, file func(string, []pgTok, bool), e *sqliteEffects) {
	depth := 0
	for k := 1; k < len(stmt); k++ {
		u := stmt[k]
		if u.kind == 'p' && u.s == "(" {
			depth++
		}
		if u.kind == 'p' && u.s == ")" {
			depth--
		}
		if depth != 0 || u.kind != 'i' || u.s != "to" && u.s != "from" {
			continue
		}
		rest := stmt[k+1:]
		switch {
		case len(rest) > 0 && rest[0].kind == 'i' && (rest[0].s == "stdin" || rest[0].s == "stdout"):
		case len(rest) > 0 && rest[0].kind == 'i' && rest[0].s == "program":
			if len(rest) > 1 && rest[1].kind == 's' && !(len(rest) > 2 && (rest[2].kind == 's' || rest[2].kind == 'x' || rest[2].kind == 'p' && rest[2].s == "|")) {
				e.code = append(e.code, rest[1].s)
			} else {
				e.doubts = append(e.doubts, "COPY ... PROGRAM runs a command known only at run time")
			}
		default:
			file("COPY "+strings.ToUpper(u.s), rest, u.s == "to")
		}
		return
	}
}

// pgLiterals: the text of every string in the tokens, and of the strings
// inside them (dynamic SQL quotes its SQL again), to a depth of 4.
func pgLiterals(toks []pgTok, depth int) []string {
	var out []string
	for _, t := range toks {
		if t.kind != 's' && t.kind != 'x' {
			continue
		}
		out = append(out, t.s)
		if depth < 4 {
			out = append(out, pgLiterals(pgTokens(t.s), depth+1)...)
		}
	}
	return out
}
