package policy

import (
	"fmt"
	"testing"
)

func TestZZDebug(t *testing.T) {
	for file, cases := range loadAdversarial(t) {
		if file < "20" {
			continue
		}
		for _, c := range cases {
			v := Evaluate(c.input(t, ModeBypass, false))
			fmt.Printf("%s | %s %s%v | %s %s | %s\n", file[:2], c.Tool, c.Cmd, c.Paths, v.Decision, v.Source, v.Reason)
		}
	}
}
