package policy

import "strings"

// sed scripts and awk programs (docs/policy.md, "What the static reading
// holds", class 7): what they write, read and run.

// sedCmd: sed writes its files with -i, and its scripts may write (w, W,
// s///w), read (r, R) and run commands (e, s///e).
func (a *analyzer) sedCmd(sc *subCmd, args []word, ctx walkCtx) {
	inPlace, sandbox := false, false
	var scripts []word
	scriptFile := false
	pos := optScan(args, "efl", set("expression", "file", "line-length"), func(o string, v *word) {
		switch o {
		case "-i", "--in-place":
			inPlace = true
		case "--sandbox":
			sandbox = true
		case "-e", "--expression":
			if v != nil {
				scripts = append(scripts, *v)
			}
		case "-f", "--file":
			scriptFile = true
		}
	})
	for _, w := range args {
		if strings.HasPrefix(w.s, "-i") || strings.HasPrefix(w.s, "--in-place") ||
			len(w.s) > 1 && w.s[0] == '-' && w.s[1] != '-' && strings.ContainsRune(w.s, 'i') && !strings.ContainsAny(w.s[1:], "ef") {
			inPlace = true
		}
	}
	if len(scripts) == 0 && !scriptFile && len(pos) > 0 {
		scripts, pos = pos[:1], pos[1:]
	}
	if scriptFile {
		// the script is in a file: what it does is not seen.
		sc.optDanger = append(sc.optDanger, "-f")
	}
	for _, s := range scripts {
		if !s.static {
			a.setUncertain("sed runs a script known only at run time")
			continue
		}
		if !sandbox {
			a.sedScript(sc, s.s, ctx)
		}
	}
	for _, w := range pos {
		ref := a.pathRef(w)
		if inPlace {
			sc.writes = append(sc.writes, ref)
		}
		sc.reads = append(sc.reads, ref)
	}
	if inPlace {
		sc.optDanger = append(sc.optDanger, "-i")
	}
}

// sedScript reads a sed script's commands for the ones that touch files
// or run programs.
func (a *analyzer) sedScript(sc *subCmd, s string, ctx walkCtx) {
	file := func(i int) (string, int) {
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		k := strings.IndexByte(s[j:], '\n')
		if k < 0 {
			return s[j:], len(s)
		}
		return s[j : j+k], j + k
	}
	addFile := func(name string, write bool) {
		if name == "" {
			return
		}
		if isHarmlessDevice(name) {
			return
		}
		w := word{s: name, static: true, path: name, pathOK: true, off: -1}
		ref := a.pathRef(w)
		if write {
			sc.writes = append(sc.writes, ref)
			sc.optDanger = append(sc.optDanger, "w "+name)
		} else {
			sc.reads = append(sc.reads, ref)
		}
	}
	skipDelim := func(i int, d byte) int { // returns index after the closing d
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case d:
				return i + 1
			case '\n':
				if d != '\n' {
					return i
				}
			}
			i++
		}
		return i
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == '!':
			i++
			continue
		case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+':
			i++
			continue
		case c == '/':
			i = skipDelim(i+1, '/')
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
			continue
		case c == '\\' && i+1 < len(s):
			i = skipDelim(i+2, s[i+1])
			continue
		case c == '#':
			_, i = file(i + 1)
			continue
		}
		i++
		switch c {
		case 's', 'y':
			if i >= len(s) {
				a.setUncertain("sed script does not parse")
				return
			}
			d := s[i]
			i = skipDelim(i+1, d)
			i = skipDelim(i, d)
			if c == 'y' {
				continue
			}
			for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
				f := s[i]
				i++
				switch f {
				case 'w':
					name, j := file(i)
					addFile(name, true)
					i = j
				case 'e':
					a.setUncertain("sed s///e runs the pattern space as a command")
				}
			}
		case 'a', 'i', 'c':
			_, i = file(i)
			// a\ NEWLINE text: the text runs to the end of the line.
			if i < len(s) && strings.HasSuffix(strings.TrimRight(s[:i], " \t"), "\\") {
				_, i = file(i + 1)
			}
		case 'r', 'R':
			name, j := file(i)
			addFile(name, false)
			i = j
		case 'w', 'W':
			name, j := file(i)
			addFile(name, true)
			i = j
		case 'e':
			cmd, j := file(i)
			i = j
			sc.optDanger = append(sc.optDanger, "e")
			if strings.TrimSpace(cmd) == "" {
				a.setUncertain("sed e runs the pattern space as a command")
			} else {
				a.programArg(word{s: cmd, static: true}, ctx)
			}
		case ':', 'b', 't', 'T':
			for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
				i++
			}
		case 'q', 'Q', 'l', 'L', 'v':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == ' ') {
				i++
			}
		case 'F', 'z', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x':
		default:
			a.setUncertain("sed script holds a command the reader does not know (" + string(c) + ")")
			return
		}
	}
}

