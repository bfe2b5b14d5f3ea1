package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/policy"
)

// terminalCreate is a child's terminal/create as the bridge judges and
// forwards it: read by the members' exact names, and forwarded as rebuilt
// from these fields only, so the editor runs what the policy judged.
type terminalCreate struct {
	Command string
	Args    []string
	Env     []envVar
	// rest are the other members ACP defines, forwarded as they are.
	rest map[string]json.RawMessage
}

type envVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// terminalMembers are the members of terminal/create ACP defines besides
// command, args and env.
var terminalMembers = []string{"sessionId", "cwd", "outputByteLimit", "_meta"}

func readTerminalCreate(o acp.Object) (terminalCreate, error) {
	var t terminalCreate
	if raw, ok := o["command"]; !ok || json.Unmarshal(raw, &t.Command) != nil || t.Command == "" {
		return t, errors.New("command is required (a string)")
	}
	if raw, ok := o["args"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &t.Args); err != nil {
			return t, errors.New("args must be a list of strings")
		}
	}
	if raw, ok := o["env"]; ok && string(raw) != "null" {
		var env []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &env); err != nil {
			return t, errors.New("env must be a list of {name, value}")
		}
		for i, e := range env {
			var v envVar
			if json.Unmarshal(e["name"], &v.Name) != nil || json.Unmarshal(e["value"], &v.Value) != nil {
				return t, fmt.Errorf("env[%d] must be {\"name\": string, \"value\": string}", i)
			}
			if _, ok := policy.ShellAssign(v.Name, v.Value); !ok {
				return t, fmt.Errorf("env[%d].name %q is not a variable name", i, v.Name)
			}
			if strings.IndexByte(v.Value, 0) >= 0 {
				return t, fmt.Errorf("env[%d].value holds a NUL byte", i)
			}
			t.Env = append(t.Env, v)
		}
	}
	t.rest = map[string]json.RawMessage{}
	for _, k := range terminalMembers {
		if raw, ok := o[k]; ok {
			t.rest[k] = raw
		}
	}
	return t, nil
}

// setCwd replaces the cwd member with dir (the resolved directory that was
// judged).
func (t terminalCreate) setCwd(dir string) {
	raw, _ := json.Marshal(dir)
	t.rest["cwd"] = raw
}

// assignments renders the environment as shell assignments.
func (t terminalCreate) assignments() string {
	parts := make([]string, 0, len(t.Env))
	for _, e := range t.Env {
		a, _ := policy.ShellAssign(e.Name, e.Value)
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// object is the request to forward: exactly what was judged.
func (t terminalCreate) object() acp.Object {
	o := acp.Object{}
	for k, v := range t.rest {
		o[k] = v
	}
	o.Set("command", t.Command)
	if t.Args == nil {
		t.Args = []string{}
	}
	o.Set("args", t.Args)
	if len(t.Env) > 0 {
		o.Set("env", t.Env)
	}
	return o
}
