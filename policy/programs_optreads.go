package policy

import (
	"path"
	"strings"
)

// Files a program reads through its options, response files and module
// paths, and places it moves (red team 16; docs/policy.md, "Files read
// through options" and "Moving a protected place"). What a program reads
// or moves is said once, in its declaration: reads (an option's value is
// a file read), pairReads (the second value of a two-valued option),
// atFiles (a plain @FILE is a response file), plainReads (every plain
// argument, with its tree), moves (the plain arguments are moved, renamed
// or linked, with their trees); jq's hook reads the module paths of its
// program text.

// optRead is one file read through an option's value.
type optRead struct {
	opt string
	ref pathRef
}

// optRead records the file an option's value names as a read (one only
// known at run time is an unknown read: with Read rules, ask).
func (a *analyzer) optRead(sc *subCmd, opt string, v *word) {
	if v == nil || !v.static || !v.pathOK || v.glob || v.brace {
		optUnknownRead(sc, opt)
		sc.optReads = append(sc.optReads, optRead{opt: opt, ref: pathRef{raw: "(the value of " + opt + ")", unknown: true}})
		return
	}
	if isHarmlessDevice(v.path) {
		return
	}
	ref := a.pathRef(*v)
	sc.reads = append(sc.reads, ref)
	sc.optReads = append(sc.optReads, optRead{opt: opt, ref: ref})
}

// declReadsMoves: the response files, plain reads and moved places a
// declaration names.
func (a *analyzer) declReadsMoves(d *progDecl, sc *subCmd, opts []declOpt, plain []word) {
	if d.atFiles {
		// libiberty's expandargv reads every argument @F as a response
		// file before the options are parsed: an option's value too
		// (ld -a @F, gcc -o @F; red team 17).
		ws := plain
		for _, o := range opts {
			if o.val != nil && strings.HasPrefix(o.val.s, "@") {
				ws = append(ws[:len(ws):len(ws)], *o.val)
			}
		}
		for _, w := range ws {
			if !strings.HasPrefix(w.s, "@") || len(w.s) < 2 {
				continue
			}
			f := w
			f.s, f.path = w.s[1:], strings.TrimPrefix(w.path, "@")
			if !w.static {
				f.pathOK = false
			}
			a.optRead(sc, "@", &f)
			if d.atArgs {
				argFileDoubt(sc, "@") // programs_argfiles.go
			}
		}
	}
	if d.plainReads {
		for _, w := range plain {
			if !w.static || !w.pathOK || w.glob || w.brace {
				optUnknownRead(sc, d.name)
				continue
			}
			ref := a.pathRef(w)
			ref.recursive = true
			sc.reads = append(sc.reads, ref)
			sc.optReads = append(sc.optReads, optRead{opt: d.name, ref: ref})
		}
	}
	if !d.moves && !hasDeclOpt(opts, d.editsAllWith) {
		return
	}
	for _, w := range plain {
		a.movedPlace(sc, w)
	}
	for _, o := range opts {
		if containsStr(d.targetOpts, o.name) && o.val != nil {
			a.movedPlace(sc, *o.val)
		}
	}
}

// movedPlace records w as a place moved with its tree.
func (a *analyzer) movedPlace(sc *subCmd, w word) {
	ref := a.pathRef(w) // a glob keeps its pattern; a variable is unknown
	ref.recursive = true
	sc.moved = append(sc.moved, ref)
}

// movedRule: the first rule of set for tool whose match a move of pi
// breaks: the place itself, or a file under it, is one the rule names
// (matchPath, with the tree), or the place is a directory every match of
// the rule passes through with its name (secrets for secrets/**, ~ and
// ~/.ssh for ~/.ssh/**, config for config/*.key). A move of a place that
// is only some ancestor of a match (src for the any-depth .env) keeps the
// rule's match: the moved file still meets it.
func (ev *evaluator) movedRule(set *ruleSet, tool string, pi pathInfo) *rule {
	if r := ev.matchPath(set, tool, pi, true); r != nil {
		return r
	}
	if pi.unknown || pi.abs == "" {
		return nil
	}
	var best *rule
	for _, r := range set.byTool[tool] {
		if best != nil && r.idx > best.idx {
			break
		}
		if r.kind != rkPath {
			continue
		}
		if ev.passesThrough(&r.path, pi.abs) || pi.real != pi.abs && ev.passesThrough(&r.path, pi.real) {
			best = first(best, r)
		}
	}
	return best
}

