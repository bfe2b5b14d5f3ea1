package orgproc

// One engine (issue 17 item 5): the companion's wire is acp's JSON-RPC
// engine on both sides. These tests pin what that engine gives the
// companion and the client, and that neither frames lines of its own.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/audit"
)

// helloAnswer is a companion's answer to the bridge's first request.
var helloAnswer = fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"version":%q,"protocol":%d}}`, testVersion, Protocol)

// fakeCompanion writes a shell companion that answers hello, reads the
// next request (opa.start, id 2) and then runs then.
func fakeCompanion(t *testing.T, then string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), Name)
	script := "#!/bin/sh\nread line\nprintf '%s\\n' '" + helloAnswer + "'\nread line\n" + then
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A call the companion never answers is failed by acp's machinery when
// the companion dies (its output ends): the caller gets acp.ErrClosed at
// once, not at its own bound. Control: the same companion answering the
// call gives no error.
func TestUnansweredCallFailsWhenCompanionDies(t *testing.T) {
	for _, tc := range []struct {
		name, then string
		closed     bool
	}{
		{"dies without answering", "exit 3\n", true},
		{"control: answers", `printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{}}'` + "\nexec cat >/dev/null\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const bound = 60 * time.Second
			c := New(Options{Path: fakeCompanion(t, tc.then), Version: testVersion, StartTimeout: bound, Backoff: 10 * time.Second})
			t.Cleanup(func() { c.Close(t.Context()) })
			start := time.Now()
			err := c.StartOPA(t.Context(), opaConfig(t, time.Second))
			el := time.Since(start)
			if got := errors.Is(err, acp.ErrClosed); got != tc.closed {
				t.Fatalf("StartOPA: %v; failed as closed %v, want %v", err, got, tc.closed)
			}
			if !tc.closed && err != nil {
				t.Fatalf("control: %v", err)
			}
			if el > bound/2 {
				t.Errorf("the call waited %v (its bound %v): not failed when the companion died", el, bound)
			}
		})
	}
}

// The bridge survives an over-long line from the companion: acp's stream
// drops it and fails the call whose id its beginning names, and the same
// companion answers the next call. Control: the line is over MaxLine.
func TestOverLongAnswerSurvived(t *testing.T) {
	const over = MaxLine + 100
	then := `printf '%s' '{"jsonrpc":"2.0","id":2,"result":"'` + "\n" +
		fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a`, over) + "\n" +
		`printf '"}\n'` + "\n" +
		"read line\n" + `printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{}}'` + "\nexec cat >/dev/null\n"
	c := newClientBackoff(t, fakeCompanion(t, then), nil, 10*time.Second)
	err := c.StartOPA(t.Context(), opaConfig(t, time.Second))
	if err == nil || !strings.Contains(err.Error(), "dropped") || acp.ErrorCode(err) != acp.CodeInternalError {
		t.Fatalf("StartOPA answered by a %d-byte line: %v, want the call failed (dropped)", over, err)
	}
	if _, ok := err.(*StartError); ok {
		t.Errorf("a dropped answer is not a refused configuration: %v", err)
	}
	cn := current(c)
	if err := c.Flush(t.Context()); err != nil {
		t.Errorf("the call after the over-long line: %v", err)
	}
	if current(c) != cn || c.spawns.Load() != 1 {
		t.Errorf("the companion was replaced (spawns %d)", c.spawns.Load())
	}
}

// wireReads are the calls that would read the companion's wire by hand:
// a second engine. relay.go reads the companion's stderr (its log, not
// the wire) with a bufio.Scanner; nothing else may.
var wireReads = []string{"NewReader", "NewReaderSize", "NewScanner", "ReadSlice", "ReadLine", "ReadBytes", "ReadString", "NewDecoder"}

func ownFraming(t *testing.T, name string, src any) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			for _, w := range wireReads {
				if sel.Sel.Name == w && !(filepath.Base(name) == "relay.go" && w == "NewScanner") {
					found = append(found, name+": "+w)
				}
			}
		}
		return true
	})
	return found
}

// Neither orgproc nor the companion reads lines itself: the one engine is
// acp's. Control: the check finds the line reader orgproc used to have.
func TestNoOwnFraming(t *testing.T) {
	const old = "package x\nfunc f(br *bufio.Reader) { br.ReadLine(); bufio.NewReaderSize(r, 1) }\n"
	if got := ownFraming(t, "line.go", old); len(got) != 2 {
		t.Fatalf("control: the check found %v in a line reader", got)
	}
	var files []string
	for _, dir := range []string{".", "../cmd/acp-bridge-org"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		for _, hit := range ownFraming(t, f, nil) {
			t.Errorf("reads the wire by hand: %s", hit)
		}
	}
	if n < 5 {
		t.Errorf("checked %d files: not orgproc's and the companion's", n)
	}
}

