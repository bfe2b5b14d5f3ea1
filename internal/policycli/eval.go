package policycli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acp-bridge/acp-bridge/policy"
)

// maxLine bounds one input line.
const maxLine = 64 << 20

// Request is one input line of `policy eval`.
type Request struct {
	ID    json.RawMessage `json:"id,omitempty"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input,omitempty"`
	// Kind and Title are optional: the ACP tool kind and title, for an
	// agent's own tool names.
	Kind  string `json:"kind,omitempty"`
	Title string `json:"title,omitempty"`
	Rules struct {
		Allow []string `json:"allow"`
		Ask   []string `json:"ask"`
		Deny  []string `json:"deny"`
	} `json:"rules"`
	Mode                  string   `json:"mode,omitempty"`
	Cwd                   string   `json:"cwd,omitempty"`
	ProjectRoot           string   `json:"projectRoot,omitempty"`
	Home                  string   `json:"home,omitempty"`
	RulesRoot             string   `json:"rulesRoot,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// Symlinks, when present (even empty), replace the real file system:
	// link -> target.
	Symlinks *map[string]string `json:"symlinks,omitempty"`
}

// Response is one output line.
type Response struct {
	ID          json.RawMessage `json:"id"`
	Decision    string          `json:"decision,omitempty"`
	Rule        *string         `json:"rule,omitempty"`
	Source      string          `json:"source,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	SubCommands []string        `json:"subCommands,omitempty"`
	Breaker     string          `json:"breaker,omitempty"`
	Specifier   string          `json:"specifier,omitempty"`
	RuleErrors  []string        `json:"ruleErrors,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// Eval reads JSON lines from in and writes one JSON line per non-empty
// input line to out. A line that cannot be evaluated gets {"id","error"}
// and processing goes on; only failures to read or write are returned.
func Eval(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		line, readErr := readLine(r)
		if len(strings.TrimSpace(string(line))) > 0 {
			resp := evalLine(line, n)
			if err := enc.Encode(resp); err != nil {
				return fmt.Errorf("policy eval: write: %w", err)
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("policy eval: write: %w", err)
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if errors.Is(readErr, errLongLine) {
			if err := enc.Encode(Response{ID: json.RawMessage("null"), Error: fmt.Sprintf("line %d: longer than %d bytes", n, maxLine)}); err != nil {
				return fmt.Errorf("policy eval: write: %w", err)
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("policy eval: write: %w", err)
			}
			continue
		}
		if readErr != nil {
			return fmt.Errorf("policy eval: read: %w", readErr)
		}
	}
}

var errLongLine = errors.New("line too long")

// readLine returns the next line without its newline. An over-long line
// is skipped to its end and reported as errLongLine.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errLongLine
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return []byte(strings.TrimRight(string(buf), "\r\n")), err
	}
}

func evalLine(line []byte, n int) Response {
	var req Request
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		// try to recover the id for the error line.
		var idOnly struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &idOnly)
		return Response{ID: idOr(idOnly.ID), Error: fmt.Sprintf("line %d: %v", n, err)}
	}
	resp, err := Evaluate(req)
	if err != nil {
		return Response{ID: idOr(req.ID), Error: fmt.Sprintf("line %d: %v", n, err)}
	}
	return resp
}

func idOr(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}

// Evaluate decides one request. It is Eval without the JSON lines.
func Evaluate(req Request) (Response, error) {
	call, err := CallFromInput(req.Tool, req.Input)
	if err != nil {
		return Response{}, err
	}
	call.Kind, call.Title = req.Kind, req.Title
	mode := policy.ModeDefault
	if req.Mode != "" {
		if mode, err = policy.ParseMode(req.Mode); err != nil {
			return Response{}, err
		}
	}
	cwd, root := req.Cwd, req.ProjectRoot
	if cwd == "" {
		cwd = root
	}
	if root == "" {
		root = cwd
	}
	if cwd == "" {
		return Response{}, errors.New(`"cwd" or "projectRoot" is required`)
	}
	if !strings.HasPrefix(cwd, "/") || !strings.HasPrefix(root, "/") {
		return Response{}, fmt.Errorf("cwd %q and projectRoot %q must be absolute", cwd, root)
	}
	home := req.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	rulesRoot := req.RulesRoot
	if rulesRoot == "" {
		rulesRoot = root
	}
	origin := policy.Origin{Layer: "policy-eval", Root: rulesRoot}
	var rules []policy.RuleText
	for _, l := range []struct {
		list  string
		texts []string
	}{{"allow", req.Rules.Allow}, {"ask", req.Rules.Ask}, {"deny", req.Rules.Deny}} {
		for _, t := range l.texts {
			rules = append(rules, policy.RuleText{List: l.list, Text: t, Origin: origin})
		}
	}
	pol, errs := policy.Compile(rules)
	env := policy.Env{Cwd: cwd, ProjectRoot: root, Home: home, AdditionalDirectories: req.AdditionalDirectories, FS: policy.OSFS{}}
	if req.Symlinks != nil {
		env.FS = policy.MapFS(*req.Symlinks)
	}
	v := policy.Evaluate(policy.Input{Call: call, Mode: mode, Env: env, Policy: pol})
	rule := v.Rule
	resp := Response{
		ID: idOr(req.ID), Decision: string(v.Decision), Rule: &rule, Source: string(v.Source), Reason: v.Reason,
		SubCommands: v.SubCommands, Breaker: v.Breaker, Specifier: v.Specifier,
	}
	for _, e := range errs {
		resp.RuleErrors = append(resp.RuleErrors, e.Error())
	}
	return resp, nil
}

// CallFromInput builds a canonical call from a tool name and its input:
// Bash {"command"} or a plain string; Read/Edit/Write/MultiEdit/NotebookEdit
// {"file_path"|"path"|"notebook_path"|"paths"}; WebFetch {"url"};
// WebSearch {"query"}; anything else is kept as the raw input.
func CallFromInput(tool string, input json.RawMessage) (policy.Call, error) {
	call := policy.Call{Tool: tool, Input: input}
	if len(input) == 0 || string(input) == "null" {
		return call, nil
	}
	var asString string
	isString := json.Unmarshal(input, &asString) == nil
	var obj struct {
		Command      *string  `json:"command"`
		FilePath     string   `json:"file_path"`
		Path         string   `json:"path"`
		NotebookPath string   `json:"notebook_path"`
		Paths        []string `json:"paths"`
		URL          string   `json:"url"`
		Query        string   `json:"query"`
	}
	if !isString {
		if err := json.Unmarshal(input, &obj); err != nil {
			if tool == "Bash" || tool == "Read" || tool == "Edit" || tool == "WebFetch" || tool == "WebSearch" {
				return call, fmt.Errorf("input of %s: %w", tool, err)
			}
			return call, nil // another tool's input is not ours to read
		}
	}
	switch tool {
	case "Bash":
		switch {
		case isString:
			call.Command = asString
		case obj.Command != nil:
			call.Command = *obj.Command
		default:
			return call, errors.New(`Bash input needs "command"`)
		}
	case "WebFetch":
		call.URL = obj.URL
		if isString {
			call.URL = asString
		}
	case "WebSearch":
		call.Query = obj.Query
		if isString {
			call.Query = asString
		}
	default:
		switch {
		case isString && (tool == "Read" || tool == "Edit" || tool == "Write" || tool == "MultiEdit" || tool == "NotebookEdit"):
			call.Paths = []string{asString}
		case obj.FilePath != "":
			call.Paths = []string{obj.FilePath}
		case obj.NotebookPath != "":
			call.Paths = []string{obj.NotebookPath}
		case obj.Path != "":
			call.Paths = []string{obj.Path}
		}
		call.Paths = append(call.Paths, obj.Paths...)
		if obj.Command != nil {
			call.Command = *obj.Command
		}
		call.URL, call.Query = obj.URL, obj.Query
		if (tool == "Read" || tool == "Edit") && len(call.Paths) == 0 {
			return call, fmt.Errorf(`%s input needs "file_path" or "path"`, tool)
		}
	}
	return call, nil
}
