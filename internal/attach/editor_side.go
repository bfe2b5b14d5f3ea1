package attach

import (
	"encoding/json"
	"io"
	"strconv"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// The editor's side: an editor's lines are read with the engine's line
// reader, with the bridge's own bound and the answers the bridge's stdio
// gives a bad line (acp.LineReader with ReplyToBadLines, the options
// bridge.Serve gives its editor stream), so an editor hears the same of a
// malformed or over-long line on the socket as on stdio. Its requests are
// renumbered on the way to the bridge (two editors' ids never collide).

// editorReader is the engine's reader of an editor's lines; its answers
// to bad lines go through the editor's queue, in order with the rest.
// dropped, if set, is called after each line the reader drops.
func (f *Front) editorReader(r io.Reader, c *client, dropped func()) *acp.LineReader {
	lr := acp.NewLineReader(r, c.q, acp.StreamOptions{
		MaxLineBytes:    f.opts.MaxLineBytes,
		ReplyToBadLines: true,
		OnDrop: func(ev acp.StreamEvent) {
			f.log.Warn("dropped a line from the editor", zap.String("editor", c.name), zap.String("kind", ev.Kind),
				zap.Error(ev.Err), zap.String("prefix", ev.Prefix), zap.String("reply", ev.Reply))
			if dropped != nil {
				dropped()
			}
		},
	})
	lr.OnLongAnswer = func(id json.RawMessage, msg string) {
		// The editor's answer to a request of the bridge's was too long to
		// read: the bridge's call fails, as it does when the bridge reads
		// such an answer itself.
		errObj, _ := json.Marshal(map[string]any{"code": acp.CodeInternalError, "message": msg})
		f.fromClient(c, acp.Message{ID: id, Error: errObj})
	}
	return lr
}

// readClient relays c's messages until its input ends, then detaches it.
func (f *Front) readClient(c *client, lr *acp.LineReader) {
	defer f.detach(c)
	_ = lr.Run(func(m acp.Message) { f.fromClient(c, m) })
}

func (f *Front) detach(c *client) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur != c {
		return
	}
	f.cur = nil
	c.stop()
	if f.closed {
		return
	}
	f.log.Info("editor detached; the bridge keeps its sessions for the grace period", zap.String("editor", c.name), zap.Duration("grace", f.opts.Grace))
	f.startGraceLocked()
}

// fromClient relays one message of the attached editor c.
func (f *Front) fromClient(c *client, m acp.Message) {
	f.mu.Lock()
	if f.cur != c { // a detached client's late line
		f.mu.Unlock()
		return
	}
	switch {
	case m.IsRequest():
		if m.Method == MethodAttach {
			f.mu.Unlock()
			_ = c.write(acp.ErrorLine(m.ID, CodeAlreadyAttached, "this connection is already attached"))
			return
		}
		if m.Method == acp.MethodInitialize && f.initResult != nil {
			res := f.withAttachMeta(f.initResult)
			f.mu.Unlock()
			ans := acp.Message{ID: m.ID, Result: res}
			_ = c.write(ans.Line())
			return
		}
		f.nextID++
		n := f.nextID
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		f.inflight[n] = &fwdReq{c: c, id: m.ID, method: m.Method, sessionID: p.SessionID}
		m.ID = json.RawMessage(strconv.FormatInt(n, 10))
		f.mu.Unlock()
		f.writeBridge(m.Line())
	case m.Method == acp.MethodCancelRequest:
		// The editor names its own id: the bridge knows the request by ours.
		n, ok := f.ourIDLocked(c, m.Params)
		f.mu.Unlock()
		if !ok {
			f.log.Debug("cancel of no request of this editor's dropped", zap.ByteString("params", m.Params))
			return
		}
		m.Params = json.RawMessage(`{"requestId":` + strconv.FormatInt(n, 10) + `}`)
		f.writeBridge(m.Line())
	case m.IsNotification():
		f.mu.Unlock()
		f.writeBridge(m.Line())
	default: // an answer to one of the bridge's requests
		key := string(m.ID)
		found := false
		for _, p := range f.pending {
			if p.key == key {
				found = true
				break
			}
		}
		f.dropPendingLocked(key)
		f.mu.Unlock()
		if found {
			f.writeBridge(m.Line())
		} else {
			f.log.Debug("answer to no pending request dropped", zap.String("id", key))
		}
	}
}

// ourIDLocked finds the id the bridge knows c's request by, from the
// params of c's $/cancel_request.
func (f *Front) ourIDLocked(c *client, params json.RawMessage) (int64, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return 0, false
	}
	id, ok := acp.CanonicalID(p.RequestID)
	if !ok {
		return 0, false
	}
	for n, req := range f.inflight {
		if req.c == c && string(req.id) == string(id) {
			return n, true
		}
	}
	return 0, false
}
