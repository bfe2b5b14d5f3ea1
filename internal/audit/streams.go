package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// What an agent sends cannot push decisions out of the log (docs/settings.md,
// "Audit log"). Four files, four budgets:
//
//   - decisions (path): the allows the policy made on an agent's requests
//     (by rule, mode, bypass, a session grant, read-only). The agent makes
//     as many requests as it likes, so they are rate-limited like unasked
//     records (below) and rotated at maxSize, Generations kept: an agent
//     rotates older policy allows away no faster than the rate. Also a
//     copy of every deny and every person's record (below), for readers
//     that tail that file alone (the editor's audit view); Read skips the
//     copies.
//   - unasked (path + UnaskedSuffix): tool calls the agent reported as done
//     without asking, which the policy would not deny. Rotated at maxSize,
//     Generations kept, on their own budget.
//   - denies (path + DeniesSuffix): every deny, and every unasked call the
//     policy would deny. Never rotated or deleted by the bridge.
//   - person (path + PersonSuffix): every other decision: a person's answer
//     on a card (source user, allow_once, allow_always, a session grant),
//     approvals that timed out or were cancelled, the bridge's mode records,
//     and any record that is not a policy allow (an unknown kind of record
//     is kept, not rotated). Never rotated or deleted by the bridge.
//
// Past DefaultRate records per key (agent, session, tool, decision) per
// DefaultInterval in every file, records are counted, not written: one
// summary line per key and window says how many, of which tool, from when to
// when. A summary goes to the file of the records it counts, so summaries of
// policy allows rotate only the decisions file, never a deny or a person's
// record. A person's own answers (source user) come at a person's pace and
// are never counted. Every field an agent controls the size of (the call,
// its specifier, the reason) is cut at a bound, keeping a prefix, the
// original size and its sha256 (Cut). So a line is at most a few KiB, and
// the never-rotated files grow by at most DefaultRate lines per key per
// window.

const (
	// UnaskedSuffix and DeniesSuffix name the unasked and deny files after
	// the decision file's path.
	UnaskedSuffix = ".unasked"
	DeniesSuffix  = ".denies"
	// PersonSuffix names the file of a person's decisions (never rotated).
	PersonSuffix = ".person"
	// DefaultRate is how many records of one key are written in full per
	// DefaultInterval.
	DefaultRate     = 120
	DefaultInterval = time.Minute
	// MaxCallBytes, MaxFieldBytes bound the call (its JSON) and the
	// specifier and reason of a record.
	MaxCallBytes  = 4 << 10
	MaxFieldBytes = 1 << 10
	// SessionRateFactor bounds the records of one agent and session written
	// in full per window, across tools, to that many times the rate.
	SessionRateFactor = 4
	// maxWindows is how many rate windows are kept before ended ones are
	// forgotten at once.
	maxWindows = 10000
)

type streamKind int

const (
	streamDecisions streamKind = iota
	streamUnasked
	streamDenies
	streamPerson
	nStreams
)

// streamPath names the file of kind k for the decision file base.
func streamPath(base string, k streamKind) string {
	switch k {
	case streamUnasked:
		return base + UnaskedSuffix
	case streamDenies:
		return base + DeniesSuffix
	case streamPerson:
		return base + PersonSuffix
	}
	return base
}

// protected is whether the files of kind k are never rotated (a copy of
// each record goes to the decisions file too).
func protected(k streamKind) bool { return k == streamDenies || k == streamPerson }

// policyAllowSources are the sources of an allow the policy made on an
// agent's request: the agent chooses how many there are.
var policyAllowSources = map[string]bool{
	"rule": true, "mode": true, "bypass": true, "session-grant": true, "read-only": true,
}

// kindOf is the file a record goes to. Only what is known to be a policy
// allow may rotate; anything else (a person's answer, a timeout, a
// cancellation, a mode record, a record of a kind this code does not know)
// is kept.
func kindOf(r Record) streamKind {
	switch {
	case r.Decision == "deny" || r.Decision == "unasked" && r.Would == "deny":
		return streamDenies
	case r.Decision == "unasked":
		return streamUnasked
	case r.Decision == "allow" && policyAllowSources[r.Source]:
		return streamDecisions
	}
	return streamPerson
}

// Cut says that one field of a record was cut.
type Cut struct {
	Field  string `json:"field"`  // call, specifier, reason
	Bytes  int    `json:"bytes"`  // the original's size
	Kept   int    `json:"kept"`   // bytes of it kept
	SHA256 string `json:"sha256"` // of the original
}

