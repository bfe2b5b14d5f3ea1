package policy

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Origin says where a rule came from, for messages and for "/" anchors.
type Origin struct {
	// Layer is the settings layer: "user", "workspace", "editor",
	// "agent:<id>", "session", ...
	Layer string `json:"layer,omitempty"`
	// File is the settings file the rule was read from, if any.
	File string `json:"file,omitempty"`
	// Root is the directory a "/x" path anchor resolves against (the root of
	// the rule's settings source). Empty means Env.ProjectRoot.
	Root string `json:"root,omitempty"`
}

func (o Origin) String() string {
	switch {
	case o.Layer != "" && o.File != "":
		return o.Layer + " settings (" + o.File + ")"
	case o.Layer != "":
		return o.Layer + " settings"
	case o.File != "":
		return o.File
	}
	return "unknown settings"
}

// RuleText is one rule as written in a settings list.
type RuleText struct {
	List   string `json:"list"` // allow, ask or deny
	Text   string `json:"text"`
	Origin Origin `json:"origin"`
}

// RuleError is a rule that Compile rejected. The rule is dropped, but a
// rejected deny or ask rule makes every call of its tool ask (see Compile).
type RuleError struct {
	Rule RuleText
	Err  error
}

func (e RuleError) Error() string {
	return fmt.Sprintf("%s rule %q from %s: %v", e.Rule.List, e.Rule.Text, e.Rule.Origin, e.Err)
}

func (e RuleError) Unwrap() error { return e.Err }

// Errors a rule can be rejected with; RuleError.Err wraps one of them.
var (
	ErrRuleSyntax    = errors.New("malformed rule")
	ErrRuleTool      = errors.New("bad tool name")
	ErrRuleSpecifier = errors.New("bad specifier")
	ErrRuleList      = errors.New("unknown rule list")
)

type ruleKind uint8

const (
	rkAny     ruleKind = iota // Tool, Tool(*): every call of the tool
	rkBash                    // Bash(pattern)
	rkPath                    // Read(path) / Edit(path)
	rkDomain                  // WebFetch(domain:...)
	rkName                    // mcp__server, mcp__server__*, glob over tool names
	rkGeneric                 // Tool(glob) of another tool: glob over the call's subject
)

// rule is one compiled rule.
type rule struct {
	idx    int
	text   string
	list   Decision
	origin Origin
	// tool is the canonical tool the rule names ("Edit" for Write etc.),
	// "" for rkName rules (which match on the call's tool name), and
	// "*" for a poisoned rule whose tool could not be told.
	tool string
	kind ruleKind

	bash bashPattern
	// norm: a deny or ask Bash rule of a well-known command read in flag
	// order (flagnorm.go); nil otherwise.
	norm   *normPattern
	path   pathPattern
	domain string // lower case; "" with domainAny
	// domainWild: "*.example.com" (subdomains only); domainAny: "*".
	domainWild, domainAny bool
	name                  string // rkName: server prefix "mcp__s__" or glob
	namePrefix            bool
	glob                  string // rkGeneric

	// poison is the compile error of a rejected deny/ask rule kept so that
	// its tool asks rather than the rule vanishing.
	poison error
	// allowReason is the verdict's reason when this allow rule is the one
	// that allowed a command (allowAgg.verdict): written once at compile
	// time instead of at every allow.
	allowReason string
}

// ruleSet is one list (deny, ask or allow), indexed for fast lookup.
type ruleSet struct {
	all []*rule
	// byTool holds rules for a canonical tool other than Bash.
	byTool map[string][]*rule
	// bashByWord holds Bash rules whose first word is literal; bashWild the
	// rest (including rkAny Bash rules).
	bashByWord map[string][]*rule
	// bashWords: the keys of bashByWord, as a filter (wordfilter.go).
	bashWords wordFilter
	bashWild  []*rule
	// names are rkName rules (mcp server and glob names); star the
	// poisoned rules that apply to every call.
	names []*rule
	star  []*rule
	// norm are the Bash rules with a flag-order reading (deny and ask only).
	norm []*rule
	// pathIx indexes byTool's rules by their first path segment
	// (pathindex.go).
	pathIx map[string]*pathIndex
	// read and edit are byTool["Read"] and byTool["Edit"], readIx and
	// editIx their indexes (pathRules).
	read, edit     []*rule
	readIx, editIx *pathIndex
}

