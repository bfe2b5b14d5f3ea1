package demoagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const testCwd = "/home/dev/demo"

// event is one thing the fake client saw, in arrival order.
type event struct {
	kind   string          // the sessionUpdate, or "permission"
	raw    json.RawMessage // the update, or the permission request params
	optRes string          // permission: the option answered ("" = cancelled)
}

// fakeClient is an ACP client with a scripted permission answer.
type fakeClient struct {
	// answer decides a permission request (n counts from 0). It runs in the
	// request's goroutine and may block on ctx.
	answer func(ctx context.Context, n int, req acp.RequestPermissionRequest) acp.RequestPermissionResponse

	seen chan struct{} // gets a token after each new event

	mu     sync.Mutex
	events []event
	nPerm  int
}

func (c *fakeClient) add(e event) int {
	c.mu.Lock()
	i := len(c.events)
	c.events = append(c.events, e)
	c.mu.Unlock()
	select {
	case c.seen <- struct{}{}:
	default:
	}
	return i
}

// waitEvents blocks until at least n events arrived.
func (c *fakeClient) waitEvents(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for len(c.snapshot()) < n {
		select {
		case <-c.seen:
		case <-timeout:
			t.Fatalf("timed out waiting for %d events", n)
		}
	}
}

func (c *fakeClient) HandleNotification(_ context.Context, method string, params json.RawMessage) {
	if method != acp.MethodSessionUpdate {
		return
	}
	var n acp.SessionNotification
	if err := json.Unmarshal(params, &n); err != nil {
		panic(err)
	}
	c.add(event{kind: acp.UpdateKind(n.Update), raw: n.Update})
}

func (c *fakeClient) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method != acp.MethodRequestPermission {
		return nil, acp.MethodNotFound(method)
	}
	var req acp.RequestPermissionRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	c.mu.Lock()
	n := c.nPerm
	c.nPerm++
	c.mu.Unlock()
	i := c.add(event{kind: "permission", raw: params})
	resp := c.answer(ctx, n, req)
	c.mu.Lock()
	c.events[i].optRes = resp.Outcome.OptionID
	c.mu.Unlock()
	return resp, nil
}

func (c *fakeClient) snapshot() []event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

// recorder keeps every line written in either direction.
type recorder struct {
	changed chan struct{} // a token after each line

	mu    sync.Mutex
	lines []string
}

// waitLine blocks until a recorded line contains sub.
func (r *recorder) waitLine(t *testing.T, sub string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		found := slices.ContainsFunc(r.lines, func(l string) bool { return strings.Contains(l, sub) })
		r.mu.Unlock()
		if found {
			return
		}
		select {
		case <-r.changed:
		case <-timeout:
			t.Fatalf("no line with %q", sub)
		}
	}
}

type recWriter struct {
	rec *recorder
	dir string
	w   io.Writer
}

func (r recWriter) Write(p []byte) (int, error) {
	r.rec.mu.Lock()
	r.rec.lines = append(r.rec.lines, r.dir+" "+strings.TrimRight(string(p), "\n"))
	r.rec.mu.Unlock()
	select {
	case r.rec.changed <- struct{}{}:
	default:
	}
	return r.w.Write(p)
}

type harness struct {
	t      *testing.T
	conn   *acp.Conn
	client *fakeClient
	rec    *recorder
	served chan error
	cancel context.CancelFunc
}

func allowAll(context.Context, int, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acp.Selected("allow")
}

