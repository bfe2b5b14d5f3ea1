package settings

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Known keys at each level of the schema, in documentation order.
var (
	topKeys       = []string{"defaultAgent", "agents", "permissions", "approvals", "audit", "log", "maxLineBytes", "startAgentsOnLaunch", "sandbox", "hooks", "telemetry"}
	permKeys      = []string{"defaultMode", "allow", "ask", "deny", "additionalDirectories", "cancelOnUnaskedDeny", "tellAgentDenials", "continueAfterDeny"}
	agentKeys     = []string{"command", "args", "env", "cwd", "family", "mode", "bypassPermissions", "startOnLaunch", "initTimeoutSeconds", "permissions", "sandbox"}
	agentPermKeys = []string{"allow", "ask", "deny"}
	approvalsKeys = []string{"timeoutSeconds", "timeoutOutcome"}
	auditKeys     = []string{"path", "maxSizeMB"}
	logKeys       = []string{"level", "file"}
	telemetryKeys = []string{"enabled", "endpoint", "protocol", "headers", "logInput"}
	sandboxKeys   = []string{"enabled", "onUnavailable", "network", "allowWrite", "allowDomains"}
	// agentSandboxKeys: onUnavailable is global only.
	agentSandboxKeys = []string{"enabled", "network", "allowWrite", "allowDomains"}
)

// leafKind is the type of a setting.
type leafKind int

const (
	kindString leafKind = iota
	kindInt
	kindBool
	kindStringList
	kindStringMap
)

// leaf is one setting, with its path below the top (or below agents.<name>).
type leaf struct {
	path string
	kind leafKind
}

// globalLeaves and agentLeaves list every setting, for the environment
// layer and the docs test.
var (
	globalLeaves = []leaf{
		{"defaultAgent", kindString},
		{"permissions.defaultMode", kindString},
		{"permissions.allow", kindStringList},
		{"permissions.ask", kindStringList},
		{"permissions.deny", kindStringList},
		{"permissions.additionalDirectories", kindStringList},
		{"permissions.cancelOnUnaskedDeny", kindBool},
		{"permissions.tellAgentDenials", kindBool},
		{"permissions.continueAfterDeny", kindBool},
		{"approvals.timeoutSeconds", kindInt},
		{"approvals.timeoutOutcome", kindString},
		{"audit.path", kindString},
		{"audit.maxSizeMB", kindInt},
		{"log.level", kindString},
		{"log.file", kindString},
		{"maxLineBytes", kindInt},
		{"startAgentsOnLaunch", kindBool},
		{"sandbox.enabled", kindBool},
		{"sandbox.onUnavailable", kindString},
		{"sandbox.network", kindString},
		{"sandbox.allowWrite", kindStringList},
		{"sandbox.allowDomains", kindStringList},
		{"telemetry.enabled", kindBool},
		{"telemetry.endpoint", kindString},
		{"telemetry.protocol", kindString},
		{"telemetry.headers", kindStringMap},
		{"telemetry.logInput", kindBool},
	}
	agentLeaves = []leaf{
		{"command", kindString},
		{"args", kindStringList},
		{"env", kindStringMap},
		{"cwd", kindString},
		{"family", kindString},
		{"mode", kindString},
		{"bypassPermissions", kindBool},
		{"startOnLaunch", kindBool},
		{"initTimeoutSeconds", kindInt},
		{"permissions.allow", kindStringList},
		{"permissions.ask", kindStringList},
		{"permissions.deny", kindStringList},
		{"sandbox.enabled", kindBool},
		{"sandbox.network", kindString},
		{"sandbox.allowWrite", kindStringList},
		{"sandbox.allowDomains", kindStringList},
	}
)

// domainPatternRE is a host name, "*." and a name, or an IP address.
var domainPatternRE = regexp.MustCompile(`^(\*\.)?[a-z0-9]([a-z0-9_.:-]*[a-z0-9])?$|^\[[0-9a-f:.]+\]$`)

