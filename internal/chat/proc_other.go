//go:build !unix

package chat

import (
	"os"
	"os/exec"
)

func setProcAttr(*exec.Cmd) {}

// terminate has no gentle form here: the caller kills after the grace period.
func terminate(*os.Process) {}
