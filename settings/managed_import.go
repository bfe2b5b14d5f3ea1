package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Organisations' existing managed files, read as they are into the managed
// tier (docs/org.md): Claude Code's managed-settings.json (read from its
// documented system path automatically) and GitHub Copilot's managed
// settings (read when the managed tier names the file, key
// copilotManagedSettings). Their permission keys apply to every agent
// behind the bridge. Keys that mean nothing here are reported in
// Managed.Notes, never silently dropped; a rule that cannot be translated
// or can never take effect fails the tier closed, like an invalid file.

// keyCopilotFile names a Copilot managed-settings file in acp-bridge's own
// managed file.
const keyCopilotFile = "copilotManagedSettings"

// ClaudeManagedPaths returns Claude Code's managed file and drop-in
// directory on goos (Claude Code's documented places).
func ClaudeManagedPaths(goos string) (file, dropins string) {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json", "/Library/Application Support/ClaudeCode/managed-settings.d"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`, `C:\Program Files\ClaudeCode\managed-settings.d`
	default:
		return "/etc/claude-code/managed-settings.json", "/etc/claude-code/managed-settings.d"
	}
}

// claudeKnown are Claude Code settings keys that are Claude's own business
// (model, hooks, env, ...): reported as not applied by acp-bridge.
var claudePermissionKeys = map[string]bool{
	"allow": true, "ask": true, "deny": true, "defaultMode": true,
	"disableBypassPermissionsMode": true, "additionalDirectories": true,
}

// vendorRules is what an imported file says, in acp-bridge's terms.
type vendorRules struct {
	allow, ask, deny []string
	defaultMode      string
	disableBypass    bool
	managedOnly      bool
	sandboxOn        bool
	allowDomains     []string
	additionalDirs   []string
	notes            []string
	problems         []string
}

// readClaudeManaged reads Claude Code's managed file and its drop-ins
// (*.json, name order). Absent: nil.
func readClaudeManaged(file, dropins string) (*managedTier, bool) {
	var files []string
	if _, err := os.Lstat(file); err == nil {
		files = append(files, file)
	}
	if ents, err := os.ReadDir(dropins); err == nil {
		var names []string
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			files = append(files, filepath.Join(dropins, n))
		}
	}
	if len(files) == 0 {
		return nil, false
	}
	t := &managedTier{}
	for _, f := range files {
		t.importFile(f, "Claude Code", parseClaude)
	}
	return t, true
}

// importFile reads one vendor file into the tier.
func (t *managedTier) importFile(path, vendor string, parse func([]byte) (vendorRules, error)) {
	t.info.Files = append(t.info.Files, path)
	fail := func(msg string) {
		t.info.Problems = append(t.info.Problems, &FieldError{Source: path, Msg: vendor + " managed settings: " + msg})
	}
	if err := checkAdminOnly(path); err != nil {
		fail(err.Error())
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fail(fmt.Sprintf("cannot read: %v", err))
		return
	}
	vr, err := parse(data)
	if err != nil {
		fail(err.Error())
		return
	}
	for _, p := range vr.problems {
		fail(p)
	}
	for _, n := range vr.notes {
		t.info.Notes = append(t.info.Notes, path+": "+n)
	}
	l := &layer{name: LayerManaged, file: path, root: filepath.Dir(path), source: path,
		where: func([]string) (string, int) { return path, 0 }}
	for _, list := range []struct {
		name  string
		rules []string
	}{{ListAllow, vr.allow}, {ListAsk, vr.ask}, {ListDeny, vr.deny}} {
		for _, r := range list.rules {
			l.rules = append(l.rules, ruleEntry{list: list.name, text: r})
		}
	}
	if vr.defaultMode != "" {
		m, ok := NormalizeMode(vr.defaultMode)
		if !ok {
			fail(fmt.Sprintf("permissions.defaultMode %q is not a mode", vr.defaultMode))
			return
		}
		if vr.disableBypass && m == ModeBypass {
			fail("permissions.defaultMode bypassPermissions contradicts disableBypassPermissionsMode")
			return
		}
		l.defaultMode = &m
		t.info.ModeFloor = m
	}
	t.info.DisableBypass = t.info.DisableBypass || vr.disableBypass
	t.info.ManagedRulesOnly = t.info.ManagedRulesOnly || vr.managedOnly
	if vr.sandboxOn {
		yes := true
		l.sandbox.enabled = &yes
		t.sandboxForced = true
	}
	if vr.allowDomains != nil {
		l.sandbox.allowDomains = vr.allowDomains
		t.domainsSet = true
	}
	l.additionalDirs = vr.additionalDirs
	if t.layer == nil {
		t.layer = l
	} else {
		t.layer = mergeManaged(t.layer, l)
	}
}

// checkRules fails the rules that can never take effect: a managed deny
// that is not enforced as written is a hole the organisation does not know of.
func checkRules(vr *vendorRules) {
	for _, list := range []struct {
		name  string
		rules []string
	}{{ListAllow, vr.allow}, {ListAsk, vr.ask}, {ListDeny, vr.deny}} {
		for _, r := range list.rules {
			if err := policy.CheckRule(list.name, r); err != nil {
				vr.problems = append(vr.problems, fmt.Sprintf("permissions.%s rule %q cannot be enforced by acp-bridge: %v", list.name, r, err))
			}
		}
	}
}

