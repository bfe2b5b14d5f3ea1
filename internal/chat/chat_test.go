package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/acp-bridge/acp-bridge/acp"
)

func TestMain(m *testing.M) {
	stopGrace = 300 * time.Millisecond
	os.Exit(m.Run())
}

// screen is Out: a buffer that can be waited on.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{}, 1)} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	n, err := s.buf.Write(p)
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitCount blocks until sub appears n times on the screen.
func (s *screen) waitCount(t *testing.T, sub string, n int) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for strings.Count(s.String(), sub) < n {
		select {
		case <-s.changed:
		case <-timeout:
			t.Fatalf("timed out waiting for %d× %q; screen:\n%s", n, sub, s.String())
		}
	}
}

type chatRun struct {
	screen  *screen
	pidFile string
	done    chan error
	logs    *observer.ObservedLogs
}

// startChat runs Run against a helper-process agent in mode.
func startChat(t *testing.T, mode string, in io.Reader, tweak func(*Options)) *chatRun {
	t.Helper()
	return startChatCtx(t, context.Background(), mode, in, tweak)
}

func startChatCtx(t *testing.T, ctx context.Context, mode string, in io.Reader, tweak func(*Options)) *chatRun {
	t.Helper()
	cmd, args, pidFile := helperCommand(t, mode)
	core, logs := observer.New(zap.DebugLevel)
	r := &chatRun{screen: newScreen(), pidFile: pidFile, done: make(chan error, 1), logs: logs}
	opts := Options{
		Command:   cmd,
		Args:      args,
		Cwd:       t.TempDir(),
		In:        in,
		Out:       r.screen,
		Logger:    zap.New(core),
		Interrupt: make(chan os.Signal), // never fires unless a test swaps it
	}
	if tweak != nil {
		tweak(&opts)
	}
	go func() { r.done <- Run(ctx, opts) }()
	return r
}

// wait returns Run's result and checks the agent process is gone.
func (r *chatRun) wait(t *testing.T) error {
	t.Helper()
	var err error
	select {
	case err = <-r.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("Run did not return; screen:\n%s", r.screen.String())
	}
	b, rerr := os.ReadFile(r.pidFile)
	if rerr != nil {
		t.Fatalf("agent pid: %v", rerr)
	}
	pid, _ := strconv.Atoi(string(b))
	if runtime.GOOS != "windows" && !processGone(pid) {
		t.Errorf("agent process %d still exists after Run returned", pid)
	}
	return err
}

// inOrder checks that each string appears after the previous one.
func inOrder(t *testing.T, out string, subs ...string) {
	t.Helper()
	pos := 0
	for _, s := range subs {
		i := strings.Index(out[pos:], s)
		if i < 0 {
			t.Errorf("%q missing (in order) after offset %d; screen:\n%s", s, pos, out)
			return
		}
		pos += i + len(s)
	}
}

func TestChatDemoInteractive(t *testing.T) {
	// read: Allow; test: 9 is no option, then Allow; edit: y; rm: n; quit.
	in := strings.NewReader("hello\n2\n9\n2\ny\nn\n/quit\n")
	r := startChat(t, "demo", in, nil)
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := r.screen.String()
	inOrder(t, out,
		"agent: acp-bridge-demo",
		"session: demo-",
		"mode: default (available: default, acceptEdits, plan, bypassPermissions)",
		"> hello\n",
		"Hi! I'm the acp-bridge demo agent. Here is what I'll do: read README.md, run the tests",
		"(thinking) The user said \"hello\".",
		"[plan]\n  [ ] Read README.md\n  [ ] Run the tests\n",
		"[tool] Read README.md (pending)",
		"== Permission: Read README.md ==\n  tool: Read (read)\n  file: ",
		"  [1] Always Allow\n  [2] Allow\n  [3] Reject\nchoose 1-3 (y/n): 2\n-> Allow",
		"[tool] Read README.md (in_progress)",
		"[tool] Read README.md (completed)\n         1\t# demo",
		"== Permission: `go test ./...` ==\n  tool: Bash (execute)\n  $ go test ./...\n  # Run the tests\n",
		"choose 1-3 (y/n): 9\nchoose 1-3 (y/n): 2\n-> Allow",
		"[tool] `go test ./...` (completed)\n    ok  \texample.com/demo\t0.01s",
		"== Permission: Edit main.go ==\n  tool: Edit (edit)\n  --- a/",
		"/main.go\n  -fmt.Println(\"helo\")\n  +fmt.Println(\"hello\")\n",
		"choose 1-3 (y/n): y\n-> Allow",
		"[tool] Edit main.go (completed)",
		"== Permission: `rm -rf build` ==",
		"choose 1-3 (y/n): n\n-> Reject",
		"[tool] `rm -rf build` (failed)\n    Rejected by user",
		"Done. Ran: read, test, edit. Rejected: rm.",
		"[stop: end_turn]",
		"> /quit\n",
	)
	if n := strings.Count(out, "== Permission:"); n != 4 {
		t.Errorf("%d cards, want 4", n)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("ANSI escapes on a non-terminal Out")
	}
	// The agent's stderr went to the logger, not to Out.
	if r.logs.FilterMessage("agent stderr").FilterField(zap.String("line", "helper agent up: demo")).Len() != 1 {
		t.Errorf("agent stderr not logged: %v", r.logs.All())
	}
	if strings.Contains(out, "helper agent up") {
		t.Errorf("agent stderr leaked into Out")
	}
}

func TestChatAutoAnswer(t *testing.T) {
	tests := []struct {
		auto        string
		in          string
		wantCards   int
		wantAnswers []string
		want        []string
	}{
		{AutoAllow, "hello\n", 4, []string{"auto: Allow"}, []string{"Ran: read, test, edit, rm."}},
		{AutoDeny, "hello\n", 4, []string{"auto: Reject"}, []string{"Rejected: read, test, edit, rm.", "[tool] `rm -rf build` (failed)\n    Rejected by user"}},
		// "first" is Claude's "Always Allow": the agent remembers it, so the
		// second turn asks nothing.
		{AutoFirst, "hello\nagain\n", 4, []string{"auto: Always Allow"}, []string{"> again\n", "Ran: read, test, edit, rm.\n[stop: end_turn]"}},
	}
	for _, tt := range tests {
		t.Run(tt.auto, func(t *testing.T) {
			r := startChat(t, "demo", strings.NewReader(tt.in), func(o *Options) { o.AutoAnswer = tt.auto })
			if err := r.wait(t); err != nil {
				t.Fatalf("Run: %v", err)
			}
			out := r.screen.String()
			if n := strings.Count(out, "== Permission:"); n != tt.wantCards {
				t.Errorf("%d cards, want %d", n, tt.wantCards)
			}
			for _, a := range tt.wantAnswers {
				if n := strings.Count(out, a+"\n"); n != tt.wantCards {
					t.Errorf("%d× %q, want %d", n, a, tt.wantCards)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q; screen:\n%s", w, out)
				}
			}
			if strings.Contains(out, "choose") {
				t.Errorf("auto mode asked the person")
			}
		})
	}
}

func TestChatEOF(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		// EOF at the prompt: leave.
		{"idle", "", []string{"session: demo-"}},
		// EOF at a card: the card is cancelled, then the turn, then leave.
		{"at a card", "hello\n", []string{"== Permission: Read README.md ==", "(cancelling: input closed)", "[stop: cancelled]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startChat(t, "demo", strings.NewReader(tt.in), nil)
			if err := r.wait(t); err != nil {
				t.Fatalf("Run: %v", err)
			}
			inOrder(t, r.screen.String(), tt.want...)
			if strings.Contains(r.screen.String(), "[tool] Read README.md (completed)") {
				t.Errorf("the tool ran although its card was cancelled")
			}
		})
	}
}

