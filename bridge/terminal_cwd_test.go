package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// TestTerminalCwdIsJudgedAndRunThere (red team 16, the class of
// TestRT16TerminalCwdIsNotJudged): terminal/create's cwd is resolved like
// an fs/* path (links, and a ".." after a link, as the kernel takes them),
// judged as the call's own directory, and the editor is given exactly that
// resolved directory (and, confined, bubblewrap's --chdir). In plan mode a
// relative read is run only when that directory is in the workspace,
// whatever the spelling: an absolute path outside, a link in the workspace
// to outside, a ".." after such a link. Controls: a directory in the
// workspace, plain and through a link, is run (so the test can tell).
func TestTerminalCwdIsJudgedAndRunThere(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "credentials"), []byte("SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := start(t, "defaultAgent: alpha\npermissions: {defaultMode: plan}\nagents:\n"+testkit.FakeAgentYAML("alpha"))
	ws, err := filepath.EvalSymlinks(h.ws)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(ws, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "notes"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"out": outside, "sublink": sub} {
		if err := os.Symlink(to, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	realOutside, err := filepath.EvalSymlinks(outside)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		cwd  string
		argv []string
	}
	var mu sync.Mutex
	var ran []got
	serveTerminals(t, h, func(p termCreate) {
		mu.Lock()
		ran = append(ran, got{cwd: p.Cwd, argv: p.argv()})
		mu.Unlock()
	})
	sid := h.session("")
	confined := sandbox.Probe().Available
	for _, c := range []struct {
		name, cwd, file string
		runIn           string // "": refused
	}{
		{"outside, absolute", realOutside, "credentials", ""},
		{"a link in the workspace to outside", filepath.Join(ws, "out"), "credentials", ""},
		{"a .. after a link to outside", filepath.Join(ws, "out") + "/../" + filepath.Base(realOutside), "credentials", ""},
		{"control: in the workspace", sub, "notes", sub},
		{"control: a link in the workspace to it", filepath.Join(ws, "sublink"), "notes", sub},
	} {
		mu.Lock()
		ran = nil
		mu.Unlock()
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		line := `call terminal/create {"sessionId":"$SID","command":"cat","args":[` + q(c.file) + `],"cwd":` + q(c.cwd) + `}`
		// A card (a read outside the workspace asks) is refused.
		done := h.promptAsync(sid, line+"\nsay done")
		asked := false
	wait:
		for {
			select {
			case res := <-done:
				if res.err != nil {
					t.Fatalf("%s: %v", c.name, res.err)
				}
				break wait
			case p := <-h.editor.Permissions:
				asked = true
				p.Answer(acp.Selected(optRejectOnce))
			}
		}
		if c.runIn != "" && asked {
			t.Errorf("%s: a card for a read in the workspace (control)", c.name)
		}
		mu.Lock()
		r := slices.Clone(ran)
		mu.Unlock()
		switch {
		case c.runIn == "" && len(r) != 0:
			t.Errorf("%s: plan mode ran cat %s in %s (editor got cwd %q)", c.name, c.file, c.cwd, r[0].cwd)
		case c.runIn != "" && len(r) != 1:
			t.Errorf("%s: cat %s in %s was not run (control)", c.name, c.file, c.cwd)
		case c.runIn != "":
			if r[0].cwd != c.runIn {
				t.Errorf("%s: the editor got cwd %q, want the resolved %q", c.name, r[0].cwd, c.runIn)
			}
			if confined {
				i := slices.Index(r[0].argv, "--chdir")
				if i < 0 || i+1 >= len(r[0].argv) || r[0].argv[i+1] != c.runIn {
					t.Errorf("%s: the sandbox runs it elsewhere: %q", c.name, r[0].argv)
				}
			}
		}
	}
}

// TestTerminalInAMaskedDirNeedsACard (red team 16): a terminal/create whose
// cwd (resolved) is a directory the agent's sandbox masks (the bridge's
// hidden attach directory) meets the sandbox bound as an fs/* read of it
// does: in bypassPermissions under allow rules for Bash and Read, a
// breaker's card with no grant; in dontAsk, denied. The editor never runs
// it unless a person allows it once (control: then it runs there).
func TestTerminalInAMaskedDirNeedsACard(t *testing.T) {
	cases := []struct {
		name, mode, answer string
		runs               bool
	}{
		{"bypass, refused", "bypassPermissions", optRejectOnce, false},
		{"bypass, allowed once", "bypassPermissions", optAllowOnce, true},
		{"dontAsk", "dontAsk", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hidden := t.TempDir()
			mustWrite(t, filepath.Join(hidden, "token"), "the token")
			h := startWith(t, "defaultAgent: alpha\napprovals: {timeoutSeconds: 60}\npermissions: {allow: [\"Read\", \"Bash\"]}\nagents:\n"+testkit.FakeAgentYAML("alpha"),
				func(o *Options) { o.HiddenDirs = []string{hidden} })
			var mu sync.Mutex
			var cwds []string
			serveTerminals(t, h, func(p termCreate) {
				mu.Lock()
				cwds = append(cwds, p.Cwd)
				mu.Unlock()
			})
			sid := h.session("")
			setMode(t, h, sid, c.mode)
			if h.bridge.agentFor(t, "alpha").Bound == nil {
				t.Fatal("no sandbox bound computed")
			}
			q, _ := json.Marshal(hidden)
			res := h.promptAsync(sid, `call terminal/create {"sessionId":"$SID","command":"cat","args":["token"],"cwd":`+string(q)+`}`)
			if c.answer != "" {
				p, err := h.editor.NextPermission(tctx(t))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(p.Meta.Breaker, "outside this agent's sandbox: "+hidden+" is unreadable") || p.HasOption(optAllowSession) || p.HasOption(optAllowAlways) {
					t.Errorf("card breaker %q options %+v: want the mask named, no grant", p.Meta.Breaker, p.Options)
				}
				p.Answer(acp.Selected(c.answer))
			}
			turnEnded(t, res)
			mu.Lock()
			defer mu.Unlock()
			if c.runs != (len(cwds) == 1) || c.runs && cwds[0] != hidden {
				t.Fatalf("the editor got terminals in %q; want one in %s: %v", cwds, hidden, c.runs)
			}
		})
	}
}
