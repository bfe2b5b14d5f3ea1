package attach

import (
	"encoding/json"
	"os"
	"time"
)

// What the front keeps while no editor is attached: the bridge's
// notifications (bounded, BufferBytes) and its unanswered requests
// (pending, bounded in bridge_side.go), and what it adds to initialize's
// answer so an editor can come back.

// sendLocked sends a notification to the editor, or keeps it while none is
// attached. own marks the bridge's own notices (_acp-bridge/*); everything
// else (session/update, whatever an agent originated) is dropped past
// BufferBytes, counted per session and reported at attach; the bridge's
// own notices are kept up to twice the bound.
func (f *Front) sendLocked(line []byte, own bool) {
	if f.cur != nil {
		_ = f.cur.write(line)
		return
	}
	limit := f.opts.BufferBytes
	if own {
		limit *= 2
	}
	if f.bufBytes+len(line) > limit {
		sid := "?"
		var m struct {
			Params struct {
				SessionID string `json:"sessionId"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Params.SessionID != "" {
			sid = m.Params.SessionID
		}
		f.dropped[sid]++
		return
	}
	f.buf = append(f.buf, append([]byte(nil), line...))
	f.bufBytes += len(line)
}

func (f *Front) dropPendingLocked(key string) {
	for i, p := range f.pending {
		if p.key == key {
			f.pendBytes -= len(p.line)
			f.pending = append(f.pending[:i:i], f.pending[i+1:]...)
			return
		}
	}
}

// withAttachMeta adds {socket, token} under _meta["acp-bridge"].attach of the
// initialize answer the stdio editor gets (and only it: the token never
// reaches a socket client, which already has it).
func (f *Front) withAttachMeta(res json.RawMessage) json.RawMessage {
	var o map[string]json.RawMessage
	if json.Unmarshal(res, &o) != nil {
		return res
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(o["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	var ab map[string]json.RawMessage
	_ = json.Unmarshal(meta["acp-bridge"], &ab)
	if ab == nil {
		ab = map[string]json.RawMessage{}
	}
	if f.cur != nil && f.cur.name == "stdio" {
		ab["attach"], _ = json.Marshal(map[string]any{"socket": f.sockPath, "token": f.token, "pid": os.Getpid(), "graceSeconds": int(f.opts.Grace / time.Second)})
	} else {
		ab["attached"] = json.RawMessage("true")
	}
	meta["acp-bridge"], _ = json.Marshal(ab)
	o["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(o)
	if err != nil {
		return res
	}
	return out
}
