package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// requestFloodAgent is an ACP agent that, on session/prompt (once the file
// GATE exists, when given), sends N
// extension requests (passed through to the editor) of SIZE bytes each
// without waiting for their answers, says "flood sent" on stderr, answers
// the prompt, then counts the answers to its requests as they come and
// reports "answered A refused R" (R: errors naming the in-flight bound) at
// every hundredth and at the last.
const requestFloodAgent = `
import sys, json, os, time
N, SIZE = int(sys.argv[1]), int(sys.argv[2])
GATE = sys.argv[3] if len(sys.argv) > 3 else ""
out = sys.stdout
answered = refused = 0
def send(o):
    out.write(json.dumps(o) + "\n"); out.flush()
for line in sys.stdin:
    try:
        m = json.loads(line)
    except Exception:
        continue
    if "method" not in m:
        i = m.get("id")
        if isinstance(i, int) and i >= 100000:
            answered += 1
            if "too many requests in flight for the editor" in json.dumps(m.get("error", "")):
                refused += 1
            if answered % 100 == 0 or answered == N:
                sys.stderr.write("answered %d refused %d\n" % (answered, refused)); sys.stderr.flush()
        continue
    if "id" not in m:
        continue
    meth, i = m["method"], m["id"]
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif meth == "session/new":
        send({"jsonrpc": "2.0", "id": i, "result": {"sessionId": "s1"}})
    elif meth == "session/prompt":
        sys.stderr.write("prompt received\n"); sys.stderr.flush()
        while GATE and not os.path.exists(GATE):
            time.sleep(0.05)
        pad = "x" * SIZE
        for k in range(N):
            out.write(json.dumps({"jsonrpc": "2.0", "id": 100000 + k, "method": "_rt/flood", "params": {"k": k, "pad": pad}}) + "\n")
        out.flush()
        sys.stderr.write("flood sent\n"); sys.stderr.flush()
        send({"jsonrpc": "2.0", "id": i, "result": {"stopReason": "end_turn"}})
    else:
        send({"jsonrpc": "2.0", "id": i, "result": {}})
`

var answeredRE = regexp.MustCompile(`answered (\d+) refused (\d+)`)

// answers is the agent's last "answered A refused R" report.
func answers(stderr string) (answered, refused int) {
	all := answeredRE.FindAllStringSubmatch(stderr, -1)
	if len(all) == 0 {
		return 0, 0
	}
	last := all[len(all)-1]
	answered, _ = strconv.Atoi(last[1])
	refused, _ = strconv.Atoi(last[2])
	return answered, refused
}

