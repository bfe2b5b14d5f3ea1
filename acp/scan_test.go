package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

func TestSessionUpdateInfoAndReplace(t *testing.T) {
	cases := []struct {
		in       string
		id, kind string
		ok       bool
	}{
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"text":"a \"quoted\" }{ ] \\\\"}}}`, "s1", "agent_message_chunk", true},
		{` { "update" : { "x" : [1, {"sessionUpdate":"nested"}], "sessionUpdate" : "tool_call" } , "sessionId" : "s\u00e9" } `, "sé", "tool_call", true},
		{`{"sessionId":"s\"x","update":{}}`, `s"x`, "", true},
		{`{"sessionId":"a","sessionId":"b"}`, "", "", false},   // duplicate: slow path
		{`{"session\u0049d":"a"}`, "", "", false},              // escaped name: slow path
		{`{"sessionId":7}`, "", "", false},                     // not a string
		{`[{"sessionId":"a"}]`, "", "", false},                 // not an object
		{`{"update":{"sessionUpdate":"plan"}}`, "", "", false}, // no sessionId
		{`{"sessionId":"x","update":{"sessionUpdate":1}}`, "x", "", true},
		{`{"sessionId":"x","update":{},"update":{}}`, "", "", false}, // repeated update: slow path
		{`{"sessionId":"x"}`, "x", "", true},
	}
	for _, c := range cases {
		u, ok := ScanSessionUpdate([]byte(c.in))
		if u.SessionID != c.id || u.Kind != c.kind || ok != c.ok {
			t.Errorf("ScanSessionUpdate(%s) = %q %q %v, want %q %q %v", c.in, u.SessionID, u.Kind, ok, c.id, c.kind, c.ok)
		}
		if !c.ok {
			continue
		}
		out := bytes.Join(u.WithSessionID([]byte(`"bridge-1"`)), nil)
		if !json.Valid(out) {
			t.Fatalf("WithSessionID(%s) = %s", c.in, out)
		}
		var before, after map[string]json.RawMessage
		_ = json.Unmarshal([]byte(c.in), &before)
		_ = json.Unmarshal(out, &after)
		if string(after["sessionId"]) != `"bridge-1"` || string(after["update"]) != string(before["update"]) {
			t.Fatalf("WithSessionID(%s) changed more than the id: %s", c.in, out)
		}
		if string(u.Update) != string(before["update"]) {
			t.Fatalf("ScanSessionUpdate(%s).Update = %s, want %s", c.in, u.Update, before["update"])
		}
	}
}

// The scanner agrees with encoding/json on every valid object it reads, and
// says "not ok" (never a wrong answer) on what it cannot read.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{"sessionId":"a","update":{"sessionUpdate":"x"}}`,
		`{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"t","content":[{"type":"diff","path":"/p"}],"rawInput":{"command":"ls"}}}`,
		`{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","status":null,"toolCallId":"u"}}`, `{"a":[1,2,{"b":"\\""}],"c":null}`,
		`{"a":"\\\\","b":true}`, `{}`, `{"a":1,"a":2}`, `{"\u0061":1}`, ` {"x" : "}" } `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		b := []byte(in)
		var m map[string]json.RawMessage
		if !json.Valid(b) || json.Unmarshal(b, &m) != nil {
			return
		}
		for name, want := range m {
			s, e, ok := jsonscan.Member(b, name)
			if !ok {
				continue // allowed: escaped or repeated names go the slow way
			}
			if !jsonEqual(b[s:e], want) {
				t.Fatalf("Member(%s, %q) = %s, encoding/json says %s", in, name, b[s:e], want)
			}
		}
		// ScanSessionUpdate agrees too, or declines.
		if u, ok := ScanSessionUpdate(b); ok {
			var id string
			if json.Unmarshal(m["sessionId"], &id) != nil || id != u.SessionID {
				t.Fatalf("ScanSessionUpdate(%s).SessionID = %q, encoding/json says %s", in, u.SessionID, m["sessionId"])
			}
			if (m["update"] == nil) != (u.Update == nil) || (u.Update != nil && !jsonEqual(u.Update, m["update"])) {
				t.Fatalf("ScanSessionUpdate(%s).Update = %s, encoding/json says %s", in, u.Update, m["update"])
			}
			var upd struct {
				Kind any `json:"sessionUpdate"`
			}
			if u.Update != nil && json.Unmarshal(u.Update, &upd) == nil {
				if k, isStr := upd.Kind.(string); isStr && u.Kind != k && u.Kind != "" {
					t.Fatalf("ScanSessionUpdate(%s).Kind = %q, encoding/json says %q", in, u.Kind, k)
				}
			}
			if u.Members != nil {
				var um map[string]json.RawMessage
				if json.Unmarshal(u.Update, &um) != nil || len(um) != len(u.Members) || (u.Kind != "tool_call" && u.Kind != "tool_call_update") {
					t.Fatalf("ScanSessionUpdate(%s).Members = %d members of a %q update; encoding/json says %d", in, len(u.Members), u.Kind, len(um))
				}
				for k, v := range um {
					if !jsonEqual(u.Members[k], v) {
						t.Fatalf("ScanSessionUpdate(%s).Members[%q] = %s, encoding/json says %s", in, k, u.Members[k], v)
					}
				}
			}
			out := bytes.Join(u.WithSessionID([]byte(`"R"`)), nil)
			var m2 map[string]json.RawMessage
			if json.Unmarshal(out, &m2) != nil || string(m2["sessionId"]) != `"R"` || len(m2) != len(m) {
				t.Fatalf("WithSessionID(%s) = %s", in, out)
			}
		}
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && x.String() == y.String()
}

