package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsCoverEveryKey keeps docs/settings.md complete: every key and its
// environment variable. (Which keys VS Code offers is checked against the
// extension's manifest by TestDocsVSCodeNamesExist.)
func TestDocsCoverEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	global, fields := EnvNames()
	for name, path := range global {
		for _, want := range []string{"`" + path + "`", "`" + name + "`"} {
			if !strings.Contains(doc, want) {
				t.Errorf("docs/settings.md does not mention %s", want)
			}
		}
	}
	for suffix, path := range fields {
		for _, want := range []string{"`agents.<name>." + path + "`", "`ACP_BRIDGE_AGENTS_<NAME>_" + suffix + "`"} {
			if !strings.Contains(doc, want) {
				t.Errorf("docs/settings.md does not mention %s", want)
			}
		}
	}
	for _, k := range topKeys {
		if !strings.Contains(doc, "`"+k) {
			t.Errorf("docs/settings.md does not mention top-level key %s", k)
		}
	}
}

// TestDocsVSCodeNamesExist: every acpBridge.* setting docs/settings.md names
// is contributed by the VS Code extension (or is a field of one that is), so
// the doc never promises a setting the Settings editor does not have.
func TestDocsVSCodeNamesExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join("..", "vscode-extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration json.RawMessage `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(manifest, &pkg); err != nil {
		t.Fatal(err)
	}
	type section struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var sections []section
	if json.Unmarshal(pkg.Contributes.Configuration, &sections) != nil {
		var one section
		if err := json.Unmarshal(pkg.Contributes.Configuration, &one); err != nil {
			t.Fatal(err)
		}
		sections = []section{one}
	}
	contributed := map[string]bool{}
	for _, sec := range sections {
		for name := range sec.Properties {
			contributed[name] = true
		}
	}
	if len(contributed) == 0 {
		t.Fatal("no settings found in vscode-extension/package.json")
	}
	names := regexp.MustCompile(`acpBridge\.[A-Za-z.]*[A-Za-z]`).FindAllString(string(doc), -1)
	if len(names) == 0 {
		t.Fatal("docs/settings.md names no acpBridge.* setting")
	}
	for _, n := range names {
		ok := false
		for p := n; p != "acpBridge"; p = p[:strings.LastIndexByte(p, '.')] {
			if contributed[p] {
				ok = true // the setting itself, or a field inside it
				break
			}
		}
		if !ok {
			t.Errorf("docs/settings.md names %s, which the extension does not contribute", n)
		}
	}
}