// awkCmd: awk programs may run commands (system(), print | "cmd",
// "cmd" | getline), write files (print > "f") and read them
// (getline < "f"). A program from a file (-f) is not seen: the allow rule
// must name it.
func (a *analyzer) awkCmd(sc *subCmd, args []word, ctx walkCtx) {
	var progs []word
	fromFile := false
	pos := optScan(args, "fvFEeilo", set("file", "assign", "field-separator", "exec", "source", "include", "load",
		"dump-variables", "profile", "pretty-print", "debug"), func(o string, v *word) {
		switch o {
		case "-f", "--file", "-E", "--exec":
			fromFile = true
			sc.optDanger = append(sc.optDanger, o)
		case "-e", "--source":
			if v != nil {
				progs = append(progs, *v)
			}
		case "-i", "--include", "-l", "--load":
			sc.optDanger = append(sc.optDanger, o)
		case "-o", "--pretty-print", "--dump-variables", "--profile", "--debug":
			sc.optDanger = append(sc.optDanger, o)
			if v != nil {
				a.optWrite(sc, o, v)
			}
		}
	})
	if len(progs) == 0 && !fromFile && len(pos) > 0 {
		progs, pos = pos[:1], pos[1:]
	}
	for _, p := range progs {
		if !p.static {
			a.setUncertain("awk runs a program known only at run time")
			continue
		}
		a.awkProgram(sc, p.s, ctx)
	}
	for _, w := range pos {
		if w.static && isAssignWord(w.s) {
			continue // var=value
		}
		sc.reads = append(sc.reads, a.pathRef(w))
	}
}

