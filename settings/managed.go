package settings

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/acp-bridge/acp-bridge/policy"
)

// LayerManaged is the managed tier: the organisation's settings, read from
// a system path only an administrator can write, above every other layer
// (docs/org.md). It can only narrow.
const LayerManaged = "managed"

// Managed-only keys (docs/org.md).
const (
	keyDisableBypass    = "disableBypassPermissionsMode"
	keyManagedRulesOnly = "allowManagedPermissionRulesOnly"
	keyAllowedAgents    = "allowedAgents"
)

// ManagedPaths returns the managed file and its drop-in directory on the
// platform goos. They are fixed: no flag, variable or lower file moves them.
func ManagedPaths(goos string) (file, dropins string) {
	var dir string
	switch goos {
	case "darwin":
		dir = "/Library/Application Support/acp-bridge"
	case "windows":
		dir = `C:\ProgramData\acp-bridge`
	default:
		dir = "/etc/acp-bridge"
	}
	join := filepath.Join
	if goos == "windows" {
		join = func(a ...string) string { return strings.Join(a, `\`) }
	}
	return join(dir, "managed-settings.yaml"), join(dir, "managed-settings.d")
}

// Managed is what the managed tier says, as the Snapshot applies it.
type Managed struct {
	// Files are the managed files read, in the order they apply.
	Files []string `json:"files,omitempty"`
	// Problems: a managed file that cannot be read, parsed or trusted (or
	// names an unknown key) fails closed: no agent starts while any is
	// listed (AgentAllowed).
	Problems []*FieldError `json:"-"`
	// DisableBypass: bypassPermissions cannot be chosen anywhere.
	DisableBypass bool `json:"disableBypassPermissionsMode,omitempty"`
	// ManagedRulesOnly: only the managed tier's allow rules count.
	ManagedRulesOnly bool `json:"allowManagedPermissionRulesOnly,omitempty"`
	// AllowedAgents, when set, are the agent commands (full path, or base
	// name) that may start.
	AllowedAgents []string `json:"allowedAgents,omitempty"`
	// ModeFloor is the managed permissions.defaultMode: no session, agent
	// or layer may use a looser mode.
	ModeFloor string `json:"modeFloor,omitempty"`
	// Ignored are the lower layers' settings the tier overrides.
	Ignored []IgnoredSetting `json:"ignored,omitempty"`
	// OPA is the organisation's policy engine (a stage after the rules,
	// docs/org.md "OPA"), nil when the tier names none.
	OPA *OPAConfig `json:"opa,omitempty"`
	// Notes are keys of imported vendor files (Claude Code's, Copilot's)
	// that acp-bridge does not apply, each with its file.
	Notes []string `json:"notes,omitempty"`
}

// Active reports whether a managed tier is in place (read, or broken).
func (m *Managed) Active() bool { return m != nil && (len(m.Files) > 0 || len(m.Problems) > 0) }

// ProblemText is every problem of the managed files, one per line.
func (m *Managed) ProblemText() string {
	var b strings.Builder
	for i, p := range m.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// AgentAllowed returns nil if the agent may start under the managed tier,
// else why not (naming the file).
func (m *Managed) AgentAllowed(a Agent) error {
	if m == nil {
		return nil
	}
	if len(m.Problems) > 0 {
		return fmt.Errorf("no agent starts while the managed settings are invalid: %s", m.ProblemText())
	}
	if m.AllowedAgents == nil {
		return nil
	}
	// By the command only: an agent's name and family are the person's
	// words, and would let any program start under an allowed name.
	for _, p := range m.AllowedAgents {
		if p == a.Command || (!strings.ContainsAny(p, `/\`) && p == filepath.Base(a.Command)) {
			return nil
		}
	}
	return fmt.Errorf("agent %q's command %s is not in the managed settings' allowedAgents %q (%s)",
		a.Name, a.Command, m.AllowedAgents, strings.Join(m.Files, ", "))
}

// ModeAllowed returns nil if mode (canonical) may be used under the
// managed tier, else why not.
func (m *Managed) ModeAllowed(mode string) error {
	if m == nil {
		return nil
	}
	if m.DisableBypass && mode == ModeBypass {
		return fmt.Errorf("bypassPermissions is disabled by the managed settings (%s: %s)", strings.Join(m.Files, ", "), keyDisableBypass)
	}
	if m.ModeFloor != "" && !StricterOrEqualMode(mode, m.ModeFloor) {
		return fmt.Errorf("%s mode is looser than %s, the managed settings' permissions.defaultMode (%s)", mode, m.ModeFloor, strings.Join(m.Files, ", "))
	}
	return nil
}

// managedTier is the managed files read and merged into one layer.
type managedTier struct {
	layer         *layer
	info          Managed
	writeSet      bool // sandbox.allowWrite given: lower layers' lists do not apply
	domainsSet    bool // sandbox.allowDomains given
	sandboxForced bool // sandbox.enabled: true
}

// readManaged reads the managed file and its drop-ins (*.yaml, *.yml,
// *.json, *.toml, in name order). Each file must be owned by root and
// writable by nobody else (on Unix), as must the directories holding it:
// otherwise a person or an agent could loosen it.
func readManaged(file, dropins string) *managedTier {
	t := &managedTier{}
	var files []string
	if _, err := os.Lstat(file); err == nil {
		files = append(files, file)
	} else if !os.IsNotExist(err) {
		t.info.Problems = append(t.info.Problems, &FieldError{Source: file, Msg: fmt.Sprintf("cannot read: %v", err)})
	}
	if ents, err := os.ReadDir(dropins); err == nil {
		var names []string
		for _, e := range ents {
			if _, err := formatOf(e.Name()); err == nil {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			files = append(files, filepath.Join(dropins, n))
		}
	} else if !os.IsNotExist(err) {
		t.info.Problems = append(t.info.Problems, &FieldError{Source: dropins, Msg: fmt.Sprintf("cannot read: %v", err)})
	}
	for _, f := range files {
		t.info.Files = append(t.info.Files, f)
		if err := checkAdminOnly(f); err != nil {
			t.info.Problems = append(t.info.Problems, &FieldError{Source: f, Msg: err.Error()})
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.info.Problems = append(t.info.Problems, &FieldError{Source: f, Msg: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		t.add(f, data)
	}
	t.checkTelemetry()
	if len(t.info.Problems) > 0 {
		t.layer = nil // fails closed: AgentAllowed refuses every agent
	}
	return t
}

// checkTelemetry: a tier that requires the decision events must say where
// they go, or the person's OTEL_* variables would choose for it.
func (t *managedTier) checkTelemetry() {
	if t.layer == nil {
		return
	}
	tl := t.layer.telemetry
	if tl.enabled != nil && *tl.enabled && tl.endpoint == nil {
		t.info.Problems = append(t.info.Problems, &FieldError{Source: t.layer.source, Key: "telemetry.endpoint",
			Msg: "telemetry.enabled: true in the managed settings needs telemetry.endpoint there too"})
	}
}

// add decodes one managed file over what the earlier ones said.
func (t *managedTier) add(path string, data []byte) {
	raw, err := decodeFile(path, data)
	if err != nil {
		t.info.Problems = append(t.info.Problems, &FieldError{Source: path, Msg: err.Error()})
		return
	}
	l := &layer{name: LayerManaged, file: path, root: filepath.Dir(path), source: path}
	where := locatorFor(path, data)
	l.where = where
	d := &decoder{where: where}
	if v, ok := raw[keyDisableBypass]; ok {
		if b, ok := d.boolean([]string{keyDisableBypass}, v); ok && b {
			t.info.DisableBypass = true
		}
		delete(raw, keyDisableBypass)
	}
	if v, ok := raw[keyManagedRulesOnly]; ok {
		if b, ok := d.boolean([]string{keyManagedRulesOnly}, v); ok && b {
			t.info.ManagedRulesOnly = true
		}
		delete(raw, keyManagedRulesOnly)
	}
	if v, ok := raw[keyAllowedAgents]; ok {
		if l, ok := d.strList([]string{keyAllowedAgents}, v); ok {
			if t.info.AllowedAgents == nil {
				t.info.AllowedAgents = []string{}
			}
			t.info.AllowedAgents = append(t.info.AllowedAgents, l...)
		}
		delete(raw, keyAllowedAgents)
	}
	if v, ok := raw[keyOPA]; ok {
		if c := d.opa([]string{keyOPA}, v); c != nil {
			t.info.OPA = c
		}
		delete(raw, keyOPA)
	}
	var copilot string
	if v, ok := raw[keyCopilotFile]; ok {
		if p, ok := d.str([]string{keyCopilotFile}, v); ok {
			if !filepath.IsAbs(p) {
				d.errorf([]string{keyCopilotFile}, "must be an absolute path")
			} else {
				copilot = p
			}
		}
		delete(raw, keyCopilotFile)
	}
	if sb, ok := raw["sandbox"].(map[string]any); ok {
		_, w := sb["allowWrite"]
		_, dm := sb["allowDomains"]
		t.writeSet = t.writeSet || w
		t.domainsSet = t.domainsSet || dm
		if e, ok := sb["enabled"].(bool); ok && e {
			t.sandboxForced = true
		}
	}
	problems := append(d.problems, decodeLayer(l, raw, where)...)
	if len(problems) > 0 {
		t.info.Problems = append(t.info.Problems, problems...)
		return
	}
	for _, r := range l.rules {
		if err := policy.CheckRule(r.list, r.text); err != nil {
			t.info.Problems = append(t.info.Problems, &FieldError{Source: path, Key: "permissions." + r.list,
				Msg: fmt.Sprintf("rule %q cannot be enforced as written: %v", r.text, err)})
		}
	}
	if l.sandbox.enabled != nil && !*l.sandbox.enabled {
		t.info.Problems = append(t.info.Problems, &FieldError{Source: path, Key: "sandbox.enabled",
			Msg: "the managed tier can only narrow: it may require the sandbox, not switch it off"})
		return
	}
	if l.defaultMode != nil {
		if t.info.DisableBypass && *l.defaultMode == ModeBypass {
			t.info.Problems = append(t.info.Problems, &FieldError{Source: path, Key: "permissions.defaultMode",
				Msg: "bypassPermissions contradicts " + keyDisableBypass})
			return
		}
		t.info.ModeFloor = *l.defaultMode
	}
	if t.layer == nil {
		t.layer = l
	} else {
		t.layer = mergeManaged(t.layer, l)
	}
	if copilot != "" {
		t.importFile(copilot, "Copilot", parseCopilot)
	}
}

// absorb folds another tier (Claude Code's file, read after acp-bridge's
// own) into t.
func (t *managedTier) absorb(o *managedTier) {
	if o == nil {
		return
	}
	t.info.Files = append(t.info.Files, o.info.Files...)
	t.info.Problems = append(t.info.Problems, o.info.Problems...)
	t.info.Notes = append(t.info.Notes, o.info.Notes...)
	t.info.DisableBypass = t.info.DisableBypass || o.info.DisableBypass
	t.info.ManagedRulesOnly = t.info.ManagedRulesOnly || o.info.ManagedRulesOnly
	if o.info.OPA != nil {
		t.info.OPA = o.info.OPA
	}
	if o.info.AllowedAgents != nil {
		t.info.AllowedAgents = append(append([]string{}, t.info.AllowedAgents...), o.info.AllowedAgents...)
	}
	if o.info.ModeFloor != "" && (t.info.ModeFloor == "" || StricterOrEqualMode(o.info.ModeFloor, t.info.ModeFloor)) {
		t.info.ModeFloor = o.info.ModeFloor
	}
	t.writeSet = t.writeSet || o.writeSet
	t.domainsSet = t.domainsSet || o.domainsSet
	t.sandboxForced = t.sandboxForced || o.sandboxForced
	switch {
	case o.layer == nil:
	case t.layer == nil:
		t.layer = o.layer
	default:
		floor := t.info.ModeFloor
		t.layer = mergeManaged(t.layer, o.layer)
		if floor != "" {
			t.layer.defaultMode = &floor // the stricter of the two files' modes
		}
	}
	if len(t.info.Problems) > 0 {
		t.layer = nil
	}
}

// mergeManaged folds a later managed file over an earlier one: scalars from
// the later, lists concatenated, agents merged by the general merge.
func mergeManaged(a, b *layer) *layer {
	out := *a
	out.file, out.where, out.source = b.file, b.where, b.source
	pick := func(dst **string, v *string) {
		if v != nil {
			*dst = v
		}
	}
	pick(&out.defaultAgent, b.defaultAgent)
	pick(&out.defaultMode, b.defaultMode)
	pick(&out.timeoutOutcome, b.timeoutOutcome)
	pick(&out.auditPath, b.auditPath)
	pick(&out.logLevel, b.logLevel)
	pick(&out.logFile, b.logFile)
	pick(&out.sandbox.onUnavailable, b.sandbox.onUnavailable)
	pick(&out.sandbox.network, b.sandbox.network)
	if b.timeoutSeconds != nil {
		out.timeoutSeconds = b.timeoutSeconds
	}
	if b.auditMaxSizeMB != nil {
		out.auditMaxSizeMB = b.auditMaxSizeMB
	}
	if b.sandbox.enabled != nil {
		out.sandbox.enabled = b.sandbox.enabled
	}
	if b.cancelUnasked != nil {
		out.cancelUnasked = b.cancelUnasked
	}
	pick(&out.telemetry.endpoint, b.telemetry.endpoint)
	pick(&out.telemetry.protocol, b.telemetry.protocol)
	if b.telemetry.enabled != nil {
		out.telemetry.enabled = b.telemetry.enabled
	}
	if b.telemetry.logInput != nil {
		out.telemetry.logInput = b.telemetry.logInput
	}
	if b.telemetry.headers != nil {
		out.telemetry.headers = b.telemetry.headers
	}
	out.rules = append(slices.Clip(a.rules), b.rules...)
	out.hooks = append(slices.Clip(a.hooks), b.hooks...)
	out.additionalDirs = append(slices.Clip(a.additionalDirs), b.additionalDirs...)
	out.sandbox.allowWrite = append(slices.Clip(a.sandbox.allowWrite), b.sandbox.allowWrite...)
	out.sandbox.allowDomains = append(slices.Clip(a.sandbox.allowDomains), b.sandbox.allowDomains...)
	out.agents = map[string]*agentLayer{}
	for n, al := range a.agents {
		out.agents[n] = al
	}
	for n, al := range b.agents {
		if prev, ok := out.agents[n]; ok {
			merged := *prev
			if al.command != nil {
				merged.command = al.command
			}
			if al.argsSet {
				merged.args, merged.argsSet = al.args, true
			}
			merged.rules = append(slices.Clip(prev.rules), al.rules...)
			out.agents[n] = &merged
			continue
		}
		out.agents[n] = al
	}
	return &out
}

// managedOwner is the only owner a managed file and its directories may
// have: root. (A variable only so that this package's tests can run as
// another user; nothing outside the package can change it.)
var managedOwner uint32 = 0

// checkAdminOnly refuses a managed file that someone other than root could
// have written: owned by another user, or writable by group or others, it
// or any directory above it.
func checkAdminOnly(path string) error {
	if runtime.GOOS == "windows" {
		return nil // ACLs: documented in docs/org.md
	}
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("cannot read: %w", err)
		}
		if p == path && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("is a symbolic link: a managed file must be a regular file")
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != managedOwner {
			return fmt.Errorf("%s is owned by uid %d: a managed file and its directories must be owned by root", p, st.Uid)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("%s is writable by group or others (mode %v): only root may write a managed file and its directories", p, fi.Mode().Perm())
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// applyManaged narrows the merged configuration c (every layer, the
// managed one heaviest) to the managed tier's floor, and records what of
// the lower layers it overrides. lower is the merge without the managed
// tier: where a lower layer chose something stricter than the managed
// value, the stricter stays.
func applyManaged(c *Config, lower Config, rules []Rule, t *managedTier) []Rule {
	m := &t.info
	ml := t.layer
	ignore := func(key, value, reason string) {
		m.Ignored = append(m.Ignored, IgnoredSetting{Key: key, File: strings.Join(m.Files, ", "), Reason: reason, Value: value})
	}
	floorMode := func(key, mode string) string {
		if mode == "" {
			return mode
		}
		if err := m.ModeAllowed(mode); err != nil {
			floor := m.ModeFloor
			if floor == "" {
				floor = ModeDefault
			}
			ignore(key, mode, err.Error())
			return floor
		}
		return mode
	}
	// Global scalars: the stricter of the lower layers' and the tier's.
	if ml.defaultMode != nil && StricterOrEqualMode(lower.Permissions.DefaultMode, *ml.defaultMode) {
		c.Permissions.DefaultMode = lower.Permissions.DefaultMode
	}
	c.Permissions.DefaultMode = floorMode("permissions.defaultMode", c.Permissions.DefaultMode)
	if ml.sandbox.network != nil && stricterOrEqualNetwork(lower.Sandbox.Network, *ml.sandbox.network) {
		c.Sandbox.Network = lower.Sandbox.Network
	}
	if ml.sandbox.onUnavailable != nil && lower.Sandbox.OnUnavailable == SandboxRefuse {
		c.Sandbox.OnUnavailable = SandboxRefuse
	}
	if ml.timeoutOutcome != nil && stricterOrEqualOutcome(lower.Approvals.TimeoutOutcome, *ml.timeoutOutcome) {
		c.Approvals.TimeoutOutcome = lower.Approvals.TimeoutOutcome
	}
	if ml.timeoutSeconds != nil && lower.Approvals.Timeout < c.Approvals.Timeout {
		c.Approvals.Timeout = lower.Approvals.Timeout
	}
	if tl := ml.telemetry; tl.enabled != nil && *tl.enabled {
		// Required decision events: where they go is the tier's alone.
		c.Telemetry.Managed = true
		c.Telemetry.Enabled = true
		if lower.Telemetry.Endpoint != "" && lower.Telemetry.Endpoint != *tl.endpoint {
			ignore("telemetry.endpoint", lower.Telemetry.Endpoint, "the managed settings fix telemetry.endpoint")
		}
		c.Telemetry.Protocol = ""
		if tl.protocol != nil {
			c.Telemetry.Protocol = *tl.protocol
		}
		if lower.Telemetry.Protocol != "" && lower.Telemetry.Protocol != c.Telemetry.Protocol {
			ignore("telemetry.protocol", lower.Telemetry.Protocol, "the managed settings fix telemetry.protocol")
		}
		c.Telemetry.Headers = maps.Clone(tl.headers)
		if len(lower.Telemetry.Headers) > 0 {
			ignore("telemetry.headers", strings.Join(sortedKeys(lower.Telemetry.Headers), ", "), "the managed settings fix telemetry.headers")
		}
	}
	if t.sandboxForced && !lower.Sandbox.Enabled {
		ignore("sandbox.enabled", "false", "the managed settings require the sandbox")
	}
	for _, name := range sortedKeys(c.Agents) {
		a := c.Agents[name]
		a.Mode = floorMode("agents."+name+".mode", a.Mode)
		if a.BypassPermissions {
			if err := m.ModeAllowed(ModeBypass); err != nil {
				ignore("agents."+name+".bypassPermissions", "true", err.Error())
				a.BypassPermissions = false
			}
		}
		if t.sandboxForced && a.Sandbox.Enabled != nil && !*a.Sandbox.Enabled {
			ignore("agents."+name+".sandbox.enabled", "false", "the managed settings require the sandbox")
			yes := true
			a.Sandbox.Enabled = &yes
		}
		if a.Sandbox.Network != "" && ml.sandbox.network != nil && !stricterOrEqualNetwork(a.Sandbox.Network, *ml.sandbox.network) {
			ignore("agents."+name+".sandbox.network", a.Sandbox.Network, "looser than the managed settings' sandbox.network "+*ml.sandbox.network)
			a.Sandbox.Network = ""
		}
		if t.writeSet && len(a.Sandbox.AllowWrite) > 0 {
			ignore("agents."+name+".sandbox.allowWrite", strings.Join(a.Sandbox.AllowWrite, ", "), "the managed settings fix sandbox.allowWrite")
			a.Sandbox.AllowWrite = nil
		}
		if t.domainsSet && len(a.Sandbox.AllowDomains) > 0 {
			ignore("agents."+name+".sandbox.allowDomains", strings.Join(a.Sandbox.AllowDomains, ", "), "the managed settings fix sandbox.allowDomains")
			a.Sandbox.AllowDomains = nil
		}
		if m.ManagedRulesOnly {
			a.Rules = slices.DeleteFunc(slices.Clone(a.Rules), func(r Rule) bool {
				if r.List == ListAllow && r.Layer != LayerManaged {
					ignore("agents."+name+".permissions.allow", r.Text, "only the managed settings' allow rules count ("+keyManagedRulesOnly+")")
					return true
				}
				return false
			})
		}
		c.Agents[name] = a
	}
	if t.writeSet {
		c.Sandbox.AllowWrite = append([]string(nil), ml.sandbox.allowWrite...)
		// additionalDirectories are writable trees too (the sandbox binds
		// them writable): fixed by the same key.
		for _, d := range c.Permissions.AdditionalDirectories {
			if !slices.Contains(ml.additionalDirs, d) {
				ignore("permissions.additionalDirectories", d, "the managed settings fix the writable trees (sandbox.allowWrite)")
			}
		}
		c.Permissions.AdditionalDirectories = append([]string(nil), ml.additionalDirs...)
	}
	if t.domainsSet {
		c.Sandbox.AllowDomains = append([]string(nil), ml.sandbox.allowDomains...)
	}
	if m.ManagedRulesOnly {
		rules = slices.DeleteFunc(rules, func(r Rule) bool {
			if r.List == ListAllow && r.Layer != LayerManaged {
				ignore("permissions.allow", r.Text, "only the managed settings' allow rules count ("+keyManagedRulesOnly+")")
				return true
			}
			return false
		})
	}
	return rules
}

// networkOrder is sandbox.network from strictest to loosest.
var networkOrder = []string{"none", "loopback", "domains", "all"}

func stricterOrEqualNetwork(w, t string) bool {
	return slices.Index(networkOrder, w) <= slices.Index(networkOrder, t)
}
