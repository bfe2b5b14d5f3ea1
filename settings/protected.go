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
	// What a decision hook runs (its program, and every absolute path among
	// its arguments: a script) runs outside every sandbox with acp-bridge's
	// rights: a protected place, wherever it lies (docs/org.md).
	out = append(out, s.HookPrograms()...)
	return out
}

// HookPrograms are the absolute paths among the decision hooks' commands
// (their programs and scripts): they run outside every sandbox with
// acp-bridge's rights, so they are protected places that run code.
func (s *Store) HookPrograms() []string {
	var out []string
	if snap := s.Snapshot(); snap != nil {
		for _, h := range snap.Config.Hooks {
			for _, a := range h.Command {
				if filepath.IsAbs(a) {
					out = append(out, filepath.Clean(a))
				}
			}
		}
	}
	return out
}
