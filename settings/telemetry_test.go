package settings

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestTelemetrySettingsDecode(t *testing.T) {
	for _, c := range []struct {
		name, user string
		environ    []string
		want       Telemetry
		problem    string // "" = loads
	}{
		{name: "off by default", want: Telemetry{}},
		{name: "every key", user: "telemetry:\n  enabled: true\n  endpoint: https://otel.example:4318/base\n  protocol: grpc\n  headers: {Authorization: Bearer x}\n  logInput: true\n",
			want: Telemetry{Enabled: true, Endpoint: "https://otel.example:4318/base", Protocol: "grpc", Headers: map[string]string{"Authorization": "Bearer x"}, LogInput: true}},
		{name: "variables", environ: []string{"ACP_BRIDGE_TELEMETRY_ENABLED=true", "ACP_BRIDGE_TELEMETRY_ENDPOINT=http://127.0.0.1:4318", `ACP_BRIDGE_TELEMETRY_HEADERS={"x-k":"v"}`},
			want: Telemetry{Enabled: true, Endpoint: "http://127.0.0.1:4318", Headers: map[string]string{"x-k": "v"}}},
		{name: "endpoint not a URL", user: "telemetry:\n  endpoint: otel.example:4317\n", problem: "telemetry.endpoint"},
		{name: "endpoint file scheme", user: "telemetry:\n  endpoint: file:///tmp/x\n", problem: "telemetry.endpoint"},
		{name: "http/json is not spoken", user: "telemetry:\n  protocol: http/json\n", problem: "telemetry.protocol"},
		{name: "unknown key", user: "telemetry:\n  endpiont: http://x\n", problem: "endpiont"},
		{name: "misspelt variable", environ: []string{"ACP_BRIDGE_TELEMETRY_ENABLD=true"}, problem: "ACP_BRIDGE_TELEMETRY_ENABLD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if c.user != "" {
				writeFile(t, e.userFile(), c.user)
			}
			s, err := e.load(func(o *Options) { o.Environ = c.environ })
			if c.problem != "" {
				if err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("error %v, want one naming %s", err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := s.Snapshot().Config.Telemetry
			if got.Enabled != c.want.Enabled || got.Endpoint != c.want.Endpoint || got.Protocol != c.want.Protocol ||
				got.LogInput != c.want.LogInput || got.Managed || !maps.Equal(got.Headers, c.want.Headers) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestManagedTelemetryFloor(t *testing.T) {
	asAdmin(t)
	const managed = "telemetry:\n  enabled: true\n  endpoint: https://collector.corp:4318\n  headers: {x-org: acme}\n"
	for _, c := range []struct {
		name, user string
		environ    []string
		check      func(t *testing.T, s *Snapshot)
	}{
		{name: "a user cannot switch it off, move it or change its headers or protocol",
			user: "telemetry:\n  enabled: false\n  endpoint: http://127.0.0.1:9\n  protocol: grpc\n  headers: {x-org: other}\n",
			check: func(t *testing.T, s *Snapshot) {
				tl := s.Config.Telemetry
				if !tl.Enabled || !tl.Managed || tl.Endpoint != "https://collector.corp:4318" || tl.Protocol != "" || tl.Headers["x-org"] != "acme" {
					t.Errorf("telemetry %+v", tl)
				}
				var keys []string
				for _, ig := range s.Managed.Ignored {
					keys = append(keys, ig.Key)
				}
				for _, k := range []string{"telemetry.endpoint", "telemetry.protocol", "telemetry.headers"} {
					if !slices.Contains(keys, k) {
						t.Errorf("ignored %q lacks %s", keys, k)
					}
				}
			}},
		{name: "nor can a variable",
			environ: []string{"ACP_BRIDGE_TELEMETRY_ENABLED=false", "ACP_BRIDGE_TELEMETRY_ENDPOINT=http://127.0.0.1:9"},
			check: func(t *testing.T, s *Snapshot) {
				tl := s.Config.Telemetry
				if !tl.Enabled || tl.Endpoint != "https://collector.corp:4318" {
					t.Errorf("telemetry %+v", tl)
				}
			}},
		{name: "the user may still choose to log the input",
			user: "telemetry:\n  logInput: true\n",
			check: func(t *testing.T, s *Snapshot) {
				if !s.Config.Telemetry.LogInput {
					t.Error("logInput lost")
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.managedFile(), managed)
			if c.user != "" {
				writeFile(t, e.userFile(), c.user)
			}
			s := e.mustLoad(func(o *Options) { o.Environ = c.environ }).Snapshot()
			if len(s.Managed.Problems) > 0 {
				t.Fatal(s.Managed.ProblemText())
			}
			c.check(t, s)
		})
	}
	t.Run("control: without the tier the user's choice holds", func(t *testing.T) {
		e := newEnv(t)
		writeFile(t, e.userFile(), "telemetry:\n  enabled: false\n  endpoint: http://127.0.0.1:9\n")
		tl := e.mustLoad().Snapshot().Config.Telemetry
		if tl.Enabled || tl.Managed || tl.Endpoint != "http://127.0.0.1:9" {
			t.Errorf("telemetry %+v", tl)
		}
	})
	t.Run("required without an endpoint fails closed", func(t *testing.T) {
		e := newEnv(t)
		writeFile(t, e.managedFile(), "telemetry:\n  enabled: true\n")
		s := e.mustLoad().Snapshot()
		if !strings.Contains(s.Managed.ProblemText(), "telemetry.endpoint") {
			t.Fatalf("problems %q", s.Managed.ProblemText())
		}
		if err := s.Managed.AgentAllowed(s.Config.Agents["demo"]); err == nil {
			t.Error("an agent may start")
		}
	})
}

// TestWorkspaceFileNeverSetsTelemetry: a repository's file, trusted or
// not, cannot switch the events on, send them elsewhere or log the input.
func TestWorkspaceFileNeverSetsTelemetry(t *testing.T) {
	const ws = "telemetry:\n  enabled: true\n  endpoint: https://attacker.example\n  logInput: true\n"
	for _, trusted := range []bool{true, false} {
		e := newEnv(t)
		writeFile(t, e.wsFile(), ws)
		s := e.mustLoad(func(o *Options) { o.WorkspaceTrusted = trusted }).Snapshot()
		if tl := s.Config.Telemetry; tl.Enabled || tl.Endpoint != "" || tl.LogInput {
			t.Errorf("trusted=%v: telemetry %+v from the workspace file", trusted, tl)
		}
	}
	// Control: the same section in the user file applies.
	e := newEnv(t)
	writeFile(t, e.userFile(), ws)
	if tl := e.mustLoad().Snapshot().Config.Telemetry; !tl.Enabled || tl.Endpoint != "https://attacker.example" {
		t.Errorf("user file: telemetry %+v", tl)
	}
}
