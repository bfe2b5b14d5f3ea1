package policy

import "strings"

// Environment variables a command sets (docs/policy.md, "What the static
// reading holds", "Environment that changes what runs").
//
// Three tiers:
//   - safeEnv: locale, time zone, colours, terminal size, CI flags and a few
//     build switches. Setting them changes no program that runs: a prefix
//     `LANG=C ls` is matched and classified as plain `ls`.
//   - envDangerous: names that make programs run other code, load other
//     libraries, read other configuration or resolve other paths (PATH,
//     LD_*, GIT_*, PAGER, EDITOR, NODE_OPTIONS, PYTHON*, BASH_ENV, IFS,
//     HOME, PWD, CDPATH, ...). Setting one in any way (prefix, plain
//     assignment, export, declare, env, sudo, for, read, printf -v, unset)
//     makes the command uncertain: it asks in every mode.
//   - every other name: a prefix assignment, `export` or `env NAME=...`
//     makes the command need an allow rule that names the assignment
//     (`Bash(NODE_ENV=test npm *)`): it is neither read-only nor covered by
//     the rule for the bare command. A plain shell assignment (`x=1; ...`)
//     is a shell variable and passes.

// safeEnv are names a command may set freely.
var safeEnv = map[string]bool{
	"LANG": true, "LANGUAGE": true, "TZ": true, "NO_COLOR": true, "FORCE_COLOR": true, "CLICOLOR": true,
	"CLICOLOR_FORCE": true, "TERM": true, "COLORTERM": true, "COLUMNS": true, "LINES": true, "CI": true,
	"CGO_ENABLED": true, "GOOS": true, "GOARCH": true, "GOMAXPROCS": true, "GOTRACEBACK": true,
	"NODE_ENV": true, "RUST_BACKTRACE": true, "RUST_LOG": true, "PYTHONUNBUFFERED": true,
	"PYTHONDONTWRITEBYTECODE": true, "PYTHONIOENCODING": true, "PYTHONHASHSEED": true, "PYTHONUTF8": true,
	"GIT_TERMINAL_PROMPT": true, "GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
}

// envSafe: setting name changes nothing that runs.
func envSafe(name string) bool {
	return safeEnv[name] || strings.HasPrefix(name, "LC_")
}

// dangerousEnv are names, exact, that change what runs or where paths go.
var dangerousEnv = map[string]bool{
	"PATH": true, "CDPATH": true, "HOME": true, "PWD": true, "OLDPWD": true, "ENV": true, "IFS": true,
	"SHELLOPTS": true, "PS4": true, "PROMPT_COMMAND": true, "GLOBIGNORE": true, "PAGER": true, "EDITOR": true,
	"VISUAL": true, "BROWSER": true, "SHELL": true, "MANPAGER": true, "MANOPT": true, "MANROFFOPT": true,
	"ZDOTDIR": true, "KUBECONFIG": true, "CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true,
	"AS": true, "FC": true, "MAKE": true, "MAKEFLAGS": true, "MFLAGS": true, "MAKEFILES": true,
	"GOFLAGS": true, "GOENV": true, "GOTOOLCHAIN": true, "GOROOT": true, "RUSTC": true, "RUSTDOC": true,
	"RUSTFLAGS": true, "RUSTDOCFLAGS": true, "CLASSPATH": true, "TMPDIR": true, "TERMINFO": true,
	"HISTFILE": true, "INPUTRC": true, "BUNDLE_GEMFILE": true, "GEM_HOME": true, "GEM_PATH": true,
	"CFLAGS": true, "CXXFLAGS": true, "LDFLAGS": true, "CPPFLAGS": true, "PKG_CONFIG": true,
	// red team 17: libpq sends PGOPTIONS to the server as settings
	// (session_preload_libraries loads code there; standard_conforming_strings
	// changes how psql reads its text).
	"PGOPTIONS": true,
	// red team 17b: the compiler drivers' environment (gcc, cc, clang):
	// where they find the programs they run (GCC_EXEC_PREFIX, COMPILER_PATH),
	// a second compilation with other options (GCC_COMPARE_DEBUG, so
	// -wrapper CMD), where they write a dependency file (SUNPRO_DEPENDENCIES,
	// DEPENDENCIES_OUTPUT), the libraries and headers they use.
	"GCC_EXEC_PREFIX": true, "GCC_COMPARE_DEBUG": true, "COMPILER_PATH": true, "LIBRARY_PATH": true,
	"SUNPRO_DEPENDENCIES": true, "DEPENDENCIES_OUTPUT": true, "CPATH": true, "C_INCLUDE_PATH": true,
	"CPLUS_INCLUDE_PATH": true, "OBJC_INCLUDE_PATH": true, "CCC_OVERRIDE_OPTIONS": true,
}

