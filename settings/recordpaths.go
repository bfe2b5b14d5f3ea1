package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// The record an agent cannot erase (docs/settings.md, "Audit log"): the
// audit log and the bridge's log never live where an agent may write. The
// trees any agent's sandbox makes writable are computed from the same
// settings the sandbox is (bridge.PlanSandbox): the workspace, the agents'
// working directories, permissions.additionalDirectories, sandbox.allowWrite
// (global and per agent), every configured agent's state directories and
// its package runner's cache (sandbox.StateDirs, sandbox.RunnerDirs), and
// the agents' private temp directories. A path inside one is refused at
// load and on every reload, with the tree and why it is writable.

// WritableTree is one tree an agent's sandbox may write.
type WritableTree struct {
	Path string
	Why  string
}

// SandboxTempPrefix is the prefix, in os.TempDir(), of the agents' private
// temp directories (sandbox.Prepare).
const SandboxTempPrefix = "acp-bridge-sandbox-"

// WritableTrees are the trees of cfg that some agent's sandbox may write,
// for the workspace ws ("" none) and the home directory home.
func WritableTrees(cfg Config, ws, home string) []WritableTree {
	var out []WritableTree
	add := func(p, why string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			if ws == "" {
				return
			}
			p = filepath.Join(ws, p)
		}
		out = append(out, WritableTree{Path: filepath.Clean(p), Why: why})
	}
	add(ws, "it is the workspace, which every agent may write")
	for _, d := range cfg.Permissions.AdditionalDirectories {
		add(d, "it is in permissions.additionalDirectories, which agents may write")
	}
	for _, d := range cfg.Sandbox.AllowWrite {
		add(d, "it is in sandbox.allowWrite")
	}
	names := make([]string, 0, len(cfg.Agents))
	for n := range cfg.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := cfg.Agents[n]
		add(a.Cwd, fmt.Sprintf("it is agent %s's working directory (agents.%s.cwd)", n, n))
		for _, d := range a.Sandbox.AllowWrite {
			add(d, fmt.Sprintf("it is in agents.%s.sandbox.allowWrite", n))
		}
		prof, _ := profiles.DetectProfile(n, a.Family, a.Command, a.Args)
		family := ""
		if prof != nil {
			family = prof.Name
		}
		for _, d := range sandbox.StateDirs(family, home) {
			add(d, fmt.Sprintf("it is a state directory agent %s (%s) may write", n, family))
		}
		for _, d := range sandbox.RunnerDirs(a.Command, home) {
			add(d, fmt.Sprintf("it is the package cache agent %s's runner (%s) may write", n, filepath.Base(a.Command)))
		}
	}
	return out
}

// RecordPathProblem says why path (the audit log or the bridge's log) may
// not be used: it is inside a tree an agent may write, where the agent
// could erase or rewrite the record of what it did. nil when it is fine.
// A path inside one of readOnly (the bridge's user config directory, which
// every agent's sandbox keeps read-only: Store.PolicyFiles) is fine even
// inside a writable tree (a workspace that is the home directory).
func RecordPathProblem(path string, trees []WritableTree, readOnly []string) error {
	if path == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if where := writableWhere(abs, trees, readOnly); where != "" {
		return fmt.Errorf("%s is %s: an agent could erase or rewrite the record there; choose a path outside every tree an agent may write (the default is in the user config directory)", path, where)
	}
	return nil
}

// within tells whether p is root or inside it.
func within(p, root string) bool {
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveExisting resolves the symlinks of the longest existing prefix of p.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		} else if !errors.Is(err, os.ErrNotExist) {
			return p
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// recordPathProblems checks the audit log and log file of cfg, and the
// places of its decision hooks (hookpaths.go).
func (s *Store) recordPathProblems(cfg Config) []*FieldError {
	home := s.home()
	trees := WritableTrees(cfg, s.opts.WorkspaceDir, home)
	readOnly := []string{s.opts.UserConfigDir}
	var out []*FieldError
	for _, f := range []struct{ key, path string }{{"audit.path", cfg.Audit.Path}, {"log.file", cfg.Log.File}} {
		if err := RecordPathProblem(f.path, trees, readOnly); err != nil {
			out = append(out, &FieldError{Key: f.key, Msg: err.Error()})
		}
	}
	return append(out, hookPathProblems(cfg, trees, readOnly, s.opts.Environ)...)
}

// home is the home directory the settings read "~" against.
func (s *Store) home() string {
	if home := environValue(s.opts.Environ, "HOME"); home != "" {
		return home
	}
	home, _ := os.UserHomeDir()
	return home
}

func environValue(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
