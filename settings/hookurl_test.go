package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRT15bHookPercentEncodedURLRefused (red team 15b): node loads a module
// from a file: URL whose path is percent-encoded (file:///%77s/x.mjs is
// /ws/x.mjs); the check judges the path as written (/%77s/x.mjs: outside
// every tree) and '%' is no metacharacter. Without the OS sandbox (the
// settings' check is all there is) node runs the agent's module outside
// every sandbox. Control: the plain spelling is refused; the encoded one,
// run, loads the workspace's module.
func TestHookPercentEncodedURLRefused(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	node, _ = filepath.EvalSymlinks(node)
	root := t.TempDir()
	ws, tools := filepath.Join(root, "ws"), filepath.Join(root, "tools")
	for _, d := range []string{ws, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(root, "agent-ran")
	os.WriteFile(filepath.Join(ws, "x.mjs"), []byte("import fs from 'fs'; fs.writeFileSync("+strconvQuote(marker)+", 'x');\n"), 0o644)
	hook := filepath.Join(tools, "hook.js")
	os.WriteFile(hook, []byte("console.log(JSON.stringify({decision:'ask'}))\n"), 0o644)
	trees := []WritableTree{{Path: ws, Why: "it is the workspace"}}
	environ := []string{"HOME=/nonexistent-home", "PATH=/usr/bin:/bin"}
	plain := "--import=file://" + filepath.Join(ws, "x.mjs")
	if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "h", Command: []string{node, plain, hook}}}}, trees, nil, environ); len(p) == 0 {
		t.Fatalf("control: %s accepted", plain)
	}
	// encode the first letter after the leading slash of each element of ws
	var enc strings.Builder
	for _, el := range strings.Split(strings.TrimPrefix(ws, "/"), "/") {
		enc.WriteString("/%" + strings.ToUpper(hex2(el[0])) + el[1:])
	}
	for _, arg := range []string{"--import=file://" + enc.String() + "/x.mjs", "--import=file://localhost" + filepath.Join(ws, "x.mjs")} {
		os.Remove(marker)
		cmd := []string{node, arg, hook}
		probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "h", Command: cmd}}}, trees, nil, environ)
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir, c.Env = "/", hookEnviron(environ, trees, nil)
		out, _ := c.CombinedOutput()
		_, statErr := os.Stat(marker)
		t.Logf("%q: problems %v; agent's module ran: %v (%s)", cmd, probs, statErr == nil, out)
		if len(probs) == 0 && statErr == nil {
			t.Errorf("red team 15b: %q loads and runs the workspace's x.mjs outside every sandbox", cmd)
		}
	}
}

func hex2(b byte) string {
	const h = "0123456789abcdef"
	return string([]byte{h[b>>4], h[b&15]})
}

func strconvQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }
