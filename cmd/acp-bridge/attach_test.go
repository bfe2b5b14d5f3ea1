//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/attach"
	"github.com/acp-bridge/acp-bridge/internal/demoagent"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// attachable is a bridge started with --attach-dir, its stdio editor
// initialized, and what initialize handed over.
type attachable struct {
	*proc
	dir, socket, token string
}

func startAttachable(t *testing.T, grace string) *attachable {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "attach")
	p := startBinIn(t, t.TempDir(), t.TempDir(), "", "--attach-dir", dir, "--attach-grace", grace)
	p.termAtCleanup = true
	res, err := p.editor.Initialize(ctx(t), false, false)
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
	if err := json.Unmarshal(res, &init); err != nil {
		t.Fatal(err)
	}
	a := &attachable{proc: p, dir: dir, socket: init.Meta.AB.Attach.Socket, token: init.Meta.AB.Attach.Token}
	if a.socket == "" || len(a.token) < 32 {
		t.Fatalf("initialize hands over no socket and token: %s", res)
	}
	if filepath.Dir(a.socket) != dir {
		t.Fatalf("socket %s is not in %s", a.socket, dir)
	}
	return a
}

// dialAttach connects to the socket and sends _acp-bridge/attach; it
// returns the answer's raw line and the reader positioned after it.
func dialAttach(t *testing.T, socket, token string) (net.Conn, *bufio.Reader, map[string]json.RawMessage) {
	t.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "att-1", "method": attach.MethodAttach, "params": map[string]any{"token": token}})
	if _, err := conn.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(conn)
	ans, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("attach answer: %v", err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	var m map[string]json.RawMessage
	if err := json.Unmarshal(ans, &m); err != nil {
		t.Fatalf("attach answer %q: %v", ans, err)
	}
	return conn, r, m
}

func errorCode(t *testing.T, m map[string]json.RawMessage) int {
	t.Helper()
	var e struct {
		Code int `json:"code"`
	}
	if len(m["error"]) == 0 {
		return 0
	}
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatal(err)
	}
	return e.Code
}

