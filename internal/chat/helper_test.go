package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/demoagent"
)

// helperCommand returns the command line that runs this test binary as an
// agent (go-plugin style): TestHelperProcess with mode and a pid file.
func helperCommand(t *testing.T, mode string) (string, []string, string) {
	t.Helper()
	pidFile := t.TempDir() + "/pid"
	return os.Args[0], []string{"-test.run=^TestHelperProcess$", "--", mode, pidFile}, pidFile
}

// TestHelperProcess is not a test: it is the agent process of the chat tests.
//
// Modes:
//
//	demo      demoagent.Serve on stdio
//	bridge    a fake acp-bridge: _meta["acp-bridge"], bare permission requests,
//	          approval/resolved notifications (SIGUSR1: resolve ap-2 "by timeout")
//	stubborn  answers initialize and session/new, never ends a prompt, ignores
//	          stdin EOF and SIGTERM
//	exit3     exits with status 3 at once
func TestHelperProcess(t *testing.T) {
	i := slices.Index(os.Args, "--")
	if i < 0 || len(os.Args) < i+3 {
		t.Skip("only runs as the chat tests' agent process")
	}
	mode, pidFile := os.Args[i+1], os.Args[i+2]
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintln(os.Stderr, "helper agent up:", mode)
	ctx := context.Background()
	switch mode {
	case "demo":
		if err := demoagent.Serve(ctx, os.Stdin, os.Stdout, demoagent.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "bridge":
		serveFake(ctx, &fakeBridge{usr1: notifyUser1()})
	case "hostile":
		serveFake(ctx, &fakeBridge{hostile: true})
	case "stubborn":
		ignoreTerm()
		serveFake(ctx, &fakeBridge{stubborn: true})
		time.Sleep(time.Hour) // not select{}: the runtime would call that a deadlock
	case "exit3":
		os.Exit(3)
	}
	os.Exit(0)
}

type fakeBridge struct {
	conn     *acp.Conn
	ready    chan struct{}
	stubborn bool
	hostile  bool // prompts get hostileTurn
	usr1     <-chan os.Signal
}

func serveFake(ctx context.Context, f *fakeBridge) {
	f.ready = make(chan struct{})
	stream := acp.NewStream(os.Stdin, os.Stdout, nil, acp.StreamOptions{})
	f.conn = acp.NewConn(ctx, stream, f, acp.ConnOptions{})
	close(f.ready)
	<-f.conn.Done()
}

func (f *fakeBridge) HandleNotification(context.Context, string, json.RawMessage) {}

func (f *fakeBridge) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	<-f.ready
	switch method {
	case acp.MethodInitialize:
		return map[string]any{
			"protocolVersion": 1,
			"agentInfo":       map[string]string{"name": "fake-bridge", "version": "9.9"},
			"_meta":           map[string]any{acp.MetaKey: map[string]any{"agents": []any{map[string]string{"id": "demo"}, map[string]string{"id": "claude"}}, "defaultAgent": "demo"}},
		}, nil
	case acp.MethodSessionNew:
		obj, err := acp.ParseObject(params)
		if err != nil {
			return nil, err
		}
		var m struct {
			Agent string `json:"agent"`
		}
		if err := acp.BridgeMeta(obj, &m); err != nil {
			return nil, err
		}
		if m.Agent == "" {
			m.Agent = "demo"
		}
		return map[string]any{
			"sessionId": "bridge-s1",
			"modes":     map[string]any{"currentModeId": "default", "availableModes": []any{map[string]string{"id": "default", "name": "Default"}}},
			"_meta":     map[string]any{acp.MetaKey: map[string]string{"agent": m.Agent, "mode": "default"}},
		}, nil
	case acp.MethodSessionPrompt:
		if f.stubborn {
			time.Sleep(time.Hour)
		}
		if f.hostile {
			return f.hostileTurn(ctx)
		}
		if strings.Contains(string(params), "crash") {
			f.say(ctx, "about to crash\n")
			os.Exit(4)
		}
		if strings.Contains(string(params), "concurrent") {
			return f.concurrent(ctx)
		}
		return f.prompt(ctx)
	}
	return nil, acp.MethodNotFound(method)
}

