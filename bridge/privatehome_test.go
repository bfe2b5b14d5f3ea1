package bridge

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/profiles"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// The private home's making and its tests are the sandbox's
// (sandbox/home.go, TestMakeHome); here the declaration and the
// environment that names it.
func TestHomeDeclAndEnv(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	codex := profiles.ProfileByName("codex")
	d := homeDecl(codex, "/h/.codex")
	var places []string
	for _, p := range d.Places {
		places = append(places, p.Name)
	}
	for _, want := range []string{"rules", ".env", "AGENTS.md", "AGENTS.override.md", "skills", "prompts"} {
		if !slices.Contains(places, want) {
			t.Errorf("codex home places %v: %s missing", places, want)
		}
	}
	if slices.ContainsFunc(d.Places, func(p sandbox.HomePlace) bool { return strings.Contains(p.Name, "/") }) {
		t.Errorf("a place outside the home's top level: %v", d.Places)
	}
	if d.Env != "CODEX_HOME" || !slices.Equal(d.ReadOnly, []string{"config.toml"}) || !slices.Equal(d.Copies, []string{"config.toml"}) {
		t.Errorf("codex decl %+v", d)
	}
	q := homeDecl(profiles.ProfileByName("qwen"), "/h/.qwen")
	if q.Env != "QWEN_HOME" || len(q.ReadOnly) != 0 || !slices.Equal(q.Copies, []string{"settings.json"}) {
		t.Errorf("qwen decl %+v: its settings.json must stay writable (set_model renames it)", q)
	}
	h, err := sandbox.MakeHome(sandbox.HomeDecl{Profile: "codex", Env: "CODEX_HOME", Person: filepath.Join(t.TempDir(), ".codex")})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Remove()
	env, _ := privateHomeConfined(map[string]string{"CODEX_HOME": "/configured", "HOME": "/h"}, nil, h)
	if env["CODEX_HOME"] != h.Dir || env["HOME"] != "/h" {
		t.Errorf("confined environment %v", env)
	}
}

func TestPersonHome(t *testing.T) {
	for _, name := range []string{"codex", "qwen"} {
		ph := profiles.ProfileByName(name).PrivateHome
		t.Run(name, func(t *testing.T) {
			t.Setenv(ph.Env, "")
			if got := personHome(ph, map[string]string{ph.Env: "/x/cx"}, "/h"); got != "/x/cx" {
				t.Errorf("configured: %q", got)
			}
			if got := personHome(ph, map[string]string{ph.Env: "rel"}, "/h"); got != "/h/"+ph.Dir {
				t.Errorf("relative configured value: %q, want the home's", got)
			}
			if got := personHome(ph, nil, ""); got != "" {
				t.Errorf("no home: %q", got)
			}
			t.Setenv(ph.Env, "/env/cx")
			if got := personHome(ph, nil, "/h"); got != "/env/cx" {
				t.Errorf("inherited: %q", got)
			}
		})
	}
}
