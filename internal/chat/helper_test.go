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