func TestChatInterrupt(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	intr := make(chan os.Signal)
	r := startChat(t, "demo", inR, func(o *Options) { o.Interrupt = intr })
	write := func(s string) {
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}
	r.screen.waitCount(t, "> ", 1)
	write("hello\n")
	r.screen.waitCount(t, "choose 1-3", 1)
	intr <- os.Interrupt // first Ctrl-C: cancel the turn
	r.screen.waitCount(t, "[stop: cancelled]\n> ", 1)
	write("updates:3\n")
	r.screen.waitCount(t, "[stop: end_turn]", 1)
	intr <- os.Interrupt // Ctrl-C while idle: leave
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	inOrder(t, r.screen.String(),
		"== Permission: Read README.md ==",
		"(cancelling: interrupted)",
		"[stop: cancelled]",
		"> updates:3\nchunk 1chunk 2chunk 3\n[stop: end_turn]",
		"bye",
	)
}

func TestChatSecondInterruptLeavesAStuckTurn(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	intr := make(chan os.Signal)
	r := startChat(t, "stubborn", inR, func(o *Options) { o.Interrupt = intr })
	r.screen.waitCount(t, "> ", 1)
	if _, err := io.WriteString(inW, "hello\n"); err != nil {
		t.Fatal(err)
	}
	r.screen.waitCount(t, "> hello", 1)
	intr <- os.Interrupt
	r.screen.waitCount(t, "(cancelling: interrupted)", 1)
	intr <- os.Interrupt
	// The agent ignores stdin EOF and SIGTERM: it has to be killed.
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r.logs.FilterMessage("agent did not stop; killing it").Len() != 1 && runtime.GOOS != "windows" {
		t.Errorf("the agent was not killed: %v", r.logs.All())
	}
}

func TestChatCommands(t *testing.T) {
	in := "/help\n/mode\n/mode yolo\n/bogus\n/mode plan\n\nhello\n/quit\n"
	r := startChat(t, "demo", strings.NewReader(in), func(o *Options) { o.AutoAnswer = AutoAllow })
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := r.screen.String()
	inOrder(t, out,
		"/mode NAME   switch the session's mode",
		"> /mode\nmode: default (available: default, acceptEdits, plan, bypassPermissions)",
		`> /mode yolo`, `unknown modeId "yolo"; valid ids: default, acceptEdits, plan, bypassPermissions`,
		"unknown command /bogus",
		"> /mode plan\n[mode] plan\n",
		"(Plan mode: I won't fix the greeting in main.go.)",
		"Skipped in plan mode: edit, rm.",
	)
	if n := strings.Count(out, "[mode] plan"); n != 1 {
		t.Errorf("[mode] plan printed %d times", n)
	}
	if n := strings.Count(out, "== Permission:"); n != 2 {
		t.Errorf("%d cards in plan mode, want 2", n)
	}
}

