package policy

import "strings"

// Unknown programs (docs/policy.md, "Deny rules wherever a program could
// run"): a program the policy has no declaration for may run any of its
// arguments. Every tail of its arguments that starts with a plain word is
// read as a command, and every argument that holds a command line (words
// and shell operators, or a program's escape sigil before a word: `!cmd`,
// `.shell cmd`, `system("cmd")`) is split into words whose tails are read
// too. These readings are probes (skProbe): a deny or ask rule or a
// circuit breaker that meets one makes the call ask in every mode
// (bypassPermissions included; denied in dontAsk and plan), never deny and
// never allow. Probes do not make the call uncertain and carry no paths.

const (
	maxProbeWords = 64 // arguments of one unknown program probed
	maxProbes     = 48 // probes in one command line
)

// knownProgram: the policy has a reading of base (its own classification,
// a declaration, a wrapper): it is not probed.
func knownProgram(base string) bool {
	loadPrograms()
	if _, ok := readOnlyCmds[base]; ok {
		return true
	}
	if fileOpCmds[base] || runsArgs[base] || noProbe[base] {
		return true
	}
	if _, ok := writerCmds[base]; ok {
		return true
	}
	if _, ok := programs[base]; ok {
		return true
	}
	if _, ok := searchers[base]; ok {
		return true
	}
	return false
}

// noProbe: programs declared inert for their arguments (they print, test
// or search their arguments and never run them).
var noProbe = map[string]bool{
	"man": true, "info": true, "whatis": true, "apropos": true, "help": true, "whereis": true, "hash": false,
	"ag": true, "ack": true, "grep": true, "rg": true, "printf": true, "echo": true, "logger": true,
	"notify-send": true, "yes": true, "wall": false, "banner": true, "figlet": true, "cowsay": true,
	"git": true, "find": true, "sed": true, "awk": true, "gawk": true, "jq": true, "yq": true,
	"export": true, "local": true, "declare": true, "typeset": true, "readonly": true, "unset": true,
	"set": true, "shift": true, "return": true, "exit": true, "read": true, "wait": true, "let": true,
	"alias": true, "unalias": true, "getopts": true, "shopt": true, "umask": true, "ulimit": true,
}

// probe reads ws (an unknown program and its arguments) for commands.
func (a *analyzer) probe(ws []word, ctx walkCtx) {
	if ctx.probe || ctx.depth >= maxDepth/2 || len(ws) < 2 {
		return
	}
	ctx.probe = true
	ctx.gate = true
	unc := a.an.uncertain
	cwd, known := a.cwd, a.cwdKnown
	defer func() { a.an.uncertain, a.cwd, a.cwdKnown = unc, cwd, known }()
	args := ws[1:]
	if len(args) > maxProbeWords {
		args = args[:maxProbeWords]
	}
	for i, w := range args {
		if a.probes >= maxProbes {
			return
		}
		if !w.static {
			continue
		}
		if probeName(w.s) {
			a.probes++
			a.command(args[i:], ctx)
		}
		if strings.ContainsAny(w.s, " \t\n;&|(`") {
			toks := probeTokens(w.s)
			for j, t := range toks {
				if a.probes >= maxProbes {
					return
				}
				if probeName(t) && (j > 0 || strings.ContainsAny(w.s, " \t")) {
					a.probes++
					tw := make([]word, 0, len(toks)-j)
					for _, s := range toks[j:] {
						tw = append(tw, staticWordPath(s))
					}
					a.command(tw, ctx)
				}
			}
		}
	}
}

// probeName: s could name a program (not an option, a number or a path
// with nothing but punctuation).
func probeName(s string) bool {
	if s == "" || s[0] == '-' || len(s) > 64 {
		return false
	}
	letter := false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == '+', c == '/', c == '[':
		default:
			return false
		}
	}
	return letter
}

// probeTokens splits a string into words at blanks, quotes, shell
// operators and escape sigils (! : ( ) ` , = { }).
func probeTokens(s string) []string {
	f := func(c rune) bool {
		return strings.ContainsRune(" \t\n;&|()`'\"!,={}<>\\", c)
	}
	toks := strings.FieldsFunc(s, f)
	for i, t := range toks {
		// `.shell`, `.system`: sqlite's dot-commands lose the dot.
		toks[i] = strings.TrimLeft(t, ".:@")
	}
	if len(toks) > maxProbeWords {
		toks = toks[:maxProbeWords]
	}
	return toks
}
