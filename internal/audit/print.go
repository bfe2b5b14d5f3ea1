package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxCell bounds a table cell, in runes.
const maxCell = 60

// Print writes the records at path that f selects, for `acp-bridge audit
// [--since] [--agent] [--decision] [--json]`: a readable table (times in the
// local zone) by default, or one JSON record per line with asJSON. Errors
// are Read's; a *CorruptError (errors.Is ErrCorrupt) comes after complete
// output and is a warning.
func Print(w io.Writer, path string, f Filter, asJSON bool) error {
	return printTo(w, path, f, asJSON, time.Local)
}

func printTo(w io.Writer, path string, f Filter, asJSON bool, loc *time.Location) error {
	if asJSON {
		return Read(path, f, func(r Record) error {
			line, err := json.Marshal(r)
			if err != nil {
				return fmt.Errorf("audit: encode record: %w", err)
			}
			_, err = w.Write(append(line, '\n'))
			return err
		})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tAGENT\tDECISION\tSOURCE\tCALL\tRULE / REASON\tLATENCY")
	n := 0
	readErr := Read(path, f, func(r Record) error {
		n++
		why := r.Rule
		if why == "" {
			why = r.Reason
		}
		_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Time.In(loc).Format("2006-01-02 15:04:05"),
			cell(r.Agent), cell(r.Decision), cell(r.Source), cell(callText(r)), cell(why), latency(r.LatencyMS))
		return err
	})
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d record(s)\n", n); err != nil {
		return err
	}
	return readErr
}

// callText is the rendered call: its specifier, else the canonical call's
// tool name.
func callText(r Record) string {
	if r.Specifier != "" {
		return r.Specifier
	}
	var c struct {
		Tool string `json:"tool"`
	}
	if json.Unmarshal(r.Call, &c) == nil && c.Tool != "" {
		return c.Tool
	}
	return ""
}

// cell makes s fit one table cell: control characters escaped, long text
// cut with an ellipsis, "-" when empty.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 || !utf8.ValidString(s) {
		q := strconv.Quote(s)
		s = q[1 : len(q)-1]
	}
	if utf8.RuneCountInString(s) > maxCell {
		r := []rune(s)
		s = string(r[:maxCell-1]) + "…"
	}
	return s
}

func latency(ms float64) string {
	switch {
	case ms <= 0:
		return "-"
	case ms < 10:
		return fmt.Sprintf("%.1fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	default:
		return fmt.Sprintf("%.1fs", ms/1000)
	}
}