// agentNameRE is what an agent name may look like: it becomes part of key
// paths and environment variable names.
var agentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// layer is one source of settings, decoded and checked field by field.
// Pointer fields are nil when the layer does not set them.
type layer struct {
	name   string  // LayerUser, …
	file   string  // "" unless read from a file
	root   string  // rule anchor and base of relative paths
	source string  // for messages when no finer source is known
	where  locator // source and line of a key path, for messages
	empty  bool    // read from an empty (or whitespace-only) file
	digest string  // ContentDigest of the file it was read from

	defaultAgent   *string
	agents         map[string]*agentLayer
	defaultMode    *string
	rules          []ruleEntry
	additionalDirs []string
	cancelUnasked  *bool
	tellDenials    *bool
	continueDeny   *bool
	timeoutSeconds *int
	timeoutOutcome *string
	auditPath      *string
	auditMaxSizeMB *int
	logLevel       *string
	logFile        *string
	maxLineBytes   *int
	startAgents    *bool
	sandbox        sandboxLayer
	hooks          []HookConfig
	telemetry      telemetryLayer
}

// telemetryLayer is what one layer says of the OpenTelemetry decision
// events (docs/settings.md "Telemetry"). headers is nil when unset.
type telemetryLayer struct {
	enabled  *bool
	endpoint *string
	protocol *string
	headers  map[string]string
	logInput *bool
}

// TelemetryProtocols are the OTLP transports telemetry.protocol may name.
var TelemetryProtocols = []string{"http/protobuf", "grpc"}

// sandboxLayer is what one layer says of the sandbox (globally or for one
// agent).
type sandboxLayer struct {
	enabled       *bool
	onUnavailable *string
	network       *string
	allowWrite    []string
	allowDomains  []string
}

// agentLayer is what one layer says about one agent.
type agentLayer struct {
	command       *string
	args          []string
	argsSet       bool
	env           map[string]string
	cwd           *string
	family        *string
	mode          *string
	bypass        *bool
	startOnLaunch *bool
	initTimeout   *int
	rules         []ruleEntry
	sandbox       sandboxLayer
}

type ruleEntry struct {
	list, text string
}

// locator finds the source and line of a key path, for messages.
type locator func(path []string) (source string, line int)

// decoder turns a raw map (from a file, the environment or the editor) into
// a layer, collecting every problem instead of stopping at the first.
type decoder struct {
	where    locator
	problems []*FieldError
}

func (d *decoder) errorf(path []string, format string, args ...any) {
	src, line := d.where(path)
	d.problems = append(d.problems, &FieldError{Source: src, Line: line, Key: keyString(path), Msg: fmt.Sprintf(format, args...)})
}

func child(path []string, k string) []string {
	out := make([]string, len(path), len(path)+1)
	copy(out, path)
	return append(out, k)
}

// typeName names a raw value's type for messages.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case int, int64, uint64, float64, int32, uint32, float32, uint, int16, int8, uint16, uint8:
		return fmt.Sprintf("number %v", v)
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// object checks v is a mapping and reports unknown keys (known == nil
// accepts any key). It returns the mapping with string keys.
func (d *decoder) object(path []string, v any, known []string) (map[string]any, bool) {
	var m map[string]any
	switch v := v.(type) {
	case map[string]any:
		m = v
	case map[any]any:
		m = make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = x
		}
	default:
		d.errorf(path, "must be an object, got %s", typeName(v))
		return nil, false
	}
	if known != nil {
		for _, k := range sortedKeys(m) {
			if slices.Contains(known, k) {
				continue
			}
			if s := suggest(k, known); s != "" {
				d.errorf(child(path, k), "unknown key (did you mean %s?)", s)
			} else {
				d.errorf(child(path, k), "unknown key (valid keys: %s)", strings.Join(known, ", "))
			}
		}
	}
	return m, true
}

func (d *decoder) str(path []string, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		d.errorf(path, "must be a string, got %s", typeName(v))
	}
	return s, ok
}

func (d *decoder) integer(path []string, v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		if n >= math.MinInt && n <= math.MaxInt {
			return int(n), true
		}
	case uint64:
		if n <= math.MaxInt {
			return int(n), true
		}
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int(n), true
		}
	}
	d.errorf(path, "must be an integer, got %s", typeName(v))
	return 0, false
}

