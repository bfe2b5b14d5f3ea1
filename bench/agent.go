package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ServeAgent is the benchmark's scripted ACP agent. It is honest about what
// it is: no model and no tools; the first text block of a prompt is a list
// of commands, one per line, run in order:
//
//	stream N SIZE   N agent_message_chunk updates, each with a SIZE-byte text
//	                that starts with the marker #SEQ:nnnnnnnnn#
//	diff N SIZE     N tool_call_update updates (distinct toolCallIds), each
//	                carrying a SIZE-byte diff whose newText starts with #SEQ:..#
//	pace N MICROS   N chunk updates, one every MICROS µs, each also carrying
//	                #TS:<unix nanoseconds>#, the wall-clock time it was written
//	perm K          K session/request_permission calls one after another; then
//	                one update "#RTT:n1,n2,...#" with each round trip in ns
//	permc K         K session/request_permission calls at once; then one
//	                update "#PERM:allowed=A,rejected=R,cancelled=C,error=E#"
//
// Every turn ends with end_turn, or cancelled after session/cancel. Lines
// are written with one Write each, built with append (the agent should cost
// as little as possible, so that what is measured is the path to the editor).
// It returns when in reaches EOF.
func ServeAgent(in io.Reader, out io.Writer) error {
	a := &agent{out: out, pending: map[int64]chan Envelope{}, cancel: map[string]chan struct{}{}}
	r := bufio.NewReaderSize(in, 1<<20)
	var line []byte
	for {
		var err error
		line, err = readLine(r, line[:0])
		if len(line) > 0 {
			a.handle(line)
		}
		if err != nil {
			a.wg.Wait()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine appends the next line (without its newline) to buf.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		frag, err := r.ReadSlice('\n')
		buf = append(buf, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

type agent struct {
	wmu sync.Mutex // one Write per line
	out io.Writer

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]chan Envelope  // our requests awaiting an answer
	cancel   map[string]chan struct{} // per session, replaced at each prompt
	sessions int

	wg sync.WaitGroup // prompts in flight
}

func (a *agent) write(b []byte) {
	a.wmu.Lock()
	_, _ = a.out.Write(b)
	a.wmu.Unlock()
}

func (a *agent) reply(id json.RawMessage, result any) {
	res, err := json.Marshal(result)
	if err != nil {
		panic(err)
	}
	b := make([]byte, 0, len(res)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, res...)
	b = append(b, "}\n"...)
	a.write(b)
}

func (a *agent) replyError(id json.RawMessage, code int, msg string) {
	m, _ := json.Marshal(msg)
	a.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, m))
}

func (a *agent) handle(line []byte) {
	var env Envelope
	if json.Unmarshal(line, &env) != nil {
		return
	}
	switch {
	case env.Method == "" && env.ID != nil: // a response to one of our requests
		id, err := strconv.ParseInt(string(env.ID), 10, 64)
		if err != nil {
			return
		}
		a.mu.Lock()
		ch := a.pending[id]
		delete(a.pending, id)
		a.mu.Unlock()
		if ch != nil {
			ch <- env
		}
	case env.ID == nil: // a notification
		if env.Method == "session/cancel" {
			var p struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(env.Params, &p)
			a.mu.Lock()
			if ch := a.cancel[p.SessionID]; ch != nil {
				close(ch)
				a.cancel[p.SessionID] = nil
			}
			a.mu.Unlock()
		}
	default:
		id := append(json.RawMessage(nil), env.ID...)
		switch env.Method {
		case "initialize":
			a.reply(id, map[string]any{
				"protocolVersion":   1,
				"agentCapabilities": map[string]any{"loadSession": false},
				"agentInfo":         map[string]string{"name": "bench-agent", "version": "1"},
				"authMethods":       []any{},
			})
		case "session/new":
			a.mu.Lock()
			a.sessions++
			sid := fmt.Sprintf("bench-s%d", a.sessions)
			a.mu.Unlock()
			a.reply(id, map[string]any{"sessionId": sid})
		case "session/prompt":
			params := append(json.RawMessage(nil), env.Params...)
			a.wg.Add(1)
			go func() {
				defer a.wg.Done()
				a.prompt(id, params)
			}()
		default:
			a.replyError(id, -32601, "method not found: "+env.Method)
		}
	}
}

func (a *agent) call(method string, params any) (Envelope, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return Envelope{}, err
	}
	ch := make(chan Envelope, 1)
	a.mu.Lock()
	a.nextID++
	id := a.nextID
	a.pending[id] = ch
	a.mu.Unlock()
	a.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, p))
	env := <-ch
	if env.Error != nil {
		return env, fmt.Errorf("%s: %s", method, env.Error)
	}
	return env, nil
}

