package orgproc

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// ReadLine reads lines up to MaxLine, consumes a longer one to its end
// (naming its id and method when they lead it) and goes on after it.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("a", MaxLine)
	for _, tc := range []struct {
		name, in   string
		long       bool
		id         uint64
		method     string
		next       string // the line after it
		nextErrEOF bool
	}{
		{name: "short", in: "{\"id\":1}\nnext\n", next: "next"},
		{name: "at the bound", in: long + "\nnext\n", next: "next"},
		{name: "over, id and method", in: `{"id":42,"method":"opa.decide","params":"` + long + "\"}\nnext\n", long: true, id: 42, method: "opa.decide", next: "next"},
		{name: "over, method first", in: `{"method":"telemetry.record","params":"` + long + "\"}\nnext\n", long: true, method: "telemetry.record", next: "next"},
		{name: "over, other key first", in: `{"params":"` + long + `","id":5}` + "\nnext\n", long: true, next: "next"},
		{name: "over, not JSON", in: "x" + long + "\nnext\n", long: true, next: "next"},
		{name: "over, at EOF", in: "x" + long, long: true, nextErrEOF: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tc.in), 64<<10)
			line, err := ReadLine(br)
			var le *LongLineError
			switch {
			case tc.long && !errors.As(err, &le):
				t.Fatalf("err %v, want a LongLineError", err)
			case tc.long && (le.ID != tc.id || le.Method != tc.method || le.Bytes <= MaxLine):
				t.Errorf("got %+v, want id %d method %q over %d bytes", le, tc.id, tc.method, MaxLine)
			case !tc.long && (err != nil || len(line) > MaxLine):
				t.Fatalf("line of %d bytes, err %v", len(line), err)
			}
			next, err := ReadLine(br)
			if tc.nextErrEOF {
				if !errors.Is(err, io.EOF) {
					t.Errorf("after the last line: %q, %v, want EOF", next, err)
				}
			} else if string(next) != tc.next || err != nil {
				t.Errorf("the next line: %q, %v, want %q", next, err, tc.next)
			}
		})
	}
}