// dangerousEnvPrefix and dangerousEnvSuffix catch the families.
var (
	dangerousEnvPrefix = []string{"LD_", "DYLD_", "GIT_", "BASH_", "BASHOPTS", "NPM_CONFIG_", "YARN_", "PNPM_",
		"CARGO_", "RUSTUP_", "PYTHON", "PIP_", "PERL", "RUBY", "NODE_", "LESS", "MANPAGER", "MANPATH", "MANOPT", "MANROFFOPT", "SSH_", "JAVA", "_JAVA",
		"JDK_", "MAVEN_", "GRADLE_", "LUA_", "TCL", "DOCKER_", "XDG_", "SUDO_", "DOTNET_", "COMPOSER_", "CONDA",
		"VIRTUAL_ENV", "PHP", "R_", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GOINSECURE", "GOPATH", "GOBIN",
		// red team 4: programs that run a variable's value (rsync's remote
		// shell and connect program, Mercurial's merge tool and editor,
		// vim's and ex's startup commands, svn's and cvs's ssh).
		"RSYNC_", "HG", "VIM", "GVIM", "EXINIT", "NEXINIT", "MYVIMRC", "MYGVIMRC", "SVN_", "CVS_", "EMACS",
		// red team 17b: gcc's and clang's drivers and collect2 (GCC_EXEC_PREFIX,
		// GCC_COMPARE_DEBUG, COLLECT_GCC, COLLECT_LTO_WRAPPER,
		// CCC_OVERRIDE_OPTIONS, SUNPRO_DEPENDENCIES).
		"GCC_", "COLLECT_", "CCC_", "SUNPRO_"}
	dangerousEnvSuffix = []string{"PATH", "_OPTIONS", "_OPTS", "OPT", "_COMMAND", "_CMD", "EDITOR", "PAGER",
		"ASKPASS", "_PROGRAM", "_PRELOAD", "_WRAPPER", "_HOME", "ROOT", "_DIR", "_HOOK", "_HOOKS", "_SHELL",
		"_EXEC", "INIT", "FLAGS", "RSH", "_PROG", "MERGE", "EDIT", "RCFILE", "_SSH"}
)

// envDangerous: passing name to a program can change what it runs.
func envDangerous(name string) bool {
	if shellVarDangerous(name) {
		return true
	}
	if envSafe(name) {
		return false
	}
	u := strings.ToUpper(name)
	if envNamesConfigOrOutput(u) {
		return true
	}
	for _, s := range dangerousEnvSuffix {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return false
}

// shellVarDangerous: even a plain shell assignment (not exported by the
// command) of name changes what runs: the shell itself reads it (PATH,
// IFS, CDPATH, HOME, PS4, ...) or it is commonly exported already, so a
// new value reaches every program (LD_*, GIT_*, PAGER, ...).
func shellVarDangerous(name string) bool {
	if envSafe(name) {
		return false
	}
	u := strings.ToUpper(name)
	if dangerousEnv[u] {
		return true
	}
	// The configuration files named exactly (shell_env_files.go) are
	// commonly exported by a person's environment already: a plain
	// assignment (OPENSSL_CONF=x; curl URL) changes what the next program
	// loads whenever it is, which the reader cannot know.
	if envFileExact[u] {
		return true
	}
	for _, p := range dangerousEnvPrefix {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}
