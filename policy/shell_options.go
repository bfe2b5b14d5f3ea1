package policy

import (
	"strings"
)

// "Read-only" commands with options that run programs or write files
// (docs/policy.md, "What the static reading holds", class 7).
//
// sort -o FILE writes, sort --compress-program=P runs P, rg --pre P runs
// P, tar -cf OUT writes OUT, uniq IN OUT writes OUT, sed 'w f' writes and
// sed '1e cmd' runs, awk 'BEGIN{system("...")}' runs, git log --output=f
// writes, man -P runs a pager... Such an option makes the command leave
// the read-only set; a file it writes is checked like any write (Edit
// rules, circuit breakers, plan mode); a program it runs is read as a
// command line of its own when its text is known (deny and ask rules meet
// it, and it must itself be allowed), and makes the command uncertain (it
// asks in every mode) when it is not. And an allow rule whose pattern
// matches the command by a prefix (Bash(sort *), Bash(git log *)) does not
// cover it: the rule must name the option itself (Bash(sort -o *),
// Bash(git log --output=*)); see optionMentioned.

// optScan walks the options of a command: short letters (grouped, with
// values attached or in the next word) and long names (--name=value or
// --name value). f gets each option with its value (nil when it takes
// none); it returns the positional arguments.
// shortOptNames: "-" + string(c) for every byte c (the rune c, as Go
// converts a byte), written once instead of at each grouped flag.
var shortOptNames = func() (t [256]string) {
	for i := range t {
		t[i] = "-" + string(rune(byte(i)))
	}
	return t
}()

// shortOptName is "-" + string(c).
func shortOptName(c byte) string { return shortOptNames[c] }

func optScan(args []word, valued string, longValued map[string]bool, f func(opt string, val *word)) []word {
	var pos []word
	afterDD := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		s := w.s
		// an option word starts with a literal dash (a word that only
		// expands to one, "$X", is taken as an argument).
		if afterDD || !strings.HasPrefix(s, "-") || s == "-" {
			pos = append(pos, w)
			continue
		}
		if s == "--" {
			afterDD = true
			continue
		}
		if strings.HasPrefix(s, "--") {
			written, v, hasEq := strings.Cut(s[2:], "=")
			name := expandLong(written, longValued)
			switch {
			case hasEq:
				vw := w
				vw.s = v
				vw.path = strings.TrimPrefix(w.path, "--"+written+"=")
				vw.off = -1
				f("--"+name, &vw)
			case longValued[name] && i+1 < len(args):
				i++
				vv := args[i]
				f("--"+name, &vv)
			default:
				f("--"+name, nil)
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			if strings.IndexByte(valued, c) < 0 {
				f(shortOptName(c), nil)
				continue
			}
			if j+1 < len(s) {
				vw := w
				vw.s = s[j+1:]
				vw.path = ""
				if w.pathOK && len(w.path) > j+1 {
					vw.path = w.path[j+1:]
				}
				vw.pathOK = w.pathOK && vw.path != ""
				vw.off = -1
				f("-"+string(c), &vw)
			} else if i+1 < len(args) {
				i++
				vv := args[i]
				f("-"+string(c), &vv)
			} else {
				f("-"+string(c), nil)
			}
			break
		}
	}
	return pos
}

// dangerLong are the long options the readers act on. GNU getopt_long
// (sort, grep, tar, split, less, man, ag, wget, ...) and Perl's
// Getopt::Long (ack) take any unambiguous abbreviation: `sort --out=f` is
// `sort --output=f`. An abbreviation is read as the first of these (or of
// the command's valued options) it begins; an ambiguous one makes the
// program fail, so reading it as a dangerous option only errs on the safe
// side. The command's own valued options are tried first.
var dangerLong = []string{"output", "output-file", "output-document", "compress-program", "use-compress-program",
	"files0-from", "files-from", "pre", "pre-glob", "hostname-bin", "pager", "log-file", "LOG-FILE", "lesskey-file",
	"html", "preprocessor", "config-file", "manpath", "recode", "filter", "prefix", "unzip-command", "rsh", "rsync-path",
	"diff-program", "set", "compile", "magic-file", "to-command", "checkpoint-action", "info-script",
	"new-volume-script", "rmt-command", "rsh-command", "create", "extract", "get", "append", "update", "catenate",
	"concatenate", "list", "diff", "compare", "directory", "file", "no-recursion", "in-place", "expression",
	"sandbox", "exec", "source", "include", "load", "dump-variables", "profile", "pretty-print", "debug",
	"recursive", "dereference-recursive", "directories", "recurse-paths", "recurse-patterns", "archive",
	"hidden", "unrestricted", "regexp", "files", "arg-file"}

