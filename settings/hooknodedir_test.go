package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Red team 15 (refused now: needScript refuses a directory, and the node_modules walk starts at a directory too): the node_modules-in-every-parent check runs only for an
// argument that is a regular file. A node hook given its script as a
// directory (node DIR runs DIR/index.js, or package.json's main) skips it:
// node still resolves a missing module through every parent's
// node_modules, the home's (the workspace) included. Control: the same
// hook naming DIR/index.js is refused (TestNodeHookModulesInTheHomeRefused).
func TestNodeHookScriptAsDirectoryRefused(t *testing.T) {
	node := "/usr/bin/node"
	if _, err := os.Stat(node); err != nil {
		t.Skip("no node")
	}
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "acp-bridge")
	hookDir := filepath.Join(cfgDir, "corp-hook")
	planted := filepath.Join(home, "node_modules", "corp-optional")
	for _, d := range []string{hookDir, planted} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(planted, "index.js"), "require('fs').writeFileSync('"+marker+"', 'x');\n")
	writeFile(t, filepath.Join(hookDir, "index.js"), "try { require('corp-optional') } catch (e) {}\nconsole.log('{\"decision\":\"ask\"}')\n")
	trees := []WritableTree{{Path: home, Why: "it is the workspace"}}
	environ := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	cmd := []string{node, hookDir}
	probs := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: cmd}}}, trees, []string{cfgDir}, environ)
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Dir, c.Env = "/", hookEnviron(environ, trees, []string{cfgDir})
	out, err := c.CombinedOutput()
	_, statErr := os.Stat(marker)
	t.Logf("%q: problems %v; loaded the home's node_modules: %v (%v %s)", cmd, probs, statErr == nil, err, out)
	if len(probs) == 0 && statErr == nil {
		t.Errorf("HOLE: a node hook named by its directory loads a module from the (writable) home's node_modules")
	}
	if p := hookPathProblems(Config{Hooks: []HookConfig{{Name: "guard", Command: []string{node, filepath.Join(hookDir, "index.js")}}}}, trees, []string{cfgDir}, environ); len(p) == 0 {
		t.Fatal("control: DIR/index.js accepted")
	}
}