// Requests go before records: with the pipe stalled and 50 records
// queued, a request is written behind at most the one record being
// written, not behind the queue (writeRecords hands a record to the
// engine only once the pipe has taken all before it). Control: the same
// records handed to the engine at once put the request behind all of
// them.
func TestRequestsBeforeRecords(t *testing.T) {
	const n = 50
	for _, tc := range []struct {
		name    string
		direct  bool // control: records straight to the engine
		atMost  int  // records read before the request
		atLeast int
	}{
		{name: "records through writeRecords", atMost: 2},
		{name: "control: records straight to the engine", direct: true, atLeast: n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe() // the companion's stdin: each write waits for its read
			in, inW := io.Pipe()
			defer in.Close()
			defer inW.Close()
			m := newMeter()
			q := acp.NewQueueWriter(meterOut{m: m, w: pw}, pw)
			cn := &conn{q: q, m: m, records: make(chan audit.Record, n), dead: make(chan struct{}), quit: make(chan struct{}),
				lost: func(uint64, string) {}}
			cn.rpc = NewConn(in, meterIn{m: m, q: q}, clientHandler{New(Options{})}, nil, acp.ConnOptions{})
			defer cn.rpc.Close()
			defer q.Abort()
			for i := range n {
				r := audit.Record{Agent: "a", ApprovalID: fmt.Sprintf("r%d", i), Decision: "allow"}
				if tc.direct {
					raw, _ := json.Marshal(r)
					if err := cn.rpc.Notify(t.Context(), MethodTelemetryRecord, json.RawMessage(raw)); err != nil {
						t.Fatal(err)
					}
				} else {
					cn.records <- r
				}
			}
			if !tc.direct {
				go cn.writeRecords()
				defer close(cn.dead)
			}
			sc := bufio.NewScanner(pr)
			sc.Buffer(nil, 1<<20)
			if !sc.Scan() { // the first record, then the pipe stalls again
				t.Fatal("nothing written")
			}
			if _, err := cn.start(MethodTelemetryFlush, Empty{}); err != nil {
				t.Fatal(err)
			}
			before := 1
			for sc.Scan() {
				if strings.Contains(sc.Text(), `"method":"`+MethodTelemetryFlush+`"`) {
					break
				}
				if !strings.Contains(sc.Text(), MethodTelemetryRecord) {
					t.Fatalf("a line that is neither: %s", sc.Text())
				}
				before++
			}
			if before > n {
				t.Fatalf("the request was never written (%d records read)", before)
			}
			if (tc.atMost > 0 && before > tc.atMost) || before < tc.atLeast {
				t.Errorf("%d records written before the request, want %d..%d", before, tc.atLeast, max(tc.atMost, tc.atLeast))
			}
		})
	}
}

// Red team 14: a companion that runs but whose decision-event sink did not
// start (telemetry.start refused, or never answered) exports nothing: Down
// says so, and a bridge whose managed tier requires the events opens no
// session meanwhile. Control: the sink started, Down is "".
func TestDownUntilTheSinkStarts(t *testing.T) {
	for _, tc := range []struct {
		name, then string
		down       bool
	}{
		{"refused", `printf '%s\n' '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"exporter failed"}}'` + "\nexec cat >/dev/null\n", true},
		{"never answered", "exec sleep 60\n", true}, // its stdout stays open
		{"control: started", `printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"endpoint":"x","protocol":"grpc"}}'` + "\nexec cat >/dev/null\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{Path: fakeCompanion(t, tc.then), Version: testVersion, StartTimeout: 2 * time.Second, Backoff: 10 * time.Second})
			t.Cleanup(func() { c.Close(t.Context()) })
			_, err := c.StartTelemetry(t.Context(), TelemetryStart{})
			t.Logf("StartTelemetry: %v", err)
			if (err != nil) != tc.down {
				t.Fatalf("StartTelemetry: %v", err)
			}
			why := c.Down()
			if (why != "") != tc.down {
				t.Fatalf("Down() = %q, want down %v", why, tc.down)
			}
			if tc.down && !strings.Contains(why, "sink has not started") {
				t.Fatalf("Down() = %q does not say the sink did not start", why)
			}
		})
	}
}

// Red team 14: a companion with a second name (a hard link, say in the
// workspace where the sandbox does not guard it) is not run: its calls have
// no verdict. Control: the same companion with one name starts.
func TestCompanionWithTwoNamesNotRun(t *testing.T) {
	answers := `printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{}}'` + "\nexec sleep 60\n"
	for _, linked := range []bool{true, false} {
		path := fakeCompanion(t, answers)
		if linked {
			if err := os.Link(path, filepath.Join(t.TempDir(), "other-name")); err != nil {
				t.Fatal(err)
			}
		}
		c := New(Options{Path: path, Version: testVersion, StartTimeout: 5 * time.Second, Backoff: 10 * time.Second})
		err := c.StartOPA(t.Context(), opaConfig(t, time.Second))
		c.Close(t.Context())
		if linked && (err == nil || !strings.Contains(err.Error(), "has 2 names")) {
			t.Fatalf("a hard-linked companion: %v", err)
		}
		if !linked && err != nil {
			t.Fatalf("control: %v", err)
		}
	}
}
