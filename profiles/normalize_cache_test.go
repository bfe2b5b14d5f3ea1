package profiles

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

func mergedFields(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("merged %s: %v", raw, err)
	}
	return obj
}

func TestToolCallCacheMerge(t *testing.T) {
	cases := []struct {
		name    string
		updates []string
		request string
		want    map[string]string // member -> compact JSON; "" = absent
	}{
		{
			name: "tool_call twice with the same id: rawInput {} then full",
			updates: []string{
				`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Terminal","kind":"execute","rawInput":{}}`,
				`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls","kind":"execute","rawInput":{"command":"ls"}}`,
			},
			request: `{"toolCallId":"t1","title":"` + "`ls`" + `"}`,
			want:    map[string]string{"rawInput": `{"command":"ls"}`, "kind": `"execute"`, "title": `"` + "`ls`" + `"`},
		},
		{
			name: "full rawInput is not erased by a later {}",
			updates: []string{
				`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls","rawInput":{"command":"ls"}}`,
				`{"sessionUpdate":"tool_call_update","toolCallId":"t1","rawInput":{}}`,
			},
			request: `{"toolCallId":"t1","rawInput":{}}`,
			want:    map[string]string{"rawInput": `{"command":"ls"}`},
		},
		{
			name:    "request with only a toolCallId takes everything from the cache",
			updates: []string{`{"sessionUpdate":"tool_call","toolCallId":"t2","title":"Read a","kind":"read","locations":[{"path":"/a"}],"rawInput":{"file_path":"/a"},"_meta":{"claudeCode":{"toolName":"Read"}}}`},
			request: `{"toolCallId":"t2"}`,
			want:    map[string]string{"title": `"Read a"`, "kind": `"read"`, "locations": `[{"path":"/a"}]`, "rawInput": `{"file_path":"/a"}`, "_meta": `{"claudeCode":{"toolName":"Read"}}`},
		},
		{
			name:    "request fields win",
			updates: []string{`{"sessionUpdate":"tool_call","toolCallId":"t3","title":"old","kind":"read","rawInput":{"file_path":"/a"}}`},
			request: `{"toolCallId":"t3","title":"new","kind":"edit","rawInput":{"file_path":"/b","content":"x"}}`,
			want:    map[string]string{"title": `"new"`, "kind": `"edit"`, "rawInput": `{"file_path":"/b","content":"x"}`},
		},
		{
			name:    "a null in the request does not erase",
			updates: []string{`{"sessionUpdate":"tool_call","toolCallId":"t4","title":"x","kind":"execute","rawInput":{"command":"make"}}`},
			request: `{"toolCallId":"t4","kind":null,"rawInput":null}`,
			want:    map[string]string{"kind": `"execute"`, "rawInput": `{"command":"make"}`},
		},
		{
			name:    "updates other than tool calls are ignored",
			updates: []string{`{"sessionUpdate":"agent_message_chunk","toolCallId":"t5","content":{"type":"text","text":"hi"}}`},
			request: `{"toolCallId":"t5","title":"only"}`,
			want:    map[string]string{"title": `"only"`, "content": ""},
		},
		{
			name:    "other ids stay apart",
			updates: []string{`{"sessionUpdate":"tool_call","toolCallId":"other","title":"x","rawInput":{"command":"rm -rf /"}}`},
			request: `{"toolCallId":"t6","title":"mine"}`,
			want:    map[string]string{"title": `"mine"`, "rawInput": ""},
		},
	}
	for _, c := range cases {
		// Through Upsert, and through UpsertMembers with the update read
		// into its members (as acp reads them), which must not change them.
		for _, members := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/members=%v", c.name, members), func(t *testing.T) {
				cache := NewToolCallCache(8)
				for _, u := range c.updates {
					if !members {
						cache.Upsert(json.RawMessage(u))
						continue
					}
					m := mergedFields(t, json.RawMessage(u))
					n := len(m)
					cache.UpsertMembers(m)
					if len(m) != n {
						t.Fatalf("UpsertMembers changed its map: %d members, then %d", n, len(m))
					}
				}
				checkMerged(t, mergedFields(t, cache.Merge(json.RawMessage(c.request))), c.want)
			})
		}
	}
}

func checkMerged(t *testing.T, got map[string]json.RawMessage, want map[string]string) {
	t.Helper()
	for k, want := range want {
		raw, ok := got[k]
		if want == "" {
			if ok {
				t.Errorf("%s = %s, want absent", k, raw)
			}
			continue
		}
		if !ok || !jsonEqual(t, raw, json.RawMessage(want)) {
			t.Errorf("%s = %s, want %s", k, raw, want)
		}
	}
	if _, ok := got["sessionUpdate"]; ok {
		t.Errorf("merged call carries sessionUpdate: %v", got)
	}
}

