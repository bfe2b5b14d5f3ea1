// Command gen writes the TypeScript side of the bridge's extension surface
// (vscode-extension/src/wire.gen.ts) and the method and error tables of
// docs/extension-surface.md from package wire and policy's mode table.
// Run it with `go generate ./wire`; -check writes nothing and fails when a
// file is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
	"github.com/acp-bridge/acp-bridge/wire"
)

const (
	tsPath   = "vscode-extension/src/wire.gen.ts"
	docPath  = "docs/extension-surface.md"
	docBegin = "<!-- wire:tables begin (go generate ./wire writes this) -->"
	docEnd   = "<!-- wire:tables end -->"
)

func main() {
	check := flag.Bool("check", false, "write nothing; fail when a generated file is stale")
	root := flag.String("root", "", "the repository root (default: found from the working directory)")
	flag.Parse()
	if err := run(*root, *check); err != nil {
		fmt.Fprintln(os.Stderr, "wire/gen:", err)
		os.Exit(1)
	}
}

func run(root string, check bool) error {
	if root == "" {
		var err error
		if root, err = findRoot(); err != nil {
			return err
		}
	}
	files, err := generate(root)
	if err != nil {
		return err
	}
	var stale []string
	for _, rel := range sortedKeys(files) {
		p := filepath.Join(root, rel)
		old, _ := os.ReadFile(p)
		if bytes.Equal(old, files[rel]) {
			continue
		}
		if check {
			stale = append(stale, rel)
			continue
		}
		if err := os.WriteFile(p, files[rel], 0o644); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("stale (run go generate ./wire): %s", strings.Join(stale, ", "))
	}
	return nil
}

// findRoot walks up from the working directory to go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// generate returns every generated file's content by path under root.
func generate(root string) (map[string][]byte, error) {
	if err := validate(wire.Methods, wire.Errors); err != nil {
		return nil, err
	}
	ts, err := typescript()
	if err != nil {
		return nil, err
	}
	doc, err := os.ReadFile(filepath.Join(root, docPath))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", docPath, err)
	}
	newDoc, err := spliceDoc(doc, docTables())
	if err != nil {
		return nil, err
	}
	return map[string][]byte{tsPath: ts, docPath: newDoc}, nil
}

// validate checks the declarations themselves: every method names declared
// payloads, every name and key is used once, every code once.
func validate(methods []wire.Method, errs []wire.ErrorCode) error {
	names, keys := map[string]bool{}, map[string]bool{}
	for _, m := range methods {
		if !strings.HasPrefix(m.Name, wire.Prefix) {
			return fmt.Errorf("method %q does not start with %s", m.Name, wire.Prefix)
		}
		if names[m.Name] || keys[m.Key] {
			return fmt.Errorf("method %q (key %q) declared twice", m.Name, m.Key)
		}
		names[m.Name], keys[m.Key] = true, true
		for _, t := range []string{m.Params, m.Result} {
			if t != "" && payloadType(t) == nil {
				return fmt.Errorf("method %s names %q, which is not in wire.Payloads", m.Name, t)
			}
		}
		if m.Kind == wire.Notification && m.Result != "" {
			return fmt.Errorf("notification %s has a result", m.Name)
		}
	}
	codes, ekeys := map[int]bool{}, map[string]bool{}
	for _, e := range errs {
		if codes[e.Code] || ekeys[e.Key] {
			return fmt.Errorf("error code %d (key %q) declared twice", e.Code, e.Key)
		}
		codes[e.Code], ekeys[e.Key] = true, true
	}
	return nil
}

func payloadType(name string) reflect.Type {
	for _, p := range wire.Payloads {
		if p.Type.Name() == name {
			return p.Type
		}
	}
	return nil
}

// field is one JSON field of a declared struct.
type field struct {
	Name     string
	Type     reflect.Type
	Optional bool
	Ignored  string // why the extension does not read it
	TS       string // the TypeScript type, when narrower than the Go type's (ts:"...")
}

func fields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		ign := ""
		if w, ok := strings.CutPrefix(f.Tag.Get("wire"), "ignored="); ok {
			ign = w
		}
		out = append(out, field{Name: name, Type: f.Type, Optional: strings.Contains(opts, "omitempty") || f.Type.Kind() == reflect.Pointer, Ignored: ign, TS: f.Tag.Get("ts")})
	}
	return out
}

