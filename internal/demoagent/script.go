package demoagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// maxUpdates bounds "updates:N".
const maxUpdates = 100_000

// Claude Code's permission options (claude-code-acp 0.16.2), in its order.
var permissionOptions = []acp.PermissionOption{
	{OptionID: "allow_always", Name: "Always Allow", Kind: acp.KindAllowAlways},
	{OptionID: "allow", Name: "Allow", Kind: acp.KindAllowOnce},
	{OptionID: "reject", Name: "Reject", Kind: acp.KindRejectOnce},
}

// tool is one scripted tool call.
type tool struct {
	name     string // steering name: read, test, edit, rm
	toolName string // Claude Code's tool name
	kind     string
	title    string
	plan     string // plan entry and intro text
	output   string // fake output of a successful run
	edit     bool   // an edit: acceptEdits runs it without asking
	planSafe bool   // attempted in plan mode
	rawInput func(cwd string) map[string]any
	content  func(cwd string) []any // announced content (the diff of an edit)
	location func(cwd string) string
	// optIn: run only when asked by name (only:write), never in the default script.
	optIn bool
	// apply does the tool's real effect once allowed (nil: none, the output is fake).
	apply func(cwd string) error
}

// WriteFileName is the file "only:write" creates in the session's cwd, and
// WriteFileContent what it holds.
const (
	WriteFileName    = "demo-write.txt"
	WriteFileContent = "written by the acp-bridge demo agent\n"
)

const (
	mainOld = "fmt.Println(\"helo\")"
	mainNew = "fmt.Println(\"hello\")"
)

var script = []tool{
	{
		name: "read", toolName: "Read", kind: "read", title: "Read README.md",
		plan:     "Read README.md",
		output:   "     1\t# demo\n     2\t\n     3\tA tiny Go module used by the acp-bridge demo agent.\n     4\tRun `go test ./...` to check it.\n",
		planSafe: true,
		rawInput: func(cwd string) map[string]any { return map[string]any{"file_path": path.Join(cwd, "README.md")} },
		location: func(cwd string) string { return path.Join(cwd, "README.md") },
	},
	{
		name: "test", toolName: "Bash", kind: "execute", title: "`go test ./...`",
		plan:     "Run the tests",
		output:   "ok  \texample.com/demo\t0.01s\n",
		planSafe: true,
		rawInput: func(string) map[string]any {
			return map[string]any{"command": "go test ./...", "description": "Run the tests"}
		},
	},
	{
		name: "edit", toolName: "Edit", kind: "edit", title: "Edit main.go",
		plan:   "Fix the greeting in main.go",
		output: "The file main.go has been updated.",
		edit:   true,
		rawInput: func(cwd string) map[string]any {
			return map[string]any{"file_path": path.Join(cwd, "main.go"), "old_string": mainOld, "new_string": mainNew}
		},
		content: func(cwd string) []any {
			return []any{map[string]any{"type": "diff", "path": path.Join(cwd, "main.go"), "oldText": mainOld, "newText": mainNew}}
		},
		location: func(cwd string) string { return path.Join(cwd, "main.go") },
	},
	{
		name: "rm", toolName: "Bash", kind: "execute", title: "`rm -rf build`",
		plan:     "Remove the build directory",
		output:   "removed build/\n",
		rawInput: func(string) map[string]any { return map[string]any{"command": "rm -rf build"} },
	},
	{
		name: "write", toolName: "Write", kind: "edit", title: "Write " + WriteFileName,
		plan:   "Write " + WriteFileName,
		output: "The file " + WriteFileName + " has been written.",
		edit:   true, optIn: true,
		rawInput: func(cwd string) map[string]any {
			return map[string]any{"file_path": path.Join(cwd, WriteFileName), "content": WriteFileContent}
		},
		content: func(cwd string) []any {
			return []any{map[string]any{"type": "diff", "path": path.Join(cwd, WriteFileName), "oldText": nil, "newText": WriteFileContent}}
		},
		location: func(cwd string) string { return path.Join(cwd, WriteFileName) },
		apply: func(cwd string) error {
			return os.WriteFile(filepath.Join(cwd, WriteFileName), []byte(WriteFileContent), 0o644)
		},
	},
}

// alwaysKey is what "Always Allow" remembers: the tool, and for Bash the
// exact command (like a session rule "Bash(go test ./...)").
func (t tool) alwaysKey() string {
	if cmd, ok := t.rawInput("")["command"].(string); ok {
		return t.toolName + "(" + cmd + ")"
	}
	return t.toolName
}

// steering is what a prompt's text asks of the script.
type steering struct {
	only    string // "" = every tool
	updates int    // > 0: just stream this many chunks
	slow    bool
}

var (
	onlyRe    = regexp.MustCompile(`\bonly:([A-Za-z]+)`)
	updatesRe = regexp.MustCompile(`\bupdates:(\d+)`)
	slowRe    = regexp.MustCompile(`\bslow\b`)
)

