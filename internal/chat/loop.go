package chat

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
)

// autoOption picks the option AutoAnswer asks for; ok false means "cancelled".
func autoOption(mode string, opts []acp.PermissionOption) (acp.PermissionOption, bool) {
	byKind := func(kinds ...string) (acp.PermissionOption, bool) {
		for _, k := range kinds {
			for _, o := range opts {
				if o.Kind == k {
					return o, true
				}
			}
		}
		return acp.PermissionOption{}, false
	}
	switch mode {
	case AutoFirst:
		if len(opts) > 0 {
			return opts[0], true
		}
	case AutoAllow:
		return byKind(acp.KindAllowOnce, acp.KindAllowAlways, acp.KindRejectOnce, acp.KindRejectAlways)
	case AutoDeny:
		return byKind(acp.KindRejectOnce, acp.KindRejectAlways)
	}
	return acp.PermissionOption{}, false
}

// choose maps what the person typed at a card to an option: a number, y/n,
// or an optionId.
func choose(s string, opts []acp.PermissionOption) (acp.PermissionOption, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 1 && n <= len(opts) {
			return opts[n-1], true
		}
		return acp.PermissionOption{}, false
	}
	var kinds []string
	switch strings.ToLower(s) {
	case "y", "yes", "a", "allow":
		kinds = []string{acp.KindAllowOnce, acp.KindAllowAlways}
	case "n", "no", "d", "deny", "r", "reject":
		kinds = []string{acp.KindRejectOnce, acp.KindRejectAlways}
	}
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return o, true
			}
		}
	}
	for _, o := range opts {
		if s != "" && o.OptionID == s {
			return o, true
		}
	}
	return acp.PermissionOption{}, false
}

// loop is Run's goroutine: prompts, cards, turns.
type loop struct {
	c          *chat
	child      *child
	lines      <-chan string
	linesOpen  bool
	interrupts <-chan os.Signal

	current *card      // the card on screen, if any
	turn    *turnState // the running turn, if any
	quit    bool       // leave once the turn ends
}

type turnState struct {
	done       chan turnResult
	cancelSent bool
	giveUp     <-chan time.Time // set when waiting for a cancelled turn should end
}

type turnResult struct {
	stop string
	err  error
}

const helpText = `Commands:
  /mode NAME   switch the session's mode (/mode alone lists them)
  /quit        leave (also end of input, or Ctrl-C when no turn runs)
  /help        this text
Ctrl-C during a turn cancels it; a second Ctrl-C leaves.
At a permission card, type the option's number, y (allow) or n (deny).`

func (l *loop) run(ctx context.Context) error {
	c := l.c
	l.idlePrompt()
	for {
		var lineCh <-chan string
		if l.linesOpen && (l.current != nil || l.turn == nil) {
			lineCh = l.lines
		}
		var wake <-chan struct{}
		var shown <-chan struct{}
		if l.current == nil {
			wake = c.wake
		} else {
			shown = l.current.done
		}
		var turnDone <-chan turnResult
		var giveUp <-chan time.Time
		if l.turn != nil {
			turnDone, giveUp = l.turn.done, l.turn.giveUp
		}

		select {
		case <-ctx.Done():
			l.cancelTurn("chat ended")
			return ctx.Err()
		case <-c.conn.Done():
			c.out.lines(styleError, "the agent closed the connection")
			return l.child.gone()
		case line, ok := <-lineCh:
			if !ok {
				l.linesOpen = false
				if l.endOfInput() {
					return nil
				}
				continue
			}
			if l.current != nil {
				if l.answer(line) {
					return nil
				}
				continue
			}
			if l.command(ctx, line) {
				return nil
			}
		case <-wake:
			l.nextCard()
		case <-shown:
			cd := l.current
			l.current = nil
			c.out.lines(styleDim, "(card closed: "+cd.how+")")
			l.nextCard()
			l.idlePrompt()
		case r := <-turnDone:
			l.endTurn(r)
			if l.quit {
				return nil
			}
			l.nextCard()
			l.idlePrompt()
		case <-giveUp:
			c.out.lines(styleError, "the agent did not end the cancelled turn; leaving")
			return nil
		case <-l.interrupts:
			if l.turn != nil && !l.turn.cancelSent {
				l.cancelTurn("interrupted")
				continue
			}
			c.out.lines(styleDim, "bye")
			return nil
		}
	}
}

// idlePrompt shows "> " when the chat waits for a message.
func (l *loop) idlePrompt() {
	if l.turn == nil && l.current == nil && l.linesOpen {
		l.c.out.ask("> ")
	}
}

// endOfInput handles EOF on In; true means leave now.
func (l *loop) endOfInput() bool {
	c := l.c
	if l.current != nil {
		l.current.resolve(acp.Cancelled(), "input closed")
		l.current = nil
		c.out.answered("", c.echo)
	}
	if l.turn == nil {
		return true
	}
	l.quit = true
	l.cancelTurn("input closed")
	l.turn.giveUp = time.After(eofGrace)
	return false
}

// cancelTurn sends session/cancel and answers every pending card cancelled.
func (l *loop) cancelTurn(why string) {
	if l.turn == nil || l.turn.cancelSent {
		return
	}
	c := l.c
	l.turn.cancelSent = true
	l.current = nil
	c.cancelCards("turn cancelled")
	err := c.conn.Notify(context.Background(), acp.MethodSessionCancel, acp.SessionIDParams{SessionID: c.sessionID})
	if err != nil {
		c.log.Warn("send session/cancel", zap.Error(err))
	}
	c.out.lines(styleDim, "(cancelling: "+why+")")
}

