package policy

import "strings"

// The protected places: ONE table that both the policy's write breakers
// (protected.go) and the OS sandbox (sandbox.Compute) read. A place is a
// file or directory that is either where a policy lives (the bridge's, the
// editor's, another agent's) or whose content makes a program run code
// later, outside any turn: git's hooks and configuration, editor tasks,
// shell startup files, persistence locations (cron, systemd user units,
// autostart, PATH directories, Python's user site). See docs/policy.md
// "Protected files" and docs/sandbox.md "Places, not files".

// PlaceBase is what a place's Path is relative to.
type PlaceBase int

const (
	// InRoot: relative to any directory that could be a workspace (the
	// policy: at any depth; the sandbox: each writable root and each
	// repository root found inside one).
	InRoot PlaceBase = iota
	// InHome: relative to the home directory.
	InHome
	// InSystem: an absolute path.
	InSystem
)

// Floor is what the OS sandbox does with a place that lies in a writable
// tree.
type Floor int

const (
	// FloorReadOnly: the place is read-only and a mount point, and so is
	// every directory from it up to the writable root (none can be renamed,
	// replaced or removed). A missing place that runs code cannot be
	// created.
	FloorReadOnly Floor = iota
	// FloorPolicy: the policy protects it (a write asks in every mode), the
	// sandbox leaves it writable: an agent's own state directory, which it
	// must write; the permission files inside it are places of their own.
	FloorPolicy
	// FloorCopy: an agent's own state file that holds permission state and
	// that the agent rewrites (~/.claude.json): inside the sandbox a private
	// writable copy is bound over it, so no write reaches the real file.
	FloorCopy
)

// Place is one protected place.
type Place struct {
	Base PlaceBase
	// Path is slash-separated: relative for InRoot and InHome, absolute for
	// InSystem. A segment may be a glob (*, ?): the place is every match.
	Path string
	// What names it in a breaker's reason.
	What string
	// RunsCode: what is written there runs later without a turn (a hook, a
	// task, a startup file, a program on PATH). A missing one is kept from
	// being created in the sandbox.
	RunsCode bool
	// Dir: the place is a directory (a missing one is blocked as an empty
	// read-only directory, else as an empty read-only file).
	Dir bool
	// Startup: a login or shell startup location (named so in a breaker).
	Startup bool
	// Git: inside a git directory; the sandbox applies it to every git
	// directory it finds (the workspace's, nested repositories', gitfiles'
	// targets), only where that git directory exists.
	Git bool
	// Holds: a directory of git directories (.git/modules, .git/worktrees):
	// nothing new can be created in it, and each git directory already in
	// it is a git directory of its own to the sandbox (writable, with its
	// own places held).
	Holds bool
	Floor Floor
	// probe stands for a glob's last segment when a glob or a recursive
	// operation is checked against the rule ("" = the path as is).
	probe string
}

// Segs are the place's path segments.
func (p Place) Segs() []string { return splitAbs(p.Path) }

// Places returns the table (a copy).
func Places() []Place { return append([]Place(nil), places...) }

const (
	whatPolicy    = "the protected policy file"
	whatVSSet     = "VS Code's workspace settings"
	whatGitConfig = "git's configuration (it can make git run programs)"
	whatGitHooks  = "git's hooks (they run at every commit, checkout, merge)"
)

