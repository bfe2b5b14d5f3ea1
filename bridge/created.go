package bridge

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/sandbox"
)

// createdWatch holds the protected places (sandbox.MissingProtected, from
// policy.Places) that did not exist in a session's directories when it
// started. The OS sandbox keeps a missing place that runs code from being
// created, except a repository where there was none (git init is ordinary
// work, docs/sandbox.md "Places, not files"): a new .git/config and hooks;
// an agent without the sandbox is not held at all. After each turn the bridge
// checks them and tells the person, in the chat and the log, which appeared.
// Safe for concurrent turns.
type createdWatch struct {
	mu      sync.Mutex
	missing []string
}

func newCreatedWatch(roots ...string) *createdWatch {
	return &createdWatch{missing: sandbox.MissingProtected(roots...)}
}

// appeared returns the watched paths that exist now and stops watching them.
func (w *createdWatch) appeared() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var now, still []string
	for _, p := range w.missing {
		if _, err := os.Lstat(p); err == nil {
			now = append(now, p)
		} else {
			still = append(still, p)
		}
	}
	w.missing = still
	return now
}

// noticeCreated runs after a turn: protected paths that appeared during it
// are logged and put into the session's chat (before the turn's answer),
// marked _meta["acp-bridge"].notice = "protectedCreated".
func (b *Bridge) noticeCreated(s *session) {
	paths := s.created.appeared()
	if len(paths) == 0 {
		return
	}
	b.log.Warn("protected files appeared during a turn", zap.String("agent", s.agent.name), zap.String("session", s.id), zap.Strings("paths", paths))
	var t strings.Builder
	fmt.Fprintf(&t, "acp-bridge: these files did not exist when this session started and exist after this turn of %s. They can make another program (VS Code, git, an agent) run code outside the sandbox, which lets a new repository be created where there was none and holds nothing for an agent running without it. Review them:\n", s.agent.name)
	for _, p := range paths {
		fmt.Fprintf(&t, "- %s\n", p)
	}
	b.notifyEditor(acp.MethodSessionUpdate, map[string]any{
		"sessionId": s.id,
		"update": map[string]any{
			"sessionUpdate": "agent_message_chunk",
			"content":       map[string]any{"type": "text", "text": t.String()},
			"_meta":         map[string]any{acp.MetaKey: map[string]any{"notice": "protectedCreated", "paths": paths}},
		},
	})
}
