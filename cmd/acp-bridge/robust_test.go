package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/internal/testkit"
)

// rawReply is a JSON-RPC error answer as the editor read it.
type rawReply struct {
	ID    any `json:"id"`
	Error struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// replyTo waits for the bridge's answer to a request written raw with id
// (nil: an answer with a null id, the nth of those).
func replyTo(t *testing.T, c context.Context, p *proc, id any, nth int) rawReply {
	t.Helper()
	var out rawReply
	err := p.editor.WaitWire(c, "the answer to a raw request", func(lines []string) bool {
		seen := 0
		for _, line := range lines {
			var r rawReply
			if json.Unmarshal([]byte(line), &r) != nil || r.Error.Code == 0 || r.ID != id {
				continue
			}
			if seen++; seen == nth {
				out = r
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, p.stderr.String())
	}
	return out
}

// What an editor writes that is not a good request gets a JSON-RPC error
// over stdio, and the connection goes on: a line that is not JSON (-32700,
// id null), JSON that is not a message (-32600, id null), a request longer
// than maxLineBytes (-32600 to its id, naming the limit), and a cwd or
// additional directory that is not valid UTF-8, not absolute, holds NUL or
// "..": -32602 naming the field.
func TestEditorBadInputAnsweredThroughBinary(t *testing.T) {
	p := startBin(t, "defaultAgent: f\nmaxLineBytes: 4096\nagents:\n"+testkit.FakeAgentYAML("f"))
	p.editor.RecordWire()
	c, sid := p.open(t)
	write := func(line string) {
		t.Helper()
		if _, err := p.stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	write("this is not json")
	if r := replyTo(t, c, p, nil, 1); r.Error.Code != acp.CodeParseError {
		t.Fatalf("non-JSON line: %+v, want -32700", r)
	}
	write(`{"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/tmp"`) // cut short
	if r := replyTo(t, c, p, nil, 2); r.Error.Code != acp.CodeParseError {
		t.Fatalf("truncated line: %+v, want -32700", r)
	}
	write(`{}`)
	if r := replyTo(t, c, p, nil, 3); r.Error.Code != acp.CodeInvalidRequest {
		t.Fatalf("{}: %+v, want -32600", r)
	}
	write(`{"jsonrpc":"2.0","id":"raw-long","method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"` + strings.Repeat("x", 10000) + `"}]}}`)
	if r := replyTo(t, c, p, "raw-long", 1); r.Error.Code != acp.CodeInvalidRequest || !strings.Contains(r.Error.Message, "maxLineBytes") || !strings.Contains(r.Error.Message, "4096") {
		t.Fatalf("over-long request: %+v, want -32600 naming maxLineBytes and 4096", r)
	}
	cases := []struct {
		id, method, params, field string
	}{
		{"cwd-utf8", "session/new", `{"cwd":"/tmp/caf` + "\xff\xfe" + `","mcpServers":[]}`, "cwd is not valid UTF-8"},
		{"cwd-surrogate", "session/new", `{"cwd":"/tmp/\udc80","mcpServers":[]}`, "cwd is not valid UTF-8"},
		{"cwd-nul", "session/new", `{"cwd":"/tmp/a\u0000b","mcpServers":[]}`, "cwd holds a NUL byte"},
		{"cwd-dotdot", "session/new", `{"cwd":"/tmp/../etc","mcpServers":[]}`, `cwd must not hold a ".." element`},
		{"cwd-relative", "session/new", `{"cwd":"work/dir","mcpServers":[]}`, "cwd must be an absolute path"},
		{"cwd-number", "session/new", `{"cwd":5,"mcpServers":[]}`, ".cwd of type string"},
		{"adddirs-utf8", "session/new", `{"cwd":"` + p.ws + `","additionalDirectories":["/ok","/bad` + "\xc3\x28" + `"],"mcpServers":[]}`, "additionalDirectories[1] is not valid UTF-8"},
		{"load-cwd", "session/load", `{"sessionId":"` + sid + `","cwd":"/x/../y","mcpServers":[]}`, `cwd must not hold a ".." element`},
		{"load-adddirs", "session/load", `{"sessionId":"` + sid + `","cwd":"` + p.ws + `","additionalDirectories":["rel"],"mcpServers":[]}`, "additionalDirectories[0] must be an absolute path"},
		{"list-cwd", "session/list", `{"cwd":"/a` + "\xff" + `"}`, "cwd is not valid UTF-8"},
	}
	for _, cs := range cases {
		write(`{"jsonrpc":"2.0","id":"` + cs.id + `","method":"` + cs.method + `","params":` + cs.params + `}`)
		r := replyTo(t, c, p, cs.id, 1)
		if r.Error.Code != acp.CodeInvalidParams || !strings.Contains(r.Error.Message, cs.field) {
			t.Errorf("%s: %+v, want -32602 naming %q", cs.id, r, cs.field)
		}
	}
	// The connection is still good.
	if stop, err := p.editor.Prompt(c, sid, "say still here"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt after bad input: %q %v", stop, err)
	}
	for _, want := range []string{`"kind": "invalid-json"`, `"reply": "error -32700 to id null"`, `"reply": "error -32600 to id \"raw-long\""`} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("stderr lacks %s:\n%s", want, p.stderr.String())
		}
	}
}

// An agent's request longer than maxLineBytes is answered with -32600 (the
// agent does not wait forever), its garbage lines are only logged, and the
// agent goes on.
func TestAgentOverLongRequestAnsweredThroughBinary(t *testing.T) {
	p := startBin(t, "defaultAgent: f\nmaxLineBytes: 4096\nagents:\n"+testkit.FakeAgentYAML("f"))
	c, sid := p.open(t)
	stop, err := p.editor.Prompt(c, sid, "bigreq 10000\nraw this is not json\nsay after")
	if err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q %v", stop, err)
	}
	texts := testkit.Texts(p.editor.Messages(), sid)
	if strings.Join(texts, ",") != "bigreq=-32600,after" {
		t.Fatalf("agent texts %q, want bigreq=-32600 then after", texts)
	}
	// The log is written on stderr, a pipe of its own: it may trail the
	// answers on stdout.
	for _, want := range []string{`"kind": "line-too-long"`, `"kind": "invalid-json"`} {
		if err := p.stderr.WaitFor(c, want); err != nil {
			t.Errorf("stderr never logged %s: %v\n%s", want, err, p.stderr.String())
		}
	}
	log := p.stderr.String()
	if !strings.Contains(log, `"kind": "line-too-long"`) || !strings.Contains(log, `"reply": "error -32600 to id `) {
		t.Errorf("stderr does not log the answered over-long line:\n%s", log)
	}
	if !strings.Contains(log, `"kind": "invalid-json"`) || strings.Contains(log, `"reply": "error -32700`) {
		t.Errorf("a child's garbage line must be logged and not answered:\n%s", log)
	}
}
