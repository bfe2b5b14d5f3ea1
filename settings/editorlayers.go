package settings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The editor's layers (docs/settings.md "VS Code"). An editor such as VS Code
// keeps its own layers of the acpBridge.* settings: its defaults (the
// extension's package.json), the user's settings, the workspace's
// (.vscode/settings.json or a .code-workspace file) and the workspace
// folder's. The editor sends each key's value in each layer as it is
// (EditorLayers, VS Code's inspect()) with its own workspace trust and the
// digest it approved; the bridge merges them here, with the merge of every
// other layer, cuts the workspace layers down as it cuts a workspace file
// (restrictWorkspace) and decides the pin (EditorPinState), so the editor
// computes none of it.
//
// What the editor's workspace layers may set:
//   - agents and audit.path never (VS Code keeps them machine-scoped: an
//     agent's command never comes from a repository);
//   - untrusted, or trusted but not the approved version of the values
//     (pinned): only what narrows, as an untrusted workspace file;
//   - trusted and pinned: what a trusted workspace file may set.
//
// Of the editor's defaults only agents (the presets) count: every other
// default is the bridge's own (a default the person did not set must not
// hide the bridge's config files).

// EditorValue is one key's value in each of the editor's layers (VS Code's
// WorkspaceConfiguration.inspect()); a nil value is not set in that layer.
type EditorValue struct {
	Default   json.RawMessage `json:"defaultValue,omitempty"`
	User      json.RawMessage `json:"globalValue,omitempty"`
	Workspace json.RawMessage `json:"workspaceValue,omitempty"`
	Folder    json.RawMessage `json:"workspaceFolderValue,omitempty"`
}

// EditorLayers is what the editor sends: its values by key (the key without
// the "acpBridge." prefix, as the editor names it: "permissions",
// "logLevel", "approvals.timeoutSeconds"), whether the editor trusts the
// workspace, and the digest of the workspace values it approved ("" when it
// never approved any for this workspace).
type EditorLayers struct {
	Values   map[string]EditorValue
	Trusted  bool
	Approved string
}

// EditorPin is the pin state of the editor's workspace values.
type EditorPin struct {
	// Digest is the digest of the workspace's own values now
	// (DigestEditorValues).
	Digest string
	// Pinned: they apply as a trusted workspace's (the editor trusts the
	// workspace and Digest is the approved version, or there are none).
	Pinned bool
	// Approved is the approved digest when !Pinned and the workspace is
	// trusted (DigestNone: none was ever approved).
	Approved string
	// Pin is a digest the editor should store as approved now: set the
	// first time a trusted workspace is seen without any values, so that
	// values that appear later wait for approval.
	Pin string
}

// editorKeys maps the editor's key names to the bridge's (docs/settings.md).
var editorKeys = map[string]string{
	"agents":                   "agents",
	"permissions":              "permissions",
	"defaultAgent":             "defaultAgent",
	"approvals.timeoutSeconds": "approvals.timeoutSeconds",
	"approvals.timeoutOutcome": "approvals.timeoutOutcome",
	"logLevel":                 "log.level",
	"audit.path":               "audit.path",
}

// machineScoped are the editor's keys a workspace layer never sets, trusted
// or not: they are neither applied from nor digested in a workspace layer.
var machineScoped = map[string]bool{"agents": true, "audit.path": true}

// BridgePlaceholder in an agent's command or args of the editor's settings
// is the bridge's own executable (the demo agent's preset).
const BridgePlaceholder = "${bridge}"

