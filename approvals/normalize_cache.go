package approvals

import (
	"container/list"
	"encoding/json"
	"sync"
)

// DefaultToolCallCacheSize bounds a ToolCallCache made with max <= 0.
const DefaultToolCallCacheSize = 1024

// ToolCallCache remembers, per toolCallId, the last known state of each
// tool call of one session, so that a permission request that carries only
// part of the call (Claude: {toolCallId, rawInput, title}; Devin: only
// {toolCallId}) can be judged on the whole call (acp-protocol.md §7, 1, 2
// and 10). It is bounded: past max entries, the least recently touched one
// is dropped, and a call is forgotten once an update says it completed or
// failed. Safe for concurrent use.
type ToolCallCache struct {
	max int

	mu      sync.Mutex
	entries map[string]*list.Element // toolCallId -> element of order
	order   *list.List               // of *cacheEntry; front = least recently touched
}

type cacheEntry struct {
	id     string
	fields map[string]json.RawMessage
}

// NewToolCallCache makes a cache holding at most max tool calls
// (DefaultToolCallCacheSize when max <= 0).
func NewToolCallCache(max int) *ToolCallCache {
	if max <= 0 {
		max = DefaultToolCallCacheSize
	}
	return &ToolCallCache{max: max, entries: make(map[string]*list.Element), order: list.New()}
}

// Upsert records a session/update whose sessionUpdate is "tool_call" or
// "tool_call_update" (the update object itself). Every other update, and
// anything without a string toolCallId, is ignored. A present field replaces
// the stored one, as ACP says, with two exceptions that only ever keep
// information: a null field is treated as absent, and an empty rawInput ({})
// does not replace a non-empty one (Claude first announces rawInput {} while
// the input still streams).
func (c *ToolCallCache) Upsert(update json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(update, &obj) != nil {
		return
	}
	kind, _ := jsonString(obj["sessionUpdate"])
	if kind != "tool_call" && kind != "tool_call_update" {
		return
	}
	delete(obj, "sessionUpdate")
	id, ok := jsonString(obj["toolCallId"])
	if !ok || id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if status, _ := jsonString(obj["status"]); status == "completed" || status == "failed" {
		// A finished call is not asked about again: forget it, so the cache
		// holds only calls in flight (their diffs can be large).
		if el := c.entries[id]; el != nil {
			delete(c.entries, id)
			c.order.Remove(el)
		}
		return
	}
	c.store(id, obj)
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
	merged := c.store(id, obj)
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
// recently touched, evicts past the bound, and returns a copy of the
// entry's fields. c.mu must be held.
func (c *ToolCallCache) store(id string, fields map[string]json.RawMessage) map[string]json.RawMessage {
	var e *cacheEntry
	if el := c.entries[id]; el != nil {
		e = el.Value.(*cacheEntry)
		c.order.MoveToBack(el)
	} else {
		e = &cacheEntry{id: id, fields: make(map[string]json.RawMessage, len(fields))}
		c.entries[id] = c.order.PushBack(e)
	}
	for k, v := range fields {
		if isNull(v) {
			continue
		}
		if k == "rawInput" && isEmptyObject(v) {
			if old, ok := e.fields[k]; ok && !isEmptyObject(old) {
				continue
			}
		}
		e.fields[k] = v
	}
	for c.order.Len() > c.max {
		oldest := c.order.Front()
		delete(c.entries, oldest.Value.(*cacheEntry).id)
		c.order.Remove(oldest)
	}
	out := make(map[string]json.RawMessage, len(e.fields))
	for k, v := range e.fields {
		out[k] = v
	}
	return out
}
