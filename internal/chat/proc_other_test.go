//go:build !unix

package chat

import (
	"errors"
	"os"
)

var sigUser1 os.Signal

func ignoreTerm() {}

// processGone cannot be checked here; tests that need it skip.
func processGone(int) bool { return true }

func signalProcess(int, os.Signal) error { return errors.New("no signals on this platform") }
