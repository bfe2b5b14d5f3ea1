package policy

import (
	"path"
	"sort"
	"strings"
)

// DenyRoot is where the paths a Read or Edit deny rule names can lie: the
// sandbox (package sandbox) walks these directories to find the existing
// paths to mask or keep read-only, and asks Evaluate about each.
type DenyRoot struct {
	// Dir is the absolute directory below which every match lies: the
	// rule's anchor joined with the literal leading segments of its glob.
	Dir string
	// AnyDepth: the pattern is a bare name that matches anywhere ("**/x");
	// Dir is then "/" and a caller walks only the trees it cares about.
	AnyDepth bool
	// Rule is the rule's text, for messages.
	Rule string
	// Name, for a pattern that matches a name at any depth ("**/.env*"),
	// is that name's glob: a walk need only ask Evaluate about entries whose
	// base name matches it (path.Match).
	Name string
}

// DenyRoots lists, for the deny rules on tool ("Read" or "Edit"; Edit also
// covers Write), the directories their matches lie under, sorted and
// without duplicates. Poisoned rules are skipped: they make the engine ask,
// which the sandbox cannot express.
func (p *Policy) DenyRoots(tool string, env Env) []DenyRoot {
	if p == nil {
		return nil
	}
	e := newEnvx(env)
	seen := map[DenyRoot]bool{}
	var out []DenyRoot
	for _, r := range p.deny.byTool[tool] {
		if r.kind != rkPath || r.poison != nil {
			continue
		}
		base := r.path.base(&e)
		if base == "" {
			continue
		}
		glob := r.path.glob
		if r.path.up {
			joined := path.Join(base, glob)
			base, glob = "/", strings.TrimPrefix(joined, "/")
		}
		dr := DenyRoot{Rule: r.text}
		if rest, ok := strings.CutPrefix(glob, "**/"); ok && rest != "" && !strings.Contains(rest, "/") {
			dr.Name = rest
		}
		if strings.HasPrefix(glob, "**/") || glob == "**" {
			dr.Dir, dr.AnyDepth = base, true
			if base != "/" {
				dr.AnyDepth = false // below a known base: walk it whole
			}
		} else {
			dir := base
			for _, seg := range strings.Split(glob, "/") {
				if seg == "" || strings.ContainsAny(seg, "*?[\\") {
					break
				}
				dir = path.Join(dir, seg)
			}
			dr.Dir = dir
		}
		if !seen[dr] {
			seen[dr] = true
			out = append(out, dr)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dir != out[j].Dir {
			return out[i].Dir < out[j].Dir
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// Protected says why a write to the absolute path p trips a circuit breaker
// ("" if none): a protected policy file, a shell startup file, .git, a
// device. The OS sandbox checks its own read-only list against it.
func Protected(env Env, p string) string {
	e := newEnvx(env)
	p = path.Clean(p)
	return e.writeBreaker(pathInfo{raw: p, abs: p, real: p})
}