func TestChatBridge(t *testing.T) {
	if sigUser1 == nil {
		t.Skip("needs SIGUSR1")
	}
	inR, inW := io.Pipe()
	defer inW.Close()
	r := startChat(t, "bridge", inR, func(o *Options) { o.Agent = "claude" })
	write := func(s string) {
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}
	r.screen.waitCount(t, "> ", 1)
	write("go\n")
	r.screen.waitCount(t, "== Permission: `git push` ==", 1)
	write("2\n")
	r.screen.waitCount(t, "== Permission: `rm -rf /` ==", 1)
	r.screen.waitCount(t, "choose 1-3", 2)
	b, err := os.ReadFile(r.pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if err := signalProcess(pid, sigUser1); err != nil {
		t.Fatal(err)
	}
	r.screen.waitCount(t, "[stop: end_turn]", 1)
	write("/quit\n")
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	inOrder(t, r.screen.String(),
		"agent: fake-bridge 9.9",
		"agents: demo, claude",
		"session agent: claude", // the bridge saw _meta["acp-bridge"].agent
		"session: bridge-s1",
		"policy mode: default",
		"· allowed by rule Bash(npm run *): Bash(npm run build)",
		"[tool] `git push` (pending)",
		// a bare request ({toolCallId} only), filled from the tool_call
		"== Permission: `git push` ==\n  tool: Bash (execute)\n  $ git push\n  agent: claude\n  specifier: Bash(git push)\n  why: no rule matched\n  mode: default\n  suggested rule: Bash(git push *)\n  [1] Allow once\n  [2] Allow for this session\n  [3] Deny\n",
		"-> Allow for this session",
		"ap-1: acp-bridge:allow_session",
		"== Permission: `rm -rf /` ==\n  kind: execute\n  $ rm -rf /\n  why: circuit breaker\n  rule: breaker: rm -rf of /\n",
		"(card closed: denied by timeout)",
		"ap-2: cancelled",
		"[stop: end_turn]",
	)
	if strings.Contains(r.screen.String(), "· allowed by user") {
		t.Errorf("an approval answered here was echoed as a resolved line")
	}
}

// Permission requests that arrive together are shown one at a time.
func TestChatConcurrentApprovals(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	r := startChat(t, "bridge", inR, nil)
	write := func(s string) {
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}
	r.screen.waitCount(t, "> ", 1)
	write("concurrent\n")
	answer := map[string]string{"A": "1", "B": "3", "C": "2"}
	for k := 1; k <= 3; k++ {
		r.screen.waitCount(t, "choose 1-3", k)
		out := r.screen.String()
		last := out[strings.LastIndex(out, "== Permission: tool ")+len("== Permission: tool "):][:1]
		write(answer[last] + "\n")
	}
	r.screen.waitCount(t, "[stop: end_turn]", 1)
	write("/quit\n")
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := r.screen.String()
	inOrder(t, out, "A=acp-bridge:allow_once\nB=acp-bridge:reject_once\nC=acp-bridge:allow_session\n")
	// Each card was answered before the next one appeared.
	cards := strings.Split(out, "== Permission:")[1:]
	if len(cards) != 3 {
		t.Fatalf("%d cards, want 3", len(cards))
	}
	for i, c := range cards {
		if strings.Count(c, "\n-> ") != 1 {
			t.Errorf("card %d was not answered before the next was shown:\n%s", i, c)
		}
	}
}

func TestChatAgentFailures(t *testing.T) {
	t.Run("no such command", func(t *testing.T) {
		err := Run(context.Background(), Options{Command: "/nonexistent/agent", In: strings.NewReader(""), Out: io.Discard})
		if err == nil || !strings.Contains(err.Error(), "start /nonexistent/agent") {
			t.Errorf("Run = %v", err)
		}
	})
	t.Run("exits at once", func(t *testing.T) {
		r := startChat(t, "exit3", strings.NewReader("hello\n"), nil)
		err := r.wait(t)
		if err == nil || !strings.Contains(err.Error(), "initialize") || !strings.Contains(err.Error(), "exit status 3") {
			t.Errorf("Run = %v", err)
		}
	})
	t.Run("crashes mid-turn", func(t *testing.T) {
		r := startChat(t, "bridge", strings.NewReader("crash\n"), nil)
		err := r.wait(t)
		if err == nil || !strings.Contains(err.Error(), "exit status 4") {
			t.Errorf("Run = %v", err)
		}
		inOrder(t, r.screen.String(), "about to crash", "the agent closed the connection")
	})
	t.Run("bad auto-answer", func(t *testing.T) {
		err := Run(context.Background(), Options{Command: "x", AutoAnswer: "sometimes"})
		if err == nil || !strings.Contains(err.Error(), `unknown auto-answer "sometimes"`) {
			t.Errorf("Run = %v", err)
		}
	})
}

func TestChatContextEnds(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := startChatCtx(t, ctx, "demo", inR, nil)
	r.screen.waitCount(t, "> ", 1)
	cancel()
	if err := r.wait(t); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

func TestChoose(t *testing.T) {
	opts := []acp.PermissionOption{
		{OptionID: "allow_always", Name: "Always Allow", Kind: acp.KindAllowAlways},
		{OptionID: "allow", Name: "Allow", Kind: acp.KindAllowOnce},
		{OptionID: "reject", Name: "Reject", Kind: acp.KindRejectOnce},
	}
	tests := []struct {
		in   string
		want string // "" = no choice
	}{
		{"1", "allow_always"}, {" 2 ", "allow"}, {"3", "reject"}, {"0", ""}, {"4", ""}, {"-1", ""},
		{"y", "allow"}, {"YES", "allow"}, {"n", "reject"}, {"deny", "reject"},
		{"allow_always", "allow_always"}, {"", ""}, {"maybe", ""},
	}
	for _, tt := range tests {
		o, ok := choose(tt.in, opts)
		if got := o.OptionID; ok != (tt.want != "") || got != tt.want {
			t.Errorf("choose(%q) = %q %v, want %q", tt.in, got, ok, tt.want)
		}
	}
	// y with only an "always" allow, n with none at all.
	only := []acp.PermissionOption{{OptionID: "ok", Kind: acp.KindAllowAlways}}
	if o, ok := choose("y", only); !ok || o.OptionID != "ok" {
		t.Errorf("y over allow_always only: %v %v", o, ok)
	}
	if _, ok := choose("n", only); ok {
		t.Errorf("n chose something with no reject option")
	}
}

func TestAutoOption(t *testing.T) {
	claude := []acp.PermissionOption{
		{OptionID: "allow_always", Kind: acp.KindAllowAlways},
		{OptionID: "allow", Kind: acp.KindAllowOnce},
		{OptionID: "reject", Kind: acp.KindRejectOnce},
	}
	codex := []acp.PermissionOption{
		{OptionID: "approved-for-session", Kind: acp.KindAllowAlways},
		{OptionID: "network-policy-amendment-deny", Kind: acp.KindRejectAlways},
	}
	weird := []acp.PermissionOption{{OptionID: "x", Kind: "maybe"}}
	tests := []struct {
		mode string
		opts []acp.PermissionOption
		want string // "" = cancelled
	}{
		{AutoAllow, claude, "allow"},
		{AutoDeny, claude, "reject"},
		{AutoFirst, claude, "allow_always"},
		{AutoAllow, codex, "approved-for-session"},
		{AutoDeny, codex, "network-policy-amendment-deny"},
		{AutoAllow, weird, ""}, // never pick an unknown kind as allow
		{AutoDeny, weird, ""},
		{AutoFirst, nil, ""},
	}
	for _, tt := range tests {
		o, ok := autoOption(tt.mode, tt.opts)
		if ok != (tt.want != "") || o.OptionID != tt.want {
			t.Errorf("autoOption(%s, %v) = %q %v, want %q", tt.mode, tt.opts, o.OptionID, ok, tt.want)
		}
	}
}

func TestPrinterStreams(t *testing.T) {
	var b bytes.Buffer
	p := newPrinter(&b, false)
	p.ask("> ")
	p.answered("hi", true)
	p.chunk("message", "Hello ")
	p.chunk("message", "world")
	p.chunk("thought", "hmm")
	p.chunk("thought", "…")
	p.lines(styleNone, "[tool] x (pending)")
	p.chunk("message", "done\n")
	p.lines(styleNone, "[stop: end_turn]")
	want := "> hi\nHello world\n(thinking) hmm…\n[tool] x (pending)\ndone\n[stop: end_turn]\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	var c bytes.Buffer
	pc := newPrinter(&c, true)
	pc.chunk("thought", "t")
	if c.String() != styleDim+thoughtHead+styleReset+styleDim+"t"+styleReset {
		t.Errorf("coloured thought %q", c.String())
	}
}

func TestRenderHelpers(t *testing.T) {
	var ti toolInfo
	ti.merge(json.RawMessage(`{"toolCallId":"a","title":"t1","kind":"edit","status":"pending","rawInput":{"file_path":"/x"}}`))
	ti.merge(json.RawMessage(`{"toolCallId":"a","status":"completed","rawInput":null}`))
	if ti.Title != "t1" || ti.Kind != "edit" || ti.Status != "completed" || string(ti.RawInput) != `{"file_path":"/x"}` {
		t.Errorf("merge: %+v", ti)
	}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"new file diff", contentLines(json.RawMessage(`[{"type":"diff","path":"/p/a.go","oldText":null,"newText":"x\ny\n"}]`), ""),
			[]string{"--- /dev/null", "+++ b/p/a.go", "+x", "+y"}},
		{"text and terminal", contentLines(json.RawMessage(`[{"type":"content","content":{"type":"text","text":"a\nb\n"}},{"type":"terminal","terminalId":"t9"}]`), "> "),
			[]string{"> a", "> b", "> [terminal t9]"}},
		{"plan", planLines(json.RawMessage(`{"sessionUpdate":"plan","entries":[{"content":"A","status":"completed"},{"content":"B","status":"in_progress"},{"content":"C","status":"pending"}]}`)),
			[]string{"[plan]", "  [x] A", "  [~] B", "  [ ] C"}},
		{"argv command", inputLines(&toolInfo{RawInput: json.RawMessage(`{"command":["git","status"],"cwd":"/r"}`)}),
			[]string{"  $ git status"}},
		{"unknown input", inputLines(&toolInfo{RawInput: json.RawMessage(`{"q":1}`)}),
			[]string{`  input: {"q":1}`}},
	}
	for _, tt := range tests {
		if strings.Join(tt.got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, tt.got, tt.want)
		}
	}
}

