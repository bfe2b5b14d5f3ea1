package policy

import "strings"

// vim's harmless ex commands, as an allow-list with the shape of their
// arguments (red team 17: `:put =EXPR` evaluates an expression, `:syntax
// include` sources a file, `:file NAME` renames the buffer so a later `:w`
// writes NAME, `:b +CMD` runs CMD after switching buffers). A command is
// harmless only with arguments of its shape; any other command, and any
// argument outside the shape, is a doubt (programs_exlang.go reads the
// rest). docs/policy.md, "Programs' own command languages".

// vimArgs: the shape of a harmless command's arguments.
type vimArgs int

const (
	// vimArgsInert: counts, registers, marks, flags, addresses, patterns
	// or a topic: nothing evaluated, no file named (`\=` is a doubt).
	vimArgsInert vimArgs = iota
	// vimArgsSubst: :s/PAT/REP/ (a replacement starting with \= is an
	// expression: a doubt).
	vimArgsSubst
	// vimArgsGlobal: :g/PAT/CMD, CMD read as ex commands.
	vimArgsGlobal
	// vimArgsSet: options, each in vimSafeOptions.
	vimArgsSet
	// vimArgsText: :a, :i, :c: the text follows on the next lines, to a
	// line holding only `.`; the lines after it are commands.
	vimArgsText
	// vimArgsPut: an optional register; `=` (the expression register,
	// `:pu =system(..)`) is a doubt.
	vimArgsPut
	// vimArgsFile: `:file NAME` names the buffer NAME: a later `:w`
	// writes NAME, so NAME is a write.
	vimArgsFile
	// vimArgsSyntax: a subcommand in vimSyntaxSubs (`:syntax include`
	// sources a file: not there).
	vimArgsSyntax
	// vimArgsFiletype: on, off, plugin, indent, detect.
	vimArgsFiletype
	// vimArgsBuffer: a buffer number or name; `+CMD` runs CMD after the
	// switch (a doubt, read as ex commands for deny rules, `\ ` a
	// blank), `++OPT` is a doubt.
	vimArgsBuffer
)

type vimSafeCmd struct {
	exCmd
	args vimArgs
}

// vimHarmless: commands that run nothing, write nothing but the buffer
// and read no file, with their arguments' shape. Every spelling accepted
// here is checked against the real vim's fullcommand() (TestVimTablesResolve).
var vimHarmless = []vimSafeCmd{
	{exCmd{"q", "quit"}, vimArgsInert}, {exCmd{"qa", "qall"}, vimArgsInert}, {exCmd{"quita", "quitall"}, vimArgsInert},
	{exCmd{"cq", "cquit"}, vimArgsInert}, {exCmd{"p", "print"}, vimArgsInert}, {exCmd{"nu", "number"}, vimArgsInert},
	{exCmd{"#", "#"}, vimArgsInert}, {exCmd{"d", "delete"}, vimArgsInert}, {exCmd{"y", "yank"}, vimArgsInert},
	{exCmd{"pu", "put"}, vimArgsPut}, {exCmd{"m", "move"}, vimArgsInert}, {exCmd{"t", "t"}, vimArgsInert},
	{exCmd{"co", "copy"}, vimArgsInert}, {exCmd{"j", "join"}, vimArgsInert}, {exCmd{"s", "substitute"}, vimArgsSubst},
	{exCmd{"sor", "sort"}, vimArgsInert}, {exCmd{"ret", "retab"}, vimArgsInert}, {exCmd{"u", "undo"}, vimArgsInert},
	{exCmd{"red", "redo"}, vimArgsInert}, {exCmd{"noh", "nohlsearch"}, vimArgsInert}, {exCmd{"le", "left"}, vimArgsInert},
	{exCmd{"ri", "right"}, vimArgsInert}, {exCmd{"ce", "center"}, vimArgsInert}, {exCmd{"k", "k"}, vimArgsInert},
	{exCmd{"ma", "mark"}, vimArgsInert}, {exCmd{"l", "list"}, vimArgsInert}, {exCmd{"z", "z"}, vimArgsInert},
	{exCmd{"g", "global"}, vimArgsGlobal}, {exCmd{"v", "vglobal"}, vimArgsGlobal}, {exCmd{"sy", "syntax"}, vimArgsSyntax},
	{exCmd{"filet", "filetype"}, vimArgsFiletype}, {exCmd{"ene", "enew"}, vimArgsInert}, {exCmd{"f", "file"}, vimArgsFile},
	{exCmd{"bn", "bnext"}, vimArgsBuffer}, {exCmd{"bp", "bprevious"}, vimArgsBuffer}, {exCmd{"bN", "bNext"}, vimArgsBuffer},
	{exCmd{"b", "buffer"}, vimArgsBuffer}, {exCmd{"bf", "bfirst"}, vimArgsBuffer}, {exCmd{"br", "brewind"}, vimArgsBuffer},
	{exCmd{"bl", "blast"}, vimArgsBuffer}, {exCmd{"bd", "bdelete"}, vimArgsBuffer},
	{exCmd{"se", "set"}, vimArgsSet}, {exCmd{"setl", "setlocal"}, vimArgsSet}, {exCmd{"setg", "setglobal"}, vimArgsSet},
	{exCmd{"dig", "digraphs"}, vimArgsInert}, {exCmd{"reg", "registers"}, vimArgsInert}, {exCmd{"di", "display"}, vimArgsInert},
	{exCmd{"marks", "marks"}, vimArgsInert}, {exCmd{"ju", "jumps"}, vimArgsInert}, {exCmd{"changes", "changes"}, vimArgsInert},
	{exCmd{"sm", "smagic"}, vimArgsSubst}, {exCmd{"sno", "snomagic"}, vimArgsSubst}, {exCmd{"a", "append"}, vimArgsText},
	{exCmd{"i", "insert"}, vimArgsText}, {exCmd{"c", "change"}, vimArgsText}, {exCmd{"undoj", "undojoin"}, vimArgsInert},
	{exCmd{"endf", "endfunction"}, vimArgsInert}, {exCmd{"en", "endif"}, vimArgsInert}, {exCmd{"el", "else"}, vimArgsInert},
	{exCmd{"ver", "version"}, vimArgsInert}, {exCmd{"h", "help"}, vimArgsInert}, {exCmd{"st", "stop"}, vimArgsInert}}