// Gemini sends no tool_call before the request: the request passes through
// untouched, and is remembered for a later bare request on the same id.
func TestToolCallCacheRequestWithoutToolCall(t *testing.T) {
	cache := NewToolCallCache(8)
	req := json.RawMessage(`{"toolCallId":"run_shell_command-1","status":"pending","title":"npm test","content":[],"locations":[],"kind":"execute"}`)
	if got := cache.Merge(req); string(got) != string(req) {
		t.Fatalf("unknown id: Merge = %s, want the request as is", got)
	}
	got := mergedFields(t, cache.Merge(json.RawMessage(`{"toolCallId":"run_shell_command-1"}`)))
	if !jsonEqual(t, got["title"], json.RawMessage(`"npm test"`)) || !jsonEqual(t, got["kind"], json.RawMessage(`"execute"`)) {
		t.Errorf("bare follow-up merged = %v, want the first request's title and kind", got)
	}
	call, err := Normalize(FamilyGemini, cache.Merge(json.RawMessage(`{"toolCallId":"run_shell_command-1"}`)))
	if err != nil || call.Tool != "Bash" || call.Command != "npm test" {
		t.Errorf("Normalize(bare follow-up) = %+v, %v; want Bash npm test", call, err)
	}
}

func TestToolCallCacheAsIs(t *testing.T) {
	cache := NewToolCallCache(8)
	cache.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"a","title":"x"}`))
	for _, in := range []string{`not json`, `[1,2]`, `{"title":"no id"}`, `{"toolCallId":5,"title":"numeric id"}`, `null`} {
		if got := cache.Merge(json.RawMessage(in)); string(got) != in {
			t.Errorf("Merge(%s) = %s, want it as is", in, got)
		}
	}
	for _, in := range []string{`not json`, `{"sessionUpdate":"tool_call"}`, `{"sessionUpdate":"tool_call","toolCallId":""}`, `[]`} {
		cache.Upsert(json.RawMessage(in))
	}
	if cache.Len() != 1 {
		t.Errorf("Len = %d after junk upserts, want 1", cache.Len())
	}
}

func TestToolCallCacheBounded(t *testing.T) {
	cache := NewToolCallCache(3)
	for i := range 3 {
		cache.Upsert(json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"id%d","title":"t%d"}`, i, i)))
	}
	// Touch id0 so that id1 is now the least recently used.
	cache.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call_update","toolCallId":"id0","status":"in_progress"}`))
	cache.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"id3","title":"t3"}`))
	if cache.Len() != 3 {
		t.Fatalf("Len = %d, want 3", cache.Len())
	}
	if got := mergedFields(t, cache.Merge(json.RawMessage(`{"toolCallId":"id0"}`))); !jsonEqual(t, got["title"], json.RawMessage(`"t0"`)) {
		t.Errorf("id0 was evicted although recently touched: %v", got)
	}
	if got := mergedFields(t, cache.Merge(json.RawMessage(`{"toolCallId":"id1"}`))); got["title"] != nil {
		t.Errorf("id1 survived eviction: %v", got)
	}
	if NewToolCallCache(0).max != DefaultToolCallCacheSize {
		t.Errorf("NewToolCallCache(0) is not bounded by the default")
	}
}

func TestToolCallCacheConcurrent(t *testing.T) {
	cache := NewToolCallCache(64)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				id := fmt.Sprintf("id%d", (g*7+i)%100)
				cache.Upsert(json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"rawInput":{"command":"echo %d"}}`, id, i)))
				merged := cache.Merge(json.RawMessage(fmt.Sprintf(`{"toolCallId":%q,"kind":"execute"}`, id)))
				var obj map[string]json.RawMessage
				if err := json.Unmarshal(merged, &obj); err != nil {
					t.Errorf("merged %s: %v", merged, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := cache.Len(); n > 64 {
		t.Errorf("Len = %d, want <= 64", n)
	}
}

func FuzzNormalize(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "normalize", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var cases []normalizeCase
		if err := json.Unmarshal(data, &cases); err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			f.Add([]byte(c.ToolCall))
		}
	}
	for _, s := range []string{``, `null`, `{}`, `[]`, `{"toolCallId":"x","rawInput":{"command":[]}}`,
		`{"toolCallId":"x","kind":"execute","rawInput":{"command":["bash","-lc"]}}`,
		`{"toolCallId":"x","title":"Shell: ` + "\xff" + `"}`, `{"_meta":{"claudeCode":{"toolName":{}}}}`,
		`{"toolCallId":"x","rawInput":{"changes":{"":{}}}}`, `{"title":"developer: : · "}`} {
		f.Add([]byte(s))
	}
	families := []Family{FamilyClaude, FamilyCodex, FamilyGemini, FamilyGoose, FamilyOpenCode, FamilyKimi, FamilyGeneric}
	f.Fuzz(func(t *testing.T, data []byte) {
		cache := NewToolCallCache(4)
		cache.Upsert(json.RawMessage(data))
		merged := cache.Merge(json.RawMessage(data))
		for _, fam := range families {
			c, err := Normalize(fam, merged)
			if err != nil {
				if c.Tool != "" {
					t.Fatalf("%s: error %v with tool %q", fam, err, c.Tool)
				}
				continue
			}
			switch c.Tool {
			case "Bash":
				if c.Command == "" {
					t.Fatalf("%s: Bash without a command from %s", fam, data)
				}
			case "Edit", "Read":
				if len(c.Paths) == 0 {
					t.Fatalf("%s: %s without paths from %s", fam, c.Tool, data)
				}
			case "WebFetch":
				if !isWebURL(c.URL) {
					t.Fatalf("%s: WebFetch with URL %q from %s", fam, c.URL, data)
				}
			}
		}
	})
}

