//go:build !linux

package sandbox

import "errors"

func landlockABI() int { return 0 }

func scopeSelf() error { return errors.New("Landlock is Linux only") }

func landlockNote() string { return "" }