var bridgeOptions = []acp.PermissionOption{
	{OptionID: "acp-bridge:allow_once", Name: "Allow once", Kind: acp.KindAllowOnce},
	{OptionID: "acp-bridge:allow_session", Name: "Allow for this session", Kind: acp.KindAllowAlways},
	{OptionID: "acp-bridge:reject_once", Name: "Deny", Kind: acp.KindRejectOnce},
}

func (f *fakeBridge) update(ctx context.Context, u map[string]any) {
	_ = f.conn.Notify(ctx, acp.MethodSessionUpdate, map[string]any{"sessionId": "bridge-s1", "update": u})
}

func (f *fakeBridge) say(ctx context.Context, s string) {
	f.update(ctx, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": s}})
}

func outcome(r acp.RequestPermissionResponse) string {
	if r.Outcome.Outcome == acp.OutcomeSelected {
		return r.Outcome.OptionID
	}
	return r.Outcome.Outcome
}

func (f *fakeBridge) prompt(ctx context.Context) (any, error) {
	// A decision made without a card.
	_ = f.conn.Notify(ctx, acp.MethodApprovalResolved, map[string]any{
		"approvalId": "ap-0", "sessionId": "bridge-s1", "agent": "claude", "toolCallId": "toolu_0",
		"decision": "allow", "by": "rule", "rule": "Bash(npm run *)", "specifier": "Bash(npm run build)",
	})
	// A tool call, then a bare permission request for it (only its id).
	f.update(ctx, map[string]any{
		"sessionUpdate": "tool_call", "toolCallId": "toolu_1", "title": "`git push`", "kind": "execute",
		"status": "pending", "rawInput": map[string]string{"command": "git push"},
		"_meta": map[string]any{"claudeCode": map[string]string{"toolName": "Bash"}},
	})
	var r1 acp.RequestPermissionResponse
	err := f.conn.Call(ctx, acp.MethodRequestPermission, map[string]any{
		"sessionId": "bridge-s1",
		"toolCall":  map[string]string{"toolCallId": "toolu_1"},
		"options":   bridgeOptions,
		"_meta": map[string]any{acp.MetaKey: map[string]any{
			"approvalId": "ap-1", "agent": "claude", "specifier": "Bash(git push)",
			"reason": "no rule matched", "mode": "default", "suggestedRules": []string{"Bash(git push *)"},
		}},
	}, &r1)
	if err != nil {
		return nil, err
	}
	f.say(ctx, "ap-1: "+outcome(r1)+"\n")

	// A second one, which the bridge resolves elsewhere (a timeout) on SIGUSR1.
	p, err := f.conn.Start(ctx, acp.MethodRequestPermission, map[string]any{
		"sessionId": "bridge-s1",
		"toolCall":  map[string]any{"toolCallId": "toolu_2", "title": "`rm -rf /`", "kind": "execute", "rawInput": map[string]string{"command": "rm -rf /"}},
		"options":   bridgeOptions,
		"_meta": map[string]any{acp.MetaKey: map[string]any{
			"approvalId": "ap-2", "matchedRule": "breaker: rm -rf of /", "reason": "circuit breaker",
		}},
	})
	if err != nil {
		return nil, err
	}
	answered := make(chan acp.RequestPermissionResponse, 1)
	go func() {
		var r acp.RequestPermissionResponse
		if err := p.Wait(ctx, &r); err != nil {
			r = acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "error: " + err.Error()}}
		}
		answered <- r
	}()
	var r2 acp.RequestPermissionResponse
	select {
	case r2 = <-answered:
	case <-f.usr1:
		_ = f.conn.Notify(ctx, acp.MethodApprovalResolved, map[string]any{
			"approvalId": "ap-2", "sessionId": "bridge-s1", "decision": "deny", "by": "timeout", "specifier": "Bash(rm -rf /)",
		})
		r2 = <-answered
	case <-ctx.Done():
		return nil, errors.New("cancelled")
	}
	f.say(ctx, "ap-2: "+outcome(r2)+"\n")
	return acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
}

func notifyUser1() <-chan os.Signal {
	ch := make(chan os.Signal, 1)
	if sigUser1 != nil {
		signal.Notify(ch, sigUser1)
	}
	return ch
}

