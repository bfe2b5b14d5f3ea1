// Package jsonscan reads JSON without decoding it: Valid checks a document
// exactly as encoding/json.Valid does, at several times its speed; Scan
// does the same check and, in the same pass, records where the members of
// the top-level object and of the objects nested in them sit (down to a
// given depth), so a JSON-RPC line, its params and a session/update's
// update are read with one pass over the bytes (ScanNamed also says, from
// that pass, whether any member anywhere may be called a given name, so
// that a caller looking for _meta members skips documents without one); and the scanner
// (EachMember, EachMemberAt, Member, MemberString, EachElement,
// ReadElements, SkipValue) finds members and elements of JSON already
// known to be valid, without allocating, skipping string bodies with
// bytes.IndexByte.
//
// It is what lets the bridge forward a 64 KiB session/update, and remember
// the tool call it announces, without parsing it: acp uses it on every line
// it reads, approvals on tool-call updates. The scanner reports "not ok"
// (never a wrong answer) on what it does not recognise (escaped or repeated
// member names); callers then fall back to encoding/json. Valid, Scan and the
// scanner are fuzzed against encoding/json.
//
// Every function is pure: no state, safe from any goroutine.
package jsonscan
