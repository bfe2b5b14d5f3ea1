// Package pipesize enlarges the kernel buffer of a pipe.
//
// A Linux pipe holds 64 KiB by default. Between a chatty agent and the
// bridge, and between the bridge and the editor, that is one 64 KiB diff:
// the writer blocks until the reader has taken the whole message, so both
// sides wake up once per message and each read(2) returns one message.
// With a larger buffer the writer runs ahead and the reader takes many
// messages per read(2) (docs/benchmarks.md measures the effect).
//
// Grow is called once per descriptor, by the goroutine that owns it, before
// any I/O. It never changes the descriptor's blocking mode, so an *os.File
// stays registered with Go's poller (deadlines and Close still interrupt a
// blocked Read). On other systems, and on descriptors that are not pipes,
// it does nothing and reports why.
package pipesize