func parseSteering(text string) steering {
	var st steering
	if m := onlyRe.FindStringSubmatch(text); m != nil {
		st.only = strings.ToLower(m[1])
	}
	if m := updatesRe.FindStringSubmatch(text); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > maxUpdates {
			n = maxUpdates
		}
		st.updates = n
	}
	st.slow = slowRe.MatchString(text)
	return st
}

// errStop ends a turn as cancelled: the turn's context ended or the client
// answered a permission request "cancelled".
var errStop = errors.New("turn stopped")

// run plays the script for one turn. Only the prompt's goroutine uses it.
type run struct {
	a     *agent
	s     *session
	ctx   context.Context // the turn: ends on session/cancel, $/cancel_request or disconnect
	delay time.Duration
	// context has one line per resource_link / resource block of the prompt.
	context []string

	ran, rejected, skipped []string
}

// play runs the turn and returns its stop reason.
func (r *run) play(text string) (string, error) {
	st := parseSteering(text)
	if st.slow {
		r.delay = SlowDelay
	}
	err := r.steps(text, st)
	switch {
	case errors.Is(err, errStop) || (err == nil && r.ctx.Err() != nil):
		return acp.StopCancelled, nil
	case err != nil:
		return "", err
	}
	return acp.StopEndTurn, nil
}

func (r *run) steps(text string, st steering) error {
	// What the editor attached, echoed first so a client can see it arrived.
	for _, c := range r.context {
		if err := r.say("Context received: " + c + "\n"); err != nil {
			return err
		}
	}
	if st.updates > 0 {
		for i := 1; i <= st.updates; i++ {
			if err := r.say(fmt.Sprintf("chunk %d", i)); err != nil {
				return err
			}
			if st.slow {
				if err := r.pause(); err != nil {
					return err
				}
			}
		}
		return nil
	}

	var tools []tool
	for _, t := range script {
		if (st.only == "" && !t.optIn) || st.only == t.name {
			tools = append(tools, t)
		}
	}
	if len(tools) == 0 {
		return r.say(fmt.Sprintf("I don't know a step called %q; the steps are read, test, edit and rm.\n", st.only))
	}

	intro := []string{"Hi! ", "I'm the acp-bridge demo agent. ", "Here is what I'll do: "}
	for i, t := range tools {
		sep := ", "
		if i == len(tools)-1 {
			sep = ".\n"
		}
		intro = append(intro, strings.ToLower(t.plan[:1])+t.plan[1:]+sep)
	}
	for _, c := range intro {
		if err := r.say(c); err != nil {
			return err
		}
		if err := r.pause(); err != nil {
			return err
		}
	}
	thought := fmt.Sprintf("The user said %q. No real model here: I follow my script and ask before each tool call.", truncate(strings.TrimSpace(text), 80))
	if err := r.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": textBlock(thought)}); err != nil {
		return err
	}
	if err := r.pause(); err != nil {
		return err
	}
	entries := make([]any, len(tools))
	for i, t := range tools {
		prio := "medium"
		if i == 0 {
			prio = "high"
		}
		entries[i] = map[string]any{"content": t.plan, "priority": prio, "status": "pending"}
	}
	if err := r.update(map[string]any{"sessionUpdate": "plan", "entries": entries}); err != nil {
		return err
	}
	if err := r.pause(); err != nil {
		return err
	}

	for _, t := range tools {
		if err := r.tool(t); err != nil {
			return err
		}
	}
	return r.say(r.summary())
}

func (r *run) summary() string {
	var b strings.Builder
	b.WriteString("\nDone.")
	if len(r.ran) > 0 {
		fmt.Fprintf(&b, " Ran: %s.", strings.Join(r.ran, ", "))
	}
	if len(r.rejected) > 0 {
		fmt.Fprintf(&b, " Rejected: %s.", strings.Join(r.rejected, ", "))
	}
	if len(r.skipped) > 0 {
		fmt.Fprintf(&b, " Skipped in plan mode: %s.", strings.Join(r.skipped, ", "))
	}
	b.WriteString("\n")
	return b.String()
}

func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolMeta(t tool) map[string]any {
	return map[string]any{"claudeCode": map[string]any{"toolName": t.toolName}}
}