// awkProgram scans an awk program's tokens (strings and regular
// expressions skipped) for the ones that leave awk.
func (a *analyzer) awkProgram(sc *subCmd, p string, ctx walkCtx) {
	type tok struct {
		kind byte // 's' string, 'i' identifier, 'o' operator, 'n' number, 'r' regex
		text string
	}
	var toks []tok
	operand := false // the previous token ends an operand (then / divides)
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(p) && p[i+1] == '\n':
			i += 2
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		case c == '"':
			var b strings.Builder
			j := i + 1
			for j < len(p) && p[j] != '"' {
				if p[j] == '\\' && j+1 < len(p) {
					j++
					switch p[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(p[j])
					}
					j++
					continue
				}
				b.WriteByte(p[j])
				j++
			}
			toks = append(toks, tok{'s', b.String()})
			i = j + 1
			operand = true
		case c == '/' && !operand:
			j := i + 1
			inClass := false
			for j < len(p) && (p[j] != '/' || inClass) && p[j] != '\n' {
				switch p[j] {
				case '\\':
					j++
				case '[':
					inClass = true
				case ']':
					inClass = false
				}
				j++
			}
			toks = append(toks, tok{'r', ""})
			i = j + 1
			operand = true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(p) && (p[j] == '_' || p[j] >= 'a' && p[j] <= 'z' || p[j] >= 'A' && p[j] <= 'Z' || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			toks = append(toks, tok{'i', p[i:j]})
			i = j
			operand = true
		case c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(p) && (p[j] >= '0' && p[j] <= '9' || p[j] == '.' || p[j] == 'e' || p[j] == 'x' || p[j] >= 'a' && p[j] <= 'f') {
				j++
			}
			toks = append(toks, tok{'n', p[i:j]})
			i = j
			operand = true
		case c == '$':
			toks = append(toks, tok{'o', "$"})
			i++
			operand = false
		default:
			op := p[i : i+1] // one byte: string(c) of a byte >= 0x80 would be two
			if i+1 < len(p) {
				two := p[i : i+2]
				switch two {
				case "||", "&&", ">>", "|&", "==", "!=", "<=", ">=", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**":
					op = two
				}
			}
			toks = append(toks, tok{'o', op})
			i += len(op)
			operand = op == ")" || op == "]" || op == "++" || op == "--"
		}
	}
	// a literal command for system(), a pipe or getline; anything else is
	// only known at run time.
	lit := func(k int) (string, bool) {
		if k >= 0 && k < len(toks) && toks[k].kind == 's' {
			end := k + 1
			if end < len(toks) && (toks[end].kind == 's' || toks[end].kind == 'i' || toks[end].kind == 'n' || toks[end].text == "$") {
				return "", false // concatenation
			}
			return toks[k].text, true
		}
		return "", false
	}
	inPrint := false
	depth := 0
	for k, t := range toks {
		switch {
		case t.kind == 'i' && (t.text == "print" || t.text == "printf"):
			inPrint, depth = true, 0
		case t.kind == 'o' && (t.text == ";" || t.text == "{" || t.text == "}" || t.text == "\n"):
			inPrint = false
		case t.kind == 'o' && t.text == "(":
			depth++
		case t.kind == 'o' && t.text == ")":
			depth--
		case t.kind == 'o' && t.text == "@" && k+1 < len(toks) && (toks[k+1].text == "load" || toks[k+1].text == "include"):
			// gawk loads a shared library or another program file.
			sc.optDanger = append(sc.optDanger, "@"+toks[k+1].text)
		case t.kind == 'i' && t.text == "system":
			sc.optDanger = append(sc.optDanger, "system")
			k2 := k + 1
			if k2 < len(toks) && toks[k2].text == "(" {
				k2++
			}
			if cmd, ok := lit(k2); ok && k2+1 < len(toks) && toks[k2+1].text == ")" {
				a.programArg(word{s: cmd, static: true}, ctx)
			} else {
				a.setUncertain("awk system() runs a command known only at run time")
			}
		case t.kind == 'o' && (t.text == "|" || t.text == "|&"):
			sc.optDanger = append(sc.optDanger, "|")
			// print ... | "cmd"   or   "cmd" | getline
			if cmd, ok := lit(k + 1); ok {
				a.programArg(word{s: cmd, static: true}, ctx)
			} else if k > 0 && toks[k-1].kind == 's' && k+1 < len(toks) && toks[k+1].text == "getline" &&
				(k < 2 || toks[k-2].kind != 's' && toks[k-2].kind != 'i' && toks[k-2].kind != 'n') {
				a.programArg(word{s: toks[k-1].text, static: true}, ctx)
			} else {
				a.setUncertain("awk pipes to or from a command known only at run time")
			}
		case t.kind == 'o' && (t.text == ">" || t.text == ">>") && inPrint && depth == 0:
			if name, ok := lit(k + 1); ok {
				w := word{s: name, static: true, path: name, pathOK: true, off: -1}
				a.optWrite(sc, "> "+name, &w)
			} else {
				sc.optDanger = append(sc.optDanger, ">")
				a.setUncertain("awk writes to a file known only at run time")
			}
		case t.kind == 'o' && t.text == "<" && (k > 0 && toks[k-1].text == "getline" || k > 1 && toks[k-2].text == "getline" && toks[k-1].kind == 'i'):
			if name, ok := lit(k + 1); ok {
				w := word{s: name, static: true, path: name, pathOK: true, off: -1}
				sc.reads = append(sc.reads, a.pathRef(w))
			} else {
				sc.reads = append(sc.reads, pathRef{raw: "(a file awk's getline reads)", unknown: true})
			}
		}
	}
}
