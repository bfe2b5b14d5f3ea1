package sandbox

import "path/filepath"

// stateDirs are each agent family's own state directories and files,
// relative to the home directory: writable inside its sandbox (the policy
// files among them stay read-only, see HomeProtected). Extend with
// sandbox.allowWrite.
var stateDirs = map[string][]string{
	"claude": {".claude", ".claude.json", ".claude.json.backup", ".npm", ".cache/claude-cli-nodejs"},
	"gemini": {".gemini", ".npm"},
	"codex":  {".codex", ".npm"},
	// OpenCode writes into its config directory at start (.gitignore,
	// plugins); its config files in there stay read-only (HomeProtected).
	"opencode": {".config/opencode", ".local/share/opencode", ".local/state/opencode", ".cache/opencode", ".npm"},
	"qwen":     {".qwen", ".npm"},
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
