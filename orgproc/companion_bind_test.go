package orgproc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Red team 15 (refused now: oneName asks internal/mountnames): the companion beside a bridge installed in a directory
// that is a bind mount of a directory in a writable tree (/opt/acp from
// ~/proj/bin): one name (a bind mount adds no link), no symlink on its
// path, so oneName accepts it; the agent rewrites it through the
// workspace's name, and the next (re)start runs that outside every sandbox.
// Run in a private mount namespace (unshare -m, root).
func TestCompanionThroughABindMountRefused(t *testing.T) {
	if p := os.Getenv("RT15_ORG_INNER"); p != "" {
		err := oneName(p)
		t.Logf("oneName(%s) = %v", p, err)
		if err == nil {
			t.Errorf("HOLE: a companion bind-mounted from a writable tree is accepted by oneName")
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for unshare -m")
	}
	root := t.TempDir()
	ws, opt := filepath.Join(root, "ws", "bin"), filepath.Join(root, "opt-acp")
	for _, d := range []string{ws, opt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, Name), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Control: the workspace's name itself is one plain file too (the
	// sandbox guards it by that path, which is not the path run).
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
		`mount --bind "$1" "$2" && exec "$3" -test.run '^TestCompanionThroughABindMountRefused$' -test.v -test.count=1`, "sh", ws, opt, os.Args[0])
	cmd.Env = append(os.Environ(), "RT15_ORG_INNER="+filepath.Join(opt, Name))
	out, err := cmd.CombinedOutput()
	t.Logf("inner: %v\n%s", err, out)
	if err != nil {
		t.Errorf("HOLE (see inner output)")
	}
}
