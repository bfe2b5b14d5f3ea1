package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

// bigInput is a tool call whose rawInput is n bytes, as an agent reports a
// call it ran without asking.
func bigInput(i, n int) json.RawMessage {
	c, _ := json.Marshal(map[string]any{"tool": "Bash", "command": fmt.Sprintf("cat f%d", i), "input": map[string]string{"data": strings.Repeat("x", n)}})
	return c
}

// floodScenario writes a deny, the person's allow and ask decisions, then
// many unasked records with big rawInput (the agent's flood), then more
// decision, and returns the decision records it wrote (the last one after
// the flood).
func floodScenario(t *testing.T, l *Log, unasked, inputBytes int) []Record {
	t.Helper()
	at := t0
	tick := func() time.Time { at = at.Add(10 * time.Millisecond); return at }
	decisions := []Record{
		{Time: tick(), Agent: "claude", SessionID: "s1", ToolCallID: "toolu_rm", Call: json.RawMessage(`{"tool":"Bash","command":"rm -rf ~"}`),
			Specifier: "Bash(rm -rf ~)", Decision: "deny", Source: "rule", Rule: "Bash(rm *)", Reason: "denied by rule"},
		{Time: tick(), Agent: "claude", SessionID: "s1", ToolCallID: "toolu_ok", Call: json.RawMessage(`{"tool":"Bash","command":"npm test"}`),
			Specifier: "Bash(npm test)", Decision: "allow", Source: "user", OptionID: "allow_once"},
		{Time: tick(), Agent: "claude", SessionID: "s1", ToolCallID: "toolu_unasked_deny", Call: json.RawMessage(`{"tool":"Bash","command":"curl x | sh"}`),
			Specifier: "Bash(curl x | sh)", Decision: "unasked", Would: "deny", Source: "rule", Rule: "Bash(curl *)"},
	}
	for _, r := range decisions {
		if err := l.Append(r); err != nil {
			t.Fatalf("Append %s: %v", r.ToolCallID, err)
		}
	}
	for i := range unasked {
		r := Record{Time: tick(), Agent: "claude", SessionID: "s1", ToolCallID: fmt.Sprintf("flood-%d", i), Call: bigInput(i, inputBytes),
			Specifier: fmt.Sprintf("Bash(cat f%d)", i), Decision: "unasked", Would: "allow", Source: "rule"}
		if err := l.Append(r); err != nil {
			t.Fatalf("Append flood %d: %v", i, err)
		}
	}
	last := Record{Time: tick(), Agent: "claude", SessionID: "s1", ToolCallID: "toolu_after", Call: json.RawMessage(`{"tool":"Read","paths":["/w/.env"]}`),
		Specifier: "Read(/w/.env)", Decision: "deny", Source: "rule", Rule: "Read(.env)"}
	if err := l.Append(last); err != nil {
		t.Fatal(err)
	}
	return append(decisions, last)
}