func (l *loop) endTurn(r turnResult) {
	c := l.c
	cancelled := l.turn.cancelSent
	l.turn = nil
	switch {
	case r.err != nil:
		c.out.lines(styleError, "[error] "+r.err.Error())
	case r.stop == acp.StopEndTurn && cancelled:
		// Some agents say end_turn after a cancel (ACP pitfall); we asked.
		c.out.lines(styleDim, "[stop: cancelled (the agent said end_turn)]")
	default:
		c.out.lines(styleDim, "[stop: "+r.stop+"]")
	}
	// Anything still asking belonged to the finished turn.
	if cancelled {
		c.cancelCards("turn cancelled")
	}
}

// nextCard shows the oldest waiting card, or answers it when no person is
// asked (auto answers, a cancelled turn).
func (l *loop) nextCard() {
	c := l.c
	for l.current == nil {
		cd := c.popCard()
		if cd == nil {
			return
		}
		if l.turn != nil && l.turn.cancelSent {
			cd.resolve(acp.Cancelled(), "turn cancelled")
			continue
		}
		c.out.block(styleCard, styleNone, c.out.cardLines(cd)...)
		if c.opts.AutoAnswer != AutoNone {
			o, ok := autoOption(c.opts.AutoAnswer, cd.req.Options)
			if !ok {
				c.out.lines(styleDim, "auto: cancelled (no suitable option)")
				cd.resolve(acp.Cancelled(), "no option to auto-answer")
				continue
			}
			c.markMine(cd.meta.ApprovalID)
			c.out.lines(styleDim, "auto: "+o.Name)
			if !cd.resolve(acp.Selected(o.OptionID), "") {
				c.out.lines(styleDim, "(too late: it was already "+cd.how+")")
			}
			continue
		}
		l.current = cd
		c.out.ask(fmt.Sprintf("choose 1-%d (y/n): ", len(cd.req.Options)))
	}
}

// answer applies a line typed at the current card; true means leave.
func (l *loop) answer(line string) bool {
	c := l.c
	cd := l.current
	c.out.answered(line, c.echo)
	switch strings.TrimSpace(line) {
	case "/quit", "/exit":
		return true
	}
	o, ok := choose(line, cd.req.Options)
	if !ok {
		c.out.ask(fmt.Sprintf("choose 1-%d (y/n): ", len(cd.req.Options)))
		return false
	}
	l.current = nil
	c.markMine(cd.meta.ApprovalID)
	// Print first: once answered, the agent's next updates race this line.
	c.out.lines(styleOK, "-> "+o.Name)
	if !cd.resolve(acp.Selected(o.OptionID), "") {
		c.out.lines(styleDim, "(too late: it was already "+cd.how+")")
	}
	l.nextCard()
	l.idlePrompt()
	return false
}

// command handles a line typed at the idle prompt; true means leave.
func (l *loop) command(ctx context.Context, line string) bool {
	c := l.c
	c.out.answered(line, c.echo)
	text := strings.TrimSpace(line)
	switch {
	case text == "":
	case text == "/quit" || text == "/exit":
		return true
	case text == "/help":
		c.out.lines(styleNone, strings.Split(helpText, "\n")...)
	case text == "/mode" || strings.HasPrefix(text, "/mode "):
		l.setMode(ctx, strings.TrimSpace(strings.TrimPrefix(text, "/mode")))
	case strings.HasPrefix(text, "//"):
		l.prompt(ctx, text[1:])
		return false
	case strings.HasPrefix(text, "/"):
		name := strings.Fields(text[1:])[0]
		c.mu.Lock()
		agentCmd := slices.Contains(c.commands, name)
		c.mu.Unlock()
		if agentCmd {
			l.prompt(ctx, text)
			return false
		}
		c.out.lines(styleError, "unknown command /"+name+" (/help lists them; // sends a line starting with /)")
	default:
		l.prompt(ctx, text)
		return false
	}
	l.idlePrompt()
	return false
}

func (l *loop) setMode(ctx context.Context, mode string) {
	c := l.c
	c.mu.Lock()
	current := c.mode
	c.mu.Unlock()
	if mode == "" {
		c.out.lines(styleNone, fmt.Sprintf("mode: %s (available: %s)", current, strings.Join(c.modeIDs, ", ")))
		return
	}
	mctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	err := c.conn.Call(mctx, acp.MethodSessionSetMode, map[string]string{"sessionId": c.sessionID, "modeId": mode}, nil)
	if err != nil {
		c.out.lines(styleError, "[error] "+err.Error())
		return
	}
	c.mu.Lock()
	updated := c.mode == mode
	c.mode = mode
	c.mu.Unlock()
	if !updated { // the agent sent no current_mode_update
		c.out.lines(styleDim, "[mode] "+mode)
	}
}

// prompt starts a turn.
func (l *loop) prompt(ctx context.Context, text string) {
	c := l.c
	p, err := c.conn.Start(ctx, acp.MethodSessionPrompt, map[string]any{
		"sessionId": c.sessionID,
		"prompt":    []any{map[string]string{"type": "text", "text": text}},
	})
	if err != nil {
		c.out.lines(styleError, "[error] "+err.Error())
		l.idlePrompt()
		return
	}
	t := &turnState{done: make(chan turnResult, 1)}
	l.turn = t
	go func() {
		var r acp.PromptResponse
		err := p.Wait(ctx, &r)
		t.done <- turnResult{stop: r.StopReason, err: err}
	}()
}
