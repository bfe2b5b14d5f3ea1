package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// hasName is the reference for ScanNamed: does any object in the decoded
// document have a member called name?
func hasName(v any, name string) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == name || hasName(e, name) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasName(e, name) {
				return true
			}
		}
	}
	return false
}

func TestScanNamed(t *testing.T) {
	cases := []struct {
		doc   string
		named bool
	}{
		{`{"a":1}`, false},
		{`{"_meta":{}}`, true},
		{`{"a":{"b":{"c":{"d":{"_meta":1}}}}}`, true},             // deeper than any recorded level
		{`{"a":[1,{"x":[{"_meta":null}]}]}`, true},                // inside arrays
		{`[{"_meta":1}]`, true},                                   // top-level array
		{`{"\u005fmeta":{"acp-bridge":1}}`, true},                 // escaped spelling
		{`{"_m\u0065ta":1}`, true},                                // escaped spelling
		{`{"a\"b":1}`, true},                                      // any escape counts
		{`{"text":"\"_meta\":{}"}`, false},                        // in a string value, not a name
		{`{"_metadata":1,"meta":2,"_Meta":3}`, false},             // other names
		{`{"a":"` + strings.Repeat(`\n\"x\"`, 100) + `"}`, false}, // escapes in values do not count
	}
	for _, tc := range cases {
		fs, ok, named := ScanNamed([]byte(tc.doc), 2, nil, "_meta")
		if !ok {
			t.Errorf("ScanNamed(%s) not ok", tc.doc)
			continue
		}
		if named != tc.named {
			t.Errorf("ScanNamed(%s) named = %v, want %v", tc.doc, named, tc.named)
		}
		want, _ := Scan([]byte(tc.doc), 2, nil)
		if len(fs) != len(want) {
			t.Errorf("ScanNamed(%s) recorded %d fields, Scan %d", tc.doc, len(fs), len(want))
		}
	}
	if _, ok, _ := ScanNamed([]byte(`{"_meta":}`), 2, nil, "_meta"); ok {
		t.Error("invalid JSON was ok")
	}
}

// FuzzScanNamed: ScanNamed agrees with Scan, and whenever encoding/json
// finds a member called _meta anywhere, ScanNamed says named (never a
// false "no": a caller skips its work on that answer).
func FuzzScanNamed(f *testing.F) {
	for _, s := range []string{
		`{"_meta":{"acp-bridge":1}}`,
		`{"a":[{"\u005fmeta":1}]}`,
		`{"a":{"b":{"c":{"_meta":{}}}}}`,
		`{"text":"_meta"}`,
		`[{"_meta\u0000":1}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, ok, named := ScanNamed(b, 3, nil, "_meta")
		want, wantOK := Scan(b, 3, nil)
		if ok != wantOK || len(fs) != len(want) {
			t.Fatalf("ScanNamed(%q) = %d fields %v, Scan %d %v", b, len(fs), ok, len(want), wantOK)
		}
		if !ok {
			return
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("Scan ok but json.Unmarshal: %v", err)
		}
		if hasName(v, "_meta") && !named {
			t.Fatalf("ScanNamed(%q) named = false, but it has a member _meta", b)
		}
	})
}