func (d *decoder) boolean(path []string, v any) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		d.errorf(path, "must be true or false, got %s", typeName(v))
	}
	return b, ok
}

// strList decodes a list of strings; null is an empty list.
func (d *decoder) strList(path []string, v any) ([]string, bool) {
	if v == nil {
		return nil, true
	}
	l, ok := v.([]any)
	if !ok {
		d.errorf(path, "must be a list of strings, got %s", typeName(v))
		return nil, false
	}
	out := make([]string, 0, len(l))
	good := true
	for i, x := range l {
		s, ok := x.(string)
		if !ok {
			d.errorf(child(path, "["+strconv.Itoa(i)+"]"), "must be a string, got %s", typeName(x))
			good = false
			continue
		}
		out = append(out, s)
	}
	return out, good
}

// rules decodes one allow/ask/deny list. Rule grammar is the policy
// engine's business; here a rule only has to be a non-empty string.
func (d *decoder) rules(path []string, list string, v any) []ruleEntry {
	l, ok := d.strList(path, v)
	if !ok {
		return nil
	}
	out := make([]ruleEntry, 0, len(l))
	for i, s := range l {
		s = strings.TrimSpace(s)
		if s == "" {
			d.errorf(child(path, "["+strconv.Itoa(i)+"]"), "must not be empty")
			continue
		}
		out = append(out, ruleEntry{list: list, text: s})
	}
	return out
}

// strMap decodes agents.<name>.env: scalar values are turned into strings
// (YAML users write `DEBUG: 1`).
func (d *decoder) strMap(path []string, v any) (map[string]string, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := d.object(path, v, nil)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(m))
	good := true
	for _, k := range sortedKeys(m) {
		switch x := m[k].(type) {
		case string:
			out[k] = x
		case bool, int, int64, uint64:
			out[k] = fmt.Sprint(x)
		case float64:
			out[k] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			d.errorf(child(path, k), "must be a string, got %s", typeName(x))
			good = false
		}
	}
	return out, good
}

func (d *decoder) mode(path []string, v any) *string {
	s, ok := d.str(path, v)
	if !ok {
		return nil
	}
	m, ok := NormalizeMode(s)
	if !ok {
		d.errorf(path, "%s", modeProblem(s))
		return nil
	}
	return &m
}

func (d *decoder) oneOf(path []string, v any, valid []string) *string {
	s, ok := d.str(path, v)
	if !ok {
		return nil
	}
	if !slices.Contains(valid, s) {
		d.errorf(path, "%s", oneOfProblem(s, valid))
		return nil
	}
	return &s
}

// atLeast decodes an integer that must be >= lo.
func (d *decoder) atLeast(path []string, v any, lo int) *int {
	n, ok := d.integer(path, v)
	if !ok {
		return nil
	}
	if n < lo {
		if lo == 1 {
			d.errorf(path, "must be > 0")
		} else {
			d.errorf(path, "must be >= %d", lo)
		}
		return nil
	}
	return &n
}

func (d *decoder) path(path []string, v any, root string) *string {
	s, ok := d.str(path, v)
	if !ok {
		return nil
	}
	p := resolvePath(s, root)
	return &p
}

