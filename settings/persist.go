package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Grant kinds and scopes.
const (
	GrantRule   = "rule"
	GrantBypass = "bypass"

	ScopeUser      = "user"
	ScopeWorkspace = "workspace"
)

// Grant is a decision a person asked to keep: a rule for a list, or an
// agent's bypassPermissions.
type Grant struct {
	Kind  string // "rule" or "bypass"
	Scope string // "user" or "workspace"
	// Agent, when set, puts a rule into agents.<Agent>.permissions; a bypass
	// needs it.
	Agent string
	List  string // "allow", "ask" or "deny" (rules only)
	Rule  string // the rule text (rules only)
}

func (g Grant) check() error {
	switch g.Kind {
	case GrantRule:
		if !slices.Contains(ruleLists, g.List) {
			return fmt.Errorf("grant: list %s", oneOfProblem(g.List, ruleLists))
		}
		if strings.TrimSpace(g.Rule) == "" {
			return errors.New("grant: empty rule")
		}
		if strings.ContainsAny(g.Rule, "\r\n") {
			return fmt.Errorf("grant: rule %q spans several lines", g.Rule)
		}
	case GrantBypass:
		if g.Agent == "" {
			return errors.New("grant: a bypass needs an agent")
		}
	default:
		return fmt.Errorf("grant: kind %s", oneOfProblem(g.Kind, []string{GrantRule, GrantBypass}))
	}
	if g.Scope != ScopeUser && g.Scope != ScopeWorkspace {
		return fmt.Errorf("grant: scope %s", oneOfProblem(g.Scope, []string{ScopeUser, ScopeWorkspace}))
	}
	if g.Agent != "" && !agentNameRE.MatchString(g.Agent) {
		return fmt.Errorf("grant: %q is not a valid agent name", g.Agent)
	}
	return nil
}

// keyPath is where the grant lives in a file.
func (g Grant) keyPath() []string {
	switch {
	case g.Kind == GrantBypass:
		return []string{"agents", g.Agent, "bypassPermissions"}
	case g.Agent != "":
		return []string{"agents", g.Agent, "permissions", g.List}
	default:
		return []string{"permissions", g.List}
	}
}

// Persist adds the grant to the user or workspace file and returns the
// file's path. Adding what is already there writes nothing. The file is
// replaced atomically, keeping the other settings (and, for YAML, the
// comments); the Snapshot shows the grant when Persist returns. A change
// that would make the settings invalid is refused.
func (s *Store) Persist(g Grant) (string, error) { return s.edit(g, false) }

// RemoveRule removes the grant (a rule, or an agent's bypassPermissions)
// from the file of its scope. If that file does not hold it, the error
// wraps ErrRuleNotFound.
func (s *Store) RemoveRule(g Grant) (string, error) { return s.edit(g, true) }

func (s *Store) edit(g Grant, remove bool) (string, error) {
	verb := "persist"
	if remove {
		verb = "remove"
	}
	if err := g.check(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	var path, root, name string
	switch g.Scope {
	case ScopeUser:
		p, _, err := s.userFile()
		if err != nil {
			return "", fmt.Errorf("%s grant: %w", verb, err)
		}
		if p == "" {
			if s.opts.UserConfigDir == "" {
				return "", fmt.Errorf("%s grant: no user config directory", verb)
			}
			p = filepath.Join(s.opts.UserConfigDir, "config.yaml")
		}
		path, root, name = p, filepath.Dir(p), LayerUser
	case ScopeWorkspace:
		if s.opts.WorkspaceDir == "" {
			return "", fmt.Errorf("%s grant: %w", verb, ErrNoWorkspace)
		}
		if !remove && !s.trusted && (g.Kind == GrantBypass || g.List == ListAllow) {
			// It would be ignored there (and it would vanish from the
			// running policy with the settings change its write causes).
			return "", fmt.Errorf("%s %s: %w: the workspace file may only narrow the policy until it is; store it with scope user, or trust the workspace", verb, grantText(g), ErrWorkspaceUntrusted)
		}
		path, root, name = filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName), s.opts.WorkspaceDir, LayerWorkspace
	}

	data, existed, err := readOptional(path)
	if err != nil {
		return path, fmt.Errorf("%s grant: read %s: %w", verb, path, err)
	}
	out, changed, err := editFile(path, data, g, remove)
	if err != nil {
		return path, fmt.Errorf("%s grant in %s: %w", verb, path, err)
	}
	if !changed {
		if remove {
			return path, fmt.Errorf("remove %s from %s: %w", grantText(g), path, ErrRuleNotFound)
		}
		return path, nil
	}
	l, problems := fileLayer(name, path, root, out)
	if l != nil {
		l.digest = ContentDigest(out, true)
	}
	if name == LayerWorkspace && s.trusted && l != nil {
		// The person's own grant: the new content is approved when the old
		// one was (an edit never approves a version nobody approved).
		if ok, _ := s.approvalLocked(path, ContentDigest(data, existed), s.loosensFunc(s.workspace, s.user, s.env, s.editor)); ok {
			if err := s.pinLocked(path, l.digest); err != nil {
				return path, fmt.Errorf("%s grant: save the approval of %s: %w", verb, path, err)
			}
		}
	}
	user, ws := s.user, s.workspace
	if name == LayerUser {
		user = l
	} else {
		ws = l
	}
	snap, merged := s.build(user, ws, s.env, s.editor, problems)
	if err := asError(append(problems, merged...)); err != nil {
		return path, fmt.Errorf("%s grant: refusing to write %s: %w", verb, path, err)
	}
	if err := writeAtomic(path, out, s.rename); err != nil {
		return path, fmt.Errorf("%s grant: %w", verb, err)
	}
	s.user, s.workspace = user, ws
	s.commitLocked(snap)
	s.watchDirLocked(filepath.Dir(path))
	return path, nil
}