func TestToolCallCacheForgetsFinishedCalls(t *testing.T) {
	c := NewToolCallCache(0)
	c.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"a","title":"t","kind":"edit","content":[{"type":"diff","path":"/x","newText":"big"}]}`))
	c.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"b","title":"u","kind":"read"}`))
	c.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"in_progress"}`))
	if c.Len() != 2 {
		t.Fatalf("Len = %d, want 2", c.Len())
	}
	c.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed"}`))
	c.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call_update","toolCallId":"b","status":"failed"}`))
	if c.Len() != 0 {
		t.Fatalf("Len = %d after both finished, want 0", c.Len())
	}
	// A bare request for a finished id is passed on as is.
	if got := string(c.Merge(json.RawMessage(`{"toolCallId":"a"}`))); got != `{"toolCallId":"a"}` {
		t.Fatalf("Merge = %s", got)
	}
}

func TestToolCallCacheByteBound(t *testing.T) {
	c := NewToolCallCache(0)
	c.SetMaxBytes(300 << 10)
	diff := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"d%d","title":"Edit f%d","kind":"edit",`+
			`"content":[{"type":"diff","path":"/w/f%d.go","oldText":null,"newText":%q},{"type":"content","content":{"type":"text","text":"note"}}],`+
			`"rawOutput":{"log":%q}}`, i, i, i, strings.Repeat("x", 100<<10), strings.Repeat("y", 10<<10)))
	}
	for i := range 10 {
		c.Upsert(diff(i))
		if c.bytes > 300<<10 {
			t.Fatalf("after %d diffs the cache holds %d bytes, over its bound", i+1, c.bytes)
		}
	}
	// The newest call is whole: a bare request sees its diff text.
	got := mergedFields(t, c.Merge(json.RawMessage(`{"toolCallId":"d9"}`)))
	if !strings.Contains(string(got["content"]), strings.Repeat("x", 1000)) || got["rawOutput"] == nil {
		t.Fatalf("the newest call was slimmed: %.200s", got["content"])
	}
	// Two whole diffs fit in the bound, three do not: d7 and older that are
	// still remembered keep what normalisation reads (path, title, kind),
	// not their diff text.
	kept := 0
	for i := range 8 {
		merged := c.Merge(json.RawMessage(fmt.Sprintf(`{"toolCallId":"d%d"}`, i)))
		f := mergedFields(t, merged)
		if f["title"] == nil {
			continue // dropped
		}
		kept++
		if strings.Contains(string(f["content"]), "xxx") || f["rawOutput"] != nil {
			t.Fatalf("d%d was not slimmed: %.200s", i, merged)
		}
		call, err := Normalize(FamilyGeneric, merged)
		if err != nil || call.Tool != "Edit" || len(call.Paths) != 1 || call.Paths[0] != fmt.Sprintf("/w/f%d.go", i) {
			t.Fatalf("a slimmed d%d normalises to %+v, %v", i, call, err)
		}
	}
	if kept == 0 {
		t.Fatal("every older call was dropped; slimming should have kept some")
	}
	checkCacheAccounting(t, c)
}

func TestToolCallCacheOddNames(t *testing.T) {
	c := NewToolCallCache(0)
	// An escaped member name and a repeated one: read exactly as
	// encoding/json reads them (the fast scanner declines both).
	c.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call","toolCall\u0049d":"e1","title":"escaped"}`))
	c.Upsert(json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"r1","title":"first","title":"last"}`))
	if got := mergedFields(t, c.Merge(json.RawMessage(`{"toolCallId":"e1"}`))); !jsonEqual(t, got["title"], json.RawMessage(`"escaped"`)) {
		t.Errorf("escaped name: %v", got)
	}
	if got := mergedFields(t, c.Merge(json.RawMessage(`{"toolCallId":"r1"}`))); !jsonEqual(t, got["title"], json.RawMessage(`"last"`)) {
		t.Errorf("repeated name: %v", got)
	}
	// Not an object, or no id: ignored.
	for _, in := range []string{`[1]`, `"x"`, `{"sessionUpdate":"tool_call"}`, `{"sessionUpdate":"tool_call","toolCallId":7}`, `{`} {
		c.Upsert(json.RawMessage(in))
	}
	if c.Len() != 2 {
		t.Fatalf("Len = %d, want 2", c.Len())
	}
	checkCacheAccounting(t, c)
}

// The byte count stays equal to what the entries hold through any mix of
// announcements, updates, merges, completions and evictions.
func TestToolCallCacheAccountingRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := NewToolCallCache(16)
	c.SetMaxBytes(20 << 10)
	for range 5000 {
		id := fmt.Sprintf("t%d", rng.IntN(40))
		switch rng.IntN(5) {
		case 0:
			c.Upsert(json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":%q,"title":"x","content":[{"type":"diff","path":"/p","newText":%q}]}`, id, strings.Repeat("n", rng.IntN(4000)))))
		case 1:
			c.Upsert(json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"rawOutput":%q,"rawInput":{}}`, id, strings.Repeat("o", rng.IntN(3000)))))
		case 2:
			c.Merge(json.RawMessage(fmt.Sprintf(`{"toolCallId":%q,"rawInput":{"command":"ls"}}`, id)))
		case 3:
			c.Upsert(json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"completed"}`, id)))
		case 4:
			c.Upsert(json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"title":null,"kind":"edit"}`, id)))
		}
		checkCacheAccounting(t, c)
	}
}

func checkCacheAccounting(t *testing.T, c *ToolCallCache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for el := c.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry)
		size := 0
		for k, v := range e.fields {
			size += len(k) + len(v)
		}
		if size != e.size {
			t.Fatalf("entry %s says %d bytes, holds %d", e.id, e.size, size)
		}
		total += size
	}
	fat := 0
	for el := c.order.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*cacheEntry); (e.fatEl == nil) != e.slim {
			t.Fatalf("entry %s: slim %v but in the fat list %v", e.id, e.slim, e.fatEl != nil)
		} else if !e.slim {
			fat++
		}
	}
	if fat != c.fat.Len() {
		t.Fatalf("%d entries not slim, fat list holds %d", fat, c.fat.Len())
	}
	if total != c.bytes || c.order.Len() != len(c.entries) || c.order.Len() > c.max {
		t.Fatalf("cache says %d bytes in %d entries (%d indexed), holds %d", c.bytes, c.order.Len(), len(c.entries), total)
	}
	if c.bytes > c.maxBytes && c.order.Len() > 1 {
		t.Fatalf("%d bytes over the bound %d with %d entries", c.bytes, c.maxBytes, c.order.Len())
	}
}

func TestIsEmptyObjectAndIsNull(t *testing.T) {
	for in, want := range map[string]bool{`{}`: true, ` { } `: true, "{\n}": true, `{"a":1}`: false, `[]`: false, `null`: false, ``: false, `{`: false} {
		if got := isEmptyObject(json.RawMessage(in)); got != want {
			t.Errorf("isEmptyObject(%q) = %v", in, got)
		}
	}
	for in, want := range map[string]bool{`null`: true, ` null `: true, `"null"`: false, `nul`: false, `{}`: false} {
		if got := isNull(json.RawMessage(in)); got != want {
			t.Errorf("isNull(%q) = %v", in, got)
		}
	}
}

// slimReference is slimContent written with encoding/json: what a slimmed
// entry must keep of a content array.
func slimReference(raw json.RawMessage) (json.RawMessage, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	out := []json.RawMessage{}
	for _, item := range items {
		var obj map[string]json.RawMessage
		if json.Unmarshal(item, &obj) != nil || obj == nil {
			continue
		}
		var typ string
		if json.Unmarshal(obj["type"], &typ) != nil {
			continue
		}
		switch {
		case typ == "diff" && obj["path"] != nil:
			b, _ := json.Marshal(map[string]json.RawMessage{"type": json.RawMessage(`"diff"`), "path": obj["path"]})
			out = append(out, b)
		case typ == "content" && len(item) <= maxSlimText:
			out = append(out, item)
		}
	}
	b, _ := json.Marshal(out)
	return b, true
}

func TestSlimContent(t *testing.T) {
	big := strings.Repeat("x", maxSlimText)
	cases := []struct{ name, in, want string }{
		{"a diff keeps its type and path", `[{"type":"diff","path":"/a","oldText":"o","newText":"n"}]`, `[{"type":"diff","path":"/a"}]`},
		{"small text stays, big text goes", `[{"type":"content","content":{"type":"text","text":"hi"}},{"type":"content","content":{"type":"text","text":"` + big + `"}}]`, `[{"type":"content","content":{"type":"text","text":"hi"}}]`},
		{"terminals and odd items go", `[{"type":"terminal","terminalId":"t"},1,"s",null,[]]`, `[]`},
		{"an escaped type is read as encoding/json reads it", `[{"type":"di\u0066f","path":"/b"}]`, `[{"type":"diff","path":"/b"}]`},
		{"a diff without a path keeps nothing", `[{"type":"diff","newText":"n"}]`, `[]`},
		{"white space between items", ` [ {"type":"diff","path":"/c"} , {"type":"diff","path":"/d"} ] `, `[{"type":"diff","path":"/c"},{"type":"diff","path":"/d"}]`},
		{"not an array", `{"type":"diff"}`, `[]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := slimContent(json.RawMessage(c.in)); !jsonEqual(t, got, json.RawMessage(c.want)) {
				t.Fatalf("slimContent(%s) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}

// FuzzSlimContent checks the one-pass slimming against slimReference on
// any valid content array whose names the scanner reads exactly.
func FuzzSlimContent(f *testing.F) {
	for _, s := range []string{
		`[{"type":"diff","path":"/a","oldText":null,"newText":"x\"y"}]`,
		`[{"type":"content","content":{"type":"text","text":"t"}},{"type":"terminal","terminalId":"1"}]`,
		`[{"type":"diff","path":"/a","path":"/b"}]`,
		`[{"type":"di\u0066f","path":"/b"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, ok := slimReference(json.RawMessage(in))
		if !ok || !json.Valid([]byte(in)) || strings.Contains(in, `\`) {
			return // escaped names are read as "keep nothing" (see slimItem); repeated ones too
		}
		var items []map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &items) != nil {
			return // an item that is not an object: compared below only when all are
		}
		for _, it := range items {
			if it == nil {
				return
			}
		}
		got := slimContent(json.RawMessage(in))
		if !json.Valid(got) {
			t.Fatalf("slimContent(%s) = %s: not JSON", in, got)
		}
		if dupNames(in) {
			return
		}
		var a, b any
		if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("slimContent(%s) = %s, want %s", in, got, want)
		}
	})
}

// dupNames reports whether some object in the array repeats a member name
// (encoding/json keeps the last; the scanner keeps nothing of such an item).
func dupNames(in string) bool {
	dec := json.NewDecoder(strings.NewReader(in))
	var items []json.RawMessage
	if dec.Decode(&items) != nil {
		return false
	}
	for _, it := range items {
		seen := map[string]bool{}
		dup := false
		jsonscan.EachMember(it, func(name []byte, _, _ int) bool {
			dup = dup || seen[string(name)]
			seen[string(name)] = true
			return true
		})
		if dup {
			return true
		}
	}
	return false
}

// Property: jsonString's plain path reads every string exactly as
// encoding/json does (escapes, quotes, control bytes, invalid UTF-8 and
// broken quoting go the slow way or are refused alike).
func TestJSONStringAgreesWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	alphabet := []string{"a", "é", "\"", "\\", "\\n", "\\u0041", "\x01", "\xff", "\xe2\x80", " ", "/", "\t", "中"}
	for i := range 20000 {
		var b strings.Builder
		if rng.IntN(10) > 0 {
			b.WriteByte('"')
		}
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if rng.IntN(10) > 0 {
			b.WriteByte('"')
		}
		raw := json.RawMessage(b.String())
		got, ok := jsonString(raw)
		var want string
		err := json.Unmarshal(raw, &want)
		wantOK := len(raw) > 0 && raw[0] == '"' && err == nil
		if ok != wantOK || got != want && ok {
			t.Fatalf("case %d %q: jsonString = %q, %v; encoding/json %q, %v", i, raw, got, ok, want, err)
		}
	}
}
