package faults

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/bench"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// The editor goes away mid-turn with approvals pending in two agents, one
// of which has spawned a process of its own: every child request gets an
// answer (cancelled), exactly once; every child and grandchild is stopped;
// the bridge exits 0.
func TestEditorDisconnectsMidTurn(t *testing.T) {
	dir := t.TempDir()
	rf, rg := filepath.Join(dir, "f"), filepath.Join(dir, "g")
	p := start(t, startOpts{config: "defaultAgent: f\nagents:\n" + agentYAML("f", rf) + agentYAML("g", rg)})
	p.init()
	sf, sg := p.session("f"), p.session("g")
	p.promptAsync(sf, "spawn\nperm a b\nwait")
	p.promptAsync(sg, "perm c\nwait")
	for range 3 {
		if _, err := p.editor.NextPermission(tctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	var grandchild int
	for _, x := range testkit.Texts(p.editor.Messages(), sf) {
		if v, ok := strings.CutPrefix(x, "spawned="); ok {
			// The pid the agent sees may be its PID namespace's (the OS
			// sandbox); the process is found by its unique command line.
			if _, cmdline, ok := strings.Cut(v, " "); ok {
				grandchild = pidByCmdline(t, cmdline)
			}
		}
	}
	if grandchild == 0 {
		t.Fatalf("the agent did not report its child: %q", testkit.Texts(p.editor.Messages(), sf))
	}
	pf, pg := p.agentPid("f"), p.agentPid("g")
	kids := bench.ChildPIDs(p.cmd.Process.Pid)
	if len(kids) != 2 {
		t.Fatalf("the bridge has children %v, want the 2 agents %d %d", kids, pf, pg)
	}
	_ = p.stdin.Close()
	p.waitExit("the editor closed stdin")
	if p.exit != nil {
		t.Fatalf("bridge exit: %v", p.exit)
	}
	for name, pid := range map[string]int{"agent f": pf, "agent g": pg, "the process agent f spawned": grandchild} {
		waitGone(t, pid, p.cmd.Process.Pid, name)
	}
	answers := readReport(t, rf)
	for id, a := range readReport(t, rg) {
		answers[id] = a
	}
	for _, id := range []string{"a", "b", "c"} {
		if got := answers[id]; len(got) != 1 || got[0] != "cancelled" {
			t.Errorf("the agent's request %s got %q, want one answer: cancelled", id, got)
		}
	}
}

// The editor sends garbage: non-JSON, invalid UTF-8, {}, a line over
// maxLineBytes, a response to an id the bridge never used. Each is dropped
// and logged; the bridge goes on serving.
func TestEditorGarbage(t *testing.T) {
	p := start(t, startOpts{config: "defaultAgent: f\nmaxLineBytes: 4096\nagents:\n" + agentYAML("f", "")})
	garbage := "this is not json\n\xff\xfe\xfd\n{}\n[]\n" + strings.Repeat("z", 5000) + "\n" +
		`{"jsonrpc":"2.0","id":424242,"result":{"outcome":{"outcome":"selected","optionId":"acp-bridge:allow_once"}}}` + "\n"
	if _, err := p.stdin.Write([]byte(garbage)); err != nil {
		t.Fatal(err)
	}
	p.init()
	sid := p.session("")
	if stop, err := p.editor.Prompt(tctx(t), sid, "updates 2"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after garbage: %q %v", stop, err)
	}
	var out any
	err := p.editor.Conn.Call(tctx(t), "_acp-bridge/nonsense", map[string]any{}, &out)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeMethodNotFound {
		t.Fatalf("unknown method: %v, want -32601", err)
	}
	logs := p.stderr.String()
	for _, want := range []string{"dropped a line from the editor", `"kind": "invalid-json"`, `"kind": "line-too-long"`, "no corresponding request"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the bridge's log lacks %s", want)
		}
	}
}

// The editor answers a card, then answers the same approval again through
// approvals/respond, and answers an approval id that never existed: the
// first answer wins, the others get -32002 naming why, the agent gets one
// answer and one resolution is announced.
func TestEditorAnswersTwiceAndUnknown(t *testing.T) {
	report := filepath.Join(t.TempDir(), "answers")
	p := start(t, startOpts{config: "defaultAgent: f\nagents:\n" + agentYAML("f", report)})
	p.init()
	sid := p.session("")
	res := p.promptAsync(sid, "perm twice")
	card, err := p.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	card.Answer(acp.Selected("acp-bridge:allow_once"))
	if r := wait(t, res, "prompt"); r.err != nil {
		t.Fatal(r.err)
	}
	var out any
	err = p.editor.Conn.Call(tctx(t), acp.MethodApprovalsRespond, map[string]any{"approvalId": card.Meta.ApprovalID, "optionId": "acp-bridge:reject_once"}, &out)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
		t.Fatalf("second answer: %v, want -32002", err)
	}
	err = p.editor.Conn.Call(tctx(t), acp.MethodApprovalsRespond, map[string]any{"approvalId": "00000000-0000-0000-0000-000000000000", "optionId": "acp-bridge:allow_once"}, &out)
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
		t.Fatalf("unknown approval: %v, want -32002", err)
	}
	if got := readReport(t, report)["twice"]; len(got) != 1 || got[0] != "allow" {
		t.Fatalf("the agent got %q, want one answer: allow", got)
	}
	if n := len(testkit.Resolved(p.editor.Messages())); n != 1 {
		t.Fatalf("%d resolutions announced, want 1", n)
	}
}

