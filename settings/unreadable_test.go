package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Something that is there but cannot be read is an error, never "absent":
// an absent file's deny rules would silently stop applying.
func TestUnreadableFilesAreErrors(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(e *env) string
		want    string
	}{
		{"user file is a dangling symlink", func(e *env) string {
			p := e.userFile()
			_ = os.Symlink(filepath.Join(e.userDir, "gone.yaml"), p)
			return p
		}, "does not exist"},
		{"user file is a directory", func(e *env) string {
			p := e.userFile()
			_ = os.Mkdir(p, 0o700)
			return p
		}, "is a directory"},
		{"workspace file is a dangling symlink", func(e *env) string {
			p := e.wsFile()
			_ = os.Symlink(filepath.Join(e.wsDir, "gone.yaml"), p)
			return p
		}, "does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			path := c.prepare(e)
			_, err := e.load()
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load = %v; want an error naming %s (%s)", err, path, c.want)
			}
		})
	}
}
