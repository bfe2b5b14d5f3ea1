package bridge

// An agent's private state home inside the OS sandbox (docs/agents.md,
// Codex and Qwen Code; docs/sandbox.md, "Codex's private CODEX_HOME" and
// "Qwen Code's private QWEN_HOME"). The profile declares it
// (profiles.PrivateHome).
//
// codex-acp writes CODEX_HOME/config.toml when an editor picks its `auto`
// or `full-access` preset (it records the project as trusted there); Qwen
// Code writes QWEN_HOME/settings.json when an editor picks a model
// (session/set_model), by renaming the file to settings.json.orig and a
// new one into its place. Both files run code later outside any sandbox
// (MCP servers, notify programs, hooks, the approval mode the agent starts
// with), so the sandbox keeps them read-only (policy.Places), and the
// switch failed (-32603; EBUSY for the rename). A private copy bound over
// the file itself would not do for Qwen: a mount point cannot be renamed.
// When the bridge's sandbox confines such an agent, it runs with a state
// directory of its own instead: a private directory the bridge makes for
// that process, writable inside its sandbox, holding a copy of each of the
// profile's Copies and a symbolic link to every other entry of the
// person's directory (sessions, auth, logs: what the agent writes there it
// wrote before, in the same state directory the sandbox already leaves
// writable). Nothing written to a copy reaches the person's file; the
// directory is removed when the process has exited.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// privateHomePrefix names the private state directories in the temp
// directory: privateHomePrefix + profile + "-home-".
const privateHomePrefix = "acp-bridge-"

// codexPrivatePrefix names Codex's private CODEX_HOME directories.
const codexPrivatePrefix = privateHomePrefix + "codex-home-"

// personHome is the state directory the agent would use without the
// bridge: ph.Env in the agent's configured environment, else in the
// bridge's, else home/ph.Dir ("" when none is known).
func personHome(ph *profiles.PrivateHome, env map[string]string, home string) string {
	if h := env[ph.Env]; filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	if h := os.Getenv(ph.Env); filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ph.Dir)
}

// codexHome is one process's private state directory (Codex's CODEX_HOME
// first, hence the name; any profile's PrivateHome).
type codexHome struct {
	Dir    string // the private directory (Env's value inside the sandbox)
	Person string // the person's directory it was made from
	Env    string // the variable that names it to the agent
}

// preparePrivateHome makes a private state directory from the person's:
// a copy (mode 0600) of each of ph.Copies that exists and a symbolic link
// to each other entry. A person's directory that does not exist yet gives
// an empty private one (the agent then makes its own defaults there).
func preparePrivateHome(ph *profiles.PrivateHome, profile, person string) (*codexHome, error) {
	if !filepath.IsAbs(person) {
		return nil, fmt.Errorf("%s home %q: not an absolute path", profile, person)
	}
	dir, err := os.MkdirTemp("", privateHomePrefix+profile+"-home-")
	if err != nil {
		return nil, fmt.Errorf("private %s home: %w", profile, err)
	}
	h := &codexHome{Dir: dir, Person: person, Env: ph.Env}
	if err := h.fill(ph); err != nil {
		h.Remove()
		return nil, fmt.Errorf("private %s home from %s: %w", profile, person, err)
	}
	return h, nil
}

// honourMasks empties each copy in the private home whose original a
// Read deny rule makes unreadable inside the sandbox (masked, or under a
// masked directory): the bridge, which reads the original outside the
// sandbox, never puts a readable copy of it where the agent, or another
// agent's sandbox that sees the host's temp directory, can read it (red
// team 8). A JSON copy becomes "{}", any other an empty file: the agent
// starts from its defaults, as it would with the original unreadable.
func (h *codexHome) honourMasks(ph *profiles.PrivateHome, masked []sandbox.Path) []string {
	if h == nil || ph == nil {
		return nil
	}
	var emptied []string
	for _, name := range ph.Copies {
		orig := filepath.Join(h.Person, name)
		hit := false
		for _, m := range masked {
			if m.Path == orig || (m.Dir && strings.HasPrefix(orig, m.Path+string(filepath.Separator))) {
				hit = true
			}
		}
		cp := filepath.Join(h.Dir, name)
		if _, err := os.Lstat(cp); !hit || err != nil {
			continue
		}
		empty := []byte{}
		if strings.HasSuffix(name, ".json") {
			empty = []byte("{}\n")
		}
		if err := os.WriteFile(cp, empty, 0o600); err != nil {
			os.Remove(cp)
		}
		emptied = append(emptied, orig)
	}
	return emptied
}

func (h *codexHome) fill(ph *profiles.PrivateHome) error {
	if fi, err := os.Stat(h.Person); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil // nothing to copy or link: the agent starts from its defaults
		}
		return err
	}
	for _, d := range ph.Made {
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
		if slices.Contains(ph.Copies, name) {
			continue
		}
		if err := os.Symlink(filepath.Join(h.Person, name), filepath.Join(h.Dir, name)); err != nil {
			return err
		}
	}
	for _, name := range ph.Copies {
		src := filepath.Join(h.Person, name)
		fi, err := os.Stat(src) // a dotfiles manager's link: its target's content
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return err
		case !fi.Mode().IsRegular():
			continue // not a file: neither copied nor linked
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(h.Dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes the private directory (its links, not what they point
// at: os.RemoveAll does not follow symbolic links).
func (h *codexHome) Remove() {
	if h == nil || h.Dir == "" {
		return
	}
	os.RemoveAll(h.Dir)
}

// privateHomeConfined is the agent's environment and arguments inside the
// bridge's sandbox: h.Env names the private directory (over a configured
// value). The inputs are not modified.
func privateHomeConfined(env map[string]string, args []string, h *codexHome) (map[string]string, []string) {
	out := make(map[string]string, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	out[h.Env] = h.Dir
	return out, append([]string(nil), args...)
}
