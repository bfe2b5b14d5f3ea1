package attach

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// The socket: an editor connects, its peer uid is checked, its first
// message must be _acp-bridge/attach with the token; then it is the
// attached editor, read like the first one (editor_side.go).

func (f *Front) acceptLoop() {
	for {
		conn, err := f.ln.AcceptUnix()
		if err != nil {
			return
		}
		go f.handshake(conn)
	}
}

// handshake checks the peer's uid and the token, then attaches. The
// connection is read by the engine's line reader from its first byte: the
// first line, bounded by maxAttachLine, must be the attach request; from
// the attach on, lines are bounded as the bridge's stdio bounds them.
func (f *Front) handshake(conn *net.UnixConn) {
	if err := checkPeer(conn); err != nil {
		f.log.Warn("attach refused", zap.Error(err))
		_ = conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	q := acp.NewBoundedQueueWriter(conn, conn, queueBytes)
	c := &client{name: "socket", q: q, stop: q.Abort}
	attached, done := false, false
	// refuse answers the first message and hangs up once the answer is out.
	refuse := func(line []byte) {
		done = true
		_ = c.write(line)
		_ = q.Close()
	}
	lr := f.editorReader(conn, c, func() {
		if !attached && !done { // a first line that is no message: nothing more is read
			done = true
			_ = q.Close()
		}
	})
	lr.SetMaxLineBytes(maxAttachLine)
	_ = lr.Run(func(m acp.Message) {
		switch {
		case attached:
			f.fromClient(c, m)
		case done:
		default:
			if f.attach(c, m, refuse) {
				attached = true
				lr.SetMaxLineBytes(f.opts.MaxLineBytes)
				_ = conn.SetReadDeadline(time.Time{})
			}
		}
	})
	if attached {
		f.detach(c)
		return
	}
	// Refused, timed out or gone before attaching: the refusal (if any) goes
	// out, then the queue closes conn.
	_ = q.Close()
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-q.Done():
	case <-t.C:
		q.Abort()
	}
}

// attach answers the first message m of a socket client c: the state and
// what was kept (then c is the attached editor), or a refusal.
func (f *Front) attach(c *client, m acp.Message, refuse func([]byte)) bool {
	if m.Method != MethodAttach || !m.IsRequest() {
		refuse(acp.ErrorLine(m.ID, acp.CodeInvalidRequest, "the first message must be the "+MethodAttach+" request"))
		return false
	}
	var p struct {
		Token string `json:"token"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if subtle.ConstantTimeCompare([]byte(p.Token), []byte(f.token)) != 1 {
		f.log.Warn("attach refused: wrong token")
		refuse(acp.ErrorLine(m.ID, CodeBadToken, "attach refused: wrong token"))
		return false
	}
	f.mu.Lock()
	if f.cur != nil || f.attaching || f.closed {
		who := "another editor is attaching"
		if f.cur != nil {
			who = "another editor (" + f.cur.name + ") is attached"
		}
		f.mu.Unlock()
		f.log.Warn("attach refused: " + who)
		refuse(acp.ErrorLine(m.ID, CodeAlreadyAttached, "attach refused: "+who+"; only one editor at a time"))
		return false
	}
	f.attaching = true
	f.mu.Unlock()

	sessions, err := f.call(methodSessionsLive, 10*time.Second)

	f.mu.Lock()
	defer f.mu.Unlock()
	f.attaching = false
	if f.closed {
		refuse(acp.ErrorLine(m.ID, acp.CodeInternalError, "the bridge is stopping"))
		return false
	}
	if f.grace != nil {
		f.grace.Stop()
	}
	res := map[string]any{
		"initialized":      f.initResult != nil,
		"buffered":         len(f.buf),
		"pendingRequests":  len(f.pending),
		"detachedSeconds":  int(f.opts.Now().Sub(f.detachedAt) / time.Second),
		"droppedBySession": f.dropped,
		"sessions":         []any{},
	}
	if err == nil && len(sessions.Result) > 0 {
		var s struct {
			Sessions json.RawMessage `json:"sessions"`
		}
		if json.Unmarshal(sessions.Result, &s) == nil && len(s.Sessions) > 0 {
			res["sessions"] = s.Sessions
		}
	}
	result, _ := json.Marshal(res)
	ans := acp.Message{ID: m.ID, Result: result}
	werr := c.write(ans.Line())
	// What was kept, then every unanswered request again, with the same ids.
	for _, l := range f.buf {
		if werr == nil {
			werr = c.write(l)
		}
	}
	for _, p := range f.pending {
		if werr == nil {
			werr = c.write(p.line)
		}
	}
	if werr != nil {
		f.startGraceLocked()
		c.stop()
		return false
	}
	f.log.Info("editor re-attached", zap.Int("buffered", len(f.buf)), zap.Int("pendingRequests", len(f.pending)))
	f.buf, f.bufBytes, f.dropped = nil, 0, map[string]int{}
	f.cur = c
	return true
}

// call sends a request of the front's own to the bridge and waits for its answer.
func (f *Front) call(method string, timeout time.Duration) (acp.Message, error) {
	f.mu.Lock()
	f.nextID++
	n := f.nextID
	ch := make(chan acp.Message, 1)
	f.internal[n] = ch
	f.mu.Unlock()
	req := acp.Message{Method: method, ID: json.RawMessage(fmt.Sprint(n)), Params: json.RawMessage("{}")}
	f.writeBridge(req.Line())
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m := <-ch:
		if len(m.Error) > 0 {
			return m, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m, nil
	case <-t.C:
		f.mu.Lock()
		delete(f.internal, n)
		f.mu.Unlock()
		return acp.Message{}, fmt.Errorf("%s: no answer within %s", method, timeout)
	}
}