// start runs Serve over two io.Pipes, with an acp.Conn client in front.
func start(t *testing.T, answer func(context.Context, int, acp.RequestPermissionRequest) acp.RequestPermissionResponse) *harness {
	t.Helper()
	if answer == nil {
		answer = allowAll
	}
	ctx, cancel := context.WithCancel(context.Background())
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	h := &harness{t: t, client: &fakeClient{answer: answer, seen: make(chan struct{}, 1)}, rec: &recorder{changed: make(chan struct{}, 1)}, served: make(chan error, 1), cancel: cancel}
	go func() {
		h.served <- Serve(ctx, agentIn, recWriter{h.rec, "<", agentOut}, Options{Version: "0.0.0-test"})
	}()
	stream := acp.NewStream(clientIn, recWriter{h.rec, ">", clientOut}, closers{clientIn, clientOut}, acp.StreamOptions{})
	h.conn = acp.NewConn(ctx, stream, h.client, acp.ConnOptions{})
	t.Cleanup(func() {
		_ = h.conn.Close()
		select {
		case err := <-h.served:
			if err != nil {
				t.Errorf("Serve returned %v after the client closed, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return after the client closed")
		}
		cancel()
		h.conn.Wait()
	})
	return h
}

func (h *harness) call(method string, params, result any) error {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return h.conn.Call(ctx, method, params, result)
}

func (h *harness) mustCall(method string, params, result any) {
	h.t.Helper()
	if err := h.call(method, params, result); err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
}

// session initializes and opens a session, returning its id.
func (h *harness) session() string {
	h.t.Helper()
	var init acp.InitializeResponse
	h.mustCall(acp.MethodInitialize, map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false}}, &init)
	var s struct {
		SessionID string `json:"sessionId"`
	}
	h.mustCall(acp.MethodSessionNew, map[string]any{"cwd": testCwd, "mcpServers": []any{}}, &s)
	return s.SessionID
}

func (h *harness) prompt(sid, text string) string {
	h.t.Helper()
	var r acp.PromptResponse
	h.mustCall(acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}, &r)
	return r.StopReason
}

func (h *harness) setMode(sid, mode string) {
	h.t.Helper()
	h.mustCall(acp.MethodSessionSetMode, map[string]any{"sessionId": sid, "modeId": mode}, nil)
}

// toolState folds tool_call / tool_call_update events into the final status
// and last text content of each tool call, keyed by title.
type toolState struct {
	id, status, text string
	statuses         []string
}

