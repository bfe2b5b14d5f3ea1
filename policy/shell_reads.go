package policy

import (
	"path"
	"strings"
)

// Reads hidden in other commands (docs/policy.md, "What the static reading
// holds", class 6).
//
// A Read deny rule must hold whatever command does the reading, not only
// for cat and the read-only set: `sort .env`, `awk 1 .env`, `base64 .env`,
// `source .env`, `curl -d @.env`, `docker run --env-file .env`,
// `git show HEAD:.env`. So every argument of every command that may name a
// file is checked against Read deny and ask rules (never used to allow):
// plain arguments, the value of --opt=value and of an attached -fVALUE,
// what follows a leading @, the path after the last ":" (rev:path,
// file:///x) and after the first "=" (if=.env). A recursive reader (grep
// -r, rg, ag, ack, git grep, git log -p, git diff, tar -c, zip -r, cp -r,
// diff -r, find -exec CMD {}) reads every file under its roots: it is
// denied when a deny pattern covers everything there, and asks when a deny
// or ask pattern could match something inside (rg and ag skip hidden
// entries, so a pattern whose every match is hidden below the root, such
// as .env*, does not make them ask). Files named on standard input (xargs)
// are only known at run time: with Read rules present that asks.

// noFileArgs are commands whose arguments never name a file they read.
var noFileArgs = map[string]bool{
	"echo": true, "printf": true, "which": true, "type": true, "command": true, "basename": true,
	"dirname": true, "pwd": true, "true": true, "false": true, "test": true, "[": true, "seq": true,
	"sleep": true, "expr": true, "printenv": true, "hostname": true, "uname": true, "id": true,
	"whoami": true, "nproc": true, "locale": true, "kill": true, "cd": true, "pushd": true, "popd": true,
	"mkdir": true, "rmdir": true, "touch": true, "export": true, "unset": true, "alias": true,
	"exit": true, "return": true, "shift": true, "wait": true, "read": true, "ln": true,
}

// maxArgReads bounds the argument reads of one sub-command.
const maxArgReads = 256

// maxGroupedFlags bounds the flags of a short-option group before its
// attached value (-sSLd@file) that the reads reading tries.
const maxGroupedFlags = 8

// argReadsOf records every argument of a command that may name a file.
// skip says which options take a value that is never a file (git -m).
func (a *analyzer) argReadsOf(sc *subCmd, args []word, skip func(string) bool) {
	afterDD, skipNext := false, false
	if sc.argReads == nil && len(args) > 0 {
		sc.argReads = a.newRefs(min(len(args), maxArgReads))
	}
	for _, w := range args {
		if len(sc.argReads) >= maxArgReads {
			return
		}
		if skipNext {
			skipNext = false
			continue
		}
		if !w.pathOK || w.glob || w.brace {
			if !afterDD && strings.HasPrefix(w.s, "-") {
				continue
			}
			// a file named at run time ("$f", $d/.env, $(ls)): with Read
			// rules present it cannot be checked. Words that read as
			// data rather than a path (a header "K: $V", K=$V, a
			// sentence) are left alone.
			if !w.static && !strings.ContainsAny(w.s, " :=\t\n") && len(sc.argReads) < maxArgReads {
				sc.argReads = append(sc.argReads, pathRef{raw: w.s, unknown: true})
			}
			// a glob can match a hidden file only through a segment that
			// starts with a dot (.e*, sub/.env?): ask then too.
			if w.static && (w.glob || w.brace) && hiddenGlob(w.s) {
				sc.argReads = append(sc.argReads, pathRef{raw: w.s, unknown: true})
			}
			continue
		}
		s := w.path
		switch {
		case !afterDD && w.s == "--":
			afterDD = true
		case afterDD || !strings.HasPrefix(w.s, "-") || w.s == "-":
			a.argCandidates(sc, s, 2)
		case skip != nil && skip(w.s):
			skipNext = !strings.Contains(w.s, "=")
		case strings.Contains(s, "="):
			a.argCandidates(sc, s[strings.IndexByte(s, '=')+1:], 2)
		case !strings.HasPrefix(s, "--") && len(s) > 2:
			// -fVALUE, and grouped flags ending in a valued one
			// (curl -sSd@file): the value may start after any of them.
			for k := 2; k < len(s) && k < 2+maxGroupedFlags; k++ {
				a.argCandidates(sc, s[k:], 2)
			}
		}
	}
}

