//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/internal/attach"
)

// badLines are lines an editor may send that are not messages the bridge
// can take; each gets exactly one error answer from the bridge's stdio.
var badLines = []struct{ name, line string }{
	{"not JSON", `this is not json`},
	{"no method, an id", `{"jsonrpc":"2.0","id":7,"params":{}}`},
	{"over-long request", `{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"cwd":"` + strings.Repeat("x", 6000) + `"}}`},
	{"over-long request, string id", `{"jsonrpc":"2.0","id":"big-1","method":"x","params":"` + strings.Repeat("y", 6000) + `"}`},
	{"a batch", `[{"jsonrpc":"2.0","method":"session/cancel","params":{}}]`},
	{"case-variant names", `{"jsonrpc":"2.0","ID":9,"Method":"session/new"}`},
	{"method and result", `{"jsonrpc":"2.0","id":10,"method":"x","result":1}`},
	{"a number", `42`},
}

// errorReply reports whether line is an error response (no method).
func errorReply(line string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return false
	}
	_, isErr := m["error"]
	_, hasMethod := m["method"]
	return isErr && !hasMethod
}

// stdioAnswers writes each bad line to a bridge's stdin and returns the
// error answer each got, in order.
func stdioAnswers(t *testing.T, p *proc) []string {
	t.Helper()
	p.editor.RecordWire()
	var got []string
	for i, bl := range badLines {
		if _, err := fmt.Fprintln(p.stdin, bl.line); err != nil {
			t.Fatalf("%s: %v", bl.name, err)
		}
		err := p.editor.WaitWire(ctx(t), bl.name+" answered", func(lines []string) bool {
			var errs []string
			for _, l := range lines {
				if errorReply(l) {
					errs = append(errs, l)
				}
			}
			if len(errs) > i {
				got = append(got[:0:0], errs...)
				return true
			}
			return false
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(badLines) {
		t.Fatalf("%d answers to %d bad lines: %q", len(got), len(badLines), got)
	}
	return got
}

// One engine, one behaviour: the same malformed or over-long line gets the
// same answer, byte for byte, from the bridge's own stdio, from the stdio
// of a bridge behind the attach front, and from the attach socket; and
// each connection goes on after it. (Before the front read with acp's
// reader, an over-long line hung up the socket, and a line with an id but
// no method was taken for an answer and silently dropped.)
func TestAttachBadLinesAnsweredAsOnStdio(t *testing.T) {
	const config = "maxLineBytes: 4096\n"
	plain := startBinIn(t, t.TempDir(), t.TempDir(), config)
	if _, err := plain.editor.Initialize(ctx(t), false, false); err != nil {
		t.Fatal(err)
	}
	want := stdioAnswers(t, plain)
	if _, err := plain.editor.NewSession(ctx(t), plain.ws, ""); err != nil {
		t.Fatalf("the plain bridge after the bad lines: %v", err)
	}
	for i, bl := range badLines {
		if !strings.Contains(want[i], `"code":-32`) {
			t.Fatalf("%s: answer %s", bl.name, want[i])
		}
	}

	dir := filepath.Join(t.TempDir(), "attach")
	a := startBinIn(t, t.TempDir(), t.TempDir(), config, "--attach-dir", dir, "--attach-grace", "2m")
	a.termAtCleanup = true
	res, err := a.editor.Initialize(ctx(t), false, false)
	if err != nil {
		t.Fatal(err)
	}
	var init struct {
		Meta struct {
			AB struct {
				Attach struct {
					Socket string `json:"socket"`
					Token  string `json:"token"`
				} `json:"attach"`
			} `json:"acp-bridge"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res, &init); err != nil || init.Meta.AB.Attach.Socket == "" {
		t.Fatalf("initialize: %s %v", res, err)
	}
	front := stdioAnswers(t, a)
	for i, bl := range badLines {
		if front[i] != want[i] {
			t.Errorf("%s through the front's stdio:\n got %s\nwant %s", bl.name, front[i], want[i])
		}
	}
	if _, err := a.editor.NewSession(ctx(t), a.ws, ""); err != nil {
		t.Fatalf("the front's stdio after the bad lines: %v", err)
	}

	// The stdio editor goes; one attaches over the socket.
	_ = a.stdin.Close()
	var conn net.Conn
	var r *bufio.Reader
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, rd, ans := dialAttach(t, init.Meta.AB.Attach.Socket, init.Meta.AB.Attach.Token)
		if errorCode(t, ans) == 0 {
			conn, r = c, rd
			break
		}
		c.Close()
		if time.Now().After(deadline) || errorCode(t, ans) != attach.CodeAlreadyAttached {
			t.Fatalf("attach: %s", ans["error"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	next := func(what string, match func(string) bool) string {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: the socket: %v", what, err)
			}
			if line = strings.TrimSpace(line); match(line) {
				return line
			}
		}
	}
	for i, bl := range badLines {
		if _, err := fmt.Fprintln(conn, bl.line); err != nil {
			t.Fatalf("%s: %v", bl.name, err)
		}
		if got := next(bl.name, errorReply); got != want[i] {
			t.Errorf("%s on the socket:\n got %s\nwant %s", bl.name, got, want[i])
		}
	}
	fmt.Fprintln(conn, `{"jsonrpc":"2.0","id":"after","method":"initialize","params":{"protocolVersion":1}}`)
	got := next("initialize after the bad lines", func(l string) bool { return strings.Contains(l, `"id":"after"`) })
	if !strings.Contains(got, `"result"`) {
		t.Fatalf("the socket after the bad lines: %s", got)
	}
}