// waitStderr polls (bounded) until cond holds for the bridge's stderr
// (where the agent's stderr is logged). It asserts nothing about timing.
func waitStderr(t *testing.T, p *bridgeProc, what string, cond func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond(p.stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func floodConfig(t *testing.T, script string, n, size int, more ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.py")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	args := fmt.Sprintf("%q, \"%d\", \"%d\"", path, n, size)
	for _, a := range more {
		args += fmt.Sprintf(", %q", a)
	}
	return fmt.Sprintf("defaultAgent: f\nlog: {level: info}\nsandbox: {enabled: false}\nagents:\n  f:\n    command: python3\n    args: [%s]\n", args)
}

// An agent's requests are each handled in a goroutine that holds the
// request until it is answered; with an editor that does not read, the
// child's read loop must go on reading (updates, answers), so the requests
// an agent may have in flight are bounded (bridge/inflight.go): past the
// bound each is answered at once with an error, and the bridge stays under
// the bound TestFloodWithStalledEditor sets for updates. Every request is
// answered exactly once: the refused ones at once, the others when the
// editor reads again.
func TestRequestFloodWithStalledEditorIsBounded(t *testing.T) {
	n, size := 1500, 100<<10
	p := start(t, startOpts{config: floodConfig(t, requestFloodAgent, n, size)})
	p.init()
	sid := p.session("")
	bridge := p.cmd.Process.Pid
	p.valve.shut()
	res := p.promptAsync(sid, "go")
	// The refused requests are answered with the editor still stalled.
	waitStderr(t, p, "the agent's flood and the refusals", func(s string) bool {
		a, _ := answers(s)
		return strings.Contains(s, "flood sent") && a >= n/2
	})
	rss, hwm := memory(t, bridge)
	answered, refused := answers(p.stderr.String())
	t.Logf("stalled editor, agent sent %d requests of %d KiB: %d answered (%d refused) so far; bridge VmRSS %d MiB, VmHWM %d MiB",
		n, size>>10, answered, refused, rss>>20, hwm>>20)
	if rss > 200<<20 {
		t.Fatalf("bridge VmRSS %d MiB with a stalled editor and an agent flooding requests, want < 200 MiB (bounded as for updates)", rss>>20)
	}
	// (The editor may have taken a request or two before it stalled.)
	if refused < n/2 || answered >= n {
		t.Fatalf("with the editor stalled the agent got %d answers, %d of them refusals naming the bound: want refusals, and fewer answers than %d requests", answered, refused, n)
	}
	// The editor reads again: the requests it was holding are answered
	// (the test editor has no _rt/flood: method not found), so every one
	// of the agent's requests has had its answer.
	p.valve.release()
	waitStderr(t, p, "an answer to every request", func(s string) bool {
		a, _ := answers(s)
		return a == n
	})
	answered, refused = answers(p.stderr.String())
	if refused == n || refused < n/2 {
		t.Fatalf("%d of %d requests refused: want the bound's worth reaching the editor and the rest refused", refused, n)
	}
	if r := wait(t, res, "the flood prompt"); r.err != nil || r.stop != acp.StopEndTurn {
		t.Fatalf("flood prompt: %q %v", r.stop, r.err)
	}
	forwarded := 0
	for _, m := range p.editor.Messages() {
		if m.Method == "_rt/flood" {
			forwarded++
		}
	}
	if forwarded != n-refused {
		t.Fatalf("the editor got %d of the agent's requests, want the %d not refused", forwarded, n-refused)
	}
	_, hwm = memory(t, bridge)
	t.Logf("after the flood: %d requests reached the editor; bridge VmHWM %d MiB", forwarded, hwm>>20)
	if hwm > 200<<20 {
		t.Fatalf("bridge VmHWM %d MiB over the request flood, want < 200 MiB", hwm>>20)
	}
}

// With --attach-dir and no editor attached, the bridge's requests wait in
// the front for the next editor; an agent's flood of extension requests
// (no policy in the way) is bounded by the bridge's in-flight bound, and
// what the front keeps by its own (internal/attach: PendingRequests,
// PendingBytes). Past them the agent is answered with an error at once.
func TestRequestFloodWhileDetachedIsBounded(t *testing.T) {
	n, size := 1500, 100<<10
	gate := filepath.Join(t.TempDir(), "go")
	p := start(t, startOpts{config: floodConfig(t, requestFloodAgent, n, size, gate),
		args: []string{"--attach-dir", filepath.Join(t.TempDir(), "attach"), "--attach-buffer", "1048576"}})
	p.init()
	sid := p.session("")
	bridge := p.cmd.Process.Pid
	_ = p.promptAsync(sid, "go")
	waitStderr(t, p, "the prompt at the agent", func(s string) bool { return strings.Contains(s, "prompt received") })
	// The window reloads: no editor attached. Then the agent floods.
	if err := p.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	waitStderr(t, p, "the bridge detached", func(s string) bool { return strings.Contains(s, "editor detached") })
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitStderr(t, p, "the agent's flood and the refusals", func(s string) bool {
		a, _ := answers(s)
		return strings.Contains(s, "flood sent") && a >= n/2
	})
	rss, hwm := memory(t, bridge)
	answered, refused := answers(p.stderr.String())
	t.Logf("detached, agent sent %d requests of %d KiB: %d answered (%d refused); bridge VmRSS %d MiB, VmHWM %d MiB",
		n, size>>10, answered, refused, rss>>20, hwm>>20)
	if rss > 200<<20 {
		t.Fatalf("bridge VmRSS %d MiB while detached with --attach-buffer 1 MiB, want bounded", rss>>20)
	}
	if refused != answered || answered >= n {
		t.Fatalf("with no editor attached the agent got %d answers, %d of them refusals naming the bound: want only refusals, and fewer than %d", answered, refused, n)
	}
	// No editor comes back within this test: stop the bridge rather than
	// wait out the grace period.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitExit("SIGTERM")
}

// heldUpdatesAgent, at its second session/new, sends N session/update
// notifications of SIZE bytes, each for a different unknown session id,
// before answering (after a pause).
const heldUpdatesAgent = `
import sys, json, time
N, SIZE = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout
news = 0
def send(o):
    out.write(json.dumps(o) + "\n"); out.flush()
for line in sys.stdin:
    try:
        m = json.loads(line)
    except Exception:
        continue
    if "method" not in m or "id" not in m:
        continue
    meth, i = m["method"], m["id"]
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif meth == "session/new":
        news += 1
        if news == 2:
            pad = "x" * SIZE
            for k in range(N):
                out.write(json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "held-%d" % k, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": pad}}}}) + "\n")
            out.flush()
            sys.stderr.write("flood sent\n"); sys.stderr.flush()
            time.sleep(8)
        send({"jsonrpc": "2.0", "id": i, "result": {"sessionId": "s%d" % news}})
    else:
        send({"jsonrpc": "2.0", "id": i, "result": {}})
`

// Updates for unknown child session ids are held while a session/new is in
// flight; the agent decides when its answer comes and may name any number
// of ids, so what is held is bounded across ids (bridge/updates.go). The
// editor reads normally here: past the bound the updates go to the agent's
// active session at once, and none is lost.
func TestHeldUpdatesForManyUnknownSessionsAreBounded(t *testing.T) {
	n, size := 3000, 100<<10
	p := start(t, startOpts{config: floodConfig(t, heldUpdatesAgent, n, size)})
	p.init()
	_ = p.session("")
	bridge := p.cmd.Process.Pid
	opened := make(chan error, 1)
	go func() {
		_, err := p.editor.NewSession(tctx(t), p.ws, "")
		opened <- err
	}()
	waitStderr(t, p, "the agent's flood", func(s string) bool { return strings.Contains(s, "flood sent") })
	// While the agent still holds back its answer (8 s), everything past
	// the bound has reached the editor.
	big := func(msgs []testkit.Message) int {
		c := 0
		for _, m := range msgs {
			if m.Method == acp.MethodSessionUpdate && len(m.Params) > size {
				c++
			}
		}
		return c
	}
	var during int
	deadline := time.Now().Add(60 * time.Second)
	for {
		if during = big(p.editor.Messages()); during >= n/2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d updates for unknown sessions reached the editor while the session/new answer was held back", during, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rss, hwm := memory(t, bridge)
	t.Logf("editor reading; agent held back its session/new answer after %d updates of %d KiB for distinct unknown sessions: %d delivered meanwhile; bridge VmRSS %d MiB, VmHWM %d MiB",
		n, size>>10, during, rss>>20, hwm>>20)
	if rss > 200<<20 {
		t.Fatalf("bridge VmRSS %d MiB holding updates for unknown sessions, want bounded", rss>>20)
	}
	if err := wait(t, opened, "the second session/new"); err != nil {
		t.Fatalf("session/new: %v", err)
	}
	// What was held goes out once no session/new is in flight: none lost.
	if err := p.editor.WaitFor(tctx(t), "every update", func(m []testkit.Message) bool { return big(m) >= n }); err != nil {
		t.Fatalf("%v: %d of %d updates delivered", err, big(p.editor.Messages()), n)
	}
	if got := big(p.editor.Messages()); got != n {
		t.Fatalf("%d updates delivered, want %d", got, n)
	}
}
