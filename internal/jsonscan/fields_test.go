package jsonscan

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// describe renders fields as "parent:name=value" strings, for readable
// comparisons.
func describe(data []byte, fs []Field) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		esc := ""
		if f.Escaped {
			esc = "(escaped)"
		}
		out = append(out, fmt.Sprintf("%d:%s%s=%s", f.Parent, f.Name(data), esc, f.Value(data)))
	}
	return out
}

func TestScanFields(t *testing.T) {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","content":[{"type":"diff"}],"rawInput":{"command":"ls"}}}}`
	cases := []struct {
		name  string
		in    string
		depth int
		want  []string
	}{
		{"depth 0 records nothing", line, 0, []string{}},
		{"depth 1: the top-level members", line, 1, []string{
			`-1:jsonrpc="2.0"`, `-1:method="session/update"`,
			`-1:params={"sessionId":"s1","update":{"sessionUpdate":"tool_call","content":[{"type":"diff"}],"rawInput":{"command":"ls"}}}`,
		}},
		{"depth 3: params and the update, not rawInput nor objects in arrays", line, 3, []string{
			`-1:jsonrpc="2.0"`, `-1:method="session/update"`,
			`-1:params={"sessionId":"s1","update":{"sessionUpdate":"tool_call","content":[{"type":"diff"}],"rawInput":{"command":"ls"}}}`,
			`2:sessionId="s1"`,
			`2:update={"sessionUpdate":"tool_call","content":[{"type":"diff"}],"rawInput":{"command":"ls"}}`,
			`4:sessionUpdate="tool_call"`, `4:content=[{"type":"diff"}]`, `4:rawInput={"command":"ls"}`,
		}},
		{"white space is not part of a value", " { \"a\" : 1 , \"b\" : { \"c\" : [ ] } , \"d\" : {} } ", 2, []string{
			`-1:a=1`, `-1:b={ "c" : [ ] }`, `1:c=[ ]`, `-1:d={}`,
		}},
		{"escaped and repeated names are recorded as they are", `{"a\u0062":1,"a":2,"a":3}`, 1, []string{
			`-1:a\u0062(escaped)=1`, `-1:a=2`, `-1:a=3`,
		}},
		{"a top-level array records nothing", `[{"a":1}]`, 3, []string{}},
		{"scalars", `{"t":true,"f":false,"n":null,"x":-1.5e3,"s":"q\"uote"}`, 1, []string{
			`-1:t=true`, `-1:f=false`, `-1:n=null`, `-1:x=-1.5e3`, `-1:s="q\"uote"`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs, ok := Scan([]byte(tc.in), tc.depth, nil)
			if !ok {
				t.Fatalf("Scan(%s) not ok", tc.in)
			}
			if got := describe([]byte(tc.in), fs); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Scan(%s, %d):\n got %q\nwant %q", tc.in, tc.depth, got, tc.want)
			}
		})
	}
}

// TestScanBoundsFields checks that Scan records at most MaxFields members
// and declines a document that would need more, while Valid still accepts it.
func TestScanBoundsFields(t *testing.T) {
	doc := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"params":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":%d`, i, i)
		}
		b.WriteString(`}}`)
		return []byte(b.String())
	}
	if fs, ok := Scan(doc(MaxFields-1), 2, nil); !ok || len(fs) != MaxFields {
		t.Fatalf("%d members (with params): ok %v, %d recorded", MaxFields, ok, len(fs))
	}
	big := doc(MaxFields)
	if fs, ok := Scan(big, 2, nil); ok || len(fs) > MaxFields {
		t.Fatalf("%d members: ok %v, %d recorded; want declined, at most %d", MaxFields+1, ok, len(fs), MaxFields)
	}
	if _, ok := Scan(big, 1, nil); !ok {
		t.Fatal("the same document at depth 1 (one member recorded) was declined")
	}
	if !Valid(big) {
		t.Fatal("Valid rejected a valid document")
	}
}

func TestScanRejectsWhatValidRejects(t *testing.T) {
	for _, in := range []string{`{"a":1,}`, `{"a":{"b":}}`, `{"a":[1,}`, `{"a" 1}`, `{"a":1}}`, `{"a":1`, "{\"a\":\"\x01\"}"} {
		if _, ok := Scan([]byte(in), 3, nil); ok {
			t.Errorf("Scan(%q) ok, want invalid", in)
		}
	}
}

// expectFields is Scan's recording done the slow way: EachMember, level by
// level. ok is false where EachMember cannot say (escaped names).
func expectFields(data []byte, start, end, parent, depth int, out []string) ([]string, bool) {
	if depth == 0 {
		return out, true
	}
	obj := data[start:end]
	good := true
	ok := EachMember(obj, func(name []byte, s, e int) bool {
		out = append(out, fmt.Sprintf("%d:%s=%s", parent, name, obj[s:e]))
		me := len(out) - 1
		if obj[s] == '{' {
			out, good = expectFields(data, start+s, start+e, me, depth-1, out)
		}
		return good
	})
	return out, ok && good
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`,
		`{"a":{"b":{"c":{"d":1}}},"e":[{"f":{}}]}`,
		`{ "a" : { } , "b" : [ ] }`,
		`{"a\"":1}`,
		`[1,{"a":2}]`,
	} {
		for depth := range 5 {
			f.Add([]byte(s), depth)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, depth int) {
		depth = min(max(depth, 0), 6)
		fs, ok := Scan(b, depth, nil)
		if want := json.Valid(b); ok != want {
			t.Fatalf("Scan(%q) ok = %v, json.Valid = %v", b, ok, want)
		}
		if !ok {
			return
		}
		start := skipSpace(b, 0)
		if start == len(b) || b[start] != '{' {
			if len(fs) != 0 {
				t.Fatalf("Scan(%q) recorded %v outside an object", b, describe(b, fs))
			}
			return
		}
		end := len(strings.TrimRight(string(b), " \t\r\n"))
		want, exact := expectFields(b, start, end, -1, depth, nil)
		if !exact {
			return // escaped names: EachMember gives up, Scan marks them
		}
		got := describe(b, fs)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Scan(%q, %d):\n got %q\nwant %q", b, depth, got, want)
		}
		for _, f := range fs {
			if f.Escaped {
				t.Fatalf("Scan(%q) marked %q escaped", b, f.Name(b))
			}
		}
	})
}