// expandLong returns the long option name abbreviates (itself when it is
// a whole name or abbreviates none).
func expandLong(name string, valued map[string]bool) string {
	if name == "" || valued[name] {
		return name
	}
	for _, d := range dangerLong {
		if d == name {
			return name
		}
	}
	best := ""
	for k := range valued {
		if strings.HasPrefix(k, name) && (best == "" || k < best) {
			best = k
		}
	}
	if best != "" {
		return best
	}
	for _, d := range dangerLong {
		if strings.HasPrefix(d, name) {
			return d
		}
	}
	return name
}

// optWrite: the option writes the file named by v.
func (a *analyzer) optWrite(sc *subCmd, opt string, v *word) {
	if v != nil && v.pathOK && isHarmlessDevice(v.path) {
		return // /dev/stdout, /dev/null: no file is written
	}
	sc.optDanger = append(sc.optDanger, opt)
	if v != nil {
		sc.writes = append(sc.writes, a.pathRef(*v))
	}
}

// plainWrite: the command writes v as its ordinary output (an archive, the
// pieces of split): checked like any write, but an allow rule for the
// command covers it.
func (a *analyzer) plainWrite(sc *subCmd, v *word) {
	if v == nil || v.pathOK && isHarmlessDevice(v.path) {
		return
	}
	sc.writes = append(sc.writes, a.pathRef(*v))
}

// optProgram: the option runs the program v.
func (a *analyzer) optProgram(sc *subCmd, opt string, v *word, ctx walkCtx) {
	sc.optDanger = append(sc.optDanger, opt)
	if v == nil {
		return
	}
	a.programArg(*v, ctx)
}

// optUnknownRead: the option names a file holding more file names.
func optUnknownRead(sc *subCmd, opt string) {
	sc.reads = append(sc.reads, pathRef{raw: "(the files listed by " + opt + ")", unknown: true})
}

