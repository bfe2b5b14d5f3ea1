// Package sandbox computes the OS sandbox an agent process runs in from the
// effective policy, and builds the command line that starts a process in
// it. It is the third layer of enforcement (docs/sandbox.md): what no
// reading of a permission request can see (an interpreter's code, a tool an
// agent never asks about) still cannot read a Read-denied path, write
// outside the workspace, temp and the agent's state directories, or change
// a protected file.
//
//   - spec.go: Compute turns the policy (its Read and Edit deny rules,
//     through policy.DenyRoots and policy.Evaluate), the workspace roots,
//     the agent's state directories and the protected policy files into a
//     Spec: paths to mask, trees that are writable, paths kept read-only
//     inside them, the network setting.
//   - bwrap.go: on Linux, the Spec becomes a bubblewrap (bwrap) command
//     line: a read-only view of /, writable binds, read-only re-binds,
//     unreadable masks, new PID (and optionally network) namespaces, every
//     capability dropped.
//   - seatbelt.go: on macOS, the Spec becomes a sandbox-exec (Seatbelt)
//     profile. Built and unit-tested here; not run.
//   - check.go: which mechanism this machine offers (Probe); Prepare and
//     its Cleanup.
//   - sweep.go, sweep_linux.go: the private directory's life: its owner
//     lock and placeholders manifest, the placeholders live sandboxes
//     share, and Sweep, which removes what dead bridges left.
//   - home.go: private state homes (MakeHome): an agent's own state
//     directory made for one process, its copies (the one copy mechanism,
//     writeCopy, honouring Read deny rules), its read-only config places,
//     hidden from every other sandbox, swept like a private directory.
//   - profiles.go: each agent family's own state directories.
//
// The package does no logging and keeps no state across calls except
// Probe's cached answer (guarded by a sync.Once) and, on disk, the private
// directories Prepare makes (each locked by its process while it lives). Compute reads the file
// system (stat, directory walks bounded by Options.MaxEntries) on the
// caller's goroutine.
package sandbox
