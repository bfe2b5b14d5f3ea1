package profiles

import (
	"strings"
	"testing"
)

// keyNorm's fast path (a key with nothing to fold is returned as it is)
// equals the plain definition: lower-cased, '_' and '-' removed.
func TestKeyNormEqualsDefinition(t *testing.T) {
	def := func(k string) string { return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k)) }
	for _, k := range []string{"", "path", "file_path", "filePath", "FILE-PATH", "cwd", "Cwd", "working_directory",
		"ﬁle", "İd", "ǅx", "a\u00e9b", "K\u212a", "--", "__x__", "x\xffy"} {
		if got, want := keyNorm(k), def(k); got != want {
			t.Errorf("keyNorm(%q) = %q, want %q", k, got, want)
		}
	}
}