// vimSyntaxSubs: :syntax subcommands that define, clear, list or switch
// highlighting (vim compares them whole). `include` sources a file.
var vimSyntaxSubs = map[string]bool{"on": true, "off": true, "enable": true, "manual": true, "clear": true, "reset": true,
	"case": true, "sync": true, "spell": true, "conceal": true, "list": true, "keyword": true, "match": true, "region": true,
	"cluster": true, "foldlevel": true, "iskeyword": true}

func vimFindHarmless(w string) (vimSafeCmd, bool) {
	for _, c := range vimHarmless {
		if exMatch(w, c.exCmd) {
			return c, true
		}
	}
	return vimSafeCmd{}, false
}

// vimHarmlessArgs reads the arguments of a harmless command by its shape;
// it returns what vimOneCmd returns.
func vimHarmlessArgs(r *exReading, c vimSafeCmd, args string, depth int) (string, string) {
	switch c.args {
	case vimArgsGlobal:
		// :g/pat/CMD runs CMD on each matching line.
		if a := strings.TrimLeft(args, " \t"); a != "" {
			d := a[0]
			i := 1
			for i < len(a) && a[i] != d {
				if a[i] == '\\' {
					i++
				}
				i++
			}
			if i < len(a) {
				vimReadInto(r, a[i+1:], depth+1)
			}
		}
		return "", ""
	case vimArgsText:
		// The text follows on the next lines, to a line holding only
		// `.`; the commands after it run (`-c $'i\nx\n.\n!CMD'` runs
		// CMD). Any line that is `.` once trimmed ends it here: never
		// later than vim, so nothing after the text is left unread.
		_, text, _ := strings.Cut(args, "\n")
		for text != "" {
			var line string
			line, text, _ = strings.Cut(text, "\n")
			if strings.TrimSpace(line) == "." {
				return "", text
			}
		}
		return "", ""
	}
	line, after := vimCutBar(args)
	switch c.args {
	case vimArgsSet:
		vimSetOptions(r, line)
	case vimArgsPut:
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "=") {
			r.setDoubt("vim :put = evaluates an expression")
			r.doubtLiterals(line)
		}
	case vimArgsFile:
		if f := strings.TrimSpace(line); f != "" {
			vimFileName(r, c.full, f) // a later :w writes it
		}
	case vimArgsSyntax:
		if f := strings.Fields(line); len(f) > 0 && !vimSyntaxSubs[f[0]] {
			r.setDoubt("vim :syntax " + f[0] + " (include sources a file)")
		}
	case vimArgsFiletype:
		for _, w := range strings.Fields(line) {
			switch w {
			case "on", "off", "plugin", "indent", "detect":
			default:
				r.setDoubt("vim :filetype " + w)
			}
		}
	case vimArgsBuffer:
		for _, w := range vimArgWords(line) {
			switch {
			case strings.HasPrefix(w, "++"):
				r.setDoubt("vim :" + c.full + " " + w)
			case strings.HasPrefix(w, "+"):
				// +CMD: run after the switch (a blank is `\ `): a
				// doubt, read for deny rules too.
				r.setDoubt("vim :" + c.full + " " + w + " runs a command after the switch")
				vimReadInto(r, vimUnescape(w[1:]), depth+1)
			}
		}
	}
	if strings.Contains(line, `\=`) {
		r.setDoubt("vim :" + c.full + " with an expression") // :s/x/\=system(...)/
	}
	return "", after
}

// vimArgWords splits arguments at blanks not escaped by a backslash.
func vimArgWords(s string) []string {
	var out []string
	start := -1
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == ' ' || s[i] == '\t':
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		case start < 0:
			start = i
		}
		if s[i] == '\\' {
			i++
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// vimUnescape: a backslash takes the next character as it is (vim's
// skip_cmd_arg for +CMD).
func vimUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// vimFileName: the file a write command (or :file) names, as vim reads
// it: a name with vim's special characters (%, #, <cword>, `=expr`, $VAR,
// wildcards, ~) is a doubt; otherwise a backslash takes the next
// character as it is (vim's backslash_halve: `:w ~/.bash\rc` writes
// ~/.bashrc, `a\ b` is "a b"; red team 17) and the unescaped name is a
// write.
func vimFileName(r *exReading, cmd, f string) {
	if strings.ContainsAny(f, "%#<`$*?[{~") {
		r.setDoubt("vim :" + cmd + " names a file the reader cannot tell")
		return
	}
	r.writes = append(r.writes, vimUnescape(f))
}