// argCandidates adds c and the paths it may hold (derive levels deep).
func (a *analyzer) argCandidates(sc *subCmd, c string, derive int) {
	if c == "" || c == "-" || len(sc.argReads) >= maxArgReads {
		return
	}
	if c == "~" || strings.HasPrefix(c, "~/") {
		if a.env.home == "" {
			return
		}
		c = a.env.home + c[1:]
	}
	if path.IsAbs(c) || a.cwdKnown {
		sc.argReads = append(sc.argReads, pathRef{raw: c, cwd: a.cwd})
	}
	if derive == 0 {
		return
	}
	if rest, ok := strings.CutPrefix(c, "@"); ok {
		a.argCandidates(sc, rest, derive-1) // curl -d @file
	}
	if i := strings.LastIndexByte(c, ':'); i >= 0 {
		a.argCandidates(sc, c[i+1:], derive-1) // HEAD:path, :path, file:///path
	}
	if i := strings.IndexByte(c, '='); i > 0 {
		a.argCandidates(sc, c[i+1:], derive-1) // if=path, name=@path
	}
	if i := strings.IndexByte(c, '@'); i > 0 {
		a.argCandidates(sc, c[i+1:], derive-1) // curl --data-urlencode name@path
	}
}

// stdinArgs: the command added at or after sub n takes more arguments from
// standard input (xargs): files only known at run time.
func (a *analyzer) stdinArgs(n int, xargsArgs []word) {
	if n > 0 {
		// xargs -a FILE / --arg-file=FILE reads FILE.
		optScan(xargsArgs, "aEIdLnPs", set("arg-file", "eof", "replace", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"), func(o string, v *word) {
			if (o == "-a" || o == "--arg-file") && v != nil {
				a.argCandidates(&a.an.subs[n-1], v.path, 0)
			}
		})
	}
	if len(a.an.subs) <= n {
		return
	}
	sc := &a.an.subs[len(a.an.subs)-1]
	// unknown, but taken as lying under the working directory for the
	// workspace test (a Read or Edit rule makes it ask).
	ref := pathRef{raw: a.cwd, cwd: a.cwd, unknown: true, under: a.cwdKnown}
	sc.reads = append(sc.reads, ref)
	if fw, _, _ := strings.Cut(sc.text, " "); writerCmds[path.Base(fw)] != "" {
		sc.writes = append(sc.writes, ref)
	}
}

// findExecArgs: in a command run by find -exec, {} is any file under the
// start paths: reads of it are recursive reads of the starts, writes are
// writes somewhere under them.
func (a *analyzer) findExecArgs(n int, starts []word) {
	braces := func(refs []pathRef) bool {
		for _, r := range refs {
			if strings.Contains(r.raw, "{}") {
				return true
			}
		}
		return false
	}
	for i := n; i < len(a.an.subs); i++ {
		sc := &a.an.subs[i]
		reads := braces(sc.reads) || braces(sc.argReads)
		writes := braces(sc.writes)
		if !reads && !writes {
			continue
		}
		sc.reads = dropBraces(sc.reads)
		sc.writes = dropBraces(sc.writes)
		sc.argReads = dropBraces(sc.argReads)
		for _, st := range starts {
			ref := a.pathRef(st)
			ref.recursive = true
			sc.reads = append(sc.reads, ref)
			if writes {
				w := a.pathRef(st)
				w.unknown, w.under = true, !w.unknown
				sc.writes = append(sc.writes, w)
			}
		}
	}
}

func dropBraces(refs []pathRef) []pathRef {
	out := refs[:0]
	for _, r := range refs {
		if !strings.Contains(r.raw, "{}") {
			out = append(out, r)
		}
	}
	return out
}