// updatePrefix starts a session/update notification up to the update object.
func updatePrefix(b []byte, sid string) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`...)
	b = strconv.AppendQuote(b, sid)
	return append(b, `,"update":`...)
}

// chunk writes one agent_message_chunk whose text is head padded to size bytes.
func (a *agent) chunk(buf []byte, sid string, head string, size int) []byte {
	b := updatePrefix(buf[:0], sid)
	b = append(b, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`...)
	b = append(b, head...)
	for i := len(head); i < size; i++ {
		b = append(b, 'a'+byte(i%26))
	}
	b = append(b, "\"}}}}\n"...)
	a.write(b)
	return b
}

// diff writes one tool_call_update with a diff of about size bytes of newText.
func (a *agent) diff(buf []byte, sid string, seq int, size int) []byte {
	b := updatePrefix(buf[:0], sid)
	b = fmt.Appendf(b, `{"sessionUpdate":"tool_call_update","toolCallId":"edit-%d","status":"in_progress","content":[{"type":"diff","path":"/work/project/src/file%d.go","oldText":null,"newText":"#SEQ:%09d#`, seq, seq, seq)
	for i := 16; i < size; i++ {
		if i%80 == 79 {
			b = append(b, `\n`...)
			i++
			continue
		}
		b = append(b, 'a'+byte(i%26))
	}
	b = append(b, "\"}]}}}\n"...)
	a.write(b)
	return b
}

func (a *agent) prompt(id json.RawMessage, params json.RawMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.Prompt) == 0 {
		a.replyError(id, -32602, "invalid params for session/prompt")
		return
	}
	cancelled := make(chan struct{})
	a.mu.Lock()
	a.cancel[p.SessionID] = cancelled
	a.mu.Unlock()
	sid := p.SessionID
	stop := "end_turn"
	buf := make([]byte, 0, 1024)
	for _, line := range strings.Split(p.Prompt[0].Text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		arg := func(i int) int {
			if i >= len(f) {
				return 0
			}
			n, _ := strconv.Atoi(f[i])
			return n
		}
		switch f[0] {
		case "stream":
			n, size := arg(1), arg(2)
			for i := 1; i <= n; i++ {
				buf = a.chunk(buf, sid, fmt.Sprintf("#SEQ:%09d#", i), size)
			}
		case "diff":
			n, size := arg(1), arg(2)
			for i := 1; i <= n; i++ {
				buf = a.diff(buf, sid, i, size)
			}
		case "pace":
			n, every := arg(1), time.Duration(arg(2))*time.Microsecond
			next := time.Now()
			for i := 1; i <= n; i++ {
				if d := time.Until(next); d > 0 {
					time.Sleep(d)
				}
				next = next.Add(every)
				buf = a.chunk(buf, sid, fmt.Sprintf("#SEQ:%09d# #TS:%d#", i, time.Now().UnixNano()), 100)
			}
		case "perm":
			k := arg(1)
			rtts := make([]string, 0, k)
			for i := 1; i <= k; i++ {
				t0 := time.Now()
				_, err := a.call("session/request_permission", permParams(sid, i))
				if err != nil {
					rtts = append(rtts, "error")
					continue
				}
				rtts = append(rtts, strconv.FormatInt(int64(time.Since(t0)), 10))
			}
			buf = a.chunk(buf, sid, "#RTT:"+strings.Join(rtts, ",")+"#", 0)
		case "permc":
			k := arg(1)
			var mu sync.Mutex
			counts := map[string]int{}
			var wg sync.WaitGroup
			for i := 1; i <= k; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					outcome := "error"
					if env, err := a.call("session/request_permission", permParams(sid, i)); err == nil {
						outcome = permOutcome(env.Result)
					}
					mu.Lock()
					counts[outcome]++
					mu.Unlock()
				}()
			}
			wg.Wait()
			buf = a.chunk(buf, sid, fmt.Sprintf("#PERM:allowed=%d,rejected=%d,cancelled=%d,error=%d#",
				counts["allowed"], counts["rejected"], counts["cancelled"], counts["error"]), 0)
		}
		select {
		case <-cancelled:
			stop = "cancelled"
		default:
		}
	}
	a.reply(id, map[string]string{"stopReason": stop})
}

func permParams(sid string, i int) map[string]any {
	cmd := fmt.Sprintf("touch out/file-%d.txt", i)
	return map[string]any{
		"sessionId": sid,
		"toolCall": map[string]any{
			"toolCallId": fmt.Sprintf("call-%d", i), "title": "`" + cmd + "`", "kind": "execute",
			"rawInput": map[string]string{"command": cmd},
		},
		"options": []map[string]string{
			{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
			{"optionId": "reject", "name": "Reject", "kind": "reject_once"},
		},
	}
}

func permOutcome(result json.RawMessage) string {
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(result, &r) != nil {
		return "error"
	}
	switch {
	case r.Outcome.Outcome == "cancelled":
		return "cancelled"
	case r.Outcome.OptionID == "allow":
		return "allowed"
	case r.Outcome.OptionID == "reject":
		return "rejected"
	}
	return "error"
}