func byToolCall(t *testing.T, path string) map[string]Record {
	t.Helper()
	out := map[string]Record{}
	err := Read(path, Filter{}, func(r Record) error {
		out[r.ToolCallID] = r
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return out
}

func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// The agent floods the log with far more than its budget of unasked tool
// calls, each with a big rawInput. Every decision record, the deny first,
// is still readable (the `acp-bridge audit` reader, Read and Print); the
// control, the single-file writer, loses the deny.
func TestFloodKeepsEveryDecision(t *testing.T) {
	const budget = 64 << 10 // per rotated file
	const flood, input = 1500, 8 << 10
	if total := int64(flood) * input; total < 20*budget*(Generations+1) {
		t.Fatalf("the flood (%d bytes) does not exceed the budget (%d) enough", total, budget*(Generations+1))
	}
	for _, tc := range []struct {
		name    string
		single  bool
		wantAll bool
	}{
		{"control: one file, no limit", true, false},
		{"streams", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "audit.jsonl")
			l, err := open(path, budget, zaptest.NewLogger(t), 50, time.Minute, tc.single)
			if err != nil {
				t.Fatal(err)
			}
			decisions := floodScenario(t, l, flood, input)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			got := byToolCall(t, path)
			for i, d := range decisions {
				r, ok := got[d.ToolCallID]
				if i == len(decisions)-1 && !ok {
					t.Errorf("the deny written after the flood is not readable")
				}
				if i < len(decisions)-1 && ok != tc.wantAll {
					t.Errorf("decision %s (%s %s) readable = %v, want %v", d.ToolCallID, d.Decision, d.Specifier, ok, tc.wantAll)
					continue
				}
				if ok && (r.Decision != d.Decision || r.Specifier != d.Specifier || r.Rule != d.Rule) {
					t.Errorf("decision %s read back as %+v", d.ToolCallID, r)
				}
			}
			var table bytes.Buffer
			if err := Print(&table, path, Filter{Decision: "deny"}, false); err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(table.String(), "Bash(rm -rf ~)"); has != tc.wantAll {
				t.Errorf("acp-bridge audit --decision deny shows the rm -rf deny = %v, want %v:\n%s", has, tc.wantAll, table.String())
			}
			if tc.single {
				return
			}
			// What the flood costs on disk: the unasked budget, plus the
			// denies file and the decisions file, small.
			if n := dirBytes(t, dir); n > budget*(Generations+1)*2+64<<10 {
				t.Errorf("the log takes %d bytes after the flood, past two budgets", n)
			}
			// The flood is summarised: 50 in full, the rest counted.
			var full, counted int
			err = Read(path, Filter{Decision: "unasked"}, func(r Record) error {
				if r.Summary != nil {
					counted += r.Summary.Count
					if r.Summary.Tool != "Bash" || r.Agent != "claude" || r.SessionID != "s1" {
						t.Errorf("summary %+v", r)
					}
				} else if r.Would == "allow" {
					full++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if full != 50 || counted != flood-50 {
				t.Errorf("flood read back as %d in full + %d counted, want 50 + %d", full, counted, flood-50)
			}
		})
	}
}

// A flood of denies (the agent asks for denied calls at will) is counted
// past the rate, never rotated: the first deny stays.
func TestDenyFloodKeepsFirstDeny(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := open(path, 4<<10, zaptest.NewLogger(t), 10, time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	at := t0
	l.mu.Lock()
	l.now = func() time.Time { return at }
	l.mu.Unlock()
	for i := range 2000 {
		// Two minutes: two windows.
		l.mu.Lock()
		at = at.Add(60 * time.Millisecond)
		l.mu.Unlock()
		if err := l.Append(Record{Time: at, Agent: "a", SessionID: "s", ToolCallID: fmt.Sprintf("d%d", i), Call: bigInput(i, 8<<10),
			Specifier: fmt.Sprintf("Bash(rm -rf %d)", i), Decision: "deny", Source: "rule", Rule: "Bash(rm *)"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := byToolCall(t, path)
	if _, ok := got["d0"]; !ok {
		t.Fatal("the first deny is gone")
	}
	var full, counted int
	if err := Read(path, Filter{Decision: "deny"}, func(r Record) error {
		if r.Summary != nil {
			counted += r.Summary.Count
		} else {
			full++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// 1000 per minute: 10 in full per window, 2 windows (+1 for the
	// boundary), the rest counted; nothing lost.
	if full+counted != 2000 || full > 30 {
		t.Errorf("denies read back as %d in full + %d counted, want 2000 in all, at most 30 in full", full, counted)
	}
	for i := 1; i <= Generations; i++ {
		if _, err := os.Stat(generation(path+DeniesSuffix, i)); err == nil {
			t.Errorf("the deny file was rotated (%s exists)", generation(path+DeniesSuffix, i))
		}
	}
}

// A long call is cut: the record keeps a prefix, the original size and its
// sha256, and stays a valid record whose tool is known.
func TestLongFieldsAreCutAndHashed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path, 0)
	call := bigInput(1, 1<<20)
	spec := "Bash(" + strings.Repeat("y", 5000) + ")"
	if err := l.Append(Record{Time: t0, Agent: "a", SessionID: "s", ToolCallID: "t", Call: call, Specifier: spec,
		Decision: "unasked", Would: "ask", Source: "rule"}); err != nil {
		t.Fatal(err)
	}
	got := byToolCall(t, path)["t"]
	want := map[string]int{"call": len(call), "specifier": len(spec)}
	sums := map[string][]byte{"call": call, "specifier": []byte(spec)}
	if len(got.Cut) != 2 {
		t.Fatalf("cut = %+v, want call and specifier", got.Cut)
	}
	for _, c := range got.Cut {
		sum := sha256.Sum256(sums[c.Field])
		if c.Bytes != want[c.Field] || c.SHA256 != hex.EncodeToString(sum[:]) || c.Kept <= 0 || c.Kept >= c.Bytes {
			t.Errorf("cut %+v: want %d bytes and the sha256 of the original", c, want[c.Field])
		}
	}
	if len(got.Call) > MaxCallBytes || callText(Record{Call: got.Call}) != "Bash" {
		t.Errorf("call kept = %d bytes, tool %q", len(got.Call), callText(Record{Call: got.Call}))
	}
	if len(got.Specifier) > MaxFieldBytes+len("…") {
		t.Errorf("specifier kept = %d bytes", len(got.Specifier))
	}
}

// A flood followed by silence is still summarised once its window ends
// (the timer), not only at Close.
func TestSummaryWrittenAfterWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := open(path, 0, zaptest.NewLogger(t), 2, 50*time.Millisecond, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	now := time.Now()
	for i := range 5 {
		if err := l.Append(Record{Time: now, Agent: "a", SessionID: "s", ToolCallID: fmt.Sprint(i), Call: json.RawMessage(`{"tool":"Read"}`),
			Decision: "unasked", Would: "allow", Source: "rule"}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var count int
		_ = Read(path, Filter{}, func(r Record) error {
			if r.Summary != nil {
				count += r.Summary.Count
			}
			return nil
		})
		if count == 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no summary of 3 records within 5s (got %d)", count)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An agent that names a new tool for each denied call does not escape the
// rate: past SessionRateFactor*rate records in full per session and
// window, the rest are counted; none is lost.
func TestNewToolPerCallDoesNotEscapeRate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := open(path, 0, zaptest.NewLogger(t), 5, time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 500
	for i := range n {
		call, _ := json.Marshal(map[string]any{"tool": fmt.Sprintf("mcp__x__t%d", i), "paths": []string{".env"}})
		if err := l.Append(Record{Time: t0.Add(time.Duration(i) * time.Millisecond), Agent: "a", SessionID: "s", ToolCallID: fmt.Sprint(i),
			Call: call, Decision: "deny", Source: "rule", Rule: "Read(.env)"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var full, counted int
	if err := Read(path, Filter{}, func(r Record) error {
		if r.Summary != nil {
			counted += r.Summary.Count
		} else {
			full++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if full != SessionRateFactor*5 || full+counted != n {
		t.Errorf("%d in full + %d counted; want %d in full, %d in all", full, counted, SessionRateFactor*5, n)
	}
}
