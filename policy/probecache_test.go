package policy

import (
	"reflect"
	"testing"
)

// The probe lists kept across evaluations are the lists a fresh
// evaluation builds, for each environment apart: another home, root or
// protected file gets its own.
func TestProbeListKeptPerEnvironment(t *testing.T) {
	envs := []Env{
		{Cwd: "/w/a", ProjectRoot: "/w/a", Home: "/h/one"},
		{Cwd: "/w/a", ProjectRoot: "/w/a", Home: "/h/two"},
		{Cwd: "/w/a/sub", ProjectRoot: "/w/a", Home: "/h/one"},
		{Cwd: "/w/b", ProjectRoot: "/w/b", Home: "/h/one", ProtectedPaths: []string{"/etc/acp/config.yaml"}},
		{Cwd: "/w/b", ProjectRoot: "/w/b", Home: "/h/one", ProtectedPaths: []string{"/etc/acp/other.yaml"}},
	}
	for round := range 2 {
		for i, env := range envs {
			e := newEnvx(env)
			got := e.probeList()
			fresh := newEnvx(env)
			want := fresh.buildProbeList()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, env %d: kept list differs from a fresh one", round, i)
			}
			if !hasProbe(got, env.Home+"/.bashrc") || !hasProbe(got, env.ProjectRoot+"/.git") {
				t.Errorf("round %d, env %d: list lacks its own home's or root's places", round, i)
			}
			for j, other := range envs {
				if other.Home != env.Home && hasProbe(got, other.Home+"/.bashrc") {
					t.Errorf("round %d: env %d's list holds env %d's home", round, i, j)
				}
				for _, p := range other.ProtectedPaths {
					if !contains(env.ProtectedPaths, p) && hasProbe(got, p) {
						t.Errorf("round %d: env %d's list holds env %d's protected file %s", round, i, j, p)
					}
				}
			}
		}
	}
}

func hasProbe(list []probe, p string) bool {
	for _, pr := range list {
		if pr.path == p {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
