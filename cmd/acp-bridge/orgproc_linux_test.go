package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opatest"
)

const allowLsPolicy = `package acp

default decision := "ask"

decision := "allow" if {
	startswith(input.call.command, "ls")
}
`

// The companion runs OPA; a bridge without it beside its own executable
// asks every call OPA would have decided (here, OPA would allow), and
// never runs an acp-bridge-org planted in the workspace or on PATH. The
// control, the same bridge with its companion beside it, lets OPA allow
// the call without a card.
func TestOPACompanionMissingAsksThroughBinary(t *testing.T) {
	priv, pub := opatest.Keys(t)
	srv := &bundleServer{}
	srv.set(opatest.Build(t, allowLsPolicy, "rev-1", priv))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	indent := "      " + strings.ReplaceAll(strings.TrimSpace(pub), "\n", "\n      ")
	managed := fmt.Sprintf("opa:\n  bundleUrl: %s/b/acp.tar.gz\n  pollMinSeconds: 1\n  pollMaxSeconds: 1\n  signingKeyId: org\n  signingKey: |\n%s\n  query: data.acp.decision\n  timeoutMs: 20000\n",
		hs.URL, indent)

	// The bridge alone in a directory of its own.
	lonely := filepath.Join(t.TempDir(), "acp-bridge")
	data, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lonely, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// Planted companions: they would leave a mark.
	mark := filepath.Join(t.TempDir(), "planted-ran")
	plant := fmt.Sprintf("#!/bin/sh\ntouch %q\nexit 1\n", mark)
	pathDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(pathDir, "acp-bridge-org"), []byte(plant), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))

	for _, c := range []struct {
		name      string
		bin       string
		wantsCard bool
	}{
		{"control-companion-beside", binPath, false},
		{"companion-missing", lonely, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := managedNS(t, map[string]string{"managed-settings.yaml": managed})
			// Run c.bin in place of binPath (the wrapper drops binPath).
			prefix = append(prefix, "sh", "-c", `shift; exec "$0" "$@"`, c.bin)
			home, ws := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "acp-bridge-org"), []byte(plant), 0o755); err != nil {
				t.Fatal(err)
			}
			p := startBinVia(t, prefix, home, ws, "defaultAgent: f\nagents:\n"+testkit.FakeAgentYAML("f"))
			cx, sid := p.open(t)
			if c.wantsCard {
				waitLog(t, p, "acp-bridge-org is not running")
			} else {
				waitLog(t, p, `"revision": "rev-1"`)
			}
			res := make(chan error, 1)
			go func() { _, err := p.editor.Prompt(cx, sid, "bash ls -la"); res <- err }()
			if c.wantsCard {
				perm, err := p.editor.NextPermission(cx)
				if err != nil {
					t.Fatal(err)
				}
				if perm.Meta.Source != "opa-no-verdict" || !strings.Contains(perm.Meta.Reason, "acp-bridge-org") {
					t.Errorf("card source %q reason %q, want opa-no-verdict naming the companion", perm.Meta.Source, perm.Meta.Reason)
				}
				perm.Answer(acp.Selected("acp-bridge:reject_once"))
			}
			select {
			case err := <-res:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the prompt did not end (a card nobody answered?)")
			}
			got := testkit.Texts(p.editor.Messages(), sid)
			want := "bash=allow"
			if c.wantsCard {
				want = "bash=reject"
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("texts %q, want %s", got, want)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Errorf("a planted acp-bridge-org ran")
			}
		})
	}
}
