package policycli

import (
	"fmt"
	"io"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Explain prints a verdict for a person: the call, the decision and what
// produced it, the rule and where it came from, the circuit breaker, and
// the sub-commands found in a shell command. Write errors are ignored: the
// explanation goes to a terminal.
func Explain(w io.Writer, call policy.Call, v policy.Verdict) {
	var b strings.Builder
	spec := v.Specifier
	if spec == "" {
		spec = policy.Specifier(call)
	}
	fmt.Fprintf(&b, "Call:      %s\n", spec)
	if call.Kind != "" {
		fmt.Fprintf(&b, "Kind:      %s\n", call.Kind)
	}
	fmt.Fprintf(&b, "Decision:  %s (%s)\n", strings.ToUpper(string(v.Decision)), describeSource(v.Source))
	fmt.Fprintf(&b, "Why:       %s\n", v.Reason)
	if v.Rule != "" {
		origin := ""
		if v.RuleOrigin != nil {
			origin = " from " + v.RuleOrigin.String()
		}
		fmt.Fprintf(&b, "Rule:      %s%s\n", v.Rule, origin)
	}
	if v.Breaker != "" {
		fmt.Fprintf(&b, "Breaker:   %s\n", v.Breaker)
	}
	if len(call.Paths) > 0 {
		fmt.Fprintf(&b, "Paths:     %s\n", strings.Join(call.Paths, ", "))
	}
	if len(v.SubCommands) > 0 {
		fmt.Fprintf(&b, "Sub-commands (%d), each checked on its own:\n", len(v.SubCommands))
		for i, s := range v.SubCommands {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, s)
		}
	} else if call.Tool == "Bash" {
		b.WriteString("Sub-commands: none could be read from the command\n")
	}
	_, _ = io.WriteString(w, b.String())
}

func describeSource(s policy.Source) string {
	switch s {
	case policy.SourceRule:
		return "by a rule"
	case policy.SourceMode:
		return "by the permission mode"
	case policy.SourceReadOnly:
		return "read-only, needs no prompt"
	case policy.SourceBreaker:
		return "circuit breaker"
	case policy.SourceBypass:
		return "bypassPermissions"
	case policy.SourceSessionGrant:
		return "granted for this session"
	case policy.SourceDefault:
		return "nothing allows it: the mode's default"
	case policy.SourceUnknownCall:
		return "the call was not understood"
	}
	return string(s)
}
