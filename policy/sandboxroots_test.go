package policy

import (
	"reflect"
	"testing"
)

func TestDenyRoots(t *testing.T) {
	env := Env{Cwd: "/w/proj", ProjectRoot: "/w/proj", Home: "/home/u"}
	cases := []struct {
		name string
		deny []string
		tool string
		want []DenyRoot
	}{
		{"bare name anywhere", []string{"Read(.env*)"}, "Read", []DenyRoot{{Dir: "/", AnyDepth: true, Rule: "Read(.env*)", Name: ".env*"}}},
		{"home subtree", []string{"Read(~/.ssh/**)"}, "Read", []DenyRoot{{Dir: "/home/u/.ssh", Rule: "Read(~/.ssh/**)"}}},
		{"absolute file", []string{"Read(//etc/shadow)"}, "Read", []DenyRoot{{Dir: "/etc/shadow", Rule: "Read(//etc/shadow)"}}},
		{"project root glob", []string{"Read(/secrets/*.pem)"}, "Read", []DenyRoot{{Dir: "/w/proj/secrets", Rule: "Read(/secrets/*.pem)"}}},
		{"cwd relative any depth", []string{"Read(./build/**/key)"}, "Read", []DenyRoot{{Dir: "/w/proj/build", Rule: "Read(./build/**/key)"}}},
		{"edit rules are their own", []string{"Read(.env)", "Edit(/docs/**)"}, "Edit", []DenyRoot{{Dir: "/w/proj/docs", Rule: "Edit(/docs/**)"}}},
		{"Write is Edit", []string{"Write(//opt/x)"}, "Edit", []DenyRoot{{Dir: "/opt/x", Rule: "Write(//opt/x)"}}},
		{"bash rules give none", []string{"Bash(rm *)"}, "Read", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rules []RuleText
			for _, d := range c.deny {
				rules = append(rules, RuleText{List: "deny", Text: d, Origin: Origin{Layer: "user"}})
			}
			pol, errs := Compile(rules)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if got := pol.DenyRoots(c.tool, env); !reflect.DeepEqual(got, c.want) {
				t.Errorf("DenyRoots(%s) = %+v, want %+v", c.tool, got, c.want)
			}
		})
	}
}
