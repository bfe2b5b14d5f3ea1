package profiles

import "testing"

func TestArgvCommand(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"bash", "-lc", "npm test && npm run lint"}, "bash -lc 'npm test && npm run lint'"},
		{[]string{"/bin/sh", "-c", "ls"}, "/bin/sh -c ls"},
		{[]string{"zsh", "-cl", "ls"}, "zsh -cl ls"},
		{[]string{"bash", "-l", "-c", "make"}, "bash -l -c make"},
		{[]string{"bash", "-c", "echo $1", "x"}, "bash -c 'echo $1' x"},
		{[]string{"bash", "-c", "  "}, "bash -c '  '"},
		{[]string{"bash", "-x", "script.sh"}, "bash -x script.sh"},
		{[]string{"python3", "-c", "print(1)"}, "python3 -c 'print(1)'"},
		{[]string{"ls"}, "ls"},
	}
	for _, c := range cases {
		if got := argvCommand(c.argv); got != c.want {
			t.Errorf("argvCommand(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}
