package sandbox

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Note says, for a call the policy allowed or is asking about, what the
// sandbox will still block, in words for a card, `policy explain` and the
// audit log. tool is the canonical tool (Read, Edit, Bash, ...); paths are
// the call's paths (relative ones against cwd); viaEditor is set when the
// editor, outside the sandbox, serves the call (fs/write_text_file,
// fs/read_text_file): the sandbox then does not apply. A nil Spec (no
// sandbox) says so.
func Note(s *Spec, tool string, paths []string, cwd string, viaEditor bool) string {
	if s == nil {
		return "no OS sandbox: nothing below the policy stops this call"
	}
	if viaEditor {
		return "served by the editor, outside the OS sandbox"
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p)
	}
	switch tool {
	case "Read", "Grep", "Glob", "LS":
		for _, p := range paths {
			if m, ok := s.maskOf(abs(p)); ok {
				return "the OS sandbox will block this read: " + m.Path + " is unreadable (" + m.Rule + ")"
			}
		}
		return "reads are not confined by the OS sandbox except for " + plural(len(s.Masked), "masked path")
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		for _, p := range paths {
			a := abs(p)
			if m, ok := s.maskOf(a); ok {
				return "the OS sandbox will block this write: " + m.Path + " is masked (" + m.Rule + ")"
			}
			if r, ok := s.readOnlyOf(a); ok {
				return "the OS sandbox will block this write: " + r + " is read-only in the sandbox (a protected file)"
			}
			if !underAny(a, s.Writable) {
				return "the OS sandbox will block this write: " + a + " is outside the writable trees"
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
	return "", false
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