// DigestEditorValues is the digest of the workspace's own values (workspace
// and workspace folder layers) of every key a workspace layer may set:
// "sha256:" and the hex sha256 of the canonical JSON (object keys sorted at
// every level) of {key: [workspace, folder]} over the keys set in either,
// or DigestAbsent when none is.
func DigestEditorValues(values map[string]EditorValue) (string, error) {
	set := map[string]any{}
	for k, v := range values {
		if machineScoped[k] || (len(v.Workspace) == 0 && len(v.Folder) == 0) {
			continue
		}
		var pair [2]any
		for i, raw := range []json.RawMessage{v.Workspace, v.Folder} {
			if len(raw) == 0 {
				continue
			}
			x, err := decodeNumbers(raw)
			if err != nil {
				return "", fmt.Errorf("editor settings: %s: not JSON: %w", k, err)
			}
			pair[i] = x
		}
		set[k] = pair[:]
	}
	if len(set) == 0 {
		return DigestAbsent, nil
	}
	var b strings.Builder
	if err := canonicalJSON(&b, set); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func decodeNumbers(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	return x, nil
}

// canonicalJSON writes v with object keys sorted at every level and
// strings escaped as JavaScript's JSON.stringify escapes them, so the
// digests of values pinned before the bridge computed them stay equal.
func canonicalJSON(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canonicalJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSString(b, k)
			b.WriteByte(':')
			if err := canonicalJSON(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case string:
		writeJSString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		fmt.Fprint(b, x)
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("editor settings: unexpected %T in a value", v)
	}
	return nil
}

func writeJSString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(buf.String(), "\n")
	// JSON.stringify leaves U+2028 and U+2029 as they are.
	out = strings.ReplaceAll(out, `\u2028`, "\u2028")
	out = strings.ReplaceAll(out, `\u2029`, "\u2029")
	b.WriteString(out)
}

// EditorPinState decides whether the editor's workspace values with digest
// apply as a trusted workspace's, as approvalLocked does for the workspace
// file: untrusted, never; no values at all are always fine (nothing
// loosens), and the first time a trusted workspace is seen without values
// that is pinned; values seen when nothing was pinned yet (a cloned
// repository's .vscode/settings.json) wait for the person's approval
// (trusting is not approving); otherwise only the approved version applies.
func EditorPinState(digest string, trusted bool, approved string) EditorPin {
	p := EditorPin{Digest: digest}
	switch {
	case !trusted:
	case approved == "" && digest == DigestAbsent:
		p.Pinned, p.Pin = true, DigestAbsent
	case approved == "":
		p.Approved = DigestNone
	case digest == DigestAbsent || digest == approved:
		p.Pinned = true
	default:
		p.Approved = approved
	}
	return p
}

// editorSet is the editor's layers as the Store keeps them: the defaults
// and the user's (which apply as they are), the workspace's and the
// folder's (cut down in build), and whether those apply as a trusted
// workspace's (trusted and pinned).
type editorSet struct {
	def, user, ws, folder *layer
	// wsTrusted: ws and folder apply as a trusted workspace's (the editor
	// trusts the workspace and they are the approved version).
	wsTrusted bool
	// editorTrusted: the editor trusts the workspace (messages only).
	editorTrusted bool
	// softDefaultAgent: a defaultAgent naming no configured agent is left
	// out rather than refused (the editor's layers: its preset "demo").
	softDefaultAgent bool
	// invalid: the workspace or folder layer that did not decode, ignored
	// as a whole (a repository's value never refuses the person's layers).
	invalid []IgnoredSetting
}

// trustedLayers are the editor layers no workspace controls.
func (e editorSet) trustedLayers() []*layer { return []*layer{e.def, e.user} }

// editorLayerSources name each layer in messages.
var editorLayerSources = [4]string{"editor default settings", "editor user settings", "editor workspace settings", "editor workspace folder settings"}

// decodeEditorLayers turns the editor's values into its four layers. Every
// layer is decoded (a workspace layer's agents too). A problem in the
// default or user layer, or an unknown key, refuses them all; a problem in
// the workspace or folder layer (what a repository's .vscode/settings.json
// holds) makes that layer ignored as a whole and reported in invalid, so
// that a repository can neither switch the person's own layers off nor
// have half of its values applied.
func decodeEditorLayers(values map[string]EditorValue, root, executable string) (editorSet, []*FieldError) {
	var maps [4]map[string]any
	var problems []*FieldError
	var layerProblems [4][]*FieldError
	for i := range maps {
		maps[i] = map[string]any{}
	}
	for _, k := range sortedKeys(values) {
		key, known := editorKeys[k]
		if !known {
			problems = append(problems, &FieldError{Source: "editor settings", Key: k, Msg: fmt.Sprintf("unknown key (known: %s)", strings.Join(sortedKeys(editorKeys), ", "))})
			continue
		}
		v := values[k]
		for i, raw := range []json.RawMessage{v.Default, v.User, v.Workspace, v.Folder} {
			if len(raw) == 0 {
				continue
			}
			if i == 0 && k != "agents" {
				continue // the bridge's own defaults decide
			}
			var x any
			if err := json.Unmarshal(raw, &x); err != nil {
				layerProblems[i] = append(layerProblems[i], &FieldError{Source: editorLayerSources[i], Key: key, Msg: fmt.Sprintf("not JSON: %v", err)})
				continue
			}
			if x == nil {
				continue
			}
			maps[i][key] = x
		}
	}
	// An agent set to null in the user layer removes the default's (a
	// preset the person does not want). A workspace or folder layer's
	// agents are never read (machine-scoped), so its null removes nothing:
	// it is reported as ignored like any of its agents.
	for i := 1; i < 4; i++ {
		agents, _ := maps[i]["agents"].(map[string]any)
		for name, a := range agents {
			if a != nil {
				continue
			}
			if i >= 2 {
				agents[name] = map[string]any{}
				continue
			}
			delete(agents, name)
			if lighter, ok := maps[0]["agents"].(map[string]any); ok {
				delete(lighter, name)
			}
		}
	}
	var out editorSet
	dst := []**layer{&out.def, &out.user, &out.ws, &out.folder}
	for i, m := range maps {
		if len(m) == 0 {
			continue
		}
		substituteBridge(m, executable)
		src := editorLayerSources[i]
		m, ps := expandDotted(m, src)
		problems = append(problems, ps...)
		where := func([]string) (string, int) { return src, 0 }
		l := &layer{name: LayerEditor, root: root, source: src, where: where}
		layerProblems[i] = append(layerProblems[i], ps...)
		layerProblems[i] = append(layerProblems[i], decodeLayer(l, m, where)...)
		*dst[i] = l
	}
	for i, ps := range layerProblems {
		if len(ps) == 0 {
			continue
		}
		if i < 2 {
			problems = append(problems, ps...)
			continue
		}
		*dst[i] = nil
		for _, p := range ps {
			out.invalid = append(out.invalid, IgnoredSetting{Key: p.Key, File: editorLayerSources[i],
				Reason: "invalid (" + p.Msg + "): every value of this layer is ignored until it is fixed; the user's settings apply"})
		}
	}
	return out, problems
}

// substituteBridge replaces BridgePlaceholder in agents' commands and args.
func substituteBridge(m map[string]any, executable string) {
	agents, _ := m["agents"].(map[string]any)
	if executable == "" {
		return
	}
	sub := func(v any) any {
		if s, ok := v.(string); ok {
			return strings.ReplaceAll(s, BridgePlaceholder, executable)
		}
		return v
	}
	for _, a := range agents {
		am, ok := a.(map[string]any)
		if !ok {
			continue
		}
		if c, ok := am["command"]; ok {
			am["command"] = sub(c)
		}
		if args, ok := am["args"].([]any); ok {
			for i := range args {
				args[i] = sub(args[i])
			}
		}
	}
}

// machineReason is why an editor workspace layer's agents and audit path
// never apply.
const machineReason = "never read from the editor's workspace settings, trusted or not: it is machine-scoped (agent commands and the audit log never come from a repository); set it in the user settings"

// pendingEditorReason replaces untrustedReason when the editor trusts the
// workspace but its values are not the approved version.
const pendingEditorReason = "ignored until this version of the workspace's acpBridge.* settings is approved (the editor asks): trusting the workspace does not approve them"