func fold(events []event) (map[string]*toolState, []string) {
	byID := map[string]*toolState{}
	var order []string
	for _, e := range events {
		if e.kind != "tool_call" && e.kind != "tool_call_update" {
			continue
		}
		var u struct {
			ToolCallID string `json:"toolCallId"`
			Title      string `json:"title"`
			Status     string `json:"status"`
			Content    []struct {
				Type    string `json:"type"`
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		}
		if err := json.Unmarshal(e.raw, &u); err != nil {
			panic(err)
		}
		st := byID[u.ToolCallID]
		if st == nil {
			st = &toolState{id: u.ToolCallID}
			byID[u.ToolCallID] = st
			order = append(order, u.ToolCallID)
		}
		if u.Status != "" {
			st.status = u.Status
			st.statuses = append(st.statuses, u.Status)
		}
		for _, c := range u.Content {
			if c.Type == "content" {
				st.text = c.Content.Text
			}
		}
	}
	return byID, order
}

func titles(events []event) []string {
	var out []string
	for _, e := range events {
		if e.kind == "tool_call" {
			var u struct{ Title string }
			_ = json.Unmarshal(e.raw, &u)
			out = append(out, u.Title)
		}
	}
	return out
}

func permissions(events []event) []acp.RequestPermissionRequest {
	var out []acp.RequestPermissionRequest
	for _, e := range events {
		if e.kind == "permission" {
			var r acp.RequestPermissionRequest
			if err := json.Unmarshal(e.raw, &r); err != nil {
				panic(err)
			}
			out = append(out, r)
		}
	}
	return out
}

func messageText(events []event) string {
	var b strings.Builder
	for _, e := range events {
		if e.kind == "agent_message_chunk" {
			var u struct{ Content struct{ Text string } }
			_ = json.Unmarshal(e.raw, &u)
			b.WriteString(u.Content.Text)
		}
	}
	return b.String()
}

func TestFullScriptAllowed(t *testing.T) {
	h := start(t, nil)
	sid := h.session()
	if !strings.HasPrefix(sid, "demo-") || len(sid) != len("demo-")+36 {
		t.Fatalf("sessionId %q, want demo-<uuid>", sid)
	}
	if got := h.prompt(sid, "hello"); got != acp.StopEndTurn {
		t.Fatalf("stopReason %q, want end_turn", got)
	}
	events := h.client.snapshot()

	// The stream: several text chunks, a thought, a plan, then per tool:
	// tool_call, permission, in_progress, completed; then the summary.
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.kind)
	}
	firstTool := slices.Index(kinds, "tool_call")
	if firstTool < 0 {
		t.Fatalf("no tool_call in %v", kinds)
	}
	head := kinds[:firstTool]
	if n := strings.Count(strings.Join(head, " "), "agent_message_chunk"); n < 3 {
		t.Errorf("%d agent_message_chunk before the tools, want several: %v", n, head)
	}
	if i, j := slices.Index(head, "agent_thought_chunk"), slices.Index(head, "plan"); i < 0 || j < i {
		t.Errorf("want a thought then a plan before the tools, got %v", head)
	}
	wantTools := []string{
		"tool_call", "permission", "tool_call_update", "tool_call_update",
		"tool_call", "permission", "tool_call_update", "tool_call_update",
		"tool_call", "permission", "tool_call_update", "tool_call_update",
		"tool_call", "permission", "tool_call_update", "tool_call_update",
		"agent_message_chunk",
	}
	if got := kinds[firstTool:]; !slices.Equal(got, wantTools) {
		t.Errorf("tool phase:\n got %v\nwant %v", got, wantTools)
	}

	// Permission requests, shaped like claude-code-acp's.
	perms := permissions(events)
	wantInputs := []map[string]any{
		{"file_path": testCwd + "/README.md"},
		{"command": "go test ./...", "description": "Run the tests"},
		{"file_path": testCwd + "/main.go", "old_string": mainOld, "new_string": mainNew},
		{"command": "rm -rf build"},
	}
	wantTitles := []string{"Read README.md", "`go test ./...`", "Edit main.go", "`rm -rf build`"}
	if len(perms) != 4 {
		t.Fatalf("%d permission requests, want 4", len(perms))
	}
	for i, p := range perms {
		if p.SessionID != sid {
			t.Errorf("perm %d sessionId %q", i, p.SessionID)
		}
		if got, want := mustJSON(p.Options), mustJSON(permissionOptions); string(got) != string(want) || !strings.Contains(string(got), `"optionId":"allow_always","name":"Always Allow","kind":"allow_always"`) {
			t.Errorf("perm %d options %+v", i, p.Options)
		}
		var tc struct {
			ToolCallID string         `json:"toolCallId"`
			Title      string         `json:"title"`
			RawInput   map[string]any `json:"rawInput"`
		}
		if err := json.Unmarshal(p.ToolCall, &tc); err != nil {
			t.Fatal(err)
		}
		if tc.Title != wantTitles[i] || fmt.Sprint(tc.RawInput) != fmt.Sprint(wantInputs[i]) || tc.ToolCallID == "" {
			t.Errorf("perm %d toolCall %s", i, p.ToolCall)
		}
	}

	// The announced tool calls: kind, locations, _meta, diff.
	for _, e := range events {
		if e.kind != "tool_call" {
			continue
		}
		var tc struct {
			Title     string `json:"title"`
			Kind      string `json:"kind"`
			Status    string `json:"status"`
			Locations []struct {
				Path string `json:"path"`
			} `json:"locations"`
			Content []map[string]any             `json:"content"`
			Meta    map[string]map[string]string `json:"_meta"`
		}
		if err := json.Unmarshal(e.raw, &tc); err != nil {
			t.Fatal(err)
		}
		if tc.Status != "pending" {
			t.Errorf("%s announced with status %q, want pending", tc.Title, tc.Status)
		}
		want := map[string]struct{ kind, tool, loc string }{
			"Read README.md":  {"read", "Read", testCwd + "/README.md"},
			"`go test ./...`": {"execute", "Bash", ""},
			"Edit main.go":    {"edit", "Edit", testCwd + "/main.go"},
			"`rm -rf build`":  {"execute", "Bash", ""},
		}[tc.Title]
		if tc.Kind != want.kind || tc.Meta["claudeCode"]["toolName"] != want.tool {
			t.Errorf("%s: kind %q toolName %q, want %q %q", tc.Title, tc.Kind, tc.Meta["claudeCode"]["toolName"], want.kind, want.tool)
		}
		if want.loc != "" && (len(tc.Locations) != 1 || tc.Locations[0].Path != want.loc) {
			t.Errorf("%s: locations %+v, want %s", tc.Title, tc.Locations, want.loc)
		}
		if tc.Title == "Edit main.go" {
			if len(tc.Content) != 1 || tc.Content[0]["type"] != "diff" || tc.Content[0]["oldText"] != mainOld || tc.Content[0]["newText"] != mainNew || tc.Content[0]["path"] != testCwd+"/main.go" {
				t.Errorf("edit content %v, want one diff", tc.Content)
			}
		}
	}

	states, order := fold(events)
	wantOut := []string{"# demo", "ok  \texample.com/demo", "has been updated", "removed build/"}
	for i, id := range order {
		st := states[id]
		if !slices.Equal(st.statuses, []string{"pending", "in_progress", "completed"}) {
			t.Errorf("tool %d statuses %v", i, st.statuses)
		}
		if !strings.Contains(st.text, wantOut[i]) {
			t.Errorf("tool %d output %q, want it to contain %q", i, st.text, wantOut[i])
		}
	}
	if txt := messageText(events); !strings.Contains(txt, "Ran: read, test, edit, rm.") {
		t.Errorf("summary missing from %q", txt)
	}
}