// The editor goes away with an approval pending; a new editor re-attaches
// with the token, gets the live session, the same approval again, answers
// it, and the demo agent's file is on disk. The turn that ended while no
// one asked is reported as _acp-bridge/turn/ended.
func TestAttachReattachAnswersPendingApproval(t *testing.T) {
	a := startAttachable(t, "2m")
	c := ctx(t)
	fi, err := os.Stat(a.socket)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a 0600 socket", fi.Mode())
	}
	if di, err := os.Stat(a.dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("attach dir mode %v (%v), want 0700", di.Mode(), err)
	}
	sid, err := a.editor.NewSession(c, a.ws, "")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = a.editor.Prompt(c, sid, "only:write") }()
	first, err := a.editor.NextPermission(c)
	if err != nil {
		t.Fatal(err)
	}
	if first.Meta.ApprovalID == "" {
		t.Fatal("no approval id on the card")
	}
	// The window reloads: the editor's end of stdio closes, nobody answered.
	_ = a.stdin.Close()
	target := filepath.Join(a.ws, demoagent.WriteFileName)

	// Until the first editor is gone the socket refuses (one editor at a time), so retry.
	var conn net.Conn
	var r *bufio.Reader
	var ans map[string]json.RawMessage
	for deadline := time.Now().Add(20 * time.Second); ; {
		conn, r, ans = dialAttach(t, a.socket, a.token)
		if errorCode(t, ans) != attach.CodeAlreadyAttached {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("the first editor never counted as gone")
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer conn.Close()
	if len(ans["error"]) > 0 {
		t.Fatalf("attach refused: %s", ans["error"])
	}
	var res struct {
		Initialized bool `json:"initialized"`
		Pending     int  `json:"pendingRequests"`
		Sessions    []struct {
			SessionID        string `json:"sessionId"`
			Agent            string `json:"agent"`
			TurnRunning      bool   `json:"turnRunning"`
			PendingApprovals int    `json:"pendingApprovals"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(ans["result"], &res); err != nil {
		t.Fatal(err)
	}
	if !res.Initialized || res.Pending != 1 || len(res.Sessions) != 1 || res.Sessions[0].SessionID != sid ||
		!res.Sessions[0].TurnRunning || res.Sessions[0].PendingApprovals != 1 || res.Sessions[0].Agent != "demo" {
		t.Fatalf("attach result: %s", ans["result"])
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the file exists before anyone allowed the write")
	}
	ectx, cancel := context.WithCancel(context.Background())
	defer cancel()
	second := testkit.NewEditor(ectx, r, conn.(*net.UnixConn))
	init, err := second.Initialize(c, false, false)
	if err != nil || !strings.Contains(string(init), `"attached":true`) || strings.Contains(string(init), a.token) {
		t.Fatalf("a re-attached editor's initialize (from the first answer, never with the token): %s %v", init, err)
	}
	again, err := second.NextPermission(c)
	if err != nil {
		t.Fatal(err)
	}
	if again.Meta.ApprovalID != first.Meta.ApprovalID {
		t.Fatalf("re-sent approval %q, want the original %q", again.Meta.ApprovalID, first.Meta.ApprovalID)
	}
	again.Answer(acp.Selected("acp-bridge:allow_once"))
	if err := second.WaitFor(c, "turn/ended", func(ms []testkit.Message) bool {
		for _, m := range ms {
			if m.Method == attach.MethodTurnEnded && strings.Contains(string(m.Params), sid) && strings.Contains(string(m.Params), `"end_turn"`) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(target)
	if err != nil || string(got) != demoagent.WriteFileContent {
		t.Fatalf("%s after Allow: %q %v", target, got, err)
	}
	resolved := testkit.Resolved(second.Messages())
	if len(resolved) == 0 || resolved[len(resolved)-1]["by"] != "user" || resolved[len(resolved)-1]["approvalId"] != first.Meta.ApprovalID {
		t.Fatalf("approval/resolved seen by the new editor: %v", resolved)
	}
}

// A wrong token and a second editor while one is attached are refused with
// their own codes; the attached editor is unaffected.
func TestAttachRefusals(t *testing.T) {
	a := startAttachable(t, "2m")
	c := ctx(t)
	conn, _, ans := dialAttach(t, a.socket, strings.Repeat("0", 64))
	conn.Close()
	if code := errorCode(t, ans); code != attach.CodeBadToken {
		t.Fatalf("wrong token: %s, want code %d", ans["error"], attach.CodeBadToken)
	}
	conn, _, ans = dialAttach(t, a.socket, "")
	conn.Close()
	if code := errorCode(t, ans); code != attach.CodeBadToken {
		t.Fatalf("no token: %s, want code %d", ans["error"], attach.CodeBadToken)
	}
	conn, _, ans = dialAttach(t, a.socket, a.token)
	conn.Close()
	if code := errorCode(t, ans); code != attach.CodeAlreadyAttached || !strings.Contains(string(ans["error"]), "stdio") {
		t.Fatalf("second editor: %s, want code %d naming the attached one", ans["error"], attach.CodeAlreadyAttached)
	}
	// Not an attach first: refused and closed.
	raw, err := net.Dial("unix", a.socket)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = raw.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}` + "\n"))
	line, _ := bufio.NewReader(raw).ReadBytes('\n')
	raw.Close()
	if !strings.Contains(string(line), attach.MethodAttach) {
		t.Fatalf("a first message that is not attach: %s", line)
	}
	if _, err := a.editor.NewSession(c, a.ws, ""); err != nil {
		t.Fatalf("the attached editor after the refusals: %v", err)
	}
}

// With no editor for the grace period the bridge exits, resolving the
// pending approval as editor-gone in the audit log; the socket is removed.
func TestAttachGraceExpiry(t *testing.T) {
	a := startAttachable(t, "1s")
	c := ctx(t)
	sid, err := a.editor.NewSession(c, a.ws, "")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = a.editor.Prompt(c, sid, "only:write") }()
	perm, err := a.editor.NextPermission(c)
	if err != nil {
		t.Fatal(err)
	}
	_ = a.stdin.Close()
	select {
	case <-a.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the bridge still runs 20 s after a 1 s grace period")
	}
	a.done <- nil // for the cleanup
	if _, err := os.Stat(a.socket); !os.IsNotExist(err) {
		t.Fatalf("socket still there after exit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.ws, demoagent.WriteFileName)); err == nil {
		t.Fatal("the write ran although nobody allowed it")
	}
	audit, err := os.ReadFile(filepath.Join(a.home, ".config", "acp-bridge", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(string(audit), "\n") {
		if strings.Contains(l, perm.Meta.ApprovalID) && strings.Contains(l, `"editor-gone"`) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no editor-gone audit line for %s:\n%s", perm.Meta.ApprovalID, audit)
	}
}