// restrictEditorWorkspace cuts an editor workspace layer down: its agents
// and audit path never apply; the rest as restrictWorkspace cuts a
// workspace file, trusted meaning trusted and pinned.
func restrictEditorWorkspace(l *layer, base Config, trusted, editorTrusted bool) (*layer, []IgnoredSetting) {
	if l == nil {
		return nil, nil
	}
	cp := *l
	var ignored []IgnoredSetting
	for _, name := range sortedKeys(l.agents) {
		ignored = append(ignored, IgnoredSetting{Key: "agents." + name, File: l.source, Reason: machineReason})
	}
	cp.agents = nil
	if l.auditPath != nil {
		ignored = append(ignored, IgnoredSetting{Key: "audit.path", File: l.source, Value: *l.auditPath, Reason: machineReason})
		cp.auditPath = nil
	}
	out, more := restrictWorkspace(&cp, base, trusted)
	for i := range more {
		if more[i].File == "" {
			more[i].File = l.source
		}
		if !trusted && editorTrusted {
			more[i].Reason = strings.ReplaceAll(more[i].Reason, untrustedReason, pendingEditorReason)
		}
	}
	return out, append(ignored, more...)
}

// editorEffective is the editor's layers as they apply, lightest first, and
// what of its workspace layers does not. base is the merge of every layer no
// workspace controls. A defaultAgent of the editor's that names no
// configured agent is left out (the bridge's own then decides), as the
// editor's preset "demo" must not break settings whose agents lack it.
func editorEffective(e editorSet, base Config, others []*layer, userConfigDir string) ([]*layer, []IgnoredSetting) {
	ws, ig1 := restrictEditorWorkspace(e.ws, base, e.wsTrusted, e.editorTrusted)
	folder, ig2 := restrictEditorWorkspace(e.folder, base, e.wsTrusted, e.editorTrusted)
	out := []*layer{e.def, e.user, ws, folder}
	c, _, _ := merge(append(slices.Clip(others), out...), userConfigDir)
	for i, l := range out {
		if !e.softDefaultAgent || l == nil || l.defaultAgent == nil {
			continue
		}
		if _, ok := c.Agents[*l.defaultAgent]; !ok {
			cp := *l
			cp.defaultAgent = nil
			out[i] = &cp
		}
	}
	return out, append(append(slices.Clip(e.invalid), ig1...), ig2...)
}

// EditorApplied is the answer to ApplyEditorLayers.
type EditorApplied struct {
	EditorPin
	// Ignored lists what of the editor's workspace layers does not apply.
	Ignored []IgnoredSetting
	// Snapshot is the settings with these layers (applied, or what they
	// would be for a preview).
	Snapshot *Snapshot
}

// ApplyEditorLayers replaces the editor's layers with in (merged, cut down
// and pinned here) and rebuilds the settings. With preview it only says
// what they would be (the digest of values the editor is about to write).
// If any layer is invalid, or the merged result is, nothing changes and the
// error lists every problem with its layer and key.
func (s *Store) ApplyEditorLayers(in EditorLayers, preview bool) (EditorApplied, error) {
	digest, err := DigestEditorValues(in.Values)
	if err != nil {
		return EditorApplied{}, err
	}
	pin := EditorPinState(digest, in.Trusted, in.Approved)
	set, problems := decodeEditorLayers(in.Values, s.opts.WorkspaceDir, s.opts.Executable)
	set.wsTrusted, set.editorTrusted, set.softDefaultAgent = pin.Pinned, in.Trusted, true
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, merged := s.build(s.user, s.workspace, s.env, set, problems)
	if err := asError(append(problems, merged...)); err != nil {
		return EditorApplied{EditorPin: pin}, err
	}
	if !preview {
		s.editor = set
		s.commitLocked(snap)
	}
	return EditorApplied{EditorPin: pin, Ignored: snap.EditorIgnored, Snapshot: snap}, nil
}
