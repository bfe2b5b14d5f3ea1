package bridge

import (
	"context"
	"encoding/json"
	"strings"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// maxFollowUps bounds the follow-up prompts of one editor turn
// (permissions.continueAfterDeny): a model that is denied again after each
// follow-up does not loop.
const maxFollowUps = 2

// followUpText follows the denial block in a follow-up prompt.
const followUpText = "[acp-bridge] Your last turn ended when those calls were refused (this message is from acp-bridge, not from the person). Go on with the person's request without them, or say what you need."

// wantsFollowUp reports whether a turn that just ended (res) may get a
// follow-up prompt: permissions.continueAfterDeny is on, the agent's reject
// ends its turn (its profile, measured: docs/agents.md) and the child ended
// it the way a reject ends it (end_turn, or cancelled: Codex's abort).
// followUps also wants calls denied in the turn and no cancel.
func (b *Bridge) wantsFollowUp(s *session, res json.RawMessage) bool {
	if !b.snapshot().Config.Permissions.ContinueAfterDeny || !s.agent.RejectAborts() {
		return false
	}
	ro, err := acp.ParseObject(res)
	if err != nil {
		return false
	}
	switch ro.String("stopReason") {
	case acp.StopEndTurn, acp.StopCancelled:
		return true
	}
	return false
}

// followUps sends the child follow-up prompts on the same session while the
// turn that just ended (res) had calls denied in it, at most maxFollowUps,
// and returns the last answer (errors unwrapped: prompt wraps them): the editor's prompt is answered with it, so
// to the editor it is one turn that went on. Each follow-up carries the
// lines noted since the turn's prompt (then cleared: a denial is told
// once, so at most one follow-up per denied call). Runs in the prompt's
// own handler goroutine, never on a read loop; the child's updates reach
// the editor as any turn's do. A cancel (t.cancelled, checked under s.mu
// before each send, the lock session/cancel takes to mark the turn) stops
// it: the child is told to cancel the follow-up in flight by cancelSession.
func (b *Bridge) followUps(ctx context.Context, s *session, conn *acp.Conn, t *turn, res json.RawMessage) (json.RawMessage, error) {
	for n := 0; n < maxFollowUps && b.wantsFollowUp(s, res); n++ {
		s.mu.Lock()
		if t.cancelled || len(s.denials) == 0 {
			s.mu.Unlock()
			break
		}
		lines := s.denials
		s.denials = nil
		// The person sees what the agent's model is told, before the
		// follow-up's own updates (both queued in order, under s.mu).
		b.notifyEditor(acp.MethodSessionUpdate, map[string]any{
			"sessionId": s.id,
			"update":    map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": followUpNotice(s.agent.name, lines)}},
		})
		params := followUpPrompt(s.childID, lines)
		pending, err := conn.Start(ctx, acp.MethodSessionPrompt, params)
		s.mu.Unlock()
		if err != nil {
			return nil, err // prompt wraps it (callError)
		}
		b.log.Info("follow-up prompt after a deny ended the agent's turn (permissions.continueAfterDeny)",
			zap.String("agent", s.agent.name), zap.String("session", s.id), zap.Int("denials", len(lines)), zap.Int("followUp", n+1))
		var next json.RawMessage
		if err := pending.Wait(ctx, &next); err != nil {
			return nil, err
		}
		res = next // prompt cleans the last answer (cleanResult)
	}
	return res, nil
}

// followUpNotice is the chat message that says a follow-up was sent, and
// what it tells the agent.
func followUpNotice(agent string, lines []string) string {
	return "acp-bridge: " + agent + "'s turn ended when these calls were refused; acp-bridge tells it why and lets it go on (permissions.continueAfterDeny):\n- " +
		strings.Join(lines, "\n- ") + "\n"
}

// followUpPrompt is the params of a follow-up session/prompt to the child:
// the denial block (what was refused and why, in the words of
// denialBlock) and followUpText.
func followUpPrompt(childID string, lines []string) json.RawMessage {
	o := acp.Object{}
	o.Set("sessionId", childID)
	text, _ := json.Marshal([]map[string]string{{"type": "text", "text": followUpText}})
	o["prompt"] = text
	withDenials(o, lines)
	return o.Marshal()
}