// An agent's text cannot steer the terminal: every escape sequence, C0/C1
// control and bidi override it sends, in any text the chat prints, reaches
// the screen made visible, never raw.
func TestChatShowsControlSequences(t *testing.T) {
	r := startChat(t, "hostile", strings.NewReader("go\n"), func(o *Options) { o.AutoAnswer = AutoAllow })
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := r.screen.String()
	for i := 0; i < len(out); {
		c, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			t.Fatalf("raw byte %#x at %d; screen:\n%q", out[i], i, out)
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f, c >= 0x80 && c <= 0x9f, isBidiControl(c):
			t.Fatalf("raw control %U at %d; screen:\n%q", c, i, out)
		}
		i += size
	}
	// Each place shows the sequences, visibly.
	want := `^[[2J^[[H|^[]52;c;ZWNobyBwd25lZA==^G|^[]0;owned^G^[]2;owned^[\|^[]8;;https://evil.example^[\click^[]8;;^[\|^[[1;33m== Permission: fake ==^[[0m|<U+009B>2J<U+009D>0;t<U+009C>|^@^G^H^K^L^N^?^M|abc<U+202E>gnp.exe<U+202C> <U+2066>x<U+2069>`
	for _, place := range []string{"thought:", "[tool] title:", "out:", "+++ b/d", "+new:", "plan:", "[mode] mode:", "[title] stitle:",
		"== Permission: card:", "$ ccmd:", "why: why:", "specifier: spec:", "agent: agent:", "[1] opt:", "auto: opt:", "[error] "} {
		if !strings.Contains(out, place) {
			t.Errorf("nothing printed at %q; screen:\n%s", place, out)
			continue
		}
		if place == "[error] " {
			if !strings.Contains(out, "err:"+want) {
				t.Errorf("the error is not shown visibly; screen:\n%s", out)
			}
			continue
		}
		if !strings.Contains(out, place+want) {
			i := strings.Index(out, place)
			t.Errorf("at %q: %q..., want %q", place, out[i:min(len(out), i+len(place)+len(want))], place+want)
		}
	}
	if !strings.Contains(out, "msg0:^[[2J^[[H\n") {
		t.Errorf("message chunks are not shown visibly; screen:\n%s", out)
	}
}

func TestVisible(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text\twith tab\n", "plain text\twith tab\n"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"line\r\nnext\rover", "line\nnext^Mover"},
		{"\x1b[31mred", "^[[31mred"},
		{"\u0085\u009f\u00a0", "<U+0085><U+009F>\u00a0"},
		{"\xc2", `\xC2`},
		{"\u200eltr\u200f\u061c", "<U+200E>ltr<U+200F><U+061C>"},
	}
	for _, c := range cases {
		if got := visible(c.in); got != c.want {
			t.Errorf("visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