var places = func() []Place {
	ps := []Place{
		{Base: InRoot, Path: ".acp-bridge.yaml", What: whatPolicy},
		{Base: InRoot, Path: ".acp-bridge.yml", What: whatPolicy},
		{Base: InRoot, Path: ".acp-bridge.json", What: whatPolicy},
		{Base: InRoot, Path: ".acp-bridge.toml", What: whatPolicy},
		{Base: InRoot, Path: ".vscode/settings.json", What: whatVSSet, RunsCode: true},
		{Base: InRoot, Path: ".vscode/tasks.json", What: "VS Code's workspace tasks (they can run on folder open)", RunsCode: true},
		{Base: InRoot, Path: ".vscode/launch.json", What: "VS Code's launch configurations (they run programs and tasks)", RunsCode: true},
		{Base: InRoot, Path: ".vscode/mcp.json", What: "VS Code's MCP servers (programs it starts)", RunsCode: true},
		{Base: InRoot, Path: ".vscode/extensions.json", What: "VS Code's recommended extensions", RunsCode: true},
		{Base: InRoot, Path: "*.code-workspace", What: "a VS Code workspace file", probe: "x.code-workspace"},
		{Base: InRoot, Path: "User/settings.json", What: "VS Code's user settings"},
		{Base: InRoot, Path: "User/tasks.json", What: "VS Code's user tasks"},
		{Base: InRoot, Path: "User/mcp.json", What: "VS Code's user MCP servers"},
		{Base: InRoot, Path: "User/keybindings.json", What: "VS Code's user key bindings"},
		{Base: InRoot, Path: ".claude/settings.json", What: "Claude Code's settings", RunsCode: true},
		{Base: InRoot, Path: ".claude/settings.local.json", What: "Claude Code's settings", RunsCode: true},
		{Base: InRoot, Path: ".mcp.json", What: "Claude Code's MCP servers", RunsCode: true},
		{Base: InRoot, Path: ".gemini", What: "Gemini CLI's settings", Dir: true, RunsCode: true},
		{Base: InRoot, Path: ".codex", What: "Codex's settings", Dir: true, RunsCode: true},
		// OpenCode creates and writes its own workspace directory when it
		// starts (.opencode/.gitignore): held by the sandbox it could not
		// start at all. The policy's only; docs/sandbox.md says what remains
		// (another agent's unasked code can plant OpenCode plugins there).
		{Base: InRoot, Path: ".opencode", What: "OpenCode's settings", Dir: true, RunsCode: true, Floor: FloorPolicy},
		{Base: InRoot, Path: "opencode.json", What: "OpenCode's settings", RunsCode: true},
		{Base: InRoot, Path: "opencode.jsonc", What: "OpenCode's settings", RunsCode: true},
		{Base: InRoot, Path: ".qwen", What: "Qwen Code's settings", Dir: true, RunsCode: true},
		{Base: InRoot, Path: ".cursor/mcp.json", What: "Cursor's MCP servers", RunsCode: true},
		{Base: InRoot, Path: ".envrc", What: "direnv's script (it runs on cd)", RunsCode: true},
		{Base: InRoot, Path: ".husky", What: "husky's git hooks", Dir: true, RunsCode: true},
		{Base: InRoot, Path: ".ssh/authorized_keys*", What: "ssh's authorized keys", probe: "authorized_keys"},
		{Base: InRoot, Path: ".ssh/config", What: "ssh's configuration"},
		{Base: InRoot, Path: ".ssh/rc", What: "ssh's login script"},
		{Base: InRoot, Path: ".ssh/environment", What: "ssh's login environment"},
		// Git directories: the policy breaks on any write inside .git
		// (writeBreakerAt); these are the parts the sandbox keeps read-only
		// in every git directory it finds (the rest, objects, refs and the
		// index, is ordinary work).
		{Base: InRoot, Path: ".git/config", What: whatGitConfig, RunsCode: true, Git: true},
		{Base: InRoot, Path: ".git/config.worktree", What: whatGitConfig, RunsCode: true, Git: true},
		{Base: InRoot, Path: ".git/hooks", What: whatGitHooks, Dir: true, RunsCode: true, Git: true},
		{Base: InRoot, Path: ".git/info", What: "git's attributes and excludes", Dir: true, RunsCode: true, Git: true},
		{Base: InRoot, Path: ".git/commondir", What: "git's common directory pointer (it names another git directory)", RunsCode: true, Git: true},
		{Base: InRoot, Path: ".git/modules/*/config", What: "a submodule's git configuration", RunsCode: true, Git: true, probe: "x"},
		{Base: InRoot, Path: ".git/modules/*/hooks", What: "a submodule's git hooks", Dir: true, RunsCode: true, Git: true, probe: "x"},
		{Base: InRoot, Path: ".git/worktrees/*/config.worktree", What: "a worktree's git configuration", RunsCode: true, Git: true, probe: "x"},
		// Git's state that a later git command of the person's acts on:
		// a rebase's or a cherry-pick's todo list (its `exec` lines run
		// programs at `git rebase --continue`), an am session, and the
		// directories that hold other git directories (a new submodule's
		// or worktree's, with a config of its own that a gitfile anywhere
		// can name). Existing or not: a missing one is blocked, an
		// existing modules/ or worktrees/ is read-only while each git
		// directory already inside it stays writable (and holds its own
		// places).
		// rebase-merge and rebase-apply are the policy's only: git takes the
		// mere presence of either (a blocking placeholder, file or directory)
		// for a rebase in progress, so blocking them would tell the person's
		// git and VS Code "You are currently rebasing" while an agent runs.
		// docs/sandbox.md, "Git's state that runs code later", says what
		// remains.
		{Base: InRoot, Path: ".git/rebase-merge", What: "git's rebase state (its todo list runs programs at git rebase --continue)", Dir: true, RunsCode: true, Git: true, Floor: FloorPolicy},
		{Base: InRoot, Path: ".git/rebase-apply", What: "git's rebase/am state (git rebase --continue acts on it)", Dir: true, RunsCode: true, Git: true, Floor: FloorPolicy},
		{Base: InRoot, Path: ".git/sequencer", What: "git's cherry-pick/revert state (its todo list runs at --continue)", Dir: true, RunsCode: true, Git: true},
		{Base: InRoot, Path: ".git/modules", What: "git's submodule git directories (a new one's config can make git run programs)", Dir: true, RunsCode: true, Git: true, Holds: true},
		{Base: InRoot, Path: ".git/worktrees", What: "git's worktree git directories (a new one's config can make git run programs)", Dir: true, RunsCode: true, Git: true, Holds: true},

		// Home: the bridge's own settings, agents' settings and state.
		{Base: InHome, Path: ".config/acp-bridge", What: whatPolicy, Dir: true},
		// The organisation's OPA bundle, kept for offline starts (docs/org.md):
		// whoever rewrites it rewrites the organisation's policy.
		{Base: InHome, Path: ".cache/acp-bridge", What: whatPolicy, Dir: true},
		{Base: InHome, Path: ".claude", What: "Claude Code's settings", Dir: true, Floor: FloorPolicy},
		{Base: InHome, Path: ".claude/settings.json", What: "Claude Code's settings", RunsCode: true},
		{Base: InHome, Path: ".claude/settings.local.json", What: "Claude Code's settings", RunsCode: true},
		{Base: InHome, Path: ".claude.json", What: "Claude Code's settings", Floor: FloorCopy},
		{Base: InHome, Path: ".claude.json.backup", What: "Claude Code's settings", Floor: FloorCopy},
		{Base: InHome, Path: ".gemini", What: "Gemini CLI's settings", Dir: true, Floor: FloorPolicy},
		{Base: InHome, Path: ".gemini/settings.json", What: "Gemini CLI's settings", RunsCode: true},
		{Base: InHome, Path: ".gemini/trustedFolders.json", What: "Gemini CLI's settings", RunsCode: true},
		{Base: InHome, Path: ".codex", What: "Codex's settings", Dir: true, Floor: FloorPolicy},
		{Base: InHome, Path: ".codex/config.toml", What: "Codex's settings", RunsCode: true},
		{Base: InHome, Path: ".qwen", What: "Qwen Code's settings", Dir: true, Floor: FloorPolicy},
		{Base: InHome, Path: ".qwen/settings.json", What: "Qwen Code's settings", RunsCode: true},
		{Base: InHome, Path: ".config/opencode", What: "OpenCode's settings", Dir: true, Floor: FloorPolicy},
		{Base: InHome, Path: ".config/opencode/opencode.json", What: "OpenCode's settings", RunsCode: true},
		{Base: InHome, Path: ".config/opencode/opencode.jsonc", What: "OpenCode's settings", RunsCode: true},
		{Base: InHome, Path: ".config/opencode/config.json", What: "OpenCode's settings", RunsCode: true},
		{Base: InHome, Path: ".config/goose", What: "Goose's settings", Dir: true},
		{Base: InHome, Path: ".kimi/config.json", What: "Kimi's settings", RunsCode: true},
		{Base: InHome, Path: ".ssh", What: "ssh's keys and configuration", Dir: true},
		{Base: InHome, Path: ".gitconfig", What: whatGitConfig, RunsCode: true},
		{Base: InHome, Path: ".config/git", What: whatGitConfig, Dir: true, RunsCode: true},
		// The person's editor: settings, tasks, MCP servers, extensions.
		{Base: InHome, Path: ".config/Code/User", What: "VS Code's user settings, tasks and MCP servers", Dir: true, RunsCode: true},
		{Base: InHome, Path: ".vscode/extensions", What: "VS Code's extensions", Dir: true, RunsCode: true},
		{Base: InHome, Path: ".vscode-server", What: "VS Code server's extensions and settings", Dir: true, RunsCode: true},
		{Base: InHome, Path: ".vscode-oss/extensions", What: "VS Code's extensions", Dir: true, RunsCode: true},
		{Base: InHome, Path: "Library/Application Support/Code/User", What: "VS Code's user settings, tasks and MCP servers", Dir: true, RunsCode: true},
		// Programs on PATH and Python's user site (.pth files run at every
		// interpreter start).
		{Base: InHome, Path: ".local/bin", What: "a directory on PATH (programs there run by name)", Dir: true, RunsCode: true},
		{Base: InHome, Path: "bin", What: "a directory on PATH (programs there run by name)", Dir: true, RunsCode: true},
		{Base: InHome, Path: ".cargo/bin", What: "a directory on PATH (programs there run by name)", Dir: true, RunsCode: true},
		{Base: InHome, Path: "go/bin", What: "a directory on PATH (programs there run by name)", Dir: true, RunsCode: true},
		{Base: InHome, Path: ".local/lib/python*/site-packages", What: "Python's user site (its .pth files run at every start)", Dir: true, RunsCode: true, probe: "python3"},
		{Base: InHome, Path: ".local/share/systemd/user", What: "systemd user units", Dir: true, RunsCode: true},
	}
	for _, rc := range rcFiles {
		ps = append(ps, Place{Base: InHome, Path: rc, What: "the shell startup file", RunsCode: true, Startup: true})
	}
	for _, d := range []string{".config/fish", ".bashrc.d", ".zshrc.d", ".profile.d", ".config/zsh", ".zsh",
		".oh-my-zsh/custom", ".config/environment.d", ".config/autostart", ".config/systemd/user",
		"Library/LaunchAgents", ".pam_environment", ".xprofile", ".xsessionrc", ".xinitrc", ".xsession",
		".zlogout", ".login", ".logout", ".mkshrc", ".bash_aliases"} {
		dir := !strings.HasPrefix(d, ".x") && !strings.Contains(d, "log") && d != ".pam_environment" && d != ".mkshrc" && d != ".bash_aliases"
		ps = append(ps, Place{Base: InHome, Path: d, What: "the login or shell startup file", RunsCode: true, Startup: true, Dir: dir})
	}
	for _, d := range []string{"/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zshrc",
		"/etc/zsh", "/etc/zprofile", "/etc/zshenv", "/etc/zlogin", "/etc/zlogout", "/etc/environment", "/etc/fish",
		"/etc/csh.cshrc", "/etc/csh.login", "/etc/gitconfig", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh",
		"/etc/crontab", "/etc/cron.d", "/etc/cron.hourly", "/etc/cron.daily", "/etc/cron.weekly", "/etc/cron.monthly",
		"/var/spool/cron", "/var/spool/anacron", "/var/spool/at", "/etc/ld.so.preload", "/etc/claude-code", "/etc/gemini-cli", "/etc/codex",
		"/Library/Application Support/ClaudeCode", "/Library/Application Support/acp-bridge", `C:\ProgramData\acp-bridge`, "/Library/LaunchAgents", "/Library/LaunchDaemons",
		// last: the rest of /etc (system configuration, systemd units,
		// package hooks) after the named files above.
		"/etc"} {
		ps = append(ps, Place{Base: InSystem, Path: d, What: "the system startup or security file", RunsCode: true})
	}
	return ps
}()

// rulesOf turns the table's places of one base into the breakers' rules.
func rulesOf(base PlaceBase, startup bool) []protRule {
	var out []protRule
	for _, p := range places {
		if p.Base != base || p.Startup != startup {
			continue
		}
		out = append(out, protRule{segs: p.Segs(), what: p.What, probe: p.probe})
	}
	return out
}

func pathsOf(base PlaceBase, startup bool) []string {
	var out []string
	for _, p := range places {
		if p.Base == base && p.Startup == startup {
			out = append(out, p.Path)
		}
	}
	return out
}
