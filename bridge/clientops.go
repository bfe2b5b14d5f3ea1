package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
)

// CodePermissionDenied answers a child's fs/terminal request that the policy
// or the person refused.
const CodePermissionDenied = -32001

// clientOp serves a child's fs/read_text_file, fs/write_text_file and
// terminal/create: only if the editor offered the capability, and only after
// the policy (and, if it asks, the person) allowed it. A real agent once read
// a denied .env because a client served reads unchecked: not here.
func (b *Bridge) clientOp(ctx context.Context, a *agentRT, method string, params json.RawMessage) (any, error) {
	caps := b.editorCapabilities()
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	childID := o.String("sessionId")
	var call policy.Call
	var title, kind string
	failure := "" // set when the call could not be read: then it is asked about
	switch method {
	case acp.MethodFSReadTextFile, acp.MethodFSWriteTextFile:
		if (method == acp.MethodFSReadTextFile && !caps.FS.ReadTextFile) || (method == acp.MethodFSWriteTextFile && !caps.FS.WriteTextFile) {
			return nil, acp.Errorf(acp.CodeMethodNotFound, "%s: the editor does not offer this capability", method)
		}
		path, err := pathParam(method, o, "path", true)
		if err != nil {
			return nil, err
		}
		if method == acp.MethodFSReadTextFile {
			call = policy.Call{Tool: "Read", Paths: []string{path}, Kind: "read"}
			title, kind = "Read "+path, "read"
		} else {
			call = policy.Call{Tool: "Edit", Paths: []string{path}, Kind: "edit"}
			title, kind = "Write "+path, "edit"
		}
	case acp.MethodTerminalCreate:
		if !caps.Terminal {
			return nil, acp.Errorf(acp.CodeMethodNotFound, "%s: the editor does not offer terminals", method)
		}
		var p struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		if err := json.Unmarshal(params, &p); err != nil || p.Command == "" {
			return nil, acp.InvalidParams(method, errors.New("command is required"))
		}
		if _, err := pathParam(method, o, "cwd", false); err != nil {
			return nil, err
		}
		cmd, ok := a.shellJoinSafely(p.Command, p.Args)
		call = policy.Call{Tool: "Bash", Command: cmd, Kind: "execute"}
		if !ok {
			failure = "the command could not be quoted"
		}
		title, kind = cmd, "execute"
	}
	call.Title, call.Kind = title, kind
	call.Input = params
	s, _ := a.sessionFor(childID)
	if s == nil {
		return nil, acp.Errorf(CodePermissionDenied, "%s refused: session %q is unknown to acp-bridge", method, childID)
	}
	d := b.decideOr(s, call, failure)
	switch d.verdict.Decision {
	case policy.Deny:
		b.record(s, call, d, "", "", "deny", "", string(d.verdict.Source), 0)
		return nil, acp.Errorf(CodePermissionDenied, "%s refused by acp-bridge: %s", method, d.verdict.Reason)
	case policy.Ask:
		tc := acp.Object{}
		tc.Set("toolCallId", "acp-bridge-"+newID())
		tc.Set("title", title)
		tc.Set("kind", kind)
		tc.Set("status", "pending")
		tc["rawInput"] = params
		if len(call.Paths) > 0 {
			tc.Set("locations", []map[string]string{{"path": call.Paths[0]}})
		}
		raw := tc.Marshal()
		res, fwd, err := b.ask(ctx, s, call, d, raw, toolCallIDOf(raw), bridgeOptions(a.name, call, nil, d.verdict), method)
		if err != nil {
			return nil, err
		}
		allowed := func() acp.RequestPermissionResponse { return acp.Selected("allow") }
		rejected := func() acp.RequestPermissionResponse { return acp.Selected("reject") }
		_, outcome := b.resolveToAnswer(s, call, d, fwd, res, allowed, rejected)
		b.finish(s, call, d, fwd, res, outcome, "")
		if outcome != "allow" {
			return nil, acp.Errorf(CodePermissionDenied, "%s refused: %s by %s", method, outcome, res.By)
		}
	default:
		b.record(s, call, d, "", "", "allow", "", string(d.verdict.Source), 0)
	}
	if method == acp.MethodTerminalCreate {
		if err := a.confineTerminal(o, s.cwd); err != nil {
			return nil, acp.InvalidParams(method, err)
		}
	}
	o.Set("sessionId", s.id)
	fwdParams, ok := a.stripForeign(o.Marshal(), method)
	if !ok {
		return nil, acp.InvalidParams(method, errors.New("params nest too deep"))
	}
	var out json.RawMessage
	if err := b.editor.Call(ctx, method, fwdParams, &out); err != nil {
		return nil, fmt.Errorf("editor: %w", err)
	}
	if method == acp.MethodTerminalCreate {
		var created struct {
			TerminalID string `json:"terminalId"`
		}
		if json.Unmarshal(out, &created) == nil && created.TerminalID != "" {
			a.ownTerminal(created.TerminalID, s.id)
		}
	}
	return out, nil
}

