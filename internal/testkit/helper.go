package testkit

import (
	"fmt"
	"os"
	"strings"
)

// fakeAgentEnv marks a test binary started as the fake agent.
const fakeAgentEnv = "ACP_BRIDGE_FAKE_AGENT"

// ServeFakeAgentIfChild is called first in a test package's TestMain: when
// the test binary was started as the fake agent (see FakeAgentYAML), it
// serves ACP on stdio and exits instead of running tests.
func ServeFakeAgentIfChild() {
	if os.Getenv(fakeAgentEnv) != "1" {
		return
	}
	args := os.Args[1:]
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	_ = ServeFakeAgent(os.Stdin, os.Stdout, ParseFakeAgentArgs(args))
	os.Exit(0)
}

// FakeAgentYAML is the settings YAML (under `agents:`) of an agent named
// name that runs this test binary as the fake agent with the given flags.
func FakeAgentYAML(name string, flags ...string) string {
	args := append([]string{"-test.run=^$", "--", "--name=" + name}, flags...)
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return fmt.Sprintf("  %s:\n    command: %q\n    args: [%s]\n    env: {%s: \"1\"}\n", name, os.Args[0], strings.Join(q, ", "), fakeAgentEnv)
}
