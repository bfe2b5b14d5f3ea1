package settings

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Environment variables follow viper's AutomaticEnv convention: prefix
// ACP_BRIDGE_, the key path upper-cased with "." replaced by "_", e.g.
// approvals.timeoutSeconds = ACP_BRIDGE_APPROVALS_TIMEOUTSECONDS and
// agents.claude.command = ACP_BRIDGE_AGENTS_CLAUDE_COMMAND. They are read
// from Options.Environ rather than the process environment, so this package
// maps them itself. Lists and maps are JSON. Empty values are unset (as in
// viper without AllowEmptyEnv).

// envName is the variable name of a setting path below the top.
func envName(path string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(path, ".", "_"))
}

// EnvNames returns every global setting's variable name with its key path,
// and the per-agent pattern's field suffixes, for docs and tests.
func EnvNames() (global map[string]string, agentFields map[string]string) {
	global = map[string]string{}
	for _, lf := range globalLeaves {
		global[envName(lf.path)] = lf.path
	}
	agentFields = map[string]string{}
	for _, lf := range agentLeaves {
		agentFields[strings.ToUpper(strings.ReplaceAll(lf.path, ".", "_"))] = lf.path
	}
	return global, agentFields
}

// envGroups are first words after the prefix that only settings use: an
// unknown variable starting with one is a typo, hence an error.
var envGroups = []string{"AGENTS", "PERMISSIONS", "APPROVALS", "AUDIT", "LOG", "TELEMETRY"}

// envLayer decodes the ACP_BRIDGE_* variables of environ. root anchors rules
// and relative paths. ignored lists ACP_BRIDGE_* variables that name no
// setting and look like no typo of one.
func envLayer(environ []string, root string) (l *layer, problems []*FieldError, ignored []string) {
	l = &layer{name: LayerEnv, root: root, source: "environment"}
	global, agentFields := EnvNames()
	globalNames := sortedKeys(global)
	// Longest suffix first, so PERMISSIONS_ALLOW wins over a shorter match.
	fieldSuffixes := sortedKeys(agentFields)
	sort.SliceStable(fieldSuffixes, func(i, j int) bool { return len(fieldSuffixes[i]) > len(fieldSuffixes[j]) })

	raw := map[string]any{}
	sources := map[string]string{} // key path -> variable name
	kinds := map[string]leafKind{}
	for _, lf := range globalLeaves {
		kinds[lf.path] = lf.kind
	}
	agentKinds := map[string]leafKind{}
	for _, lf := range agentLeaves {
		agentKinds[lf.path] = lf.kind
	}

	vars := map[string]string{}
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) || val == "" {
			continue
		}
		vars[name] = val
	}
	for _, name := range sortedKeys(vars) {
		val := vars[name]
		upper := strings.ToUpper(name)
		rest := strings.TrimPrefix(upper, EnvPrefix)
		var path []string
		var kind leafKind
		if p, ok := global[upper]; ok {
			path, kind = strings.Split(p, "."), kinds[p]
		} else if agentRest, ok := strings.CutPrefix(rest, "AGENTS_"); ok {
			for _, suf := range fieldSuffixes {
				agent, ok := strings.CutSuffix(agentRest, "_"+suf)
				if ok && agent != "" {
					field := agentFields[suf]
					path = append([]string{"agents", strings.ToLower(agent)}, strings.Split(field, ".")...)
					kind = agentKinds[field]
					break
				}
			}
			if path == nil {
				problems = append(problems, &FieldError{Source: "env " + name, Msg: fmt.Sprintf(
					"unknown setting (per-agent variables are %sAGENTS_<NAME>_<FIELD>, FIELD one of %s)",
					EnvPrefix, strings.Join(sortedKeys(agentFields), ", "))})
				continue
			}
		} else {
			first, _, _ := strings.Cut(rest, "_")
			s := suggestWithin(upper, globalNames, 2)
			switch {
			case s != "":
				problems = append(problems, &FieldError{Source: "env " + name, Msg: fmt.Sprintf("unknown setting (did you mean %s?)", s)})
			case slices.Contains(envGroups, first):
				problems = append(problems, &FieldError{Source: "env " + name, Msg: "unknown setting (see docs/settings.md for the variable names)"})
			default:
				ignored = append(ignored, name)
			}
			continue
		}
		v, err := envValue(val, kind)
		if err != nil {
			problems = append(problems, &FieldError{Source: "env " + name, Key: keyString(path), Msg: err.Error()})
			continue
		}
		setRaw(raw, path, v)
		sources[keyString(path)] = name
	}
	// where names the variable that set a key, or one that set a key below
	// its nearest ancestor (agents.x.command: required blames the
	// ACP_BRIDGE_AGENTS_X_* variable that introduced agent x).
	where := func(p []string) (string, int) {
		for n := len(p); n > 0; n-- {
			k := keyString(p[:n])
			if name, ok := sources[k]; ok {
				return "env " + name, 0
			}
			for _, sk := range sortedKeys(sources) {
				if strings.HasPrefix(sk, k+".") {
					return "env " + sources[sk], 0
				}
			}
		}
		return "environment", 0
	}
	l.where = where
	problems = append(problems, decodeLayer(l, raw, where)...)
	return l, problems, ignored
}

// envValue converts a variable's text to the raw value a file would hold.
func envValue(s string, kind leafKind) (any, error) {
	switch kind {
	case kindInt:
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("must be an integer, got %q", s)
		}
		return n, nil
	case kindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("must be true or false, got %q", s)
		}
		return b, nil
	case kindStringList:
		var v []any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf(`must be a JSON list of strings, e.g. ["a","b"]: %w`, err)
		}
		return v, nil
	case kindStringMap:
		var v map[string]any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf(`must be a JSON object of strings, e.g. {"K":"V"}: %w`, err)
		}
		return v, nil
	default:
		return s, nil
	}
}

// setRaw stores v at path in a nested raw map.
func setRaw(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// suggestWithin is suggest with a fixed distance limit.
func suggestWithin(k string, known []string, limit int) string {
	best, bestD := "", limit+1
	for _, c := range known {
		if d := editDistance(k, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
