package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
)

// FakeAgentOptions shape the fake agent's start-up behaviour (its args).
type FakeAgentOptions struct {
	HangInit     bool // never answer initialize
	ExitInit     bool // exit(3) on initialize
	GarbageFirst bool // print non-JSON lines, invalid UTF-8 and a stray response before anything else
	LongLine     int  // print one line of this many bytes before answering initialize
	Name         string
	Report       string // append "<toolCallId>=<answer>" to this file for every permission answer
	NewBurst     int    // after each session/new answer, this many more 2 KiB updates at once
	Modes        string // a mode kit shaped like a real agent's: claude, codex (fakemodes.go)
	StuckModes   bool   // refuse every mode change
	ReportLaunch bool   // report the arguments and profile environment at initialize
	NoList       bool   // initialize offers no sessionCapabilities.list
	NoSessionOps bool   // initialize offers no sessionCapabilities.resume, fork, close, delete
	History      int    // this many stored sessions "<name>-old-i" exist at start (listed, deletable)
	Audio        bool   // promptCapabilities.audio and mcpCapabilities.sse (Gemini-like)
	// FollowUp: what the agent does with a prompt that starts with the
	// bridge's denial block ("[acp-bridge] ..."): it always reports it as
	// a text "followup:<prompt>", then "" or "echo" ends the turn, "wait"
	// waits for a cancel, "retry" runs `bash rm -rf build` again.
	FollowUp string
	// AskAtNew: right after each session/new answer (before the editor can
	// have it), announce a tool_call for `bash AskAtNew` on the new session
	// and ask about it; the answer is reported as a text "atnew=<answer>".
	AskAtNew string
}

// ParseFakeAgentArgs reads the fake agent's flags: --hang-init, --exit-init,
// --garbage, --long-line=N, --name=X, --report=FILE, --new-burst=N,
// --modes=claude|codex|none, --stuck-modes, --report-launch, --no-list,
// --no-session-ops, --audio, --followup=echo|wait|retry, --history=N,
// --ask-at-new=CMD.
func ParseFakeAgentArgs(args []string) FakeAgentOptions {
	var o FakeAgentOptions
	for _, a := range args {
		switch {
		case a == "--hang-init":
			o.HangInit = true
		case a == "--exit-init":
			o.ExitInit = true
		case a == "--garbage":
			o.GarbageFirst = true
		case strings.HasPrefix(a, "--long-line="):
			o.LongLine, _ = strconv.Atoi(strings.TrimPrefix(a, "--long-line="))
		case strings.HasPrefix(a, "--new-burst="):
			o.NewBurst, _ = strconv.Atoi(strings.TrimPrefix(a, "--new-burst="))
		case strings.HasPrefix(a, "--history="):
			o.History, _ = strconv.Atoi(strings.TrimPrefix(a, "--history="))
		case strings.HasPrefix(a, "--report="):
			o.Report = strings.TrimPrefix(a, "--report=")
		case strings.HasPrefix(a, "--modes="):
			o.Modes = strings.TrimPrefix(a, "--modes=")
		case a == "--stuck-modes":
			o.StuckModes = true
		case a == "--report-launch":
			o.ReportLaunch = true
		case a == "--no-list":
			o.NoList = true
		case a == "--no-session-ops":
			o.NoSessionOps = true
		case a == "--audio":
			o.Audio = true
		case strings.HasPrefix(a, "--ask-at-new="):
			o.AskAtNew = strings.TrimPrefix(a, "--ask-at-new=")
		case strings.HasPrefix(a, "--followup="):
			o.FollowUp = strings.TrimPrefix(a, "--followup=")
		case strings.HasPrefix(a, "--name="):
			o.Name = strings.TrimPrefix(a, "--name=")
		}
	}
	if o.Name == "" {
		o.Name = "fake"
	}
	return o
}