// decodeLayer fills l from raw, a decoded document. Values that fail their
// check are reported and left unset.
func decodeLayer(l *layer, raw map[string]any, where locator) []*FieldError {
	d := &decoder{where: where}
	top, _ := d.object(nil, raw, topKeys)
	for _, k := range sortedKeys(top) {
		v, p := top[k], []string{k}
		if v == nil {
			continue // "key:" with no value sets nothing
		}
		switch k {
		case "defaultAgent":
			if s, ok := d.str(p, v); ok {
				if s == "" {
					d.errorf(p, "must not be empty")
				} else {
					l.defaultAgent = &s
				}
			}
		case "agents":
			d.agents(l, p, v)
		case "permissions":
			d.permissions(l, p, v)
		case "approvals":
			m, _ := d.object(p, v, approvalsKeys)
			if x, ok := m["timeoutSeconds"]; ok && x != nil {
				l.timeoutSeconds = d.atLeast(child(p, "timeoutSeconds"), x, 1)
			}
			if x, ok := m["timeoutOutcome"]; ok && x != nil {
				l.timeoutOutcome = d.oneOf(child(p, "timeoutOutcome"), x, timeoutOutcomes)
			}
		case "audit":
			m, _ := d.object(p, v, auditKeys)
			if x, ok := m["path"]; ok && x != nil {
				l.auditPath = d.path(child(p, "path"), x, l.root)
			}
			if x, ok := m["maxSizeMB"]; ok && x != nil {
				l.auditMaxSizeMB = d.atLeast(child(p, "maxSizeMB"), x, 1)
			}
		case "log":
			m, _ := d.object(p, v, logKeys)
			if x, ok := m["level"]; ok && x != nil {
				l.logLevel = d.oneOf(child(p, "level"), x, logLevels)
			}
			if x, ok := m["file"]; ok && x != nil {
				l.logFile = d.path(child(p, "file"), x, l.root)
			}
		case "telemetry":
			d.telemetry(l, p, v)
		case "maxLineBytes":
			l.maxLineBytes = d.atLeast(p, v, MinMaxLineBytes)
		case "startAgentsOnLaunch":
			if b, ok := d.boolean(p, v); ok {
				l.startAgents = &b
			}
		case "sandbox":
			d.sandbox(&l.sandbox, p, v, sandboxKeys, l.root)
		case "hooks":
			d.hooks(l, p, v)
		}
	}
	// Report in file order where lines are known.
	sort.SliceStable(d.problems, func(i, j int) bool { return d.problems[i].Line < d.problems[j].Line })
	return d.problems
}

func (d *decoder) permissions(l *layer, p []string, v any) {
	m, _ := d.object(p, v, permKeys)
	for _, k := range sortedKeys(m) {
		x, kp := m[k], child(p, k)
		if x == nil {
			continue
		}
		switch k {
		case "defaultMode":
			l.defaultMode = d.mode(kp, x)
		case ListAllow, ListAsk, ListDeny:
			l.rules = append(l.rules, d.rules(kp, k, x)...)
		case "additionalDirectories":
			dirs, _ := d.strList(kp, x)
			for i, dir := range dirs {
				if strings.TrimSpace(dir) == "" {
					d.errorf(child(kp, "["+strconv.Itoa(i)+"]"), "must not be empty")
					continue
				}
				l.additionalDirs = append(l.additionalDirs, resolvePath(dir, l.root))
			}
		case "cancelOnUnaskedDeny":
			if b, ok := d.boolean(kp, x); ok {
				l.cancelUnasked = &b
			}
		case "tellAgentDenials":
			if b, ok := d.boolean(kp, x); ok {
				l.tellDenials = &b
			}
		case "continueAfterDeny":
			if b, ok := d.boolean(kp, x); ok {
				l.continueDeny = &b
			}
		}
	}
	// Keep rules in list order allow, ask, deny regardless of key order.
	sort.SliceStable(l.rules, func(i, j int) bool {
		return slices.Index(ruleLists, l.rules[i].list) < slices.Index(ruleLists, l.rules[j].list)
	})
}

