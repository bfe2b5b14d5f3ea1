package settings

import (
	"strings"
	"testing"
	"time"
)

func TestAgentInitTimeout(t *testing.T) {
	cases := []struct {
		yaml    string
		want    time.Duration
		problem string
	}{
		{"agents:\n  a: {command: x, initTimeoutSeconds: 90}\n", 90 * time.Second, ""},
		{"agents:\n  a: {command: x}\n", 0, ""},
		{"agents:\n  a: {command: x, initTimeoutSeconds: 0}\n", 0, "agents.a.initTimeoutSeconds: must be > 0"},
		{"agents:\n  a: {command: x, initTimeoutSeconds: soon}\n", 0, "agents.a.initTimeoutSeconds"},
	}
	for _, c := range cases {
		e := newEnv(t)
		writeFile(t, e.userFile(), c.yaml)
		s, err := e.load()
		if c.problem != "" {
			if err == nil || !strings.Contains(strings.Join(problems(t, err), "\n"), c.problem) {
				t.Fatalf("%q: err %v, want a problem naming %q", c.yaml, err, c.problem)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if got := s.Snapshot().Config.Agents["a"].InitTimeout; got != c.want {
			t.Fatalf("%q: InitTimeout %v, want %v", c.yaml, got, c.want)
		}
	}
}