func (s *ruleSet) add(r *rule) {
	s.all = append(s.all, r)
	if r.norm != nil {
		s.norm = append(s.norm, r)
	}
	switch {
	case r.tool == "*":
		s.star = append(s.star, r)
	case r.kind == rkName:
		s.names = append(s.names, r)
	case r.tool == "Bash" && r.kind == rkBash && r.bash.first != "":
		if s.bashByWord == nil {
			s.bashByWord = map[string][]*rule{}
		}
		s.bashByWord[r.bash.first] = append(s.bashByWord[r.bash.first], r)
		s.bashWords.add(r.bash.first)
	case r.tool == "Bash":
		s.bashWild = append(s.bashWild, r)
	default:
		if s.byTool == nil {
			s.byTool = map[string][]*rule{}
		}
		s.byTool[r.tool] = append(s.byTool[r.tool], r)
		if s.pathIx == nil {
			s.pathIx = map[string]*pathIndex{}
		}
		ix := s.pathIx[r.tool]
		if ix == nil {
			ix = &pathIndex{}
			s.pathIx[r.tool] = ix
		}
		ix.add(r)
		switch r.tool {
		case "Read":
			s.read, s.readIx = s.byTool[r.tool], ix
		case "Edit":
			s.edit, s.editIx = s.byTool[r.tool], ix
		}
	}
}

// pathRules are byTool[tool] and its index, without a map lookup for the
// two tools every shell command is checked against.
func (s *ruleSet) pathRules(tool string) ([]*rule, *pathIndex) {
	switch tool {
	case "Read":
		return s.read, s.readIx
	case "Edit":
		return s.edit, s.editIx
	}
	return s.byTool[tool], s.pathIx[tool]
}

// Policy is a compiled rule set. It is immutable once built and safe for
// concurrent use.
type Policy struct {
	deny, ask, allow ruleSet
	// guarded: tools that have at least one deny or ask rule (or a poisoned
	// one); "*" if a poisoned rule applies to every tool. Used to decide
	// whether an uncertain command could be escaping a deny.
	guarded map[string]bool
	n       int
}

// Len is the number of rules kept (poisoned rules included).
func (p *Policy) Len() int {
	if p == nil {
		return 0
	}
	return p.n
}

// guards reports whether a deny or ask rule could apply to tool.
func (p *Policy) guards(tool string) bool {
	if p == nil {
		return false
	}
	return p.guarded[tool] || p.guarded["*"]
}

var editAliases = map[string]string{
	"Write":        "Edit",
	"MultiEdit":    "Edit",
	"NotebookEdit": "Edit",
}

// KnownTools are the tool names a rule may name (besides mcp__server,
// mcp__server__* and mcp__server__tool): the canonical tools the profiles
// map every agent's calls to, and the agents' own tools that keep their
// names (profiles.claudeByName). A rule naming anything else could never
// match. Agents' own tools keep their own names too (an agent's
// "delete_file" reaches the policy as such), so a name outside this list is
// not an error by itself; a name that misspells one of these (another
// case, or a CamelCase name one or two edits away) is: it could never match
// and is an error where it is written (docs/policy.md, "Rules that cannot
// match").
var KnownTools = []string{
	"Bash", "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead",
	"WebFetch", "WebSearch", "Glob", "Grep", "LS",
	"Task", "Agent", "TodoWrite", "TodoRead", "ExitPlanMode", "BashOutput", "KillShell", "KillBash",
	"SlashCommand", "Skill", "ListMcpResourcesTool", "ReadMcpResourceTool",
}

