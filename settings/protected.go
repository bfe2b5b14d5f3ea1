package settings

import "path/filepath"

// PolicyFiles are the files and directories the settings are read from or
// persisted to, absolute: the --config file, the user config directory
// (every config.{yaml,yml,json,toml} in it, and the default audit log), and
// the workspace's .acp-bridge.yaml. The policy engine protects them: an
// agent's write to one asks in every mode (docs/policy.md, "Protected
// files"), so the policy cannot be rewritten by what it governs.
func (s *Store) PolicyFiles() []string {
	var out []string
	if s.opts.ConfigFile != "" {
		out = append(out, s.opts.ConfigFile)
	}
	if s.opts.UserConfigDir != "" {
		out = append(out, s.opts.UserConfigDir)
	}
	if s.opts.WorkspaceDir != "" {
		out = append(out, filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName))
	}
	return out
}
