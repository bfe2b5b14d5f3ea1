// Package acp is the Agent Client Protocol (v1) wire layer of acp-bridge:
// method names (including the bridge's own _acp-bridge/* extensions), the
// few message types the bridge interprets, JSON-RPC error codes and the one
// place errors are mapped to them, the NDJSON object stream, and a handler
// adapter over github.com/sourcegraph/jsonrpc2.
//
// It knows nothing of sessions, policy, processes or configuration.
//
// Concurrency: sourcegraph/jsonrpc2 calls a Handler inside the connection's
// read loop. The adapter returned by NewHandler keeps that loop moving:
// notifications run inline, in arrival order, and must never wait on a
// response; requests each run in their own goroutine with a context that is
// cancelled by $/cancel_request or by the connection closing. Stream reads
// happen only on the jsonrpc2 read goroutine; writes are serialised by
// jsonrpc2's send mutex.
//
// Everything the bridge does not interpret travels as json.RawMessage, so
// unknown fields, unknown sessionUpdate variants and _meta survive intact.
package acp
