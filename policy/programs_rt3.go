package policy

import (
	"path"
	"strings"
)

// Red team 3 classes (docs/policy.md, "Red team 3 classes"): what a
// program's declaration says about options that hold code files, proxy
// hosts and install places, options before the subcommand that apply to
// every subcommand (a bare declaration), and global installs.

// declWith: with one of d.uncertainWith the reader cannot tell what the
// command touches or runs (cp --parents writes a derived path, npm
// --userconfig reads a configuration that can set a script shell): ask.
func (a *analyzer) declWith(d *progDecl, sc *subCmd, opts []declOpt) {
	for _, o := range opts {
		if containsStr(d.uncertainWith, o.name) || hasAnyPrefix(o.name, d.uncertainPrefix) {
			sc.readOnly = false
			a.setUncertain(d.name + " " + o.name + ": the reader cannot tell what the command writes or runs")
			return
		}
	}
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// pkgExecOpts: the options of a package runner (npx, npm exec/x, pnpm
// dlx/exec, yarn dlx, bunx) read by its program's bare declaration: a code
// option (npm --node-options, --userconfig, ...) or a configuration key
// (pnpm --config.KEY) makes the call uncertain, however abbreviated.
func (a *analyzer) pkgExecOpts(what string, opts []opt, sc *subCmd) {
	b := bareDecl(runnerProgram(what))
	if b == nil {
		return
	}
	for _, o := range opts {
		n, _, _ := strings.Cut(o.name, "=")
		if n == "-c" || n == "--call" {
			continue // the code it runs, read by pkgExec
		}
		// the proxies and registries of the program's declaration apply to
		// its runner too (npx --proxy=H, npm exec --registry URL).
		if containsStr(b.proxies, n) || containsStr(b.hostOpts, n) {
			var v *word
			if o.hasVal {
				v = &o.val
			}
			if containsStr(b.proxies, n) {
				sc.proxies = append(sc.proxies, proxyValue(v))
			} else {
				a.hostOpt(sc, declOpt{name: n, val: v})
			}
		}
		if hasAnyPrefix(n, b.uncertainPrefix) {
			a.setUncertain(what + " " + n + " sets configuration that can run code")
			return
		}
		for _, u := range b.uncertainWith {
			if n == u || len(n) > 3 && strings.HasPrefix(n, "--") && strings.HasPrefix(u, n) {
				a.setUncertain(what + " " + n + ": the reader cannot tell what the command runs")
				return
			}
		}
	}
}

// runnerProgram: the package manager whose declaration a package runner
// (npx, npm exec, pnpx, pnpm dlx, bunx) reads its options by.
func runnerProgram(what string) string {
	prog := strings.Fields(what)[0]
	switch prog {
	case "npx":
		return "npm"
	case "pnpx":
		return "pnpm"
	case "bunx":
		return "bun"
	}
	return prog
}

// wordStrings: the texts of ws (what a breaker reads).
func wordStrings(ws []word) []string {
	ss := make([]string, len(ws))
	for i, w := range ws {
		ss[i] = w.s
	}
	return ss
}

// bareDecl is the declaration of the program itself (no subcommand word):
// its options apply whatever subcommand follows (npm --userconfig F run,
// cargo --config K=V run, pip --proxy H install).
func bareDecl(base string) *progDecl {
	loadPrograms()
	if !declNames.mayHave(base) {
		return nil // in no declaration (bareDecls' keys are programs')
	}
	return bareDecls[base] // the first bare one in programs[base], kept by declare
}

// bareDeclEffects adds, to the reading of a subcommand's declaration d,
// what the program's bare declaration knows of the same arguments: its
// options are the program's global options, valid before and after the
// subcommand.
func (a *analyzer) bareDeclEffects(d *progDecl, sc *subCmd, base string, args []word, ctx walkCtx) {
	b := bareDecl(base)
	if b == nil || b == d || b.run != runNone {
		return
	}
	opts, _, _, ok := a.scanDecl(b, args)
	if !ok {
		a.setUncertain(b.name + " takes an option known only at run time")
	}
	a.declOptEffects(b, sc, opts, ctx)
	a.declWith(b, sc, opts)
	if b.urlArgs != "" {
		_, plain, _, _ := a.scanDecl(b, args)
		a.urlOperands(b, sc, plain) // programs_rt4.go
	}
	if b.breaker != nil && sc.breaker == "" {
		sc.breaker = b.breaker(b.expandSubs(a.wordStrings(args)))
	}
}

// fdPath: a path that names an open file descriptor (the script a process
// substitution or a redirect feeds: /dev/fd/3, /proc/self/fd/3, /dev/stdin).
func fdPath(w word) bool {
	s := w.s
	if w.static && (s == "/dev/stdin" || strings.HasPrefix(s, "/dev/fd/")) {
		return true
	}
	return strings.HasPrefix(s, "/proc/") && strings.Contains(s, "/fd/")
}

// scriptOptEffect: the value of a scriptOpts option is the program's code.
// A process substitution there (awk -f <(CMD)) runs what CMD prints: the
// call is uncertain and the substituted command's words meet the deny
// rules; a descriptor path (/dev/fd/N) is code from a redirect: uncertain.
func (a *analyzer) scriptOptEffect(d *progDecl, sc *subCmd, o declOpt) {
	if o.val == nil {
		return
	}
	if inner, ok := procSubstText(*o.val); ok {
		sc.readOnly = false
		a.setUncertain(d.name + " " + o.name + " reads its program from a process substitution, known only at run time")
		a.naiveSplit(inner)
		return
	}
	if fdPath(*o.val) {
		sc.readOnly = false
		a.setUncertain(d.name + " " + o.name + " reads its program from a file descriptor, known only at run time")
	}
}

// proxyValue is the host a proxy option names, "$" when only known at run
// time.
func proxyValue(v *word) string {
	if v == nil || !v.static {
		return "$"
	}
	return v.s
}

// installTarget: the value of an installsTo option is a place code is
// installed into; outside the workspace (or unknown) the install runs
// later, outside the session: a circuit breaker.
func (a *analyzer) installTarget(d *progDecl, sc *subCmd, o declOpt) {
	if o.val == nil || !o.val.static || !o.val.pathOK || o.val.glob || o.val.brace {
		a.setUncertain(d.name + " " + o.name + " installs into a place known only at run time")
		return
	}
	ref := a.pathRef(*o.val)
	ref.recursive = true
	sc.writes = append(sc.writes, ref)
	p := o.val.path
	if !a.cwdKnown && !path.IsAbs(p) && !strings.HasPrefix(p, "~") {
		a.setUncertain(d.name + " " + o.name + " installs into a place relative to an unknown directory")
		return
	}
	if !a.placeInside(p) && sc.breaker == "" { // programs_rt4.go
		sc.breaker = d.name + " " + o.name + " installs code outside the workspace (" + o.val.s + "): it runs later, outside the session"
	}
}

// globalFlag reports whether a (with next, the following word) turns on a
// package manager's global mode in any spelling its option parser takes:
// -g, grouped (-gy), --global, --global=true, an abbreviation (--g, --glob:
// npm takes any unambiguous prefix, and --g is the -g shorthand),
// --location=global|user, --location global.
func globalFlag(a, next string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	if a[1] != '-' {
		if n, v, ok := strings.Cut(a, "="); ok && n == "-g" {
			// -g=true: npm's parser gives the shorthand its value.
			return v != "false" && v != "0" && v != "no" && v != ""
		}
		return strings.ContainsRune(a[1:], 'g') && !strings.ContainsAny(a[1:], "=/.")
	}
	name, val, has := strings.Cut(strings.ToLower(a[2:]), "=")
	if neg, ok := strings.CutPrefix(name, "no-"); ok && neg != "" && strings.HasPrefix("global", neg) {
		// --no-global=false is --global (nopt negates the value).
		return has && (val == "false" || val == "0" || val == "no")
	}
	if name == "location" || name == "loc" || name == "locatio" {
		if !has {
			val = next
		}
		return val == "global" || val == "user"
	}
	if name == "" || !strings.HasPrefix("global", name) {
		return false
	}
	if !has {
		return next != "false"
	}
	return val != "false" && val != "0" && val != "no"
}

// globalInstall is the breaker of a package manager whose install
// subcommands (subs), run in its global mode, put programs on the PATH
// (they run later, outside the session); always are subcommands that write
// into the global place whatever the flags (npm link). valued: its options
// that take a value (the subcommand is the first other plain word). withSub
// false: the arguments follow the subcommand already.
func globalInstall(tool string, subs, always, valued []string, withSub bool) func([]string) string {
	return func(args []string) string {
		sub, global := "", false
		if !withSub {
			sub = "install"
		}
		skip := false
		for i, x := range args {
			next := ""
			if i+1 < len(args) {
				next = args[i+1]
			}
			switch {
			case skip:
				skip = false
			case x == "--":
				skip = false
			case strings.HasPrefix(x, "-"):
				if globalFlag(x, next) {
					global = true
				}
				if !strings.Contains(x, "=") && containsStr(valued, x) {
					skip = true
				}
			case sub == "":
				sub = x
				if containsStr(always, x) {
					return tool + " " + x + " writes into the global package place (its programs run later, outside the session)"
				}
				if !containsStr(subs, x) {
					return ""
				}
			}
		}
		if global && sub != "" {
			return tool + " installs a package globally (its programs run later, outside the session)"
		}
		return ""
	}
}

// always is a breaker that fires on every call.
func always(reason string) func([]string) string {
	return func(args []string) string {
		for _, x := range args {
			if x == "--help" || x == "-h" {
				return ""
			}
		}
		return reason
	}
}

// npmCodeOpts: npm configuration options (valid before or after any
// subcommand, and as npm_config_* variables, which the environment reading
// already asks for) whose value is a program, code, or a configuration
// file that can set one.
var npmCodeOpts = []string{"--userconfig", "--globalconfig", "--script-shell", "--node-options", "--shell", "--editor",
	"--browser", "--git", "--init-module", "--node-gyp", "--viewer", "--onload-script", "--call", "-c"}

var npmInstallWords = []string{"i", "install", "add", "isntall", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
	"update", "up", "upgrade", "udpate", "install-test", "it", "install-ci-test", "cit", "ci", "clean-install"}

// npmFlags: npm's boolean options whose names are prefixes of valued ones.
var npmFlags = []string{"--global", "--global-style", "--git-tag-version", "--shell-mode"}

func init() {
	declare(programsRt3Decls[:]...)
}

var npmValued = append([]string{"--location", "--prefix", "--proxy", "--https-proxy", "--registry", "-w", "--workspace", "--cache"}, npmCodeOpts...)

// programsRt3Decls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsRt3Decls = [...]*progDecl{
	// npm -C is --prefix (npm's shorthand); its subcommands resolve by
	// unambiguous prefix (npm lin = npm link).
	&progDecl{name: "npm", valued: append([]string{"-C"}, npmValued...), uncertainWith: npmCodeOpts, reads: []string{"--userconfig", "--globalconfig"}, flags: npmFlags, proxies: []string{"--proxy", "--https-proxy"},
		installsTo: []string{"--prefix", "-C"}, hostOpts: []string{"--registry"}, urlArgs: "url", subAbbrev: npmCommands, subKnown: npmAliases,
		breaker: globalInstall("npm", npmInstallWords, []string{"link", "ln"}, append([]string{"-C"}, npmValued...), true),
		match: []string{"npm -g i x", "npm --global install x", "npm i --global=true x", "npm --g i x", "npm i -gy x", "npm link",
			"npm --userconfig ./rc run build", "npm run build --node-options=--require=./e.js", "npm --script-shell ./evil run build",
			"npm i --prefix ~/.local x", "npm i --location global x"},
		noMatch: []string{"npm test", "npm i x", "npm run build", "npm i --global=false x", "npm --prefix sub run build"}},
	&progDecl{name: "pnpm", valued: append([]string{"-C", "--dir", "--filter", "-F", "--filter-prod", "--resume-from", "--workspace-concurrency"}, npmValued...),
		uncertainWith: npmCodeOpts, flags: append([]string{"-r", "--recursive", "--parallel", "--stream", "--sequential", "--no-bail", "--bail", "--reverse", "-s", "--silent",
			"--aggregate-output", "--include-workspace-root", "--fail-if-no-match", "--report-summary"}, npmFlags...),
		proxies: []string{"--proxy", "--https-proxy"}, uncertainPrefix: []string{"--config."}, hostOpts: []string{"--registry"}, urlArgs: "url",
		// pnpm env use -g installs node globally; pnpm setup writes
		// PNPM_HOME into the shell's startup file.
		breaker: globalInstall("pnpm", []string{"add", "i", "install", "update", "up", "upgrade", "link", "ln", "env"}, []string{"setup"}, npmValued, true),
		match:   []string{"pnpm add -g x", "pnpm i --global x", "pnpm -g add x", "pnpm link --global", "pnpm --config.node-options=--require=./e.js run build"},
		noMatch: []string{"pnpm add x", "pnpm i", "pnpm run build"}},
	&progDecl{name: "yarn", valued: []string{"--cwd", "--use-yarnrc", "--global-folder", "--prefix", "--proxy", "--https-proxy", "--modules-folder", "--cache-folder", "--registry"},
		uncertainWith: []string{"--use-yarnrc"}, proxies: []string{"--proxy", "--https-proxy"}, installsTo: []string{"--global-folder", "--prefix", "--modules-folder"},
		hostOpts: []string{"--registry"}, urlArgs: "url",
		breaker: globalInstall("yarn", nil, []string{"link"}, []string{"--cwd", "--use-yarnrc", "--global-folder", "--prefix", "--proxy", "--https-proxy"}, true),
		match:   []string{"yarn link", "yarn --use-yarnrc ./rc install"}, noMatch: []string{"yarn install", "yarn add x"}},
	&progDecl{name: "yarn global", breaker: func(args []string) string {
		for _, x := range args {
			if x == "add" || x == "upgrade" || x == "upgrade-interactive" {
				return "yarn global " + x + " installs a package globally (its programs run later, outside the session)"
			}
		}
		return ""
	}, match: []string{"yarn global add x"}, noMatch: []string{"yarn global list"}},
	// yarn node ARGS runs node ARGS.
	&progDecl{name: "yarn node", run: runProgram, runProg: "node",
		forms: []string{"yarn node -e 'require(\"child_process\").execSync(\"%s\")'"},
		match: []string{"yarn node -e 'require(\"child_process\").execSync(\"rm -rf x\")'"}},
	&progDecl{name: "bun", valued: []string{"--cwd", "-c", "--config", "--cafile", "--registry"}, uncertainWith: []string{"-c", "--config"}, hostOpts: []string{"--registry"},
		breaker: globalInstall("bun", []string{"add", "a", "i", "install", "update", "link"}, nil, []string{"--cwd", "-c", "--config", "--cafile", "--registry"}, true),
		match:   []string{"bun add -g x", "bun i --global x", "bun link --global"}, noMatch: []string{"bun add x", "bun install"}},
	&progDecl{name: "gem", subAbbrev: gemCommands, breaker: func(args []string) string {
		for _, x := range args {
			switch x {
			case "install", "i", "update", "pristine":
				return "gem " + x + " installs gems and their programs outside the workspace (they run later)"
			}
			if !strings.HasPrefix(x, "-") {
				return ""
			}
		}
		return ""
	}, match: []string{"gem install x", "gem i x"}, noMatch: []string{"gem list"}},
	&progDecl{name: "pipx install", breaker: always("pipx install puts a program into ~/.local/bin (it runs later)"), match: []string{"pipx install x"}},
	&progDecl{name: "pipx inject", breaker: always("pipx inject installs code into a pipx environment (it runs later)"), match: []string{"pipx inject x y"}},
	&progDecl{name: "pipx upgrade", breaker: always("pipx upgrade installs a program into ~/.local/bin (it runs later)"), match: []string{"pipx upgrade x"}},
	&progDecl{name: "pipx reinstall", breaker: always("pipx reinstall installs a program into ~/.local/bin (it runs later)"), match: []string{"pipx reinstall x"}},
	&progDecl{name: "pipx install-all", breaker: always("pipx install-all installs programs into ~/.local/bin (they run later)"), match: []string{"pipx install-all specs.json"}},
	&progDecl{name: "pipx upgrade-all", breaker: always("pipx upgrade-all installs programs into ~/.local/bin (they run later)"), match: []string{"pipx upgrade-all"}},
	&progDecl{name: "pipx reinstall-all", breaker: always("pipx reinstall-all installs programs into ~/.local/bin (they run later)"), match: []string{"pipx reinstall-all"}},
	&progDecl{name: "uv tool install", breaker: always("uv tool install puts a program into ~/.local/bin (it runs later)"), match: []string{"uv tool install x"}},
	&progDecl{name: "uv tool upgrade", breaker: always("uv tool upgrade installs a program into ~/.local/bin (it runs later)"), match: []string{"uv tool upgrade x"}},
	&progDecl{name: "uv pip install", valued: uvPipValued, hostOpts: uvIndexOpts, urlArgs: "url",
		installsTo: []string{"-t", "--target", "--prefix"}, breaker: uvPipBreaker("uv pip install"),
		match: []string{"uv pip install --system x", "uv pip install --target ~/.local/lib x"}, noMatch: []string{"uv pip install x"}},
	&progDecl{name: "deno install", breaker: func(args []string) string {
		for i, x := range args {
			next := ""
			if i+1 < len(args) {
				next = args[i+1]
			}
			if globalFlag(x, next) || x == "--root" || strings.HasPrefix(x, "--root=") {
				return "deno install -g puts a program on the PATH (it runs later)"
			}
		}
		return ""
	}, match: []string{"deno install -g jsr:@x/y"}, noMatch: []string{"deno install"}},
	// composer's options may stand before global, and Symfony Console
	// takes any unambiguous prefix of a command (composer glob req).
	&progDecl{name: "composer", valued: []string{"-d", "--working-dir"}, subAbbrev: composerCommands, breaker: composerGlobal,
		match: []string{"composer global require x/y", "composer -n global req x/y"}, noMatch: []string{"composer require x/y", "composer global show"}},
	&progDecl{name: "dotnet tool install", breaker: flagBreaker("dotnet tool install -g puts a program on the PATH (it runs later)", "-g", "--global", "--tool-path"),
		match: []string{"dotnet tool install -g x"}, noMatch: []string{"dotnet tool install x"}},
	&progDecl{name: "dotnet tool update", breaker: flagBreaker("dotnet tool update -g puts a program on the PATH (it runs later)", "-g", "--global", "--tool-path"),
		match: []string{"dotnet tool update -g x"}, noMatch: []string{"dotnet tool update x"}},
	// cargo's options before (or after) the subcommand: --config sets a
	// runner, linker or rustc wrapper; -Z unstable ones.
	&progDecl{name: "cargo", valued: []string{"--config", "-Z", "-C", "--color", "--manifest-path"}, uncertainWith: []string{"--config", "-Z", "-C"},
		match:   []string{"cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"rm -rf x\"' run", "cargo run --config=build.rustc-wrapper=./w", "cargo -Zscript x.rs"},
		noMatch: []string{"cargo build --release", "cargo test"}},
	// programs whose code is read from a file option.
	&progDecl{name: "awk", aliases: []string{"gawk", "mawk", "nawk", "busybox-awk"}, valued: []string{"-f", "--file", "-E", "--exec",
		"-i", "--include", "-l", "--load", "-v", "--assign", "-F", "--field-separator"},
		scriptOpts: []string{"-f", "--file", "-E", "--exec", "-i", "--include"}, uncertainWith: []string{"-l", "--load"},
		match:   []string{"awk -f <(echo 'BEGIN{system(\"rm -rf x\")}')", "gawk -E /dev/fd/3 3< <(echo x)"},
		noMatch: []string{"awk -F: '{print $1}' f", "awk -f prog.awk f"}},
	&progDecl{name: "sed", aliases: []string{"gsed"}, valued: []string{"-f", "--file", "-e", "--expression", "-l", "--line-length"},
		scriptOpts: []string{"-f", "--file"},
		match:      []string{"sed -f <(echo 'e rm -rf x') f"}, noMatch: []string{"sed -n 1p f", "sed -f script.sed f"}},
	&progDecl{name: "pip", aliases: []string{"pip3"}, valued: []string{"--proxy", "--cert", "--client-cert", "--cache-dir", "--log", "--timeout",
		"--retries", "--exists-action", "--trusted-host", "--python", "-r", "--requirement", "-c", "--constraint", "-i", "--index-url",
		"--extra-index-url", "-t", "--target", "--prefix", "--root", "-e", "--editable", "-d", "--dest", "-f", "--find-links"},
		proxies: []string{"--proxy"}, uncertainWith: []string{"--python"},
		hostOpts: []string{"-i", "--index-url", "--extra-index-url", "-f", "--find-links"}, urlArgs: "url",
		// a requirements or constraints file is read (its index options
		// are not followed: red team 4's control allows pip install -r
		// under a WebFetch deny rule; programs_argfiles.go).
		reads:   []string{"-r", "--requirement", "-c", "--constraint"},
		match:   []string{"pip install --target ~/.local/lib x", "pip install --prefix ~/.local x", "pip3 install --root / x"},
		noMatch: []string{"pip install x", "pip install --target ./vendor x", "pip install -t vendor -r requirements.txt"}},
}