// findEffects: find's actions that run programs or write make an allow
// rule for find name them (Bash(find *) does not cover find . -delete);
// with a program run on the files found, the names it looks for (-name,
// -path) are files that program reads.
func (a *analyzer) findEffects(sc *subCmd, args []word, starts []word) {
	runs := false
	for _, w := range args {
		switch w.s {
		case "-exec", "-execdir", "-ok", "-okdir":
			runs = true
			fallthrough
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			sc.optDanger = append(sc.optDanger, w.s)
		}
	}
	if !runs {
		return
	}
	for i := 0; i+1 < len(args); i++ {
		v := args[i+1]
		if !v.static {
			continue
		}
		switch args[i].s {
		case "-name", "-iname":
			for _, st := range starts {
				if st.pathOK {
					a.argCandidates(sc, strings.TrimSuffix(st.path, "/")+"/"+v.s, 0)
				}
			}
		case "-path", "-ipath", "-wholename", "-iwholename":
			a.argCandidates(sc, v.s, 0)
		}
	}
}

// recursiveRead adds a recursive read of w (or of the working directory).
func (a *analyzer) recursiveRead(sc *subCmd, w *word) {
	var ref pathRef
	if w == nil {
		ref = pathRef{raw: ".", cwd: a.cwd, unknown: !a.cwdKnown}
	} else {
		ref = a.pathRef(*w)
	}
	ref.recursive = true
	sc.reads = append(sc.reads, ref)
}

// repoRead: a recursive read of the repository git works in (the project
// root when the directory is inside it).
func (a *analyzer) repoRead(sc *subCmd) {
	dir := a.cwd
	if a.cwdKnown && within(a.cwd, a.env.root) {
		dir = a.env.root
	}
	sc.reads = append(sc.reads, pathRef{raw: dir, cwd: a.cwd, unknown: !a.cwdKnown, recursive: true})
}

// searcher says how a recursive search tool reads its arguments.
type searcher struct {
	valued     string          // short options with a value
	longValued map[string]bool // long options with a value
	always     bool            // recursive without -r
	hidden     bool            // skips hidden entries unless told otherwise
}

var searchers = map[string]*searcher{
	"grep": {valued: "efmABCdD", longValued: set("regexp", "file", "max-count", "after-context", "before-context",
		"context", "directories", "devices", "include", "exclude", "exclude-dir", "exclude-from", "label", "color", "colour", "binary-files")},
	"rg": {valued: "efgtTmABCjMrEd", always: true, hidden: true, longValued: set("regexp", "file", "glob", "iglob", "type",
		"type-not", "type-add", "type-clear", "max-count", "after-context", "before-context", "context", "threads",
		"replace", "encoding", "max-depth", "max-filesize", "max-columns", "pre", "pre-glob", "sort", "sortr",
		"ignore-file", "colors", "color", "path-separator", "context-separator", "field-match-separator",
		"field-context-separator", "engine", "dfa-size-limit", "regex-size-limit", "hostname-bin", "hyperlink-format")},
	"ag": {valued: "GgABCmW", always: true, hidden: true, longValued: set("file-search-regex", "after", "before", "context",
		"max-count", "depth", "ignore", "ignore-dir", "pager", "workers", "width", "color-line-number", "color-match", "color-path")},
	"ack": {valued: "ABCmg", always: true, longValued: set("after-context", "before-context", "context", "max-count",
		"type-set", "type-add", "type-del", "ignore-dir", "noignore-dir", "ignore-file", "pager", "output", "match", "files-from")},
}

