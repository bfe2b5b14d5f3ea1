package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The bridge's cross-sandbox state (docs/sandbox.md, "Red team 10"): the
// private directories (acp-bridge-sandbox-*: locks, manifests, copies,
// sockets) in the system's temp directory and the private homes' root
// (acp-bridge-homes-<uid>). An agent whose sandbox.allowWrite covers them
// could rewrite another sandbox's, or its own, records and copies. An
// allowWrite entry equal to or inside one is refused (no real work needs
// it); one containing them (allowWrite: [/tmp], the documented way to let
// a tool write /tmp) is allowed, and each such entry existing when the
// sandbox is prepared is bound read-only over itself after the writable
// binds (stateEntries; the homes' root is hidden whole instead).

// statePrefix begins the name of every entry of the bridge's state.
const statePrefix = "acp-bridge-"

// guardState: Prepare binds the state entries read-only (false only in
// the tests' controls, which show the damage without it).
var guardState = true

// stateParents are the directories the bridge's state is made in,
// resolved (no link), each once.
func stateParents() []string {
	var out []string
	for _, p := range []string{os.TempDir(), homesBase} {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == r
		}
		if !dup {
			out = append(out, r)
		}
	}
	return out
}

// resolvedOrClean is the absolute path p with every symbolic link on its
// way resolved, a dangling last one included (MkdirAll would make its
// target); components past a missing one are kept as written.
func resolvedOrClean(p string) string {
	todo := strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
	cur := "/"
	for hops := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		if name == "" || name == "." {
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 || hops > 40 {
			cur = next
			continue
		}
		hops++
		target, err := os.Readlink(next)
		if err != nil {
			cur = next
			continue
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return cur
}

// checkAllowWrite refuses an allowWrite entry that is, or is inside, an
// entry of the bridge's state (as written or with its links resolved).
func checkAllowWrite(p string) error {
	for _, q := range []string{filepath.Clean(p), resolvedOrClean(p)} {
		for _, parent := range append(stateParents(), os.TempDir(), homesBase) {
			rel, err := filepath.Rel(parent, q)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			first, _, _ := strings.Cut(rel, string(filepath.Separator))
			if strings.HasPrefix(first, statePrefix) {
				return fmt.Errorf("sandbox: sandbox.allowWrite entry %q is inside %s, the bridge's own state (private sandbox directories and homes, which keep agents apart): an agent may not write it",
					p, filepath.Join(parent, first))
			}
		}
	}
	return nil
}

// stateEntries are the entries of the bridge's state (not links) that the
// writable paths make writable, resolved, to be bound read-only over
// themselves; the homes' root (homes) is left out: it is hidden whole.
func stateEntries(writable []string, homes string) []string {
	var ws []string
	for _, w := range writable {
		ws = append(ws, resolvedOrClean(w))
	}
	homes = resolvedOrClean(homes)
	var out []string
	for _, parent := range stateParents() {
		eachPrefixed(parent, statePrefix, func(name string, k entryKind) {
			if k == kindLink {
				return
			}
			if p := filepath.Join(parent, name); p != homes && underAny(p, ws) {
				out = append(out, p)
			}
		})
	}
	return out
}
