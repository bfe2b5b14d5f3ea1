package policy

import "strings"

// How lookupDecl finds a subcommand word past options (red team 16): the
// options of the declaration of the words before it (docker compose -f F
// exec), and, for a runner, options the policy does not know.

// afterUnknownOpts: where the subcommand word s is in rest when only
// options, each with at most one value, stand before it (from the start
// for a later subcommand word, from the program's first option for the
// first); -1 if it is not.
func afterUnknownOpts(rest []word, k, first int, s string) int {
	j := 0
	if k == 0 {
		j = min(first, len(rest))
		for j > 0 && rest[j-1].static && strings.HasPrefix(rest[j-1].s, "-") {
			j-- // back to the option subcommandAt stopped after
		}
	}
	for j < len(rest) && rest[j].static {
		w := rest[j].s
		if w == s {
			return j
		}
		if !strings.HasPrefix(w, "-") || w == "--" || w == "-" {
			return -1
		}
		j++
		if j < len(rest) && rest[j].static && rest[j].s != s && !strings.HasPrefix(rest[j].s, "-") {
			j++ // its value
		}
	}
	return -1
}

// parentDecl: among ds, the declaration of d's program and its first k
// subcommand words (docker compose for docker compose exec), or nil.
func parentDecl(ds []*progDecl, d *progDecl, k int) *progDecl {
	name := d.name
	for j := len(d.sub); j > k; j-- {
		name = name[:strings.LastIndexByte(name, ' ')]
	}
	for _, o := range ds {
		if o.name == name {
			return o
		}
	}
	return nil
}

// declaredGuess is declared; when lookupDeclOf found the runner's
// subcommand word only past an option the policy does not know, what it
// runs still meets the deny rules, and the call asks.
func (a *analyzer) declaredGuess(d *progDecl, base string, rest, args []word, text string, alts []string, ctx walkCtx) bool {
	guessed := a.decl.guessed // before declared reads the command it runs
	if !a.declared(d, base, rest, args, text, alts, ctx) {
		return false
	}
	if guessed {
		a.setUncertain(d.name + ": its subcommand follows an option the reader does not know")
	}
	return true
}
