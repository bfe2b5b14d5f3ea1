package acp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// objectCases are params whose reading by ParseObject and writing by
// Object.Marshal must be encoding/json's, byte for byte: the fast paths
// (object_fast.go) and the cases they hand to encoding/json.
var objectCases = []string{
	`{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}`,
	` { "sessionId" : "s1" , "prompt" : [ 1 , 2 ] } `,
	`{"a":1,"a":2}`,
	`{"\u0073essionId":"x"}`,
	`{"b":"<tag> & \u2028","a":{"z":[true,false,null]}}`,
	"{\"a\":\"\u2028\u2029\"}",
	`{"a":"x\"y\\"}`,
	`{"k<":1}`,
	`{"é":1}`,
	"{\"bad\xff\":1}",
	"{\"a\":\"\xff\"}",
	`{}`,
	`null`,
	` null `,
	`[]`,
	`"x"`,
	`{"a":1,}`,
	`{"a":1} x`,
	`{"a":01}`,
	`{"a":1e400}`,
	`{"_meta":{"acp-bridge":{"agent":"a"}},"cwd":"/w"}`,
}

func TestParseObjectIsEncodingJSON(t *testing.T) {
	for _, in := range objectCases {
		t.Run(in, func(t *testing.T) { checkObjectLikeJSON(t, []byte(in)) })
	}
}

func FuzzParseObjectIsEncodingJSON(f *testing.F) {
	for _, in := range objectCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkObjectLikeJSON(t, in) })
}

// checkObjectLikeJSON: ParseObject errs where encoding/json errs, else
// gives the same members; Marshal writes what json.Marshal writes; the
// values do not alias in.
func checkObjectLikeJSON(t *testing.T, in []byte) {
	t.Helper()
	buf := bytes.Clone(in) // ParseObject's input, overwritten below
	got, err := ParseObject(json.RawMessage(buf))
	var want map[string]json.RawMessage
	werr := error(nil)
	if len(in) == 0 || string(in) == "null" {
		want = map[string]json.RawMessage{}
	} else {
		werr = json.Unmarshal(in, &want)
	}
	if (err != nil) != (werr != nil) {
		t.Fatalf("%q: ParseObject error %v, encoding/json error %v", in, err, werr)
	}
	if err != nil {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d members, encoding/json %d", in, len(got), len(want))
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || !bytes.Equal(g, v) {
			t.Fatalf("%q: member %q = %q, encoding/json %q", in, k, g, v)
		}
	}
	wantOut, _ := json.Marshal(want)
	if out := got.Marshal(); !bytes.Equal(out, wantOut) {
		t.Fatalf("%q: Marshal wrote %q, json.Marshal %q", in, out, wantOut)
	}
	// The members are the Object's own: changing the input changes none.
	before := got.Marshal()
	for i := range buf {
		buf[i] = 'x'
	}
	if after := got.Marshal(); !bytes.Equal(before, after) {
		t.Fatalf("a member aliases the input: %q then %q", before, after)
	}
}
