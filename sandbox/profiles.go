package sandbox

import "path/filepath"

// stateDirs are each agent family's own state directories and files,
// relative to the home directory: writable inside its sandbox (the policy
// files among them stay read-only, see HomeProtected). Extend with
// sandbox.allowWrite.
var stateDirs = map[string][]string{
	"claude": {".claude", ".claude.json", ".claude.json.backup", ".cache/claude-cli-nodejs"},
	"gemini": {".gemini"},
	"codex":  {".codex"},
	// OpenCode writes into its config directory at start (.gitignore,
	// plugins); its config files in there stay read-only (HomeProtected).
	"opencode": {".config/opencode", ".local/share/opencode", ".local/state/opencode", ".cache/opencode"},
	"qwen":     {".qwen"},
	"goose":    {".local/share/goose", ".local/state/goose", ".cache/goose"},
	"kimi":     {".kimi"},
}

// StateDirs returns the absolute state directories of an agent family
// ("" or an unknown family: none).
func StateDirs(family, home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, d := range stateDirs[family] {
		out = append(out, filepath.Join(home, d))
	}
	return out
}

// RunnerDirs are what a package runner that starts an agent (npx and the
// like, which download and cache the agent) must write: npm's cache. A
// package written there could run later outside the sandbox, so it is
// writable only for agents started through a runner (docs/sandbox.md).
func RunnerDirs(command, home string) []string {
	if home == "" {
		return nil
	}
	switch filepath.Base(command) {
	case "npx", "npm":
		return []string{filepath.Join(home, ".npm")}
	case "pnpm", "pnpx":
		return []string{filepath.Join(home, ".cache", "pnpm"), filepath.Join(home, ".local", "share", "pnpm")}
	case "yarn":
		return []string{filepath.Join(home, ".cache", "yarn"), filepath.Join(home, ".yarn")}
	case "bunx", "bun":
		return []string{filepath.Join(home, ".bun", "install", "cache")}
	}
	return nil
}
