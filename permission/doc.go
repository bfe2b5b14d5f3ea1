// Package permission owns one permission request end to end: it reads the
// call, decides, asks a person, applies the answer and records it.
//
// The three entry points are Flow.RequestPermission (a child's
// session/request_permission), Flow.Operation (a child's fs/read_text_file,
// fs/write_text_file or terminal/create, read by the caller into a
// canonical call) and Flow.Unasked (a tool call an agent reports finished
// without having asked); Flow.Check serves a request that is refused on a
// deny and otherwise goes ahead without a card (an elicitation's URL). Each
// goes through the same steps:
//
//   - read: the tool call is merged with the session's tool-call cache
//     (Session.MergeToolCall) and normalised by the agent's profile
//     (Agent.Normalize, Flow.Read); a reader that panics makes the call an
//     engine failure, asked about, never an unknown call that bypass allows.
//   - decide: the Stages run in order behind one interface (Stage), each
//     seeing the verdict so far: PolicyStage (the policy engine: rules of
//     every settings layer, runtime "always" grants, the session's grants,
//     modes, bypass, circuit breakers and protected files: one
//     policy.Decide through an Answerer, which also gives whether a default
//     ask is firm, the card's suggested rules and the session grant, from
//     one reading of the call), then SandboxBoundStage (an fs/* outside the agent's
//     own sandbox becomes a breaker's card, or a deny where nobody is asked).
//     A stage that panics or answers nonsense leaves an engine-error ask (a
//     deny in dontAsk). A decision made while the settings changed
//     (Flow.Generation) is made again; the sandbox's note (what the OS
//     sandbox still blocks) is added last.
//   - ask: an approval is opened in the Broker (uuid, timeout) and shown to
//     the Editor; it resolves exactly once, first answer wins: the editor's
//     answer, Flow.Respond from any surface, the timeout, the child's
//     withdrawal, the session's cancel, the agent's exit, the editor's end.
//     A card resolved other than by the editor's own answer is withdrawn.
//   - apply: the resolution becomes the child's answer (its own allow-once /
//     reject-once option, never its "always"), with grants applied ("Allow
//     for this session" through Session.Grant; "Always allow/deny" and
//     bypass through Grants) and "Deny and stop the turn" cancelling the
//     turn after the reply (acp.AfterReply).
//   - record: one audit record per decision (plus, for an engine failure,
//     one at once) and one _acp-bridge/approval/resolved notice, both before
//     the child's answer is returned, built in one place (record.go).
//
// It depends only on interfaces it is handed — Session (the session's
// facts), Agent (its profile and sandbox), Editor (ask, notify), Grants
// (apply and persist the grants that outlive a session), Auditor — and
// never on package bridge, which keeps sessions, routing, ordering and
// agent lifecycle. It is unit-testable without an editor or an agent.
//
// Goroutines and what they touch: each entry point runs on the caller's
// goroutine. RequestPermissionThen reads, decides and shows the card on a
// deep worker it waits for (shallow, deep.go: a pool of goroutines that
// keep their grown stacks between requests; at most 8 wait when idle; a
// busy pool starts another, so no deep part ever queues behind another),
// then returns: while the card is open no goroutine waits for it
// (waiting.then). The approval's resolution (Broker.Then, run by whoever
// resolves it: the editor's answer, Respond, the timeout's timer, the
// request's ctx ending through context.AfterFunc, a session's cancel, an
// agent's exit) hands the rest to a deep worker without waiting (deepGo),
// which applies and records the answer and calls the caller's answer
// function; the editor's answer (Asked.OnDone, on the editor connection's
// read loop) is decoded on a deep worker the same way. The bridge answers
// the child through acp.Defer / acp.Later, so thousands of open cards hold
// no goroutine and no stack. Operation still waits for its card on the
// caller's goroutine (on a channel then fills), and RequestPermission is the waiting form of
// RequestPermissionThen. The Broker's mutex guards the pending map and each
// approval's Then; each Approval's done channel is closed once, under it;
// a timeout fires on the runtime's timer goroutine and resolves through
// the same path. Stages run on the request's goroutine (or a deep worker)
// and must not block on a person. A Flow's fields are set before the first
// request and only read afterwards.
package permission
