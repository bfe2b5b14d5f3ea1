package policy

import (
	"fmt"
	"strings"
)

// The modes, declared once (docs/policy.md, "Modes"): their names, the
// aliases settings accept, and which is at least as strict as which.
// settings reads them from here; the editor gets them from the bridge.

// Modes lists the five modes in the order a UI shows them.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass}

// SettingsAliases are the seed's mode names, accepted in settings only (in
// the order error messages list them), never as a mode id an editor sends
// (ModeFromID): agents have modes called "auto" that mean something else,
// so "auto" is no alias (it would read an agent's ordinary preset as
// bypassPermissions).
var SettingsAliases = []struct {
	Name string
	Mode Mode
}{
	{"autonomous", ModeBypass},
	{"ask_every_time", ModeDefault},
	{"auto_accept_read_only", ModeDefault},
	{"auto_accept_all", ModeBypass},
}

// modeAliases maps every accepted spelling to its mode.
var modeAliases = func() map[string]Mode {
	m := map[string]Mode{}
	for _, x := range Modes {
		m[string(x)] = x
	}
	for _, a := range SettingsAliases {
		m[a.Name] = a.Mode
	}
	return m
}()

// atLeastAsStrict[w] are the modes t for which w is at least as strict: for
// every call, w's decision is t's or more restrictive (allow < ask < deny).
// plan and dontAsk are not comparable: dontAsk allows what an allow rule
// covers, which plan denies; plan asks for reads outside the workspace,
// which dontAsk denies.
var atLeastAsStrict = map[Mode][]Mode{
	ModeBypass:      {ModeBypass},
	ModeAcceptEdits: {ModeAcceptEdits, ModeBypass},
	ModeDefault:     {ModeDefault, ModeAcceptEdits, ModeBypass},
	ModeDontAsk:     {ModeDontAsk, ModeDefault, ModeAcceptEdits, ModeBypass},
	ModePlan:        {ModePlan, ModeDefault, ModeAcceptEdits, ModeBypass},
}

// AtLeastAsStrict tells whether mode w is at least as strict as mode t.
func AtLeastAsStrict(w, t Mode) bool {
	for _, x := range atLeastAsStrict[w] {
		if x == t {
			return true
		}
	}
	return false
}

// ParseMode returns the mode named s (one of the five modes or an alias).
// The empty string is an error: callers pick their own default.
func ParseMode(s string) (Mode, error) {
	if m, ok := modeAliases[strings.TrimSpace(s)]; ok {
		return m, nil
	}
	names := make([]string, 0, len(SettingsAliases))
	for _, a := range SettingsAliases {
		names = append(names, a.Name)
	}
	return "", fmt.Errorf("unknown permission mode %q: valid modes are default, acceptEdits, plan, dontAsk, bypassPermissions (aliases in settings: %s)", s, strings.Join(names, ", "))
}

// ModeFromID returns the mode whose exact name is id, for a mode id an
// editor sends (session/set_mode, the mode config option, _meta): only the
// five names, no alias.
func ModeFromID(id string) (Mode, bool) {
	m := Mode(id)
	return m, m.valid()
}

// valid reports whether m is one of the five modes.
func (m Mode) valid() bool {
	switch m {
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass:
		return true
	}
	return false
}

// ModeText is a mode's name and description as an editor shows them.
type ModeText struct {
	Name, Description string
}

// ModeTexts names and describes each of Modes (the session's availableModes,
// the mode config option, the editor's mode picker).
var ModeTexts = map[Mode]ModeText{
	ModeDefault:     {"Default", "Ask for every call no rule allows (reads in the workspace are free)"},
	ModeAcceptEdits: {"Accept Edits", "Also allow edits and simple file operations inside the workspace"},
	ModePlan:        {"Plan", "Read-only: every call that is not a read is denied"},
	ModeDontAsk:     {"Don't Ask", "Whatever would ask is denied"},
	ModeBypass:      {"Bypass Permissions", "Allow everything; deny rules and circuit breakers still apply"},
}

// AtLeastAsStrictAs lists, in Modes order, the modes w is at least as strict as.
func AtLeastAsStrictAs(w Mode) []Mode {
	var out []Mode
	for _, t := range Modes {
		if AtLeastAsStrict(w, t) {
			out = append(out, t)
		}
	}
	return out
}
