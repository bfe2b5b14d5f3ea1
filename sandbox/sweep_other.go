//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
)

// Where there is no sandbox to prepare (Prepare refuses), there is no
// private directory to lock or sweep.

func lockPrivate(string) (*os.File, error) { return nil, errors.New("sandbox: no lock here") }

func resolvedPlace(p string) (string, error) {
	parent, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.Base(p)), nil
}

func removePlaceholder(placeholder) bool { return false }

func removeUnused([]placeholder, string) {}

func liveUses(string) map[string]bool { return nil }

// Sweep does nothing here: see the Linux one.
func Sweep() int { return 0 }

func ownPrivateDir(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return errors.New("not a private directory")
	}
	return nil
}

// usableDir: the homes root stays in the system's temp directory here.
func usableDir(string) bool { return false }