func TestPlainNotificationLeavesOddCasesToJSONRPC(t *testing.T) {
	cases := map[string]bool{
		`{"jsonrpc":"2.0","method":"session/update","params":{"a":1}}`: true,
		`{"jsonrpc":"2.0","method":"x","id":null}`:                     true,
		`{"jsonrpc":"2.0","method":"x","id":1}`:                        false, // a request
		`{"jsonrpc":"2.0","Method":"x"}`:                               false, // case: jsonrpc2 decides
		`{"jsonrpc":"2.0","method":"x","result":1}`:                    false,
		`{"jsonrpc":"2.0","m\u0065thod":"x"}`:                          false, // escaped name
		`{"jsonrpc":"2.0","method":"x",}`:                              false, // invalid JSON
	}
	for in, want := range cases {
		if _, _, ok := plainNotification([]byte(in)); ok != want {
			t.Errorf("plainNotification(%s) ok = %v, want %v", in, ok, want)
		}
	}
	_, params, _ := plainNotification([]byte(`{"method":"m","params":{"k":"` + strings.Repeat("v", 100) + `"}}`))
	if !json.Valid(params) || !strings.HasPrefix(string(params), `{"k":"vvv`) {
		t.Fatalf("params %s", params)
	}
}

// TestSessionIDReuseNeverMisreads checks the session-id reuse of the line
// reader: an id is reused only when the bytes are the string itself. An id
// whose escapes spell the previous id's raw bytes must still be decoded.
func TestSessionIDReuseNeverMisreads(t *testing.T) {
	line := func(rawID string) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + rawID + `","update":{"sessionUpdate":"plan"}}}`)
	}
	var r lineReader
	for i, tc := range []struct{ raw, want string }{
		{`s-1`, `s-1`},
		{`s-1`, `s-1`},
		{`a\\\"b`, `a\"b`}, // decoded: backslash, quote
		{`a\"b`, `a"b`},    // its raw bytes equal the previous id: must not be reused
		{`a\"b`, `a"b`},
		{`s-\u0031`, `s-1`},
	} {
		var m plainMsg
		if !r.read(line(tc.raw), &m) || !m.scanned {
			t.Fatalf("line %d (%s) not read in one pass", i, tc.raw)
		}
		if m.update.SessionID != tc.want {
			t.Fatalf("line %d: sessionId %s read as %q, want %q", i, tc.raw, m.update.SessionID, tc.want)
		}
	}
}

// TestNoMeta: the line reader and ScanSessionUpdate say NoMeta only when
// no member anywhere in the params is named _meta in any spelling (the
// bridge then skips StripMetaKey), and a line whose member outside params
// is named so is treated the same way (asked about the whole line).
func TestNoMeta(t *testing.T) {
	for _, tc := range []struct {
		params string
		noMeta bool
	}{
		{`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"_meta \"_meta\":{}"}}}`, true},
		{`{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"diff","path":"/a","newText":"x\n\"y\""}]}}`, true},
		{`{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","_meta":{"claudeCode":{}}}}`, false},
		{`{"sessionId":"s","_meta":{"acp-bridge":1},"update":{"sessionUpdate":"plan"}}`, false},
		{`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"a":{"b":{"c":[{"_meta":{"acp-bridge":1}}]}}}]}}`, false},
		{`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"\u005fmeta":{"acp-bridge":1}}]}}`, false},
		{`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"x\"y":1}]}}`, false}, // any escaped name: read it
	} {
		u, ok := ScanSessionUpdate([]byte(tc.params))
		if !ok || u.NoMeta != tc.noMeta {
			t.Errorf("ScanSessionUpdate(%s): ok %v NoMeta %v, want NoMeta %v", tc.params, ok, u.NoMeta, tc.noMeta)
		}
		m, ok := plainMessage([]byte(`{"jsonrpc":"2.0","method":"session/update","params":` + tc.params + `}`))
		if !ok || !m.scanned || m.update.NoMeta != tc.noMeta {
			t.Errorf("line reader on %s: ok %v scanned %v NoMeta %v, want NoMeta %v", tc.params, ok, m.scanned, m.update.NoMeta, tc.noMeta)
		}
		if _, changed, err := StripMetaKey([]byte(tc.params), MetaKey); tc.noMeta && (changed || err != nil) {
			t.Errorf("NoMeta, yet StripMetaKey(%s) changed %v err %v", tc.params, changed, err)
		}
	}
	// A _meta outside the params (a member of the message itself) is not
	// in what is forwarded, but the answer is for the whole line: no.
	m, ok := plainMessage([]byte(`{"jsonrpc":"2.0","_meta":{},"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan"}}}`))
	if !ok || !m.scanned || m.update.NoMeta {
		t.Errorf("a line with _meta outside its params: ok %v scanned %v NoMeta %v", ok, m.scanned, m.update.NoMeta)
	}
}
