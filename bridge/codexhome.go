package bridge

// Codex's private CODEX_HOME inside the OS sandbox (docs/agents.md, Codex;
// docs/sandbox.md, "Codex's private CODEX_HOME").
//
// codex-acp writes CODEX_HOME/config.toml when an editor picks its `auto`
// or `full-access` preset (it records the project as trusted there). The
// person's config.toml runs code later outside any sandbox (MCP servers,
// notify programs, the approval policy Codex starts with), so the sandbox
// keeps it read-only (policy.Places), and the preset switch failed with
// -32603. When the bridge's sandbox confines Codex, Codex runs with a
// CODEX_HOME of its own instead: a private directory the bridge makes for
// that process, writable inside its sandbox, holding a copy of the
// person's config.toml and a symbolic link to every other entry of the
// person's CODEX_HOME (sessions, auth, logs: what Codex writes there it
// wrote before, in the same state directory the sandbox already leaves
// writable). Nothing written to the copy reaches the person's file; the
// directory is removed when the process has exited.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// codexPrivatePrefix names the private CODEX_HOME directories in the temp
// directory.
const codexPrivatePrefix = "acp-bridge-codex-home-"

// codexConfigFile is the file Codex rewrites and the bridge copies.
const codexConfigFile = "config.toml"

// codexMadeDirs are made in the person's CODEX_HOME (when missing) before
// they are linked, so that what Codex keeps there across processes (its
// session rollouts, which session/load and session/resume read) outlives
// the private directory.
var codexMadeDirs = []string{"sessions", "archived_sessions"}

// personCodexHome is the CODEX_HOME Codex would use without the bridge:
// the agent's configured environment, else the bridge's, else
// home/.codex.
func personCodexHome(env map[string]string, home string) string {
	if h := env["CODEX_HOME"]; filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	if h := os.Getenv("CODEX_HOME"); filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// codexHome is one process's private CODEX_HOME.
type codexHome struct {
	Dir    string // the private directory (CODEX_HOME inside the sandbox)
	Person string // the person's CODEX_HOME it was made from
}

// prepareCodexHome makes a private CODEX_HOME from the person's: a copy
// of config.toml (mode 0600) and a symbolic link to each other entry. A
// person's CODEX_HOME that does not exist yet gives a private one with no
// config (Codex then makes its own defaults, in the private directory).
func prepareCodexHome(person string) (*codexHome, error) {
	if !filepath.IsAbs(person) {
		return nil, fmt.Errorf("codex home %q: not an absolute path", person)
	}
	dir, err := os.MkdirTemp("", codexPrivatePrefix)
	if err != nil {
		return nil, fmt.Errorf("private codex home: %w", err)
	}
	h := &codexHome{Dir: dir, Person: person}
	if err := h.fill(); err != nil {
		h.Remove()
		return nil, fmt.Errorf("private codex home from %s: %w", person, err)
	}
	return h, nil
}

func (h *codexHome) fill() error {
	if fi, err := os.Stat(h.Person); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil // nothing to copy or link: Codex starts from its defaults
		}
		return err
	}
	for _, d := range codexMadeDirs {
		if err := os.Mkdir(filepath.Join(h.Person, d), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	entries, err := os.ReadDir(h.Person)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if name == codexConfigFile {
			continue
		}
		if err := os.Symlink(filepath.Join(h.Person, name), filepath.Join(h.Dir, name)); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(filepath.Join(h.Person, codexConfigFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	return os.WriteFile(filepath.Join(h.Dir, codexConfigFile), data, 0o600)
}

// Remove deletes the private directory (its links, not what they point
// at: os.RemoveAll does not follow symbolic links).
func (h *codexHome) Remove() {
	if h == nil || h.Dir == "" {
		return
	}
	os.RemoveAll(h.Dir)
}

// codexConfined is Codex's environment and arguments inside the bridge's
// sandbox: CODEX_HOME is the private directory (over a configured value).
// The inputs are not modified.
func codexConfined(env map[string]string, args []string, h *codexHome) (map[string]string, []string) {
	out := make(map[string]string, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	out["CODEX_HOME"] = h.Dir
	return out, append([]string(nil), args...)
}
