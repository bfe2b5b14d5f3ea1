package bridge

import (
	"bytes"
	"encoding/json"
)

// What runs unasked is seen (docs/policy.md, "Tool calls that were never
// asked about"). Agents announce every tool call in session/update, whether
// or not they ask first. A tool call that reaches status completed or
// failed without a permission request for its toolCallId ran unasked: it is
// normalised, decided as if it had been asked (in the session's mode), and
// audited with decision "unasked" and the verdict it would have had. One the
// policy denies raises a notice in the chat and, unless
// permissions.cancelOnUnaskedDeny is false, cancels the turn. The OS sandbox
// is what prevents such calls; this makes them visible.
//
// Goroutines: markAsked runs on the child's request goroutines, noteUpdate
// on the child's read loop (it only reads two members and a map); the
// decision, the audit line and the notice run on a goroutine of their own,
// so the read loop never waits on the engine or the audit file.

// unaskedLimit bounds the toolCallIds a session remembers (asked or
// judged); past it the oldest half is forgotten.
const unaskedLimit = 4096

// unaskedState is a session's memory of tool calls: asked (a permission
// request named it) or judged (already audited as unasked).
type unaskedState struct {
	seen  map[string]bool // toolCallId -> asked (true) or judged (false)
	order []string
}

func (u *unaskedState) add(id string, asked bool) (was, known bool) {
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	was, known = u.seen[id]
	if known && (was || !asked) {
		return was, known
	}
	if !known {
		u.order = append(u.order, id)
		if len(u.order) > unaskedLimit {
			drop := u.order[:len(u.order)/2]
			for _, d := range drop {
				delete(u.seen, d)
			}
			u.order = append([]string(nil), u.order[len(u.order)/2:]...)
		}
	}
	u.seen[id] = asked
	return was, known
}

// markAsked records that the agent asked about toolCallID.
func (s *session) markAsked(toolCallID string) {
	if toolCallID == "" {
		return
	}
	s.mu.Lock()
	s.unasked.add(toolCallID, true)
	s.mu.Unlock()
}

var (
	statusCompleted = []byte(`"completed"`)
	statusFailed    = []byte(`"failed"`)
)

// noteUpdate looks at a tool_call / tool_call_update the agent sent (before
// the cache takes it: it forgets a finished call) and starts judging it
// when it finished without having been asked about.
func (a *agentRT) noteUpdate(s *session, o update) {
	var status, idRaw json.RawMessage
	if o.scan.Members != nil {
		status, idRaw = o.scan.Members["status"], o.scan.Members["toolCallId"]
	} else if o.body != nil {
		var m struct {
			Status     json.RawMessage `json:"status"`
			ToolCallID json.RawMessage `json:"toolCallId"`
		}
		if json.Unmarshal(o.body, &m) != nil {
			return
		}
		status, idRaw = m.Status, m.ToolCallID
	}
	if !bytes.Equal(bytes.TrimSpace(status), statusCompleted) && !bytes.Equal(bytes.TrimSpace(status), statusFailed) {
		return
	}
	var id string
	if json.Unmarshal(idRaw, &id) != nil || id == "" {
		return
	}
	s.mu.Lock()
	_, known := s.unasked.add(id, false)
	s.mu.Unlock()
	if known {
		return // asked about, or already judged
	}
	body := o.body
	if body == nil {
		body = o.scan.Update
	}
	merged := s.cache.Merge(body) // the whole call: what was announced, and this update
	go a.b.judgeUnasked(s, id, merged)
}

// judgeUnasked decides an unasked tool call as if it had been asked, audits
// it, and acts on a deny (permission.Flow.Unasked).
func (b *Bridge) judgeUnasked(s *session, toolCallID string, toolCall json.RawMessage) {
	b.flow.Unasked(b.lifetime, s, toolCallID, toolCall)
}
