package sandbox

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Op is what a process does with a path, for Permits.
type Op string

// The operations Permits judges.
const (
	OpRead  Op = "read"
	OpWrite Op = "write"
)

// Permits says whether a process inside the sandbox s could do op on the
// absolute, clean path p (symbolic links already resolved: the Spec's paths
// are real paths) and, if not, why, in words for a card ("/h/.ssh is
// unreadable (Read(~/.ssh/**))"). A read is blocked by a masked path; a write
// by a masked path, a read-only path, or a path outside every writable tree.
// It is the one statement of what the Spec blocks: Note says it in words,
// and the bridge bounds the file service it serves for the agent
// (fs/read_text_file, fs/write_text_file) by it. A nil Spec permits
// everything.
func (s *Spec) Permits(op Op, p string) (ok bool, why string) {
	if s == nil {
		return true, ""
	}
	if m, masked := s.maskOf(p); masked {
		if op == OpRead {
			return false, m.Path + " is unreadable (" + m.Rule + ")"
		}
		return false, m.Path + " is masked (" + m.Rule + ")"
	}
	if s.otherHome(p) {
		return false, p + " is in another agent's private home (hidden in the sandbox)"
	}
	if op != OpWrite {
		return true, ""
	}
	if r, ro := s.readOnlyOf(p); ro {
		return false, r + " is read-only in the sandbox (a protected file)"
	}
	if !underAny(p, s.Writable) {
		return false, p + " is outside the writable trees"
	}
	return true, ""
}

// Note says, for a call the policy allowed or is asking about, what the
// sandbox will still block, in words for a card, `policy explain` and the
// audit log. tool is the canonical tool (Read, Edit, Bash, ...); paths are
// the call's paths (relative ones against cwd); viaEditor is set when the
// bridge's file service (fs/write_text_file, fs/read_text_file), outside the
// sandbox, serves the call: it is bounded by the same Spec (Permits), and
// what the Spec blocks it serves only on a person's answer. A nil Spec (no
// sandbox) says so.
func Note(s *Spec, tool string, paths []string, cwd string, viaEditor bool) string {
	if s == nil {
		return "no OS sandbox: nothing below the policy stops this call"
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p)
	}
	op := OpRead
	switch tool {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		op = OpWrite
	}
	if viaEditor {
		for _, p := range paths {
			if ok, why := s.Permits(op, abs(p)); !ok {
				return "outside this agent's sandbox: " + why + "; served by acp-bridge only on a person's answer to this card"
			}
		}
		return "served by acp-bridge outside the OS sandbox, within what this agent's sandbox permits"
	}
	switch tool {
	case "Read", "Grep", "Glob", "LS":
		for _, p := range paths {
			if ok, why := s.Permits(OpRead, abs(p)); !ok {
				return "the OS sandbox will block this read: " + why
			}
		}
		return "reads are not confined by the OS sandbox except for " + plural(len(s.Masked), "masked path")
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		for _, p := range paths {
			if ok, why := s.Permits(OpWrite, abs(p)); !ok {
				return "the OS sandbox will block this write: " + why
			}
		}
		return "allowed; the OS sandbox keeps writes inside the workspace"
	}
	return "the OS sandbox keeps writes inside " + strings.Join(s.Writable, ", ") + " and a private temp directory, keeps " +
		plural(len(s.ReadOnly), "protected path") + " read-only and " + plural(len(s.Masked), "denied path") + " unreadable"
}

func (s *Spec) maskOf(p string) (Path, bool) {
	for _, m := range s.Masked {
		if p == m.Path || (m.Dir && strings.HasPrefix(p, m.Path+"/")) {
			return m, true
		}
	}
	return Path{}, false
}

func (s *Spec) readOnlyOf(p string) (string, bool) {
	for _, r := range s.ReadOnly {
		if p == r || strings.HasPrefix(p, r+"/") {
			return r, true
		}
	}
	for _, b := range s.Blocked {
		if p == b.Path || strings.HasPrefix(p, b.Path+"/") {
			return b.Path, true
		}
	}
	for _, h := range s.Homes {
		for _, c := range h.Copies {
			if c.ReadOnly && p == c.To {
				return c.To, true
			}
		}
		for _, b := range h.Places {
			if p == b.To || strings.HasPrefix(p, b.To+"/") {
				return b.To, true
			}
		}
	}
	return "", false
}

// otherHome: p is in the private homes' root but not in one of s's own
// homes (hidden inside: bwrap.go).
func (s *Spec) otherHome(p string) bool {
	if s.HomesRoot == "" || (p != s.HomesRoot && !strings.HasPrefix(p, s.HomesRoot+"/")) {
		return false
	}
	for _, h := range s.Homes {
		if p == h.Dir || strings.HasPrefix(p, h.Dir+"/") {
			return false
		}
	}
	return true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
