// Package wire declares the bridge's own extension surface toward the editor
// once: every _acp-bridge/* method (both directions), every payload the
// bridge puts in params, results and _meta["acp-bridge"], and the JSON-RPC
// error codes it answers with. It depends on nothing but the standard
// library.
//
// The Go side uses these names and types directly. `go generate ./wire`
// (wire/gen) writes the TypeScript side, vscode-extension/src/wire.gen.ts,
// and the method and error tables of docs/extension-surface.md from them;
// wire/gen's tests fail when either is stale, and when a field the bridge
// sends is neither read by the extension nor tagged `wire:"ignored=<why>"`.
package wire

//go:generate go run ./gen
