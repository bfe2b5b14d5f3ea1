package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acp-bridge/acp-bridge/settings"
)

const workspaceUsage = `Usage:
  acp-bridge workspace status [--workspace DIR]
  acp-bridge workspace approve [--digest sha256:...] [--workspace DIR]

Trusting a workspace pins its .acp-bridge.yaml as it is then if it only
narrows the policy; a file that loosens anything (a looser mode, allow rules,
agents, the sandbox off or wider...) waits for approval, and so does a
version that differs from the pinned one (an agent created or changed it, a
git pull did): until approved it may only narrow the policy (docs/settings.md
"Workspace trust"). status prints the file, its digest, the approved one and
what the file loosens; approve pins the file's current version, or only the
version with --digest (the one you reviewed: a file changed since is
refused).

`

// workspaceCmd is `acp-bridge workspace status|approve`.
func workspaceCmd(args []string, stdout, stderr io.Writer) int {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	if sub != "status" && sub != "approve" {
		if sub == "" {
			fmt.Fprint(stderr, "acp-bridge workspace: status or approve is required\n\n"+workspaceUsage)
		} else {
			fmt.Fprintf(stderr, "acp-bridge workspace: unknown subcommand %q\n\n%s", sub, workspaceUsage)
		}
		return 2
	}
	var c common
	var digest string
	fs := newFlags("workspace "+sub, stderr, workspaceUsage)
	c.register(fs)
	if sub == "approve" {
		fs.StringVar(&digest, "digest", "", "approve only this version (sha256:<hex>, as status prints it)")
	}
	if code := parse(fs, args); code >= 0 {
		return code
	}
	// Loaded untrusted: reading the settings pins nothing; approve pins.
	c.trustWorkspace = false
	_, store, _, done, code := toolSettings(&c, "workspace", stderr)
	if code >= 0 {
		return code
	}
	defer done()
	file, cur, err := store.WorkspaceFileDigest()
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge workspace: %v\n", err)
		return 1
	}
	approved, err := store.ApprovedDigest()
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge workspace: %v\n", err)
		return 1
	}
	if sub == "status" {
		fmt.Fprintf(stdout, "file:     %s\ndigest:   %s\n", file, cur)
		// Loaded untrusted: what was ignored is what the file loosens.
		if l := settings.Loosenings(store.Snapshot().WorkspaceTrust.Ignored); len(l) > 0 {
			fmt.Fprintln(stdout, "loosens:")
			for _, x := range l {
				fmt.Fprintf(stdout, "  - %s\n", x)
			}
		} else {
			fmt.Fprintln(stdout, "loosens:  nothing (it only narrows the policy)")
		}
		switch {
		case approved == "":
			fmt.Fprintln(stdout, "approved: none yet (a file that only narrows is pinned when the workspace is first trusted; one that loosens waits for approve)")
		case approved == cur || cur == settings.DigestAbsent:
			fmt.Fprintf(stdout, "approved: %s (this version)\n", approved)
		default:
			fmt.Fprintf(stdout, "approved: %s\nThis version is not approved: in a trusted workspace it may only narrow the policy.\n", approved)
			fmt.Fprintf(stdout, "Review it, then: acp-bridge workspace approve --digest %s\n", cur)
		}
		return 0
	}
	if digest == "" && cur != settings.DigestAbsent {
		// No digest: the person approves what the file holds now; show it.
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "acp-bridge workspace: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "--- %s\n%s", file, data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintln(stdout, "---")
		digest = cur
	}
	got, err := store.ApproveWorkspaceFile(digest)
	if err != nil {
		fmt.Fprintf(stderr, "acp-bridge workspace approve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "approved %s (%s)\n", file, got)
	return 0
}
