package acp

import (
	"bytes"
	"encoding/json"

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

	idStart, idEnd int // span of the sessionId value in Params
}

// ScanSessionUpdate reads session/update params in one pass over them (and
// one over the update), without decoding the rest. ok is false when the
// params are not a plain object with one string sessionId and at most one
// update (escaped or repeated names included); the caller then uses
// encoding/json. params must be valid JSON (read by this package).
func ScanSessionUpdate(params []byte) (u SessionUpdate, ok bool) {
	nID, nUpdate := 0, 0
	upStart, upEnd := 0, 0
	scanned := jsonscan.EachMember(params, func(name []byte, s, e int) bool {
		switch string(name) {
		case "sessionId":
			u.idStart, u.idEnd = s, e
			nID++
		case "update":
			upStart, upEnd = s, e
			nUpdate++
		}
		return nID < 2 && nUpdate < 2
	})
	if !scanned || nID != 1 || nUpdate > 1 || params[u.idStart] != '"' {
		return SessionUpdate{}, false
	}
	raw := params[u.idStart+1 : u.idEnd-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		u.SessionID = string(raw)
	} else if json.Unmarshal(params[u.idStart:u.idEnd], &u.SessionID) != nil {
		return SessionUpdate{}, false
	}
	u.Params = params
	if nUpdate == 1 {
		u.Update = params[upStart:upEnd:upEnd]
		if ks, ke, found := jsonscan.Member(u.Update, "sessionUpdate"); found && u.Update[ks] == '"' {
			u.Kind = updateKind(u.Update[ks:ke])
		}
	}
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
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	var k string
	_ = json.Unmarshal(raw, &k)
	return k
}