var knownTool = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range KnownTools {
		m[t] = true
	}
	return m
}()

// toolFix names the known tool a misspelt tool name most likely meant:
// the same name in another case, else one at most two edits away.
func toolFix(name string) string {
	for _, t := range KnownTools {
		if strings.EqualFold(t, name) {
			return t
		}
	}
	best, bestD := "", 3
	for _, t := range KnownTools {
		if d := editDistance(strings.ToLower(name), strings.ToLower(t), bestD); d < bestD {
			best, bestD = t, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or max when it is
// at least max (names are short; O(len(a) x len(b))).
func editDistance(a, b string, max int) int {
	if len(a) > 64 || len(b) > 64 {
		return max
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c = 1 + min(prev[j-1], prev[j], cur[j-1])
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] >= max {
		return max
	}
	return prev[len(b)]
}

// misspeltTool: name is not a known tool but reads as a misspelling of
// one: the same letters in another case, or a CamelCase name (as the known
// tools are) of four letters or more one or two edits from one.
func misspeltTool(name string) bool {
	fix := toolFix(name)
	switch {
	case fix == "":
		return false
	case strings.EqualFold(fix, name):
		return true
	}
	return len(name) >= 4 && name[0] >= 'A' && name[0] <= 'Z' && !strings.ContainsAny(name, "_-.:")
}

// unknownToolError says a rule names no tool the bridge knows, with the
// rule as it should probably read.
func unknownToolError(text, tool string) error {
	fix := toolFix(tool)
	fixed := strings.TrimSpace(text)
	if i := strings.Index(fixed, tool); i >= 0 {
		fixed = fixed[:i] + fix + fixed[i+len(tool):]
	}
	what := "no tool of that name"
	if strings.EqualFold(fix, tool) {
		what = "tool names are case-sensitive"
	}
	return fmt.Errorf("%w %q: %s, so the rule could never match; did you mean %s?", ErrRuleTool, tool, what, fixed)
}

// CheckRule reports why a rule of list could never take effect as written
// (nil if it compiles): the settings layer reports it under the rule's key.
func CheckRule(list, text string) error {
	_, err := compileRule(RuleText{List: list, Text: text})
	return err
}

// canonicalTool maps tool aliases to the tool whose rules apply.
func canonicalTool(t string) string {
	if c, ok := editAliases[t]; ok {
		return c
	}
	return t
}

// Compile builds a Policy from rules of every layer. Rules that do not
// parse are returned as RuleErrors and dropped; a dropped deny or ask rule
// (or one in an unknown list) is replaced by an ask for every call of the
// tool it names (every call at all if the tool cannot be told), so a typo
// never makes the policy more permissive.
func Compile(rules []RuleText) (*Policy, []RuleError) {
	p := &Policy{guarded: map[string]bool{}}
	var errs []RuleError
	for i, rt := range rules {
		r, err := compileRule(rt)
		if err != nil {
			errs = append(errs, RuleError{Rule: rt, Err: err})
			if rt.List == string(Allow) {
				continue
			}
			pr := &rule{text: rt.Text, list: Ask, origin: rt.Origin, kind: rkAny, tool: poisonTool(rt.Text), poison: err}
			if pr.tool == "mcp__" {
				pr.kind, pr.name, pr.namePrefix, pr.tool = rkName, "mcp__", true, ""
			}
			r = pr
		}
		r.idx = i
		switch r.list {
		case Deny:
			p.deny.add(r)
		case Ask:
			p.ask.add(r)
		default:
			r.allowReason = bashAllowReason(r)
			p.allow.add(r)
		}
		if r.list != Allow {
			switch {
			case r.kind == rkName:
				p.guarded["mcp"] = true
			default:
				p.guarded[r.tool] = true
			}
		}
		p.n++
	}
	return p, errs
}

// poisonTool guesses the tool a broken rule was about: the canonical tool
// name before "(" (a misspelt one read as the known tool it most likely
// meant: `bash(rm *)` makes every Bash call ask), or "*" when no known tool
// can be told (every call asks).
func poisonTool(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '('); i >= 0 {
		text = text[:i]
	}
	text = strings.TrimSpace(text)
	if !validToolName(text) {
		return "*"
	}
	if strings.HasPrefix(strings.ToLower(text), "mcp__") {
		return "mcp__" // a broken MCP rule: every MCP tool asks
	}
	if strings.Contains(text, "*") {
		return "*"
	}
	if !knownTool[text] && misspeltTool(text) {
		return canonicalTool(toolFix(text))
	}
	return canonicalTool(text)
}

// mcpServerPrefix returns "mcp__server__" for any mcp__server... name.
func mcpServerPrefix(name string) string {
	rest := strings.TrimPrefix(name, "mcp__")
	if i := strings.Index(rest, "__"); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimRight(rest, "*")
	return "mcp__" + rest + "__"
}

func validToolName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_', c == '-', c == '.', c == ':', c == '*':
		default:
			return false
		}
	}
	return true
}