// searchReads records the recursive reads of grep -r, rg, ag, ack.
func (a *analyzer) searchReads(sc *subCmd, base string, args []word) {
	name := base
	switch base {
	case "egrep", "fgrep", "zgrep":
		name = "grep"
	case "ugrep":
		name = "grep"
	}
	s := searchers[name]
	if s == nil {
		return
	}
	recursive := s.always
	hidden := s.hidden
	patternGiven := false
	filesOnly := false
	var pos []word
	afterDD := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if afterDD || !w.static || !strings.HasPrefix(w.s, "-") || w.s == "-" {
			pos = append(pos, w)
			continue
		}
		o := w.s
		if o == "--" {
			afterDD = true
			continue
		}
		if strings.HasPrefix(o, "--") {
			n, _, hasEq := strings.Cut(o[2:], "=")
			n = expandLong(n, s.longValued)
			switch n {
			case "recursive", "dereference-recursive":
				recursive = true
			case "directories":
				recursive = recursive || strings.HasSuffix(o, "=recurse") || (!hasEq && i+1 < len(args) && args[i+1].s == "recurse")
			case "regexp", "file":
				patternGiven = true
			case "hidden", "unrestricted", "all-types", "search-binary":
				hidden = false
			case "files":
				filesOnly = true
			}
			if !hasEq && s.longValued[n] {
				i++
			}
			continue
		}
		for j := 1; j < len(o); j++ {
			c := o[j]
			switch {
			case (c == 'r' || c == 'R') && name == "grep":
				recursive = true
			case (c == 'e' || c == 'f') && name != "ag":
				patternGiven = true
			case c == 'u' && (name == "ag" || strings.Count(o, "u") >= 2), c == '.':
				hidden = false
			case c == 'a' && name == "ag":
				hidden = false
			}
			if strings.IndexByte(s.valued, c) >= 0 {
				if c == 'd' && name == "grep" {
					v := o[j+1:]
					if v == "" && i+1 < len(args) {
						v = args[i+1].s
					}
					recursive = recursive || v == "recurse"
				}
				if j == len(o)-1 {
					i++
				}
				break
			}
		}
	}
	if !recursive {
		return
	}
	if !patternGiven && !filesOnly && len(pos) > 0 {
		pos = pos[1:]
	}
	sc.skipHidden = hidden
	if len(pos) == 0 {
		a.recursiveRead(sc, nil)
		return
	}
	for i := range pos {
		a.recursiveRead(sc, &pos[i])
	}
}

