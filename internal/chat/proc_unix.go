//go:build unix

package chat

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcAttr puts the child in its own process group, so the terminal's
// Ctrl-C reaches the chat (which cancels the turn) and not the agent.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func terminate(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }
