package policy

import "strings"

// git: the places where git runs code a repository or a command line
// names (configuration keys, aliases, hooks) read as commands.

// gitConfigCode checks what a git global option makes git run that the
// command line does not show: the shell code of an alias starting with "!"
// or of a config key whose value is a command (pager, editor, ssh command,
// diff and merge drivers, filters, credential helpers, ...) is parsed and
// checked like eval's; a value only known at run time, one taken from the
// environment (--config-env), another exec path, hooks or included config
// files cannot be checked: uncertain.
func (a *analyzer) gitConfigCode(opt string, val word, ctx walkCtx) {
	switch opt {
	case "--config-env", "--exec-path":
		a.setUncertain("git " + opt + " makes git run programs the command does not name")
		return
	case "-c":
	default:
		return
	}
	if !val.static {
		a.setUncertain("git -c sets configuration known only at run time")
		return
	}
	key, value, _ := strings.Cut(val.s, "=")
	key = strings.ToLower(key)
	code := ""
	switch {
	case strings.HasPrefix(key, "alias."):
		if v := strings.TrimSpace(value); strings.HasPrefix(v, "!") {
			code = v[1:]
		} else if v != "" {
			// a plain alias is more git arguments (log --output=f): read
			// them as the git command they make.
			code = "git " + v
		}
	case key == "core.hookspath" || key == "include.path" || key == "init.templatedir" || strings.HasPrefix(key, "includeif."):
		a.setUncertain("git -c " + key + " makes git run programs the command does not name")
		return
	case key == "core.worktree" || key == "core.bare":
		a.setUncertain("git -c " + key + " makes git act on another tree")
		return
	case key == "core.gitproxy":
		a.setUncertain("git -c core.gitProxy runs a program to connect")
		return
	case strings.HasSuffix(key, ".smtpserver") && strings.HasPrefix(strings.TrimSpace(value), "/"):
		// sendemail.smtpServer naming a path is a sendmail-like program.
		a.setUncertain("git -c " + key + " names a program git runs to send mail")
		return
	case gitCodeKey(key):
		// "!CMD": git runs CMD with the shell (credential.helper,
		// alias); otherwise the value is the command.
		code = strings.TrimPrefix(strings.TrimSpace(value), "!")
	}
	if strings.TrimSpace(code) == "" {
		return
	}
	ctx.depth++
	a.parseAndVisit(code, ctx)
}

// gitProxyConfig: a `-c KEY=VALUE` word that sets the proxy git connects
// through (http.proxy, https.proxy, http.<url>.proxy, remote.<name>.proxy):
// the host ("$" when only known at run time).
func gitProxyConfig(w word) (string, bool) {
	if !w.static {
		return "$", true
	}
	key, value, _ := strings.Cut(w.s, "=")
	key = strings.ToLower(key)
	if key == "http.proxy" || key == "https.proxy" || strings.HasSuffix(key, ".proxy") && (strings.HasPrefix(key, "http.") || strings.HasPrefix(key, "remote.")) {
		return strings.TrimSpace(value), true
	}
	// remote.<name>.url / pushurl: where git fetches from or pushes to
	// (red team 5); the value is a URL or an scp-like host:path.
	if strings.HasPrefix(key, "remote.") && (strings.HasSuffix(key, ".url") || strings.HasSuffix(key, ".pushurl")) {
		return strings.TrimSpace(value), true
	}
	// url.<base>.insteadOf / pushInsteadOf: git rewrites the URLs it is
	// given to <base>, and connects there (red team 4).
	if strings.HasPrefix(key, "url.") && (strings.HasSuffix(key, ".insteadof") || strings.HasSuffix(key, ".pushinsteadof")) {
		base := w.s[len("url."):len(key)]
		return base[:strings.LastIndexByte(base, '.')], true
	}
	return "", false
}

// gitCodeKey reports whether git runs the value of config key as a command.
func gitCodeKey(key string) bool {
	switch key {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.askpass", "core.gitproxy",
		"sequence.editor", "diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "web.browser":
		return true
	}
	for _, suffix := range []string{".textconv", ".command", ".driver", ".clean", ".smudge", ".process", ".program", ".helper", ".cmd",
		".sendmailcmd", ".tocmd", ".cccmd", ".headercmd", ".uploadpack", ".receivepack"} {
		if strings.HasSuffix(key, suffix) {
			return true
		}
	}
	return strings.HasPrefix(key, "pager.")
}

