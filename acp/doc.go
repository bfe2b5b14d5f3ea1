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
// cancelled by $/cancel_request or by the connection closing; a handler
// that takes its request's Reply (Defer) and returns Later answers after it
// returned, from any goroutine, with no goroutine left waiting (later.go;
// the request stays in flight until then). Our own calls' answers can run
// a function once delivered (Pending.OnDone, on the read loop: it must not
// block). Stream reads
// happen only on the jsonrpc2 read goroutine. Writes are whole lines, one
// atomic QueueWriter.WriteParts (or one Write under the stream's write mutex).
// A QueueWriter's bytes are written by its own goroutine, or by a caller's
// Flush (the read loop that deferred them, Conn.NotifyPartsDeferred); a
// flag under its mutex keeps one write in progress at a time.
//
// Plain messages skip jsonrpc2's JSON work: the reader (lineReader.read,
// fuzzed against jsonrpc2's decoding) reads each line in one pass
// (jsonscan.Scan: validity and the members of the message, its params and a
// session/update's update), hands notifications to the handler inline (a
// session/update, already read, to a SessionUpdateHandler when the handler
// is one) and requests to the dispatcher, on the read loop, in wire order; responses to
// our own calls (Conn.Start) are matched by id in Conn.calls (under Conn.mu)
// and their Pending's Done channel is closed from the read loop. Our
// requests, replies and notifications are written with one marshal. What
// the reader declines (batches, odd ids, case-variant member names, invalid
// UTF-8) still goes through jsonrpc2, as does any response to an id we do
// not know (jsonrpc2 reports it).
//
// A line the stream cannot deliver is reported (StreamOptions.OnDrop); an
// over-long request whose head shows its id is answered with -32600 and an
// over-long answer to our call fails it (readHead), and with
// ReplyToBadLines non-JSON gets -32700 and non-messages -32600.
//
// Everything the bridge does not interpret travels as json.RawMessage, so
// unknown fields, unknown sessionUpdate variants and _meta survive intact,
// except _meta["acp-bridge"] where the bridge strips a child's copy
// (StripMetaKey; a session/update whose one read found no member named
// _meta in any spelling, SessionUpdate.NoMeta, has none to strip).
//
// A relay that passes messages on rather than handling them (the re-attach
// front, internal/attach) uses the same engine without a Conn
// (lines.go): LineReader reads with NewStream's framing, bound, validation
// and answers to bad lines, and reads what the fast reader declines as
// jsonrpc2 would; Message.Line and ErrorLine write in the engine's member
// order.
package acp
