package chat

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// ANSI styles, used only when Out is a terminal.
const (
	styleNone   = ""
	styleDim    = "\x1b[2m"
	styleBold   = "\x1b[1m"
	styleTool   = "\x1b[36m"
	styleCard   = "\x1b[1;33m"
	styleError  = "\x1b[31m"
	styleOK     = "\x1b[32m"
	styleReset  = "\x1b[0m"
	thoughtHead = "(thinking) "
)

// isTerminal reports whether v is a character device (a terminal).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// printer serialises writes to Out and keeps track of the cursor, so a line
// never starts in the middle of streamed text.
type printer struct {
	mu     sync.Mutex
	w      io.Writer
	color  bool
	col0   bool   // the cursor is at the start of a line
	stream string // "message" or "thought" while a chunk stream is open
}

func newPrinter(w io.Writer, color bool) *printer {
	return &printer{w: w, color: color, col0: true}
}

func (p *printer) style(style, s string) string {
	if !p.color || style == styleNone || s == "" {
		return s
	}
	return style + s + styleReset
}

// write must be called with mu held.
func (p *printer) write(s string) {
	if s == "" {
		return
	}
	_, _ = io.WriteString(p.w, s) // nowhere to report a broken terminal
	p.col0 = strings.HasSuffix(s, "\n")
}

func (p *printer) newlineLocked() {
	if !p.col0 {
		p.write("\n")
	}
	p.stream = ""
}

// chunk appends streamed text of kind "message" or "thought".
func (p *printer) chunk(kind, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stream != kind {
		p.newlineLocked()
		p.stream = kind
		if kind == "thought" {
			p.write(p.style(styleDim, thoughtHead))
		}
	}
	text = visible(text)
	if kind == "thought" {
		p.write(p.style(styleDim, text))
		return
	}
	p.write(text)
}

// lines prints whole lines, starting on a fresh one. Each line is made
// visible (visible) before it is styled: the only escape sequences that
// reach the terminal are the printer's own.
func (p *printer) lines(style string, ls ...string) {
	p.block(style, style, ls...)
}

// block prints whole lines like lines, the first in its own style (a card's
// or a tool call's head).
func (p *printer) block(firstStyle, style string, ls ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.newlineLocked()
	for i, l := range ls {
		st := style
		if i == 0 {
			st = firstStyle
		}
		p.write(p.style(st, visible(l)) + "\n")
	}
}

// ask prints a question (the prompt "> ", a card's "choose") on a fresh line
// and leaves the cursor after it.
func (p *printer) ask(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.newlineLocked()
	p.write(p.style(styleBold, visible(s)))
}

// answered records the person's answer: echoed when the input is not a
// terminal (a terminal echoes it itself), so transcripts read naturally.
func (p *printer) answered(line string, echo bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if echo {
		p.write(line + "\n")
	} else {
		p.col0 = true
	}
}

// toolInfo is what the chat knows of one tool call, merged over its updates.
type toolInfo struct {
	Title     string
	Kind      string
	Status    string
	RawInput  json.RawMessage
	Content   json.RawMessage
	Locations json.RawMessage
	Meta      json.RawMessage
}

