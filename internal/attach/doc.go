// Package attach lets a bridge outlive the editor that started it, for a
// grace period, and be re-attached by the next one (a reloaded VS Code
// window) over a local Unix socket. docs/architecture.md, "Re-attaching"
// has the design; docs/extension-surface.md the methods.
//
// A Front sits on the bridge's stdio (Bridge.Serve runs on a pair of pipes)
// and relays JSON-RPC lines between the bridge and at most one editor:
//
//   - first the editor that started the bridge (stdio). Its initialize answer
//     gets _meta["acp-bridge"].attach = {socket, token, pid, graceSeconds}.
//   - when it goes away (stdin EOF) the bridge is detached: sessions, turns
//     and approvals (with their timeouts) go on; notifications are kept
//     (bounded by Options.BufferBytes: past it session/update and whatever
//     else an agent originated is dropped and counted per session; only the
//     bridge's own _acp-bridge/* notices are kept up to twice the bound); the
//     bridge's requests (session/request_permission, fs/*,
//     settings/persist) stay unanswered, at most Options.PendingRequests
//     and PendingBytes of them (attached or not; past that the bridge gets
//     CodeTooManyPending, except for a permission request, always kept); a
//     session/prompt answer with no requester becomes an
//     _acp-bridge/turn/ended notification.
//   - an editor connects to the socket (0600, in a 0700 directory, peer uid
//     checked with SO_PEERCRED), sends _acp-bridge/attach {token}; it gets
//     the live sessions and counts, then the kept notifications, then every
//     unanswered request of the bridge again with the same id: its answer
//     resolves the original. A second editor while one is attached is
//     refused (CodeAlreadyAttached), a wrong token too (CodeBadToken).
//   - after Options.Grace with no editor the bridge's input is closed: it
//     shuts down as "editor-gone" (every approval resolved and audited).
//
// Requests of the editors are renumbered on the way to the bridge (ids of
// two editors never collide), and an editor's $/cancel_request is renamed
// to the front's id (one naming no request of that editor's is dropped);
// the bridge's own ids go to the editor as they are. The front holds one mutex; what goes to the editor is queued under
// it, so the order of what the bridge said is the order the editor hears.
//
// One engine: the front reads and writes only through package acp. Lines
// of the bridge and of the editors are read by acp.LineReader (the
// framing, bound and validation of acp.NewStream: an editor's bad or
// over-long line gets the answer the bridge's own stdio gives it, with
// Options.MaxLineBytes as the bound); lines are built by acp.Message.Line
// and acp.ErrorLine and written through acp.QueueWriter (one queue to the
// bridge, one per editor, bounded: a slow reader slows the writer). The
// error codes are acp's (declared in wire/errors.go).
//
// Files: front.go (the Front, its options and lifetime), bridge_side.go
// (the bridge's messages: routing, ids restored, requests kept and
// bounded), editor_side.go (an editor's messages: renumbering, answers),
// detached.go (what is kept while no editor is attached), socket.go (the
// socket: the handshake, the attach answer, the front's own calls),
// sock.go and peer_*.go (the socket's directory and peer checks).
package attach
