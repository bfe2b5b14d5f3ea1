//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An agent's private state home (sandbox/home.go, profiles.PrivateHome),
// through the real binary and the real sandbox, for each profile that
// declares one. The agent rewrites the file the profile copies as the real
// agent does (Codex appends to $CODEX_HOME/config.toml when a preset is
// picked; Qwen Code writes settings.json.tmp, renames settings.json to
// settings.json.orig and the temp file into its place when a model is
// picked) and then tries the person's own file directly (a rename, then a
// write). Confined, the first succeeds on a private copy (fails, the copy
// unchanged, where the profile keeps it read-only: Codex's), the others fail,
// the person's file is unchanged on disk, sessions written through the
// private home land in the person's directory, and the private directory is
// gone once the bridge has exited. The control (sandbox off) shows the same
// script rewriting the person's file.
func TestPrivateStateHome(t *testing.T) {
	requireSandbox(t)
	tests := []struct {
		name           string // the profile's, and the agent's name (which picks the profile)
		env, dir, file string
		person         string // the person's file
		rewrite        string // sh: rewrite "$f" (the file in the home the agent is given) as the agent does
		wantSeen       string // the private file after the rewrite
		readOnly       bool   // the private copy is read-only: the rewrite fails
		session        string // a file the agent keeps across processes, relative to its home
	}{
		{
			name: "codex", env: "CODEX_HOME", dir: ".codex", file: "config.toml",
			person:   "model = \"person-model\"\n",
			rewrite:  `echo 'notify = ["evil-private"]' >> "$f"`,
			wantSeen: "model = \"person-model\"\n",
			readOnly: true,
			session:  "sessions/rollout-test.jsonl",
		},
		{
			name: "qwen", env: "QWEN_HOME", dir: ".qwen", file: "settings.json",
			person:   `{"model": {"name": "person-model"}}`,
			rewrite:  `printf '{"model": {"name": "picked"}, "hooks": "evil-private"}' > "$f.tmp" && mv "$f" "$f.orig" && mv "$f.tmp" "$f" && rm "$f.orig"`,
			wantSeen: `{"model": {"name": "picked"}, "hooks": "evil-private"}`,
			session:  "projects/chat-test.jsonl",
		},
	}
	for _, tc := range tests {
		// $h: the home the agent is given (the person's when none is set).
		attack := `r=report.txt; echo "home=$` + tc.env + `" > $r
h="${` + tc.env + `:-$HOME/` + tc.dir + `}"; f="$h/` + tc.file + `"; p="$HOME/` + tc.dir + `/` + tc.file + `"
{ ` + tc.rewrite + `; } && echo private-written >> $r
cp "$f" seen
mv "$p" "$p.moved" && echo person-renamed >> $r
echo evil-person >> "$p" && echo person-written >> $r
echo '{}' > "$h/` + tc.session + `" && echo session-written >> $r
exec "$0" demo-agent`
		for _, confined := range []bool{true, false} {
			name := tc.name + "/confined"
			if !confined {
				name = tc.name + "/control: sandbox off"
			}
			t.Run(name, func(t *testing.T) {
				home, ws := t.TempDir(), t.TempDir()
				personFile := filepath.Join(home, tc.dir, tc.file)
				if err := os.MkdirAll(filepath.Dir(personFile), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(personFile, []byte(tc.person), 0o600); err != nil {
					t.Fatal(err)
				}
				cfg := "defaultAgent: " + tc.name + "\nagents:\n  " + tc.name + ": {command: sh, args: [\"-c\", " + strconvQuote(attack) + ", \"" + binPath + "\"]}\n"
				if !confined {
					cfg += "sandbox: {enabled: false}\n"
				}
				p := startBinIn(t, home, ws, cfg)
				p.open(t)
				report, _ := os.ReadFile(filepath.Join(ws, "report.txt"))
				got, _ := os.ReadFile(personFile)
				if !confined {
					if !strings.Contains(string(got), "evil-person") || !strings.Contains(string(report), "private-written") {
						t.Fatalf("unconfined, the person's %s was not rewritten (%q; report %q): the attack proves nothing", tc.file, got, report)
					}
					if !strings.Contains(string(report), "home=\n") && !strings.Contains(string(report), "home="+filepath.Join(home, tc.dir)) {
						t.Errorf("unconfined, %s was changed: %q", tc.env, report)
					}
					return
				}
				if string(got) != tc.person {
					t.Errorf("the person's %s changed inside the sandbox: %q", tc.file, got)
				}
				for _, bad := range []string{"person-renamed", "person-written"} {
					if strings.Contains(string(report), bad) {
						t.Errorf("the person's %s: %s succeeded (report %q)", tc.file, bad, report)
					}
				}
				home1, _, _ := strings.Cut(strings.TrimPrefix(string(report), "home="), "\n")
				if filepath.Base(home1) != tc.name+"-home" || !strings.Contains(home1, "/acp-bridge-homes-") {
					t.Fatalf("%s inside the sandbox is %q, want the private directory (report %q)", tc.env, home1, report)
				}
				for _, want := range []string{"private-written", "session-written"} {
					if want == "private-written" && tc.readOnly {
						if strings.Contains(string(report), want) {
							t.Errorf("the read-only private %s was written (report %q)", tc.file, report)
						}
						continue
					}
					if !strings.Contains(string(report), want) {
						t.Errorf("report %q lacks %s", report, want)
					}
				}
				if seen, _ := os.ReadFile(filepath.Join(ws, "seen")); string(seen) != tc.wantSeen {
					t.Errorf("the private %s held %q, want %q", tc.file, seen, tc.wantSeen)
				}
				if _, err := os.Stat(filepath.Join(home, tc.dir, tc.session)); err != nil {
					t.Errorf("a session written through the private %s is not in the person's: %v", tc.env, err)
				}
				// The private directory is discarded once the agent has exited.
				_ = p.stdin.Close()
				select {
				case err := <-p.done:
					p.done <- err
				case <-time.After(20 * time.Second):
					t.Fatal("acp-bridge did not exit after stdin closed")
				}
				if _, err := os.Lstat(filepath.Dir(home1)); !os.IsNotExist(err) {
					t.Errorf("the private %s %s is still there after the bridge exited (%v)", tc.env, home1, err)
				}
				if got, _ := os.ReadFile(personFile); string(got) != tc.person {
					t.Errorf("the person's %s changed: %q", tc.file, got)
				}
				if _, err := os.Lstat(personFile + ".moved"); !os.IsNotExist(err) {
					t.Errorf("the person's %s was moved: %v", tc.file, err)
				}
			})
		}
	}
}

// A Read deny rule on the person's state file holds for the private copy
// the bridge makes (red team 8: the copy in the host's temp directory held
// the person's token where the original was unreadable). The agent reads
// its private copy and the person's file; with the rule neither shows the
// secret; the control (no rule) reads it through the private copy.
func TestPrivateHomeHonoursReadDeny(t *testing.T) {
	requireSandbox(t)
	for _, tc := range []struct{ name, env, dir, file, content string }{
		{"codex", "CODEX_HOME", ".codex", "config.toml", "[mcp_servers.gh]\nenv = { GITHUB_TOKEN = \"ghp_SECRET_rt8\" }\n"},
		{"qwen", "QWEN_HOME", ".qwen", "settings.json", `{"env": {"GITHUB_TOKEN": "ghp_SECRET_rt8"}}`},
	} {
		for _, denied := range []bool{true, false} {
			name := tc.name + "/denied"
			if !denied {
				name = tc.name + "/control: no rule"
			}
			t.Run(name, func(t *testing.T) {
				home, ws := t.TempDir(), t.TempDir()
				personFile := filepath.Join(home, tc.dir, tc.file)
				if err := os.MkdirAll(filepath.Dir(personFile), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(personFile, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
				script := `echo "home=$` + tc.env + `" > seen; cat "$` + tc.env + `/` + tc.file + `" >> seen 2>&1; cat "$HOME/` + tc.dir + `/` + tc.file + `" >> seen 2>&1; exec "$0" demo-agent`
				cfg := "defaultAgent: " + tc.name + "\nagents:\n  " + tc.name + ": {command: sh, args: [\"-c\", " + strconvQuote(script) + ", \"" + binPath + "\"]}\n"
				if denied {
					cfg += "permissions: {deny: [\"Read(~/" + tc.dir + "/" + tc.file + ")\"]}\n"
				}
				p := startBinIn(t, home, ws, cfg)
				p.open(t)
				seen, _ := os.ReadFile(filepath.Join(ws, "seen"))
				if !strings.Contains(string(seen), "/acp-bridge-homes-") || !strings.Contains(string(seen), "/"+tc.name+"-home\n") {
					t.Fatalf("the agent was not given its private home: %q", seen)
				}
				if got := strings.Contains(string(seen), "ghp_SECRET_rt8"); got == denied {
					t.Errorf("the secret was read inside the sandbox: %v, want %v:\n%s", got, !denied, seen)
				}
			})
		}
	}
}
