package interop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Directions of a transcript entry, seen from the bridge.
const (
	dirIn  = "in"  // the editor wrote it to the bridge's stdin
	dirOut = "out" // the bridge wrote it to its stdout
)

// entry is one line of a transcript file (JSON Lines). Line is the exact
// text of one NDJSON message without its newline. interop/ts/lib/transcript.mjs
// reads the same format.
type entry struct {
	Dir  string `json:"dir"`
	Line string `json:"line"`
}

// transcript records both directions of a bridge's stdio, in the order the
// lines were seen, to $ACP_INTEROP_TRANSCRIPT_DIR/<test>.jsonl (else a
// temporary directory).
type transcript struct {
	path string

	mu      sync.Mutex
	f       *os.File
	entries []entry
	partial map[string]*bytes.Buffer // per direction: bytes after the last newline
	err     error
}

func newTranscript(t *testing.T) *transcript {
	dir := os.Getenv("ACP_INTEROP_TRANSCRIPT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "go-" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".jsonl"
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	return &transcript{path: path, f: f, partial: map[string]*bytes.Buffer{dirIn: {}, dirOut: {}}}
}

// tap returns a writer that records what passes in one direction.
func (tr *transcript) tap(dir string) io.Writer { return tapWriter{tr, dir} }

type tapWriter struct {
	tr  *transcript
	dir string
}

func (w tapWriter) Write(p []byte) (int, error) {
	tr := w.tr
	tr.mu.Lock()
	defer tr.mu.Unlock()
	buf := tr.partial[w.dir]
	buf.Write(p)
	for {
		i := bytes.IndexByte(buf.Bytes(), '\n')
		if i < 0 {
			break
		}
		line := string(buf.Next(i + 1)[:i])
		if strings.TrimSpace(line) == "" {
			continue
		}
		e := entry{Dir: w.dir, Line: line}
		tr.entries = append(tr.entries, e)
		b, err := json.Marshal(e)
		if err == nil {
			_, err = tr.f.Write(append(b, '\n'))
		}
		if err != nil && tr.err == nil {
			tr.err = fmt.Errorf("writing %s: %w", tr.path, err)
		}
	}
	return len(p), nil // never slow down or break the stream being tapped
}

// tapWriteCloser copies what is written to w into tap.
type tapWriteCloser struct {
	w   io.WriteCloser
	tap io.Writer
}

func (t tapWriteCloser) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	_, _ = t.tap.Write(p[:n])
	return n, err
}

func (t tapWriteCloser) Close() error { return t.w.Close() }

// close ends the transcript and checks what the bridge wrote is well-formed
// NDJSON JSON-RPC 2.0 (full schema validation is done by interop/ts).
func (tr *transcript) close() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	errs := []error{tr.err, tr.f.Close()}
	if rest := tr.partial[dirOut].Len(); rest > 0 {
		errs = append(errs, fmt.Errorf("the bridge left %d bytes without a final newline: %q", rest, tr.partial[dirOut].String()))
	}
	out := 0
	for _, e := range tr.entries {
		if e.Dir != dirOut {
			continue
		}
		out++
		if err := wellFormed([]byte(e.Line)); err != nil {
			errs = append(errs, fmt.Errorf("bridge message %d: %w: %s", out, err, e.Line))
		}
	}
	if out == 0 {
		errs = append(errs, errors.New("the bridge wrote nothing"))
	}
	return errors.Join(errs...)
}

// wellFormed checks one message is a JSON-RPC 2.0 request, notification or
// response: an object with jsonrpc "2.0", and either a method (string) or
// an id with exactly one of result and error.
func wellFormed(line []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return fmt.Errorf("jsonrpc is %s, want \"2.0\"", m["jsonrpc"])
	}
	if raw, ok := m["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil || method == "" {
			return fmt.Errorf("method %s is not a non-empty string", raw)
		}
		if _, hasResult := m["result"]; hasResult {
			return errors.New("a request carries result")
		}
		return nil
	}
	if _, ok := m["id"]; !ok {
		return errors.New("neither method nor id")
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if hasResult == hasError {
		return errors.New("a response needs exactly one of result and error")
	}
	return nil
}

func TestWellFormed(t *testing.T) {
	cases := []struct {
		name, line string
		ok         bool
	}{
		{"request", `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}`, true},
		{"notification", `{"jsonrpc":"2.0","method":"session/update","params":{}}`, true},
		{"result", `{"jsonrpc":"2.0","id":"a","result":{}}`, true},
		{"error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, true},
		{"no jsonrpc", `{"id":1,"result":{}}`, false},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"result":{}}`, false},
		{"both", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, false},
		{"neither", `{"jsonrpc":"2.0","id":1}`, false},
		{"empty method", `{"jsonrpc":"2.0","method":""}`, false},
		{"array", `[{"jsonrpc":"2.0","method":"x"}]`, false},
		{"garbage", `hello`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := wellFormed([]byte(c.line)); (err == nil) != c.ok {
				t.Fatalf("wellFormed(%s) = %v, want ok=%v", c.line, err, c.ok)
			}
		})
	}
}