func parseClaude(data []byte) (vendorRules, error) {
	var vr vendorRules
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return vr, fmt.Errorf("cannot parse json: %w", err)
	}
	for _, k := range sortedKeys(doc) {
		raw := doc[k]
		switch k {
		case "permissions":
			var p map[string]json.RawMessage
			if err := json.Unmarshal(raw, &p); err != nil {
				vr.problems = append(vr.problems, "permissions: must be an object")
				continue
			}
			for _, pk := range sortedKeys(p) {
				if !claudePermissionKeys[pk] {
					vr.notes = append(vr.notes, "permissions."+pk+" is Claude Code's own and not applied by acp-bridge")
				}
			}
			strs := func(key string) []string {
				var out []string
				if v, ok := p[key]; ok && json.Unmarshal(v, &out) != nil {
					vr.problems = append(vr.problems, "permissions."+key+": must be a list of strings")
				}
				return out
			}
			vr.allow, vr.ask, vr.deny = strs("allow"), strs("ask"), strs("deny")
			vr.additionalDirs = strs("additionalDirectories")
			if v, ok := p["defaultMode"]; ok && json.Unmarshal(v, &vr.defaultMode) != nil {
				vr.problems = append(vr.problems, "permissions.defaultMode: must be a string")
			}
			if v, ok := p["disableBypassPermissionsMode"]; ok {
				var s string
				if json.Unmarshal(v, &s) != nil || s != "disable" {
					vr.problems = append(vr.problems, `permissions.disableBypassPermissionsMode: the only value is "disable"`)
				}
				vr.disableBypass = true
			}
		case "allowManagedPermissionRulesOnly":
			if json.Unmarshal(raw, &vr.managedOnly) != nil {
				vr.problems = append(vr.problems, "allowManagedPermissionRulesOnly: must be true or false")
			}
		case "sandbox":
			var sb struct {
				Enabled *bool `json:"enabled"`
				Network *struct {
					AllowedDomains []string `json:"allowedDomains"`
				} `json:"network"`
			}
			if json.Unmarshal(raw, &sb) != nil {
				vr.problems = append(vr.problems, "sandbox: must be an object")
				continue
			}
			if sb.Enabled != nil && *sb.Enabled {
				vr.sandboxOn = true
			}
			if sb.Network != nil && sb.Network.AllowedDomains != nil {
				vr.allowDomains = append([]string{}, sb.Network.AllowedDomains...)
			}
			vr.notes = append(vr.notes, "sandbox: only enabled and network.allowedDomains are applied by acp-bridge (its own sandbox, docs/sandbox.md)")
		default:
			vr.notes = append(vr.notes, k+" is Claude Code's own and not applied by acp-bridge")
		}
	}
	checkRules(&vr)
	return vr, nil
}

// copilotRuleRE is one Copilot managed-settings selector: Shell(...),
// Read(...), Edit(...), Domain(...), or a bare one of them.
var copilotRuleRE = regexp.MustCompile(`^(Shell|Read|Edit|Domain)(?:\((.*)\))?$`)

// copilotRule translates a Copilot selector into acp-bridge's grammar.
func copilotRule(s string) (string, error) {
	m := copilotRuleRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", fmt.Errorf("%q is not a Shell(), Read(), Edit() or Domain() selector", s)
	}
	tool, arg := m[1], m[2]
	switch tool {
	case "Shell":
		if arg == "" {
			return "Bash", nil
		}
		return "Bash(" + arg + ")", nil
	case "Domain":
		if arg == "" {
			return "WebFetch", nil
		}
		return "WebFetch(domain:" + arg + ")", nil
	default:
		if arg == "" {
			return tool, nil
		}
		return tool + "(" + arg + ")", nil
	}
}

func parseCopilot(data []byte) (vendorRules, error) {
	var vr vendorRules
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return vr, fmt.Errorf("cannot parse json: %w", err)
	}
	for _, k := range sortedKeys(doc) {
		if k != "permissions" {
			vr.notes = append(vr.notes, k+" is Copilot's own and not applied by acp-bridge")
			continue
		}
		var p map[string]json.RawMessage
		if err := json.Unmarshal(doc[k], &p); err != nil {
			vr.problems = append(vr.problems, "permissions: must be an object")
			continue
		}
		for _, pk := range sortedKeys(p) {
			var dst *[]string
			switch pk {
			case "allow":
				dst = &vr.allow
			case "ask":
				dst = &vr.ask
			case "deny":
				dst = &vr.deny
			case "disableBypassPermissionsMode":
				var s string
				if json.Unmarshal(p[pk], &s) != nil || s != "disable" {
					vr.problems = append(vr.problems, `permissions.disableBypassPermissionsMode: the only value is "disable"`)
				}
				vr.disableBypass = true
				continue
			default:
				vr.problems = append(vr.problems, "permissions."+pk+" is not a key of Copilot's managed settings")
				continue
			}
			var sel []string
			if json.Unmarshal(p[pk], &sel) != nil {
				vr.problems = append(vr.problems, "permissions."+pk+": must be a list of strings")
				continue
			}
			for _, s := range sel {
				r, err := copilotRule(s)
				if err != nil {
					vr.problems = append(vr.problems, "permissions."+pk+": "+err.Error())
					continue
				}
				*dst = append(*dst, r)
			}
		}
	}
	checkRules(&vr)
	return vr, nil
}
