package policy

import (
	"fmt"
	"strings"
)

// modeAliases maps every accepted spelling to its mode. The seed's names
// (autonomous, ask_every_time, ...) are aliases kept for old settings; they
// are read from settings only, never as a mode id an editor sends (see
// ModeFromID): agents have modes called "auto" that mean something else.
var modeAliases = map[string]Mode{
	string(ModeDefault):     ModeDefault,
	string(ModeAcceptEdits): ModeAcceptEdits,
	string(ModePlan):        ModePlan,
	string(ModeDontAsk):     ModeDontAsk,
	string(ModeBypass):      ModeBypass,
	"autonomous":            ModeBypass,
	"auto_accept_all":       ModeBypass,
	"ask_every_time":        ModeDefault,
	"auto_accept_read_only": ModeDefault,
}

// Modes lists the five modes in the order a UI shows them.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass}

// ParseMode returns the mode named s (one of the five modes or an alias).
// The empty string is an error: callers pick their own default.
func ParseMode(s string) (Mode, error) {
	if m, ok := modeAliases[strings.TrimSpace(s)]; ok {
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: valid modes are default, acceptEdits, plan, dontAsk, bypassPermissions (aliases in settings: autonomous, auto_accept_all, ask_every_time, auto_accept_read_only)", s)
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