func TestRejectOne(t *testing.T) {
	for _, reject := range []int{0, 1, 2, 3} {
		t.Run(fmt.Sprint(reject), func(t *testing.T) {
			h := start(t, func(_ context.Context, n int, _ acp.RequestPermissionRequest) acp.RequestPermissionResponse {
				if n == reject {
					return acp.Selected("reject")
				}
				return acp.Selected("allow")
			})
			sid := h.session()
			if got := h.prompt(sid, "do it"); got != acp.StopEndTurn {
				t.Fatalf("stopReason %q", got)
			}
			states, order := fold(h.client.snapshot())
			if len(order) != 4 {
				t.Fatalf("%d tool calls, want 4", len(order))
			}
			for i, id := range order {
				st := states[id]
				if i == reject {
					if !slices.Equal(st.statuses, []string{"pending", "failed"}) || st.text != "Rejected by user" {
						t.Errorf("rejected tool %d: statuses %v text %q", i, st.statuses, st.text)
					}
				} else if st.status != "completed" {
					t.Errorf("tool %d status %q, want completed", i, st.status)
				}
			}
		})
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name string
		// how the turn is cancelled once the 2nd permission request is pending
		sessionCancel bool // send session/cancel (the client then answers cancelled)
		outcome       bool // answer the request "cancelled" without session/cancel
	}{
		{name: "session/cancel", sessionCancel: true},
		{name: "cancelled outcome", outcome: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pending := make(chan struct{})
			stopWaiting := make(chan struct{})
			h := start(t, func(ctx context.Context, n int, _ acp.RequestPermissionRequest) acp.RequestPermissionResponse {
				if n < 1 {
					return acp.Selected("allow")
				}
				if n == 1 {
					close(pending)
				}
				if tt.outcome {
					return acp.Cancelled()
				}
				// Per ACP the client answers "cancelled" after session/cancel;
				// the agent also stops waiting and tells us by $/cancel_request.
				select {
				case <-ctx.Done():
				case <-stopWaiting:
				}
				return acp.Cancelled()
			})
			defer close(stopWaiting)
			sid := h.session()
			result := make(chan string, 1)
			go func() {
				var r acp.PromptResponse
				if err := h.call(acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "go"}}}, &r); err != nil {
					result <- "error: " + err.Error()
					return
				}
				result <- r.StopReason
			}()
			<-pending
			if tt.sessionCancel {
				if err := h.conn.Notify(context.Background(), acp.MethodSessionCancel, map[string]any{"sessionId": sid}); err != nil {
					t.Fatal(err)
				}
			}
			if got := <-result; got != acp.StopCancelled {
				t.Fatalf("prompt answered %q, want cancelled", got)
			}
			events := h.client.snapshot()
			if n := len(permissions(events)); n != 2 {
				t.Errorf("%d permission requests, want 2", n)
			}
			states, order := fold(events)
			if len(order) != 2 {
				t.Fatalf("%d tool calls announced, want 2", len(order))
			}
			if st := states[order[1]]; !slices.Equal(st.statuses, []string{"pending"}) {
				t.Errorf("cancelled tool got statuses %v, want only pending", st.statuses)
			}
			if txt := messageText(events); strings.Contains(txt, "Done.") {
				t.Errorf("the turn went on after the cancel: %q", txt)
			}
			// The session takes another prompt afterwards.
			h.setMode(sid, ModeBypass)
			if got := h.prompt(sid, "only:read"); got != acp.StopEndTurn {
				t.Errorf("next prompt: %q", got)
			}
		})
	}
}