// Summary stands for the records of one key counted past the rate.
type Summary struct {
	Count int       `json:"count"`
	Tool  string    `json:"tool,omitempty"`
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// prefix cuts s to at most n bytes on a rune boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// CutRecord bounds the fields whose size the agent controls (the JSONL
// log cuts its copy with it; orgproc its copy for the companion).
func CutRecord(r *Record) {
	if len(r.Call) > MaxCallBytes {
		var c struct {
			Tool string `json:"tool"`
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(r.Call, &c)
		kept := prefix(string(r.Call), MaxCallBytes/2)
		short, err := json.Marshal(struct {
			Tool   string `json:"tool"`
			Kind   string `json:"kind,omitempty"`
			Prefix string `json:"prefix"`
		}{prefix(c.Tool, 256), prefix(c.Kind, 64), kept})
		if err == nil {
			r.Cut = append(r.Cut, Cut{Field: "call", Bytes: len(r.Call), Kept: len(kept), SHA256: digest(r.Call)})
			r.Call = short
		}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"specifier", &r.Specifier}, {"reason", &r.Reason}, {"rule", &r.Rule}, {"sandbox", &r.Sandbox}} {
		if len(*f.v) > MaxFieldBytes {
			kept := prefix(*f.v, MaxFieldBytes)
			r.Cut = append(r.Cut, Cut{Field: f.name, Bytes: len(*f.v), Kept: len(kept), SHA256: digest([]byte(*f.v))})
			*f.v = kept + "…"
		}
	}
	for _, p := range []*string{&r.Agent, &r.SessionID, &r.ToolCallID, &r.ApprovalID, &r.Decision, &r.Would, &r.Source, &r.OptionID} {
		*p = prefix(*p, 256)
	}
}

// limitKey is one rate-limited key.
type limitKey struct {
	kind                           streamKind
	agent, session, tool, decision string
}

type window struct {
	start      time.Time
	written    int
	suppressed int
	from, to   time.Time
	would      string // of the suppressed unasked records (first seen)
}

// limiter counts records per key and window.
type limiter struct {
	w map[limitKey]*window
}

type pendingSummary struct {
	kind streamKind
	rec  Record
}

func toolOf(r Record) string {
	var c struct {
		Tool string `json:"tool"`
	}
	_ = json.Unmarshal(r.Call, &c)
	return c.Tool
}

// admit decides whether r is written in full, and returns the summaries of
// r's key whose window ended. A person's answers are never limited.
func (l *limiter) admit(kind streamKind, r Record, now time.Time, rate int, interval time.Duration) (done []pendingSummary, write bool) {
	if rate <= 0 || r.Source == "user" {
		// A person's answers come at a person's pace.
		return nil, true
	}
	if l.w == nil {
		l.w = map[limitKey]*window{}
	}
	if len(l.w) > maxWindows {
		// Many keys (tool names are the agent's to choose): forget the
		// ended windows now rather than at the timer.
		done = append(done, l.due(now, interval, false)...)
	}
	k := limitKey{kind: kind, agent: r.Agent, session: r.SessionID, tool: toolOf(r), decision: r.Decision}
	// A session's budget across tools: past SessionRateFactor*rate records
	// written in full in one window, whatever the tool, the rest are
	// counted under the tool "*" (an agent that names a new tool for
	// each call does not escape the rate).
	sk := limitKey{kind: kind, agent: r.Agent, session: r.SessionID, tool: "*", decision: r.Decision}
	sw := l.window(sk, now, interval, &done)
	if sw.written >= SessionRateFactor*rate {
		if sw.suppressed == 0 {
			sw.from, sw.would = r.Time, r.Would
		}
		sw.suppressed++
		sw.to = r.Time
		return done, false
	}
	w := l.window(k, now, interval, &done)
	if w.written < rate {
		w.written++
		sw.written++
		return done, true
	}
	if w.suppressed == 0 {
		w.from, w.would = r.Time, r.Would
	}
	w.suppressed++
	w.to = r.Time
	return done, false
}

// window is k's window at now: one that has ended is summarised into done
// and replaced by a new one starting now.
func (l *limiter) window(k limitKey, now time.Time, interval time.Duration, done *[]pendingSummary) *window {
	w := l.w[k]
	if w != nil && (now.Sub(w.start) >= interval || now.Before(w.start)) {
		if s, ok := summaryOf(k, w, interval); ok {
			*done = append(*done, s)
		}
		delete(l.w, k)
		w = nil
	}
	if w == nil {
		w = &window{start: now}
		l.w[k] = w
	}
	return w
}

// due returns, and forgets, the summaries of windows ended at now (every
// window with all), in a stable order.
func (l *limiter) due(now time.Time, interval time.Duration, all bool) []pendingSummary {
	var out []pendingSummary
	for k, w := range l.w {
		if all || !now.Before(w.start.Add(interval)) {
			if s, ok := summaryOf(k, w, interval); ok {
				out = append(out, s)
			}
			delete(l.w, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rec.Time.Before(out[j].rec.Time) })
	return out
}

// nextEnd is the end of the earliest window with suppressed records.
func (l *limiter) nextEnd(interval time.Duration) (time.Time, bool) {
	var end time.Time
	ok := false
	for _, w := range l.w {
		if w.suppressed == 0 {
			continue
		}
		if e := w.start.Add(interval); !ok || e.Before(end) {
			end, ok = e, true
		}
	}
	return end, ok
}

func summaryOf(k limitKey, w *window, interval time.Duration) (pendingSummary, bool) {
	if w.suppressed == 0 {
		return pendingSummary{}, false
	}
	decision, would := k.decision, ""
	var what string
	switch {
	case k.decision == "unasked":
		would = w.would
		what = "tool calls run without asking"
		if k.kind == streamDenies {
			what = "tool calls run without asking that the policy denies"
		}
	case k.decision == "deny":
		what = "denied tool calls"
	case k.decision == "allow":
		what = "requests allowed by the policy"
	default:
		what = "records of decision " + strconv.Quote(k.decision)
	}
	tool := k.tool
	switch tool {
	case "":
		tool = "(not understood)"
	case "*":
		tool = "(any tool, past the session's budget)"
	}
	return pendingSummary{kind: k.kind, rec: Record{
		Time: w.to, Agent: k.agent, SessionID: k.session, Decision: decision, Would: would, Source: "audit",
		Specifier: "summary: " + tool,
		Reason: fmt.Sprintf("%d more %s (tool %s) between %s and %s were counted, not written in full: past %d per %s for this agent, session and tool",
			w.suppressed, what, tool, w.from.UTC().Format(time.RFC3339), w.to.UTC().Format(time.RFC3339), w.written, interval),
		Summary: &Summary{Count: w.suppressed, Tool: k.tool, From: w.from, To: w.to},
	}}, true
}