// splitRule splits "Tool" / "Tool(spec)" and checks the parentheses.
func splitRule(text string) (tool, spec string, hasSpec bool, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", "", false, fmt.Errorf("%w: empty rule", ErrRuleSyntax)
	}
	open := strings.IndexByte(text, '(')
	if open < 0 {
		if strings.IndexByte(text, ')') >= 0 {
			return "", "", false, fmt.Errorf("%w: unbalanced parentheses", ErrRuleSyntax)
		}
		return text, "", false, nil
	}
	if !strings.HasSuffix(text, ")") {
		return "", "", false, fmt.Errorf("%w: unbalanced parentheses (the specifier must end the rule with \")\")", ErrRuleSyntax)
	}
	tool = strings.TrimSpace(text[:open])
	spec = text[open+1 : len(text)-1]
	depth := 0
	for i := 0; i < len(spec); i++ {
		switch spec[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return "", "", false, fmt.Errorf("%w: unbalanced parentheses", ErrRuleSyntax)
			}
		}
	}
	if depth != 0 {
		return "", "", false, fmt.Errorf("%w: unbalanced parentheses", ErrRuleSyntax)
	}
	spec = trimBlanks(spec)
	if spec == "" {
		return "", "", false, fmt.Errorf("%w: empty specifier (write %s to match every call)", ErrRuleSpecifier, tool)
	}
	return tool, spec, true, nil
}

