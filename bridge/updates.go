package bridge

import (
	"context"
	"encoding/json"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// An agent may send updates for a session right after its session/new
// answer (Claude's adapter sends available_commands_update at once). The
// child's read loop sees them before the goroutine waiting for that answer
// has registered the session. So while a session/new is in flight, updates
// for child session ids the bridge does not know are held, in order, and
// flushed under the new bridge id right after the editor has the session/new
// answer (so the editor knows the id before its first update). Whatever is
// still held when no session/new is in flight any more goes out the usual
// way for an unknown id (the agent's active session).

// What is held is bounded per agent, across every id (an agent decides
// when its session/new answer comes and may name any number of ids): at
// most maxHeld updates for one id, and maxHeldAll updates or maxHeldBytes
// of params in all. Past a bound an update for an unknown id goes out the
// usual way at once (the agent's active session, through the editor's
// queue and so with its back-pressure), and one for a session whose
// session/new answer is still on its way to the editor is dropped, with a
// log line: it cannot go out before that answer.
const (
	maxHeld      = 10000    // for one unknown child session id
	maxHeldAll   = 10000    // for all ids of one agent
	maxHeldBytes = 16 << 20 // params bytes, for all ids of one agent
)

// heldCount is what one agent holds. Guarded by agentRT.fwdMu.
type heldCount struct {
	n, bytes int
	dropped  int // updates for a holding session dropped past the bound, since the last release
}

// room says whether o may be held.
func (h *heldCount) room(o update) bool {
	return h.n < maxHeldAll && h.bytes+len(o.params) <= maxHeldBytes
}

func (h *heldCount) add(o update) {
	h.n++
	h.bytes += len(o.params)
}

func (h *heldCount) remove(list []update) {
	for _, o := range list {
		h.n--
		h.bytes -= len(o.params)
	}
}

// update is one session/update of a child: its params as sent, and the
// fields the bridge reads.
type update struct {
	params  json.RawMessage
	childID string
	kind    string            // update.sessionUpdate
	body    json.RawMessage   // params.update; nil if absent
	scan    acp.SessionUpdate // when scanned is set: where sessionId sits, to splice in the bridge's id
	scanned bool
	learned bool // learn has run: foreign _meta stripped, the tool-call cache told
}

func parseUpdate(params json.RawMessage) (update, error) {
	if u, ok := acp.ScanSessionUpdate(params); ok {
		return scannedUpdate(u), nil
	}
	// Not readable by the fast scanner (e.g. escaped member names): the slow way.
	o, err := acp.ParseObject(params)
	if err != nil {
		return update{}, err
	}
	return update{params: params, childID: o.String("sessionId"), kind: acp.UpdateKind(o["update"]), body: o["update"]}, nil
}

// scannedUpdate is an update acp has already read.
func scannedUpdate(u acp.SessionUpdate) update {
	return update{params: u.Params, childID: u.SessionID, kind: u.Kind, body: u.Update, scan: u, scanned: true}
}

// forwardUpdate is called on the child's read loop for every session/update
// acp has not read already.
func (a *agentRT) forwardUpdate(ctx context.Context, params json.RawMessage) {
	o, err := parseUpdate(params)
	if err != nil {
		a.log.Warn("session/update params are not an object; dropped", zap.Error(err))
		return
	}
	a.forward(ctx, o)
}

// forward holds or sends one update, on the child's read loop.
func (a *agentRT) forward(ctx context.Context, o update) {
	a.fwdMu.Lock()
	defer a.fwdMu.Unlock()
	childID := o.childID
	s, known := a.sessionFor(childID)
	if known && s.holding {
		// What the update says of a tool call is learned now, in the
		// order the agent sent it: a permission request for the call may
		// come before the session stops holding, and is judged on what
		// the cache knows (a held tool_call was once judged as a call of
		// no known tool).
		var ok bool
		if o, ok = a.learn(s, o); !ok {
			return
		}
		if a.heldAll.room(o) {
			a.heldAll.add(o)
			s.held = append(s.held, o)
			return
		}
		if a.heldAll.dropped++; a.heldAll.dropped == 1 {
			a.log.Warn("too many updates held while the editor is being told of a new session; dropping them until it is",
				zap.String("session", s.id), zap.Int("held", a.heldAll.n), zap.Int("heldBytes", a.heldAll.bytes))
		}
		return
	}
	if !known && a.opening > 0 {
		if len(a.held[childID]) < maxHeld && a.heldAll.room(o) {
			a.heldAll.add(o)
			a.held[childID] = append(a.held[childID], o)
			return
		}
		a.log.Warn("too many updates for sessions not yet known; forwarding them to the active session",
			zap.String("childSession", childID), zap.Int("held", a.heldAll.n), zap.Int("heldBytes", a.heldAll.bytes))
	}
	a.sendUpdate(ctx, s, known, o, true)
}

// sendUpdate rewrites the session id and forwards. Called with fwdMu held.
// onReadLoop is set on the child's read loop, which flushes the editor's
// queue before each read(2) (flushingReader): the update may then wait in
// the queue for the rest of its batch.
func (a *agentRT) sendUpdate(ctx context.Context, s *session, known bool, o update, onReadLoop bool) {
	childID := o.childID
	if s == nil {
		a.log.Warn("session/update for a session the bridge does not know, and the agent has no session to show it on; dropped",
			zap.String("childSession", childID))
		return
	}
	if !known {
		a.log.Debug("session/update for an unknown child session shown on the agent's active session",
			zap.String("childSession", childID), zap.String("session", s.id))
	}
	if !o.learned {
		var ok bool
		if o, ok = a.learn(s, o); !ok {
			return
		}
	}
	if o.kind == "current_mode_update" || o.kind == "config_option_update" {
		var fwd bool
		if o, fwd = a.modeUpdate(s, known, o); !fwd { // modes.go: the editor sees the bridge's mode
			return
		}
	}
	id := s.idQuote
	var out acp.ValidParts
	if o.scanned {
		out = o.scan.WithSessionID(id)
	} else {
		obj, err := acp.ParseObject(o.params)
		if err != nil {
			a.log.Warn("session/update params are not an object; dropped", zap.Error(err))
			return
		}
		obj["sessionId"] = id
		out = acp.ValidParts{obj.Marshal()}
	}
	// The params were checked when read and only the id changed: send as is.
	send := a.b.editor.NotifyParts
	if onReadLoop {
		send = a.b.editor.NotifyPartsDeferred
	}
	if err := send(ctx, acp.MethodSessionUpdate, out); err != nil {
		a.log.Debug("forwarding session/update failed", zap.Error(err))
	}
}

// learn strips a child's foreign _meta from o and tells s's tool-call
// cache what o says of a call, once per update, in the order the agent
// sent them (on the read loop, whether o goes out now or is held). It
// reports false when o is to be dropped. Called with fwdMu held.
func (a *agentRT) learn(s *session, o update) (update, bool) {
	// A child's _meta["acp-bridge"] (anywhere in the update) never reaches
	// the editor. The pass that read the line already knows whether any
	// member in it is named _meta in any spelling (acp.SessionUpdate.NoMeta):
	// when none is, there is nothing to strip and the params are not read
	// again (two more passes over a 64 KiB diff cost more than the scan
	// itself). Otherwise StripMetaKey reads them; one it changed is read
	// again from its stripped bytes.
	if o.scanned && o.scan.NoMeta {
		// nothing named _meta: nothing to strip
	} else if stripped, ok := a.stripForeign(o.params, "session/update "+o.kind); !ok {
		return o, false
	} else if len(stripped) != len(o.params) {
		so, err := parseUpdate(stripped)
		if err != nil {
			a.log.Warn("session/update params are not an object; dropped", zap.Error(err))
			return o, false
		}
		o = so
	}
	o.learned = true
	if o.kind != "tool_call" && o.kind != "tool_call_update" {
		return o, true
	}
	// unasked.go: a call that finished without being asked about is
	// judged on what the cache knows of it, before the cache forgets it.
	a.noteUpdate(s, o)
	switch {
	case o.scan.Members != nil:
		s.cache.UpsertMembers(o.scan.Members) // read in the line's one pass
	case o.body != nil:
		s.cache.Upsert(o.body)
	}
	return o, true
}

// beginOpening marks a session/new in flight.
func (a *agentRT) beginOpening() {
	a.fwdMu.Lock()
	a.opening++
	a.fwdMu.Unlock()
}

// registerOpened registers a new session and moves what was held for its
// child id onto it; the session holds further updates until releaseHeld.
func (a *agentRT) registerOpened(s *session) {
	a.fwdMu.Lock()
	defer a.fwdMu.Unlock()
	// Held before the session was known: learned before the session can
	// be found (addSession), so that no request on it is judged without
	// them; a request does not take fwdMu (still counted in heldAll).
	for _, o := range a.held[s.childID] {
		a.heldAll.remove([]update{o})
		if lo, ok := a.learn(s, o); ok {
			a.heldAll.add(lo) // its params may be shorter, stripped
			s.held = append(s.held, lo)
		}
	}
	delete(a.held, s.childID)
	s.holding = true
	a.b.addSession(s)
}

// releaseHeld forwards what the session held, in order, and stops holding.
func (a *agentRT) releaseHeld(ctx context.Context, s *session) {
	a.fwdMu.Lock()
	defer a.fwdMu.Unlock()
	for _, o := range s.held {
		a.sendUpdate(ctx, s, true, o, false)
	}
	a.heldAll.remove(s.held)
	if a.heldAll.dropped > 0 {
		a.log.Warn("updates dropped while held past the bound", zap.String("session", s.id), zap.Int("dropped", a.heldAll.dropped))
		a.heldAll.dropped = 0
	}
	s.held, s.holding = nil, false
}

// endOpening ends a session/new (whatever its outcome). When none is in
// flight any more, updates still held for unknown ids go out the usual way.
func (a *agentRT) endOpening(ctx context.Context) {
	a.fwdMu.Lock()
	defer a.fwdMu.Unlock()
	a.opening--
	if a.opening > 0 {
		return
	}
	for childID, list := range a.held {
		s, known := a.sessionFor(childID)
		for _, o := range list {
			a.sendUpdate(ctx, s, known, o, false)
		}
		a.heldAll.remove(list)
	}
	clear(a.held)
	if a.openedCh != nil {
		close(a.openedCh)
		a.openedCh = nil
	}
}

// waitOpened waits (off the read loop) until no session/new is in flight,
// so a request for a just-created session finds it.
func (a *agentRT) waitOpened(ctx context.Context) {
	a.fwdMu.Lock()
	if a.opening == 0 {
		a.fwdMu.Unlock()
		return
	}
	if a.openedCh == nil {
		a.openedCh = make(chan struct{})
	}
	ch := a.openedCh
	a.fwdMu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// stripForeign removes a child's _meta["acp-bridge"], at any depth, from
// JSON the editor will be shown (acp.StripMetaKey): only the bridge speaks
// under that key. A value too deep to check is refused (ok false), never
// forwarded unread.
func (a *agentRT) stripForeign(raw json.RawMessage, what string) (json.RawMessage, bool) {
	out, changed, err := acp.StripMetaKey(raw, acp.MetaKey)
	if err != nil {
		a.log.Warn("could not check a message from the agent for a foreign _meta key; not forwarded",
			zap.String("what", what), zap.Error(err))
		return nil, false
	}
	if changed {
		a.log.Warn("removed _meta[\"acp-bridge\"] the agent put in a message for the editor: only acp-bridge writes that key",
			zap.String("what", what))
	}
	return out, true
}

// stripOptions is stripForeign for the _meta of an agent's permission
// options. An option's Meta is the VALUE of its _meta member (decoded from
// any spelling encoding/json folds to it, "_META" too), so it is checked as
// that member: wrapped in {"_meta": ...}, its own "acp-bridge" key is
// removed as well as any deeper one (red team 9: the top-level key was
// kept, since StripMetaKey looks into members named _meta only).
func (a *agentRT) stripOptions(opts []acp.PermissionOption) []acp.PermissionOption {
	out := opts
	const head, tail = `{"_meta":`, `}`
	for i, o := range opts {
		if len(o.Meta) == 0 {
			continue
		}
		wrapped := make([]byte, 0, len(head)+len(o.Meta)+len(tail))
		wrapped = append(append(append(wrapped, head...), o.Meta...), tail...)
		m, ok := a.stripForeign(wrapped, "permission option")
		if ok && len(m) == len(wrapped) {
			continue // nothing removed
		}
		if &out[0] == &opts[0] {
			out = append([]acp.PermissionOption(nil), opts...)
		}
		out[i].Meta = nil // dropped when it could not be checked
		if ok {
			out[i].Meta = json.RawMessage(m[len(head) : len(m)-len(tail)])
		}
	}
	return out
}
