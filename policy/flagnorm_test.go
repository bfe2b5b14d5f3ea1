package policy

import (
	"sort"
	"strings"
	"testing"
)

func TestNormalizeWords(t *testing.T) {
	cases := []struct {
		cmd, path, flags, operands string
	}{
		{"rm -rf x", "rm", "f r", "x"},
		{"rm x -Rf", "rm", "f r", "x"},
		{"rm --recursive --force -- -x", "rm", "f r", "-x"},
		{"cp -t dir a b", "cp", "t t=dir", "a b"},
		{"chmod -x f", "chmod", "", "-x f"},
		{"chmod -R u+x f", "chmod", "R", "u+x f"},
		{"git push origin +main", "git push", "f", "origin main"},
		{"git push --force-with-lease=main origin", "git push", "f f=main", "origin"},
		{"curl -XPOST -H a:b https://x", "curl", "H H=a:b X X=POST", "https://x"},
		{"docker --context c container run -it --privileged img rm -rf /", "docker run", "--privileged i t", "img rm -rf /"},
		{"kubectl -n prod delete ns x", "kubectl delete", "n n=prod", "ns x"},
	}
	for _, c := range cases {
		n, ok := normalizeWords(strings.Split(c.cmd, " "))
		if !ok {
			t.Errorf("%q: not read", c.cmd)
			continue
		}
		var fl []string
		for f := range n.flags {
			fl = append(fl, f)
		}
		sort.Strings(fl)
		if n.path != c.path || strings.Join(fl, " ") != c.flags || strings.Join(n.operands, " ") != c.operands {
			t.Errorf("%q: got %q [%s] %q; want %q [%s] %q", c.cmd, n.path, strings.Join(fl, " "), strings.Join(n.operands, " "), c.path, c.flags, c.operands)
		}
	}
	for _, cmd := range []string{"ls -la", "git", "git -C x push", "docker ps -a", "kubectl"} {
		if _, ok := normalizeWords(strings.Split(cmd, " ")); ok {
			t.Errorf("%q: read as a well-known command", cmd)
		}
	}
}

func TestNormPatternOnlyForDenyAndAsk(t *testing.T) {
	pol, errs := Compile([]RuleText{{List: "allow", Text: "Bash(rm -rf build)"}, {List: "deny", Text: "Bash(rm -rf *)"}, {List: "deny", Text: "Bash(rm -r*)"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(pol.allow.norm) != 0 {
		t.Error("an allow rule got a flag-order reading")
	}
	if len(pol.deny.norm) != 1 || pol.deny.norm[0].text != "Bash(rm -rf *)" {
		t.Errorf("deny rules with a flag-order reading: %d", len(pol.deny.norm))
	}
}
