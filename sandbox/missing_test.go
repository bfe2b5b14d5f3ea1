package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// MissingProtected reads the disk at every call (the joined paths are kept
// per roots, never whether they exist): a place made between two calls
// leaves the list, one removed comes back; a root named twice is listed
// once; each listed path is under a root and missing.
func TestMissingProtectedReadsTheDiskEachCall(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	rel := inRootPlaces()[0]
	cases := []struct {
		name  string
		roots []string
	}{
		{"one root", []string{a}},
		{"two roots", []string{a, b}},
		{"a root twice", []string{a, b, a}},
		{"an empty root", []string{"", a}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			place := filepath.Join(a, rel)
			before := MissingProtected(tc.roots...)
			if !slices.Contains(before, place) {
				t.Fatalf("%s is missing but not listed", place)
			}
			if again := MissingProtected(tc.roots...); &again[0] != &before[0] {
				t.Fatal("two calls finding the same places missing under the same roots got two lists; want one shared")
			}
			seen := map[string]bool{}
			for _, p := range before {
				if seen[p] {
					t.Fatalf("%s listed twice", p)
				}
				seen[p] = true
				if _, err := os.Lstat(p); !os.IsNotExist(err) {
					t.Fatalf("%s listed but exists (%v)", p, err)
				}
			}
			if err := os.MkdirAll(filepath.Dir(place), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(place, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(MissingProtected(tc.roots...), place) {
				t.Fatalf("%s exists now but is still listed", place)
			}
			if err := os.Remove(place); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(MissingProtected(tc.roots...), place) {
				t.Fatalf("%s was removed but is not listed again", place)
			}
		})
	}
}
