package faults

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/bench"
	"github.com/acp-bridge/acp-bridge/internal/pipesize"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// A child killed mid-turn with three approvals pending: every card is
// withdrawn and announced resolved by agent-exit, the prompt fails with a
// clear error, the child is reaped (no zombie), the next session restarts it.
func TestChildKilledWithApprovalsPending(t *testing.T) {
	report := filepath.Join(t.TempDir(), "answers")
	p := start(t, startOpts{config: "defaultAgent: f\nagents:\n" + agentYAML("f", report)})
	p.init()
	sid := p.session("")
	res := p.promptAsync(sid, "perm a b c")
	var cards []*testkit.PermissionRequest
	for range 3 {
		c, err := p.editor.NextPermission(tctx(t))
		if err != nil {
			t.Fatal(err)
		}
		cards = append(cards, c)
	}
	pid := p.agentPid("f")
	killTree(t, pid)
	r := wait(t, res, "the prompt of the killed agent")
	var ae *acp.Error
	if !errors.As(r.err, &ae) || !strings.Contains(ae.Message, "agent f exited during session/prompt") || !strings.Contains(ae.Message, "killed") {
		t.Fatalf("prompt error %v (stop %q): want a clear 'agent f exited during session/prompt ... killed'", r.err, r.stop)
	}
	for _, c := range cards {
		select {
		case <-c.Withdrawn():
		case <-time.After(20 * time.Second):
			t.Fatalf("card %s not withdrawn after the agent died", c.Meta.ApprovalID)
		}
	}
	if err := p.editor.WaitFor(tctx(t), "3 approvals resolved by agent-exit", func(m []testkit.Message) bool {
		return resolvedBy(m)["agent-exit"] == 3
	}); err != nil {
		t.Fatalf("%v: resolved %v", err, testkit.Resolved(p.editor.Messages()))
	}
	var list struct {
		Approvals []any `json:"approvals"`
	}
	if err := p.editor.Conn.Call(tctx(t), acp.MethodApprovalsList, map[string]any{}, &list); err != nil || len(list.Approvals) != 0 {
		t.Fatalf("approvals/list after the crash: %v %v", list.Approvals, err)
	}
	waitGone(t, pid, p.cmd.Process.Pid, "the killed agent")
	// Restarted on next use (after the backoff), and it works.
	sid2 := p.session("")
	if stop, err := p.editor.Prompt(tctx(t), sid2, "updates 3"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("after restart: %q %v", stop, err)
	}
	if got := testkit.Texts(p.editor.Messages(), sid2); strings.Join(got, ",") != "f:1,f:2,f:3" {
		t.Fatalf("after restart: %v", got)
	}
}

// An editor that stops reading while the child floods: the bridge stops
// reading the child (its writes stall: back-pressure), its memory stays
// bounded, and when the editor reads again every update arrives, in order,
// before the prompt's answer.
func TestFloodWithStalledEditor(t *testing.T) {
	n, size := 200000, 100
	if raceEnabled {
		n = 50000 // the race detector makes every process here ~8x slower
	}
	p := start(t, startOpts{config: "defaultAgent: f\nlog: {level: info}\nagents:\n" + agentYAML("f", "")})
	p.init()
	sid := p.session("")
	agent := p.agentPid("f")
	bridge := p.cmd.Process.Pid
	p.valve.shut()
	res := p.promptAsync(sid, fmt.Sprintf("flood %d %d", n, size))
	// Wait until the agent's writes stall: wchar unchanged for 1 s.
	var last int64 = -1
	stable := 0
	deadline := time.Now().Add(60 * time.Second)
	for stable < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("the agent never stalled while the editor did not read (wrote %d bytes)", last)
		}
		time.Sleep(50 * time.Millisecond)
		w := bytesWritten(t, agent)
		if w == last {
			stable++
		} else {
			stable, last = 0, w
		}
	}
	total := int64(n * (size + 100)) // each update is its text plus ~100 bytes of JSON
	// What may be in flight when everything stalls: the agent's stdout pipe
	// and the editor's pipe (both grown to pipesize.Default), the editor
	// queue's bound and the buffer it is writing, and read buffers.
	buffered := int64(2*pipesize.Default + 2*256<<10 + 512<<10)
	if last > buffered || last > total/3 {
		t.Fatalf("the agent wrote %d bytes of %d with the editor stalled, more than the %d the pipes and queues hold: no back-pressure", last, total, buffered)
	}
	rss, hwm := memory(t, bridge)
	t.Logf("stalled: agent wrote %d bytes of ~%d; bridge VmRSS %d MiB, VmHWM %d MiB", last, total, rss>>20, hwm>>20)
	if rss > 200<<20 {
		t.Fatalf("bridge VmRSS %d MiB with a stalled editor, want < 200 MiB", rss>>20)
	}
	select {
	case r := <-res:
		t.Fatalf("the prompt ended while the editor was not reading: %+v", r)
	default:
	}
	p.valve.release()
	r := wait(t, res, "the flood prompt")
	if r.err != nil || r.stop != acp.StopEndTurn {
		t.Fatalf("flood prompt: %q %v", r.stop, r.err)
	}
	texts := testkit.Texts(p.editor.Messages(), sid)
	if len(texts) != n {
		t.Fatalf("%d updates delivered, want %d", len(texts), n)
	}
	for i, x := range texts {
		if !strings.HasPrefix(x, fmt.Sprintf("f:%d:", i+1)) {
			t.Fatalf("update %d is %.20q: out of order", i+1, x)
		}
	}
	_, hwm = memory(t, bridge)
	t.Logf("after the flood: bridge VmHWM %d MiB", hwm>>20)
	if hwm > 200<<20 {
		t.Fatalf("bridge VmHWM %d MiB over the flood, want < 200 MiB", hwm>>20)
	}
}

