package policy

import "strings"

// What the options of a declared program do (split from programs.go):
// code, escapes, nested option lists, targets, writes, reads, programs,
// git configuration, scripts, proxies, install places, hosts and places.

// declOptEffects records what the options of a declared program do.
func (a *analyzer) declOptEffects(d *progDecl, sc *subCmd, opts []declOpt, ctx walkCtx) {
	inner := ctx
	inner.gate = true
	for _, o := range opts {
		switch {
		case containsStr(d.code, o.name):
			sc.readOnly = false
			sc.optDanger = append(sc.optDanger, o.name)
			if o.val == nil {
				a.setUncertain(d.name + " " + o.name + " has no command")
				continue
			}
			a.shellCode(*o.val, d.name+" "+o.name, inner)
		case containsStr(d.escapeOpts, o.name):
			if o.val != nil {
				a.declEscape(d, sc, o.name, *o.val, inner)
			}
		case d.nested[o.name] != nil:
			a.nestedOpts(d, sc, o, inner)
		case containsStr(d.targetOpts, o.name):
			sc.readOnly = false
			if o.val != nil {
				ref := a.pathRef(*o.val)
				ref.recursive = true
				sc.writes = append(sc.writes, ref)
			}
		case containsStr(d.writes, o.name):
			// checked like any write (Edit rules, breakers, the
			// workspace); an allow rule for the command covers it.
			sc.readOnly = false
			a.plainWrite(sc, o.val)
			if containsStr(d.reads, o.name) {
				a.optRead(sc, o.name, o.val) // read and written (go test -fuzzcachedir)
			}
		case containsStr(d.argFiles, o.name):
			a.argFile(sc, o.name, o.val) // programs_argfiles.go
		case containsStr(d.atReads, o.name):
			a.atRead(sc, o.name, o.val) // programs_argfiles.go
		case containsStr(d.reads, o.name), containsStr(d.pairReads, o.name):
			a.optRead(sc, o.name, o.val) // programs_optreads.go
			if containsStr(d.scriptOpts, o.name) {
				a.scriptOptEffect(d, sc, o) // a makefile read is code too (make -f)
			}
		case containsStr(d.programs, o.name):
			sc.readOnly = false
			a.optProgram(sc, o.name, o.val, inner)
		case containsStr(d.gitConfig, o.name) && o.val != nil:
			if h, ok := gitProxyConfig(*o.val); ok {
				sc.proxies = append(sc.proxies, h)
			}
			a.gitConfigCode("-c", *o.val, inner)
		case containsStr(d.scriptOpts, o.name):
			a.scriptOptEffect(d, sc, o) // programs_rt3.go
		case containsStr(d.proxies, o.name):
			sc.proxies = append(sc.proxies, proxyValue(o.val))
		case containsStr(d.installsTo, o.name):
			sc.readOnly = false
			a.installTarget(d, sc, o) // programs_rt3.go
		case containsStr(d.hostOpts, o.name):
			a.hostOpt(sc, o) // programs_rt4.go
		case containsStr(d.placeOpts, o.name), containsStr(d.prefixOpts, o.name):
			sc.readOnly = false
			a.placeTarget(d, sc, o.name, o.val, containsStr(d.prefixOpts, o.name)) // programs_rt4.go
		}
	}
}

// declEscape reads w through the program's own escape syntax (opt: the
// escapeOpts option whose value w is; "" when w is a plain argument or
// another option's value).
func (a *analyzer) declEscape(d *progDecl, sc *subCmd, opt string, w word, ctx walkCtx) {
	if !w.static {
		a.setUncertain(d.name + " runs a command known only at run time")
		return
	}
	if d.exRead != nil {
		a.declExRead(d, sc, d.exRead(opt, w.s), ctx) // programs_exlang.go
		return
	}
	if code, ok := d.escape(w.s); ok {
		sc.readOnly = false
		sc.optDanger = append(sc.optDanger, d.name+" escape")
		a.shellCode(staticWord(code), d.name, ctx)
	}
}

// makeStdin reads a makefile fed on standard input: every recipe line (a
// line starting with a tab) is shell code.
func (a *analyzer) makeStdin(src string, ctx walkCtx) {
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "\t") {
			l := strings.TrimLeft(line, "\t@-+ ")
			if strings.ContainsAny(l, "$") {
				a.setUncertain("make runs a recipe with make variables")
			}
			a.shellCode(staticWord(l), "make recipe", ctx)
		} else if strings.Contains(line, "$(shell") || strings.Contains(line, "include") {
			a.setUncertain("the makefile runs or includes code")
		}
	}
}
