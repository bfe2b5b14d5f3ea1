package testkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
)

// lockedWriter serialises writes to the fake agent's stdout, so the raw
// lines of fault commands never interleave with the connection's messages.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// writeRaw writes each part with its own Write, holding the lock across
// all of them (a line split over several writes stays whole on the wire).
func (l *lockedWriter) writeRaw(pause time.Duration, parts ...[]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, p := range parts {
		if i > 0 && pause > 0 {
			time.Sleep(pause) // let the reader see the first part alone
		}
		_, _ = l.w.Write(p)
	}
}

func (f *fakeAgent) report(toolCallID any, answer string) {
	if f.o.Report == "" {
		return
	}
	fh, err := os.OpenFile(f.o.Report, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake agent: report: %v\n", err)
		return
	}
	defer fh.Close()
	fmt.Fprintf(fh, "%v=%s\n", toolCallID, answer)
}

// reportPrompt records (--report) that a prompt reached the agent, by its
// last non-empty line.
func (f *fakeAgent) reportPrompt(text string) {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			f.report("prompt", l)
			return
		}
	}
}

// chunkLine is a session/update agent_message_chunk line with raw text
// bytes (not escaped: callers pass what they want on the wire).
func chunkLine(sid string, text []byte) []byte {
	b := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`, sid)
	b = append(b, text...)
	return append(b, "\"}}}}\n"...)
}

// faultCommand runs the fault-injection commands of the fake agent:
//
//	garbage          write, mid-turn: a non-JSON line, a truncated message, bare
//	                 invalid UTF-8, an update whose text holds invalid UTF-8,
//	                 responses to ids never sent (result and error), an unknown
//	                 notification, {}, [], null; then the text "after-garbage"
//	split            write one update ("split-ok") in two writes 20 ms apart
//	longline N       write one well-formed update whose text is N bytes
//	                 ("long:xxxx..."), then the text "after-long"
//	unknownreq       call _fake/unknown_request on the client; text
//	                 "unknownreq=<code>" (or "unknownreq=ok")
//	spawn            start `sleep 300.N` (N unique) in the agent's process group; text "spawned=<pid> sleep 300.N"
//	flood N SIZE     N agent_message_chunk updates "<name>:<i>:" padded to SIZE bytes
//	say WORDS        one agent_message_chunk with the text WORDS
//	termop M ID      call terminal method M (output, wait_for_exit, kill,
//	                 release) on terminal ID; text "termop=ok" or "termop=<code>"
//	bigreq N         call fs/read_text_file with a path of N bytes (a line
//	                 longer than the bridge reads); text "bigreq=<code>" or "bigreq=ok"
//	call M JSON      call method M with params JSON (the rest of the line, as
//	                 is; "$SID" replaced by the session id); text
//	                 "call=ok" or "call=<code>:<message>"
//	raw JSON         write JSON (the rest of the line, as is) as one line;
//	                 "$SID" in it is replaced by the session id
//
// Unknown commands are ignored.
func (f *fakeAgent) faultCommand(s *fakeSession, fields []string) {
	num := func(i int) int {
		if i >= len(fields) {
			return 0
		}
		n, _ := strconv.Atoi(fields[i])
		return n
	}
	switch fields[0] {
	case "garbage":
		f.raw.writeRaw(0,
			[]byte("this is not json\n"),
			[]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`+s.id+`","upd`+"\n"),
			[]byte("\xff\xfe\xfd garbage \xc3\x28\n"),
			chunkLine(s.id, []byte("bad-utf8:\xff\xfe:end")),
			[]byte(`{"jsonrpc":"2.0","id":987654,"result":{"stray":true}}`+"\n"),
			[]byte(`{"jsonrpc":"2.0","id":"never-sent","error":{"code":-32603,"message":"stray"}}`+"\n"),
			[]byte(`{"jsonrpc":"2.0","method":"_fake/unknown","params":{}}`+"\n"),
			[]byte("{}\n[]\nnull\n   \n"),
		)
		f.text(s.id, "after-garbage")
	case "split":
		line := chunkLine(s.id, []byte("split-ok"))
		half := len(line) / 2
		f.raw.writeRaw(20*time.Millisecond, line[:half], line[half:])
	case "longline":
		n := num(1)
		text := make([]byte, n)
		copy(text, "long:")
		for i := 5; i < n; i++ {
			text[i] = 'x'
		}
		f.raw.writeRaw(0, chunkLine(s.id, text))
		f.text(s.id, "after-long")
	case "unknownreq":
		err := f.conn.Call(context.Background(), "_fake/unknown_request", map[string]any{}, nil)
		var ae *acp.Error
		switch {
		case err == nil:
			f.text(s.id, "unknownreq=ok")
		case errors.As(err, &ae):
			f.text(s.id, fmt.Sprintf("unknownreq=%d", ae.Code))
		default:
			f.text(s.id, "unknownreq=error:"+err.Error())
		}
	case "spawn":
		// A unique argument, so the process can be found from outside a
		// PID namespace (the OS sandbox's) where its pid means nothing.
		arg := fmt.Sprintf("300.%09d", time.Now().UnixNano()%1e9)
		cmd := exec.Command("sleep", arg)
		if err := cmd.Start(); err != nil {
			f.text(s.id, "spawn-error:"+err.Error())
			return
		}
		go func() { _ = cmd.Wait() }()
		f.text(s.id, fmt.Sprintf("spawned=%d sleep %s", cmd.Process.Pid, arg))
	case "say":
		f.text(s.id, strings.Join(fields[1:], " "))
	case "termop":
		if len(fields) < 3 {
			return
		}
		err := f.conn.Call(context.Background(), "terminal/"+fields[1], map[string]any{"sessionId": s.id, "terminalId": fields[2]}, nil)
		var ae *acp.Error
		switch {
		case err == nil:
			f.text(s.id, "termop=ok")
		case errors.As(err, &ae):
			f.text(s.id, fmt.Sprintf("termop=%d", ae.Code))
		default:
			f.text(s.id, "termop=error:"+err.Error())
		}
	case "bigreq":
		err := f.conn.Call(context.Background(), acp.MethodFSReadTextFile,
			map[string]any{"sessionId": s.id, "path": "/" + strings.Repeat("x", num(1))}, nil)
		var ae *acp.Error
		switch {
		case err == nil:
			f.text(s.id, "bigreq=ok")
		case errors.As(err, &ae):
			f.text(s.id, fmt.Sprintf("bigreq=%d", ae.Code))
		default:
			f.text(s.id, "bigreq=error:"+err.Error())
		}
	case "call":
		if len(fields) < 3 {
			return
		}
		params := json.RawMessage(strings.ReplaceAll(strings.Join(fields[2:], " "), "$SID", s.id))
		err := f.conn.Call(context.Background(), fields[1], params, nil)
		var ae *acp.Error
		switch {
		case err == nil:
			f.text(s.id, "call=ok")
		case errors.As(err, &ae):
			f.text(s.id, fmt.Sprintf("call=%d:%s", ae.Code, ae.Message))
		default:
			f.text(s.id, "call=error:"+err.Error())
		}
	case "model?":
		f.mu.Lock()
		m := s.model
		f.mu.Unlock()
		f.text(s.id, "model="+m)
	case "notes?":
		f.mu.Lock()
		n := strings.Join(f.notes, ",")
		f.mu.Unlock()
		f.text(s.id, "notes="+n)
	case "raw":
		line := strings.Join(fields[1:], " ")
		f.raw.writeRaw(0, []byte(strings.ReplaceAll(line, "$SID", s.id)+"\n"))
	case "flood":
		n, size := num(1), num(2)
		for i := 1; i <= n; i++ {
			t := fmt.Sprintf("%s:%d:", f.o.Name, i)
			if pad := size - len(t); pad > 0 {
				t += strings.Repeat("f", pad)
			}
			f.text(s.id, t)
		}
	}
}
