package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/acp-bridge/acp-bridge/wire"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := findRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestGeneratedFilesUpToDate fails when wire.gen.ts or the tables of
// docs/extension-surface.md differ from what wire/*.go generate.
func TestGeneratedFilesUpToDate(t *testing.T) {
	root := repoRoot(t)
	files, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./wire and commit it", rel)
		}
	}
}

// TestCheckFailsOnStaleFile runs the generator's -check on a copy whose
// generated file was edited by hand: it must name the file.
func TestCheckFailsOnStaleFile(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()
	for _, rel := range []string{tsPath, docPath} {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if rel == tsPath {
			b = bytes.Replace(b, []byte(`"_acp-bridge/approvals/respond"`), []byte(`"_acp-bridge/approvals/answer"`), 1)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := run(tmp, true)
	if err == nil || !strings.Contains(err.Error(), tsPath) || strings.Contains(err.Error(), docPath) {
		t.Fatalf("run -check on a hand-edited %s: %v, want an error naming it alone", tsPath, err)
	}
	if err := run(tmp, false); err != nil {
		t.Fatal(err)
	}
	if err := run(tmp, true); err != nil {
		t.Fatalf("after generating, -check still fails: %v", err)
	}
}

func TestValidateRefusesBadDeclarations(t *testing.T) {
	ok := wire.Methods[0]
	tests := []struct {
		name    string
		methods []wire.Method
		errs    []wire.ErrorCode
		want    string
	}{
		{"declarations as they are", wire.Methods, wire.Errors, ""},
		{"one code, two meanings", nil, []wire.ErrorCode{{Code: -32001, Key: "refused"}, {Code: -32001, Key: "badToken"}}, "-32001"},
		{"one key twice", nil, []wire.ErrorCode{{Code: -32001, Key: "x"}, {Code: -32004, Key: "x"}}, "declared twice"},
		{"method twice", []wire.Method{ok, ok}, nil, "declared twice"},
		{"not the prefix", []wire.Method{{Name: "session/x", Key: "x"}}, nil, "does not start"},
		{"undeclared payload", []wire.Method{{Name: wire.Prefix + "x", Key: "x", Params: "Nope"}}, nil, "Nope"},
		{"notification with result", []wire.Method{{Name: wire.Prefix + "x", Key: "x", Kind: wire.Notification, Result: "TrustReport"}}, nil, "has a result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := validate(tc.methods, tc.errs)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("validate: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// sentTypes are the struct types whose fields the bridge sends the editor:
// what it puts in _meta, the params of its own methods and the results of
// the editor's.
func sentTypes() map[string]reflect.Type {
	roots := []reflect.Type{}
	for _, p := range wire.Payloads {
		if p.Meta != "" {
			roots = append(roots, p.Type)
		}
	}
	for _, m := range wire.Methods {
		name := m.Result
		if m.Dir == wire.BridgeToEditor {
			name = m.Params
		}
		if name != "" {
			roots = append(roots, payloadType(name))
		}
	}
	out := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if _, ok := out[t.Name()]; ok {
			return
		}
		out[t.Name()] = t
		for _, f := range fields(t) {
			if f.Ignored != "" {
				continue // not read at all, nor what it holds
			}
			inner := map[string]reflect.Type{}
			tsType(f.Type, inner)
			for _, it := range inner {
				walk(it)
			}
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}

// extensionSources is the extension's TypeScript, generated file excluded.
func extensionSources(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	for _, dir := range []string{"vscode-extension/src", "vscode-extension/webview"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".ts") || filepath.Join(dir, e.Name()) == tsPath {
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			b.Write(src)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// reads says whether src reads a property called name: x.name, x?.name,
// x["name"], or { name } / { a, name: b } in a destructuring.
func reads(src, name string) bool {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`\??\.` + q + `\b|\[\s*"` + q + `"\s*\]|(?:const|let|var)\s*\{[^}=]*\b` + q + `\b[^}=]*\}\s*=`).MatchString(src)
}

// TestExtensionReadsEverySentField is the drift test: every field the bridge
// sends the editor is read by the extension, or declared as deliberately
// ignored (wire:"ignored=<why>"). A read is recognised by the property's
// name (reads), so a common name (id, reason) read for another type also
// counts: the test catches a field nobody reads under any type.
func TestExtensionReadsEverySentField(t *testing.T) {
	if missing := unread(extensionSources(t, repoRoot(t))); len(missing) > 0 {
		t.Errorf("sent by the bridge, never read by the extension (read it, or tag it wire:\"ignored=<why>\"): %s", strings.Join(missing, ", "))
	}
}

// unread lists the sent fields src never reads that are not tagged ignored.
func unread(src string) []string {
	types := sentTypes()
	var missing []string
	for _, name := range sortedKeys(types) {
		for _, f := range fields(types[name]) {
			if f.Ignored == "" && !reads(src, f.Name) {
				missing = append(missing, name+"."+f.Name)
			}
		}
	}
	return missing
}

// TestDriftCatchesAnUnreadField: a source that reads every sent field but
// the card's sandbox note fails on that one field.
func TestDriftCatchesAnUnreadField(t *testing.T) {
	var src strings.Builder
	for _, tp := range sentTypes() {
		for _, f := range fields(tp) {
			if f.Name != "sandbox" {
				src.WriteString("x." + f.Name + ";\n")
			}
		}
	}
	if got := unread(src.String()); !reflect.DeepEqual(got, []string{"CardMeta.sandbox"}) {
		t.Fatalf("unread = %v, want [CardMeta.sandbox]", got)
	}
	if got := unread(src.String() + "m.sandbox;\n"); len(got) != 0 {
		t.Fatalf("unread with m.sandbox = %v, want none", got)
	}
}

func TestReads(t *testing.T) {
	tests := []struct {
		src, name string
		want      bool
	}{
		{`m.sandbox`, "sandbox", true},
		{`m?.rejectEndsTurn`, "rejectEndsTurn", true},
		{`m["breaker"]`, "breaker", true},
		{`const { operation, mode } = m;`, "operation", true},
		{`const x = { sandbox: 1 };`, "sandbox", false},
		{`m.sandboxes`, "sandbox", false},
		{`// sandbox`, "sandbox", false},
	}
	for _, tc := range tests {
		if got := reads(tc.src, tc.name); got != tc.want {
			t.Errorf("reads(%q, %q) = %v, want %v", tc.src, tc.name, got, tc.want)
		}
	}
}

// TestMethodNamesOnlyInWire: no Go or TypeScript source outside wire/ and
// wire.gen.ts spells an _acp-bridge/ method name as a literal.
func TestMethodNamesOnlyInWire(t *testing.T) {
	root := repoRoot(t)
	lit := regexp.MustCompile(`["']_acp-bridge/[A-Za-z]`)
	var found []string
	for _, dir := range []string{".", "vscode-extension/src", "vscode-extension/webview"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				if rel == "wire" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && rel != "." || (dir == "." && rel == "vscode-extension") {
					return filepath.SkipDir
				}
				return nil
			}
			goSrc := strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go")
			tsSrc := strings.HasSuffix(p, ".ts") && rel != tsPath
			if !goSrc && !tsSrc {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				if lit.MatchString(line) {
					found = append(found, rel+":"+itoa(i+1))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(found)
	if len(found) > 0 {
		t.Errorf("_acp-bridge/ method names spelled outside wire/ (use wire.<Name> / M.<key>):\n%s", strings.Join(found, "\n"))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