// optionEffects records the writes, programs and recursive reads that the
// options of a command cause.
func (a *analyzer) optionEffects(sc *subCmd, base string, args []word, ctx walkCtx) {
	switch base {
	case "sort":
		optScan(args, "ktoST", set("output", "compress-program", "key", "field-separator", "buffer-size",
			"temporary-directory", "files0-from", "batch-size", "parallel", "random-source"), func(o string, v *word) {
			switch o {
			case "-o", "--output":
				a.optWrite(sc, o, v)
			case "--compress-program":
				a.optProgram(sc, o, v, ctx)
			case "--files0-from":
				optUnknownRead(sc, o)
			}
		})
	case "wc", "du", "cat", "ls":
		optScan(args, "", set("files0-from"), func(o string, v *word) {
			if o == "--files0-from" {
				optUnknownRead(sc, o)
			}
		})
	case "rg":
		optScan(args, searchers["rg"].valued, searchers["rg"].longValued, func(o string, v *word) {
			switch o {
			case "--pre", "--hostname-bin":
				a.optProgram(sc, o, v, ctx)
			case "--pre-glob":
				sc.optDanger = append(sc.optDanger, o)
			}
		})
	case "ag", "ack":
		optScan(args, searchers[base].valued, searchers[base].longValued, func(o string, v *word) {
			if o == "--pager" {
				a.optProgram(sc, o, v, ctx)
			}
		})
	case "tree":
		optScan(args, "oLPIHT", set("filelimit", "timefmt", "sort", "charset", "fromfile"), func(o string, v *word) {
			if o == "-o" {
				a.optWrite(sc, o, v)
			}
		})
	case "less", "more":
		optScan(args, "oOpPhbjkxyz#", set("log-file", "LOG-FILE", "pattern", "prompt", "tag", "tag-file", "lesskey-file"), func(o string, v *word) {
			switch o {
			case "-o", "-O", "--log-file", "--LOG-FILE":
				a.optWrite(sc, o, v)
			case "-k", "--lesskey-file":
				sc.optDanger = append(sc.optDanger, o)
			}
		})
		for _, w := range args {
			if strings.HasPrefix(w.s, "+") {
				sc.optDanger = append(sc.optDanger, "+")
				if strings.ContainsAny(w.s, "!|") || !w.static {
					a.setUncertain("less runs a startup command (" + w.s + ")")
				}
			}
		}
	case "man":
		optScan(args, "PHMCmLSsEpRe", set("pager", "html", "manpath", "config-file", "systems", "locale", "sections",
			"encoding", "preprocessor", "recode", "extension"), func(o string, v *word) {
			switch o {
			case "-P", "--pager", "-H", "--html":
				a.optProgram(sc, o, v, ctx)
			case "-p", "--preprocessor", "-C", "--config-file", "-M", "--manpath", "--recode":
				sc.optDanger = append(sc.optDanger, o)
			}
		})
	case "uniq", "xxd":
		valued := "fsw"
		if base == "xxd" {
			valued = "cgloOsn"
		}
		pos := optScan(args, valued, set("skip-fields", "skip-chars", "check-chars", "group", "all-repeated", "cols",
			"groupsize", "len", "offset", "seek", "name"), func(string, *word) {})
		if len(pos) >= 2 {
			a.optWrite(sc, pos[1].s, &pos[1])
		}
	case "split", "csplit":
		prefix := ""
		var prefixW *word
		pos := optScan(args, "abClnptf", set("bytes", "line-bytes", "lines", "number", "suffix-length",
			"additional-suffix", "separator", "filter", "prefix", "suffix-format", "digits"), func(o string, v *word) {
			switch o {
			case "--filter":
				a.optProgram(sc, o, v, ctx)
			case "-f", "--prefix":
				if base == "csplit" && v != nil {
					prefix, prefixW = v.s, v
				}
			}
		})
		if base == "split" && len(pos) >= 2 {
			prefix, prefixW = pos[1].s, &pos[1]
		}
		suffix := "aa"
		if base == "csplit" {
			suffix = "00"
		}
		if prefixW == nil {
			if base == "split" {
				prefix = "x"
			} else {
				prefix = "xx"
			}
			w := word{s: prefix + suffix, static: true, path: prefix + suffix, pathOK: true, off: -1}
			sc.writes = append(sc.writes, a.pathRef(w))
			return
		}
		w := *prefixW
		w.s, w.path = prefix+suffix, w.path+suffix
		a.plainWrite(sc, &w)
	case "tar", "bsdtar":
		a.tarCmd(sc, args, ctx)
	case "zip":
		recursive := false
		var zargs []word
		for i := 0; i < len(args); i++ {
			// -TT CMD (or -TTCMD): the command that tests the archive.
			if w := args[i]; w.static && strings.HasPrefix(w.s, "-TT") {
				if v := w.s[3:]; v != "" {
					a.optProgram(sc, "-TT", &word{s: v, static: true}, ctx)
				} else if i+1 < len(args) {
					i++
					a.optProgram(sc, "-TT", &args[i], ctx)
				}
				continue
			}
			zargs = append(zargs, args[i])
		}
		pos := optScan(zargs, "bnOtxi", set("temp-path", "suffixes", "output-file", "unzip-command", "exclude", "include", "from", "to"), func(o string, v *word) {
			switch o {
			case "-r", "-R", "--recurse-paths", "--recurse-patterns":
				recursive = true
			case "--unzip-command":
				a.optProgram(sc, o, v, ctx)
			case "-O", "--output-file":
				a.optWrite(sc, o, v)
			case "-@":
				optUnknownRead(sc, o)
			}
		})
		if len(pos) > 0 {
			a.plainWrite(sc, &pos[0])
			for i := range pos[1:] {
				ref := a.pathRef(pos[1+i])
				ref.recursive = recursive
				sc.reads = append(sc.reads, ref)
			}
		}
	case "cp", "rsync", "scp":
		recursive := false
		optScan(args, "tSeF", set("target-directory", "suffix", "rsh", "rsync-path", "backup-dir", "exclude", "include",
			"filter", "files-from", "exclude-from", "include-from", "log-file", "temp-dir"), func(o string, v *word) {
			switch o {
			case "-r", "-R", "-a", "--recursive", "--archive":
				recursive = true
			case "-e", "--rsh":
				if base == "rsync" {
					a.optProgram(sc, o, v, ctx)
				}
			case "--rsync-path":
				sc.optDanger = append(sc.optDanger, o)
			case "--files-from":
				optUnknownRead(sc, o)
			case "--log-file":
				a.optWrite(sc, o, v)
			}
		})
		if recursive {
			for i := range sc.reads {
				sc.reads[i].recursive = true
			}
		}
	case "sdiff":
		optScan(args, "oIwW", set("output", "ignore-matching-lines", "width", "diff-program"), func(o string, v *word) {
			switch o {
			case "-o", "--output":
				a.optWrite(sc, o, v)
			case "--diff-program":
				a.optProgram(sc, o, v, ctx)
			}
		})
	case "diff":
		optScan(args, "", set("diff-program"), func(o string, v *word) {
			if o == "--diff-program" {
				a.optProgram(sc, o, v, ctx)
			}
		})
	case "date":
		optScan(args, "fsdrI", set("file", "set", "date", "reference", "iso-8601", "rfc-3339"), func(o string, v *word) {
			if o == "-s" || o == "--set" {
				sc.optDanger = append(sc.optDanger, o)
			}
		})
	case "file":
		optScan(args, "mfFeP", set("magic-file", "files-from", "separator", "exclude", "parameter"), func(o string, v *word) {
			switch o {
			case "-C", "--compile":
				sc.optDanger = append(sc.optDanger, o)
			case "-f", "--files-from":
				optUnknownRead(sc, o)
			}
		})
	case "jq", "gojq":
		// --rawfile/--slurpfile NAME FILE read FILE (an argument read);
		// -f FILE is the program.
	}
}

