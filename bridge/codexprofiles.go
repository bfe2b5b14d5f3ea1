package bridge

// Codex's config profiles (docs/agents.md, Codex; docs/sandbox.md,
// "Agents' config places"). A profile of Codex's config.toml
// ([profiles.NAME]) selected by the top-level `profile = "NAME"` or by
// `-c profile=NAME` has its own approval_policy and sandbox_mode, which
// Codex prefers over the launch's top-level -c flags. Every profile the
// config defines or the arguments name gets the launch's values too, and
// configured arguments that set a profile's approval_policy or
// sandbox_mode are removed.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/pelletier/go-toml/v2"
)

// codexProfileName is what a -c key can address: Codex splits the key on
// dots, so a name with a dot (or a quote) has no override.
var codexProfileName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// codexProfileKeys are the profile settings the launch fixes.
var codexProfileKeys = []string{"approval_policy", "sandbox_mode"}

// codexProfileSetting: a -c key that sets a profile's approval_policy or
// sandbox_mode, or a whole profile (an inline table may hold them), or
// every profile.
func codexProfileSetting(k string) bool {
	if k == "profiles" {
		return true
	}
	rest, ok := strings.CutPrefix(k, "profiles.")
	if !ok {
		return false
	}
	if strings.ContainsAny(rest, `"'`) {
		return true // a quoted profile name: no override can address it
	}
	for _, key := range codexProfileKeys {
		if strings.Contains(rest, key) {
			return true
		}
	}
	return !strings.Contains(rest, ".") // profiles.NAME
}

// codexConfigArg reads a -c/--config argument at args[i]: its key=value
// and how many arguments it takes (0: not one).
func codexConfigArg(args []string, i int) (kv string, n int) {
	a := args[i]
	switch {
	case (a == "-c" || a == "--config") && i+1 < len(args):
		return args[i+1], 2
	case strings.HasPrefix(a, "--config="):
		return strings.TrimPrefix(a, "--config="), 1
	case strings.HasPrefix(a, "-c") && len(a) > 2:
		return a[2:], 1
	}
	return "", 0
}

// codexProfiles gives Codex's arguments with every profile neutralised:
// for each profile the config at configPath defines, its top-level
// `profile`, and each `-c profile=NAME` (or --profile NAME) in args,
// `-c profiles.NAME.approval_policy="untrusted"` and, when sandboxMode is
// set (inside the bridge's sandbox), `-c profiles.NAME.sandbox_mode=...`.
// Arguments setting profiles.*.approval_policy or profiles.*.sandbox_mode
// are removed. A missing config (or configPath "") is no profile; an unreadable or invalid
// one, or a profile name no -c key can address, is an error (the agent is
// not started: its profile could make it stop asking).
func codexProfiles(configPath string, args []string, sandboxMode string) (out []string, changes []string, err error) {
	names := map[string]bool{}
	var data []byte
	if configPath != "" {
		data, err = os.ReadFile(configPath)
	}
	switch {
	case configPath == "" || errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, nil, fmt.Errorf("codex config %s: %w", configPath, err)
	default:
		var cfg struct {
			Profile  any            `toml:"profile"`
			Profiles map[string]any `toml:"profiles"`
		}
		if err := toml.Unmarshal(data, &cfg); err != nil {
			return nil, nil, fmt.Errorf("codex config %s: %w", configPath, err)
		}
		for n := range cfg.Profiles {
			names[n] = true
		}
		switch p := cfg.Profile.(type) {
		case nil:
		case string:
			names[p] = true
		default:
			return nil, nil, fmt.Errorf("codex config %s: profile is %T, want a string", configPath, p)
		}
	}
	for i := 0; i < len(args); i++ {
		kv, n := codexConfigArg(args, i)
		if n == 0 {
			// --profile NAME (not -p: a runner's, npx -p PACKAGE)
			if args[i] == "--profile" && i+1 < len(args) {
				names[args[i+1]] = true
			} else if v, ok := strings.CutPrefix(args[i], "--profile="); ok {
				names[v] = true
			}
			out = append(out, args[i])
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if k == "profile" {
			names[strings.Trim(strings.TrimSpace(v), `"'`)] = true
		}
		if codexProfileSetting(k) {
			changes = append(changes, "removed argument "+strings.Join(args[i:i+n], " "))
			i += n - 1
			continue
		}
		out = append(out, args[i:i+n]...)
		i += n - 1
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		if !codexProfileName.MatchString(n) {
			return nil, nil, fmt.Errorf("codex profile %q: its approval_policy cannot be overridden with -c (a name of letters, digits, - and _ only)", n)
		}
		set := []string{"approval_policy=\"untrusted\""}
		if sandboxMode != "" {
			set = append(set, "sandbox_mode="+sandboxMode)
		}
		for _, s := range set {
			kv := "profiles." + n + "." + s
			out = append(out, "-c", kv)
			changes = append(changes, "argument -c "+kv)
		}
	}
	return out, changes, nil
}

// codexSandboxMode is the sandbox_mode value the profile's ConfinedFlags
// set when confined ("" otherwise).
func codexSandboxMode(prof *profiles.Profile, confined bool) string {
	if !confined {
		return ""
	}
	for _, f := range prof.ConfinedFlags {
		if v, ok := strings.CutPrefix(f.Value, "sandbox_mode="); ok {
			return v
		}
	}
	return ""
}