func grantText(g Grant) string {
	if g.Kind == GrantBypass {
		return "bypassPermissions of agent " + g.Agent
	}
	return fmt.Sprintf("%s rule %q", g.List, g.Rule)
}

// editFile returns the file's new content with the grant added or removed,
// and whether anything changed.
func editFile(path string, data []byte, g Grant, remove bool) ([]byte, bool, error) {
	format, err := formatOf(path)
	if err != nil {
		return nil, false, err
	}
	if format == "yaml" {
		return editYAML(data, g, remove)
	}
	return editMap(path, format, data, g, remove)
}

// blankMarker stands for a blank line while yaml.v3, which drops blank
// lines but keeps comments, re-encodes a file.
const blankMarker = "#acp-bridge:blank-line"

// editYAML edits through yaml.v3's node tree, which keeps comments and key
// order; indentation is re-emitted at the file's own width. Blank lines are
// kept by carrying them as marker comments, unless that would change what
// the file means (a blank line inside a block scalar): then they are lost.
func editYAML(data []byte, g Grant, remove bool) ([]byte, bool, error) {
	plain, changed, err := editYAMLDoc(data, g, remove)
	if err != nil || !changed || bytes.Contains(data, []byte(blankMarker)) {
		return plain, changed, err
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" && i < len(lines)-1 {
			lines[i] = blankMarker
		}
	}
	marked, _, err := editYAMLDoc([]byte(strings.Join(lines, "\n")), g, remove)
	if err != nil {
		return plain, changed, nil
	}
	out := strings.Split(string(marked), "\n")
	for i, l := range out {
		if strings.TrimSpace(l) == blankMarker {
			out[i] = ""
		}
	}
	kept := []byte(strings.Join(out, "\n"))
	var a, b any
	if yaml.Unmarshal(kept, &a) != nil || yaml.Unmarshal(plain, &b) != nil || !reflect.DeepEqual(a, b) {
		return plain, changed, nil
	}
	return kept, changed, nil
}

