package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Programs declared once (docs/policy.md, "Deny rules wherever a program
// could run"). A declaration says what the policy knows of one program or
// one subcommand ("uv run", "git submodule"): which options take a value,
// where the command it runs starts, which options and arguments hold shell
// code or the program's own shell escape, which options read or write
// files, which options run a program, its breakers, how its long options
// read as short ones, and examples of what must and must not match. Every
// check of a declared program reads its declaration (programs_*.go hold
// the families); checkDecl validates each one when the package loads (a bad
// declaration panics at init, so no binary ships with one) and the examples
// are run against Evaluate by TestProgramDeclarations.

// runKind says where a declared program's command starts.
type runKind uint8

const (
	runNone runKind = iota
	// runAfterOpts: after the options (and skip plain words): `uv run CMD`,
	// `timeout 5 CMD`. A `--` ends the options.
	runAfterOpts
	// runAfterDashDash: only after `--` (`kubectl exec POD -- CMD`); without
	// one, after the options and skip plain words.
	runAfterDashDash
	// runUnknown: the arguments go to a program the policy does not know
	// (`cargo run -- ARGS` hands them to the built binary): they are probed
	// like an unknown program's arguments.
	runUnknown
	// runAfterOpt: right after one of runOpt (`nix shell PKG -c CMD`).
	runAfterOpt
	// runProgram: the arguments are handed to the program runProg (`yarn
	// node ARGS` runs `node ARGS`): they are read as that command.
	runProgram
)

// progDecl is one program's declaration.
type progDecl struct {
	// name: the program, then its subcommand words ("git submodule").
	name string
	// sub: the subcommand words of name (set by declare).
	sub []string
	// aliases: other program names with the same declaration.
	aliases []string
	// valued: options that take a value in the next word (or attached:
	// -n5, --name=v). Other options take none.
	valued []string
	// wordOpts: an option is its whole word (gcc -wrapper, -Wl,-o,F, -oF),
	// read by the hook (scanWordOpt, programs_cc.go).
	wordOpts bool
	// run: where the command it runs starts; skip: plain words before it
	// (timeout's duration, docker exec's container, ssh's host).
	run    runKind
	skip   int
	runOpt []string
	// runProg: with run runProgram, the program the arguments go to.
	runProg string
	// code: options whose value is shell code (`git rebase --exec`);
	// codeArgs: the plain arguments from the skip-th on are shell code
	// (`git submodule foreach CODE`, `git bisect run CMD ARGS`).
	code     []string
	codeArgs bool
	// escape: the program's own shell escape in an argument or in the value
	// of an escapeOpts option (sqlite3 `.shell CMD`, vim `-c '!CMD'`): it
	// returns the shell code, or false.
	escape     func(s string) (string, bool)
	escapeOpts []string
	// exRead: the program's command language read with its own rules
	// (programs_exlang.go: vim, gdb); when set, declEscape uses it instead
	// of escape: shell code, files written, doubt. opt: the escapeOpts
	// option whose value s is; "" when s is a plain argument or another
	// option's value.
	exRead func(opt, s string) exReading
	// stdinCode: reading its program from standard input (`make -f -`) runs
	// code the line feeds it (a here-string or here-doc is read as shell;
	// anything else is uncertain).
	stdinCode []string
	// reads / writes: options whose value is a file read / written. A
	// file read through an option is judged as any read (Read rules, the
	// workspace) and, outside the workspace, a prefix allow rule covers it
	// only if it names the option (programs_optreads.go).
	reads, writes []string
	// argFiles: options whose value is a file holding more of the
	// program's own arguments or configuration, which can name writes,
	// hosts or code the reader never sees (curl -K, wget --config): the
	// file is a read, and the call is a doubt (ask in every mode, dontAsk
	// denies) unless an allow rule names the option; atReads: options
	// whose value @F (or NAME=@F, NAME=<F) names a file read (curl -d @F,
	// -F k=@F): the content is sent to a host (programs_argfiles.go).
	argFiles, atReads []string
	// pairs: options that take two values (jq --arg NAME VALUE);
	// pairReads: of those, the ones whose second value is a file read
	// (jq --rawfile NAME FILE). Both must also be declared valued.
	pairs, pairReads []string
	// atFiles: a plain argument @FILE is a response file the program reads
	// its arguments from (binutils, gcc): FILE is a read.
	atFiles bool
	// atArgs: with atFiles, the response file's arguments can name writes
	// or code (gcc @F may hold -o ~/.bashrc or -wrapper, objcopy and ar
	// write): a doubt an allow rule must name (Bash(gcc @*);
	// programs_argfiles.go).
	atArgs bool
	// plainReads: every plain argument is a file read, with everything
	// under it (go version -m FILE|DIR).
	plainReads bool
	// moves: the plain arguments (and a targetOpts value) are places it
	// moves, renames or links, each with its tree; with editsAllWith, the
	// plain arguments are moved too (rsync --remove-source-files). A moved
	// place that a Read deny rule's match passes through is denied
	// ("places, not files": programs_optreads.go).
	moves bool
	// edits: which plain arguments it changes, with everything under
	// them ("all", "sources": all but the last, "last", "first"); tree:
	// it may change any file under the working directory.
	edits string
	tree  bool
	// editsWith: edits and tree hold only with one of these options
	// (gofmt -w, prettier --write).
	editsWith []string
	// uncertainWith: with one of these options the reader cannot tell
	// what the command touches (cp --parents writes a derived path): ask.
	uncertainWith []string
	// gitConfig: options whose value is a git configuration KEY=VALUE
	// (git clone -c): read as git -c is (code keys run, proxy keys meet
	// the WebFetch rules).
	gitConfig []string
	// uncertainPrefix: options starting with one of these are uncertain
	// (pnpm --config.KEY=VALUE sets any configuration key).
	uncertainPrefix []string
	// plainReadsWith: with one of these options, the plain arguments are
	// files read (git diff --no-index A B).
	plainReadsWith []string
	// programs: options whose value is a program it runs (a path: the call
	// needs a rule naming the option, and what it runs is unknown).
	programs []string
	// breaker: the call is a circuit breaker when it returns a reason.
	breaker func(args []string) string
	// norm: long options read as their short form by the deny reading
	// (sudo --user = -u).
	norm map[string]string
	// forms: the command it runs, as templates with %s for the command;
	// the property test puts every deny rule's command in each.
	forms []string
	// targetOpts: options whose value is the directory it writes into
	// (cp -t, mv --target-directory); with one, every plain argument is a
	// source (edits "sources" then changes them all).
	targetOpts []string
	// editsAllWith: with one of these options every plain argument is
	// changed (rsync --remove-source-files, tar --remove-files, zip -m);
	// keepsWith: with one of these, none is (gzip -c writes to stdout).
	editsAllWith, keepsWith []string
	// writesArg: the n-th plain argument (1-based) is a place it writes,
	// with everything under it (git clone URL DIR).
	writesArg int
	// nested: options whose value is an option list handed to another
	// tool, and the inner options that name a program it runs (go
	// -ldflags='-extld=CC').
	nested map[string][]string
	// scriptOpts: options whose value is a file holding the program's own
	// code (awk -f, sed -f, make -f): a process substitution or a
	// /dev/fd path there is code known only at run time (ask); the
	// substituted command's words meet the deny rules (programs_rt3.go).
	scriptOpts []string
	// proxies: options whose value names a host it connects through (pip
	// --proxy, npm --https-proxy): each meets the WebFetch domain rules.
	proxies []string
	// installsTo: options whose value is a directory it installs code into
	// (pip install --target): outside the workspace, a circuit breaker.
	installsTo []string
	// hostOpts: options whose value is a URL it fetches from (pip
	// --index-url, npm --registry): its host meets the WebFetch domain
	// rules; urlArgs: its plain arguments that are URLs ("url":
	// scheme://..., VCS+scheme://...; "git": also [user@]host:path) are
	// hosts it connects to (programs_rt4.go).
	hostOpts []string
	urlArgs  string
	// placeOpts: options whose value is a place it writes that must be
	// inside the workspace (git init --separate-git-dir, git archive -o):
	// outside it (or unknown), a circuit breaker; prefixOpts: the same for
	// a value that is a path prefix (git checkout-index --prefix: the place
	// is its directory part).
	placeOpts, prefixOpts []string
	// subAbbrev: the program's subcommand names; a word that is an
	// unambiguous prefix of one is that subcommand (npm lin = npm link,
	// gem inst = gem install, composer req = composer require): its
	// breaker sees the full name (programs_rt4.go).
	subAbbrev []string
	// subKnown: other subcommand words (aliases: npm add, npm ll) taken as
	// they are, never as abbreviations, and not abbreviated to.
	subKnown []string
	// subSorted and subSet index subAbbrev and subKnown (indexSubs, at
	// declare): the words sorted, and both lists as a set.
	subSorted []string
	subSet    map[string]bool
	// stdinNames / stdinWith: under one of these names, or with one of
	// these options, the program reads its commands from standard input
	// (ed, ex, m4, vim -e): a here-doc or here-string is read through its
	// escape, a pipe is code the reader cannot see (programs_rt4.go).
	stdinNames, stdinWith []string
	// hook: what the program's options and plain arguments mean beyond
	// the fields above (apt-get -o KEY=VALUE, mvn -Dexec.executable, go
	// env -w NAME=VALUE); it records into sc like the fields do.
	hook func(a *analyzer, sc *subCmd, opts []declOpt, plain []word, ctx walkCtx)
	// flags: options that take no value, named so that an abbreviation
	// resolves to them and not to a longer valued name (npm --global is
	// not --globalconfig; programs_abbrev.go).
	flags []string
	// match: must not be allowed under allow Bash and deny Bash(rm *), in
	// bypassPermissions; noMatch: must be allowed under the same rules.
	match, noMatch []string
}

// programs maps a program name to its declarations (several subcommands
// of one program share the name).
var programs = map[string][]*progDecl{}

// bareDecls maps a program name to its bare declaration (no subcommand
// word), the first declared (bareDecl); kept by declare.
var bareDecls = map[string]*progDecl{}

// declNames: the keys of programs, as a filter (wordfilter.go): most
// programs a command names have no declaration.
var declNames wordFilter

// The declarations are indexed at the first lookup, not at start-up:
// indexing them (checking each, splitting names, the word filter) touched
// about 1.2 MB of the binary's pages and took about a millisecond in every
// process, also in one that never reads a command (`acp-bridge version`,
// a bridge before its first permission request; docs/benchmarks.md). The
// readers of programs, bareDecls and declNames call loadPrograms first.
var (
	programsOnce   sync.Once
	pendingDecls   []*progDecl // declared by the inits, in their order, not indexed yet
	programsLoaded bool        // set once they are (inside programsOnce)
)

// loadPrograms indexes the declarations made so far (once; safe for
// concurrent use). Every reader of programs, bareDecls or declNames calls it.
func loadPrograms() {
	programsOnce.Do(func() {
		indexDecls(pendingDecls...)
		pendingDecls = nil
		programsLoaded = true
	})
}

// declare adds declarations; called from the init of programs_*.go (they
// wait for loadPrograms), or after it (a test's: indexed at once).
func declare(ds ...*progDecl) {
	if programsLoaded {
		indexDecls(ds...)
		return
	}
	pendingDecls = append(pendingDecls, ds...)
}

// indexDecls checks declarations and adds them to programs, bareDecls
// and declNames, in order.
func indexDecls(ds ...*progDecl) {
	for _, d := range ds {
		if err := checkDecl(d); err != nil {
			panic(err)
		}
		d.indexSubs()
		words := strings.Fields(d.name)
		for _, o := range programs[words[0]] {
			if o.name == d.name {
				// a second declaration of one name would never be read
				// (lookupDecl takes the first).
				panic(fmt.Errorf("policy: program %q is declared twice", d.name))
			}
		}
		d.sub = words[1:]
		for _, n := range append([]string{words[0]}, d.aliases...) {
			if _, ok := bareDecls[n]; !ok && len(words) == 1 {
				bareDecls[n] = d
			}
			// longest subcommand path first; among equals, in the order
			// declared (after every declaration as long as this one).
			list := programs[n]
			at := len(list)
			for at > 0 && len(list[at-1].sub) < len(d.sub) {
				at--
			}
			programs[n] = slices.Insert(list, at, d)
			declNames.add(n)
		}
	}
}

// checkDecl rejects a declaration that cannot mean what it says.
func checkDecl(d *progDecl) error {
	if strings.TrimSpace(d.name) == "" {
		return fmt.Errorf("policy: program declaration without a name")
	}
	for n := range strings.FieldsSeq(d.name) {
		if strings.HasPrefix(n, "-") {
			return fmt.Errorf("policy: program %q: a name word is an option", d.name)
		}
	}
	// Every option list, by kind; noValue marks the kinds whose options
	// need not be declared valued (valued itself, and options that switch
	// a reading on). An option in any other kind must be valued, whatever
	// else it is listed as. No map is built: this runs for every
	// declaration at start-up.
	lists := [...]struct {
		kind    string
		list    []string
		noValue bool
	}{
		{"valued", d.valued, true}, {"code", d.code, false}, {"escapeOpts", d.escapeOpts, false},
		{"editsWith", d.editsWith, true}, {"reads", d.reads, false}, {"writes", d.writes, false},
		{"programs", d.programs, false}, {"stdinCode", d.stdinCode, true}, {"plainReadsWith", d.plainReadsWith, true},
		{"targetOpts", d.targetOpts, false}, {"editsAllWith", d.editsAllWith, true}, {"keepsWith", d.keepsWith, true},
		{"scriptOpts", d.scriptOpts, false}, {"proxies", d.proxies, false}, {"installsTo", d.installsTo, false},
		{"flags", d.flags, true}, {"gitConfig", d.gitConfig, false}, {"hostOpts", d.hostOpts, false},
		{"placeOpts", d.placeOpts, false}, {"prefixOpts", d.prefixOpts, false},
		{"pairs", d.pairs, false}, {"pairReads", d.pairReads, false},
		{"argFiles", d.argFiles, false}, {"atReads", d.atReads, false},
	}
	for _, l := range lists {
		for _, o := range l.list {
			if !strings.HasPrefix(o, "-") || o == "-" || o == "--" || strings.Contains(o, "=") {
				return fmt.Errorf("policy: program %q: %s option %q is not an option name", d.name, l.kind, o)
			}
		}
	}
	for _, l := range lists {
		if l.noValue {
			continue
		}
		for _, o := range l.list {
			if !containsStr(d.valued, o) {
				return fmt.Errorf("policy: program %q: %s option %q must be declared valued", d.name, l.kind, o)
			}
		}
	}
	switch d.urlArgs {
	case "", "url", "git", "git2":
	default:
		return fmt.Errorf("policy: program %q: urlArgs %q is not url, git or git2", d.name, d.urlArgs)
	}
	if len(d.escapeOpts) > 0 && d.escape == nil {
		return fmt.Errorf("policy: program %q: escapeOpts without an escape", d.name)
	}
	if d.run != runNone && d.codeArgs {
		return fmt.Errorf("policy: program %q: runs a command and takes code arguments", d.name)
	}
	for _, f := range d.forms {
		if strings.Count(f, "%s") != 1 {
			return fmt.Errorf("policy: program %q: form %q needs exactly one %%s", d.name, f)
		}
	}
	if (d.run == runProgram) != (d.runProg != "") {
		return fmt.Errorf("policy: program %q: runProg goes with run runProgram", d.name)
	}
	if (d.run != runNone && d.run != runUnknown || d.codeArgs || len(d.code) > 0 || d.escape != nil) && len(d.forms) == 0 {
		return fmt.Errorf("policy: program %q runs commands but declares no forms for the property test", d.name)
	}
	switch d.edits {
	case "", "all", "sources", "last", "first":
	default:
		return fmt.Errorf("policy: program %q: edits %q is not all, sources, last or first", d.name, d.edits)
	}
	if len(d.match) == 0 && len(d.forms) == 0 && d.breaker == nil && d.edits == "" && !d.tree && len(d.norm) == 0 && len(d.writes) == 0 && len(d.reads) == 0 && len(d.programs) == 0 &&
		len(d.argFiles) == 0 && len(d.atReads) == 0 &&
		len(d.targetOpts) == 0 && len(d.editsAllWith) == 0 && d.writesArg == 0 && len(d.nested) == 0 && len(d.uncertainWith) == 0 &&
		len(d.scriptOpts) == 0 && len(d.proxies) == 0 && len(d.installsTo) == 0 && len(d.uncertainPrefix) == 0 && len(d.gitConfig) == 0 &&
		len(d.hostOpts) == 0 && d.urlArgs == "" && len(d.placeOpts) == 0 && len(d.prefixOpts) == 0 && d.hook == nil && len(d.stdinNames) == 0 &&
		!d.atFiles && !d.plainReads && !d.moves {
		return fmt.Errorf("policy: program %q declares nothing to check", d.name)
	}
	for o := range d.nested {
		if !containsStr(d.valued, o) {
			return fmt.Errorf("policy: program %q: nested option %q must be declared valued", d.name, o)
		}
	}
	for long, short := range d.norm {
		if !strings.HasPrefix(long, "--") || !strings.HasPrefix(short, "-") {
			return fmt.Errorf("policy: program %q: norm %q -> %q is not long -> short", d.name, long, short)
		}
	}
	return nil
}

// lookupDecl finds the declaration of ws[0] and its subcommand words: the
// subcommand is the first plain word after the program's leading options.
// It returns the declaration and the arguments after the subcommand.
func lookupDecl(base string, args []word) (*progDecl, []word) {
	d, rest, _ := lookupDeclGuess(base, args)
	return d, rest
}

// lookupDeclGuess is lookupDecl; guessed says a runner's subcommand word
// was found only past an option the policy does not know (afterUnknownOpts):
// the reading is a guess, the call a doubt.
func lookupDeclGuess(base string, args []word) (*progDecl, []word, bool) {
	loadPrograms()
	if !declNames.mayHave(base) {
		return nil, nil, false
	}
	ds := programs[base]
	first := -1 // subcommandAt(base, args), the same for every declaration
	for _, d := range ds {
		sub := d.sub
		rest := args
		ok, guessed := true, false
		for k, s := range sub {
			i := 0
			if k == 0 {
				// the first subcommand word may follow the program's global
				// options (pnpm -r exec, npm --prefix d explore; red team 4).
				if first < 0 {
					first = subcommandAt(base, args)
				}
				i = first
			}
			// later ones may follow options (git submodule --quiet foreach),
			// with their values when the declaration of the words before
			// names them valued (docker compose -f F exec: red team 16).
			var parent *progDecl
			if k > 0 {
				parent = parentDecl(ds, d, k)
			}
			for k > 0 && i < len(rest) && rest[i].static && strings.HasPrefix(rest[i].s, "-") && rest[i].s != "--" {
				if parent != nil && !strings.Contains(rest[i].s, "=") && containsStr(parent.valued, rest[i].s) {
					i++
				}
				i++
			}
			if (i >= len(rest) || !rest[i].static || rest[i].s != s) && d.run != runNone {
				// a runner's subcommand word after an option the policy
				// does not know to take a value (docker compose --new-opt
				// v exec svc CMD): read as the runner, so that what it
				// runs meets the deny rules (red team 16).
				if j := afterUnknownOpts(rest, k, first, s); j >= 0 {
					i, guessed = j, true
				}
			}
			if i >= len(rest) || !rest[i].static || rest[i].s != s {
				ok = false
				break
			}
			rest = rest[i+1:]
		}
		if ok {
			return d, rest, guessed
		}
	}
	return nil, nil, false
}

// declOpt is one option occurrence of a declared program.
type declOpt struct {
	name string
	val  *word
	// first: the first value of a pairs option (val is the second).
	first *word
}

// scanDecl reads args by d's option declaration: the options (with their
// values) and the plain words, stopping at the command when it runs one.
// cmdAt is where the command starts in args (-1 if none).
func (d *progDecl) scan(args []word) (opts []declOpt, plain []word, cmdAt int, ok bool) {
	if len(args) > 1 {
		plain = make([]word, 0, len(args))
	}
	return d.scanInto(args, plain)
}

// scanDecl is d.scan with the plain words carved from the analysis' block
// (wordBuf) instead of a slice of their own.
func (a *analyzer) scanDecl(d *progDecl, args []word) (opts []declOpt, plain []word, cmdAt int, ok bool) {
	return d.scanInto(args, a.wordBuf(len(args)))
}

// scanInto is scan appending the plain words to plain (empty, with room).
func (d *progDecl) scanInto(args []word, buf []word) (opts []declOpt, plain []word, cmdAt int, ok bool) {
	plain = buf
	ok = true
	cmdAt = -1
	i := 0
	dashdash := false
	for i < len(args) {
		w := args[i]
		if d.run == runAfterDashDash && dashdash {
			cmdAt = i
			return
		}
		if !w.static {
			if !dashdash && strings.HasPrefix(w.s, "-") {
				ok = false
			}
			plain = append(plain, w)
			i++
			if (d.run == runAfterOpts || d.run == runUnknown) && len(plain) > d.skip {
				cmdAt = i - 1
				return
			}
			continue
		}
		s := w.s
		if d.run == runAfterOpt && !dashdash && containsStr(d.runOpt, s) {
			cmdAt = i + 1
			return
		}
		if !dashdash && s == "--" {
			dashdash = true
			i++
			if d.run == runAfterOpts || d.run == runUnknown {
				if len(plain) >= d.skip {
					cmdAt = i
					return
				}
			}
			continue
		}
		if d.wordOpts && !dashdash && len(s) > 1 && s[0] == '-' {
			opts, i = d.scanWordOpt(opts, args, i) // programs_cc.go
			continue
		}
		if !dashdash && len(s) > 1 && s[0] == '-' {
			i++
			if name, v, has := strings.Cut(s, "="); has && (strings.HasPrefix(s, "--") || containsStr(d.valued, name)) {
				vw := staticWordPath(v)
				opts = append(opts, declOpt{name: name, val: &vw})
				continue
			}
			if containsStr(d.valued, s) {
				if containsStr(d.pairs, s) && i+1 < len(args) {
					// NAME VALUE: the name is the option's first value.
					v := args[i+1]
					opts = append(opts, declOpt{name: s, val: &v, first: &args[i]})
					i += 2
					continue
				}
				if i < len(args) {
					v := args[i]
					opts = append(opts, declOpt{name: s, val: &v})
					i++
				} else {
					opts = append(opts, declOpt{name: s})
				}
				continue
			}
			if s[1] != '-' && len(s) > 2 {
				// -n5, -x'code', -oL: a short option with its value
				// attached, or grouped flags.
				if containsStr(d.valued, s[:2]) {
					vw := staticWordPath(s[2:])
					opts = append(opts, declOpt{name: s[:2], val: &vw})
					continue
				}
				for j := 1; j < len(s); j++ {
					o := shortOptName(s[j])
					if containsStr(d.valued, o) {
						if j+1 < len(s) {
							vw := staticWordPath(s[j+1:])
							opts = append(opts, declOpt{name: o, val: &vw})
						} else if i < len(args) {
							v := args[i]
							opts = append(opts, declOpt{name: o, val: &v})
							i++
						}
						break
					}
					opts = append(opts, declOpt{name: o})
				}
				continue
			}
			opts = append(opts, declOpt{name: s})
			continue
		}
		plain = append(plain, w)
		i++
		if (d.run == runAfterOpts || d.run == runUnknown || d.run == runAfterDashDash) && len(plain) > d.skip {
			if d.run == runAfterDashDash {
				// kubectl exec POD CMD (the old form without --)
			}
			cmdAt = i - 1
			return
		}
	}
	return
}

// staticWordPath is a static word whose value is also a usable path.
func staticWordPath(s string) word {
	w := staticWord(s)
	if !strings.ContainsAny(s, "$`*?[{") {
		w.path, w.pathOK = s, true
		if strings.HasPrefix(s, "~") {
			w.path = s
		}
	}
	return w
}

// declared handles a declared program that runs a command or code. It
// returns true when it recorded the call (the command is then fully
// handled); false leaves the call to the ordinary reading, and
// declEffects adds what the declaration knows.
//
// full is every argument of the program, with its global options before
// the subcommand (cargo --config K=V run): the bare declaration reads them.
func (a *analyzer) declared(d *progDecl, base string, args, full []word, text string, alts []string, ctx walkCtx) bool {
	if d.run == runNone {
		return false
	}
	opts, _, at, ok := a.scanDecl(d, args)
	if !ok {
		a.setUncertain(d.name + " takes an option known only at run time")
	}
	sc := subCmd{text: text, alts: alts, kind: skNeedRule}
	if !noFileArgs[base] {
		a.argReadsOf(&sc, args, nil) // any argument may name a file it reads
	}
	a.declOptEffects(d, &sc, opts, ctx)
	a.declWith(d, &sc, opts)
	a.bareDeclEffects(d, &sc, base, full, ctx) // programs_rt3.go
	a.addSub(sc, ctx)
	inner := ctx
	inner.gate = true
	if d.run == runProgram {
		a.command(append([]word{staticWord(d.runProg)}, args...), inner)
		return true
	}
	if at < 0 || at >= len(args) {
		return true
	}
	rest := args[at:]
	if d.run == runUnknown {
		a.probe(append([]word{staticWord(d.name)}, rest...), inner)
		return true
	}
	a.command(rest, inner)
	// `ssh host 'rm -rf x'`, `docker exec c sh -c ...`: a single word that
	// is a command line is read as one.
	if len(rest) == 1 && rest[0].static && strings.ContainsAny(rest[0].s, " \t;&|") {
		a.shellCode(rest[0], d.name, inner)
	}
	return true
}

// declEffects adds what a declaration knows to sc, the reading of a
// declared program that runs no command of its own (options that write,
// read, run programs or code; escapes; breakers).
// declAnswer is one lookupDecl answer and what it was asked.
type declAnswer struct {
	base       string
	args, rest []word
	d          *progDecl
	guessed    bool
}

// lookupDeclOf is lookupDecl, remembered for one question: command asks
// it, then classify's declEffects asks it of the same words. The answer
// depends on base and the words alone, and a slice with the same first
// element and length is the same words (an analysis's words are written
// once, when read from the command).
func (a *analyzer) lookupDeclOf(base string, args []word) (*progDecl, []word) {
	m := &a.decl
	if m.base == base && len(m.args) == len(args) && (len(args) == 0 || &m.args[0] == &args[0]) && m.base != "" {
		return m.d, m.rest
	}
	d, rest, guessed := lookupDeclGuess(base, args)
	*m = declAnswer{base: base, args: args, rest: rest, d: d, guessed: guessed}
	return d, rest
}

func (a *analyzer) declEffects(sc *subCmd, base string, args []word, ctx walkCtx) {
	d, rest := a.lookupDeclOf(base, args)
	if d == nil || d.run != runNone {
		return
	}
	opts, plain, _, ok := a.scanDecl(d, rest)
	if !ok {
		a.setUncertain(d.name + " takes an option known only at run time")
	}
	a.declOptEffects(d, sc, opts, ctx)
	inner := ctx
	inner.gate = true
	a.declArgCode(d, sc, opts, plain, inner) // programs_codeargs.go
	if d.codeArgs && len(plain) > d.skip {
		code := plain[d.skip:]
		sc.readOnly = false
		sc.optDanger = append(sc.optDanger, d.name)
		if len(code) == 1 {
			a.shellCode(code[0], d.name, inner)
		} else if src, ok := staticJoin(code); ok {
			a.shellCode(staticWord(src), d.name, inner)
		} else {
			a.setUncertain(d.name + " runs a command known only at run time")
		}
	}
	for _, o := range opts {
		if containsStr(d.plainReadsWith, o.name) {
			for _, w := range plain {
				if w.static {
					sc.reads = append(sc.reads, a.pathRef(w))
				} else {
					optUnknownRead(sc, o.name)
				}
			}
			break
		}
	}
	a.declWith(d, sc, opts)
	a.declReadsMoves(d, sc, opts, plain) // programs_optreads.go
	switch {
	case hasDeclOpt(opts, d.keepsWith):
	case hasDeclOpt(opts, d.editsAllWith) || d.edits == "sources" && hasDeclOpt(opts, d.targetOpts):
		sc.readOnly = false
		a.declEditsOf(d, sc, plain, "all")
	case len(d.editsWith) == 0 || hasDeclOpt(opts, d.editsWith):
		a.declEdits(d, sc, plain)
	}
	a.declPlainRT4(d, sc, base, opts, plain, ctx) // programs_rt4.go
	if d.writesArg > 0 && len(plain) >= d.writesArg {
		sc.readOnly = false
		ref := a.pathRef(plain[d.writesArg-1])
		ref.recursive = true
		sc.writes = append(sc.writes, ref)
	}
	if d.escape != nil {
		for _, w := range plain {
			a.declEscape(d, sc, "", w, inner)
		}
	}
	for _, o := range opts {
		if containsStr(d.stdinCode, o.name) && o.val != nil && o.val.static && stdinPaths[o.val.s] {
			sc.readOnly = false
			if ctx.stdinSet && ctx.stdinStatic {
				a.makeStdin(ctx.stdin, inner)
			} else {
				a.setUncertain(d.name + " reads code from standard input")
			}
		}
	}
	if d.breaker != nil {
		ss := d.expandSubs(a.wordStrings(rest)) // programs_rt4.go
		if b := d.breaker(ss); b != "" && sc.breaker == "" {
			sc.breaker = b
		}
	}
	a.bareDeclEffects(d, sc, base, args, ctx) // programs_rt3.go
}

// declEdits records what a declared program changes for the Edit rules.
func (a *analyzer) declEdits(d *progDecl, sc *subCmd, plain []word) {
	a.declEditsOf(d, sc, plain, d.edits)
}

// declEditsOf records the plain arguments edits names as changed.
func (a *analyzer) declEditsOf(d *progDecl, sc *subCmd, plain []word, edits string) {
	var ps []word
	switch edits {
	case "all":
		ps = plain
	case "sources":
		if len(plain) > 1 {
			ps = plain[:len(plain)-1]
		}
	case "last":
		if len(plain) > 0 {
			ps = plain[len(plain)-1:]
		}
	case "first":
		if len(plain) > 0 {
			ps = plain[:1]
		}
	}
	for _, w := range ps {
		ref := a.pathRef(w)
		ref.recursive = true
		sc.editReach = append(sc.editReach, ref)
	}
	if d.tree || edits != "" && len(ps) == 0 {
		if d.tree || edits == "first" {
			ref := a.pathRef(staticWordPath("."))
			ref.recursive = true
			sc.editReach = append(sc.editReach, ref)
		}
	}
}

func hasDeclOpt(opts []declOpt, names []string) bool {
	for _, o := range opts {
		if containsStr(names, o.name) {
			return true
		}
	}
	return false
}
