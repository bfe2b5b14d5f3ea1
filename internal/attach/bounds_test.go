package attach

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// An agent's extension notifications reach the editor (bridge/passthrough.go,
// labelled _meta["acp-bridge"].agent). While no editor is attached they are
// in the droppable class with session/update: a flood of them while the
// window reloads cannot make the front drop the bridge's own
// _acp-bridge/approval/resolved that follows (the re-attached editor must
// learn how that card ended). The control: the agent's notifications past
// the bound are dropped and counted.
func TestAgentExtensionNotificationsDoNotEvictBridgeNotices(t *testing.T) {
	f, fb, stdin := newFront(t, Options{BufferBytes: 4096, Token: "tok"})
	_ = stdin.Close()
	detached(t, f)
	note := `{"jsonrpc":"2.0","method":"_evil/note","params":{"pad":"` + strings.Repeat("x", 400) + `","_meta":{"acp-bridge":{"agent":"evil"}}}}`
	for i := 0; i < 40; i++ { // what the bridge forwards from the agent
		fb.send(note)
	}
	for i := 0; i < 200; i++ { // then small ones fill what is left
		fb.send(`{"jsonrpc":"2.0","method":"_evil/n","params":{}}`)
	}
	// Named like the bridge's, but past the prefix: still the agent's class.
	fb.send(`{"jsonrpc":"2.0","method":"_acp-bridgeX/n","params":{"pad":"` + strings.Repeat("y", 400) + `"}}`)
	fb.send(`{"jsonrpc":"2.0","method":"_acp-bridge/approval/resolved","params":{"approvalId":"a0","by":"timeout","outcome":"cancelled"}}`)
	flushed(t, f, fb)
	a := attachTo(t, f, "tok")
	if a.err != nil {
		t.Fatalf("attach: %s", a.err)
	}
	var n int
	if _, err := fmt.Sscan(string(a.result["buffered"]), &n); err != nil {
		t.Fatalf("buffered %s: %v", a.result["buffered"], err)
	}
	found, agents, kept := false, 0, 0
	for i := 0; i < n; i++ {
		l := a.next(t)
		kept += len(l) + 1
		switch {
		case strings.Contains(l, "approval/resolved"):
			found = true
		case strings.Contains(l, "_evil/") || strings.Contains(l, "_acp-bridgeX/"):
			agents++
		}
	}
	if !found {
		t.Fatalf("the bridge's approval/resolved was dropped while detached, after %d kept lines of an agent's extension notifications (dropped %s)", n, a.result["droppedBySession"])
	}
	var dropped map[string]int
	if err := json.Unmarshal(a.result["droppedBySession"], &dropped); err != nil {
		t.Fatal(err)
	}
	if agents == 0 || dropped["?"] == 0 || agents+dropped["?"] != 241 {
		t.Fatalf("kept %d of the agent's notifications and counted %d dropped (%s), want some of each, 241 in all", agents, dropped["?"], a.result["droppedBySession"])
	}
	if kept > 4096+200 { // the bound, plus the one notice of the bridge's own
		t.Fatalf("kept %d bytes with a bound of 4096", kept)
	}
}

func permissionRequest(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t%d"},"options":[]}}`, id, id)
}

func extRequest(id, pad int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_x/ask","params":{"pad":%q}}`, id, strings.Repeat("p", pad))
}

// refusedIDs waits for, and returns, the ids the front answered to the
// bridge with -32005 among want.
func refusedIDs(t *testing.T, fb *fakeBridge, want ...int) {
	t.Helper()
	for _, id := range want {
		m := fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["id"]) == fmt.Sprint(id) })
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != CodeTooManyPending || !strings.Contains(e.Message, "too many requests waiting for the editor") {
			t.Fatalf("request %d answered %s, want error %d naming the bound", id, m["error"], -32005)
		}
	}
}

// The bridge's requests the front keeps unanswered (to send again to the
// next editor) are bounded in count and bytes, attached (an editor that
// does not answer) or not: past the bound a request is answered to the
// bridge with an error, never kept; a permission request is always kept
// (the bridge bounds those per agent, and the card must survive a reload);
// an answered request frees its room.
func TestPendingRequestsBounded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		detach bool
	}{{"detached", true}, {"attached, editor not answering", false}} {
		t.Run(tc.name, func(t *testing.T) {
			f, fb, stdin := newFront(t, Options{BufferBytes: 4096, PendingRequests: 3, PendingBytes: 2000, Token: "tok"})
			if tc.detach {
				_ = stdin.Close()
				detached(t, f)
			}
			fb.send(extRequest(10, 10))
			fb.send(extRequest(11, 10))
			fb.send(extRequest(12, 2000)) // alone past the bytes bound
			fb.send(extRequest(13, 10))
			fb.send(extRequest(14, 10)) // past the count bound
			fb.send(permissionRequest(20))
			fb.send(permissionRequest(21)) // past the count: kept all the same
			refusedIDs(t, fb, 12, 14)
			flushed(t, f, fb)
			f.mu.Lock()
			var keys []string
			for _, p := range f.pending {
				keys = append(keys, p.key)
			}
			f.mu.Unlock()
			if got := strings.Join(keys, ","); got != "10,11,13,20,21" {
				t.Fatalf("pending %s, want 10,11,13,20,21", got)
			}
			if !tc.detach {
				return
			}
			a := attachTo(t, f, "tok")
			if a.err != nil {
				t.Fatalf("attach: %s", a.err)
			}
			if string(a.result["pendingRequests"]) != "5" {
				t.Fatalf("pendingRequests %s, want 5", a.result["pendingRequests"])
			}
			for _, id := range []string{"10", "11", "13", "20", "21"} {
				if l := a.next(t); !strings.Contains(l, `"id":`+id+`,`) {
					t.Fatalf("re-sent %.80s, want request %s", l, id)
				}
			}
			// Permission requests count against the bound too: answering
			// them and one more leaves room for exactly one.
			for _, id := range []string{"20", "21", "10"} {
				fmt.Fprintf(a.conn, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
				fb.waitGot(func(m map[string]json.RawMessage) bool { return string(m["id"]) == id && len(m["result"]) > 0 })
			}
			fb.send(extRequest(15, 10))
			if l := a.next(t); !strings.Contains(l, `"id":15,`) {
				t.Fatalf("got %.80s, want request 15 forwarded", l)
			}
			fb.send(extRequest(16, 10))
			refusedIDs(t, fb, 16)
		})
	}
}
