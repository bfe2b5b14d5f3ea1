package bridge

// An agent's private state home inside the OS sandbox (docs/agents.md,
// Codex and Qwen Code; docs/sandbox.md, "Private state homes"). The
// profile declares it (profiles.PrivateHome); the sandbox makes it
// (sandbox.MakeHome), fills its copies honouring the Read deny rules,
// keeps its config places and read-only copies read-only, hides it from
// every other sandbox, and sweeps it after a crash. Here: where the
// person's directory is, the declaration, and the environment naming it.

import (
	"os"
	"path/filepath"

	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

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

// homeDecl is the private home prof declares, made from person.
func homeDecl(prof *profiles.Profile, person string) sandbox.HomeDecl {
	ph := prof.PrivateHome
	d := sandbox.HomeDecl{Profile: prof.Name, Env: ph.Env, Person: person, Copies: ph.Copies, ReadOnly: ph.ReadOnly, Made: ph.Made}
	for _, c := range prof.HomePlaces() {
		d.Places = append(d.Places, sandbox.HomePlace{Name: c.Path, Dir: c.Dir})
	}
	return d
}

// privateHomeConfined is the agent's environment and arguments inside the
// bridge's sandbox: h.Env names the private directory (over a configured
// value). The inputs are not modified.
func privateHomeConfined(env map[string]string, args []string, h *sandbox.Home) (map[string]string, []string) {
	out := make(map[string]string, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	out[h.Env] = h.Dir
	return out, append([]string(nil), args...)
}