// recursiveFlag: diff -r reads the trees it compares.
func (a *analyzer) recursiveFlag(sc *subCmd, base string, args []word) {
	if base != "diff" {
		return
	}
	rec := false
	optScan(args, "xXSFIL", set("exclude", "exclude-from", "starting-file", "show-function-line", "ignore-matching-lines",
		"label", "from-file", "to-file", "line-format", "old-line-format", "new-line-format", "unchanged-line-format",
		"old-group-format", "new-group-format", "changed-group-format", "unchanged-group-format", "horizon-lines", "tabsize", "width", "palette", "color"),
		func(o string, v *word) {
			if o == "-r" || o == "-R" || o == "--recursive" {
				rec = true
			}
		})
	if rec {
		for i := range sc.reads {
			sc.reads[i].recursive = true
		}
	}
}

// tarCmd: -c (and -r, -u, -A) read their operands recursively and write
// the archive; -x and -t read it, -x writes under -C DIR (or the working
// directory); the program options run programs.
func (a *analyzer) tarCmd(sc *subCmd, args []word, ctx walkCtx) {
	mode := byte(0)
	var archive, dir *word
	noRec := false
	// old-style bundled first argument (tar cf x.tar dir).
	if len(args) > 0 && args[0].static && !strings.HasPrefix(args[0].s, "-") && args[0].s != "" &&
		strings.Trim(args[0].s, "AcdtrtuxzjJvfpkmOoPSWhiCTXbBGgLMNRlK") == "" {
		a0 := args[0]
		a0.s = "-" + a0.s
		args = append([]word{a0}, args[1:]...)
	}
	pos := optScan(args, "fCTXbKNLgIFVH", set("file", "directory", "files-from", "exclude-from", "to-command",
		"use-compress-program", "checkpoint-action", "info-script", "new-volume-script", "rmt-command", "rsh-command",
		"exclude", "transform", "xform", "owner", "group", "mode", "mtime", "newer", "after-date", "label", "format",
		"blocking-factor", "starting-file", "newer-mtime", "volno-file", "index-file", "backup", "suffix", "strip-components"), func(o string, v *word) {
		switch o {
		case "-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate":
			mode = 'c'
		case "-x", "--extract", "--get":
			if mode == 0 {
				mode = 'x'
			}
		case "-t", "--list", "-d", "--diff", "--compare":
			if mode == 0 {
				mode = 't'
			}
		case "-f", "--file":
			archive = v
		case "-C", "--directory":
			dir = v
		case "--no-recursion":
			noRec = true
		case "--to-command", "-I", "--use-compress-program", "--info-script", "-F", "--new-volume-script",
			"--rmt-command", "--rsh-command":
			a.optProgram(sc, o, v, ctx)
		case "--checkpoint-action":
			sc.optDanger = append(sc.optDanger, o)
			if v != nil {
				if cmd, ok := strings.CutPrefix(v.s, "exec="); ok {
					a.programArg(word{s: cmd, static: v.static}, ctx)
				}
			}
		case "-T", "--files-from":
			optUnknownRead(sc, o)
		}
	})
	switch mode {
	case 'c':
		if archive != nil && archive.s != "-" {
			a.plainWrite(sc, archive)
		}
		for i := range pos {
			ref := a.pathRef(pos[i])
			ref.recursive = !noRec
			sc.reads = append(sc.reads, ref)
		}
	case 'x':
		target := pathRef{raw: ".", cwd: a.cwd, unknown: true, under: a.cwdKnown}
		if dir != nil {
			target = a.pathRef(*dir)
			target.unknown, target.under = true, !target.unknown
		}
		sc.writes = append(sc.writes, target)
	}
}