// gitReads records what a git sub-command reads beyond gitReadOnly's
// verdict: the files its arguments name (rev:path included), the whole
// repository for the commands that print file contents (log -p, show,
// diff, grep, archive, ...), and the options that run programs or write
// files (class 7).
func (a *analyzer) gitReads(sc *subCmd, args []word) {
	if len(args) == 0 || !args[0].static {
		return
	}
	sub := args[0].s
	rest := args[1:]
	msg := func(o string) bool {
		switch sub {
		case "commit", "tag", "merge", "notes", "stash", "revert", "cherry-pick":
			return o == "-m" || o == "--message" || strings.HasPrefix(o, "--message=")
		}
		return false
	}
	a.argReadsOf(sc, rest, msg)
	content := false
	noPatch := false
	var paths []word
	afterDD := false
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		s := w.s
		if afterDD {
			paths = append(paths, w)
			continue
		}
		switch {
		case s == "--":
			afterDD = true
		case s == "-p" || s == "-u" || s == "--patch" || strings.HasPrefix(s, "-U") || strings.HasPrefix(s, "--unified") ||
			strings.HasPrefix(s, "--word-diff") || s == "--cc" || s == "--patch-with-stat" || s == "--patch-with-raw" ||
			strings.HasPrefix(s, "-L"):
			content = true
		case s == "-s" || s == "--no-patch" || s == "--stat" || strings.HasPrefix(s, "--stat=") || s == "--name-only" ||
			s == "--name-status" || s == "--numstat" || s == "--shortstat" || s == "--summary" || strings.HasPrefix(s, "--dirstat") ||
			s == "--quiet" || s == "--raw":
			noPatch = true
		case s == "--output" || s == "-o" && sub == "archive":
			if i+1 < len(rest) {
				sc.writes = append(sc.writes, a.pathRef(rest[i+1]))
			}
			sc.optDanger = append(sc.optDanger, s)
			sc.readOnly = false
			i++
		case strings.HasPrefix(s, "--output="):
			v := rest[i]
			v.s, v.path = s[len("--output="):], strings.TrimPrefix(v.path, "--output=")
			sc.writes = append(sc.writes, a.pathRef(v))
			sc.optDanger = append(sc.optDanger, "--output")
			sc.readOnly = false
		case s == "-O" || strings.HasPrefix(s, "-O") && sub == "grep" || strings.HasPrefix(s, "--open-files-in-pager"):
			// git grep runs a pager program on the files it found.
			sc.optDanger = append(sc.optDanger, s)
			sc.readOnly = false
			if v, ok := strings.CutPrefix(s, "--open-files-in-pager="); ok {
				a.programArg(word{s: v, static: true}, walkCtx{})
			} else if v, ok := strings.CutPrefix(s, "-O"); ok && v != "" {
				a.programArg(word{s: v, static: true}, walkCtx{})
			}
		case s == "--ext-diff" || s == "--textconv" || s == "--exec" || strings.HasPrefix(s, "--exec=") ||
			strings.HasPrefix(s, "--upload-pack") || strings.HasPrefix(s, "--receive-pack") || s == "--run":
			sc.optDanger = append(sc.optDanger, s)
			sc.readOnly = false
		}
	}
	// content: the command prints file contents. An explicit patch option
	// (-p) wins over a names-only one (--stat -p shows both).
	explicit := content
	switch sub {
	case "log", "whatchanged", "reflog", "diff-tree", "diff-index", "diff-files":
		// commit messages or names only, unless a patch is asked for.
	case "cat-file":
		// an object named by its hash (or read from standard input with
		// --batch) may be any file's content; rev:path was read above.
		shows := false
		for _, w := range rest {
			switch {
			case w.s == "-p" || w.s == "blob" || w.s == "--textconv" || w.s == "--filters" || strings.HasPrefix(w.s, "--batch"):
				shows = true
			}
		}
		named := false
		for _, w := range rest {
			if !strings.HasPrefix(w.s, "-") && w.s != "blob" && w.s != "tree" && w.s != "commit" && w.s != "tag" && !strings.Contains(w.s, ":") {
				named = true
			}
			if strings.HasPrefix(w.s, "--batch") {
				named = true
			}
		}
		content = shows && named
	case "show":
		// a patch by default; rev:path objects are their blobs.
		blobs := true
		for _, w := range rest {
			if !strings.HasPrefix(w.s, "-") && !strings.Contains(w.s, ":") {
				blobs = false
			}
		}
		content = explicit || !noPatch && (!blobs || len(rest) == 0)
	case "diff":
		noIndex := false
		for _, w := range rest {
			if w.s == "--no-index" {
				noIndex = true
			}
		}
		content = !noIndex && (explicit || !noPatch)
	case "grep", "archive", "format-patch", "bundle", "fast-export":
		content = true
	case "stash":
		content = explicit && len(rest) > 0 && rest[0].s == "show"
	default:
		content = false
	}
	if !content {
		return
	}
	if len(paths) > 0 {
		for i := range paths {
			a.recursiveRead(sc, &paths[i])
		}
		return
	}
	a.repoRead(sc)
}

// programArg: an option's value is a program the command runs; it is
// read as a command line of its own (its sub-commands must be allowed and
// meet deny rules), or makes the command uncertain when only known at run
// time.
func (a *analyzer) programArg(w word, ctx walkCtx) {
	if !w.static {
		a.setUncertain("an option runs a program known only at run time")
		return
	}
	if strings.TrimSpace(w.s) == "" {
		return
	}
	ctx.depth++
	cwd, known := a.cwd, a.cwdKnown
	a.parseAndVisit(w.s, ctx)
	a.cwd, a.cwdKnown = cwd, known
}

// hiddenGlob: a segment of the glob starts with a dot.
func hiddenGlob(g string) bool {
	for _, seg := range strings.Split(g, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return true
		}
	}
	return false
}
