package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/acp-bridge/acp-bridge/acp"
)

// Mode kits of the fake agent (--modes=KIND), shaped like real agents:
//
//	claude  modes auto, default, acceptEdits, plan, bypassPermissions; starts
//	        in auto (Claude's classifier mode, which runs tools unasked); the
//	        mode is also the config option "mode" (category mode), next to a
//	        "model" option (category model)
//	codex   modes read-only, auto, full-access; starts in auto (asks)
//	none    no session modes
//
// In a mode that does not ask, the prompt command `run CMD` runs CMD (sh -c,
// in the session's cwd) without asking, as a real agent does; in an asking
// mode it asks first and runs CMD only if allowed. `selfmode ID` switches
// the agent's own mode (as Claude's ExitPlanMode does) and announces it.
// --stuck-modes refuses every mode change. Every mode change is reported
// (--report) as "mode=<sessionId>:<id>". --report-launch reports, at
// initialize, the agent's arguments ("launch=...") and the environment
// variables agent profiles set ("env=GOOSE_MODE=... OPENCODE_PERMISSION=...").
type fakeModeKit struct {
	modes   []string
	initial string
	asking  []string // modes in which the agent asks
	option  bool     // the mode is also a config option
}

var fakeModeKits = map[string]fakeModeKit{
	"none": {}, // no session modes at all (OpenCode, Goose, most generic agents)
	"claude": {modes: []string{"auto", "default", "acceptEdits", "plan", "bypassPermissions"}, initial: "auto",
		asking: []string{"default", "plan"}, option: true},
	"codex": {modes: []string{"read-only", "auto", "full-access"}, initial: "auto", asking: []string{"read-only", "auto"}},
	// opencode: its modes are agents (personas), not approval modes; it
	// asks as its permission configuration says.
	"opencode": {modes: []string{"build", "plan"}, initial: "build", asking: []string{"build", "plan"}},
}

// kit is the agent's mode kit: its --modes one, else the plain one (default,
// fast; starts in default; both ask).
func (f *fakeAgent) kit() fakeModeKit {
	if k, ok := fakeModeKits[f.o.Modes]; ok {
		return k
	}
	return fakeModeKit{modes: []string{"default", "fast"}, initial: "default", asking: []string{"default", "fast"}}
}

func (f *fakeAgent) modeState(mode string) map[string]any {
	k := f.kit()
	avail := make([]map[string]any, len(k.modes))
	for i, m := range k.modes {
		avail[i] = map[string]any{"id": m, "name": m}
	}
	return map[string]any{"currentModeId": mode, "availableModes": avail}
}

func (f *fakeAgent) configOptions(s *fakeSession) []map[string]any {
	k := f.kit()
	if !k.option || s == nil {
		return nil
	}
	f.mu.Lock()
	mode, model := s.mode, s.model
	f.mu.Unlock()
	var vals []map[string]any
	for _, m := range k.modes {
		vals = append(vals, map[string]any{"value": m, "name": m})
	}
	return []map[string]any{
		{"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": mode, "options": vals},
		{"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": model,
			"options": []map[string]any{{"value": "m1", "name": "M1"}, {"value": "m2", "name": "M2"}}},
	}
}

// sessionResult is the session/new (and load) answer's mode part.
func (f *fakeAgent) sessionResult(s *fakeSession, res map[string]any) map[string]any {
	f.mu.Lock()
	mode := s.mode
	f.mu.Unlock()
	if len(f.kit().modes) > 0 {
		res["modes"] = f.modeState(mode)
	}
	if opts := f.configOptions(s); opts != nil {
		res["configOptions"] = opts
	}
	return res
}

// setMode switches a session's mode; the answer says whether it took.
func (f *fakeAgent) setMode(sid, mode string) error {
	if f.o.StuckModes {
		return acp.Errorf(acp.CodeInternalError, "mode changes are not supported right now")
	}
	if !slices.Contains(f.kit().modes, mode) {
		return acp.Errorf(acp.CodeInvalidParams, "unknown mode %q", mode)
	}
	f.mu.Lock()
	s := f.sessions[sid]
	if s != nil {
		s.mode = mode
	}
	f.mu.Unlock()
	if s == nil {
		return acp.Errorf(acp.CodeResourceNotFound, "unknown session %s", sid)
	}
	f.report("mode", sid+":"+mode)
	return nil
}

func (f *fakeAgent) handleSetMode(params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	_ = json.Unmarshal(params, &p)
	if err := f.setMode(p.SessionID, p.ModeID); err != nil {
		return nil, err
	}
	return acp.AfterReply{Result: map[string]any{}, Then: func() {
		f.update(p.SessionID, map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": p.ModeID})
	}}, nil
}

func (f *fakeAgent) handleSetConfigOption(params json.RawMessage) (any, error) {
	var p struct {
		SessionID string          `json:"sessionId"`
		ConfigID  string          `json:"configId"`
		Value     json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(params, &p)
	if !f.kit().option {
		// The plain kit echoes any option.
		return map[string]any{"configOptions": []map[string]any{{"id": p.ConfigID, "name": p.ConfigID, "type": "select",
			"currentValue": p.Value, "options": []map[string]any{{"value": p.Value, "name": "v"}}}}}, nil
	}
	var v string
	_ = json.Unmarshal(p.Value, &v)
	f.report("config", p.SessionID+":"+p.ConfigID+"="+v)
	switch p.ConfigID {
	case "mode":
		if err := f.setMode(p.SessionID, v); err != nil {
			return nil, err
		}
	case "model":
		f.mu.Lock()
		if s := f.sessions[p.SessionID]; s != nil {
			s.model = v
		}
		f.mu.Unlock()
	default:
		return nil, acp.Errorf(acp.CodeInvalidParams, "unknown config option %q", p.ConfigID)
	}
	f.mu.Lock()
	s := f.sessions[p.SessionID]
	f.mu.Unlock()
	return map[string]any{"configOptions": f.configOptions(s)}, nil
}

// modeCommand runs the prompt commands of the mode kits; false if line is
// not one of them.
func (f *fakeAgent) modeCommand(ctx context.Context, s *fakeSession, fields []string, line string) bool {
	switch fields[0] {
	case "run":
		cmd := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "run"))
		f.mu.Lock()
		mode, cwd := s.mode, s.cwd
		f.mu.Unlock()
		id := fmt.Sprintf("run-%d", len(cmd))
		tc := map[string]any{"toolCallId": id, "title": "`" + cmd + "`", "kind": "execute", "rawInput": map[string]any{"command": cmd}}
		f.update(s.id, map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "`" + cmd + "`",
			"kind": "execute", "status": "pending", "rawInput": map[string]any{"command": cmd}})
		answer := "unasked"
		if slices.Contains(f.kit().asking, mode) {
			answer = f.ask(ctx, s.id, tc)
		}
		if answer == "unasked" || answer == "allow" {
			c := exec.Command("sh", "-c", cmd)
			c.Dir = cwd
			out, err := c.CombinedOutput()
			status := "completed"
			if err != nil {
				answer += fmt.Sprintf(" (failed: %v: %s)", err, out)
				status = "failed"
			}
			// As real agents do: the call's end is announced.
			f.update(s.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status})
		}
		f.report(id, "ran:"+answer)
		f.text(s.id, "run="+answer)
	case "selfmode":
		mode := fields[1]
		f.mu.Lock()
		s.mode = mode
		f.mu.Unlock()
		f.report("mode", s.id+":"+mode+" (by itself)")
		f.update(s.id, map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": mode})
		if opts := f.configOptions(s); opts != nil {
			f.update(s.id, map[string]any{"sessionUpdate": "config_option_update", "configOptions": opts})
		}
		f.text(s.id, "selfmode="+mode)
	default:
		return false
	}
	return true
}

// reportLaunch records how the agent was launched (--report-launch).
func (f *fakeAgent) reportLaunch() {
	if !f.o.ReportLaunch {
		return
	}
	args := os.Args[1:]
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	f.report("launch", strings.Join(args, " "))
	f.report("env", "GOOSE_MODE="+os.Getenv("GOOSE_MODE")+" OPENCODE_PERMISSION="+os.Getenv("OPENCODE_PERMISSION"))
}