func (d *decoder) agents(l *layer, p []string, v any) {
	m, ok := d.object(p, v, nil)
	if !ok {
		return
	}
	if l.agents == nil {
		l.agents = map[string]*agentLayer{}
	}
	for _, name := range sortedKeys(m) {
		ap := child(p, name)
		if !agentNameRE.MatchString(name) {
			d.errorf(ap, "agent name must start with a letter or digit and hold only letters, digits, - and _")
			continue
		}
		a := &agentLayer{}
		l.agents[name] = a
		if m[name] == nil {
			continue
		}
		am, _ := d.object(ap, m[name], agentKeys)
		for _, k := range sortedKeys(am) {
			x, kp := am[k], child(ap, k)
			if x == nil {
				continue
			}
			switch k {
			case "command":
				if s, ok := d.str(kp, x); ok {
					if strings.TrimSpace(s) == "" {
						d.errorf(kp, "required")
					} else {
						a.command = &s
					}
				}
			case "args":
				if args, ok := d.strList(kp, x); ok {
					a.args, a.argsSet = args, true
				}
			case "env":
				a.env, _ = d.strMap(kp, x)
			case "cwd":
				a.cwd = d.path(kp, x, l.root)
			case "family":
				if s, ok := d.str(kp, x); ok {
					a.family = &s
				}
			case "mode":
				a.mode = d.mode(kp, x)
			case "bypassPermissions":
				if b, ok := d.boolean(kp, x); ok {
					a.bypass = &b
				}
			case "startOnLaunch":
				if b, ok := d.boolean(kp, x); ok {
					a.startOnLaunch = &b
				}
			case "initTimeoutSeconds":
				a.initTimeout = d.atLeast(kp, x, 1)
			case "sandbox":
				d.sandbox(&a.sandbox, kp, x, agentSandboxKeys, l.root)
			case "permissions":
				pm, _ := d.object(kp, x, agentPermKeys)
				for _, list := range ruleLists {
					if y, ok := pm[list]; ok && y != nil {
						a.rules = append(a.rules, d.rules(child(kp, list), list, y)...)
					}
				}
			}
		}
	}
}

// sandbox decodes a sandbox object (global or per agent).
func (d *decoder) sandbox(sl *sandboxLayer, p []string, v any, keys []string, root string) {
	m, _ := d.object(p, v, keys)
	for _, k := range sortedKeys(m) {
		x, kp := m[k], child(p, k)
		if x == nil {
			continue
		}
		switch k {
		case "enabled":
			if b, ok := d.boolean(kp, x); ok {
				sl.enabled = &b
			}
		case "onUnavailable":
			sl.onUnavailable = d.oneOf(kp, x, sandboxOnUnavailable)
		case "network":
			sl.network = d.oneOf(kp, x, sandboxNetworks)
		case "allowWrite":
			dirs, _ := d.strList(kp, x)
			for i, dir := range dirs {
				if strings.TrimSpace(dir) == "" {
					d.errorf(child(kp, "["+strconv.Itoa(i)+"]"), "must not be empty")
					continue
				}
				sl.allowWrite = append(sl.allowWrite, resolvePath(dir, root))
			}
		case "allowDomains":
			doms, _ := d.strList(kp, x)
			for i, dom := range doms {
				dom = strings.ToLower(strings.TrimSpace(dom))
				if !domainPatternRE.MatchString(dom) {
					d.errorf(child(kp, "["+strconv.Itoa(i)+"]"), "%q is not a host name, *.name or IP address", doms[i])
					continue
				}
				sl.allowDomains = append(sl.allowDomains, dom)
			}
		}
	}
}

// resolvePath expands "~" and makes a relative path absolute against root
// (else the process's working directory).
func resolvePath(p, root string) string {
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
		return p
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if root != "" {
		return filepath.Join(root, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// telemetry decodes the telemetry section.
func (d *decoder) telemetry(l *layer, p []string, v any) {
	m, _ := d.object(p, v, telemetryKeys)
	t := &l.telemetry
	if x, ok := m["enabled"]; ok && x != nil {
		if b, ok := d.boolean(child(p, "enabled"), x); ok {
			t.enabled = &b
		}
	}
	if x, ok := m["endpoint"]; ok && x != nil {
		if s, ok := d.str(child(p, "endpoint"), x); ok {
			if err := checkEndpoint(s); err != nil {
				d.errorf(child(p, "endpoint"), "%v", err)
			} else {
				t.endpoint = &s
			}
		}
	}
	if x, ok := m["protocol"]; ok && x != nil {
		t.protocol = d.oneOf(child(p, "protocol"), x, TelemetryProtocols)
	}
	if x, ok := m["headers"]; ok && x != nil {
		if h, ok := d.strMap(child(p, "headers"), x); ok {
			t.headers = h
		}
	}
	if x, ok := m["logInput"]; ok && x != nil {
		if b, ok := d.boolean(child(p, "logInput"), x); ok {
			t.logInput = &b
		}
	}
}

// checkEndpoint accepts an absolute http or https URL with a host.
func checkEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http:// or https:// URL with a host, got %q", s)
	}
	return nil
}
