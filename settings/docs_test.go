package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsCoverEveryKey keeps docs/settings.md complete: every key, its
// environment variable and its VS Code name.
func TestDocsCoverEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	global, fields := EnvNames()
	for name, path := range global {
		for _, want := range []string{"`" + path + "`", "`" + name + "`", "acpBridge." + path} {
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
