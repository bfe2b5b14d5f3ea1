package profiles

// Agent profiles: how to keep each agent family asking (design.md, "Three
// layers of enforcement", layer 2).
//
// The bridge's mode is the only one that decides. Each child is kept in its
// most asking mode: the bridge sets it there at session/new, load and
// resume, never forwards an editor's mode change that would make it stop
// asking, and puts it back when it switches itself out. A Profile says, per
// family, which of the agent's own mode ids ask before acting, which do not,
// which an editor may still pick (a stricter one such as plan), and the
// launch flags and environment that make the agent ask from its first turn.
// Facts recorded here were read in each agent's sources; docs/agents.md says
// where, and what the bridge can and cannot enforce for each.

import (
	"slices"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Profile is what the bridge knows of one agent family's modes and launch.
// Profiles are read-only values shared by every agent of the family.
type Profile struct {
	// Name identifies the profile (claude, gemini, qwen, codex, opencode,
	// goose, kimi, generic).
	Name string
	// Family is the tool-call normalisation adapter of the agent.
	Family Family

	// AskingModes are the agent's mode ids in which it asks before every
	// non-read action, best first. A child in one of them is left there; a
	// child in any other is set to the first of them it offers.
	AskingModes []string
	// ForwardModes are further mode ids of the agent that an editor may pick
	// and that are forwarded as they are: modes that ask at least as much
	// (plan, read-only). Every other mode id is kept from the child.
	ForwardModes []string
	// BypassModes are the agent's mode ids in which it runs tools without
	// asking (for logs and docs; any id not in AskingModes, ForwardModes or
	// SelectModes is treated the same).
	BypassModes []string
	// SelectModes are the agent's own mode ids that choose something other
	// than whether it asks (an agent, a persona: OpenCode's build and plan),
	// for a profile whose asking is set at launch (LaunchEnv, LaunchFlags),
	// not by a mode. They pass through: the editor sees them as the agent's
	// own selector (a config option next to the bridge's mode), picks among
	// them, and the child switching among them by itself is left alone.
	// Only the ids named here: any other mode of the agent (OpenCode's
	// custom agents may carry their own permissions) is kept from it.
	SelectModes []string
	// PlanMode is the agent's own mode that the bridge's plan mode puts it
	// in, when it is not already one of ForwardModes (which the bridge's
	// plan reaches by the same id): OpenCode's plan agent. Leaving the
	// bridge's plan takes the child back to the mode it was in before.
	PlanMode string

	// LaunchFlags are appended to the agent's arguments (replacing the same
	// flag the configuration gave) so that it starts asking. Only flags the
	// agent is known to accept.
	LaunchFlags []LaunchFlag
	// DropFlags are removed from the configured arguments: they would make
	// the agent stop asking.
	DropFlags []LaunchFlag
	// LaunchEnv is set in the agent's environment (over the configured and
	// inherited values) so that it asks.
	LaunchEnv map[string]string
	// ConfinedFlags are appended, like LaunchFlags and only when they are,
	// when the bridge's OS sandbox confines the agent: they turn off a
	// sandbox of the agent's own that cannot start inside the bridge's
	// (Codex's bubblewrap needs a user namespace the bridge's sandbox does
	// not give). Without the bridge's sandbox the agent keeps its own.
	ConfinedFlags []LaunchFlag
	// PrivateHome: when the bridge's OS sandbox confines the agent, it runs
	// with a state directory of its own instead of the person's (Codex's
	// CODEX_HOME, Qwen Code's QWEN_HOME): the files it rewrites and the
	// sandbox keeps read-only are private copies there (sandbox/home.go, sandbox.MakeHome).
	PrivateHome *PrivateHome

	// RejectAborts: the agent offers no reject option that lets its turn go
	// on; its only one ends the turn (measured with the real agents offline,
	// docs/agents.md "Denials the agent's model learns": Codex's "abort",
	// Qwen Code's "cancel", OpenCode's "reject"). Cards and the audit say
	// so, and permissions.continueAfterDeny sends such an agent a follow-up
	// prompt (bridge/followup.go).
	RejectAborts bool
	// ConfigPlaces are the places in the agent's config home (relative to
	// the home directory) that carry code or policy the agent reads at its
	// next start (or next session) without a turn: rules that let commands
	// run unasked, an environment file, global instructions, agents,
	// plugins, custom tools. The OS sandbox keeps every profile's config
	// places read-only (directories whole, so nothing can be created,
	// renamed or replaced inside) in every agent's sandbox, not only this
	// agent's, and keeps a missing one from being created
	// (docs/sandbox.md, "Agents' config places").
	ConfigPlaces []ConfigPlace
	// Quirks are notes for docs/agents.md and logs.
	Quirks []string
}

// PrivateHome is an agent's state directory that the bridge replaces,
// inside its OS sandbox, by a private one made for each process: Copies
// are copied into it (the agent rewrites them, by rename too, while the
// person's own stay read-only places), every other entry of the person's
// directory is a symbolic link to it, and Made are made in the person's
// directory first (when missing) so that what the agent keeps across
// processes (its sessions) outlives the private one.
type PrivateHome struct {
	// Env is the variable that names the directory to the agent.
	Env string
	// Dir is where it is without Env: relative to the agent's home.
	Dir string
	// Copies are the entries copied rather than linked (file names).
	Copies []string
	// ReadOnly are those of Copies kept read-only inside the sandbox: the
	// agent has nothing of its own to write there (Codex: the bridge
	// refuses its presets), and a command it runs must not set what its
	// next session starts with.
	ReadOnly []string
	// Made are directories made in the person's directory before linking.
	Made []string
}

// HomePlaces are the profile's config places that are entries of its
// private home (ConfigPlaces under PrivateHome.Dir), by entry name: the
// private home shows them read-only, neither linked nor copied. nil
// without a private home.
func (p *Profile) HomePlaces() []ConfigPlace {
	if p == nil || p.PrivateHome == nil {
		return nil
	}
	var out []ConfigPlace
	for _, c := range p.ConfigPlaces {
		name, ok := strings.CutPrefix(c.Path, p.PrivateHome.Dir+"/")
		if !ok || name == "" || strings.Contains(name, "/") {
			continue
		}
		c.Path = name
		out = append(out, c)
	}
	return out
}

// ConfigPlace is one place in an agent's config home.
type ConfigPlace struct {
	// Path is slash-separated, relative to the home directory.
	Path string
	// Dir: a directory (a missing one is blocked as an empty read-only
	// directory, else as an empty read-only file).
	Dir bool
	// What says what the agent reads there.
	What string
}

// AllConfigPlaces are the config places of every profile, as protected
// places relative to the home directory (policy.InHome) that run code.
func AllConfigPlaces() []policy.Place {
	var out []policy.Place
	for _, p := range Profiles() {
		for _, c := range p.ConfigPlaces {
			out = append(out, c.Place())
		}
	}
	return out
}

// Place is c as a protected place relative to the home directory.
func (c ConfigPlace) Place() policy.Place {
	return policy.Place{Base: policy.InHome, Path: c.Path, What: c.What, RunsCode: true, Dir: c.Dir}
}

// LaunchFlag is one command-line flag. Value "" is a flag without a value;
// TakesValue says a dropped flag consumes the next argument.
type LaunchFlag struct {
	Name       string
	Value      string
	TakesValue bool
	// Key: the flag's value is key=value (Codex's -c/--config, one setting
	// each) and this flag sets Key: a configured flag of that name is the
	// same flag only when its value sets the same key.
	Key string
}

// IsAsking reports whether id is one of the agent's asking modes.
func (p *Profile) IsAsking(id string) bool { return slices.Contains(p.AskingModes, id) }

// Forwardable reports whether an editor's mode id may reach the agent:
// an asking mode or a stricter one the profile names.
func (p *Profile) Forwardable(id string) bool {
	return p.IsAsking(id) || slices.Contains(p.ForwardModes, id)
}

// Selects reports whether id is one of the agent's own selector modes.
func (p *Profile) Selects(id string) bool { return slices.Contains(p.SelectModes, id) }

// KeepsAsking reports whether the child may be in mode id: an asking mode,
// a stricter one, or a selector mode of an agent launched to ask.
func (p *Profile) KeepsAsking(id string) bool { return p.Forwardable(id) || p.Selects(id) }

// RestoreTarget is the mode to put a child back in that left the modes it
// may be in: its first asking mode offered, else (an agent whose asking is
// set at launch) its first selector mode offered, else "".
func (p *Profile) RestoreTarget(offered []string) string {
	if m := p.PickAsking(offered); m != "" {
		return m
	}
	for _, m := range p.SelectModes {
		if slices.Contains(offered, m) {
			return m
		}
	}
	return ""
}

// PickAsking returns the asking mode to set on an agent that offers the
// mode ids offered: the first of AskingModes it offers, else "".
func (p *Profile) PickAsking(offered []string) string {
	for _, m := range p.AskingModes {
		if slices.Contains(offered, m) {
			return m
		}
	}
	return ""
}

// AsksAtLaunch reports whether what Launch sets (with or without flags)
// makes the agent ask without any session mode (OpenCode's permission
// config, Goose's GOOSE_MODE, Gemini's --approval-mode).
func (p *Profile) AsksAtLaunch(flags bool) bool {
	return len(p.LaunchEnv) > 0 || (flags && len(p.LaunchFlags) > 0)
}

// Launch returns the arguments and environment to start the agent with:
// LaunchEnv set over env and, when flags is set (the agent was recognised
// from its command, see DetectProfile), the configured arguments without
// the DropFlags and with LaunchFlags appended. changes says, one line each,
// what was added, removed or overridden (for the log). The inputs are not
// modified.
//
// Only the agent's own arguments are looked at for DropFlags: those after
// the argument that names the agent when a runner starts it (`npx -y
// @google/gemini-cli --yolo`: npx's -y stays, gemini's --yolo goes).
func (p *Profile) Launch(command string, args []string, env map[string]string, flags bool) (outArgs []string, outEnv map[string]string, changes []string) {
	var drop, launch []LaunchFlag
	if flags {
		drop = append(append(drop, p.DropFlags...), p.LaunchFlags...)
		launch = p.LaunchFlags
	}
	outArgs, changes = p.setFlags(command, args, drop, launch)
	outEnv = make(map[string]string, len(env)+len(p.LaunchEnv))
	for k, v := range env {
		outEnv[k] = v
	}
	for k, v := range p.LaunchEnv {
		if old, ok := env[k]; ok && old != v {
			changes = append(changes, "environment "+k+" overridden (was "+old+")")
		} else {
			changes = append(changes, "environment "+k+"="+v)
		}
		outEnv[k] = v
	}
	return outArgs, outEnv, changes
}

// Confine returns the arguments to start the agent with inside the
// bridge's OS sandbox: args (Launch's) with ConfinedFlags set, when flags
// is set (as for Launch). changes says what was added or removed.
func (p *Profile) Confine(command string, args []string, flags bool) (outArgs []string, changes []string) {
	if !flags || len(p.ConfinedFlags) == 0 {
		return append([]string(nil), args...), nil
	}
	return p.setFlags(command, args, p.ConfinedFlags, p.ConfinedFlags)
}

// setFlags removes the flags drop names from the agent's own arguments and
// appends launch.
func (p *Profile) setFlags(command string, args []string, drop, launch []LaunchFlag) (outArgs []string, changes []string) {
	own := p.ownArgs(command, args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if _, n, ok := matchFlag(drop, args[i:]); ok && i >= own {
			removed := strings.Join(args[i:i+n], " ")
			i += n - 1
			if !slices.ContainsFunc(launch, func(l LaunchFlag) bool { return l.render() == removed }) {
				changes = append(changes, "removed argument "+removed)
			}
			continue
		}
		outArgs = append(outArgs, a)
	}
	for _, f := range launch {
		outArgs = append(outArgs, f.Name)
		if f.Value != "" {
			outArgs = append(outArgs, f.Value)
		}
		changes = append(changes, "argument "+f.render())
	}
	return outArgs, changes
}

// ownArgs is the index of the first argument that goes to the agent
// itself: 0 when the command is the agent, else the one after the first
// argument that names it (a runner's package or script), else len(args).
func (p *Profile) ownArgs(command string, args []string) int {
	names := func(s string) bool {
		return profileMatching([]string{launchBase(s)}) == p || profileMatching([]string{strings.ToLower(strings.ReplaceAll(s, `\`, "/"))}) == p
	}
	if names(command) {
		return 0
	}
	for i, a := range args {
		if !strings.HasPrefix(a, "-") && names(a) {
			return i + 1
		}
	}
	return len(args)
}

func (f LaunchFlag) render() string {
	if f.Value == "" {
		return f.Name
	}
	return f.Name + " " + f.Value
}

// matchFlag finds the flag args[0] is (a flag "--x", "--x value",
// "--x=value", or for a one-letter flag "-xvalue") and how many arguments
// it takes (1 or 2).
func matchFlag(flags []LaunchFlag, args []string) (LaunchFlag, int, bool) {
	a := args[0]
	for _, f := range flags {
		n, value := 0, ""
		switch {
		case a == f.Name && f.TakesValue && len(args) > 1:
			n, value = 2, args[1]
		case a == f.Name:
			n = 1
		case f.TakesValue && strings.HasPrefix(a, f.Name+"="):
			n, value = 1, a[len(f.Name)+1:]
		case f.TakesValue && f.Key != "" && len(f.Name) == 2 && f.Name[0] == '-' && f.Name[1] != '-' && strings.HasPrefix(a, f.Name):
			n, value = 1, a[len(f.Name):]
		default:
			continue
		}
		if f.Key != "" {
			k, _, _ := strings.Cut(value, "=")
			if strings.TrimSpace(k) != f.Key {
				continue
			}
		}
		return f, n, true
	}
	return LaunchFlag{}, 0, false
}

// codexSetting is Codex's -c key=value flag and its long form --config
// (codex-acp's only command-line options), both setting key.
func codexSetting(key, value string) []LaunchFlag {
	return []LaunchFlag{{Name: "-c", Value: key + "=" + value, TakesValue: true, Key: key}, {Name: "--config", TakesValue: true, Key: key}}
}

// approvalModeFlags are the Gemini CLI / Qwen Code flags that set the
// approval mode: --approval-mode <mode>, and --yolo / -y (yolo).
var approvalModeFlags = []LaunchFlag{{Name: "--yolo"}, {Name: "-y"}, {Name: "--approval-mode", TakesValue: true}}

// openCodeAsk is OpenCode's permission config that makes it ask for every
// edit, shell command and web fetch (read by opencode from the environment
// variable OPENCODE_PERMISSION, merged over its config files).
const openCodeAsk = `{"edit":"ask","bash":"ask","webfetch":"ask"}`

// profiles is the table. Order matters for detection: qwen before gemini.
var profiles = []*Profile{
	{
		Name: "claude", Family: FamilyClaude,
		AskingModes:  []string{"default"},
		ForwardModes: []string{"plan"},
		BypassModes:  []string{"auto", "acceptEdits", "bypassPermissions", "dontAsk"},
		Quirks: []string{
			"starts its sessions in `auto` (a classifier that runs Bash and Write without asking)",
			"offers its mode also as the session config option `mode` (category mode)",
			"may leave plan mode by itself (ExitPlanMode); the bridge puts it back",
		},
	},
	{
		Name: "qwen", Family: FamilyGemini,
		AskingModes:  []string{"default"},
		ForwardModes: []string{"plan"},
		BypassModes:  []string{"auto-edit", "auto", "yolo"},
		LaunchFlags:  []LaunchFlag{{Name: "--approval-mode", Value: "default", TakesValue: true}},
		DropFlags:    approvalModeFlags,
		RejectAborts: true,
		// session/set_model persists the model picked into
		// QWEN_HOME/settings.json by renaming it to settings.json.orig and
		// a new file into its place (writeWithBackupSync, Qwen Code
		// 0.24.4); a bind-mounted copy cannot be renamed (EBUSY), so the
		// copy lives in a private QWEN_HOME. Its sessions (projects/) and
		// temp files (tmp/) stay the person's.
		PrivateHome: &PrivateHome{Env: "QWEN_HOME", Dir: ".qwen", Copies: []string{"settings.json"}, Made: []string{"projects", "tmp"}},
		Quirks: []string{
			"may start in `auto` (an LLM classifier) from its settings; --approval-mode default starts it asking",
			"its only reject option, `cancel`, ends the turn (Gemini CLI's goes on)",
		},
	},
	{
		Name: "gemini", Family: FamilyGemini,
		AskingModes:  []string{"default"},
		ForwardModes: []string{"plan"},
		BypassModes:  []string{"autoEdit", "yolo"},
		LaunchFlags:  []LaunchFlag{{Name: "--approval-mode", Value: "default", TakesValue: true}},
		DropFlags:    approvalModeFlags,
		Quirks:       []string{"the approval mode also comes from settings.json; the launch flag wins over it"},
	},
	{
		// Measured with codex-acp 0.16.0 offline (docs/agents.md, Codex):
		// in `auto` it applies workspace patches and runs commands inside
		// its own sandbox without asking, so `auto` is kept from it. The
		// launch flag sets its approval policy `untrusted`: it asks for
		// every patch and every command it does not know to be read-only
		// (curl included), whatever its sandbox; no preset matches that
		// policy, so it offers no modes (or `read-only` for a project its
		// config marks untrusted). Inside the bridge's sandbox its own
		// sandbox cannot start (bwrap: setting up uid map), so it runs with
		// sandbox_mode danger-full-access there, the bridge's sandbox being
		// the floor.
		Name: "codex", Family: FamilyCodex,
		AskingModes:   []string{"read-only"},
		BypassModes:   []string{"auto", "full-access"},
		LaunchFlags:   codexSetting("approval_policy", `"untrusted"`)[:1],
		DropFlags:     codexSetting("approval_policy", ""),
		ConfinedFlags: codexSetting("sandbox_mode", `"danger-full-access"`)[:1],
		RejectAborts:  true,
		// Its presets are persisted into CODEX_HOME/config.toml.
		PrivateHome: &PrivateHome{Env: "CODEX_HOME", Dir: ".codex", Copies: []string{"config.toml"}, ReadOnly: []string{"config.toml"}, Made: []string{"sessions", "archived_sessions"}},
		// Read from CODEX_HOME (~/.codex) at start or at each new session:
		// execpolicy rules (an allow rule runs a command without asking
		// the bridge), the .env loaded into its environment, the global
		// instructions, skills and custom prompts. config.toml is a
		// protected place of the table (policy.Places).
		ConfigPlaces: []ConfigPlace{
			{Path: ".codex/rules", Dir: true, What: "Codex's exec-policy rules (an allow rule runs a command unasked)"},
			{Path: ".codex/.env", What: "Codex's environment file (loaded at start)"},
			{Path: ".codex/AGENTS.md", What: "Codex's global instructions"},
			{Path: ".codex/AGENTS.override.md", What: "Codex's global instructions"},
			{Path: ".codex/skills", Dir: true, What: "Codex's skills"},
			{Path: ".codex/prompts", Dir: true, What: "Codex's custom prompts"},
			// Lifecycle hooks: commands Codex runs at session start, before
			// a tool, at stop (red team 9), and the scripts they name.
			{Path: ".codex/hooks.json", What: "Codex's lifecycle hooks (commands run at session start and around tools)"},
			{Path: ".codex/hooks", Dir: true, What: "Codex's hook scripts"},
			{Path: ".agents/skills", Dir: true, What: "Codex's user skills"},
		},
		Quirks: []string{
			"`auto` applies workspace patches without asking: kept from it; launched with approval_policy untrusted, it asks for every edit and every command not known to be read-only",
			"inside the bridge's OS sandbox its own sandbox cannot start: it runs with sandbox_mode danger-full-access there",
			"its only reject option, `abort`, ends the turn",
		},
	},
	{
		Name: "opencode", Family: FamilyOpenCode,
		AskingModes: []string{}, // its modes (build, plan) are agents, not approval modes
		// Its built-in agents: build (the ordinary one) and plan (a planning
		// agent). Both ask as OPENCODE_PERMISSION says; custom agents from
		// its config (which may allow everything) are not in this list.
		SelectModes:  []string{"build", "plan"},
		PlanMode:     "plan",
		LaunchEnv:    map[string]string{"OPENCODE_PERMISSION": openCodeAsk},
		RejectAborts: true,
		// Read from ~/.config/opencode at start: agents (one may redefine
		// build with permission allow), plugins and custom tools (code it
		// runs), commands, modes, skills, global instructions, in the
		// singular and plural spellings it accepts. Its config files are
		// protected places of the table (policy.Places).
		ConfigPlaces: openCodeConfigPlaces(),
		Quirks: []string{
			"asks only where its permission config says ask; the bridge sets OPENCODE_PERMISSION",
			"its only reject option, `reject`, ends the turn (its ACP adapter passes no feedback)",
			"its session modes are its agents (build, plan): the editor picks them in the config option `acp-bridge/agent`",
		},
	},
	{
		Name: "goose", Family: FamilyGoose,
		AskingModes: []string{"approve"},
		BypassModes: []string{"auto", "smart_approve", "chat"},
		LaunchEnv:   map[string]string{"GOOSE_MODE": "approve"},
		Quirks:      []string{"runs in `auto` (no approval) unless GOOSE_MODE or its config says otherwise"},
	},
	{
		Name: "kimi", Family: FamilyKimi,
		AskingModes:  []string{"default"},
		ForwardModes: []string{"plan"},
		BypassModes:  []string{"yolo"},
		Quirks:       []string{"permission requests carry only a title"},
	},
}

// Generic is the profile of any other agent: a mode called default, ask or
// approve is taken as asking; plan may be forwarded; nothing else is.
var Generic = &Profile{
	Name: "generic", Family: FamilyGeneric,
	AskingModes:  []string{"default", "ask", "approve", "manual"},
	ForwardModes: []string{"plan", "read-only"},
	BypassModes:  []string{"auto", "acceptEdits", "bypassPermissions", "yolo", "autoEdit", "auto-edit", "full-access", "dontAsk"},
}

// Profiles lists every profile of a known family, then Generic.
func Profiles() []*Profile { return append(slices.Clone(profiles), Generic) }

// ProfileByName returns the profile named name (a family name also names
// its profile), or nil.
func ProfileByName(name string) *Profile {
	for _, p := range Profiles() {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// DetectProfile picks the profile of an agent. fromLaunch reports that it
// was recognised from the command or its arguments: only then are the
// profile's launch flags safe to add (an agent merely named "gemini" may be
// a wrapper that knows none of them). configured is the agents.X.family
// setting: it picks the profile when the launch does not name one of the
// same family.
func DetectProfile(agentName, configured, command string, args []string) (p *Profile, fromLaunch bool) {
	cands := launchCandidates(command, args)
	var bases, paths []string
	for _, c := range cands {
		bases = append(bases, launchBase(c))
		paths = append(paths, strings.ToLower(strings.ReplaceAll(c, `\`, "/")))
	}
	fromCmd := profileMatching(bases)
	if fromCmd == nil && len(paths) > 1 {
		// whole paths: the script's before the interpreter's, whose
		// directory may be anything (/home/claude/bin/node)
		fromCmd = profileMatching(paths[1:])
	}
	if fromCmd == nil {
		fromCmd = profileMatching(paths[:1])
	}
	if configured != "" {
		if fromCmd != nil && string(fromCmd.Family) == configured {
			return fromCmd, true
		}
		if p := ProfileByName(configured); p != nil {
			return p, false
		}
		return Generic, false
	}
	if fromCmd != nil {
		return fromCmd, true
	}
	if p := profileMatching([]string{strings.ToLower(agentName)}); p != nil {
		return p, false
	}
	return Generic, false
}

func launchCandidates(command string, args []string) []string {
	out := []string{command}
	for _, a := range args {
		if a != "" && !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// profileMatching returns the profile whose marker the first matching
// string contains; markers are tried in order for each string.
func profileMatching(ss []string) *Profile {
	for _, s := range ss {
		if s == "" {
			continue
		}
		if strings.Contains(s, "qwen") {
			return ProfileByName("qwen")
		}
		if f, ok := matchFamily(s); ok {
			return ProfileByName(string(f))
		}
	}
	return nil
}

// openCodeConfigPlaces are OpenCode's directories of agents, plugins,
// tools, commands, modes and skills (both spellings) and its global
// instructions.
func openCodeConfigPlaces() []ConfigPlace {
	out := []ConfigPlace{{Path: ".config/opencode/AGENTS.md", What: "OpenCode's global instructions"}}
	for _, d := range []struct{ name, what string }{
		{"agent", "OpenCode's agents (their permissions)"},
		{"plugin", "OpenCode's plugins (code run at start)"},
		{"tool", "OpenCode's custom tools (code)"},
		{"command", "OpenCode's commands"},
		{"mode", "OpenCode's modes (their permissions)"},
		{"skill", "OpenCode's skills"},
	} {
		for _, n := range []string{d.name, d.name + "s"} {
			out = append(out, ConfigPlace{Path: ".config/opencode/" + n, Dir: true, What: d.what})
		}
	}
	return out
}
