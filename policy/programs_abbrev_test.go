package policy

import (
	"strings"
	"testing"
)

func TestExpandOptions(t *testing.T) {
	cases := []struct {
		cmd       string
		want      string
		ambiguous string
	}{
		{"git rebase --exe=x HEAD~1", "git rebase --exec=x HEAD~1", ""},
		{"git fetch --upl=x .", "git fetch --upload-pack=x .", ""},
		{"git grep --open-files=x foo", "git grep --open-files-in-pager=x foo", ""},
		{"git -C . -c a=b rebase --exe x", "git -C . -c a=b rebase --exec x", ""},
		{"mv --t=/tmp src", "mv --target-directory=/tmp src", ""},
		{"cp --target src f", "cp --target-directory src f", ""},
		{"wget --output-doc=f u", "wget --output-document=f u", ""},
		{"make --ev=x", "make --eval=x", ""},
		{"tar -czf a.tgz --remove-f src", "tar -czf a.tgz --remove-files src", ""},
		{"go test --exec=x ./...", "go test -exec=x ./...", ""},
		{"go test -test.coverprofile=f ./... -args -test.testlogfile=g", "go test -coverprofile=f ./... -args -testlogfile=g", ""},
		// exact names and unknown options stay; words after -- stay.
		{"git rebase --exec x main", "git rebase --exec x main", ""},
		{"git fetch --all", "git fetch --all", ""},
		{"mv -- --t=x y", "mv -- --t=x y", ""},
		{"ls --colour", "ls --colour", ""},
		// a prefix of several known options: the program refuses it, the
		// policy asks.
		{"git grep --fi foo", "git grep --fi foo", "--fi"},
		{"sort --r x", "sort --r x", "--r"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			fs := strings.Fields(c.cmd)
			args := make([]word, len(fs)-1)
			for i, f := range fs[1:] {
				args[i] = staticWordPath(f)
			}
			out, amb := expandOptions(fs[0], args)
			got := []string{fs[0]}
			for _, w := range out {
				got = append(got, w.s)
			}
			if g := strings.Join(got, " "); g != c.want {
				t.Errorf("expandOptions(%q) = %q, want %q", c.cmd, g, c.want)
			}
			if amb != c.ambiguous {
				t.Errorf("expandOptions(%q) ambiguous %q, want %q", c.cmd, amb, c.ambiguous)
			}
		})
	}
}

// TestGoFlagBasesEqualsScan: the set computed once answers as the scan of
// the tables, for every program name, every prefix of a go subcommand,
// names with blanks, and names no table has.
func TestGoFlagBasesEqualsScan(t *testing.T) {
	loadPrograms()
	names := []string{"", "go", "go ", "go test", "gofmt", "g", "tool501", "go tool", "npm"}
	for n := range programs {
		names = append(names, n)
	}
	yes := 0
	for _, n := range names {
		got, want := goFlagBase(n), goFlagBaseOf(n)
		if got != want {
			t.Errorf("goFlagBase(%q) = %v, scan says %v", n, got, want)
		}
		if want {
			yes++
		}
	}
	if yes == 0 || yes == len(names) {
		t.Fatalf("%d of %d names are go flag bases: the set does not tell them apart", yes, len(names))
	}
}
