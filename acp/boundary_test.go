package acp

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONRPC2StaysInACP: sourcegraph/jsonrpc2 is acp's engine; no other
// package of the module names it (they use acp's Conn, Error, ErrClosed,
// ErrorCode and TraceMessage), so the engine has one home.
func TestJSONRPC2StaysInACP(t *testing.T) {
	root := ".."
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "vscode-extension", "tools":
				return filepath.SkipDir
			}
			if filepath.Clean(p) == filepath.Clean(filepath.Join(root, "acp")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		n++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), `"github.com/sourcegraph/jsonrpc2"`) {
			t.Errorf("%s imports sourcegraph/jsonrpc2: use package acp", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d Go files seen", n)
	}
}
