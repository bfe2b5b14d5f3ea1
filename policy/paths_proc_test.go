package policy

import "testing"

// procPath reads /proc paths as the program opening them would, in every
// spelling of the same place (., .., //, thread-self), and leaves other
// /proc files alone (the controls).
func TestProcPath(t *testing.T) {
	const cwd = "/w/p"
	cases := []struct {
		in, want string
		unsure   bool
	}{
		{"/proc/self/cwd/.env", "/w/p/.env", false},
		{"/proc/thread-self/cwd/.env", "/w/p/.env", false},
		{"/proc/self/cwd", "/w/p", false},
		{"/./proc/self/cwd/.env", "/w/p/.env", false},
		{"/proc//self/./cwd/.env", "/w/p/.env", false},
		{"/proc/x/../self/cwd/.env", "/w/p/.env", false},
		{"/proc/self/root/etc/passwd", "/etc/passwd", false},
		{"/proc/self/root/w/p/.env", "/w/p/.env", false},
		{"/proc/1234/cwd/.env", "", true},
		{"/proc/1234/root/w/p/.env", "", true},
		{"/proc/self/fd/3", "", true},
		{"/proc/self/exe", "", true},
		{"/proc/self/map_files/1-2", "", true},
		{"/proc/self/task/7/cwd/.env", "", true},
		{"/dev/fd/3", "", true},
		{"/proc/cpuinfo", "/proc/cpuinfo", false},
		{"/proc/self/status", "/proc/self/status", false},
		{"/proc/self/environ", "/proc/self/environ", false},
		{"/w/p/proc/self/cwd/x", "/w/p/proc/self/cwd/x", false},
	}
	for _, c := range cases {
		got, unsure := procPath(c.in, cwd)
		if unsure != c.unsure || (!c.unsure && cleanAbs(got) != c.want) {
			t.Errorf("procPath(%q) = %q, %v; want %q, %v", c.in, got, unsure, c.want, c.unsure)
		}
	}
}