// tool runs one scripted tool call.
func (r *run) tool(t tool) error {
	r.a.mu.Lock()
	mode := r.s.mode
	r.s.nextTool++
	id := fmt.Sprintf("toolu_demo_%02d", r.s.nextTool)
	always := r.s.always[t.alwaysKey()]
	r.a.mu.Unlock()

	if mode == ModePlan && !t.planSafe {
		r.skipped = append(r.skipped, t.name)
		if err := r.say(fmt.Sprintf("(Plan mode: I won't %s.)\n", strings.ToLower(t.plan[:1])+t.plan[1:])); err != nil {
			return err
		}
		return r.pause()
	}

	cwd := r.s.cwd
	call := map[string]any{
		"sessionUpdate": "tool_call",
		"toolCallId":    id,
		"title":         t.title,
		"kind":          t.kind,
		"status":        "pending",
		"rawInput":      t.rawInput(cwd),
		"_meta":         toolMeta(t),
	}
	if t.content != nil {
		call["content"] = t.content(cwd)
	}
	if t.location != nil {
		call["locations"] = []any{map[string]any{"path": t.location(cwd)}}
	}
	if err := r.update(call); err != nil {
		return err
	}
	if err := r.pause(); err != nil {
		return err
	}

	ask := !always && mode != ModeBypass && !(mode == ModeAcceptEdits && t.edit)
	if ask {
		allowed, why, err := r.ask(id, t)
		if err != nil {
			return err
		}
		if !allowed {
			r.rejected = append(r.rejected, t.name)
			if err := r.update(map[string]any{
				"sessionUpdate": "tool_call_update",
				"toolCallId":    id,
				"status":        "failed",
				"content":       []any{map[string]any{"type": "content", "content": textBlock(why)}},
				"_meta":         toolMeta(t),
			}); err != nil {
				return err
			}
			return r.pause()
		}
	}

	if err := r.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress", "_meta": toolMeta(t)}); err != nil {
		return err
	}
	if err := r.pause(); err != nil {
		return err
	}
	if t.apply != nil {
		if err := t.apply(cwd); err != nil {
			return r.update(map[string]any{
				"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "failed",
				"content": []any{map[string]any{"type": "content", "content": textBlock(err.Error())}}, "_meta": toolMeta(t),
			})
		}
	}
	content := []any{}
	if t.content != nil {
		content = append(content, t.content(cwd)...)
	}
	content = append(content, map[string]any{"type": "content", "content": textBlock(t.output)})
	if err := r.update(map[string]any{
		"sessionUpdate": "tool_call_update",
		"toolCallId":    id,
		"status":        "completed",
		"content":       content,
		"_meta":         toolMeta(t),
	}); err != nil {
		return err
	}
	r.ran = append(r.ran, t.name)
	return r.pause()
}

// ask sends session/request_permission for tool call id and waits for the
// answer. It returns errStop when the turn must end (cancelled outcome or
// cancelled turn), and why a rejection was a rejection.
func (r *run) ask(id string, t tool) (allowed bool, why string, err error) {
	params := map[string]any{
		"sessionId": r.s.id,
		// Claude Code sends only these three; the client merges them with
		// the tool_call it saw.
		"toolCall": map[string]any{"toolCallId": id, "title": t.title, "rawInput": t.rawInput(r.s.cwd)},
		"options":  permissionOptions,
	}
	var resp acp.RequestPermissionResponse
	if err := r.a.peer.Call(r.ctx, acp.MethodRequestPermission, params, &resp); err != nil {
		if r.ctx.Err() != nil {
			return false, "", errStop
		}
		r.a.log.Warn("permission request failed", zap.String("toolCallId", id), zap.Error(err))
		return false, fmt.Sprintf("Permission request failed: %v", err), nil
	}
	switch resp.Outcome.Outcome {
	case acp.OutcomeCancelled:
		return false, "", errStop
	case acp.OutcomeSelected:
	default:
		return false, fmt.Sprintf("Rejected: unknown outcome %q", resp.Outcome.Outcome), nil
	}
	switch resp.Outcome.OptionID {
	case "allow_always":
		r.a.mu.Lock()
		r.s.always[t.alwaysKey()] = true
		r.a.mu.Unlock()
		return true, "", nil
	case "allow":
		return true, "", nil
	case "reject":
		return false, "Rejected by user", nil
	default:
		// Any doubt means no.
		r.a.log.Warn("unknown permission option", zap.String("optionId", resp.Outcome.OptionID))
		return false, fmt.Sprintf("Rejected: unknown option %q", resp.Outcome.OptionID), nil
	}
}

func (r *run) say(text string) error {
	return r.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": textBlock(text)})
}

// update sends one session/update, unless the turn has ended.
func (r *run) update(u map[string]any) error {
	if r.ctx.Err() != nil {
		return errStop
	}
	err := r.a.peer.Notify(r.ctx, acp.MethodSessionUpdate, acp.SessionNotification{SessionID: r.s.id, Update: mustJSON(u)})
	if err != nil {
		return fmt.Errorf("send %s update: %w", u["sessionUpdate"], err)
	}
	return nil
}

// pause waits r.delay; errStop if the turn ends first.
func (r *run) pause() error {
	if r.delay <= 0 {
		if r.ctx.Err() != nil {
			return errStop
		}
		return nil
	}
	t := time.NewTimer(r.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.ctx.Done():
		return errStop
	}
}
