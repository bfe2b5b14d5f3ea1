package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCodexProfiles(t *testing.T) {
	const ap, sm = `approval_policy="untrusted"`, `sandbox_mode="danger-full-access"`
	tests := []struct {
		name    string
		config  string // "" = no config.toml
		args    []string
		sandbox string
		want    []string
		wantErr string
	}{
		{name: "no config no args", args: []string{"-c", "model=m"}, want: []string{"-c", "model=m"}},
		{name: "profiles in config", config: "profile = \"fast\"\n[profiles.fast]\napproval_policy = \"never\"\n[profiles.slow]\nmodel = \"m\"\n",
			want: []string{"-c", "profiles.fast." + ap, "-c", "profiles.slow." + ap}},
		{name: "selected profile not defined", config: "profile = \"ghost\"\n", want: []string{"-c", "profiles.ghost." + ap}},
		{name: "sandbox mode when confined", config: "[profiles.x]\nsandbox_mode = \"danger-full-access\"\n", sandbox: `"danger-full-access"`,
			want: []string{"-c", "profiles.x." + ap, "-c", "profiles.x." + sm}},
		{name: "profile in args", args: []string{"-c", "profile=y", "--config=profile=\"z\""},
			want: []string{"-c", "profile=y", "--config=profile=\"z\"", "-c", "profiles.y." + ap, "-c", "profiles.z." + ap}},
		{name: "profile flag", args: []string{"--profile", "p1", "--profile=p2"},
			want: []string{"--profile", "p1", "--profile=p2", "-c", "profiles.p1." + ap, "-c", "profiles.p2." + ap}},
		{name: "runner's -p is not a profile", args: []string{"-y", "-p", "@zed-industries/codex-acp", "codex-acp"},
			want: []string{"-y", "-p", "@zed-industries/codex-acp", "codex-acp"}},
		{name: "profile settings stripped", args: []string{"-c", `profiles.x.approval_policy="never"`, `--config=profiles.x.sandbox_mode="danger-full-access"`,
			`-cprofiles.x={approval_policy="never"}`, "-c", `profiles={x={approval_policy="never"}}`, "-c", `profiles."a.b".approval_policy="never"`, "-c", "profiles.x.model=m"},
			want: []string{"-c", "profiles.x.model=m"}},
		{name: "dotted profile name", config: "[profiles.\"a.b\"]\napproval_policy = \"never\"\n", wantErr: `codex profile "a.b"`},
		{name: "invalid config", config: "profile = \n", wantErr: "codex config"},
		{name: "profile not a string", config: "profile = 3\n", wantErr: "want a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "config.toml")
			if tc.config != "" {
				if err := os.WriteFile(cfg, []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			in := slices.Clone(tc.args)
			got, _, err := codexProfiles(cfg, tc.args, tc.sandbox)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("args\n got %q\nwant %q", got, tc.want)
			}
			if !slices.Equal(in, tc.args) {
				t.Errorf("input modified: %q", tc.args)
			}
		})
	}
}
