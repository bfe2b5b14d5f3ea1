package profiles

import (
	"bytes"
	"container/list"
	"encoding/json"
	"sync"

	"github.com/acp-bridge/acp-bridge/internal/jsonscan"
)

// DefaultToolCallCacheSize bounds a ToolCallCache made with max <= 0.
const DefaultToolCallCacheSize = 1024

// DefaultToolCallCacheBytes bounds the bytes a ToolCallCache keeps before
// it slims its older entries (see ToolCallCache).
const DefaultToolCallCacheBytes = 8 << 20

// ToolCallCache remembers, per toolCallId, the last known state of each
// tool call of one session, so that a permission request that carries only
// part of the call (Claude: {toolCallId, rawInput, title}; Devin: only
// {toolCallId}) can be judged on the whole call (acp-protocol.md §7, 1, 2
// and 10). It is bounded: past max entries, the least recently touched one
// is dropped, and a call is forgotten once an update says it completed or
// failed. Its bytes are bounded too: past maxBytes, the least recently
// touched entries are slimmed to what normalisation reads (diff contents
// and rawOutput dropped, diff paths kept), then, if that is not enough,
// dropped, so streaming large diffs cannot grow the bridge without bound.
// A dropped or slimmed entry only makes a later bare request less complete,
// which normalisation meets by asking. Safe for concurrent use.
type ToolCallCache struct {
	max, maxBytes int

	mu      sync.Mutex
	entries map[string]*list.Element // toolCallId -> element of order
	order   *list.List               // of *cacheEntry; front = least recently touched
	fat     *list.List               // the entries not slimmed yet, in the same order
	bytes   int                      // sum of entry sizes
}

type cacheEntry struct {
	id     string
	fields map[string]json.RawMessage
	size   int           // bytes of names and values held
	slim   bool          // heavy fields already reduced
	fatEl  *list.Element // its element of fat while not slim
}

// NewToolCallCache makes a cache holding at most max tool calls
// (DefaultToolCallCacheSize when max <= 0).
func NewToolCallCache(max int) *ToolCallCache {
	if max <= 0 {
		max = DefaultToolCallCacheSize
	}
	return &ToolCallCache{max: max, maxBytes: DefaultToolCallCacheBytes, entries: make(map[string]*list.Element), order: list.New(), fat: list.New()}
}