// Terminal ids belong to the agent process (and the session) whose
// terminal/create the editor answered with them: another agent, or the
// same agent under another session, naming one gets -32602 "unknown
// terminal" and the editor never sees the request.

// ownTerminal records a terminal id the editor gave a.
func (a *agentRT) ownTerminal(id, sessionID string) {
	a.mu.Lock()
	a.terminals[id] = sessionID
	a.mu.Unlock()
}

// terminalSession is the bridge session terminal id belongs to, if a owns it.
func (a *agentRT) terminalSession(id string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sid, ok := a.terminals[id]
	return sid, ok
}

// forgetTerminal drops a released terminal.
func (a *agentRT) forgetTerminal(id string) {
	a.mu.Lock()
	delete(a.terminals, id)
	a.mu.Unlock()
}

// releaseTerminals releases, in the editor, the terminals of a process that
// ended (nobody can release them any more); best effort, off the caller's
// goroutine.
func (a *agentRT) releaseTerminals(terminals map[string]string) {
	if len(terminals) == 0 || a.b.editor == nil {
		return
	}
	go func() {
		for id, sid := range terminals {
			ctx, cancel := context.WithTimeout(a.b.lifetime, 5*time.Second)
			err := a.b.editor.Call(ctx, acp.MethodTerminalRelease, map[string]string{"sessionId": sid, "terminalId": id}, nil)
			cancel()
			if err != nil {
				a.log.Debug("releasing a terminal of an exited agent failed", zap.String("terminalId", id), zap.Error(err))
			}
		}
	}()
}

// forwardToEditor passes terminal/output, wait_for_exit, kill and release
// to the editor under the bridge's session id.
func (b *Bridge) forwardToEditor(ctx context.Context, a *agentRT, method string, params json.RawMessage) (any, error) {
	if !b.editorCapabilities().Terminal {
		return nil, acp.Errorf(acp.CodeMethodNotFound, "%s: the editor does not offer terminals", method)
	}
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	s, _ := a.sessionFor(o.String("sessionId"))
	if s == nil {
		return nil, acp.Errorf(acp.CodeResourceNotFound, "%s: unknown session %q", method, o.String("sessionId"))
	}
	termID := o.String("terminalId")
	if owner, ok := a.terminalSession(termID); !ok || owner != s.id {
		a.log.Warn("refused a terminal request for a terminal this agent's session did not create",
			zap.String("method", method), zap.String("terminalId", termID), zap.String("session", s.id))
		return nil, acp.Errorf(acp.CodeInvalidParams, "%s: unknown terminal %q", method, termID)
	}
	o.Set("sessionId", s.id)
	fwdParams, ok := a.stripForeign(o.Marshal(), method)
	if !ok {
		return nil, acp.InvalidParams(method, errors.New("params nest too deep"))
	}
	var out json.RawMessage
	if err := b.editor.Call(ctx, method, fwdParams, &out); err != nil {
		return nil, fmt.Errorf("editor: %w", err)
	}
	if method == acp.MethodTerminalRelease {
		a.forgetTerminal(termID)
	}
	return out, nil
}

// shellJoinSafely is policy.ShellJoin; a panic is logged and reported (ok
// false) with a naive join for the card, which the engine never judges
// (decideOr asks).
func (a *agentRT) shellJoinSafely(command string, args []string) (cmd string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("quoting a terminal/create command failed; the policy will ask", zap.String("command", command),
				zap.Strings("args", args), zap.String("failure", fmt.Sprint(r)))
			cmd, ok = strings.Join(append([]string{command}, args...), " "), false
		}
	}()
	return shellJoin(command, args), true
}