// Garbage mid-turn: non-JSON, a truncated message, bare invalid UTF-8, an
// update holding invalid UTF-8, responses to ids never sent, an unknown
// notification, {} [] null, a line split across writes, and a request with
// an unknown method. The bad lines are dropped and logged, the rest arrives
// in order, the unknown request gets -32601, the connection survives.
func TestChildGarbageMidTurn(t *testing.T) {
	p := start(t, startOpts{config: "defaultAgent: g\nagents:\n" + agentYAML("g", "")})
	p.init()
	sid := p.session("")
	stop, err := p.editor.Prompt(tctx(t), sid, "updates 1\ngarbage\nsplit\nunknownreq\nupdates 2")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt with garbage: %q %v", stop, err)
	}
	texts := testkit.Texts(p.editor.Messages(), sid)
	want := []string{"g:1", "bad-utf8:\ufffd\ufffd:end", "after-garbage", "split-ok", "unknownreq=-32601", "g:1", "g:2"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("texts:\n%q\nwant:\n%q", texts, want)
	}
	for _, m := range p.editor.Messages() {
		if !utf8.Valid(m.Params) {
			t.Fatalf("the editor got invalid UTF-8: %q", m.Params)
		}
	}
	// The bridge still serves the session afterwards.
	if stop, err := p.editor.Prompt(tctx(t), sid, "updates 1"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after garbage: %q %v", stop, err)
	}
	logs := p.stderr.String()
	for _, want := range []string{`"kind": "invalid-json"`, `"kind": "not-a-message"`, "no corresponding request"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the bridge's log lacks %s", want)
		}
	}
}

// A 100 MiB line from a child (over the default 64 MiB bound) is dropped
// and logged; the connection survives and the turn goes on.
func TestChildHundredMiBLine(t *testing.T) {
	p := start(t, startOpts{config: "defaultAgent: l\nagents:\n" + agentYAML("l", "")})
	p.init()
	sid := p.session("")
	stop, err := p.editor.Prompt(tctx(t), sid, fmt.Sprintf("updates 1\nlongline %d\nupdates 1", 100<<20))
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt with a 100 MiB line: %q %v", stop, err)
	}
	texts := testkit.Texts(p.editor.Messages(), sid)
	if strings.Join(texts, "|") != "l:1|after-long|l:1" {
		var short []string
		for _, x := range texts {
			short = append(short, fmt.Sprintf("%.20s", x))
		}
		t.Fatalf("texts %q: want the long line dropped and the rest delivered", short)
	}
	logs := p.stderr.String()
	if !strings.Contains(logs, `"kind": "line-too-long"`) || !strings.Contains(logs, "exceeds the limit of 67108864") {
		t.Fatalf("the dropped line is not logged with its size and the limit:\n%s", tail(logs, 20))
	}
	rss, hwm := memory(t, p.cmd.Process.Pid)
	t.Logf("after a 100 MiB line: bridge VmRSS %d MiB, VmHWM %d MiB", rss>>20, hwm>>20)
}

// A child that never answers initialize (agents.<name>.initTimeoutSeconds:
// 1): session/new fails with an error naming the timeout and the setting,
// the hung child is stopped and reaped, and another agent still works.
func TestChildNeverAnswersInitialize(t *testing.T) {
	hung := strings.Replace(agentYAML("h", "", "--hang-init"), "    command:", "    initTimeoutSeconds: 1\n    command:", 1)
	p := start(t, startOpts{config: "defaultAgent: h\nagents:\n" + hung + agentYAML("ok", "")})
	p.init()
	began := time.Now()
	_, err := p.editor.NewSession(tctx(t), p.ws, "h")
	var ae *acp.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "no answer within 1s") || !strings.Contains(ae.Message, "agents.h.initTimeoutSeconds") {
		t.Fatalf("session/new on a hung agent: %v", err)
	}
	if d := time.Since(began); d > 20*time.Second {
		t.Fatalf("session/new took %s with a 1 s init timeout", d)
	}
	bridge := p.cmd.Process.Pid
	for _, pid := range bench.ChildPIDs(bridge) {
		waitGone(t, pid, bridge, "the agent that never answered initialize")
	}
	sid := p.session("ok")
	if stop, err := p.editor.Prompt(tctx(t), sid, "updates 1"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("the other agent after the hung one: %q %v", stop, err)
	}
}
