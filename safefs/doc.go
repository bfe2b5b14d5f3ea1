// Package safefs does the disk I/O of the file service the bridge offers its
// agents (fs/read_text_file, fs/write_text_file) so that what the policy
// judged is what is done (docs/policy.md, "What is judged is what is done:
// the file service").
//
// The bridge resolves the path an agent names once, with Resolve, before the
// decision: every symbolic link on the way is followed then, and the result
// is a path with no link in it. The policy and the sandbox bound judge that
// path, and ReadFile and WriteFile then open exactly it, refusing any
// symbolic link met on the way (on Linux, openat2(2) with
// RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS; a write opens the parent
// directory that way and replaces the file relative to that directory's
// descriptor). A link that appeared after the decision (an agent swapping a
// directory for a link to ~/.ssh within the round trip) makes the act fail
// with ErrChanged; it is never followed.
//
// Paths under /proc, /dev and /sys are refused (Special): their links
// (/proc/self/cwd, /proc/self/root) resolve in the bridge's process, not the
// agent's, and their files are not text files.
//
// What it does not cover: a directory on the way that is renamed (not
// replaced by a link) between the decision and the act. The descriptor then
// still names the directory the decision resolved, wherever it moved, so the
// act reaches the judged directory; what cannot be prevented is an agent that
// moves a secret directory itself into the judged place, which only an agent
// that can rename that directory (an unconfined one, which needs no bridge to
// read it) can do.
//
// On systems other than Linux there is no openat2: each component is opened
// with openat(2) and O_NOFOLLOW relative to its parent's descriptor, which
// refuses links the same way, one component at a time.
//
// The package keeps no state and does no logging.
package safefs