// passesThrough: abs is, exactly, a directory that a path the pattern
// names runs through by name: it matches a leading part of the pattern
// (as absolute segments) that holds a segment other than **.
func (ev *evaluator) passesThrough(p *pathPattern, abs string) bool {
	base := p.base(ev.env)
	if base == "" || abs == "/" {
		return false
	}
	full := p.glob
	if p.up || base != "/" {
		full = path.Join(base, p.glob)
	}
	segs := strings.Split(strings.Trim(full, "/"), "/")
	rel := strings.TrimPrefix(abs, "/")
	named := false
	for j := 1; j < len(segs); j++ {
		if segs[j-1] != "**" {
			named = true
		}
		if !named {
			continue
		}
		if compileGlob(strings.Join(segs[:j], "/")).match(rel, 0, nil) {
			return true
		}
	}
	return false
}

// movedDeny: a place a sub-command moves that a rule of set for Read (or
// Edit) covers this way.
func (ev *evaluator) movedHit(set *ruleSet, an *shellAnalysis) (*rule, *subCmd, pathInfo) {
	for i := range an.subs {
		sc := &an.subs[i]
		for j := range sc.moved {
			pi := ev.env.infoRef(&sc.moved[j])
			if r := ev.movedRule(set, "Read", pi); r != nil {
				return r, sc, pi
			}
		}
	}
	return nil, nil, pathInfo{}
}

// optReadsCovered: an allow rule r covers the files sc reads through its
// options: each lies in the workspace, an allow Read rule names it, or r
// names the option (Bash(git blame --contents *)); a prefix rule such as
// Bash(go test *) does not reach a file outside the workspace.
func (ev *evaluator) optReadsCovered(r *rule, sc *subCmd) bool {
	if r == nil || r.kind == rkAny || len(sc.optReads) == 0 {
		return true
	}
	for i := range sc.optReads {
		o := &sc.optReads[i]
		pi := ev.env.infoRef(&o.ref)
		if !pi.unknown && ev.env.inWorkspace(pi) {
			continue
		}
		if !pi.unknown && ev.matchPath(&ev.pol.allow, "Read", pi, false) != nil {
			continue
		}
		if o.opt != "@" && optionMentioned(&r.bash, o.opt) {
			continue
		}
		return false
	}
	return true
}

func init() {
	declare(programsOptReadsDecls[:]...)
}

// jqFlags: jq's options without a value (jq takes no abbreviations: named
// so that none reads as a prefix of --slurpfile or --rawfile).
var jqFlags = []string{"--slurp", "--raw-input", "--null-input", "--compact-output", "--tab", "--join-output", "--raw-output",
	"--raw-output0", "--ascii-output", "--sort-keys", "--color-output", "--monochrome-output", "--exit-status", "--seq",
	"--stream", "--stream-errors", "--unbuffered", "--args", "--jsonargs", "--version", "--help", "--build-configuration"}

// binutils: programs that read @FILE response files; nm's --plugin NAME
// (ar's and ranlib's too) loads code: a doubt (red team 17). (ar,
// ranlib, objcopy, strip and elfedit write: programs_binutils.go.)
var binutils = []string{"objdump", "readelf", "nm", "gcc-nm", "size", "addr2line", "c++filt", "gprof"}

