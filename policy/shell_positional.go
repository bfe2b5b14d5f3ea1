package policy

import (
	"regexp"
	"strings"
)

// positionalExp is a positional parameter in shell code, quoted or not:
// $@ $* $0..$9 ${N} ${@} ${*} (with their double quotes when they have them).
var positionalExp = regexp.MustCompile(`"\$\{?[@*0-9]\}?"|\$\{?[@*0-9]\}?`)

// positional reads `sh -c CODE ARG0 ARGS...` once more with the
// positional parameters in CODE replaced by the arguments they stand for:
// `sh -c 'exec "$@"' sh rm -rf ~` is read as `exec 'rm' '-rf' '~'`, what the
// shell runs. "$@" becomes each argument quoted, "$*" and "$N" one quoted
// word, and an unquoted $@, $* or $N the argument's text as is (the shell
// splits it into words there; reading it as code also sees any operator in
// it, which only adds readings). Parameters past the arguments given are
// empty. The original reading of CODE stays (a `shift` or `set --` inside
// CODE changes what the numbers mean at run time: the variable command word
// it leaves is uncertain, which asks).
func (a *analyzer) positional(code string, rest []word, ctx walkCtx) {
	if len(rest) == 0 || !positionalExp.MatchString(code) {
		return
	}
	args := make([]string, 0, len(rest))
	for _, w := range rest {
		if !w.static {
			a.setUncertain("the shell's positional parameters are known only at run time")
			return
		}
		v := w.s
		if strings.HasPrefix(v, "~") && w.pathOK {
			v = w.path // the outer shell expanded it before sh got it
		}
		args = append(args, v)
	}
	quoted := func(ws []string) string {
		q := make([]string, len(ws))
		for i, w := range ws {
			q[i] = shellQuote(w, false)
		}
		return strings.Join(q, " ")
	}
	params := args[1:]
	sub := positionalExp.ReplaceAllStringFunc(code, func(m string) string {
		inQuotes := strings.HasPrefix(m, `"`)
		name := strings.Trim(m, `"${}`)
		switch name {
		case "@":
			if inQuotes {
				return quoted(params)
			}
			return strings.Join(params, " ")
		case "*":
			if inQuotes {
				return shellQuote(strings.Join(params, " "), false)
			}
			return strings.Join(params, " ")
		}
		n := int(name[0] - '0')
		v := ""
		if n < len(args) {
			v = args[n]
		}
		if inQuotes {
			return shellQuote(v, false)
		}
		return v
	})
	if sub == code || len(sub) > 1<<16 {
		return
	}
	cwd, known := a.cwd, a.cwdKnown
	a.parseAndVisit(sub, ctx)
	a.cwd, a.cwdKnown = cwd, known
}
