package settings

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrRuleNotFound is returned by RemoveRule when the file of that scope does
// not hold the rule (it may come from another layer).
var ErrRuleNotFound = errors.New("rule not found")

// ErrWorkspaceUntrusted is returned when a grant that loosens the policy (an
// allow rule, a bypass) would be written to the workspace file of an
// untrusted workspace, where it would be ignored.
var ErrWorkspaceUntrusted = errors.New("the workspace is not trusted")

// ErrNoWorkspace is returned when a workspace-scoped write has no workspace.
var ErrNoWorkspace = errors.New("no workspace directory")

// FieldError is one problem with one setting.
type FieldError struct {
	// Source is the file, "env ACP_BRIDGE_…", "editor settings", or "" for
	// a check of the merged configuration.
	Source string
	// Line is the 1-based line in Source (YAML files only), else 0.
	Line int
	// Key is the setting's path, e.g. "agents.claude.command" or
	// "permissions.allow[2]".
	Key string
	Msg string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		if e.Line > 0 {
			b.WriteString(":")
			b.WriteString(strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ValidationError lists every problem found in one load or change. Nothing
// of it was applied.
type ValidationError struct {
	Problems []*FieldError
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid settings: " + e.Problems[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid settings (%d problems):", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap gives errors.As access to each FieldError.
func (e *ValidationError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// asError returns nil for no problems, else a *ValidationError.
func asError(ps []*FieldError) error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps}
}

// keyString renders a path: segments joined by dots, "[i]" glued on.
func keyString(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// suggest returns the known name closest to k, or "" when none is close.
func suggest(k string, known []string) string {
	best, bestD := "", 1<<30
	for _, c := range known {
		if strings.EqualFold(c, k) {
			return c
		}
		d := editDistance(strings.ToLower(k), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if l := len(k) / 3; l > limit {
		limit = l
	}
	if bestD <= limit {
		return best
	}
	return ""
}

// editDistance is the optimal-string-alignment distance (Levenshtein plus
// adjacent transpositions) between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func modeProblem(v string) string {
	return fmt.Sprintf("%q is not a mode (%s, or aliases %s)", v,
		strings.Join(canonicalModes, ", "), strings.Join(modeAliasOrder, ", "))
}

func oneOfProblem(v string, valid []string) string {
	return fmt.Sprintf("%q is not one of %s", v, strings.Join(valid, ", "))
}
