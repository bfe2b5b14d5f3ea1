package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzNDJSONReader feeds arbitrary bytes to the NDJSON stream, with and
// without the notification fast path, at a tiny and a normal line bound.
// Invariants: no panic; the only error is the reader's (io.EOF here); every
// delivered object, and every notification's params, is valid JSON that
// re-marshals; nothing is delivered that was not a line; every drop is
// reported with a known kind and a bounded prefix.
func FuzzNDJSONReader(f *testing.F) {
	for _, s := range []string{
		"",
		"\n\n  \n",
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\r\n",
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"m"}}`,
		"not json\n{\"truncated\": \n\xff\xfe\n{}\n[]\nnull\n",
		`{"method":"m","params":{"t":"a` + "\xff" + `b"}}` + "\n",
		`{"Method":"m"}` + "\n" + `{"method":"m","ID":1}` + "\n" + `[{"method":"m"}]` + "\n",
		`{"method":"m","params":1e999}` + "\n" + `{"method":"m","params":"\ud800"}` + "\n",
		string(bytes.Repeat([]byte("x"), 200)) + "\n" + `{"method":"after"}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, max := range []int{64, DefaultMaxLineBytes} {
			for _, fast := range []bool{false, true} {
				drops := 0
				s := NewStream(bytes.NewReader(data), io.Discard, nil, StreamOptions{MaxLineBytes: max, OnDrop: func(ev StreamEvent) {
					drops++
					switch ev.Kind {
					case "invalid-json", "not-a-message", "line-too-long":
					default:
						t.Fatalf("drop of unknown kind %q", ev.Kind)
					}
					if len(ev.Prefix) > 120 || ev.Err == nil {
						t.Fatalf("drop report %+v: prefix over 120 bytes or no error", ev)
					}
				}}).(*ndjsonStream)
				notifs := 0
				if fast {
					s.onMsg = func(m plainMsg) bool {
						notifs++
						for _, raw := range []json.RawMessage{m.params, m.result, m.errObj} {
							if raw != nil && !json.Valid(raw) {
								t.Fatalf("message %+v with an invalid member %q", m, raw)
							}
						}
						if _, err := json.Marshal(struct {
							Method string          `json:"method"`
							Params json.RawMessage `json:"params,omitempty"`
						}{m.method, m.params}); err != nil {
							t.Fatalf("message %q does not re-marshal: %v", m.method, err)
						}
						return true
					}
				}
				delivered := 0
				for {
					var v json.RawMessage
					err := s.ReadObject(&v)
					if err != nil {
						if err != io.EOF {
							t.Fatalf("ReadObject returned a non-I/O error: %v", err)
						}
						break
					}
					delivered++
					if !json.Valid(v) {
						t.Fatalf("delivered invalid JSON %q", v)
					}
					if _, err := json.Marshal(v); err != nil {
						t.Fatalf("delivered object does not re-marshal: %v", err)
					}
				}
				if delivered+notifs+drops > lines {
					t.Fatalf("%d delivered + %d notifications + %d dropped from %d lines", delivered, notifs, drops, lines)
				}
			}
		}
	})
}
