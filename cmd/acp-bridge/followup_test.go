package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// followUpMark starts the text of a follow-up prompt as the fake agent
// reports it (testkit: "followup:<prompt>").
const followUpMark = "followup:[acp-bridge] Since your last turn"

// followUps are the follow-up prompts the fake agent got, in order.
func followUps(texts []string) []string {
	var out []string
	for _, s := range texts {
		if strings.HasPrefix(s, followUpMark) {
			out = append(out, s)
		}
	}
	return out
}

// indexOf is the index of the first text with prefix, -1 if none.
func indexOf(texts []string, prefix string) int {
	for i, s := range texts {
		if strings.HasPrefix(s, prefix) {
			return i
		}
	}
	return -1
}

// TestContinueAfterDenyFollowUp: with permissions.continueAfterDeny, an
// agent whose reject ends its turn (here the fake agent with family
// opencode, whose profile says so, as measured) gets one follow-up prompt
// on the same session naming what was refused and why, after the turn it
// ended; the editor's one prompt is answered with the follow-up's stop
// reason and sees its updates after the turn's own. A rule's deny reads
// as the policy's, a person's reason as the person's. Without the setting,
// or for an agent whose reject lets its turn go on, nothing is sent.
func TestContinueAfterDenyFollowUp(t *testing.T) {
	for _, c := range []struct {
		name, cfg, family string
		reason            string // the person's, on the card; "" = a rule denies
		want, not         []string
		followUps         int
	}{
		{name: "rule deny", cfg: "permissions: {deny: [\"Bash(rm *)\"], continueAfterDeny: true}\n", family: "opencode",
			want: []string{"Bash(rm -rf build) was denied: acp-bridge's policy denied it", "Bash(rm *)", "not from the person"}, not: []string{"the person said", "the person denied"}, followUps: 1},
		{name: "the person's reason", cfg: "permissions: {continueAfterDeny: true}\n", family: "opencode", reason: "not on the build machine",
			want: []string{"Bash(rm -rf build) was denied: the person said: not on the build machine"}, not: []string{"policy denied"}, followUps: 1},
		{name: "the person's deny without words (told: the setting implies it)", cfg: "permissions: {continueAfterDeny: true}\n", family: "codex", reason: " ",
			want: []string{"Bash(rm -rf build) was denied: the person denied it"}, not: []string{"the person said", "policy denied"}, followUps: 1},
		{name: "off by default", cfg: "permissions: {deny: [\"Bash(rm *)\"]}\n", family: "opencode"},
		{name: "an agent whose reject goes on", cfg: "permissions: {deny: [\"Bash(rm *)\"], continueAfterDeny: true}\n", family: "gemini"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.MkdirAll(filepath.Join(ws, "build"), 0o755); err != nil {
				t.Fatal(err)
			}
			p := startBinIn(t, t.TempDir(), ws, "defaultAgent: f\n"+c.cfg+"agents:\n"+testkit.FakeAgentYAML("f")+"    family: "+c.family+"\n")
			ctx, sid := p.open(t)
			res := promptAsync(ctx, p, sid, "bash rm -rf build")
			if c.reason != "" {
				perm, err := p.editor.NextPermission(ctx)
				if err != nil {
					t.Fatal(err)
				}
				ans := acp.Selected("acp-bridge:reject_once")
				ans.Meta = json.RawMessage(fmt.Sprintf(`{"acp-bridge":{"reason":%q}}`, c.reason))
				perm.Answer(ans)
			}
			out := <-res
			stop, err := out.stop, out.err
			if err != nil {
				t.Fatal(err)
			}
			if stop != acp.StopEndTurn {
				t.Errorf("stop reason %q, want end_turn", stop)
			}
			if _, err := os.Stat(filepath.Join(ws, "build")); err != nil {
				t.Fatalf("build/ is gone: %v", err)
			}
			texts := testkit.Texts(p.editor.Messages(), sid)
			got := followUps(texts)
			if len(got) != c.followUps {
				t.Fatalf("%d follow-ups, want %d; texts %q", len(got), c.followUps, texts)
			}
			if c.followUps == 0 {
				return
			}
			denied, notice, first := indexOf(texts, "bash=reject"), indexOf(texts, "acp-bridge: f's turn ended"), indexOf(texts, followUpMark)
			if denied < 0 || notice < denied || first < notice {
				t.Errorf("want the denied turn's updates, the bridge's notice, then the follow-up's: %q", texts)
			}
			if notice >= 0 && !strings.Contains(texts[notice], c.want[0]) {
				t.Errorf("the notice %q does not show what the agent is told (%q)", texts[notice], c.want[0])
			}
			for _, w := range c.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("the follow-up %q lacks %q", got[0], w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got[0], n) {
					t.Errorf("the follow-up %q says %q", got[0], n)
				}
			}
			// Told once: the next prompt carries no denial block.
			if _, err := p.editor.Prompt(ctx, sid, "echoprompt"); err != nil {
				t.Fatal(err)
			}
			texts = testkit.Texts(p.editor.Messages(), sid)
			if last := texts[len(texts)-1]; strings.Contains(last, "[acp-bridge]") {
				t.Errorf("the denial was told again: %q", last)
			}
		})
	}
}

// TestContinueAfterDenyBounded: an agent denied again in each follow-up
// gets at most 2 follow-ups per editor turn, and the denied command never
// ran.
func TestContinueAfterDenyBounded(t *testing.T) {
	ws := t.TempDir()
	keep := filepath.Join(ws, "build", "keep.txt")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "defaultAgent: f\npermissions: {deny: [\"Bash(rm *)\"], continueAfterDeny: true}\nagents:\n" +
		testkit.FakeAgentYAML("f", "--followup=retry") + "    family: opencode\n"
	p := startBinIn(t, t.TempDir(), ws, cfg)
	ctx, sid := p.open(t)
	stop, err := p.editor.Prompt(ctx, sid, "bash rm -rf build")
	if err != nil {
		t.Fatal(err)
	}
	if stop != acp.StopEndTurn {
		t.Errorf("stop reason %q", stop)
	}
	texts := testkit.Texts(p.editor.Messages(), sid)
	if n := len(followUps(texts)); n != 2 {
		t.Errorf("%d follow-ups, want 2 (the cap); texts %q", n, texts)
	}
	denied := 0
	for _, s := range texts {
		if s == "bash=reject" {
			denied++
		}
	}
	if denied != 3 {
		t.Errorf("%d denied runs, want 3 (the turn and two follow-ups): %q", denied, texts)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the denied rm ran: %v", err)
	}
}

// TestContinueAfterDenyCancel: a cancel from the editor while the
// follow-up runs cancels it: the child is told (it stops waiting) and the
// editor's prompt is answered cancelled.
func TestContinueAfterDenyCancel(t *testing.T) {
	cfg := "defaultAgent: f\npermissions: {deny: [\"Bash(rm *)\"], continueAfterDeny: true}\nagents:\n" +
		testkit.FakeAgentYAML("f", "--followup=wait") + "    family: opencode\n"
	p := startBin(t, cfg)
	ctx, sid := p.open(t)
	res := promptAsync(ctx, p, sid, "bash rm -rf build")
	if err := p.editor.WaitFor(ctx, "the follow-up waiting", func(m []testkit.Message) bool {
		texts := testkit.Texts(m, sid)
		return len(followUps(texts)) == 1 && texts[len(texts)-1] == "waiting"
	}); err != nil {
		t.Fatal(err)
	}
	if err := p.editor.Conn.Notify(ctx, acp.MethodSessionCancel, map[string]string{"sessionId": sid}); err != nil {
		t.Fatal(err)
	}
	out := <-res
	stop, err := out.stop, out.err
	if err != nil {
		t.Fatal(err)
	}
	if stop != acp.StopCancelled {
		t.Errorf("stop reason %q, want cancelled", stop)
	}
	if n := len(followUps(testkit.Texts(p.editor.Messages(), sid))); n != 1 {
		t.Errorf("%d follow-ups after the cancel, want 1", n)
	}
}

// promptResult is a session/prompt's answer, from promptAsync.
type promptResult struct {
	stop string
	err  error
}

// promptAsync sends session/prompt without waiting; its answer arrives on
// the channel returned (buffered: the sender never blocks).
func promptAsync(ctx context.Context, p *proc, sid, text string) <-chan promptResult {
	res := make(chan promptResult, 1)
	go func() {
		stop, err := p.editor.Prompt(ctx, sid, text)
		res <- promptResult{stop, err}
	}()
	return res
}