func TestCancelWhileStreaming(t *testing.T) {
	h := start(t, nil)
	sid := h.session()
	result := make(chan string, 1)
	go func() {
		var r acp.PromptResponse
		err := h.call(acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "slow"}}}, &r)
		if err != nil {
			result <- err.Error()
			return
		}
		result <- r.StopReason
	}()
	h.client.waitEvents(t, 1) // the first chunk; the next comes 500ms later
	if err := h.conn.Notify(context.Background(), acp.MethodSessionCancel, map[string]any{"sessionId": sid}); err != nil {
		t.Fatal(err)
	}
	if got := <-result; got != acp.StopCancelled {
		t.Fatalf("prompt answered %q, want cancelled", got)
	}
	if n := len(h.client.snapshot()); n > 2 {
		t.Errorf("%d updates after a cancel at the first chunk", n)
	}
}

// A $/cancel_request for the prompt itself ends the turn like session/cancel.
func TestCancelRequestForPrompt(t *testing.T) {
	h := start(t, nil)
	sid := h.session()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- h.conn.Call(ctx, acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "slow"}}}, nil)
	}()
	h.client.waitEvents(t, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v", err)
	}
	h.rec.waitLine(t, `"method":"$/cancel_request"`)
	// Our ids start at 1: initialize 1, session/new 2, this prompt 3.
	h.rec.waitLine(t, `< {"id":3,"result":{"stopReason":"cancelled"}`)
}

func TestModes(t *testing.T) {
	tests := []struct {
		mode      string
		wantPerms []string // titles asked about
		wantTools []string // titles announced
		wantText  string
	}{
		{ModeDefault, []string{"Read README.md", "`go test ./...`", "Edit main.go", "`rm -rf build`"}, []string{"Read README.md", "`go test ./...`", "Edit main.go", "`rm -rf build`"}, "Ran: read, test, edit, rm."},
		{ModeBypass, nil, []string{"Read README.md", "`go test ./...`", "Edit main.go", "`rm -rf build`"}, "Ran: read, test, edit, rm."},
		{ModeAcceptEdits, []string{"Read README.md", "`go test ./...`", "`rm -rf build`"}, []string{"Read README.md", "`go test ./...`", "Edit main.go", "`rm -rf build`"}, "Ran: read, test, edit, rm."},
		{ModePlan, []string{"Read README.md", "`go test ./...`"}, []string{"Read README.md", "`go test ./...`"}, "Skipped in plan mode: edit, rm."},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			h := start(t, nil)
			sid := h.session()
			h.setMode(sid, tt.mode)
			events := h.client.snapshot()
			if len(events) != 1 || string(events[0].raw) != fmt.Sprintf(`{"currentModeId":%q,"sessionUpdate":"current_mode_update"}`, tt.mode) {
				t.Fatalf("after set_mode: %v", events)
			}
			if got := h.prompt(sid, "hello"); got != acp.StopEndTurn {
				t.Fatalf("stopReason %q", got)
			}
			events = h.client.snapshot()
			var asked []string
			for _, p := range permissions(events) {
				var tc struct{ Title string }
				_ = json.Unmarshal(p.ToolCall, &tc)
				asked = append(asked, tc.Title)
			}
			if !slices.Equal(asked, tt.wantPerms) {
				t.Errorf("asked %v, want %v", asked, tt.wantPerms)
			}
			if got := titles(events); !slices.Equal(got, tt.wantTools) {
				t.Errorf("tools %v, want %v", got, tt.wantTools)
			}
			states, _ := fold(events)
			for id, st := range states {
				if st.status != "completed" {
					t.Errorf("%s ended %q", id, st.status)
				}
			}
			txt := messageText(events)
			if !strings.Contains(txt, tt.wantText) {
				t.Errorf("text %q lacks %q", txt, tt.wantText)
			}
			if tt.mode == ModePlan && !strings.Contains(txt, "Plan mode: I won't fix the greeting") {
				t.Errorf("plan mode does not say it skips the edit: %q", txt)
			}
		})
	}
}