var rawMessage = reflect.TypeFor[[]byte]()

// tsType is t in TypeScript; structs found are added to seen.
func tsType(t reflect.Type, seen map[string]reflect.Type) string {
	if t.Name() == "RawMessage" {
		return "unknown"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return tsType(t.Elem(), seen)
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return tsType(t.Elem(), seen) + "[]"
	case reflect.Map:
		return "Record<string, " + tsType(t.Elem(), seen) + ">"
	case reflect.Struct:
		seen[t.Name()] = t
		return t.Name()
	case reflect.Interface:
		return "unknown"
	}
	panic(fmt.Sprintf("wire/gen: no TypeScript for %s", t))
}

// reachable is every struct type the payloads hold, by name.
func reachable() map[string]reflect.Type {
	seen := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if _, ok := seen[t.Name()]; ok {
			return
		}
		seen[t.Name()] = t
		for _, f := range fields(t) {
			inner := map[string]reflect.Type{}
			tsType(f.Type, inner)
			for _, it := range inner {
				walk(it)
			}
		}
	}
	for _, p := range wire.Payloads {
		walk(p.Type)
	}
	return seen
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

func typescript() ([]byte, error) {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("// Code generated by wire/gen (go generate ./wire) from package wire and\n")
	w("// policy's mode table. DO NOT EDIT: change wire/*.go and generate again.\n")
	w("// No imports: the webview bundle may import it too.\n\n")
	w("export const META_KEY = %q;\n\n", wire.MetaKey)
	w("/** Every _acp-bridge/* method (docs/extension-surface.md). */\n")
	w("export const M = {\n")
	for _, m := range wire.Methods {
		w("  /** %s %s: %s. */\n  %s: %q,\n", m.Dir, m.Kind, m.Doc, m.Key, m.Name)
	}
	w("} as const;\n\n")
	w("/** The bridge's JSON-RPC error codes, one meaning each. */\n")
	w("export const ERR = {\n")
	for _, e := range wire.Errors {
		w("  /** %s. */\n  %s: %d,\n", e.Meaning, e.Key, e.Code)
	}
	w("} as const;\n\n")
	w("/** Notice kinds: _meta[\"acp-bridge\"].notice of a message the bridge says in a session. */\n")
	w("export const NOTICE = {\n")
	for _, n := range []string{wire.NoticeWorkspaceTrust, wire.NoticeChildMode, wire.NoticeUnaskedDenied, wire.NoticeProtectedCreated} {
		w("  %s: %q,\n", n, n)
	}
	w("} as const;\n\n")
	// Modes, from policy: the one vocabulary, its settings aliases and its strictness order.
	w("/** The bridge's policy modes, in the order a UI shows them (policy.Modes). */\n")
	w("export const POLICY_MODES = [")
	for i, m := range policy.Modes {
		if i > 0 {
			w(", ")
		}
		w("%q", string(m))
	}
	w("] as const;\nexport type PolicyMode = (typeof POLICY_MODES)[number];\n\n")
	w("/** Each mode's name, description and the modes it is at least as strict as (policy.ModeTexts, policy.AtLeastAsStrict). */\n")
	w("export const MODE_TABLE: Record<PolicyMode, ModeInfo> = {\n")
	for _, m := range policy.Modes {
		t := policy.ModeTexts[m]
		var strict []string
		for _, x := range policy.AtLeastAsStrictAs(m) {
			strict = append(strict, fmt.Sprintf("%q", string(x)))
		}
		w("  %s: { id: %q, name: %q, description: %q, atLeastAsStrictAs: [%s] },\n", string(m), string(m), t.Name, t.Description, strings.Join(strict, ", "))
	}
	w("};\n\n")
	w("/** Other spellings of a mode that settings accept (policy.SettingsAliases); never a mode id an editor sends. */\n")
	w("export const SETTINGS_ALIASES: Record<string, PolicyMode> = {\n")
	for _, a := range policy.SettingsAliases {
		w("  %s: %q,\n", a.Name, string(a.Mode))
	}
	w("};\n\n")
	types := reachable()
	for _, name := range sortedKeys(types) {
		t := types[name]
		if p := metaOf(name); p != "" {
			w("/** _meta[\"acp-bridge\"] of %s. */\n", p)
		}
		w("export interface %s {\n", name)
		for _, f := range fields(t) {
			if f.Ignored != "" {
				w("  /** Not read by this extension: %s. */\n", f.Ignored)
			}
			opt := ""
			if f.Optional {
				opt = "?"
			}
			ts := f.TS
			if ts == "" {
				ts = tsType(f.Type, map[string]reflect.Type{})
			}
			w("  %s%s: %s;\n", f.Name, opt, ts)
		}
		w("}\n\n")
	}
	tsShape := func(name string) string {
		if name == "" {
			return "Record<string, never>"
		}
		return name
	}
	w("/** Requests the editor sends the bridge: params and result by method. */\n")
	w("export interface BridgeRequests {\n")
	for _, m := range wire.Methods {
		if m.Dir == wire.EditorToBridge && m.Kind == wire.Request {
			w("  [M.%s]: { params: %s; result: %s };\n", m.Key, tsShape(m.Params), tsShape(m.Result))
		}
	}
	w("}\n\n/** Notifications the editor sends the bridge: params by method. */\n")
	w("export interface BridgeNotifications {\n")
	for _, m := range wire.Methods {
		if m.Dir == wire.EditorToBridge && m.Kind == wire.Notification {
			w("  [M.%s]: %s;\n", m.Key, tsShape(m.Params))
		}
	}
	w("}\n\n/** Requests and notifications the bridge sends the editor: params (and result) by method. */\n")
	w("export interface EditorMethods {\n")
	for _, m := range wire.Methods {
		if m.Dir == wire.BridgeToEditor {
			w("  [M.%s]: { params: %s; result: %s };\n", m.Key, tsShape(m.Params), map[bool]string{true: tsShape(m.Result), false: "void"}[m.Kind == wire.Request])
		}
	}
	w("}\n")
	return b.Bytes(), nil
}

