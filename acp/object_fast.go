package acp

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

// parseObjectFast reads raw as ParseObject does, without encoding/json's
// reflection, when raw is valid JSON, an object, and every member name is
// plain (no escape, valid UTF-8): the names are then exactly what
// encoding/json would decode, and the last of a repeated name wins, as
// there. The values are slices of one private copy of raw. ok is false
// when ParseObject must take encoding/json's path.
func parseObjectFast(raw []byte) (o Object, ok bool) {
	if !jsonscan.Valid(raw) {
		return nil, false
	}
	own := bytes.Clone(raw)
	o = Object{}
	plain := true
	scanned := jsonscan.EachMember(own, func(name []byte, start, end int) bool {
		if !utf8.Valid(name) {
			plain = false
			return false
		}
		o[string(name)] = json.RawMessage(own[start:end:end])
		return true
	})
	if !scanned || !plain {
		return nil, false
	}
	return o, true
}

// marshalFast writes o as json.Marshal writes a map[string]json.RawMessage
// (keys sorted, each value compacted and HTML-escaped), byte for byte, in
// one buffer; ok is false when a key needs escaping or a value is not
// valid JSON, and Marshal then takes encoding/json's path.
func (o Object) marshalFast() (json.RawMessage, bool) {
	if o == nil {
		return nil, false // json.Marshal writes null
	}
	keys := make([]string, 0, len(o))
	size := 2
	for k, v := range o {
		if !plainKey(k) {
			return nil, false
		}
		keys = append(keys, k)
		size += len(k) + len(v) + 4
	}
	slices.Sort(keys)
	buf := bytes.NewBuffer(make([]byte, 0, size))
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('"')
		buf.WriteString(k)
		buf.WriteString(`":`)
		v := o[k]
		if v == nil {
			buf.WriteString("null") // a nil RawMessage marshals as null
			continue
		}
		if plainValue(v) {
			buf.Write(v)
			continue
		}
		if !jsonscan.Valid(v) {
			return nil, false
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return nil, false
		}
		json.HTMLEscape(buf, c.Bytes())
	}
	buf.WriteByte('}')
	return buf.Bytes(), true
}

// plainKey: a key json.Marshal writes as it is (printable ASCII, nothing
// it escapes).
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// plainValue: v is valid JSON that compacting and HTML-escaping leave as
// it is: no whitespace outside strings, no <, >, &, U+2028 or U+2029, no
// byte a JSON reader would reject.
func plainValue(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	inStr := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xe2 && i+2 < len(v) && v[i+1] == 0x80 && (v[i+2] == 0xa8 || v[i+2] == 0xa9):
			return false // U+2028, U+2029
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return jsonscan.Valid(v)
}
