//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/policy"
)

// The programs the bridge runs outside every sandbox (its own executable,
// its companion, a hook's script) hold inside a writable tree against every
// way an agent could write or plant one: written over, replaced by rename,
// created where missing, their directory renamed away and made again, a
// link put in their place. The control (the same Spec without Programs)
// shows each attack works.
func TestProgramsHoldInTheSandbox(t *testing.T) {
	requireMechanism(t)
	attacks := []struct{ name, script string }{
		{"write over", "echo planted > bin/acp-bridge"},
		{"create the missing companion", "printf '#!/bin/sh\\necho planted\\n' > bin/acp-bridge-org"},
		{"replace by rename", "echo planted > .x && mv -f .x bin/acp-bridge"},
		{"plant by rename", "echo planted > .y && mv -f .y bin/acp-bridge-org"},
		{"directory renamed away and made again", "mv bin bin.old && mkdir bin && echo planted > bin/acp-bridge-org && echo planted > bin/acp-bridge"},
		{"link in its place", "ln -sf /tmp/planted bin/acp-bridge-org"},
		{"hook script written", "echo planted > hooks/check.sh"},
	}
	planted := func(ws string) []string {
		var got []string
		for _, rel := range []string{"bin/acp-bridge", "bin/acp-bridge-org", "hooks/check.sh"} {
			p := filepath.Join(ws, rel)
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				got = append(got, rel+" (a link)")
			} else if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "planted") {
				got = append(got, rel)
			}
		}
		return got
	}
	for _, a := range attacks {
		for _, protected := range []bool{true, false} {
			ws, home := t.TempDir(), t.TempDir()
			for _, d := range []string{"bin", "hooks"} {
				if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"bin/acp-bridge", "hooks/check.sh"} {
				if err := os.WriteFile(filepath.Join(ws, f), []byte("#!/bin/sh\necho real\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			o := Options{Workspace: []string{ws}, Home: home, Policy: mustCompile(t), Env: policy.Env{Cwd: ws, ProjectRoot: ws, Home: home}}
			if protected {
				o.Programs = []string{filepath.Join(ws, "bin/acp-bridge"), filepath.Join(ws, "bin/acp-bridge-org"), filepath.Join(ws, "hooks/check.sh")}
			}
			s, err := Compute(o)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := runIn(t, s, ws, home, a.script)
			got := planted(ws)
			switch {
			case protected && len(got) > 0:
				t.Errorf("%s: the agent planted %v through the sandbox\n%s", a.name, got, out)
			case !protected && len(got) == 0:
				t.Errorf("%s: control: without Programs the attack did nothing, so the test proves nothing\n%s", a.name, out)
			}
		}
	}
}