func TestAlwaysAllowIsRemembered(t *testing.T) {
	h := start(t, func(context.Context, int, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		return acp.Selected("allow_always")
	})
	sid := h.session()
	for _, p := range []string{"only:test", "only:test", "only:rm", "only:read", "only:read"} {
		if got := h.prompt(sid, p); got != acp.StopEndTurn {
			t.Fatalf("%s: %q", p, got)
		}
	}
	var asked []string
	for _, p := range permissions(h.client.snapshot()) {
		var tc struct{ Title string }
		_ = json.Unmarshal(p.ToolCall, &tc)
		asked = append(asked, tc.Title)
	}
	// Bash is remembered per command, Read per tool.
	want := []string{"`go test ./...`", "`rm -rf build`", "Read README.md"}
	if !slices.Equal(asked, want) {
		t.Errorf("asked %v, want %v", asked, want)
	}
}

func TestSteering(t *testing.T) {
	tests := []struct {
		prompt    string
		wantTools []string
	}{
		{"only:read", []string{"Read README.md"}},
		{"please only:test now", []string{"`go test ./...`"}},
		{"only:edit", []string{"Edit main.go"}},
		{"only:rm", []string{"`rm -rf build`"}},
		{"only:nope", nil},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			h := start(t, nil)
			sid := h.session()
			if got := h.prompt(sid, tt.prompt); got != acp.StopEndTurn {
				t.Fatalf("stopReason %q", got)
			}
			events := h.client.snapshot()
			if got := titles(events); !slices.Equal(got, tt.wantTools) {
				t.Errorf("tools %v, want %v", got, tt.wantTools)
			}
			if n := len(permissions(events)); n != len(tt.wantTools) {
				t.Errorf("%d permission requests, want %d", n, len(tt.wantTools))
			}
		})
	}
}

func TestUpdatesOrdering(t *testing.T) {
	for _, n := range []int{1, 7, 500} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			h := start(t, nil)
			sid := h.session()
			if got := h.prompt(sid, fmt.Sprintf("updates:%d", n)); got != acp.StopEndTurn {
				t.Fatalf("stopReason %q", got)
			}
			// Every update arrived before the prompt's answer, in order.
			events := h.client.snapshot()
			if len(events) != n {
				t.Fatalf("%d updates, want %d", len(events), n)
			}
			for i, e := range events {
				want := fmt.Sprintf(`{"content":{"text":"chunk %d","type":"text"},"sessionUpdate":"agent_message_chunk"}`, i+1)
				if string(e.raw) != want {
					t.Fatalf("update %d = %s, want %s", i, e.raw, want)
				}
			}
		})
	}
}