// Races at the timeout: for each of several sessions, session/cancel or the
// editor's answer lands a little before, at, or a little after the moment
// the approval times out. Whoever wins, the agent gets exactly one answer
// that matches the one resolution announced; a late answer changes nothing
// and approvals/respond after the timeout names it.
func TestRacesWithTimeout(t *testing.T) {
	offsets := []time.Duration{-40 * time.Millisecond, -10 * time.Millisecond, 0, 5 * time.Millisecond, 20 * time.Millisecond, 60 * time.Millisecond}
	report := filepath.Join(t.TempDir(), "answers")
	p := start(t, startOpts{config: "defaultAgent: f\napprovals: {timeoutSeconds: 1}\nagents:\n" + agentYAML("f", report)})
	p.init()
	type racer struct {
		kind   string // "cancel" or "answer"
		offset time.Duration
		sid    string
		id     string
		res    <-chan promptResult
	}
	var racers []*racer
	for _, kind := range []string{"cancel", "answer"} {
		for i, off := range offsets {
			r := &racer{kind: kind, offset: off, sid: p.session(""), id: fmt.Sprintf("%s%d", kind, i)}
			racers = append(racers, r)
		}
	}
	for _, r := range racers {
		r.res = p.promptAsync(r.sid, "perm "+r.id)
	}
	cards := map[string]*testkit.PermissionRequest{}
	for range racers {
		c, err := p.editor.NextPermission(tctx(t))
		if err != nil {
			t.Fatal(err)
		}
		cards[c.Meta.ToolCallID] = c
	}
	var wg sync.WaitGroup
	for _, r := range racers {
		c := cards[r.id]
		expires, err := time.Parse(time.RFC3339Nano, c.Meta.ExpiresAt)
		if err != nil {
			t.Fatalf("card %s expiresAt %q: %v", r.id, c.Meta.ExpiresAt, err)
		}
		wg.Add(1)
		time.AfterFunc(time.Until(expires.Add(r.offset)), func() {
			defer wg.Done()
			if r.kind == "cancel" {
				_ = p.editor.Conn.Notify(tctx(t), acp.MethodSessionCancel, map[string]string{"sessionId": r.sid})
			} else {
				c.Answer(acp.Selected("acp-bridge:allow_once"))
			}
		})
	}
	wg.Wait()
	for _, r := range racers {
		if pr := wait(t, r.res, "prompt "+r.id); pr.err != nil {
			t.Fatalf("%s: %v", r.id, pr.err)
		}
	}
	if err := p.editor.WaitFor(tctx(t), "every resolution", func(m []testkit.Message) bool {
		return len(testkit.Resolved(m)) >= len(racers)
	}); err != nil {
		t.Fatal(err)
	}
	resolved := map[string][]map[string]any{}
	for _, x := range testkit.Resolved(p.editor.Messages()) {
		id, _ := x["toolCallId"].(string)
		resolved[id] = append(resolved[id], x)
	}
	answers := readReport(t, report)
	wins := map[string]int{}
	for _, r := range racers {
		rs, got := resolved[r.id], answers[r.id]
		if len(rs) != 1 || len(got) != 1 {
			t.Errorf("%s (%s at %v): %d resolutions, answers %q: want exactly one each", r.id, r.kind, r.offset, len(rs), got)
			continue
		}
		by := rs[0]["by"].(string)
		wins[r.kind+" won by "+by]++
		want := map[string]string{"timeout": "reject", "cancel": "cancelled", "user": "allow"}[by]
		if want == "" || got[0] != want || (by != "timeout" && by != map[string]string{"cancel": "cancel", "answer": "user"}[r.kind]) {
			t.Errorf("%s (%s at %v): resolved by %q, agent got %q", r.id, r.kind, r.offset, by, got[0])
		}
	}
	t.Logf("outcomes: %v", wins)
	// After the timeout, respond names the first resolution.
	var out any
	var ae *acp.Error
	err := p.editor.Conn.Call(tctx(t), acp.MethodApprovalsRespond, map[string]any{"approvalId": cards[racers[len(racers)-1].id].Meta.ApprovalID, "optionId": "acp-bridge:allow_once"}, &out)
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound || !strings.Contains(ae.Message, "already resolved") {
		t.Fatalf("respond after resolution: %v", err)
	}
}
