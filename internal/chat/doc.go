// Package chat is `acp-bridge chat`: a terminal ACP client. It spawns an ACP
// agent (normally the bridge binary itself, serving on stdio), opens one
// session, and then reads prompts from the person, streams the agent's
// updates as plain text, and shows each session/request_permission as a card
// the person answers with a number (or y/n).
//
// The child's stdin/stdout carry only the protocol; the person's input comes
// from Options.In and everything shown goes to Options.Out (ANSI colours only
// when Out is a terminal). The child's stderr goes to the logger, line by line.
//
// Every string the agent supplies is printed through visible (visible.go):
// escape sequences, C0 and C1 controls, bidi controls and bytes that are not
// UTF-8 are shown (^[, <U+202E>, \xNN), never obeyed, so an agent cannot
// clear the screen, set the title or clipboard, or draw a fake card. The
// only escape sequences Out gets are the printer's own styles.
//
// Files: chat.go (Run, the session's setup, the acp.Handler and the card
// queue), updates.go (rendering session/update and approval/resolved),
// loop.go (Run's goroutine: prompts, cards, turns, and picking an option
// from the person's answer), render.go (the printer), visible.go (escaping
// the agent's strings).
//
// # Goroutines
//
//   - Run's goroutine owns the interaction: the prompt loop, the card being
//     shown, the running turn, and every read of Options.In's lines.
//   - One reader goroutine turns Options.In into lines on a channel. Lines are
//     taken only when someone needs one (the idle prompt or a card), so a
//     scripted input's answers wait for their cards.
//   - The acp.Conn read loop runs HandleNotification: it renders session/update
//     and _acp-bridge/approval/resolved at once, in arrival order, and never
//     waits. It owns nothing but the tool-call cache (under chat.mu).
//   - Each session/request_permission runs in its own goroutine (acp.Conn's
//     rule): it files a card in the queue and waits for the card to be
//     resolved, by the person, by a cancel, or by the bridge saying it was
//     resolved elsewhere. Cards are shown one at a time, oldest first.
//   - printer.mu serialises every write to Options.Out.
//   - The child process has a wait goroutine and a stderr-draining goroutine;
//     both end before Run returns.
package chat
