package bridge

import (
	"context"
	"encoding/json"
	"sync"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// childHandler serves one child agent process: the bridge as an ACP client.
type childHandler struct {
	a   *agentRT
	gen int
	// Requests of this process in flight at the bridge (inflight.go):
	// permission requests, and everything else it asks of the editor or
	// the bridge's services.
	asks, others inflight
}

// HandleNotification runs on the child's read loop. session/update is
// forwarded synchronously: that is what keeps order and puts each update on
// the editor's wire before the prompt response that follows it.
func (h *childHandler) HandleNotification(ctx context.Context, method string, params json.RawMessage) {
	a := h.a
	if method != acp.MethodSessionUpdate {
		if acp.IsAgentExtension(method) {
			a.childNotification(ctx, method, params) // passthrough.go
			return
		}
		a.log.Debug("ignored notification from agent", zap.String("method", method))
		return
	}
	a.forwardUpdate(ctx, params)
}

// HandleSessionUpdate is HandleNotification for a session/update the
// stream has already read (acp.SessionUpdateHandler).
func (h *childHandler) HandleSessionUpdate(ctx context.Context, u acp.SessionUpdate) {
	h.a.forward(ctx, scannedUpdate(u))
}

func (h *childHandler) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	// Bounded per agent process and kind (inflight.go): past the bound the
	// request is answered at once, never held.
	slots, kind := &h.others, "requests"
	if method == acp.MethodRequestPermission {
		slots, kind = &h.asks, "permission requests"
	}
	release, refused, ok := slots.acquire(len(params))
	if !ok {
		if refused == 1 {
			h.a.log.Warn("agent has too many requests in flight; refusing more of this kind until some are answered",
				zap.String("method", method), zap.String("kind", kind), zap.Int("max", maxChildInFlight))
		} else {
			h.a.log.Debug("request refused: too many in flight", zap.String("method", method))
		}
		return nil, tooMany(method, kind)
	}
	if method == acp.MethodRequestPermission {
		if reply := acp.Defer(ctx); reply != nil {
			// Answered by whoever resolves the card, after this returns:
			// no goroutine waits for the person (acp.Later). The slot is
			// freed with the answer.
			var once sync.Once
			free := func() { once.Do(release) }
			defer func() {
				if p := recover(); p != nil {
					free()
					panic(p) // answered as an internal error by acp
				}
			}()
			h.a.b.requestPermission(ctx, h.a, params, func(res any, err error) {
				free()
				reply(res, err)
			})
			return acp.Later, nil
		}
	}
	defer release()
	return h.handleRequest(ctx, method, params)
}

func (h *childHandler) handleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	b := h.a.b
	switch method {
	case acp.MethodRequestPermission:
		type answer struct {
			res any
			err error
		}
		ch := make(chan answer, 1)
		b.requestPermission(ctx, h.a, params, func(res any, err error) { ch <- answer{res, err} })
		a := <-ch
		return a.res, a.err
	case acp.MethodFSReadTextFile, acp.MethodFSWriteTextFile, acp.MethodTerminalCreate:
		return b.clientOp(ctx, h.a, method, params)
	case acp.MethodTerminalOutput, acp.MethodTerminalWaitForExit, acp.MethodTerminalKill, acp.MethodTerminalRelease:
		return b.forwardToEditor(ctx, h.a, method, params)
	case acp.MethodElicitationCreate:
		return b.childToEditor(ctx, h.a, method, params)
	default:
		if acp.IsAgentExtension(method) {
			return b.childToEditor(ctx, h.a, method, params)
		}
		return nil, acp.MethodNotFound(method)
	}
}

// requestPermission serves a child's session/request_permission: the
// bridge finds the session it names (bridge sessions, routing), and the
// permission flow decides, asks, applies and records (package permission).
// answer is called exactly once: before this returns, or once the card is
// resolved (permission.Flow.RequestPermissionThen).
func (b *Bridge) requestPermission(ctx context.Context, a *agentRT, params json.RawMessage, answer func(any, error)) {
	var req acp.RequestPermissionRequest
	if err := json.Unmarshal(params, &req); err != nil {
		answer(nil, acp.InvalidParams(acp.MethodRequestPermission, err))
		return
	}
	if err := req.Validate(); err != nil {
		answer(nil, acp.InvalidParams(acp.MethodRequestPermission, err))
		return
	}
	s, known := a.sessionFor(req.SessionID)
	if !known {
		// Perhaps a session whose session/new answer is still on its way.
		a.waitOpened(ctx)
		s, known = a.sessionFor(req.SessionID)
	}
	if s == nil {
		// Nowhere to show it and no session policy to apply: never allow.
		a.log.Warn("permission request for an unknown session, and the agent has no session to show it on: answered cancelled",
			zap.String("childSession", req.SessionID))
		answer(acp.Cancelled(), nil)
		return
	}
	if !known {
		a.log.Info("permission request from an unknown child session (sub-agent?) shown on the agent's active session",
			zap.String("childSession", req.SessionID), zap.String("session", s.id))
	}
	b.flow.RequestPermissionThen(ctx, s, req, answer)
}