func metaOf(name string) string {
	for _, p := range wire.Payloads {
		if p.Type.Name() == name {
			return p.Meta
		}
	}
	return ""
}

// docTables is the generated part of docs/extension-surface.md.
func docTables() []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("%s\n", docBegin)
	w("Every `_acp-bridge/*` method, declared in `wire/methods.go` (payload types in `wire/types.go`; the\n")
	w("extension's `vscode-extension/src/wire.gen.ts` is generated from them):\n\n")
	w("| Method | Direction | Kind | Params | Result | What |\n|---|---|---|---|---|---|\n")
	for _, m := range wire.Methods {
		res := m.Result
		if m.Kind == wire.Request && res == "" {
			res = "{}"
		}
		par := m.Params
		if par == "" {
			par = "{}"
		}
		w("| `%s` | %s | %s | `%s` | %s | %s |\n", m.Name, m.Dir, m.Kind, par, codeOr(res), m.Doc)
	}
	w("\nJSON-RPC error codes, declared in `wire/errors.go` (one meaning each):\n\n")
	w("| Code | Name | Meaning |\n|---|---|---|\n")
	for _, e := range wire.Errors {
		w("| `%d` | `%s` | %s |\n", e.Code, e.Key, e.Meaning)
	}
	w("%s\n", docEnd)
	return b.Bytes()
}

func codeOr(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

// spliceDoc replaces the generated tables in doc (they must be there once).
func spliceDoc(doc, tables []byte) ([]byte, error) {
	i := bytes.Index(doc, []byte(docBegin))
	j := bytes.Index(doc, []byte(docEnd))
	if i < 0 || j < i || bytes.Count(doc, []byte(docBegin)) != 1 {
		return nil, fmt.Errorf("%s: want the markers %q ... %q once", docPath, docBegin, docEnd)
	}
	j += len(docEnd)
	if j < len(doc) && doc[j] == '\n' {
		j++
	}
	out := append([]byte{}, doc[:i]...)
	out = append(out, tables...)
	return append(out, doc[j:]...), nil
}
