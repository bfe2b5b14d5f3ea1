package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/settings"
)

// fuzzRig is one Bridge running in this process over in-process pipes, with
// a fake editor and two fake agents (child processes: this test binary).
// Starting agents costs far more than one fuzz iteration, so consecutive
// iterations of one process share a rig (each on sessions of its own), and
// the rig is replaced every fuzzRigUses iterations to keep the editor's
// record of messages small. Fuzz iterations of one process run one at a time.
type fuzzRig struct {
	b      *Bridge
	editor *testkit.Editor
	inW    io.WriteCloser
	store  *settings.Store
	dir    string
	cancel context.CancelFunc
	done   chan struct{}
	uses   int
	logs   *observer.ObservedLogs // the bridge's log (info and up), for failure reports
}

// recentLogs is the tail of the bridge's log.
func (r *fuzzRig) recentLogs(n int) string {
	var all []observer.LoggedEntry
	for _, e := range r.logs.All() {
		if e.Message != "session cancelled" {
			all = append(all, e)
		}
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	var b strings.Builder
	for _, e := range all {
		fmt.Fprintf(&b, "\n  %s %s %v", e.Level, e.Message, e.ContextMap())
	}
	return b.String()
}

const fuzzRigUses = 100

var (
	theFuzzRig *fuzzRig
	fuzzIter   int
)

func fuzzRigFor(t *testing.T) *fuzzRig {
	if r := theFuzzRig; r != nil && r.uses < fuzzRigUses {
		r.uses++
		return r
	}
	closeFuzzRig()
	dir, err := os.MkdirTemp("", "acp-bridge-fuzz")
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	cfg := filepath.Join(dir, "config.yaml")
	config := fmt.Sprintf("defaultAgent: alpha\napprovals: {timeoutSeconds: 600}\naudit: {path: %q}\nagents:\n%s%s",
		filepath.Join(dir, "audit.jsonl"),
		testkit.FakeAgentYAML("alpha", "--report="+filepath.Join(dir, "alpha.report")),
		testkit.FakeAgentYAML("beta", "--report="+filepath.Join(dir, "beta.report")))
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := settings.Load(settings.Options{ConfigFile: cfg, UserConfigDir: dir, WorkspaceDir: ws, Environ: []string{}, Executable: os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	core, logs := observer.New(zap.DebugLevel)
	b := New(Options{Settings: store, Logger: zap.New(core), Version: "fuzz", WorkspaceDir: ws, InitTimeout: 5 * time.Second, StopTimeout: 2 * time.Second})
	r := &fuzzRig{b: b, inW: inW, store: store, dir: dir, cancel: cancel, done: make(chan struct{}), uses: 1, logs: logs}
	go func() {
		defer close(r.done)
		_ = b.Serve(ctx, inR, outW)
		_ = outW.Close()
	}()
	r.editor = testkit.NewEditor(ctx, outR, inW)
	ictx, icancel := context.WithTimeout(ctx, 30*time.Second)
	defer icancel()
	if _, err := r.editor.Initialize(ictx, false, false); err != nil {
		t.Fatal(err)
	}
	theFuzzRig = r
	return r
}

func closeFuzzRig() {
	r := theFuzzRig
	if r == nil {
		return
	}
	theFuzzRig = nil
	r.cancel()
	_ = r.inW.Close()
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
	}
	r.store.Close()
	_ = os.RemoveAll(r.dir)
}

type fuzzSession struct {
	id, agent string
	last      *fuzzPrompt
}

type fuzzPrompt struct {
	s         *fuzzSession
	n         int
	script    string
	marker    string
	updates   int            // agent_message_chunk "<agent>:<i>" texts expected
	answers   map[string]int // answer texts expected, by prefix ("perm", "bash=", "bare=", "subperm=")
	cancelReq bool           // the editor withdrew the prompt with $/cancel_request
	cancel    context.CancelFunc
	done      chan struct{}
	stop      string
	err       error
}

type fuzzCard struct {
	p        *testkit.PermissionRequest
	answered bool
}

var fuzzBash = []string{"ls -la", "rm -rf build", "git push origin main", "cat .env", "touch a && echo b", "npm run test"}

var fuzzOptions = []string{"acp-bridge:allow_once", "acp-bridge:reject_once", "acp-bridge:reject_and_stop", "acp-bridge:allow_session", "not-an-option"}

var fuzzModes = []string{"default", "plan", "dontAsk", "bypassPermissions", "acceptEdits", "fast"}

// FuzzRouter drives random interleavings through a real Bridge: prompts
// whose scripts make the fake agents stream updates and ask permission
// (concurrently, bare, from unknown sub-agent sessions), cards answered,
// answered twice or with options never offered, approvals/respond,
// session/cancel, $/cancel_request, mode changes and garbage lines from
// the editor. After every prompt is done: no panic, every prompt returned,
// every permission request of a child was answered exactly once (never with
// the agent's "always" option), every card the editor saw was answered or
// withdrawn, no approval is left pending, each resolution was announced
// once, and each session's updates arrived in order, before its prompt's end.
func FuzzRouter(f *testing.F) {
	f.Cleanup(closeFuzzRig)
	for _, seed := range [][]byte{
		{0, 0, 1, 13, 4, 0, 0},
		{0, 1, 0, 8, 15, 4, 0, 4, 1},
		{0, 2, 5, 3, 3, 2, 4, 2},
		{8, 0, 3, 0, 0, 0, 1, 2, 1, 9, 0, 4, 0},
		{0, 0, 12, 6, 6, 0, 1, 1, 5, 0, 5, 0, 4, 0},
		{7, 1, 0, 0, 1, 22, 6, 0, 4, 3},
		{0, 0, 1, 1, 1, 9, 0, 4, 2, 5, 2},
		{0, 2, 4, 11, 1, 4, 0},
	} {
		f.Add(seed)
	}
	f.Fuzz(fuzzRouterOnce)
}

// fuzzRouterOnce is one FuzzRouter input: ops decoded from data, then the
// wind-down and the invariants.
func fuzzRouterOnce(t *testing.T, data []byte) {
	{
		r := fuzzRigFor(t)
		fuzzIter++
		iter := fuzzIter // markers must be unique across the rig's life
		// The fuzzing engine kills an input that runs for 10 s without a
		// word; stop at 8 s and say what hung instead.
		begin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		var trace []string
		fail := func(format string, args ...any) {
			logs := r.recentLogs(30)
			closeFuzzRig() // its state is suspect now
			t.Fatalf(format+"\nops: %s\nbridge log:%s", append(args, strings.Join(trace, "; "), logs)...)
		}
		step := func(format string, args ...any) {
			trace = append(trace, fmt.Sprintf("%.0fms ", float64(time.Since(begin).Microseconds())/1000)+fmt.Sprintf(format, args...))
		}
		var sessions []*fuzzSession
		for _, a := range []string{"alpha", "alpha", "beta"} {
			id, err := r.editor.NewSession(ctx, r.b.opts.WorkspaceDir, a)
			if err != nil {
				fail("session/new %s: %v", a, err)
			}
			sessions = append(sessions, &fuzzSession{id: id, agent: a})
		}
		var prompts []*fuzzPrompt
		var cards []*fuzzCard
		drain := func() {
			for {
				select {
				case p := <-r.editor.Permissions:
					cards = append(cards, &fuzzCard{p: p})
				default:
					return
				}
			}
		}
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		// markerSeen reports whether a prompt's child turn has ended.
		markerSeen := func(p *fuzzPrompt) bool {
			for _, x := range testkit.Texts(r.editor.Messages(), p.s.id) {
				if x == p.marker {
					return true
				}
			}
			return false
		}
		// received reports whether the prompt reached its agent (the fake
		// agent records every prompt it gets).
		received := func(p *fuzzPrompt) bool {
			data, _ := os.ReadFile(filepath.Join(r.dir, p.s.agent+".report"))
			return strings.Contains(string(data), "prompt=say "+p.marker+"\n")
		}
		returned := func(p *fuzzPrompt) bool {
			select {
			case <-p.done:
				return true
			default:
				return false
			}
		}
		// settled: the child's turn ended (its last text arrived), or the
		// bridge answered cancelled without ever forwarding the prompt (a
		// session/cancel that followed it on the wire got there first).
		settled := func(p *fuzzPrompt) bool {
			if markerSeen(p) {
				return true
			}
			return returned(p) && p.err == nil && p.stop == acp.StopCancelled && !received(p)
		}
		busy := func(s *fuzzSession) bool {
			return s.last != nil && !settled(s.last)
		}
		open := func() *fuzzCard {
			for _, c := range cards {
				if !c.answered {
					return c
				}
			}
			return nil
		}

		for ops := 0; len(data) > 0 && ops < 24; ops++ {
			op, arg := next(), next()
			drain()
			step("op %d arg %d", op%10, arg)
			switch op % 10 {
			case 0, 1, 2: // a prompt with a script of up to 3 commands
				s := sessions[int(arg)%len(sessions)]
				if busy(s) {
					continue
				}
				p := &fuzzPrompt{s: s, n: len(prompts), answers: map[string]int{}, done: make(chan struct{})}
				var lines []string
				for range 1 + int(arg/3)%3 {
					c := next()
					switch c % 7 {
					case 0:
						n := int(c/7) % 6
						lines = append(lines, fmt.Sprintf("updates %d", n))
						p.updates += n
					case 1:
						ids := []string{"x", "y", "z", "x"}[:1+int(c/7)%4]
						lines = append(lines, "perm "+strings.Join(ids, " "))
						p.answers["perm"]++
					case 2:
						lines = append(lines, "bash "+fuzzBash[int(c/7)%len(fuzzBash)])
						p.answers["bash="]++
					case 3:
						lines = append(lines, fmt.Sprintf("bare t%d", c/7))
						p.answers["bare="]++
					case 4:
						lines = append(lines, "subperm")
						p.answers["subperm="]++
					case 5:
						lines = append(lines, "wait")
					case 6:
						lines = append(lines, "say hello")
					}
				}
				p.marker = fmt.Sprintf("end-%d-%d", iter, len(prompts))
				lines = append(lines, "say "+p.marker)
				p.script = strings.Join(lines, "\n")
				pctx, pcancel := context.WithCancel(ctx)
				p.cancel = pcancel
				s.last = p
				prompts = append(prompts, p)
				go func() {
					defer close(p.done)
					p.stop, p.err = r.editor.Prompt(pctx, s.id, p.script)
				}()
			case 3: // session/cancel
				_ = r.editor.Conn.Notify(ctx, acp.MethodSessionCancel, map[string]string{"sessionId": sessions[int(arg)%len(sessions)].id})
			case 4: // answer a card
				if c := open(); c != nil {
					c.answered = true
					c.p.Answer(acp.Selected(fuzzOptions[int(arg)%len(fuzzOptions)]))
				}
			case 5: // approvals/respond, possibly for a card already answered
				if len(cards) == 0 {
					continue
				}
				c := cards[int(arg)%len(cards)]
				var out any
				err := r.editor.Conn.Call(ctx, acp.MethodApprovalsRespond, map[string]any{
					"approvalId": c.p.Meta.ApprovalID, "optionId": fuzzOptions[int(arg/7)%len(fuzzOptions)]}, &out)
				var ae *acp.Error
				if err != nil && (!errors.As(err, &ae) || (ae.Code != acp.CodeResourceNotFound && ae.Code != acp.CodeInvalidParams)) {
					fail("approvals/respond: %v", err)
				}
			case 6: // $/cancel_request for a prompt in flight that reached its agent
				if len(prompts) > 0 {
					p := prompts[int(arg)%len(prompts)]
					if !returned(p) && received(p) {
						p.cancelReq = true
						p.cancel()
					}
				}
			case 7: // garbage from the editor
				garbage := []string{"not json\n", "{}\n", "\xff\xfe\n", `{"jsonrpc":"2.0","id":987654,"result":{}}` + "\n", "[]\n"}
				if _, err := r.inW.Write([]byte(garbage[int(arg)%len(garbage)])); err != nil {
					fail("write garbage: %v", err)
				}
			case 8: // session/set_mode
				var out any
				_ = r.editor.Conn.Call(ctx, acp.MethodSessionSetMode, map[string]string{
					"sessionId": sessions[int(arg)%len(sessions)].id, "modeId": fuzzModes[int(arg/3)%len(fuzzModes)]}, &out)
			case 9: // let messages flow for a moment
				n := len(r.editor.Messages())
				wctx, wcancel := context.WithTimeout(ctx, time.Duration(arg%20)*time.Millisecond)
				_ = r.editor.WaitFor(wctx, "", func(m []testkit.Message) bool { return len(m) > n })
				wcancel()
			}
		}

		// Wind down: cancel every session, deny every card still open,
		// until every prompt has returned and every child turn has ended.
		// A cancel that overtakes its prompt on the wire cancels nothing
		// (ACP), so sessions still busy are cancelled again now and then.
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		step("wind down")
		for round := 0; ; round++ {
			if round%20 == 0 {
				for _, s := range sessions {
					if round == 0 || busy(s) {
						_ = r.editor.Conn.Notify(ctx, acp.MethodSessionCancel, map[string]string{"sessionId": s.id})
					}
				}
			}
			drain()
			for c := open(); c != nil; c = open() {
				c.answered = true
				c.p.Answer(acp.Selected("acp-bridge:reject_once"))
			}
			ended := true
			for _, p := range prompts {
				ended = ended && returned(p) && settled(p)
			}
			if ended {
				break
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				var texts []string
				for _, s := range sessions {
					state := ""
					if bs, err := r.b.session(s.id); err == nil {
						bs.agent.fwdMu.Lock()
						state = fmt.Sprintf(" [bridge: child %s holding=%v held=%d]", bs.childID, bs.holding, len(bs.held))
						bs.agent.fwdMu.Unlock()
					}
					texts = append(texts, fmt.Sprintf("%s(%s)%s: %q", s.id[:8], s.agent, state, testkit.Texts(r.editor.Messages(), s.id)))
				}
				var reports []string
				for _, a := range []string{"alpha", "beta"} {
					data, _ := os.ReadFile(filepath.Join(r.dir, a+".report"))
					lines := strings.Split(strings.TrimSpace(string(data)), "\n")
					reports = append(reports, fmt.Sprintf("%s: %q", a, lines[max(0, len(lines)-12):]))
				}
				fail("prompts never ended: %s\ntexts: %s\nagent reports (tail): %s\npending approvals: %d, rig use %d", describePrompts(prompts, markerSeen, received), strings.Join(texts, "\n"), strings.Join(reports, "\n"), r.b.broker.Len(), r.uses)
			}
		}

		// Invariants.
		if n := r.b.broker.Len(); n != 0 {
			var pending []string
			for _, a := range r.b.broker.List() {
				fwd, _ := a.Data.(*permission.Forwarded)
				tc := ""
				if fwd != nil {
					tc = string(fwd.ToolCall)
				}
				pending = append(pending, fmt.Sprintf("%s session %s agent %s %s", a.ID, a.SessionID, a.Agent, tc))
			}
			fail("%d approvals still pending after every turn ended: %v\n%s", n, pending, describePrompts(prompts, markerSeen, received))
		}
		for _, c := range cards {
			select {
			case <-c.p.Withdrawn():
			default:
				if !c.answered {
					fail("card %s was neither answered nor withdrawn", c.p.Meta.ApprovalID)
				}
			}
		}
		seen := map[string]int{}
		for _, x := range testkit.Resolved(r.editor.Messages()) {
			id, _ := x["approvalId"].(string)
			seen[id]++
			if seen[id] > 1 {
				fail("approval %s announced resolved %d times", id, seen[id])
			}
		}
		for _, p := range prompts {
			if p.err != nil && !p.cancelReq {
				fail("prompt %q: %v", p.script, p.err)
			}
			if p.err == nil && p.stop != acp.StopEndTurn && p.stop != acp.StopCancelled {
				fail("prompt %q: stop reason %q", p.script, p.stop)
			}
		}
		var forwarded []*fuzzPrompt
		for _, p := range prompts {
			if markerSeen(p) {
				forwarded = append(forwarded, p)
			}
		}
		for _, s := range sessions {
			checkSessionTexts(t, fail, s, forwarded, testkit.Texts(r.editor.Messages(), s.id))
		}
	}
}

func describePrompts(prompts []*fuzzPrompt, markerSeen, received func(*fuzzPrompt) bool) string {
	var b strings.Builder
	for _, p := range prompts {
		returned := false
		select {
		case <-p.done:
			returned = true
		default:
		}
		fmt.Fprintf(&b, "\n  %q returned=%v (%q, %v) received=%v ended=%v cancelReq=%v", p.script, returned, p.stop, p.err, received(p), markerSeen(p), p.cancelReq)
	}
	return b.String()
}

// checkSessionTexts splits a session's texts at its prompts' end markers
// (prompts of a session never overlap: the next starts after the marker)
// and checks each prompt's updates and answers.
func checkSessionTexts(t *testing.T, fail func(string, ...any), s *fuzzSession, prompts []*fuzzPrompt, texts []string) {
	t.Helper()
	var mine []*fuzzPrompt
	for _, p := range prompts {
		if p.s == s {
			mine = append(mine, p)
		}
	}
	i := 0
	for _, p := range mine {
		updates, prev := 0, 0
		answers := map[string]int{}
		for ; i < len(texts) && texts[i] != p.marker; i++ {
			x := texts[i]
			if rest, ok := strings.CutPrefix(x, s.agent+":"); ok {
				n, err := strconv.Atoi(rest)
				if err == nil {
					if n != 1 && n != prev+1 {
						fail("session %s: update %q after %d: out of order (%q)", s.id, x, prev, p.script)
					}
					prev = n
					updates++
					continue
				}
			}
			kind := ""
			switch {
			case strings.HasPrefix(x, "bash="), strings.HasPrefix(x, "bare="), strings.HasPrefix(x, "subperm="):
				kind = x[:strings.IndexByte(x, '=')+1]
				checkAnswer(fail, p, x[len(kind):], x)
			case len(x) > 2 && strings.Contains("xyz", x[:1]) && x[1] == '=':
				kind = "perm"
				// "x=allow y=error:context canceled ...": an answer may hold spaces.
				idx := permAnswer.FindAllStringIndex(x, -1)
				for j, m := range idx {
					end := len(x)
					if j+1 < len(idx) {
						end = idx[j+1][0]
					}
					checkAnswer(fail, p, x[m[1]:end], x)
				}
			case x == "waiting" || x == "hello" || strings.HasPrefix(x, "end-"):
			default:
				fail("session %s: unexpected text %q (%q)", s.id, x, p.script)
			}
			if kind != "" {
				answers[kind]++
			}
		}
		if i == len(texts) {
			fail("session %s: end marker %s of %q never arrived", s.id, p.marker, p.script)
		}
		i++
		if updates != p.updates {
			fail("session %s: %d updates for %q, want %d", s.id, updates, p.script, p.updates)
		}
		for k, want := range p.answers {
			if answers[k] != want {
				fail("session %s: %d %q answers for %q, want %d (every child request answered exactly once)", s.id, answers[k], k, p.script, want)
			}
		}
	}
}

var permAnswer = regexp.MustCompile(`(?:^| )[xyz]=`)

func checkAnswer(fail func(string, ...any), p *fuzzPrompt, ans, text string) {
	switch {
	case ans == "allow" || ans == "reject" || ans == "cancelled":
	case strings.HasPrefix(ans, "error:") && p.cancelReq:
	default:
		fail("the agent got %q in %q for %q: not one allow/reject/cancelled answer", ans, text, p.script)
	}
}
