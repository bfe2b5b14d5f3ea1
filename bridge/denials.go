package bridge

import (
	"encoding/json"
	"strings"

	"github.com/acp-bridge/acp-bridge/acp"
)

// maxDenials bounds the lines kept for one session's next prompt: an agent
// that is denied in a loop does not grow the next prompt without end.
const maxDenials = 8

// NoteDenial keeps a line for the agent's model (permission.Session).
func (s *session) NoteDenial(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.denials) == maxDenials {
		s.denials = append(s.denials[:0], s.denials[1:]...)
		s.denials[0] = "(earlier denials left out)"
	}
	s.denials = append(s.denials, line)
}

// withDenials puts a text block naming the calls denied since the last
// prompt (and why) before the person's prompt: most agents end their turn
// on a reject and their model never learns why (docs/agents.md). The
// person's own blocks follow unchanged.
func withDenials(o acp.Object, lines []string) {
	if len(lines) == 0 {
		return
	}
	var prompt []json.RawMessage
	if err := json.Unmarshal(o["prompt"], &prompt); err != nil {
		return // the agent answers a malformed prompt itself
	}
	text := "[acp-bridge] Since your last turn, these tool calls were denied:\n- " + strings.Join(lines, "\n- ") +
		"\nDo not retry them as they were; find another way or ask the person."
	block, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	out := append([]json.RawMessage{block}, prompt...)
	raw, err := json.Marshal(out)
	if err != nil {
		return
	}
	o["prompt"] = raw
}
