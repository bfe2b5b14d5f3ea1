package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	deep := func(n int, open, close string) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	cases := []struct {
		in   string
		want bool
	}{
		{``, false},
		{` `, false},
		{`{}`, true},
		{` { } `, true},
		{`[]`, true},
		{`[ ]`, true},
		{`{"a":1}`, true},
		{`{"a":1,}`, false},
		{`{"a" 1}`, false},
		{`{1:1}`, false},
		{`{"a":1 "b":2}`, false},
		{`[1,2,[3,{"x":[true,false,null]}]]`, true},
		{`[1,]`, false},
		{`[,1]`, false},
		{`[1 2]`, false},
		{`{"a":[}`, false},
		{`{"a":1]`, false},
		{`[1}`, false},
		{`{}{}`, false},
		{`{} x`, false},
		{`"abc"`, true},
		{`"a\"b\\c\/d\b\f\n\r\t"`, true},
		{`"\u00e9\uD83D\uDE00"`, true},
		{`"\u00g9"`, false},
		{`"\u00e"`, false},
		{`"\x"`, false},
		{`"abc`, false},
		{`"abcdefghijklmnopqrstuvwxyz`, false},
		{"\"a\tb\"", false},
		{"\"0123456789abcdef\x01\"", false},
		{"\"0123456789\x7f\"", true},
		{"\"\xff\xfe invalid utf-8 is accepted, as json.Valid does\"", true},
		{"\"é ✓ 😀 in a longer string that spans words\"", true},
		{`0`, true},
		{`-0`, true},
		{`01`, false},
		{`-`, false},
		{`1.`, false},
		{`1.5e`, false},
		{`1.5e+`, false},
		{`1.5E-07`, true},
		{`-12.25e3`, true},
		{`.5`, false},
		{`+1`, false},
		{`true`, true},
		{`tru`, false},
		{`trueX`, false},
		{`nul`, false},
		{`false`, true},
		{"\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\r\n", true},
		{deep(maxDepth, "[", "]"), true},
		{deep(maxDepth+1, "[", "]"), false},
		{deep(100, "[", "]"), true},
		{strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70), true},
	}
	for _, tc := range cases {
		got := Valid([]byte(tc.in))
		if got != tc.want {
			t.Errorf("Valid(%.60q) = %v, want %v", tc.in, got, tc.want)
		}
		if std := json.Valid([]byte(tc.in)); std != tc.want {
			t.Errorf("the table is wrong: json.Valid(%.60q) = %v", tc.in, std)
		}
	}
}

// FuzzValid checks validJSON against encoding/json.Valid: they must
// agree on every input, since the fast path trusts lines validJSON accepts.
func FuzzValid(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi \"there\" \u00e9"}}}}`,
		`[1,-2.5e+3,true,false,null,"x",{"a":[]}]`,
		"\"tab\tin string\"",
		`"\ud800"`,
		`{"a":{"b":{"c":[[[[]]]]}}}`,
		"  \r\n 12 ",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	chunk := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-0001","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 8) + `"}}}}`)
	diff := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"diff","path":"/a/b.go","oldText":"` + strings.Repeat(`func x() {\n\treturn \"y\"\n}\n`, 2500) + `","newText":"z"}]}}}`)
	// The bench agent's diff (bench/agent.go): letters, an escaped newline
	// every 80 bytes.
	var text []byte
	for i := 16; i < 64<<10; i++ {
		if i%80 == 79 {
			text = append(text, `\n`...)
			i++
			continue
		}
		text = append(text, 'a'+byte(i%26))
	}
	prose := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"diff","path":"/a/b.go","oldText":null,"newText":"` + string(text) + `"}]}}}`)
	for _, tc := range []struct {
		name string
		in   []byte
	}{{"chunk", chunk}, {"diff", diff}, {"sparse", prose}} {
		b.Run(tc.name+"/Valid", func(b *testing.B) {
			b.SetBytes(int64(len(tc.in)))
			for range b.N {
				if !Valid(tc.in) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run(tc.name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(tc.in)))
			for range b.N {
				if !json.Valid(tc.in) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
