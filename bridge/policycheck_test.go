package bridge

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acp-bridge/acp-bridge/acp"
)

func TestPolicyCheck(t *testing.T) {
	h := start(t, twoAgents())
	h.init(false)
	cases := []struct {
		name    string
		params  string
		ok      bool
		errPart string // in the result's error
		rpcErr  bool
	}{
		{"simple allow", `{"rule":"Bash(npm run build)"}`, true, "", false},
		{"wildcard deny", `{"rule":"Bash(rm -rf *)","list":"deny"}`, true, "", false},
		{"bare tool", `{"rule":"Read"}`, true, "", false},
		{"mcp", `{"rule":"mcp__github__create_issue"}`, true, "", false},
		{"unclosed paren", `{"rule":"Bash(rm -rf build"}`, false, "", false},
		{"unclosed paren in deny", `{"rule":"Bash(rm -rf build","list":"deny"}`, false, "", false},
		{"no tool name", `{"rule":"(ls)"}`, false, "", false},
		{"empty", `{"rule":""}`, false, "empty", false},
		{"bad domain", `{"rule":"WebFetch(domain:)"}`, false, "", false},
		{"bad list", `{"rule":"Read","list":"maybe"}`, false, "", true},
		{"bad params", `[1]`, false, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var res policyCheckResult
			err := h.editor.Conn.Call(tctx(t), MethodPolicyCheck, json.RawMessage(c.params), &res)
			if c.rpcErr {
				if err == nil {
					t.Fatalf("want an invalid-params error, got %+v", res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.OK != c.ok {
				t.Fatalf("ok = %v, want %v (%+v)", res.OK, c.ok, res)
			}
			if !c.ok && res.Error == "" {
				t.Fatal("a refused rule must say why")
			}
			if c.errPart != "" && !strings.Contains(res.Error, c.errPart) {
				t.Fatalf("error %q does not mention %q", res.Error, c.errPart)
			}
		})
	}
}

// An editor that answers settings/persist with CodePersistDeclined: the grant
// is neither written to the bridge's config file nor kept at run time.
func TestPersistDeclinedStoresNothing(t *testing.T) {
	h := start(t, twoAgents())
	declined := make(chan struct{}, 1)
	h.editor.OnRequest = func(method string, params json.RawMessage) (any, error) {
		if method == acp.MethodSettingsPersist {
			declined <- struct{}{}
			return nil, acp.Errorf(CodePersistDeclined, "the person declined to store the grant")
		}
		return nil, acp.MethodNotFound(method)
	}
	h.init(false)
	sid := h.session("")
	res := h.promptAsync(sid, "perm keep")
	p, err := h.editor.NextPermission(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	p.Answer(acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: acp.OutcomeSelected, OptionID: optAllowAlways},
		Meta: json.RawMessage(`{"acp-bridge":{"rule":"Bash(touch *)","scope":"user"}}`)})
	wait(t, res, "prompt")
	wait(t, declined, "settings/persist")
	// The decline is handled in the persist goroutine; wait until the runtime copy is gone.
	ctx := tctx(t)
	for {
		h.bridge.mu.Lock()
		n := len(h.bridge.runtimeRules)
		h.bridge.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the declined rule is still applied at run time")
		default:
		}
		<-time.After(20 * time.Millisecond)
	}
	if data, _ := os.ReadFile(h.cfg); strings.Contains(string(data), "Bash(touch *)") {
		t.Fatalf("declined rule written to %s:\n%s", h.cfg, data)
	}
	// The next identical call asks again.
	res = h.promptAsync(sid, "perm again")
	p, err = h.editor.NextPermission(ctx)
	if err != nil {
		t.Fatal("no card after a declined grant:", err)
	}
	p.Answer(acp.Selected(optRejectOnce))
	wait(t, res, "prompt")
}

func TestPolicyExplain(t *testing.T) {
	h := start(t, twoAgents()+"permissions:\n  deny: [\"Read(./secrets/**)\"]\n")
	h.init(false)
	cases := []struct {
		name     string
		params   string
		decision string
		rule     string
		rpcErr   bool
	}{
		{"a workspace file reads", `{"tool":"Read","input":{"file_path":"main.go"},"agent":"alpha"}`, "allow", "", false},
		{"a denied file", `{"tool":"Read","input":{"file_path":"secrets/key.pem"},"agent":"alpha"}`, "deny", "Read(./secrets/**)", false},
		{"the default agent", `{"tool":"Read","input":{"file_path":"secrets/a"}}`, "deny", "Read(./secrets/**)", false},
		{"an absolute path", `{"tool":"Read","input":{"file_path":"WS/secrets/a"}}`, "deny", "Read(./secrets/**)", false},
		{"no tool", `{"input":{"file_path":"x"}}`, "", "", true},
		{"bad mode", `{"tool":"Read","input":{"file_path":"x"},"mode":"yolo"}`, "", "", true},
		{"bad params", `[1]`, "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var res policyExplainResult
			params := strings.ReplaceAll(c.params, "WS", h.ws)
			err := h.editor.Conn.Call(tctx(t), MethodPolicyExplain, json.RawMessage(params), &res)
			if c.rpcErr {
				if err == nil {
					t.Fatalf("want an invalid-params error, got %+v", res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != c.decision || res.Rule != c.rule {
				t.Fatalf("got %+v, want decision %s rule %q", res, c.decision, c.rule)
			}
		})
	}
}
