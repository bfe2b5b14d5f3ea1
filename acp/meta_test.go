package acp

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// dropMeta is StripMetaKey's oracle, on decoded JSON.
func dropMeta(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "_meta" {
				if m, ok := e.(map[string]any); ok {
					delete(m, key)
				}
			}
			x[k] = dropMeta(x[k], key)
		}
	case []any:
		for i := range x {
			x[i] = dropMeta(x[i], key)
		}
	}
	return v
}

func checkStrip(t *testing.T, in string) (string, bool) {
	t.Helper()
	out, changed, err := StripMetaKey([]byte(in), MetaKey)
	if err != nil {
		t.Fatalf("StripMetaKey(%q): %v", in, err)
	}
	if !json.Valid(out) {
		t.Fatalf("StripMetaKey(%q) = %q: not valid JSON", in, out)
	}
	var want, got any
	_ = json.Unmarshal([]byte(in), &want)
	_ = json.Unmarshal(out, &got)
	if want = dropMeta(want, MetaKey); !reflect.DeepEqual(want, got) {
		t.Fatalf("StripMetaKey(%q) = %q, want the value of %v", in, out, want)
	}
	if !changed && string(out) != in {
		t.Fatalf("unchanged, yet %q became %q", in, out)
	}
	return string(out), changed
}

func TestStripMetaKey(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{"_meta":{"acp-bridge":{"approvalId":"x"}}}`, `{"_meta":{}}`},
		{`{"_meta":{"claudeCode":{"toolName":"Bash"},"acp-bridge":{"approvalId":"x"}}}`, `{"_meta":{"claudeCode":{"toolName":"Bash"}}}`},
		{`{"_meta":{"acp-bridge":1,"other":2}}`, `{"_meta":{"other":2}}`},
		{`{"_meta":{"a":1,"acp-bridge":2,"b":3}}`, `{"_meta":{"a":1,"b":3}}`},
		{`{"_meta":{"acp-bridge":1,"acp-bridge":2,"c":3}}`, `{"_meta":{"c":3}}`},
		{`{"_meta":{"a":0,"acp-bridge":1,"acp-bridge":2}}`, `{"_meta":{"a":0}}`},
		{`{"_meta":{"acp-bridge":1,"a":0,"acp-bridge":2}}`, `{"_meta":{"a":0}}`},
		{`{"_meta":{"acp-bridge":1,"acp-bridge":2}}`, `{"_meta":{}}`},
		{`{ "_meta" : { "acp-bridge" : [1,{"x":"}"}] , "k" : "v" } }`, `{ "_meta" : { "k" : "v" } }`},
		{`{"_meta":{"acp\u002dbridge":{"agent":"x"}}}`, `{"_meta":{}}`},                          // escaped key
		{`{"\u005fmeta":{"acp-bridge":{"agent":"x"},"z":1}}`, `{"\u005fmeta":{"z":1}}`},          // escaped _meta
		{`{"acp-bridge":1,"meta":{"acp-bridge":2}}`, `{"acp-bridge":1,"meta":{"acp-bridge":2}}`}, // not under _meta
		{`{"update":{"sessionUpdate":"tool_call","content":[{"type":"content","_meta":{"acp-bridge":{"matchedRule":"Bash(*)"}}}],"_meta":{"acp-bridge":{"source":"rule"},"x":"acp-bridge"}}}`,
			`{"update":{"sessionUpdate":"tool_call","content":[{"type":"content","_meta":{}}],"_meta":{"x":"acp-bridge"}}}`},
		{`{"_meta":{"k":{"_meta":{"acp-bridge":1}},"acp-bridge":2}}`, `{"_meta":{"k":{"_meta":{}}}}`},
		{`{"_meta":"acp-bridge"}`, `{"_meta":"acp-bridge"}`},
		{`{"_meta":["acp-bridge",{"acp-bridge":1}]}`, `{"_meta":["acp-bridge",{"acp-bridge":1}]}`},
		{`{"text":"say \u0041cp-bridge"}`, `{"text":"say \u0041cp-bridge"}`},
		{`{"_meta":{"\u0061\u0063\u0070\u002D\u0062\u0072\u0069\u0064\u0067\u0065":1,"x":"\u003c\u00e9"}}`, `{"_meta":{"x":"\u003c\u00e9"}}`}, // every byte escaped, upper-case hex
		{`[{"_meta":{"acp-bridge":null}},"x",1.5e3,true,null]`, `[{"_meta":{}},"x",1.5e3,true,null]`},
	}
	for _, c := range cases {
		got, changed := checkStrip(t, c.in)
		if got != c.want || changed != (c.in != c.want) {
			t.Errorf("StripMetaKey(%s) = %s (changed %v), want %s", c.in, got, changed, c.want)
		}
	}
}

func TestStripMetaKeyTooDeep(t *testing.T) {
	deep := `{"_meta":{"x":` + strings.Repeat("[", maxStripDepth+5) + strings.Repeat("]", maxStripDepth+5) + `},"acp-bridge":1}`
	if _, _, err := StripMetaKey([]byte(deep), MetaKey); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("err = %v, want ErrTooDeep", err)
	}
}

func FuzzStripMetaKey(f *testing.F) {
	for _, s := range []string{`{"sessionId":"s","update":{"x":[{"\u005fmeta":{"acp-bridge":1}}]}}`, `{"_meta":{"acp-bridge":1,"a":2}}`, `{"_meta":{"a":{"_meta":{"acp\u002dbridge":[1]}}}}`, `[1,"\u0061",{}]`, `{"_meta":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		_, changed, err := StripMetaKey([]byte(in), MetaKey)
		if errors.Is(err, ErrTooDeep) {
			return
		}
		checkStrip(t, in)
		// What lets the bridge skip StripMetaKey must never hide a change.
		if u, ok := ScanSessionUpdate([]byte(in)); ok && u.NoMeta && changed {
			t.Fatalf("ScanSessionUpdate(%q) says NoMeta, yet StripMetaKey changed it", in)
		}
	})
}

// BenchmarkStripMetaKey is the cost added to forwarding one update, next to
// the one scan the update already gets (ScanSessionUpdate).
func BenchmarkStripMetaKey(b *testing.B) {
	chunk := `{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 16) + `"}}}`
	big := `{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 5000) + `"}}}`
	tool := `{"sessionId":"s-1","update":{"sessionUpdate":"tool_call","toolCallId":"toolu_1","title":"ls","kind":"execute","status":"pending","rawInput":{"command":"ls -la"},"_meta":{"claudeCode":{"toolName":"Bash"}}}}`
	foreign := `{"sessionId":"s-1","update":{"sessionUpdate":"tool_call","toolCallId":"toolu_1","title":"ls","kind":"execute","status":"pending","rawInput":{"command":"ls -la"},"_meta":{"claudeCode":{"toolName":"Bash"},"acp-bridge":{"approvalId":"x"}}}}`
	escaped := `{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"caf\u00e9 \u003cb\u003e ` + strings.Repeat("lorem ipsum ", 16) + `"}}}`
	escapedLetter := `{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\u0061 ` + strings.Repeat("lorem ipsum ", 5000) + `"}}}`
	for _, c := range []struct{ name, line string }{{"chunk", chunk}, {"64KiB", big}, {"toolcall", tool}, {"foreign", foreign}, {"escaped", escaped}, {"64KiB-walked", escapedLetter}} {
		line := []byte(c.line)
		b.Run(c.name+"/strip", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				_, _, _ = StripMetaKey(line, MetaKey)
			}
		})
		b.Run(c.name+"/scan", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				_, _ = ScanSessionUpdate(line)
			}
		})
	}
}