// concurrent sends three permission requests at once and reports the answers.
func (f *fakeBridge) concurrent(ctx context.Context) (any, error) {
	names := []string{"A", "B", "C"}
	answers := make([]string, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		p, err := f.conn.Start(ctx, acp.MethodRequestPermission, map[string]any{
			"sessionId": "bridge-s1",
			"toolCall":  map[string]any{"toolCallId": "toolu_" + n, "title": "tool " + n},
			"options":   bridgeOptions,
			"_meta":     map[string]any{acp.MetaKey: map[string]any{"approvalId": "ap-" + n}},
		})
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r acp.RequestPermissionResponse
			if err := p.Wait(ctx, &r); err != nil {
				answers[i] = err.Error()
				return
			}
			answers[i] = outcome(r)
		}()
	}
	wg.Wait()
	for i, n := range names {
		f.say(ctx, n+"="+answers[i]+"\n")
	}
	return acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
}

// hostileSeqs are terminal control sequences an agent might hide in its
// text, each with a marker so the test can find where it was printed.
var hostileSeqs = []string{
	"\x1b[2J\x1b[H",                                         // CSI: clear the screen, cursor home
	"\x1b]52;c;ZWNobyBwd25lZA==\x07",                        // OSC 52: write the clipboard
	"\x1b]0;owned\x07\x1b]2;owned\x1b\\",                    // OSC 0/2: window title (BEL and ST ends)
	"\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", // OSC 8: a hidden link
	"\x1b[1;33m== Permission: fake ==\x1b[0m",               // a fake card
	"\u009b2J\u009d0;t\u009c",                               // C1 CSI, OSC, ST
	"\x00\x07\x08\x0b\x0c\x0e\x7f\r",                        // other C0 controls and DEL
	"abc\u202egnp.exe\u202c \u2066x\u2069",                  // bidi overrides and isolates
}

// hostileTurn puts every hostile sequence into every kind of agent text
// the chat prints: message and thought chunks, a tool call's title,
// content and diff path, a plan, a mode, a title, a card's options and
// reason, and the prompt's error.
func (f *fakeBridge) hostileTurn(ctx context.Context) (any, error) {
	all := strings.Join(hostileSeqs, "|")
	for i, seq := range hostileSeqs {
		f.say(ctx, fmt.Sprintf("msg%d:%s\n", i, seq))
	}
	f.update(ctx, map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]string{"type": "text", "text": "thought:" + all}})
	f.update(ctx, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "title:" + all, "kind": "execute", "status": "pending",
		"rawInput": map[string]string{"command": "cmd:" + all}})
	f.update(ctx, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
		"content": []any{map[string]any{"type": "content", "content": map[string]string{"type": "text", "text": "out:" + all}},
			map[string]any{"type": "diff", "path": "/d" + all, "newText": "new:" + all}}})
	f.update(ctx, map[string]any{"sessionUpdate": "plan", "entries": []any{map[string]string{"content": "plan:" + all, "status": "pending"}}})
	f.update(ctx, map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": "mode:" + all})
	f.update(ctx, map[string]any{"sessionUpdate": "session_info_update", "title": "stitle:" + all})
	var r acp.RequestPermissionResponse
	err := f.conn.Call(ctx, acp.MethodRequestPermission, map[string]any{
		"sessionId": "bridge-s1",
		"toolCall":  map[string]any{"toolCallId": "t2", "title": "card:" + all, "kind": "execute", "rawInput": map[string]string{"command": "ccmd:" + all}},
		"options": []acp.PermissionOption{
			{OptionID: "a", Name: "opt:" + all, Kind: acp.KindAllowOnce},
			{OptionID: "r", Name: "Deny", Kind: acp.KindRejectOnce},
		},
		"_meta": map[string]any{acp.MetaKey: map[string]any{"approvalId": "ap-h", "reason": "why:" + all, "specifier": "spec:" + all, "agent": "agent:" + all}},
	}, &r)
	if err != nil {
		return nil, err
	}
	return nil, acp.Errorf(acp.CodeInternalError, "err:%s", all)
}
