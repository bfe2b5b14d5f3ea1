package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// render prints one session update. Unknown kinds are ignored.
func (c *chat) render(update json.RawMessage) {
	kind := acp.UpdateKind(update)
	switch kind {
	case "agent_message_chunk", "agent_thought_chunk":
		var u struct {
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
				URI  string `json:"uri"`
			} `json:"content"`
		}
		if json.Unmarshal(update, &u) != nil {
			return
		}
		text := u.Content.Text
		if u.Content.Type != "text" {
			text = "[" + u.Content.Type + " " + u.Content.URI + "]"
		}
		if kind == "agent_thought_chunk" {
			c.out.chunk("thought", text)
		} else {
			c.out.chunk("message", text)
		}
	case "tool_call", "tool_call_update":
		c.renderTool(kind, update)
	case "plan":
		c.out.lines(styleNone, planLines(update)...)
	case "current_mode_update":
		var u struct {
			CurrentModeID string `json:"currentModeId"`
		}
		_ = json.Unmarshal(update, &u)
		c.mu.Lock()
		c.mode = u.CurrentModeID
		c.mu.Unlock()
		c.out.lines(styleDim, "[mode] "+u.CurrentModeID)
	case "available_commands_update":
		var u struct {
			AvailableCommands []struct {
				Name string `json:"name"`
			} `json:"availableCommands"`
		}
		_ = json.Unmarshal(update, &u)
		var names []string
		for _, cmd := range u.AvailableCommands {
			names = append(names, cmd.Name)
		}
		c.mu.Lock()
		c.commands = names
		c.mu.Unlock()
	case "session_info_update":
		var u struct {
			Title *string `json:"title"`
		}
		if json.Unmarshal(update, &u) == nil && u.Title != nil && *u.Title != "" {
			c.out.lines(styleDim, "[title] "+*u.Title)
		}
	case "notice":
		var u struct {
			Severity    string `json:"severity"`
			Title       string `json:"title"`
			Description string `json:"description"`
		}
		_ = json.Unmarshal(update, &u)
		c.out.lines(styleDim, strings.TrimSpace("[notice] "+u.Title+" "+u.Description))
	default:
		c.log.Debug("ignoring session update", zap.String("sessionUpdate", kind))
	}
}

func (c *chat) renderTool(kind string, update json.RawMessage) {
	var id struct {
		ToolCallID string `json:"toolCallId"`
		Status     string `json:"status"`
		Content    json.RawMessage
	}
	if json.Unmarshal(update, &id) != nil || id.ToolCallID == "" {
		return
	}
	c.mu.Lock()
	t := c.tools[id.ToolCallID]
	fresh := t == nil
	if fresh {
		t = &toolInfo{}
		c.tools[id.ToolCallID] = t
	}
	before := t.Status
	t.merge(update)
	title, status := t.Title, t.Status
	c.mu.Unlock()
	if status == "" {
		status = "pending"
	}
	if title == "" {
		title = id.ToolCallID
	}
	var ls []string
	head := styleNone
	// A tool_call is an upsert (Claude sends two): print it once, then
	// only status changes.
	if fresh || (id.Status != "" && status != before) {
		ls = append(ls, fmt.Sprintf("[tool] %s (%s)", title, status))
		head = styleTool
	}
	if kind == "tool_call_update" && len(id.Content) > 0 {
		ls = append(ls, contentLines(id.Content, "    ")...)
	}
	if len(ls) > 0 {
		c.out.block(head, styleNone, ls...)
	}
}

// resolved handles _acp-bridge/approval/resolved: a quiet line, and a card
// that was resolved elsewhere closes.
func (c *chat) resolved(params json.RawMessage) {
	var r struct {
		ApprovalID string `json:"approvalId"`
		Decision   string `json:"decision"`
		By         string `json:"by"`
		Rule       string `json:"rule"`
		Specifier  string `json:"specifier"`
		Reason     string `json:"reason"`
	}
	if err := json.Unmarshal(params, &r); err != nil {
		c.log.Warn("bad approval/resolved", zap.Error(err))
		return
	}
	verb := map[string]string{"allow": "allowed", "deny": "denied", "cancelled": "cancelled"}[r.Decision]
	if verb == "" {
		verb = r.Decision
	}
	how := verb
	switch {
	case r.By == "rule" && r.Rule != "":
		how += " by rule " + r.Rule
	case r.By != "":
		how += " by " + r.By
	}
	c.mu.Lock()
	mine := c.mine[r.ApprovalID]
	delete(c.mine, r.ApprovalID)
	var cards []*card
	for cd := range c.pending {
		if r.ApprovalID != "" && cd.meta.ApprovalID == r.ApprovalID {
			cards = append(cards, cd)
		}
	}
	if len(cards) == 0 && r.ApprovalID != "" && !mine {
		// Its request may still be on its way (it runs in another goroutine).
		if len(c.goneOrder) >= maxGone {
			delete(c.gone, c.goneOrder[0])
			c.goneOrder = c.goneOrder[1:]
		}
		c.gone[r.ApprovalID] = how
		c.goneOrder = append(c.goneOrder, r.ApprovalID)
	}
	c.mu.Unlock()
	for _, cd := range cards {
		// Our answer no longer matters; the request still gets one.
		cd.resolve(acp.Cancelled(), how)
	}
	if mine {
		return // the person just answered it here
	}
	line := "· " + how
	if r.Specifier != "" {
		line += ": " + r.Specifier
	}
	if r.Reason != "" && r.By != "user" {
		line += " (" + r.Reason + ")"
	}
	c.out.lines(styleDim, line)
}

// markMine records that the person answered approvalID here.
func (c *chat) markMine(approvalID string) {
	if approvalID == "" {
		return
	}
	c.mu.Lock()
	c.mine[approvalID] = true
	c.mu.Unlock()
}
