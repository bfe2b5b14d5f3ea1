// Package acp is the Agent Client Protocol (v1) wire layer of acp-bridge:
// method names (including the bridge's own _acp-bridge/* extensions), the
// few message types the bridge interprets, JSON-RPC error codes and the one
// place errors are mapped to them, the NDJSON object stream, and a handler
// adapter over github.com/sourcegraph/jsonrpc2.
//
// It knows nothing of sessions, policy, processes or configuration.
//
// Concurrency: sourcegraph/jsonrpc2 calls a Handler inside the connection's
// read loop. The dispatcher NewConn installs keeps that loop moving:
// notifications run inline, in arrival order, and must never wait on a
// response; requests each run in their own goroutine with a context that is
// cancelled by $/cancel_request or by the connection closing. Stream reads
// happen only on the jsonrpc2 read goroutine. Writes are whole lines under the
// stream's write mutex; plain notifications skip jsonrpc2's encoding (and are
// read without its decoding, still in order on the read loop).
//
// Everything the bridge does not interpret travels as json.RawMessage, so
// unknown fields, unknown sessionUpdate variants and _meta survive intact.
package acp