// gitCmd strips git's global options: -C dir is matched as plain git (the
// directory is tracked); -c and --git-dir stay in the text (they can make
// git run other programs) but not in the deny/ask alternatives.
func (a *analyzer) gitCmd(ws []word, text string, alts []string, ctx walkCtx) {
	args := ws[1:]
	if !a.cwdKnown || !a.env.inWorkspaceLexical(a.cwd) {
		// cd elsewhere && git ...: git reads that repository's config
		// (which runs code) as with -C.
		a.setUncertain("git runs in a directory outside the workspace (or one known only at run time)")
	}
	if len(args) == 0 || !args[0].static || !strings.HasPrefix(args[0].s, "-") {
		// no global options: the common case.
		a.gitConfigWrite(args)
		sc := a.newSub() // from the analysis's block, not one heap object each
		sc.text, sc.alts, sc.readOnly, sc.breaker = text, alts, gitReadOnly(args), gitConfigBreaker(args)
		a.gitReads(sc, args)
		a.outputOptionWrites(sc, "git", args)
		a.declEffects(sc, "git", args, ctx)
		a.addSub(*sc, ctx)
		return
	}
	kept := []word{ws[0]}
	stripped := []word{{s: "git", static: true, off: -1}}
	cwd, known := a.cwd, a.cwdKnown
	defer func() { a.cwd, a.cwdKnown = cwd, known }()
	risky := false
	var gitDirs []pathRef
	var proxies []string
	var cfg []word // -c KEY=VALUE words (gitConfigReads)
	i := 0
	for i < len(args) && args[i].static && strings.HasPrefix(args[i].s, "-") {
		s := args[i].s
		if n, _, _ := strings.Cut(s, "="); n == "--git-dir" || n == "--work-tree" || n == "--bare" {
			// git acts on another repository (whose config runs code) or
			// checks out into another tree: ask.
			a.setUncertain("git " + n + " acts on a repository or tree the command names, not the workspace's")
		}
		if s == "-c" && i+1 < len(args) {
			if v, ok := gitProxyConfig(args[i+1]); ok {
				proxies = append(proxies, v)
			}
		}
		switch {
		case s == "-C":
			if i+1 < len(args) {
				a.cdCmd(args[i+1 : i+2])
				gitDirs = append(gitDirs, a.pathRef(args[i+1]))
				if !a.cwdKnown || !a.env.inWorkspaceLexical(a.cwd) {
					a.setUncertain("git -C acts on a repository outside the workspace")
				}
			}
			i += 2
			continue
		case s == "--no-pager" || s == "-P" || s == "--no-optional-locks" || s == "--literal-pathspecs" ||
			s == "--no-replace-objects" || s == "--glob-pathspecs" || s == "--noglob-pathspecs" || s == "--icase-pathspecs":
			i++
			continue
		case s == "-c" || s == "--git-dir" || s == "--work-tree" || s == "--namespace" || s == "--exec-path" || s == "--config-env":
			risky = true
			if i+1 < len(args) {
				kept = append(kept, args[i], args[i+1])
				a.gitConfigCode(s, args[i+1], ctx)
				if s == "-c" {
					cfg = append(cfg, args[i+1])
				}
			}
			i += 2
			continue
		case strings.HasPrefix(s, "--exec-path=") || strings.HasPrefix(s, "--config-env="):
			a.gitConfigCode(s[:strings.IndexByte(s, '=')], word{}, ctx)
			risky = true
			kept = append(kept, args[i])
			i++
			continue
		default:
			risky = true
			kept = append(kept, args[i])
			i++
		}
	}
	if i > len(args) {
		i = len(args)
	}
	rest := args[i:]
	a.gitConfigWrite(rest)
	kept = append(kept, rest...)
	stripped = append(stripped, rest...)
	sc := subCmd{text: joinWords(kept, a.line), proxies: proxies}
	st := joinWords(stripped, "")
	if st != sc.text {
		sc.alts = append(sc.alts, st)
	}
	if sc.text != text {
		sc.alts = append(sc.alts, text)
	}
	sc.alts = append(sc.alts, alts...)
	if !risky {
		sc.readOnly = gitReadOnly(rest)
	}
	sc.breaker = gitConfigBreaker(rest)
	a.outputOptionWrites(&sc, "git", rest)
	if sc.readOnly {
		sc.reads = gitDirs // git -C dir reads that repository
	}
	a.gitReads(&sc, rest)
	a.declEffects(&sc, "git", rest, ctx)
	a.gitConfigReads(&sc, cfg) // programs_optreads.go
	a.addSub(sc, ctx)
}