// programsOptReadsDecls: the declarations of this file, as data the linker
// lays out; declared by init, in this order.
var programsOptReadsDecls = [...]*progDecl{
	// find -files0-from F: the start points are read from F (GNU find
	// prints all of F in its error when they are not files).
	&progDecl{name: "find", valued: []string{"-files0-from"}, reads: []string{"-files0-from"},
		match: []string{"find -files0-from /etc/shadow"}, noMatch: []string{"find . -name '*.go'"}},
	&progDecl{name: "git blame", aliases: []string{"git annotate"}, valued: []string{"--contents", "--ignore-revs-file", "-S", "--ignore-rev", "-L", "--since",
		"--date", "--abbrev"}, reads: []string{"--contents", "--ignore-revs-file", "-S"},
		flags: []string{"--incremental", "--porcelain", "--line-porcelain", "--show-name", "--show-number", "--show-email", "--show-stats",
			"--root", "--reverse", "--first-parent", "--progress", "--score-debug", "--color-lines", "--color-by-age", "--minimal"},
		match:   []string{"git blame --contents /etc/shadow README.md", "git blame --contents=/etc/shadow README.md", "git blame -S /etc/shadow x"},
		noMatch: []string{"git blame README.md", "git blame -L 1,5 README.md"}},
	&progDecl{name: "git grep", valued: []string{"-f", "-e", "-m", "--max-count", "-A", "-B", "-C", "--context", "--after-context",
		"--before-context", "--max-depth", "--threads"}, reads: []string{"-f"},
		match: []string{"git grep -f /etc/shadow"}, noMatch: []string{"git grep -e TODO", "git grep -n main -- '*.go'"}},
	&progDecl{name: "git ls-files", valued: []string{"--exclude-from", "-X", "-x", "--exclude", "--exclude-per-directory", "--format",
		"--with-tree", "--abbrev"}, reads: []string{"--exclude-from", "-X"}, flags: []string{"--exclude-standard"},
		match:   []string{"git ls-files --exclude-from=/etc/shadow -o", "git ls-files -X /etc/shadow -o"},
		noMatch: []string{"git ls-files -o --exclude-standard"}},
	// go version [-m] FILE|DIR reads the binaries it names (a directory's
	// recursively).
	&progDecl{name: "go version", plainReads: true, match: []string{"go version -m /etc/shadow", "go version ~/.ssh"}, noMatch: []string{"go version"}},
	&progDecl{name: "strings", aliases: binutils, valued: []string{"-n", "--bytes", "-t", "--radix", "-e", "--encoding", "-T", "--target",
		"-s", "--output-separator", "--plugin"}, atFiles: true, argFiles: []string{"--plugin"},
		match: []string{"strings @/etc/shadow", "nm --plugin ./p.so x.o"}, noMatch: []string{"strings -n 8 bin/tool", "nm -C x.o"}},
	// jq: the module paths of its program text (jqHook).
	&progDecl{name: "jq", aliases: []string{"gojq"}, valued: []string{"-f", "--from-file", "-L", "--library-path", "--arg", "--argjson",
		"--slurpfile", "--rawfile", "--indent"}, pairs: []string{"--arg", "--argjson", "--slurpfile", "--rawfile"},
		pairReads: []string{"--slurpfile", "--rawfile"}, flags: jqFlags, hook: jqHook,
		match: []string{"jq -n 'import \"config\" as $c {search: \"/home/u/.docker\"}; $c'", "jq -n -L /tmp 'include \"x\"; 1'",
			"jq -n --rawfile k /etc/shadow '$k'"},
		noMatch: []string{"jq '.name' package.json", "jq -n --arg x 1 '$x'", "jq --slurp . package.json"}},
	// git keeps what it reads from a message file: a later git log or
	// git show prints it.
	&progDecl{name: "git commit", valued: []string{"-F", "--file", "-t", "--template", "-m", "--message", "-C", "--reuse-message",
		"-c", "--reedit-message", "--author", "--date", "--fixup", "--squash", "--cleanup", "--trailer", "--pathspec-from-file"},
		reads: []string{"-F", "--file", "-t", "--template", "--pathspec-from-file"}, flags: []string{"--amend", "--all", "--no-edit", "--dry-run"},
		match:   []string{"git commit -F /etc/shadow", "git commit --template=/home/u/.ssh/id_rsa"},
		noMatch: []string{"git commit -m 'fix: x'", "git commit -am wip"}},
	&progDecl{name: "git tag", valued: []string{"-F", "--file", "-m", "--message", "-u", "--local-user", "--cleanup", "--sort",
		"--format", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-n"}, reads: []string{"-F", "--file"},
		match: []string{"git tag -a v1 -F /etc/shadow"}, noMatch: []string{"git tag -a v1 -m v1"}},
	&progDecl{name: "git notes add", valued: []string{"-F", "--file", "-m", "--message", "-C", "--reuse-message", "-c",
		"--reedit-message"}, reads: []string{"-F", "--file"}, match: []string{"git notes add -F /etc/shadow"}, noMatch: []string{"git notes add -m x"}},
	&progDecl{name: "git notes append", valued: []string{"-F", "--file", "-m", "--message", "-C", "--reuse-message", "-c",
		"--reedit-message"}, reads: []string{"-F", "--file"}, match: []string{"git notes append -F /etc/shadow"}},
	&progDecl{name: "git config", valued: []string{"-f", "--file", "--blob", "--type", "--default", "--comment"}, reads: []string{"-f", "--file"},
		flags: []string{"--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--global", "--system", "--local", "--worktree",
			"--add", "--unset", "--unset-all", "--replace-all", "--edit", "--show-origin", "--show-scope", "--name-only", "--null",
			"--bool", "--int", "--bool-or-int", "--path", "--expiry-date", "--includes", "--no-includes", "--get-color",
			"--get-colorbool", "--rename-section", "--remove-section", "--fixed-value", "--no-type"},
		match:   []string{"git config -f /home/u/.ssh/config --list", "git config --file=/etc/shadow -l"},
		noMatch: []string{"git config --get user.name", "git config --list"}},
	&progDecl{name: "git worktree move", moves: true, match: []string{"git worktree move /home/u/.ssh x"}},
	&progDecl{name: "rename", aliases: []string{"perl-rename", "prename", "file-rename", "rename.ul"}, moves: true, hook: renameHook, match: []string{"rename .ssh ssh /home/u/.ssh", "rename s/ssh/x/ /home/u"}},
	&progDecl{name: "link", moves: true, match: []string{"link /home/u/.ssh/id_rsa k"}},
	&progDecl{name: "ln", valued: []string{"-t", "--target-directory", "-S", "--suffix"}, targetOpts: []string{"-t", "--target-directory"},
		moves: true, match: []string{"ln -s /home/u/.ssh key"}},
}

// unknownMoved: a place moved that is known only at run time, while a
// Read rule could name it: a variable, or a glob whose last segment could
// be a name some Read deny or ask rule holds (mv sec* pub under
// Read(secrets/**); mv src/*.go lib stays checkable under it).
func (ev *evaluator) unknownMoved(refs []pathRef, guardRead bool) string {
	if !guardRead {
		return ""
	}
	for i := range refs {
		ref := &refs[i]
		if !ref.unknown {
			continue
		}
		if ref.pattern != "" && !strings.ContainsAny(ref.pattern, "{}") && !ev.globMayNameRead(path.Base(ref.pattern)) {
			continue
		}
		what := ref.raw
		if ref.pattern != "" {
			what = ref.pattern
		}
		return "the place " + what + " it moves is only known at run time and a Read rule could name it"
	}
	return ""
}

// globMayNameRead: a name matching glob (one segment) could be a segment
// of a Read deny or ask rule: a literal segment the glob matches, or any
// segment with wildcards of its own (the reader does not intersect two
// globs).
func (ev *evaluator) globMayNameRead(glob string) bool {
	for _, set := range [2]*ruleSet{&ev.pol.deny, &ev.pol.ask} {
		for _, r := range set.byTool["Read"] {
			if r.kind != rkPath {
				return true
			}
			full := r.path.glob
			if r.path.up || r.path.anchor != anchorAbs {
				full = path.Join(r.path.base(ev.env), full)
			}
			for _, seg := range strings.Split(strings.Trim(full, "/"), "/") {
				if seg == "**" || seg == "" {
					continue
				}
				if strings.ContainsAny(seg, "*?[\\") || matchGlob(glob, seg) {
					return true
				}
			}
		}
	}
	return false
}

// gitFileKeys: the last part of git configuration keys whose value is a
// file git reads (and may print: blame.ignoreRevsFile names its first
// word in an error, commit.template becomes a commit message,
// http.cookieFile is sent to the server).
var gitFileKeys = map[string]bool{"ignorerevsfile": true, "template": true, "excludesfile": true, "attributesfile": true,
	"file": true, "orderfile": true, "cookiefile": true, "sslcert": true, "sslkey": true, "sslcainfo": true, "proxysslcert": true,
	"proxysslkey": true, "proxysslcainfo": true, "allowedsignersfile": true, "revocationfile": true, "aliasesfile": true}

// gitConfigReads: `git -c KEY=FILE` for a key whose value is a file git
// reads is a read of FILE through the option -c (red team 16's option
// reads in git's configuration spelling).
func (a *analyzer) gitConfigReads(sc *subCmd, cfg []word) {
	for _, w := range cfg {
		key, val, ok := strings.Cut(w.s, "=")
		if !ok {
			continue
		}
		k := strings.ToLower(key)
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			k = k[i+1:]
		}
		if !gitFileKeys[k] || val == "" {
			continue
		}
		v := staticWordPath(val)
		if !w.static {
			v.static, v.pathOK = false, false
		}
		a.optRead(sc, "-c", &v)
	}
}

// renameHook: perl's rename runs its first argument (or -e's) as Perl
// code: its words are probed as an unknown program's are (a command in
// system("...") meets the deny rules and breakers), as before rename was
// declared.
func renameHook(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx) {
	ws := make([]word, 0, 1+len(plain))
	ws = append(ws, staticWord("rename"))
	a.probe(append(ws, plain...), ctx)
}
