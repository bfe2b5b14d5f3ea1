// Package approvals is the broker of pending approvals: the permission
// requests the policy leaves to a person.
//
// An approval is opened with a uuid approvalId (Broker.Open) and resolved
// exactly once: by the person's answer, a timeout, the cancel of its session,
// its agent's exit, the editor's disconnect or shutdown. The first resolution
// wins; a later one gets ErrAlreadyResolved naming who answered first.
//
// Goroutines: the Broker is safe for concurrent use. Its mutex guards the
// pending map; each Approval's done channel is closed once, under it, and
// its timer fires on the runtime's timer goroutine, which resolves through
// the same path. Waiters (Approval.Wait) block on done or their context.
//
// The package knows nothing of JSON-RPC, settings or agents; it imports
// policy only for the Source of a resolution.
package approvals