func TestParseSteering(t *testing.T) {
	tests := []struct {
		in   string
		want steering
	}{
		{"hello", steering{}},
		{"only:RM", steering{only: "rm"}},
		{"updates:3 slow", steering{updates: 3, slow: true}},
		{"slowly", steering{}},
		{"updates:99999999999999999999", steering{updates: maxUpdates}},
	}
	for _, tt := range tests {
		if got := parseSteering(tt.in); got != tt.want {
			t.Errorf("parseSteering(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	h := start(t, nil)
	sid := h.session()
	tests := []struct {
		method   string
		params   any
		wantCode int64
		wantMsg  string
	}{
		{"session/fork", map[string]any{}, acp.CodeMethodNotFound, "session/fork"},
		{"_acme/thing", map[string]any{}, acp.CodeMethodNotFound, "_acme/thing"},
		{acp.MethodSessionLoad, map[string]any{"sessionId": sid}, acp.CodeMethodNotFound, "session/load"},
		{acp.MethodInitialize, map[string]any{}, acp.CodeInvalidParams, "protocolVersion is required"},
		{acp.MethodInitialize, json.RawMessage(`[1]`), acp.CodeInvalidParams, "initialize"},
		{acp.MethodSessionNew, map[string]any{"mcpServers": []any{}}, acp.CodeInvalidParams, "cwd is required"},
		{acp.MethodSessionNew, map[string]any{"cwd": "rel/dir", "mcpServers": []any{}}, acp.CodeInvalidParams, "absolute"},
		{acp.MethodSessionNew, map[string]any{"cwd": testCwd}, acp.CodeInvalidParams, "mcpServers is required"},
		{acp.MethodSessionNew, map[string]any{"cwd": testCwd, "mcpServers": "x"}, acp.CodeInvalidParams, "mcpServers must be an array"},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": "demo-nope", "prompt": []any{map[string]any{"type": "text", "text": "x"}}}, acp.CodeInvalidParams, `unknown sessionId "demo-nope"`},
		{acp.MethodSessionPrompt, map[string]any{"prompt": []any{}}, acp.CodeInvalidParams, "sessionId is required"},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{}}, acp.CodeInvalidParams, "prompt must not be empty"},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "image", "data": "", "mimeType": "image/png"}}}, acp.CodeInvalidParams, `prompt[0]: content type "image"`},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": "hi"}, acp.CodeInvalidParams, "session/prompt"},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "resource_link", "name": "x"}}}, acp.CodeInvalidParams, "resource_link needs a uri"},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "resource", "resource": map[string]any{"text": "x"}}}}, acp.CodeInvalidParams, "resource needs resource.uri"},
		{acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///a"}}}}, acp.CodeInvalidParams, "resource needs text or blob"},
		{acp.MethodSessionSetMode, map[string]any{"sessionId": sid, "modeId": "yolo"}, acp.CodeInvalidParams, `unknown modeId "yolo"; valid ids: default, acceptEdits, plan, bypassPermissions`},
		{acp.MethodSessionSetMode, map[string]any{"sessionId": "x", "modeId": "plan"}, acp.CodeInvalidParams, `unknown sessionId "x"`},
		{acp.MethodSessionSetMode, nil, acp.CodeInvalidParams, "params are required"},
		{acp.MethodAuthenticate, map[string]any{"methodId": "x"}, acp.CodeInvalidParams, "no auth methods"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.wantMsg, func(t *testing.T) {
			err := h.call(tt.method, tt.params, nil)
			var ae *acp.Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an *acp.Error", err)
			}
			if ae.Code != tt.wantCode || !strings.Contains(ae.Message, tt.wantMsg) {
				t.Errorf("got %d %q, want %d containing %q", ae.Code, ae.Message, tt.wantCode, tt.wantMsg)
			}
		})
	}
	// An unknown notification is ignored and the connection goes on.
	if err := h.conn.Notify(context.Background(), "_acme/ping", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if got := h.prompt(sid, "updates:1"); got != acp.StopEndTurn {
		t.Errorf("prompt after errors: %q", got)
	}
}

func TestConcurrentPromptRefused(t *testing.T) {
	release := make(chan struct{})
	asked := make(chan struct{})
	h := start(t, func(ctx context.Context, n int, _ acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		close(asked)
		<-release
		return acp.Selected("allow")
	})
	sid := h.session()
	done := make(chan string, 1)
	go func() { done <- h.prompt(sid, "only:read") }()
	<-asked
	err := h.call(acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "again"}}}, nil)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidRequest || !strings.Contains(ae.Message, "already has a prompt running") {
		t.Errorf("second prompt: %v", err)
	}
	close(release)
	if got := <-done; got != acp.StopEndTurn {
		t.Errorf("first prompt: %q", got)
	}
}

