package bridge

import (
	"sort"

	"github.com/acp-bridge/acp-bridge/wire"
)

// MethodSessionsLive lists the bridge's live sessions (request, editor ->
// bridge). An editor that re-attaches to a bridge that outlived it
// (internal/attach) learns from it which of its chats are still alive.
const MethodSessionsLive = wire.SessionsLive

// liveSession is one entry of _acp-bridge/sessions/live.
type liveSession = wire.LiveSession

// liveSessions is the result of _acp-bridge/sessions/live: every session
// the bridge holds, with whether a turn runs and how many approvals wait.
func (b *Bridge) liveSessions() map[string]any {
	b.mu.Lock()
	ss := make([]*session, 0, len(b.sessions))
	for _, s := range b.sessions {
		ss = append(ss, s)
	}
	b.mu.Unlock()
	pending := map[string]int{}
	for _, a := range b.broker.List() {
		pending[a.SessionID]++
	}
	out := make([]liveSession, 0, len(ss))
	for _, s := range ss {
		s.mu.Lock()
		running := len(s.turns) > 0
		s.mu.Unlock()
		out = append(out, liveSession{
			SessionID: s.id, ChildSessionID: s.childID, Agent: s.agent.name, Mode: string(b.effectiveMode(s)),
			Cwd: s.cwd, TurnRunning: running, PendingApprovals: pending[s.id],
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SessionID < out[j].SessionID })
	return map[string]any{"sessions": out}
}
