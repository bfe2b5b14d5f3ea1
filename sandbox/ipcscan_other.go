//go:build !linux

package sandbox

import (
	"io/fs"
	"os"
)

// readDir calls visit for every entry of the directory dir (buf is unused
// here: only Linux reads directories without allocating per entry).
func readDir(dir *[]byte, _ []byte, visit func(name []byte, k entryKind) bool) (bool, error) {
	f, err := os.Open(string(*dir))
	if err != nil {
		return true, err
	}
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	for _, e := range ents {
		k := kindOther
		switch {
		case e.Type()&fs.ModeSocket != 0:
			k = kindSocket
		case e.Type()&fs.ModeSymlink != 0:
			k = kindLink
		case e.IsDir():
			k = kindDir
		}
		if !visit([]byte(e.Name()), k) {
			return false, nil
		}
	}
	return true, nil
}
