package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/safefs"
)

// clientOp serves a child's fs/read_text_file, fs/write_text_file and
// terminal/create: only if the editor offered the capability, and only after
// the policy (and, if it asks, the person) allowed it. A real agent once read
// a denied .env because a client served reads unchecked: not here.
//
// fs/*: the path is resolved once (safefs.Resolve) before the decision; the
// policy judges the named and the resolved path, the agent's sandbox bounds
// the resolved one (permission.SandboxBoundStage), and the bridge then does the disk I/O on
// exactly the resolved path, refusing any link that appeared since
// (serveFS). The editor is asked only about its open documents.
//
// terminal/create: its cwd is resolved the same way, judged as the call's
// own directory (policy.Call.Cwd), and the terminal is forwarded with
// that resolved directory (confineTerminal runs it there in the sandbox).
func (b *Bridge) clientOp(ctx context.Context, a *agentRT, method string, params json.RawMessage) (any, error) {
	caps := b.editorCapabilities()
	o, err := acp.ParseObject(params)
	if err != nil {
		return nil, acp.InvalidParams(method, err)
	}
	childID := o.String("sessionId")
	var call policy.Call
	var title, kind string
	resolved := ""    // fs/*: the path as resolved before the decision
	termCwd := ""     // terminal/create: its cwd as resolved before the decision
	var refused error // fs/*: the path cannot be served (/proc, a link loop): denied, recorded
	failure := ""     // set when the call could not be read: then it is asked about
	switch method {
	case acp.MethodFSReadTextFile, acp.MethodFSWriteTextFile:
		if (method == acp.MethodFSReadTextFile && !caps.FS.ReadTextFile) || (method == acp.MethodFSWriteTextFile && !caps.FS.WriteTextFile) {
			return nil, acp.Errorf(acp.CodeMethodNotFound, "%s: the editor does not offer this capability", method)
		}
		path, err := pathParam(method, o, "path", true)
		if err != nil {
			return nil, err
		}
		// The path is resolved once, here: what the policy and the sandbox
		// bound judge and what safefs then opens is this one value.
		if resolved, err = safefs.Resolve(path); err != nil {
			refused = err
			resolved = ""
		}
		paths := []string{path}
		shown := path
		if resolved != "" && resolved != path {
			// both judged: rules on the named path and on where it leads.
			paths = append(paths, resolved)
			shown = path + " (" + resolved + ")"
		}
		if method == acp.MethodFSReadTextFile {
			call = policy.Call{Tool: "Read", Paths: paths, Kind: "read"}
			title, kind = "Read "+shown, "read"
		} else {
			call = policy.Call{Tool: "Edit", Paths: paths, Kind: "edit"}
			title, kind = "Write "+shown, "edit"
		}
	case acp.MethodTerminalCreate:
		if !caps.Terminal {
			return nil, acp.Errorf(acp.CodeMethodNotFound, "%s: the editor does not offer terminals", method)
		}
		// What is judged is what is forwarded: the members are read by
		// their exact names (encoding/json would also take "COMMAND") and
		// the request is rebuilt from them, nothing else.
		t, err := readTerminalCreate(o)
		if err != nil {
			return nil, acp.InvalidParams(method, err)
		}
		cwd, err := pathParam(method, o, "cwd", false)
		if err != nil {
			return nil, err
		}
		// The directory it runs in is judged (Call.Cwd: its relative paths
		// resolve there, and outside the workspace they are outside paths;
		// red team 16), resolved once like an fs/* path, and the terminal
		// runs in exactly that resolved directory.
		if cwd != "" {
			real, err := safefs.Resolve(cwd)
			if err != nil {
				refused = fmt.Errorf("the terminal's cwd: %w", err)
			} else {
				cwd, termCwd = real, real
				t.setCwd(cwd)
			}
		}
		o = t.object()
		cmd, ok := a.shellJoinSafely(t.Command, t.Args)
		// The environment it asks for is part of the command: judged as
		// the assignments in front of it (BASH_ENV, GIT_SSH_COMMAND, ...).
		if prefix := t.assignments(); prefix != "" {
			cmd = prefix + " " + cmd
		}
		call = policy.Call{Tool: "Bash", Command: cmd, Kind: "execute", Cwd: cwd}
		if !ok {
			failure = "the command could not be quoted"
		}
		title, kind = cmd, "execute"
		if cwd != "" {
			title = cmd + " (in " + cwd + ")"
		}
	}
	call.Title, call.Kind = title, kind
	call.Input = params
	s, _ := a.sessionFor(childID)
	if s == nil {
		return nil, acp.Errorf(CodePermissionDenied, "%s refused: session %q is unknown to acp-bridge", method, childID)
	}
	bound := resolved
	if termCwd != "" {
		bound = termCwd // held to the agent's sandbox bound too (a read of it)
	}
	if err := b.flow.Operation(ctx, s, permission.Operation{
		Method: method, Call: call, Params: params, Resolved: bound, Refused: refused, Failure: failure,
	}); err != nil {
		return nil, err
	}
	if resolved != "" {
		return b.serveFS(ctx, s, method, o, resolved)
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

// ownTerminal records a terminal id the editor gave a. A session that
// ended while the editor was creating it (endSession forgets the session
// before it releases its terminals) has the terminal released at once.
func (a *agentRT) ownTerminal(id, sessionID string) {
	a.mu.Lock()
	a.terminals[id] = sessionID
	a.mu.Unlock()
	if _, err := a.b.session(sessionID); err != nil {
		go a.releaseSessionTerminals(a.b.lifetime, sessionID, "created after its session ended")
	}
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

// releaseSessionTerminals releases, in the editor, the terminals the agent
// created in bridge session sid and has not released, once the session is
// closed or deleted (nobody may use them any more: their ids are forgotten
// first, so a late terminal/output from the agent is refused). Each is
// awaited (bounded), so the close's answer comes after the editor ended
// them; a failure is logged.
func (a *agentRT) releaseSessionTerminals(ctx context.Context, sid, why string) {
	a.mu.Lock()
	var ids []string
	for id, owner := range a.terminals {
		if owner == sid {
			ids = append(ids, id)
			delete(a.terminals, id)
		}
	}
	a.mu.Unlock()
	if len(ids) == 0 || a.b.editor == nil {
		return
	}
	for _, id := range ids {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		err := a.b.editor.Call(rctx, acp.MethodTerminalRelease, map[string]string{"sessionId": sid, "terminalId": id}, nil)
		cancel()
		if err != nil {
			a.log.Warn("releasing a terminal of an ended session failed", zap.String("session", sid), zap.String("terminalId", id),
				zap.String("why", why), zap.Error(err))
			continue
		}
		a.log.Info("terminal of an ended session released", zap.String("session", sid), zap.String("terminalId", id), zap.String("why", why))
	}
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
// (the permission flow asks).
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

// serveFS does an allowed fs/read_text_file or fs/write_text_file on
// resolved. Our extension (editorOpenDocs) is asked first, for its open
// document of exactly that path only (_meta["acp-bridge"].openDocumentOnly):
// it answers with the document's text, applies a write to a dirty document
// without saving it, or says notOpen. Everything else is disk I/O done here
// (safefs): no symbolic link that appeared after the decision is followed.
// Other editors get no fs/* at all: they would follow links.
func (b *Bridge) serveFS(ctx context.Context, s *session, method string, o acp.Object, resolved string) (any, error) {
	var p struct {
		Line    *int    `json:"line"`
		Limit   *int    `json:"limit"`
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(o.Marshal(), &p); err != nil {
		return nil, acp.InvalidParams(method, errors.New("line and limit must be whole numbers, content a string"))
	}
	line, limit := 0, 0
	if p.Line != nil {
		line = *p.Line
	}
	if p.Limit != nil {
		limit = *p.Limit
	}
	if line < 0 || limit < 0 {
		return nil, acp.InvalidParams(method, fmt.Errorf("line and limit must not be negative (got %d, %d)", line, limit))
	}
	write := method == acp.MethodFSWriteTextFile
	if write && p.Content == nil {
		return nil, acp.InvalidParams(method, errors.New("content is required (a string)"))
	}
	b.mu.Lock()
	openDocs := b.editorOpenDocs
	b.mu.Unlock()
	if openDocs {
		fwd := acp.Object{}
		fwd.Set("sessionId", s.id)
		fwd.Set("path", resolved)
		if write {
			fwd.Set("content", *p.Content)
		} else {
			if p.Line != nil {
				fwd.Set("line", line)
			}
			if p.Limit != nil {
				fwd.Set("limit", limit)
			}
		}
		acp.SetBridgeMeta(fwd, map[string]bool{"openDocumentOnly": true})
		var out json.RawMessage
		if err := b.editor.Call(ctx, method, fwd, &out); err != nil {
			return nil, fmt.Errorf("editor: %w", err)
		}
		var ans struct {
			Content *string `json:"content"`
		}
		var meta struct {
			NotOpen bool `json:"notOpen"`
		}
		ao, err := acp.ParseObject(out)
		if err == nil {
			err = acp.BridgeMeta(ao, &meta)
		}
		if err == nil {
			err = json.Unmarshal(out, &ans)
		}
		switch {
		case err != nil:
			return nil, fmt.Errorf("editor: a malformed answer to %s: %w", method, err)
		case meta.NotOpen:
			// not an open document (or a clean one, for a write): disk.
		case write:
			return map[string]any{}, nil
		case ans.Content != nil:
			return map[string]string{"content": *ans.Content}, nil
		default:
			return nil, fmt.Errorf("editor: its answer to %s has no content and does not say notOpen", method)
		}
	}
	if write {
		if err := safefs.WriteFile(resolved, []byte(*p.Content)); err != nil {
			return nil, fsError(method, err)
		}
		return map[string]any{}, nil
	}
	text, err := safefs.ReadFile(resolved, line, limit)
	if err != nil {
		return nil, fsError(method, err)
	}
	return map[string]string{"content": text}, nil
}

// fsError is the child's error for a failed disk act.
func fsError(method string, err error) error {
	switch {
	case errors.Is(err, safefs.ErrChanged), errors.Is(err, safefs.ErrSpecial):
		return acp.Errorf(CodePermissionDenied, "%s refused by acp-bridge: %v", method, err)
	case errors.Is(err, fs.ErrNotExist):
		return acp.Errorf(acp.CodeResourceNotFound, "%v", err)
	}
	return err
}
