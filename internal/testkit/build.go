package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// RunWithBinary is a TestMain body for test packages that drive the real
// acp-bridge binary: it builds ./cmd/acp-bridge (found from pkgDir, the
// path of cmd/acp-bridge relative to the test package) into a temporary
// directory, with -race when race is set, stores its path in *bin, runs the
// tests and exits with their code. A test binary started as the fake agent
// serves ACP instead (ServeFakeAgentIfChild).
func RunWithBinary(run func() int, bin *string, pkgDir string, race bool) {
	ServeFakeAgentIfChild()
	dir, err := os.MkdirTemp("", "acp-bridge-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "acp-bridge")
	args := []string{"build", "-o", *bin}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, pkgDir)...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build acp-bridge:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := run()
	os.RemoveAll(dir)
	os.Exit(code)
}