// merge overlays the fields present in raw (a ToolCall or ToolCallUpdate).
func (t *toolInfo) merge(raw json.RawMessage) {
	var u struct {
		Title     *string         `json:"title"`
		Kind      *string         `json:"kind"`
		Status    *string         `json:"status"`
		RawInput  json.RawMessage `json:"rawInput"`
		Content   json.RawMessage `json:"content"`
		Locations json.RawMessage `json:"locations"`
		Meta      json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(raw, &u) != nil {
		return
	}
	if u.Title != nil {
		t.Title = *u.Title
	}
	if u.Kind != nil {
		t.Kind = *u.Kind
	}
	if u.Status != nil {
		t.Status = *u.Status
	}
	set := func(dst *json.RawMessage, v json.RawMessage) {
		if len(v) > 0 && string(v) != "null" {
			*dst = v
		}
	}
	set(&t.RawInput, u.RawInput)
	set(&t.Content, u.Content)
	set(&t.Locations, u.Locations)
	set(&t.Meta, u.Meta)
}

// toolName is the agent's own name for the tool (Claude's _meta.claudeCode.toolName).
func (t *toolInfo) toolName() string {
	var m struct {
		ClaudeCode struct {
			ToolName string `json:"toolName"`
		} `json:"claudeCode"`
	}
	_ = json.Unmarshal(t.Meta, &m)
	return m.ClaudeCode.ToolName
}

// contentLines renders ToolCallContent: text, diffs, terminals.
func contentLines(raw json.RawMessage, indent string) []string {
	var items []struct {
		Type    string `json:"type"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
			URI  string `json:"uri"`
		} `json:"content"`
		Path       string  `json:"path"`
		OldText    *string `json:"oldText"`
		NewText    string  `json:"newText"`
		TerminalID string  `json:"terminalId"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		switch it.Type {
		case "content":
			switch it.Content.Type {
			case "text":
				for _, l := range strings.Split(strings.TrimRight(it.Content.Text, "\n"), "\n") {
					out = append(out, indent+l)
				}
			case "resource_link":
				out = append(out, indent+"["+it.Content.URI+"]")
			default:
				out = append(out, indent+"["+it.Content.Type+"]")
			}
		case "diff":
			out = append(out, diffLines(it.Path, it.OldText, it.NewText, indent)...)
		case "terminal":
			out = append(out, indent+"[terminal "+it.TerminalID+"]")
		}
	}
	return out
}

func diffLines(path string, oldText *string, newText, indent string) []string {
	from := "a/" + strings.TrimPrefix(path, "/")
	if oldText == nil {
		from = "/dev/null"
	}
	out := []string{indent + "--- " + from, indent + "+++ b/" + strings.TrimPrefix(path, "/")}
	if oldText != nil && *oldText != "" {
		for _, l := range strings.Split(strings.TrimRight(*oldText, "\n"), "\n") {
			out = append(out, indent+"-"+l)
		}
	}
	if newText != "" {
		for _, l := range strings.Split(strings.TrimRight(newText, "\n"), "\n") {
			out = append(out, indent+"+"+l)
		}
	}
	return out
}

// planLines renders a plan update's entries.
func planLines(raw json.RawMessage) []string {
	var u struct {
		Entries []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"entries"`
	}
	if json.Unmarshal(raw, &u) != nil {
		return nil
	}
	out := []string{"[plan]"}
	for _, e := range u.Entries {
		mark := "[ ]"
		switch e.Status {
		case "in_progress":
			mark = "[~]"
		case "completed":
			mark = "[x]"
		}
		out = append(out, "  "+mark+" "+e.Content)
	}
	return out
}

// inputLines renders the interesting parts of a tool's rawInput: a command,
// its description, a file.
func inputLines(t *toolInfo) []string {
	var in map[string]json.RawMessage
	if json.Unmarshal(t.RawInput, &in) != nil {
		return nil
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(in[k], &s)
		return s
	}
	var out []string
	if raw, ok := in["command"]; ok {
		cmd := str("command")
		if cmd == "" {
			var argv []string
			if json.Unmarshal(raw, &argv) == nil {
				cmd = strings.Join(argv, " ")
			}
		}
		if cmd != "" {
			out = append(out, "  $ "+cmd)
		}
	}
	if d := str("description"); d != "" {
		out = append(out, "  # "+d)
	}
	hasDiff := strings.Contains(string(t.Content), `"diff"`)
	known := len(out) > 0
	for _, k := range []string{"file_path", "path"} {
		if f := str(k); f != "" {
			known = true
			if !hasDiff { // the diff names it
				out = append(out, "  file: "+f)
			}
			break
		}
	}
	if u := str("url"); u != "" {
		out = append(out, "  url: "+u)
		known = true
	}
	if !known && len(out) == 0 && len(t.RawInput) > 0 && string(t.RawInput) != "{}" {
		s := string(t.RawInput)
		if len(s) > 200 {
			s = s[:199] + "…"
		}
		out = append(out, "  input: "+s)
	}
	return out
}

// bridgeInfo is the _meta["acp-bridge"] of a permission request the chat shows.
type bridgeInfo struct {
	ApprovalID  string   `json:"approvalId"`
	Agent       string   `json:"agent"`
	Tool        string   `json:"tool"`
	Specifier   string   `json:"specifier"`
	MatchedRule string   `json:"matchedRule"`
	Source      string   `json:"source"`
	Reason      string   `json:"reason"`
	Mode        string   `json:"mode"`
	ExpiresAt   string   `json:"expiresAt"`
	Suggested   []string `json:"suggestedRules"`
}

// cardLines are a card's lines, plain: print them with block(styleCard, styleNone, ...).
func (p *printer) cardLines(cd *card) []string {
	t := cd.tool
	title := t.Title
	if title == "" {
		title = cd.toolCallID
	}
	out := []string{"== Permission: " + title + " =="} // styled by the caller (printer.block)
	name := t.toolName()
	if name == "" {
		name = cd.meta.Tool
	}
	switch {
	case name != "" && t.Kind != "":
		out = append(out, "  tool: "+name+" ("+t.Kind+")")
	case name != "":
		out = append(out, "  tool: "+name)
	case t.Kind != "":
		out = append(out, "  kind: "+t.Kind)
	}
	out = append(out, inputLines(t)...)
	out = append(out, contentLines(t.Content, "  ")...)
	m := cd.meta
	for _, kv := range [][2]string{
		{"agent", m.Agent}, {"specifier", m.Specifier}, {"why", m.Reason},
		{"rule", m.MatchedRule}, {"mode", m.Mode}, {"expires", m.ExpiresAt},
	} {
		if kv[1] != "" {
			out = append(out, "  "+kv[0]+": "+kv[1])
		}
	}
	if len(m.Suggested) > 0 {
		out = append(out, "  suggested rule: "+strings.Join(m.Suggested, ", "))
	}
	for i, o := range cd.req.Options {
		out = append(out, fmt.Sprintf("  [%d] %s", i+1, o.Name))
	}
	return out
}
