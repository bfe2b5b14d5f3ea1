package profiles

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acp-bridge/acp-bridge/policy"
)

// Gemini CLI and Qwen Code. Gemini sends no tool_call before the permission
// request and no rawInput: the request's toolCall holds kind, title,
// locations and content (diffs for edits). The title of a shell call is:
//   - the command itself (Gemini since 2026-03: getDisplayTitle);
//   - "CMD [current working directory DIR] (DESCRIPTION)" or
//     "CMD [in DIR] (DESCRIPTION)" (2025-11 .. 2026-03);
//   - "CMD (DESCRIPTION)" or "CMD" (before 2025-11).
// A title that could be either a command or a command plus description is
// not understood. Qwen Code adds rawInput (the tool's arguments), which
// wins over the title. An MCP tool has kind other and the title
// "TOOL (SERVER MCP Server)".

// geminiKinds is the adapter's table: ACP kind -> extractor.
var geminiKinds = map[string]extractor{
	"execute": geminiExecute,
	"edit":    genericWrite,
	"delete":  genericWrite,
	"move":    genericWrite,
	"read":    genericRead,
	"search":  genericSearch,
	"fetch":   geminiFetch,
	"other":   geminiMCP,
}

func geminiAdapter(tc *toolCall) (policy.Call, bool) {
	if x, ok := geminiKinds[tc.kind]; ok {
		return final(x, tc)
	}
	return policy.Call{}, false
}

var (
	// geminiCwdSuffix is the 2025-11 .. 2026-03 title tail.
	geminiCwdSuffix = lazyRegexp(`(?s)^(.*) \[(current working directory|in) ([^\]]*)\]( \([^\n]*\))?$`)
	// geminiDescSuffix is a trailing " (DESCRIPTION)" that may or may not be
	// part of the command.
	geminiDescSuffix = lazyRegexp(`\s\([^()]*\)$`)
)

func geminiExecute(tc *toolCall) (policy.Call, bool) {
	if tc.input != nil {
		// Qwen: {command, description, is_background, directory?}. A
		// command run in another directory cannot be judged against the
		// session's directory.
		if dir, ok := tc.str("directory"); ok && strings.TrimSpace(dir) != "" {
			return policy.Call{}, false
		}
		return genericExecute(tc)
	}
	cmd, ok := geminiTitleCommand(tc.title)
	if !ok {
		return policy.Call{}, false
	}
	return policy.Call{Tool: "Bash", Command: cmd}, true
}

// geminiTitleCommand extracts the command from a Gemini shell title, or
// reports false when the title's shape leaves any doubt.
func geminiTitleCommand(title string) (string, bool) {
	if strings.TrimSpace(title) == "" {
		return "", false
	}
	n := strings.Count(title, " [current working directory ") + strings.Count(title, " [in ")
	if n > 0 {
		m := geminiCwdSuffix().FindStringSubmatch(title)
		// One marker only, and only the session's own directory: a command
		// run elsewhere cannot be judged against the session's directory.
		if n != 1 || m == nil || m[2] != "current working directory" || strings.TrimSpace(m[1]) == "" {
			return "", false
		}
		return m[1], true
	}
	if geminiDescSuffix().MatchString(title) {
		return "", false
	}
	return title, true
}

// geminiPromptTitle is the title of Gemini's web_fetch, whose one argument
// is a prompt with the URLs in it (web-fetch getDescription).
const geminiPromptTitle = "Processing URLs and instructions from prompt: "

// geminiTitleURL finds the URLs of a web_fetch prompt title.
var geminiTitleURL = lazyRegexp(`(?i)https?://[^\s"'<>\x60]+`)

func geminiFetch(tc *toolCall) (policy.Call, bool) {
	if c, ok := genericFetch(tc); ok {
		return c, true
	}
	t := strings.TrimSpace(tc.title)
	if isWebURL(t) {
		return policy.Call{Tool: "WebFetch", URL: t}, true
	}
	// A prompt naming URLs is a fetch of each of them (measured with Gemini
	// CLI 0.61: left not understood, a fetch under a WebFetch domain deny
	// was allowed in bypassPermissions). Every URL is checked: a deny on any
	// host decides.
	if rest, ok := strings.CutPrefix(t, geminiPromptTitle); ok {
		var urls []string
		for _, u := range geminiTitleURL().FindAllString(rest, -1) {
			u = strings.TrimRight(u, ".,;:!?)]}")
			if isWebURL(u) && !slices.Contains(urls, u) {
				urls = append(urls, u)
			}
		}
		if len(urls) > 0 {
			return policy.Call{Tool: "WebFetch", URL: urls[0], URLs: urls[1:]}, true
		}
	}
	return policy.Call{}, false
}

var geminiMCPTitle = lazyRegexp(`^(\S+) \((\S+) MCP Server\)$`)

func geminiMCP(tc *toolCall) (policy.Call, bool) {
	m := geminiMCPTitle().FindStringSubmatch(tc.title)
	if m == nil {
		return policy.Call{}, false
	}
	name := mcpName(m[2], m[1])
	if name == "" {
		return policy.Call{}, false
	}
	return policy.Call{Tool: name}, true
}

// lazyRegexp compiles expr at its first use: most bridges never see a
// Gemini tool call, and compiling at start-up was most of this package's
// init (docs/benchmarks.md, memory).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
