package attach

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/wire"
)

// The bridge's side: what the bridge writes is read with the engine's line
// reader (acp.LineReader, the framing and validation of every connection
// of the bridge's) and routed to the editor, to the front's own calls, or
// kept for the next editor.

// writeBridge queues line for the bridge's input (acp.QueueWriter: whole
// lines, in the order they are handed over).
func (f *Front) writeBridge(line []byte) {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	if _, err := f.toBridge.Write(line); err != nil {
		f.log.Debug("write to the bridge failed", zap.Error(err))
	}
}

// bridgeAnswers is where the engine's answers to the bridge's own bad
// lines go: to the bridge's input, off the goroutine that reads the
// bridge's output (which must never wait on the bridge's input: the
// bridge may be waiting for its output to be read).
type bridgeAnswers struct{ f *Front }

func (b bridgeAnswers) Write(p []byte) (int, error) {
	line := append([]byte(nil), p...)
	go b.f.writeBridge(line)
	return len(p), nil
}

func (f *Front) readBridge() {
	lr := acp.NewLineReader(f.fromBridge, bridgeAnswers{f}, acp.StreamOptions{
		MaxLineBytes: f.opts.MaxLineBytes + bridgeLineSlack,
		OnDrop: func(ev acp.StreamEvent) {
			f.log.Warn("dropped a line of the bridge's", zap.String("kind", ev.Kind), zap.Error(ev.Err),
				zap.String("prefix", ev.Prefix), zap.String("reply", ev.Reply))
		},
	})
	lr.OnLongAnswer = func(id json.RawMessage, msg string) {
		// An answer of the bridge's too long to relay: its requester gets
		// an error instead of waiting forever.
		errObj, _ := json.Marshal(map[string]any{"code": acp.CodeInternalError, "message": msg})
		f.fromBridge1(acp.Message{ID: id, Error: errObj})
	}
	_ = lr.Run(f.fromBridge1)
}

// fromBridge1 routes one message of the bridge's.
func (f *Front) fromBridge1(m acp.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case m.IsResponse():
		f.bridgeAnswerLocked(m)
	case m.IsRequest(): // a request to the editor
		line := m.Line()
		if m.Method != acp.MethodRequestPermission &&
			(len(f.pending) >= f.opts.PendingRequests || f.pendBytes+len(line) > f.opts.PendingBytes) {
			f.refuseLocked(m, len(line))
			return
		}
		f.pending = append(f.pending, pendingReq{key: string(m.ID), line: line})
		f.pendBytes += len(line)
		if f.cur != nil {
			_ = f.cur.write(line)
		}
	case m.Method == "$/cancel_request":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		f.dropPendingLocked(string(p.RequestID))
		if f.cur != nil {
			_ = f.cur.write(m.Line())
		}
	default: // a notification
		f.sendLocked(m.Line(), strings.HasPrefix(m.Method, bridgeNotice))
	}
}

// bridgeAnswerLocked routes the bridge's answer: to the front's own call,
// or to the editor that asked, with the editor's id restored.
func (f *Front) bridgeAnswerLocked(m acp.Message) {
	n, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil { // null id (a bad line's error): to whoever is there
		if f.cur != nil {
			_ = f.cur.write(m.Line())
		}
		return
	}
	if ch, ok := f.internal[n]; ok {
		delete(f.internal, n)
		ch <- m
		return
	}
	req, ok := f.inflight[n]
	if !ok {
		return
	}
	delete(f.inflight, n)
	if req.method == acp.MethodInitialize && len(m.Result) > 0 {
		f.initResult = append(json.RawMessage(nil), m.Result...)
	}
	if req.c == f.cur && f.cur != nil {
		if req.method == acp.MethodInitialize && len(m.Result) > 0 {
			m.Result = f.withAttachMeta(m.Result)
		}
		m.ID = req.id
		_ = f.cur.write(m.Line())
		return
	}
	if req.method == acp.MethodSessionPrompt {
		// The turn ended with no one to hear it: tell the next editor.
		p := map[string]any{"sessionId": req.sessionID}
		var res struct {
			StopReason string `json:"stopReason"`
		}
		if len(m.Result) > 0 && json.Unmarshal(m.Result, &res) == nil && res.StopReason != "" {
			p["stopReason"] = res.StopReason
		}
		if len(m.Error) > 0 {
			p["error"] = m.Error
		}
		params, _ := json.Marshal(p)
		ended := acp.Message{Method: MethodTurnEnded, Params: params}
		f.sendLocked(ended.Line(), true) // MethodTurnEnded is one of the bridge's own notices
	}
}

// bridgeNotice prefixes the methods of the bridge's own notifications
// (agents' extension methods never use it: the bridge does not pass them).
const bridgeNotice = wire.Prefix

// refuseLocked answers the bridge's request m (of size bytes) with
// CodeTooManyPending: the front keeps no more. The answer is written off
// this goroutine (the bridge's output loop), which must not wait on the
// bridge's input.
func (f *Front) refuseLocked(m acp.Message, size int) {
	f.log.Warn("too many of the bridge's requests waiting for an editor; refused",
		zap.String("method", m.Method), zap.Int("pending", len(f.pending)), zap.Int("pendingBytes", f.pendBytes), zap.Int("size", size))
	state := "the editor has not answered them"
	if f.cur == nil {
		state = "no editor is attached"
	}
	msg := fmt.Sprintf("%s: too many requests waiting for the editor (at most %d, or %d MiB; %s): refused",
		m.Method, f.opts.PendingRequests, f.opts.PendingBytes>>20, state)
	_, _ = bridgeAnswers{f}.Write(acp.ErrorLine(m.ID, CodeTooManyPending, msg))
}