func compileRule(rt RuleText) (*rule, error) {
	r := &rule{text: strings.TrimSpace(rt.Text), origin: rt.Origin}
	switch rt.List {
	case string(Allow), string(Ask), string(Deny):
		r.list = Decision(rt.List)
	default:
		return nil, fmt.Errorf("%w %q: must be allow, ask or deny", ErrRuleList, rt.List)
	}
	tool, spec, hasSpec, err := splitRule(rt.Text)
	if err != nil {
		return nil, err
	}
	if !validToolName(tool) {
		return nil, fmt.Errorf("%w %q", ErrRuleTool, tool)
	}
	if !strings.HasPrefix(tool, "mcp__") && strings.HasPrefix(strings.ToLower(tool), "mcp__") {
		return nil, fmt.Errorf("%w %q: MCP tool names start with lower-case mcp__, so the rule could never match; did you mean %s?",
			ErrRuleTool, tool, "mcp__"+tool[len("mcp__"):])
	}
	if strings.HasPrefix(tool, "mcp__") {
		if hasSpec {
			return nil, fmt.Errorf("%w: MCP rules take no specifier (use mcp__server, mcp__server__* or mcp__server__tool)", ErrRuleSpecifier)
		}
		return compileMCP(r, tool)
	}
	if strings.Contains(tool, "*") {
		return nil, fmt.Errorf("%w %q: wildcards are allowed only in mcp__ names", ErrRuleTool, tool)
	}
	if !knownTool[tool] && misspeltTool(tool) {
		return nil, unknownToolError(rt.Text, tool)
	}
	r.tool = canonicalTool(tool)
	if !hasSpec || spec == "*" {
		if hasSpec && r.tool == "WebFetch" {
			return nil, fmt.Errorf("%w %q: WebFetch takes domain:host", ErrRuleSpecifier, spec)
		}
		r.kind = rkAny
		return r, nil
	}
	switch r.tool {
	case "Bash":
		r.kind = rkBash
		r.bash, err = compileBashPattern(spec)
		if err == nil && r.list != Allow {
			r.norm = compileNormPattern(&r.bash)
		}
	case "Read", "Edit":
		r.kind = rkPath
		r.path, err = compilePathPattern(spec, rt.Origin, rt.List == "deny" || rt.List == "ask")
	case "WebFetch":
		r.kind = rkDomain
		err = compileDomain(r, spec)
	case "WebSearch":
		err = fmt.Errorf("%w: WebSearch takes no specifier", ErrRuleSpecifier)
	default:
		r.kind = rkGeneric
		r.glob = spec
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func compileMCP(r *rule, name string) (*rule, error) {
	rest := strings.TrimPrefix(name, "mcp__")
	if rest == "" || strings.HasPrefix(rest, "_") {
		return nil, fmt.Errorf("%w %q: missing MCP server name", ErrRuleTool, name)
	}
	r.kind = rkName
	switch {
	case !strings.Contains(rest, "__") && !strings.Contains(rest, "*"):
		r.name, r.namePrefix = name+"__", true // mcp__server
	case strings.HasSuffix(rest, "__*") && !strings.Contains(strings.TrimSuffix(rest, "__*"), "*") &&
		!strings.Contains(strings.TrimSuffix(rest, "__*"), "__"):
		r.name, r.namePrefix = strings.TrimSuffix(name, "*"), true // mcp__server__*
	default:
		r.name = name // exact, or a glob
	}
	return r, nil
}

func compileDomain(r *rule, spec string) error {
	d, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return fmt.Errorf("%w %q: WebFetch takes domain:host or domain:*.host", ErrRuleSpecifier, spec)
	}
	d = strings.TrimSpace(d)
	if d == "*" {
		r.domainAny = true
		return nil
	}
	if rest, ok := strings.CutPrefix(d, "*."); ok {
		r.domainWild = true
		d = rest
	}
	// the rule's host is read like a URL's (case, trailing dot, IDNA,
	// numeric IPv4 forms, IPv6 literals with or without brackets).
	if a, err := netip.ParseAddr(d); err == nil && !r.domainWild && a.Zone() == "" {
		r.domain = canonAddr(a)
		return nil
	}
	h, ok := normHost(d)
	if !ok || strings.Contains(h, ":") && r.domainWild || !strings.Contains(h, ":") && !validHost(h) {
		return fmt.Errorf("%w %q: not a host name", ErrRuleSpecifier, spec)
	}
	r.domain = h
	return nil
}

func validHost(d string) bool {
	if d == "" || len(d) > 253 {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// Rules returns the rule texts of list ("allow", "ask", "deny") in order,
// poisoned rules included (they sit in the ask list).
func (p *Policy) Rules(list string) []string {
	if p == nil {
		return nil
	}
	var s *ruleSet
	switch list {
	case string(Deny):
		s = &p.deny
	case string(Ask):
		s = &p.ask
	default:
		s = &p.allow
	}
	out := make([]string, 0, len(s.all))
	for _, r := range s.all {
		out = append(out, r.text)
	}
	return out
}

// first returns the earlier of two candidate rules.
func first(a, b *rule) *rule {
	if a == nil || (b != nil && b.idx < a.idx) {
		return b
	}
	return a
}
