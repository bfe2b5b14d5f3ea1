package acp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

// The few things the bridge reads of a message without decoding it, built on
// internal/jsonscan: the message was checked once with jsonscan.Valid when it
// was read. Anything the scanner does not recognise makes the callers fall
// back to encoding/json, so a surprise costs speed, never correctness.

// ValidParts is one line of valid JSON in pieces (their concatenation is
// the value, with no newline in it: a line this package read, pieces of
// json.Marshal output); Conn.Notify writes them without joining or
// checking them.
type ValidParts [][]byte

// SessionUpdate is what the bridge reads of session/update params without
// decoding them: the session id, the update object and its sessionUpdate.
type SessionUpdate struct {
	Params    []byte          // the params as read
	SessionID string          // params.sessionId
	Update    json.RawMessage // params.update as sent; nil if absent
	Kind      string          // update.sessionUpdate; "" if absent or not a string
	// Members are the update's members (values share Params), for the
	// tool-call kinds only, when the scan could read every name plainly
	// and none repeats; nil otherwise (read Update instead).
	Members map[string]json.RawMessage
	// NoMeta is set when the pass that read Params found no member named
	// "_meta", in any spelling, anywhere in them (jsonscan.ScanNamed):
	// StripMetaKey has nothing to remove, and need not read them again.
	// Unset (the zero value) says nothing: check.
	NoMeta bool

	idStart, idEnd int // span of the sessionId value in Params
}

// ScanSessionUpdate reads session/update params in one pass over them
// (jsonscan.Scan, which also checks them), without decoding the rest. ok
// is false when the params are not valid JSON or not a plain object with
// one string sessionId and at most one update (escaped or repeated names
// included); the caller then uses encoding/json.
func ScanSessionUpdate(params []byte) (u SessionUpdate, ok bool) {
	fs, valid, named := jsonscan.ScanNamed(params, 2, nil, metaMember)
	if !valid || len(params) == 0 {
		return SessionUpdate{}, false
	}
	u, ok = sessionUpdateFrom(params, fs, -1, 0, "")
	u.NoMeta = ok && !named
	return u, ok
}

// sessionUpdateFrom reads a SessionUpdate out of fields Scan recorded:
// params's members are those whose Parent is parent, the update's are
// one level further. Offsets in fs are base bytes ahead of params (the
// line params were copied from). last is a session id read before: when
// the id repeats it, last is used instead of a new string.
func sessionUpdateFrom(params []byte, fs []jsonscan.Field, parent, base int, last string) (u SessionUpdate, ok bool) {
	nID, nUpdate, update := 0, 0, -1
	for i, f := range fs {
		if f.Parent != parent {
			continue
		}
		if f.Escaped {
			return SessionUpdate{}, false
		}
		switch string(params[f.NameStart-base : f.NameEnd-base]) {
		case "sessionId":
			u.idStart, u.idEnd = f.Start-base, f.End-base
			nID++
		case "update":
			update = i
			nUpdate++
		}
	}
	if nID != 1 || nUpdate > 1 || params[u.idStart] != '"' {
		return SessionUpdate{}, false
	}
	raw := params[u.idStart+1 : u.idEnd-1]
	switch {
	case bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw):
		// Escapes or invalid UTF-8 (which encoding/json replaces): decode.
		// Never compared with last: the bytes are not the string.
		var id string // decoded apart: &u.SessionID would move u to the heap
		if json.Unmarshal(params[u.idStart:u.idEnd], &id) != nil {
			return SessionUpdate{}, false
		}
		u.SessionID = id
	case string(raw) == last:
		u.SessionID = last
	default:
		u.SessionID = string(raw)
	}
	u.Params = params
	if update < 0 {
		return u, true
	}
	uf := fs[update]
	u.Update = params[uf.Start-base : uf.End-base : uf.End-base]
	// update.sessionUpdate, if present exactly once under a plain name,
	// and, for tool calls, every member.
	kind, nKind, n := -1, 0, 0
	plain := true
	for i, f := range fs[update+1:] {
		if f.Parent != update {
			continue
		}
		n++
		if f.Escaped {
			plain = false // unreadable names: no kind, as jsonscan.Member would say
			break
		}
		if string(params[f.NameStart-base:f.NameEnd-base]) == "sessionUpdate" {
			kind = update + 1 + i
			nKind++
		}
	}
	if !plain || nKind != 1 || params[fs[kind].Start-base] != '"' {
		return u, true
	}
	u.Kind = updateKind(params[fs[kind].Start-base : fs[kind].End-base])
	if u.Kind != "tool_call" && u.Kind != "tool_call_update" {
		return u, true
	}
	members := make(map[string]json.RawMessage, n)
	for _, f := range fs[update+1:] {
		if f.Parent != update {
			continue
		}
		raw := params[f.NameStart-base : f.NameEnd-base]
		if !utf8.Valid(raw) {
			return u, true // encoding/json would read another name
		}
		name := string(raw)
		if _, dup := members[name]; dup {
			return u, true
		}
		members[name] = params[f.Start-base : f.End-base : f.End-base]
	}
	u.Members = members
	return u, true
}

// WithSessionID returns the params with the sessionId value replaced by id
// (valid JSON, e.g. a quoted string), as pieces that share u.Params.
func (u SessionUpdate) WithSessionID(id []byte) ValidParts {
	return ValidParts{u.Params[:u.idStart], id, u.Params[u.idEnd:]}
}

// knownKinds are ACP v1's sessionUpdate values, shared so that reading one
// allocates nothing.
var knownKinds = []string{
	"agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call", "tool_call_update",
	"plan", "available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update",
}

// updateKind decodes a JSON string (quotes included) holding a sessionUpdate.
func updateKind(raw []byte) string {
	body := raw[1 : len(raw)-1]
	for _, k := range knownKinds {
		if string(body) == k {
			return k
		}
	}
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var k string // escapes or invalid UTF-8 (which encoding/json replaces): decode
	_ = json.Unmarshal(raw, &k)
	return k
}