// SetMaxBytes changes the byte bound (DefaultToolCallCacheBytes when n <= 0).
func (c *ToolCallCache) SetMaxBytes(n int) {
	if n <= 0 {
		n = DefaultToolCallCacheBytes
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxBytes = n
	c.trim()
}

// Upsert records a session/update whose sessionUpdate is "tool_call" or
// "tool_call_update" (the update object itself). Every other update, and
// anything without a string toolCallId, is ignored. A present field replaces
// the stored one, as ACP says, with two exceptions that only ever keep
// information: a null field is treated as absent, and an empty rawInput ({})
// does not replace a non-empty one (Claude first announces rawInput {} while
// the input still streams).
func (c *ToolCallCache) Upsert(update json.RawMessage) {
	fields, ok := scanFields(update)
	if !ok {
		// Escaped or repeated member names, or not an object: the exact,
		// slower reading.
		if json.Unmarshal(update, &fields) != nil {
			return
		}
	}
	c.UpsertMembers(fields)
}

// UpsertMembers is Upsert for an update already read into its members
// (name to raw value, as acp.SessionUpdate.Members has them). The map is
// not modified nor kept; the values are kept until slimmed.
func (c *ToolCallCache) UpsertMembers(fields map[string]json.RawMessage) {
	kind, _ := jsonString(fields["sessionUpdate"])
	if kind != "tool_call" && kind != "tool_call_update" {
		return
	}
	id, ok := jsonString(fields["toolCallId"])
	if !ok || id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if status, _ := jsonString(fields["status"]); status == "completed" || status == "failed" {
		// A finished call is not asked about again: forget it, so the cache
		// holds only calls in flight (their diffs can be large).
		if el := c.entries[id]; el != nil {
			c.remove(el)
		}
		return
	}
	c.store(id, fields, false)
}

// scanFields reads the members of update without decoding them. update is
// JSON the caller has already validated (the bridge passes a member of a
// line acp checked when it read it); on anything else the values may be
// wrong but stay inside update, and Merge, which re-encodes through
// encoding/json, never passes an invalid one on. ok is false when the
// scanner cannot read update exactly (escaped or repeated names).
func scanFields(update json.RawMessage) (map[string]json.RawMessage, bool) {
	fields := make(map[string]json.RawMessage, 8)
	dup := false
	ok := jsonscan.EachMember(update, func(name []byte, s, e int) bool {
		k := string(name)
		if _, seen := fields[k]; seen {
			dup = true
			return false
		}
		fields[k] = update[s:e:e]
		return true
	})
	return fields, ok && !dup
}

// Merge returns a permission request's toolCall merged over the cached
// entry of its toolCallId: the request's fields win, under the same two
// exceptions as Upsert (OpenCode sends its permission metadata {} as
// rawInput for a bash call whose input it announced before). The merged
// call is also remembered, so a later bare request for the same id sees it.
// A toolCall that is not an object, has no string toolCallId, or whose id
// is unknown is returned as is (and, in the last case, remembered).
func (c *ToolCallCache) Merge(toolCall json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(toolCall, &obj) != nil || obj == nil {
		return toolCall
	}
	id, ok := jsonString(obj["toolCallId"])
	if !ok || id == "" {
		return toolCall
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	known := c.entries[id] != nil
	merged := c.store(id, obj, true)
	if !known {
		return toolCall
	}
	out, err := json.Marshal(merged)
	if err != nil {
		// Unreachable: every member is valid JSON that was just decoded.
		return toolCall
	}
	return out
}

// Len reports how many tool calls are remembered.
func (c *ToolCallCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// store overlays fields onto the entry for id (creating it), marks it most
// recently touched, evicts past the bounds, and, when want is set, returns
// a copy of the entry's fields. c.mu must be held.
func (c *ToolCallCache) store(id string, fields map[string]json.RawMessage, want bool) map[string]json.RawMessage {
	var e *cacheEntry
	if el := c.entries[id]; el != nil {
		e = el.Value.(*cacheEntry)
		c.order.MoveToBack(el)
		if e.fatEl != nil {
			c.fat.MoveToBack(e.fatEl)
		}
	} else {
		e = &cacheEntry{id: id, fields: make(map[string]json.RawMessage, len(fields))}
		c.entries[id] = c.order.PushBack(e)
		e.fatEl = c.fat.PushBack(e)
	}
	for k, v := range fields {
		if isNull(v) || k == "sessionUpdate" {
			continue
		}
		if k == "rawInput" && isEmptyObject(v) {
			if old, ok := e.fields[k]; ok && !isEmptyObject(old) {
				continue
			}
		}
		if old, ok := e.fields[k]; ok {
			e.size -= len(k) + len(old)
			c.bytes -= len(k) + len(old)
		}
		e.fields[k] = v
		e.size += len(k) + len(v)
		c.bytes += len(k) + len(v)
		if (k == "content" || k == "rawOutput") && e.slim {
			e.slim = false
			e.fatEl = c.fat.PushBack(e)
		}
	}
	for c.order.Len() > c.max {
		c.remove(c.order.Front())
	}
	c.trim()
	if !want {
		return nil
	}
	out := make(map[string]json.RawMessage, len(e.fields))
	for k, v := range e.fields {
		out[k] = v
	}
	return out
}

// remove forgets one entry. c.mu must be held.
func (c *ToolCallCache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	delete(c.entries, e.id)
	c.order.Remove(el)
	if e.fatEl != nil {
		c.fat.Remove(e.fatEl)
		e.fatEl = nil
	}
	c.bytes -= e.size
}

// trim brings the cache under maxBytes: first the least recently touched
// entries are slimmed, then dropped. The most recent entry is slimmed but
// never dropped by the byte bound. c.mu must be held.
func (c *ToolCallCache) trim() {
	for c.bytes > c.maxBytes && c.fat.Len() > 0 {
		c.slim(c.fat.Front().Value.(*cacheEntry))
	}
	for c.bytes > c.maxBytes && c.order.Len() > 1 {
		c.remove(c.order.Front())
	}
}

// slim reduces an entry to what normalisation reads: rawOutput goes, and
// content keeps each diff's type and path and each text item, dropping
// diff texts and everything else.
func (c *ToolCallCache) slim(e *cacheEntry) {
	e.slim = true
	if e.fatEl != nil {
		c.fat.Remove(e.fatEl)
		e.fatEl = nil
	}
	before := e.size
	if v, ok := e.fields["rawOutput"]; ok {
		delete(e.fields, "rawOutput")
		e.size -= len("rawOutput") + len(v)
	}
	if v, ok := e.fields["content"]; ok {
		slimmed := slimContent(v)
		e.fields["content"] = slimmed
		e.size += len(slimmed) - len(v)
	}
	// Values read by Upsert share the buffer of the whole update: copy what
	// is left so that buffer can be freed.
	for k, v := range e.fields {
		e.fields[k] = append(json.RawMessage(nil), v...)
	}
	c.bytes += e.size - before
}

// maxSlimText bounds a text content item kept in a slimmed entry.
const maxSlimText = 4 << 10

func slimContent(raw json.RawMessage) json.RawMessage {
	out := make([]byte, 0, 256)
	out = append(out, '[')
	ok := jsonscan.ReadElements(raw, func(i int) int {
		keep, end := slimItem(raw, i)
		if keep != nil {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, keep...)
		}
		return end
	})
	if !ok {
		return json.RawMessage("[]")
	}
	return append(out, ']')
}

// slimItem reads the content item at raw[i] in one pass (a diff's text is
// skipped once) and returns what a slimmed entry keeps of it (nil: nothing)
// and where the item ends (-1: unreadable).
func slimItem(raw []byte, i int) (keep []byte, end int) {
	if raw[i] != '{' {
		return nil, jsonscan.SkipValue(raw, i)
	}
	var typ, path []byte
	nType, nPath := 0, 0
	end, ok := jsonscan.EachMemberAt(raw, i, func(name []byte, s, e int) bool {
		switch string(name) {
		case "type":
			typ, nType = raw[s:e], nType+1
		case "path":
			path, nPath = raw[s:e], nPath+1
		}
		return true
	})
	if !ok {
		// Escaped names: the item cannot be read exactly; keep nothing.
		return nil, jsonscan.SkipValue(raw, i)
	}
	if nType == 1 && bytes.IndexByte(typ, '\\') >= 0 {
		var t string // escaped: decode, as encoding/json would read it
		if json.Unmarshal(typ, &t) == nil {
			typ, _ = json.Marshal(t)
		}
	}
	switch {
	case nType != 1:
	case string(typ) == `"diff"`:
		if nPath == 1 {
			keep = append(append([]byte(`{"type":"diff","path":`), path...), '}')
		}
	case string(typ) == `"content"`:
		if end-i <= maxSlimText {
			keep = raw[i:end]
		}
	}
	return keep, end
}