// optionMentioned: an allow rule covers a command whose options run a
// program or write a file only if its pattern names each such option:
// a long option by its name (--output), a short one as a letter of an
// option word (-o, -uo), anything else (an output operand, an awk or sed
// construct) as written.
func optionMentioned(p *bashPattern, opt string) bool {
	g := p.glob
	switch {
	case strings.HasPrefix(opt, "--"):
		return strings.Contains(g, opt)
	case len(opt) == 2 && opt[0] == '-':
		for _, w := range strings.Split(g, " ") {
			if len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], opt[1]) >= 0 {
				return true
			}
		}
		return false
	}
	// Anything else is looked for past the command word, so that a script
	// command such as sed's `e` is not "named" by the `e` of `sed`.
	if i := strings.IndexByte(g, ' '); i >= 0 {
		return strings.Contains(g[i:], opt)
	}
	return false
}

// matchBashAllow returns the first allow rule of set that matches sc and
// names every dangerous option of it.
func matchBashAllow(set *ruleSet, sc *subCmd) *rule {
	if len(sc.optDanger) == 0 {
		// the common case; a rule with a blank inside a word must also
		// meet the words (grant_words.go), else the full search below.
		if r := matchBash(set, sc.text); r == nil || r.bash.wordsMatchSub(sc) {
			return r
		}
	}
	fw := sc.text
	if i := strings.IndexByte(fw, ' '); i >= 0 {
		fw = fw[:i]
	}
	ok := func(r *rule) bool {
		if r.kind == rkAny {
			return true // Bash: every command, as written
		}
		if !r.bash.match(sc.text) || !r.bash.wordsMatchSub(sc) {
			return false
		}
		for _, o := range sc.optDanger {
			if !optionMentioned(&r.bash, o) {
				return false
			}
		}
		return true
	}
	var best *rule
	for _, r := range set.bashByWord[fw] {
		if ok(r) {
			best = first(best, r)
			break
		}
	}
	for _, r := range set.bashWild {
		if best != nil && r.idx > best.idx {
			break
		}
		if ok(r) {
			best = first(best, r)
			break
		}
	}
	return best
}
