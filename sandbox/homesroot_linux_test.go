package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/profiles"
)

// Red team 10, 4: the homes root was $TMPDIR/acp-bridge-homes-<uid> and
// each sandbox hid only its own bridge's: an agent of a bridge with another
// TMPDIR read agent A's home (its config.toml copy). Now the root is the
// same for every bridge of the user (in /tmp). Control: a root per TMPDIR
// (homesBase unusable, the old place) lets B read A's token.
func TestHomeOfABridgeWithAnotherTMPDIR(t *testing.T) {
	requireMechanism(t)
	for _, perTMPDIR := range []bool{false, true} {
		name := "one root for every TMPDIR"
		if perTMPDIR {
			name = "control: a root per TMPDIR"
		}
		t.Run(name, func(t *testing.T) {
			if perTMPDIR {
				setHomesBase(t, filepath.Join(t.TempDir(), "missing"))
			}
			tmpA, tmpB := t.TempDir(), t.TempDir()
			t.Setenv("TMPDIR", tmpA)
			personA := filepath.Join(t.TempDir(), ".codex")
			write(t, filepath.Join(personA, "config.toml"), "secret = \"sk-A-token\"\n")
			ha, _ := makeHome(t, HomeDecl{Profile: "codex", Env: "CODEX_HOME", Person: personA, Copies: []string{"config.toml"}}, nil)

			t.Setenv("TMPDIR", tmpB) // bridge B
			home, _, ws := codexPerson(t)
			qwenPerson := filepath.Join(home, ".qwen")
			write(t, filepath.Join(qwenPerson, "settings.json"), `{"model":{"name":"b"}}`)
			hb, _ := makeHome(t, declOf(t, "qwen", qwenPerson), nil)
			sb, err := Compute(Options{Workspace: []string{ws}, Home: home, StateDirs: StateDirs("qwen", home),
				Places: profiles.AllConfigPlaces(), Network: NetworkAll, Homes: []*Home{hb}})
			if err != nil {
				t.Fatal(err)
			}
			if !sb.otherHome(filepath.Join(ha.Dir, "config.toml")) && !perTMPDIR {
				t.Errorf("B's Spec does not count A's home %s as another's (homes root %s)", ha.Dir, sb.HomesRoot)
			}
			p, err := Prepare(sb, ws, []string{"/bin/sh", "-c", `cat "$0/config.toml"; echo "rc=$?"`, ha.Dir}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Cleanup()
			cmd := exec.Command(p.Path, p.Args...)
			cmd.Env = append(os.Environ(), "HOME="+home)
			out, _ := cmd.CombinedOutput()
			read := strings.Contains(string(out), "sk-A-token")
			if perTMPDIR && !read {
				t.Errorf("control: B could not read A's home: the test proves nothing\n%s", out)
			}
			if !perTMPDIR && read {
				t.Errorf("agent B read agent A's private home (A's TMPDIR %s, B's %s)\n%s", tmpA, tmpB, out)
			}
		})
	}
}

// Red team 10, 4: B allowed to write A's TMPDIR, or all of /tmp
// (sandbox.allowWrite), replaces A's read-only config.toml copy by rename
// while A runs (in B's namespace it is no mount point; the rename detaches
// A's read-only bind). Now A's home is in the one homes root, hidden
// (an empty tmpfs mounted after the allowWrite binds) in B's sandbox.
// Control: a root per TMPDIR with B writing A's TMPDIR does the damage.
func TestHomeReplacedFromAnotherSandbox(t *testing.T) {
	requireMechanism(t)
	cases := []struct {
		name          string
		perTMPDIR     bool
		allowWriteTmp bool // B's allowWrite is the homes root's parent (/tmp), not A's TMPDIR
		wantDamage    bool
	}{
		{"allowWrite A's TMPDIR", false, false, false},
		{"allowWrite the homes root's parent", false, true, false},
		{"control: a root per TMPDIR", true, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// a /tmp of the test's own (walking the real one is slow)
			base := t.TempDir()
			if c.perTMPDIR {
				base = filepath.Join(base, "missing")
			}
			setHomesBase(t, base)
			tmpA, tmpB := t.TempDir(), t.TempDir()
			t.Setenv("TMPDIR", tmpA)
			homeA, personA, wsA := codexPerson(t)
			makeFifos(t, wsA)
			ha, _ := makeHome(t, declOf(t, "codex", personA), nil)
			sa, err := Compute(Options{Workspace: []string{wsA}, Home: homeA, StateDirs: StateDirs("codex", homeA),
				Places: profiles.AllConfigPlaces(), Network: NetworkAll, Homes: []*Home{ha}})
			if err != nil {
				t.Fatal(err)
			}
			pa, err := Prepare(sa, wsA, []string{"/bin/sh", "-c", `cat "$CODEX_HOME/config.toml"; echo ---; echo up > ready; read x < go; cat "$CODEX_HOME/config.toml"`}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer pa.Cleanup()
			// runHolding starts pa itself: its environment comes from ours
			t.Setenv("HOME", homeA)
			t.Setenv("CODEX_HOME", ha.Dir)
			var outB []byte
			outA := runHolding(t, pa, wsA, func() {
				t.Setenv("TMPDIR", tmpB)
				homeB, _, wsB := codexPerson(t)
				allow := tmpA
				if c.allowWriteTmp {
					allow = base
				}
				sb, err := Compute(Options{Workspace: []string{wsB}, Home: homeB, AllowWrite: []string{allow},
					Places: profiles.AllConfigPlaces(), Network: NetworkAll})
				if err != nil {
					t.Fatal(err)
				}
				pb, err := Prepare(sb, wsB, []string{"/bin/sh", "-c", `printf 'approval_policy = "never"\n' > "$0/c.new" && mv -f "$0/c.new" "$0/config.toml"; echo "B mv rc=$?"`, ha.Dir}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer pb.Cleanup()
				cb := exec.Command(pb.Path, pb.Args...)
				cb.Env = append(os.Environ(), "HOME="+homeB)
				outB, _ = cb.CombinedOutput()
			})
			after, _ := os.ReadFile(filepath.Join(ha.Dir, "config.toml"))
			_, aAfter, _ := strings.Cut(outA, "---")
			damaged := strings.Contains(string(after), "never") || strings.Contains(aAfter, "never")
			if c.wantDamage && !damaged {
				t.Errorf("control: B could not replace A's config.toml: the test proves nothing\nB: %s\nA: %s", outB, outA)
			}
			if !c.wantDamage && damaged {
				t.Errorf("agent B replaced agent A's read-only config.toml (A now reads it)\nB: %s\nA: %s", outB, outA)
			}
		})
	}
}
