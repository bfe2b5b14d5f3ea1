// Package audit owns the bridge's audit log: one JSON line per decision
// (design.md "Decisions", step 4), appended to files that each rotate by
// size on their own budget and keep three older generations (path.1,
// path.2, path.3): the policy's allows at path, tool calls run unasked at
// path.unasked; and files never rotated: denies at path.denies, a person's
// decisions (and every record not known to be a policy's allow) at
// path.person. Floods are counted past a rate per agent, session and tool
// in every file, and long fields cut with their size and sha256
// (streams.go; docs/settings.md "Audit log").
//
// Writing: Open returns a Log; Append marshals a Record and writes the whole
// line with a single write(2) on a file opened with O_APPEND, so concurrent
// writers never interleave inside a line and a crashed process never leaves
// half a record. A failed write (disk full, file gone, directory not
// writable) is returned to the caller, who reports it; the decision itself
// still happens. The Log then reopens the file on the next Append and, if
// the file ends without a newline (a torn line from a short write or a
// crash), starts on a fresh line, so one failure costs at most one record.
//
// Identity: each record goes to the file now at its stream's path. On
// Linux each record stats the streams' shared directory (a change above the
// files reopens them all) and reads what one inotify instance per Log, on
// the inode of every open file, queued (identity_linux.go); elsewhere each
// record stats each path.
//
// Reading: Read and Print read the generations oldest first, then the
// current file. A line that is not a complete JSON record is skipped and
// counted; the error returned at the end wraps ErrCorrupt and says how many
// lines were skipped and where. Print renders the records as a table (the
// default) or as JSON lines, for `acp-bridge audit`.
//
// Concurrency: a Log is safe for concurrent use; its mutex serialises
// Append, rotation and Close. Read and Print keep no state and may run while
// a Log appends; a rotation in between can make them miss or repeat a few
// records. The log is meant to have one writing process; a second one never
// tears a line, but the two may rotate over each other.
package audit
