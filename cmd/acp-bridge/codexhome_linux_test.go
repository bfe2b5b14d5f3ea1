//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Codex's private CODEX_HOME (bridge/codexhome.go), through the real
// binary and the real sandbox: an agent of the codex family rewrites
// $CODEX_HOME/config.toml (as codex-acp does when a preset is picked) and
// then tries the person's ~/.codex/config.toml directly. Confined, the
// first succeeds on a private copy, the second fails, the person's file is
// unchanged on disk, sessions written through CODEX_HOME land in the
// person's ~/.codex/sessions, and the private directory is gone once the
// bridge has exited. The control (sandbox off) shows the same script
// rewriting the person's file.
func TestCodexPrivateHome(t *testing.T) {
	requireSandbox(t)
	const person = "model = \"person-model\"\n"
	attack := `r=report.txt; echo "home=$CODEX_HOME" > $r
echo 'notify = ["evil-private"]' >> "$CODEX_HOME/config.toml" && echo private-written >> $r
cp "$CODEX_HOME/config.toml" seen.toml
echo 'notify = ["evil-person"]' >> "$HOME/.codex/config.toml" && echo person-written >> $r
echo '{}' > "$CODEX_HOME/sessions/rollout-test.jsonl" && echo session-written >> $r
exec "$0" demo-agent`
	for _, confined := range []bool{true, false} {
		name := "confined"
		if !confined {
			name = "control: sandbox off"
		}
		t.Run(name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			personConfig := filepath.Join(home, ".codex", "config.toml")
			if err := os.MkdirAll(filepath.Dir(personConfig), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(personConfig, []byte(person), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := "defaultAgent: codex\nagents:\n  codex: {family: codex, command: sh, args: [\"-c\", " + strconvQuote(attack) + ", \"" + binPath + "\"]}\n"
			if !confined {
				cfg += "sandbox: {enabled: false}\n"
			}
			p := startBinIn(t, home, ws, cfg)
			p.open(t)
			report, _ := os.ReadFile(filepath.Join(ws, "report.txt"))
			got, _ := os.ReadFile(personConfig)
			if !confined {
				if !strings.Contains(string(got), "evil-person") {
					t.Fatalf("unconfined, the person's config.toml was not changed (%q; report %q): the attack proves nothing", got, report)
				}
				if !strings.Contains(string(report), "home=\n") && !strings.Contains(string(report), "home="+filepath.Join(home, ".codex")) {
					t.Errorf("unconfined, CODEX_HOME was changed: %q", report)
				}
				return
			}
			if string(got) != person {
				t.Errorf("the person's config.toml changed inside the sandbox: %q", got)
			}
			if strings.Contains(string(report), "person-written") {
				t.Errorf("the write to the person's config.toml succeeded: %q", report)
			}
			home1, _, _ := strings.Cut(strings.TrimPrefix(string(report), "home="), "\n")
			if !strings.Contains(filepath.Base(home1), "acp-bridge-codex-home-") {
				t.Fatalf("CODEX_HOME inside the sandbox is %q, want the private directory (report %q)", home1, report)
			}
			for _, want := range []string{"private-written", "session-written"} {
				if !strings.Contains(string(report), want) {
					t.Errorf("report %q lacks %s", report, want)
				}
			}
			seen, _ := os.ReadFile(filepath.Join(ws, "seen.toml"))
			if want := person + "notify = [\"evil-private\"]\n"; string(seen) != want {
				t.Errorf("the private config.toml held %q, want the person's copied and the write: %q", seen, want)
			}
			if _, err := os.Stat(filepath.Join(home, ".codex", "sessions", "rollout-test.jsonl")); err != nil {
				t.Errorf("a session written through the private CODEX_HOME is not in the person's: %v", err)
			}
			// The private directory is discarded once the agent has exited.
			_ = p.stdin.Close()
			select {
			case err := <-p.done:
				p.done <- err
			case <-time.After(20 * time.Second):
				t.Fatal("acp-bridge did not exit after stdin closed")
			}
			if _, err := os.Lstat(home1); !os.IsNotExist(err) {
				t.Errorf("the private CODEX_HOME %s is still there after the bridge exited (%v)", home1, err)
			}
			if got, _ := os.ReadFile(personConfig); string(got) != person {
				t.Errorf("the person's config.toml changed: %q", got)
			}
		})
	}
}