// ServeFakeAgent is a scriptable ACP agent for tests. It is honest about
// what it is: no model, a fixed interpretation of the prompt text, each
// command on its own line:
//
//	updates N            stream N agent_message_chunk updates "N:i"
//	perm ID [ID...]      ask permission for each tool call id concurrently
//	                     (ids may repeat); reply text lists "ID=optionId|cancelled"
//	permwithdraw ID [MS] ask, then withdraw the request ($/cancel_request) after MS ms (default 500)
//	bash CMD             announce tool_call (execute, rawInput {command}) and ask
//	echoprompt           reply "prompt:" and the whole prompt text received
//	bare ID              announce tool_call ID then ask with only {toolCallId}
//	subperm              ask permission under a session id nobody created
//	read PATH            call fs/read_text_file; reply text "read:<content>" or "read-error:<msg>"
//	write PATH TEXT...   call fs/write_text_file with the rest of the line; reply "write:ok" or "write-error:<msg>"
//	term CMD [ARG...]    terminal/create then terminal/output; reply "term:<id>:<output>" or "term-error:<msg>"
//	crash                ask permission, then exit(3) while it is pending
//	exit                 exit(4) at once
//	wait                 say "waiting", block until session/cancel, then end with cancelled
//	endturn-on-cancel    like wait, but answer end_turn (a buggy agent)
//	run CMD              run CMD (sh -c, in the session's cwd): asks first in an
//	                     asking mode, runs it unasked in any other (fakemodes.go)
//	selfmode ID          switch the agent's own mode and announce it
//	auth?                reply "auth=<methodId>" (the last authenticate), or "auth=none"
//	blocks?              reply "blocks=" and the type of every prompt block received
//
// and the fault-injection commands of faultcmds.go (garbage, split,
// longline, unknownreq, spawn, flood). With --report=PATH every permission
// answer is also appended to PATH as "<toolCallId>=<answer>", and every
// prompt received as "prompt=<its last line>".
//
// The turn ends with end_turn (or cancelled after session/cancel).
func ServeFakeAgent(in io.Reader, out io.Writer, o FakeAgentOptions) error {
	if o.GarbageFirst {
		fmt.Fprintln(out, "this is not json")
		fmt.Fprintln(out, "{\"truncated\": ")
		out.Write([]byte("\xff\xfe invalid utf-8 \xc3\x28\n"))
		fmt.Fprintln(out, `{"jsonrpc":"2.0","id":987654,"result":{}}`)
		fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"_fake/unknown","params":{}}`)
	}
	if o.LongLine > 0 {
		line := make([]byte, o.LongLine)
		for i := range line {
			line[i] = 'x'
		}
		line = append(line, '\n')
		out.Write(line)
	}
	f := &fakeAgent{o: o, sessions: map[string]*fakeSession{}, raw: &lockedWriter{w: out}}
	for i := 1; i <= o.History; i++ {
		id := fmt.Sprintf("%s-old-%d", o.Name, i)
		f.sessions[id] = &fakeSession{id: id, cancel: make(chan struct{}), mode: f.kit().initial, model: "m1"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := make(chan struct{})
	f.conn = acp.NewConn(ctx, acp.NewStream(in, f.raw, nil, acp.StreamOptions{}), f, acp.ConnOptions{Gate: gate})
	close(gate)
	<-f.conn.Done()
	// End the prompts still running and let each record the answers it got
	// (--report) before the process exits.
	cancel()
	f.conn.Wait()
	return nil
}

type fakeAgent struct {
	o    FakeAgentOptions
	conn *acp.Conn
	raw  *lockedWriter // stdout; the connection writes through it too

	mu       sync.Mutex
	n        int
	sessions map[string]*fakeSession
	notes    []string // extension notifications received ("_fake/...")
	authed   string   // the methodId of the last authenticate
}

type fakeSession struct {
	id     string
	cancel chan struct{}
	once   sync.Once
	// guarded by fakeAgent.mu (fakemodes.go)
	mode, model, cwd string
}

func (f *fakeAgent) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if strings.HasPrefix(method, "_fake/") {
		// An extension notification: kept for the "notes?" command.
		f.mu.Lock()
		f.notes = append(f.notes, method+" "+string(params))
		f.mu.Unlock()
		return
	}
	if method != acp.MethodSessionCancel {
		return
	}
	var p acp.SessionIDParams
	_ = json.Unmarshal(params, &p)
	f.mu.Lock()
	defer f.mu.Unlock() // prompt replaces once and cancel under f.mu
	if s := f.sessions[p.SessionID]; s != nil {
		s.once.Do(func() { close(s.cancel) })
	}
}

func (f *fakeAgent) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case acp.MethodInitialize:
		if f.o.ExitInit {
			os.Exit(3)
		}
		if f.o.HangInit {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		f.reportLaunch() // fakemodes.go
		sessionCaps := map[string]any{"list": map[string]any{}}
		if f.o.NoList {
			sessionCaps = map[string]any{}
		}
		if !f.o.NoSessionOps {
			for _, k := range []string{"resume", "fork", "close", "delete"} {
				sessionCaps[k] = map[string]any{}
			}
		}
		return map[string]any{
			"protocolVersion": 1,
			"agentCapabilities": map[string]any{"loadSession": true, "sessionCapabilities": sessionCaps,
				"promptCapabilities": map[string]bool{"image": true, "audio": f.o.Audio, "embeddedContext": true},
				"mcpCapabilities":    map[string]bool{"http": true, "sse": f.o.Audio}},
			"agentInfo": map[string]any{"name": f.o.Name, "version": "0.0.1"},
			// "login" the agent does itself; "tui" a client would run
			// (the bridge does not pass terminal methods).
			"authMethods": []any{
				map[string]any{"id": "login", "name": "Log in to " + f.o.Name, "description": "the fake's own login",
					// Zed's form of a terminal login on an agent method: never passed
					"_meta": map[string]any{"terminal-auth": map[string]any{"command": "/bin/sh", "args": []string{"-c", "touch PWNED"}}}},
				map[string]any{"id": "tui", "name": "Log in in a terminal", "type": "terminal", "args": []string{"--login"}},
			},
		}, nil
	case acp.MethodAuthenticate:
		var p struct {
			MethodID string `json:"methodId"`
		}
		_ = json.Unmarshal(params, &p)
		if p.MethodID != "login" {
			return nil, acp.Errorf(acp.CodeInvalidParams, "unknown auth method %q", p.MethodID)
		}
		f.mu.Lock()
		f.authed = p.MethodID
		f.mu.Unlock()
		f.report("auth", p.MethodID)
		return map[string]any{}, nil
	case acp.MethodSessionResume, acp.MethodSessionFork, acp.MethodSessionClose, acp.MethodSessionDelete:
		return f.sessionOp(method, params)
	case acp.MethodSessionNew:
		var np struct {
			Cwd string `json:"cwd"`
		}
		_ = json.Unmarshal(params, &np)
		f.mu.Lock()
		f.n++
		id := fmt.Sprintf("%s-session-%d", f.o.Name, f.n)
		fs := &fakeSession{id: id, cancel: make(chan struct{}), mode: f.kit().initial, model: "m1", cwd: np.Cwd}
		f.sessions[id] = fs
		f.mu.Unlock()
		res := f.sessionResult(fs, map[string]any{"sessionId": id})
		// Like Claude's adapter: an update for the new session right after the answer.
		return acp.AfterReply{Result: res, Then: func() {
			f.update(id, map[string]any{"sessionUpdate": "available_commands_update",
				"availableCommands": []map[string]any{{"name": "review", "description": "Review " + id}}})
			for i := 1; i <= f.o.NewBurst; i++ { // each names its session and place, padded to 2 KiB
				f.text(id, fmt.Sprintf("%s burst %d %s", id, i, strings.Repeat("x", 2<<10)))
			}
			if cmd := f.o.AskAtNew; cmd != "" {
				tc := "atnew-" + id
				f.update(id, map[string]any{"sessionUpdate": "tool_call", "toolCallId": tc, "title": "`" + cmd + "`",
					"kind": "execute", "status": "pending", "rawInput": map[string]any{"command": cmd}})
				go func() { // after the update, on the wire; the read loop goes on
					f.text(id, "atnew="+f.ask(context.Background(), id, map[string]any{"toolCallId": tc, "title": "`" + cmd + "`", "rawInput": map[string]any{"command": cmd}}))
				}()
			}
		}}, nil
	case acp.MethodSessionSetMode:
		return f.handleSetMode(params) // fakemodes.go
	case acp.MethodSessionList:
		f.mu.Lock()
		var list []map[string]any
		for id := range f.sessions {
			list = append(list, map[string]any{"sessionId": id, "cwd": "/"})
		}
		f.mu.Unlock()
		return map[string]any{"sessions": list}, nil
	case acp.MethodSessionLoad:
		// Replays one update of history under the loaded id, then answers.
		var p acp.SessionIDParams
		_ = json.Unmarshal(params, &p)
		f.mu.Lock()
		ls := f.sessions[p.SessionID]
		if ls == nil {
			ls = &fakeSession{id: p.SessionID, cancel: make(chan struct{}), mode: f.kit().initial, model: "m1"}
			f.sessions[p.SessionID] = ls
		}
		f.mu.Unlock()
		f.text(p.SessionID, "replay:"+p.SessionID)
		if f.o.Modes == "" {
			return map[string]any{}, nil
		}
		return f.sessionResult(ls, map[string]any{}), nil
	case acp.MethodSessionSetConfigOpt:
		return f.handleSetConfigOption(params) // fakemodes.go
	case acp.MethodSessionPrompt:
		return f.prompt(ctx, params)
	case acp.MethodSessionSetModel:
		var p struct {
			SessionID string `json:"sessionId"`
			ModelID   string `json:"modelId"`
		}
		_ = json.Unmarshal(params, &p)
		f.mu.Lock()
		s := f.sessions[p.SessionID]
		if s != nil {
			s.model = p.ModelID
		}
		f.mu.Unlock()
		if s == nil {
			return nil, acp.Errorf(acp.CodeInvalidParams, "unknown session %q", p.SessionID)
		}
		f.report("model", p.SessionID+":"+p.ModelID)
		return map[string]any{}, nil
	case "_fake/echo":
		// An agent's own extension method: answers with what it got.
		return map[string]any{"got": params}, nil
	}
	return nil, acp.MethodNotFound(method)
}

func (f *fakeAgent) update(sid string, u map[string]any) {
	_ = f.conn.Notify(context.Background(), acp.MethodSessionUpdate, map[string]any{"sessionId": sid, "update": u})
}

func (f *fakeAgent) text(sid, s string) {
	f.update(sid, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": s}})
}

var fakeOptions = []map[string]any{
	{"optionId": "allow_always", "name": "Always Allow", "kind": "allow_always"},
	{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
	{"optionId": "reject", "name": "Reject", "kind": "reject_once"},
}

func (f *fakeAgent) ask(ctx context.Context, sid string, toolCall map[string]any) string {
	if f.o.Report != "" {
		// Wait for the client's answer even if the prompt is cancelled, so
		// the report shows what the client answered (or that the
		// connection closed first).
		ctx = context.WithoutCancel(ctx)
	}
	answer := f.askOnce(ctx, sid, toolCall)
	f.report(toolCall["toolCallId"], answer)
	return answer
}

func (f *fakeAgent) askOnce(ctx context.Context, sid string, toolCall map[string]any) string {
	var res acp.RequestPermissionResponse
	err := f.conn.Call(ctx, acp.MethodRequestPermission, map[string]any{
		"sessionId": sid, "toolCall": toolCall, "options": fakeOptions,
	}, &res)
	if err != nil {
		return "error:" + err.Error()
	}
	if res.Outcome.Outcome == acp.OutcomeCancelled {
		return "cancelled"
	}
	return res.Outcome.OptionID
}

func (f *fakeAgent) prompt(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(acp.MethodSessionPrompt, err)
	}
	f.mu.Lock()
	s := f.sessions[p.SessionID]
	if s != nil {
		s.once = sync.Once{}
		s.cancel = make(chan struct{})
	}
	f.mu.Unlock()
	if s == nil {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "unknown session %s", p.SessionID)
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		text.WriteString(b.Text)
		text.WriteString("\n")
	}
	f.reportPrompt(text.String()) // faultcmds.go
	if strings.HasPrefix(text.String(), "[acp-bridge]") {
		f.text(s.id, "followup:"+text.String())
		switch f.o.FollowUp {
		case "wait":
			text.WriteString("wait\n")
		case "retry":
			text.WriteString("bash rm -rf build\n")
		}
	}
	stop := acp.StopEndTurn
	for _, line := range strings.Split(text.String(), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "updates":
			n, _ := strconv.Atoi(fields[1])
			for i := 1; i <= n; i++ {
				f.text(s.id, fmt.Sprintf("%s:%d", f.o.Name, i))
			}
		case "perm":
			ids := fields[1:]
			answers := make([]string, len(ids))
			var wg sync.WaitGroup
			for i, id := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					answers[i] = id + "=" + f.ask(ctx, s.id, map[string]any{
						"toolCallId": id, "title": "`touch " + id + "`", "kind": "execute",
						"rawInput": map[string]any{"command": "touch " + id},
					})
				}()
			}
			wg.Wait()
			f.text(s.id, strings.Join(answers, " "))
		case "permwithdraw":
			// permwithdraw ID MS: ask, and withdraw the request
			// ($/cancel_request) after MS milliseconds unanswered.
			id, ms := fields[1], 500
			if len(fields) > 2 {
				fmt.Sscan(fields[2], &ms)
			}
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(ms)*time.Millisecond)
			answer := f.askOnce(wctx, s.id, map[string]any{
				"toolCallId": id, "title": "`touch " + id + "`", "kind": "execute",
				"rawInput": map[string]any{"command": "touch " + id},
			})
			cancel()
			if wctx.Err() != nil {
				answer = "withdrawn"
			}
			f.report(id, answer)
			f.text(s.id, id+"="+answer)
		case "bash":
			cmd := strings.TrimSpace(strings.TrimPrefix(line, "bash"))
			id := fmt.Sprintf("bash-%d", len(cmd))
			f.update(s.id, map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "`" + cmd + "`",
				"kind": "execute", "status": "pending", "rawInput": map[string]any{"command": cmd}})
			f.text(s.id, "bash="+f.ask(ctx, s.id, map[string]any{"toolCallId": id, "title": "`" + cmd + "`", "rawInput": map[string]any{"command": cmd}}))
		case "blocks?":
			var types []string
			for _, b := range p.Prompt {
				types = append(types, b.Type)
			}
			f.text(s.id, "blocks="+strings.Join(types, ","))
		case "auth?":
			f.mu.Lock()
			a := f.authed
			f.mu.Unlock()
			if a == "" {
				a = "none"
			}
			f.text(s.id, "auth="+a)
		case "echoprompt":
			// the whole prompt as the agent got it (what its model would see)
			f.text(s.id, "prompt:"+text.String())
		case "bare":
			id := fields[1]
			f.update(s.id, map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "`rm -rf build`",
				"kind": "execute", "status": "pending", "rawInput": map[string]any{"command": "rm -rf build"}})
			f.text(s.id, "bare="+f.ask(ctx, s.id, map[string]any{"toolCallId": id}))
		case "subperm":
			f.text(s.id, "subperm="+f.ask(ctx, "subagent-"+s.id, map[string]any{
				"toolCallId": "sub-1", "title": "`touch sub`", "kind": "execute", "rawInput": map[string]any{"command": "touch sub"},
			}))
		case "read":
			var res struct {
				Content string `json:"content"`
			}
			if err := f.conn.Call(ctx, acp.MethodFSReadTextFile, map[string]any{"sessionId": s.id, "path": fields[1]}, &res); err != nil {
				f.text(s.id, "read-error:"+err.Error())
			} else {
				f.text(s.id, "read:"+res.Content)
			}
		case "write":
			content := ""
			if len(fields) > 2 {
				content = strings.TrimSpace(strings.SplitN(strings.TrimSpace(line), " ", 3)[2]) + "\n"
			}
			var out json.RawMessage
			if err := f.conn.Call(ctx, acp.MethodFSWriteTextFile, map[string]any{"sessionId": s.id, "path": fields[1], "content": content}, &out); err != nil {
				f.text(s.id, "write-error:"+err.Error())
			} else {
				f.text(s.id, "write:ok")
			}
		case "term":
			var res struct {
				TerminalID string `json:"terminalId"`
			}
			if err := f.conn.Call(ctx, acp.MethodTerminalCreate, map[string]any{"sessionId": s.id, "command": fields[1], "args": fields[2:]}, &res); err != nil {
				f.text(s.id, "term-error:"+err.Error())
			} else {
				var out struct {
					Output string `json:"output"`
				}
				_ = f.conn.Call(ctx, acp.MethodTerminalOutput, map[string]any{"sessionId": s.id, "terminalId": res.TerminalID}, &out)
				f.text(s.id, "term:"+res.TerminalID+":"+out.Output)
			}
		case "crash":
			// Ask, and die while the request is pending.
			_, _ = f.conn.Start(ctx, acp.MethodRequestPermission, map[string]any{"sessionId": s.id, "options": fakeOptions,
				"toolCall": map[string]any{"toolCallId": "crash-1", "title": "`touch crash`", "kind": "execute", "rawInput": map[string]any{"command": "touch crash"}}})
			os.Exit(3)
		case "exit":
			os.Exit(4)
		case "wait", "endturn-on-cancel":
			f.text(s.id, "waiting")
			select {
			case <-s.cancel:
			case <-ctx.Done():
			}
			stop = acp.StopCancelled
			if fields[0] == "endturn-on-cancel" {
				stop = acp.StopEndTurn
			}
		default:
			if !f.modeCommand(ctx, s, fields, line) { // fakemodes.go
				f.faultCommand(s, fields) // faultcmds.go
			}
		}
		select {
		case <-s.cancel:
			if fields[0] != "endturn-on-cancel" {
				stop = acp.StopCancelled
			}
		default:
		}
	}
	return acp.PromptResponse{StopReason: stop}, nil
}

// sessionOp serves session/resume (like load, without a replay), session/fork
// (a new session "<name>-fork-N" with the source's mode and model) and
// session/close and session/delete (the session is forgotten, so no longer
// listed; a turn in it is cancelled; a delete of an unknown id succeeds, as
// ACP says). Each is reported as "<method>=<sessionId>".
func (f *fakeAgent) sessionOp(method string, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	_ = json.Unmarshal(params, &p)
	f.mu.Lock()
	s := f.sessions[p.SessionID]
	var out *fakeSession
	switch method {
	case acp.MethodSessionResume:
		if s == nil {
			s = &fakeSession{id: p.SessionID, cancel: make(chan struct{}), mode: f.kit().initial, model: "m1", cwd: p.Cwd}
			f.sessions[p.SessionID] = s
		}
		out = s
	case acp.MethodSessionFork:
		if s != nil {
			f.n++
			out = &fakeSession{id: fmt.Sprintf("%s-fork-%d", f.o.Name, f.n), cancel: make(chan struct{}), mode: s.mode, model: s.model, cwd: p.Cwd}
			f.sessions[out.id] = out
		}
	case acp.MethodSessionClose, acp.MethodSessionDelete:
		if s != nil {
			delete(f.sessions, p.SessionID)
			s.once.Do(func() { close(s.cancel) })
		}
	}
	f.mu.Unlock()
	if s == nil && method == acp.MethodSessionDelete {
		f.report(method, p.SessionID+" (unknown)")
		return map[string]any{}, nil
	}
	if s == nil {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "unknown session %s", p.SessionID)
	}
	f.report(method, p.SessionID)
	switch method {
	case acp.MethodSessionFork:
		return f.sessionResult(out, map[string]any{"sessionId": out.id}), nil
	case acp.MethodSessionResume:
		if f.o.Modes == "" {
			return map[string]any{}, nil
		}
		return f.sessionResult(out, map[string]any{}), nil
	}
	return map[string]any{}, nil
}
