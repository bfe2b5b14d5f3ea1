package sandbox

import "path/filepath"

// stateDirs are each agent family's own state directories and files,
// relative to the home directory: writable inside its sandbox (the policy
// files among them stay read-only: policy.Places). Extend with
// sandbox.allowWrite.
var stateDirs = map[string][]string{
	"claude": {".claude", ".claude.json", ".claude.json.backup", ".cache/claude-cli-nodejs"},
	"gemini": {".gemini"},
	"codex":  {".codex"},
	// OpenCode writes into its config directory at start (.gitignore,
	// plugins); its config files in there stay read-only (policy.Places).
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

// familyEnv are the environment variables each agent family needs to reach
// its model (API keys, endpoints, its own settings): kept in its sandboxed
// environment (Spec.EnvKeep). Cloud credentials in general (AWS_*,
// GOOGLE_APPLICATION_CREDENTIALS, AZURE_*) are not here: the person's agent
// config names them when the agent needs them (Bedrock, Vertex).
var familyEnv = map[string][]string{
	"claude":   {"ANTHROPIC_*", "CLAUDE_*", "DISABLE_*", "MCP_TIMEOUT", "MAX_THINKING_TOKENS"},
	"gemini":   {"GEMINI_*", "GOOGLE_API_KEY", "GOOGLE_GENAI_*", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"},
	"codex":    {"OPENAI_*", "CODEX_*"},
	"qwen":     {"OPENAI_*", "QWEN_*", "DASHSCOPE_*"},
	"opencode": {"OPENCODE_*", "ANTHROPIC_*", "OPENAI_*", "OPENROUTER_*", "GEMINI_*", "GOOGLE_API_KEY"},
	"goose":    {"GOOSE_*", "ANTHROPIC_*", "OPENAI_*", "OPENROUTER_*", "GEMINI_*", "GOOGLE_API_KEY"},
	"kimi":     {"KIMI_*", "MOONSHOT_*"},
}

// FamilyEnv returns the environment names an agent family keeps in its
// sandbox (beside EnvAllowed).
func FamilyEnv(family string) []string {
	return append([]string(nil), familyEnv[family]...)
}
