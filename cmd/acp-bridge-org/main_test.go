package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/orgproc"
)

// The companion skips a line over orgproc.MaxLine, answers an error to its
// id when the line's beginning names one (acp's stream: -32600 naming the
// bound), and goes on with the next line (it used to exit: a forced
// restart, and every queued record lost). Control: a line of exactly
// MaxLine bytes is read and answered.
func TestOverLongLineSkipped(t *testing.T) {
	hello := func(id int) string {
		return `{"id":` + itoa(id) + `,"jsonrpc":"2.0","method":"hello","params":{"version":"` + version + `","protocol":` + itoa(orgproc.Protocol) + `}}`
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	var in strings.Builder
	in.WriteString(`{"id":7,"jsonrpc":"2.0","method":"opa.decide","params":{"call":{"command":"` + strings.Repeat("a", orgproc.MaxLine) + `"}}}` + "\n")
	in.WriteString(strings.Repeat("x", orgproc.MaxLine+10) + "\n") // no id: skipped, not answered
	in.WriteString(pad(hello(8), orgproc.MaxLine) + "\n")          // control: at the bound
	in.WriteString(hello(9) + "\n")
	var out, errs bytes.Buffer
	if code := run(nil, strings.NewReader(in.String()), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	got := map[uint64]answer{}
	dec := json.NewDecoder(&out) // the test reads the answers; the companion frames nothing itself
	for dec.More() {
		var m answer
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("answer: %v", err)
		}
		got[m.ID] = m
	}
	if m, ok := got[7]; !ok || m.Error == nil || m.Error.Code != acp.CodeInvalidRequest || !strings.Contains(m.Error.Message, "exceeds the limit of "+itoa(orgproc.MaxLine)) {
		t.Errorf("the over-long opa.decide: %+v (answered %v), want an error naming the bound", m, ok)
	}
	for _, id := range []uint64{8, 9} {
		if m := got[id]; m.Error != nil || !strings.Contains(string(m.Result), version) {
			t.Errorf("hello %d after the over-long lines: %+v", id, m)
		}
	}
	if len(got) != 3 {
		t.Errorf("answers %d, want 3 (7, 8, 9): %v", len(got), got)
	}
	if n := strings.Count(errs.String(), "a line skipped"); n != 2 {
		t.Errorf("%d skipped lines logged, want 2: %s", n, errs.String())
	}
}

type answer struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