func editYAMLDoc(data []byte, g Grant, remove bool) ([]byte, bool, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, false, fmt.Errorf("cannot parse yaml: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, false, errors.New("holds several YAML documents; edit it by hand")
	}
	// An empty or comment-only file has no node: keep its text and add
	// a new mapping after it.
	var prefix []byte
	if doc.Kind == 0 {
		prefix = data
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		*root = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: root.HeadComment}
	}
	if root.Kind != yaml.MappingNode {
		return nil, false, errors.New("top level is not a mapping")
	}
	path := g.keyPath()
	parent := root
	for i, key := range path[:len(path)-1] {
		next, err := yamlChild(parent, key, !remove, yaml.MappingNode, path[:i+1])
		if err != nil {
			return nil, false, err
		}
		if next == nil {
			return nil, false, nil // nothing to remove
		}
		parent = next
	}
	last := path[len(path)-1]
	changed := false
	if g.Kind == GrantBypass {
		idx := yamlKeyIndex(parent, last)
		switch {
		case remove && idx >= 0:
			v := parent.Content[idx+1]
			if v.Kind == yaml.ScalarNode && v.Value == "true" {
				parent.Content = slices.Delete(parent.Content, idx, idx+2)
				changed = true
			}
		case remove:
		case idx >= 0:
			v := parent.Content[idx+1]
			if v.Kind != yaml.ScalarNode || v.Value != "true" {
				*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true", LineComment: v.LineComment}
				changed = true
			}
		default:
			parent.Content = append(parent.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
			changed = true
		}
	} else {
		seq, err := yamlChild(parent, last, !remove, yaml.SequenceNode, path)
		if err != nil {
			return nil, false, err
		}
		if seq == nil {
			return nil, false, nil
		}
		at := slices.IndexFunc(seq.Content, func(n *yaml.Node) bool {
			return n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) == strings.TrimSpace(g.Rule)
		})
		switch {
		case remove && at >= 0:
			seq.Content = slices.Delete(seq.Content, at, at+1)
			changed = true
			if len(seq.Content) == 0 {
				yamlPrune(root, path)
			}
		case !remove && at < 0:
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: g.Rule, Style: yaml.DoubleQuotedStyle})
			changed = true
		}
	}
	if !changed {
		return nil, false, nil
	}
	var buf bytes.Buffer
	if len(prefix) > 0 {
		buf.Write(prefix)
		if !bytes.HasSuffix(prefix, []byte("\n")) {
			buf.WriteByte('\n')
		}
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(yamlIndent(data))
	if err := enc.Encode(&doc); err != nil {
		return nil, false, fmt.Errorf("encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, false, fmt.Errorf("encode yaml: %w", err)
	}
	return buf.Bytes(), true, nil
}

// yamlPrune removes the now empty value at path, then each ancestor
// mapping that became empty, below the top-level sections.
func yamlPrune(root *yaml.Node, path []string) {
	for n := len(path); n > 1; n-- {
		parent := root
		for _, k := range path[:n-1] {
			i := yamlKeyIndex(parent, k)
			if i < 0 {
				return
			}
			parent = parent.Content[i+1]
		}
		i := yamlKeyIndex(parent, path[n-1])
		if i < 0 || len(parent.Content[i+1].Content) > 0 || parent.Content[i].HeadComment != "" || parent.Content[i+1].LineComment != "" {
			return
		}
		parent.Content = slices.Delete(parent.Content, i, i+2)
		if n-1 == 1 {
			return // keep a top-level section such as permissions:
		}
	}
}

// yamlKeyIndex is the index of key's key node in mapping m, or -1.
func yamlKeyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// yamlChild returns the value of key in mapping m, of the given kind. A
// missing or null value is created when create is set, else nil is
// returned.
func yamlChild(m *yaml.Node, key string, create bool, kind yaml.Kind, path []string) (*yaml.Node, error) {
	tag := "!!map"
	if kind == yaml.SequenceNode {
		tag = "!!seq"
	}
	if i := yamlKeyIndex(m, key); i >= 0 {
		v := m.Content[i+1]
		switch {
		case v.Kind == kind:
			return v, nil
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			if !create {
				return nil, nil
			}
			*v = yaml.Node{Kind: kind, Tag: tag, LineComment: v.LineComment, HeadComment: v.HeadComment}
			return v, nil
		case v.Kind == yaml.AliasNode:
			return nil, fmt.Errorf("%s is a YAML alias; edit it by hand", keyString(path))
		default:
			return nil, fmt.Errorf("%s is not a %s", keyString(path), map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}[kind])
		}
	}
	if !create {
		return nil, nil
	}
	v := &yaml.Node{Kind: kind, Tag: tag}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v, nil
}

// yamlIndent guesses the file's indentation: the smallest indent of a
// content line, between 2 and 8; 2 when there is none.
func yamlIndent(data []byte) int {
	best := 0
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if n := len(line) - len(trimmed); n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	return min(max(best, 2), 8)
}

// editMap edits a JSON or TOML file as a map. Other settings are kept;
// comments (TOML) and key order are not.
func editMap(path, format string, data []byte, g Grant, remove bool) ([]byte, bool, error) {
	raw, err := decodeFile(path, data)
	if err != nil {
		return nil, false, err
	}
	keys := g.keyPath()
	parent := raw
	for i, k := range keys[:len(keys)-1] {
		next, ok := parent[k].(map[string]any)
		if !ok {
			if parent[k] != nil {
				return nil, false, fmt.Errorf("%s is not an object", keyString(keys[:i+1]))
			}
			if remove {
				return nil, false, nil
			}
			next = map[string]any{}
			parent[k] = next
		}
		parent = next
	}
	last := keys[len(keys)-1]
	changed := false
	if g.Kind == GrantBypass {
		on, _ := parent[last].(bool)
		switch {
		case remove && on:
			delete(parent, last)
			changed = true
		case !remove && !on:
			parent[last] = true
			changed = true
		}
	} else {
		var list []any
		if parent[last] != nil {
			l, ok := parent[last].([]any)
			if !ok {
				return nil, false, fmt.Errorf("%s is not a list", keyString(keys))
			}
			list = l
		}
		at := slices.IndexFunc(list, func(v any) bool {
			s, ok := v.(string)
			return ok && strings.TrimSpace(s) == strings.TrimSpace(g.Rule)
		})
		switch {
		case remove && at >= 0:
			parent[last] = slices.Delete(list, at, at+1)
			changed = true
		case !remove && at < 0:
			parent[last] = append(list, g.Rule)
			changed = true
		}
	}
	if !changed {
		return nil, false, nil
	}
	enc, err := codecs.Encoder(format)
	if err != nil {
		return nil, false, err
	}
	out, err := enc.Encode(raw)
	if err != nil {
		return nil, false, fmt.Errorf("encode %s: %w", format, err)
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out, true, nil
}
