// Package bridge joins one editor connection to many child agent
// connections: it is the ACP agent the editor talks to and the ACP client of
// every configured agent. It owns sessions (the bridge's session ids and
// their mapping to an agent and that agent's session id), routing, ordering,
// cancellation, agent lifecycle and the wiring of settings, policy and
// audit. A permission request (a child's session/request_permission, its
// fs/* or terminal/create, a tool call it ran unasked) is found its session
// here and then handed to package permission (permission.go), which reads,
// decides, asks, applies and records it; the bridge hands that package its
// session and agent facts (session and agentRT implement
// permission.Session and permission.Agent), the editor (ask, notify) and
// the grants that outlive a session (grants.go: applied at once, persisted
// through the editor or the bridge's config file).
//
// Goroutines and what they touch:
//   - The editor connection's read loop (acp.Conn) runs editorHandler's
//     notifications inline (session/cancel, settings/didChange) and its
//     PrepareRequest hook; none of them waits on a response or on a child:
//     writes to children go through acp.QueueWriter and never block.
//   - Each editor request runs in its own goroutine (acp.Conn), e.g. a
//     session/prompt waits there for the child's answer.
//   - Each child connection's read loop runs childHandler's notifications
//     inline: session/update is queued for the editor before the loop reads
//     on, which keeps the child's order and puts every update ahead of the
//     prompt response that follows it (that response is only processed by
//     the same read loop afterwards). Everything for the editor goes through
//     one bounded FIFO (acp.QueueWriter) written by one goroutine; a child's
//     read loop defers its updates there and flushes them itself before each
//     read(2) (flushingReader), writing no more than the pipe takes at once.
//     When the FIFO is full the read loop waits, so a slow editor
//     back-pressures the child, which is what bounds memory.
//   - Each child request (session/request_permission, fs/*, terminal/*) runs
//     in its own goroutine and blocks, by approval id, in permission.Broker
//     until exactly one resolution arrives. At most maxChildInFlight of them
//     per kind and agent process run at once (inflight.go); past that a
//     request is answered at once with CodeTooManyRequests, so the read loop
//     never waits and every request still gets one answer.
//   - A watcher goroutine per agent process, started when the process
//     exits or its stdout ends (agents.Process.OnDone, acp.Conn.OnClose:
//     none waits while the agent runs), turns the exit into a crash
//     report, cancelled approvals and failed prompts.
//
// Locks, always taken in this order and never the other way: agentRT.fwdMu
// (serialises forwarding an agent's updates with registering its new
// sessions, see updates.go), then Bridge.mu (the agent and session maps,
// runtime grants), then agentRT.mu (one agent's process state) or
// session.mu (one session's mode, grants and turns).
package bridge