func TestInitializeAndList(t *testing.T) {
	h := start(t, nil)
	var init map[string]any
	h.mustCall(acp.MethodInitialize, map[string]any{"protocolVersion": 7}, &init)
	b, _ := json.Marshal(init)
	want := `{"agentCapabilities":{"loadSession":false,"promptCapabilities":{"audio":false,"embeddedContext":true,"image":false},"sessionCapabilities":{"list":{}}},"agentInfo":{"name":"acp-bridge-demo","title":"acp-bridge demo agent","version":"0.0.0-test"},"authMethods":[],"protocolVersion":1}`
	if string(b) != want {
		t.Errorf("initialize:\n got %s\nwant %s", b, want)
	}

	var ids []string
	for _, cwd := range []string{"/a", "/b", "/a"} {
		var s struct {
			SessionID string         `json:"sessionId"`
			Modes     map[string]any `json:"modes"`
		}
		h.mustCall(acp.MethodSessionNew, map[string]any{"cwd": cwd, "mcpServers": []any{}}, &s)
		ids = append(ids, s.SessionID)
		if s.Modes["currentModeId"] != "default" || len(s.Modes["availableModes"].([]any)) != 4 {
			t.Errorf("modes %v", s.Modes)
		}
	}
	if ids[0] == ids[1] || ids[1] == ids[2] {
		t.Errorf("session ids repeat: %v", ids)
	}
	h.prompt(ids[2], "updates:1 tidy up")
	tests := []struct {
		params any
		want   []string
	}{
		{map[string]any{}, ids},
		{nil, ids},
		{map[string]any{"cwd": "/a"}, []string{ids[0], ids[2]}},
		{map[string]any{"cwd": "/zzz"}, nil},
	}
	for _, tt := range tests {
		var res struct {
			Sessions []struct {
				SessionID string `json:"sessionId"`
				Cwd       string `json:"cwd"`
				Title     string `json:"title"`
				UpdatedAt string `json:"updatedAt"`
			} `json:"sessions"`
		}
		h.mustCall(acp.MethodSessionList, tt.params, &res)
		var got []string
		for _, s := range res.Sessions {
			got = append(got, s.SessionID)
			if _, err := time.Parse(time.RFC3339, s.UpdatedAt); err != nil {
				t.Errorf("updatedAt %q: %v", s.UpdatedAt, err)
			}
			if s.SessionID == ids[2] && s.Title != "updates:1 tidy up" {
				t.Errorf("title %q", s.Title)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("list %v = %v, want %v", tt.params, got, tt.want)
		}
	}
}

func TestServeEndsWithContext(t *testing.T) {
	agentIn, _ := io.Pipe()
	_, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, agentIn, agentOut, Options{}) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after ctx ended")
	}
}

var uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestGoldenTranscript records every message of one full run (initialize,
// session/new, a prompt with all four tools allowed) in wire order.
func TestGoldenTranscript(t *testing.T) {
	h := start(t, nil)
	sid := h.session()
	if got := h.prompt(sid, "hello"); got != acp.StopEndTurn {
		t.Fatalf("stopReason %q", got)
	}
	h.rec.mu.Lock()
	var b bytes.Buffer
	for _, l := range h.rec.lines {
		b.WriteString(uuidRe.ReplaceAllString(l, "<uuid>"))
		b.WriteByte('\n')
	}
	h.rec.mu.Unlock()
	golden := filepath.Join("testdata", "full_run.jsonl")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		gl, wl := strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("transcript differs from %s at line %d:\n got %s\nwant %s\n(run with -update if the change is intended)", golden, i+1, g, w)
			}
		}
	}
}

// Context blocks (resource_link, resource) are echoed first, one line each,
// so a client's test sees exactly what arrived.
func TestContextBlocksEchoed(t *testing.T) {
	h := start(t, allowAll)
	sid := h.session()
	var r acp.PromptResponse
	h.mustCall(acp.MethodSessionPrompt, map[string]any{"sessionId": sid, "prompt": []any{
		map[string]any{"type": "text", "text": "updates:1"},
		map[string]any{"type": "resource_link", "uri": "file:///ws/main.go", "name": "main.go"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///ws/a.go#L2-3", "text": "hello", "mimeType": "text/x-go"}},
	}}, &r)
	if r.StopReason != acp.StopEndTurn {
		t.Fatalf("stop %q", r.StopReason)
	}
	got := messageText(h.client.snapshot())
	want := "Context received: resource_link file:///ws/main.go\nContext received: resource file:///ws/a.go#L2-3 (5 bytes of text)\nchunk 1"
	if got != want {
		t.Fatalf("text %q, want %q", got, want)
	}
}
