package settings

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/acp-bridge/acp-bridge/internal/mountnames"
)

// A decision hook's command is what is judged and what is run
// (docs/settings.md "hooks", docs/sandbox.md "Programs the bridge runs
// outside every sandbox"). A hook runs outside every sandbox with the
// bridge's rights, so everything it runs must lie outside every tree an
// agent may write. Red teams 14 and 14b showed that reading path-like
// words off a command misses what a shell or an interpreter builds at run
// time (globs, quotes, ${IFS}, cd, env --chdir, python -c string
// concatenation, ~user, a runner's cache, a #! naming the workspace's
// interpreter). So a hook's command must be plain enough that the files it
// runs are the files the check sees:
//
//   - the program is an absolute path outside every writable tree (its
//     symlinks resolved); a script's #! interpreter is checked the same
//     way, recursively (hookMaxDepth), and so is env's target, looked up in
//     the hook's own PATH (hookPATH);
//   - no argument holds a character a shell or an interpreter could expand
//     (hookMeta); no inline-code option of a known interpreter (-c, -e,
//     --eval, -p, -m, env -S/-C...); a shell or an interpreter runs a
//     script FILE, never code from an argument or the request on stdin;
//     package runners (npx, uvx, pipx, bunx, npm/pnpm/yarn/uv/bun) and
//     programs that run the program their arguments name (timeout, nice,
//     xargs, sudo...) are refused, and so is an argument naming an
//     interpreter, a runner or such a wrapper;
//   - every argument word that names a path (a slash, or an existing name
//     under "/", the hook's directory) lies outside every writable tree; an
//     executable it names is checked like the program;
//   - a node program's modules: node_modules in every parent of its script,
//     and $HOME/.node_modules, $HOME/.node_libraries, lie outside every
//     writable tree.
//
// And a hook runs with an environment an agent's tree cannot steer
// (hookEnviron): PATH without the entries inside writable trees, HOME only
// when it lies outside every writable tree, PYTHONNOUSERSITE=1, and none
// of PYTHONPATH, NODE_PATH, NODE_OPTIONS, BASH_ENV, LD_PRELOAD and the like.

// hookMaxDepth bounds a chain of #! interpreters and env targets.
const hookMaxDepth = 4

// hookMeta are the characters a shell or an interpreter could expand or
// read as code in an argument: variables, substitutions, globs, quotes,
// escapes, ~user, command separators, redirections.
const hookMeta = "$`*?[]~\\'\";&|<>\n\r"

// hookPathProblems checks every command hook of cfg against trees.
// environ is the bridge's environment (the hook's PATH and HOME are
// computed from it as hookEnviron does).
func hookPathProblems(cfg Config, trees []WritableTree, readOnly []string, environ []string) []*FieldError {
	var out []*FieldError
	c := &hookCheck{trees: trees, readOnly: readOnly, path: hookPATH(environ, trees, readOnly), home: hookHome(environ, trees, readOnly)}
	for i, h := range cfg.Hooks {
		if len(h.Command) == 0 {
			continue
		}
		c.judged = map[string]bool{}
		if p := c.command(h.Command, 0); p != "" {
			out = append(out, &FieldError{Key: fmt.Sprintf("hooks[%d].command", i), Msg: fmt.Sprintf("hook %s %s", h.Name, p)})
		}
	}
	return out
}

// hookCheck judges one hook's command.
type hookCheck struct {
	trees    []WritableTree
	readOnly []string
	path     []string        // the hook's PATH entries (hookPATH)
	home     string          // the hook's HOME ("" when unset)
	judged   map[string]bool // scripts whose #! is judged already (a script is its interpreter's argument too)
	devs     map[uint64]bool // devices of the writable trees and the temp directory (hardLinked)
	mounts   mountnames.Table
}

// hookKind is what a program is, read from its name: "python" for
// python3.12, "sh" for /bin/sh.
func hookKind(p string) string {
	b := strings.ToLower(filepath.Base(p))
	b = strings.TrimSuffix(b, ".exe")
	k := strings.TrimRight(b, "0123456789.-")
	if k == "" {
		return b
	}
	return k
}

// hookKnown: k is a kind some table names.
func hookKnown(k string) bool {
	return hookShells[k] || hookRunners[k] || hookWrappers[k] || hookInterps[k] || k == "env"
}

// Program kinds (hookKind).
var (
	hookShells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "pdksh": true, "ash": true,
		"yash": true, "posh": true, "fish": true, "csh": true, "tcsh": true, "rbash": true, "nu": true, "elvish": true, "xonsh": true, "pwsh": true}
	// hookRunners run a package from a cache or a project (an agent's
	// runner may write the cache: sandbox.RunnerDirs).
	hookRunners = map[string]bool{"npx": true, "uvx": true, "pipx": true, "bunx": true, "pnpx": true, "npm": true, "pnpm": true, "yarn": true,
		"uv": true, "corepack": true, "volta": true, "poetry": true, "pipenv": true, "pdm": true, "hatch": true, "conda": true, "mamba": true,
		"micromamba": true, "cargo": true, "go": true, "gem": true, "bundle": true, "bundler": true, "composer": true, "dotnet": true, "mise": true, "asdf": true}
	// hookWrappers run the program their arguments name (or code they
	// hold): name that program as the hook's instead.
	hookWrappers = map[string]bool{"timeout": true, "nice": true, "nohup": true, "stdbuf": true, "setsid": true, "chroot": true, "sudo": true,
		"su": true, "doas": true, "runuser": true, "xargs": true, "find": true, "flock": true, "ionice": true, "taskset": true, "unshare": true,
		"nsenter": true, "time": true, "strace": true, "ltrace": true, "watch": true, "script": true, "busybox": true, "toybox": true,
		"systemd-run": true, "chpst": true, "parallel": true, "make": true, "gdb": true, "expect": true, "tclsh": true, "wish": true,
		"sed": true, "vim": true, "vi": true, "nvim": true, "emacs": true, "bwrap": true, "firejail": true, "systemd-nspawn": true, "prlimit": true, "chrt": true, "cgexec": true,
		"numactl": true, "catchsegv": true, "valgrind": true, "ld.so": true, "ld-linux": true, "ld-linux-x": true, "ld-musl-x": true}
	// hookInterps run a script file; their inline-code options are
	// refused (hookInterpOpts).
	hookInterps = map[string]bool{"python": true, "pypy": true, "node": true, "nodejs": true, "bun": true, "deno": true, "perl": true,
		"ruby": true, "php": true, "lua": true, "luajit": true, "awk": true, "gawk": true, "mawk": true, "nawk": true, "osascript": true,
		"rscript": true, "julia": true, "java": true, "jshell": true, "groovy": true, "scala": true, "kotlin": true, "erl": true,
		"escript": true, "elixir": true, "guile": true, "racket": true, "sbcl": true, "clisp": true, "ocaml": true, "ghc": true,
		"runghc": true, "swift": true, "dart": true, "raku": true, "tsx": true, "ts-node": true, "jq": true}
)

// hookInterpOpts are, for an interpreter kind, its short option letters
// that take code (a cluster holding one is refused), its short letters
// that take a value (the rest of the cluster, or the next argument), its
// long options that take code, and whether it runs a script file given
// as its first operand (one is required: without, it reads the request on
// stdin as code).
type hookInterpOpts struct {
	code, value string
	longCode    []string
	longValue   []string
	needScript  bool
}

var hookInterpTable = map[string]hookInterpOpts{
	"python": {code: "cmi", value: "WXQ", longCode: []string{"--command"}, longValue: []string{"--check-hash-based-pycs"}, needScript: true},
	"pypy":   {code: "cmi", value: "WXQ", needScript: true},
	"node":   {code: "epi", value: "rC", longCode: []string{"--eval", "--print", "--interactive", "--run"}, needScript: true},
	"bun":    {code: "ep", value: "r", longCode: []string{"--eval", "--print", "--preload", "--require", "--import"}, needScript: true},
	"deno":   {code: "e", longCode: []string{"--eval", "--ext", "--import-map", "--config"}, needScript: true},
	"perl":   {code: "eEi", value: "IMmdDlx0C", longCode: nil, needScript: true},
	"ruby":   {code: "ei", value: "IrCEKTWxF0l", needScript: true},
	"php":    {code: "rBREFai", value: "cdzfnS", longCode: []string{"--run", "--process-begin", "--process-code", "--process-end", "--process-file"}, needScript: true},
	"lua":    {code: "eil", needScript: true},
	"awk":    {code: "e", value: "fvFE", longCode: []string{"--source", "--exec", "--load", "--include"}},
	"julia":  {code: "eEiL", longCode: []string{"--eval", "--print", "--load"}, needScript: true},
}

func init() {
	hookInterpTable["nodejs"] = hookInterpTable["node"]
	hookInterpTable["luajit"] = hookInterpTable["lua"]
	for _, k := range []string{"gawk", "mawk", "nawk"} {
		hookInterpTable[k] = hookInterpTable["awk"]
	}
}

// command judges argv run as a hook's command: "" when it is plain and
// everything it runs lies outside every writable tree, else why not
// (completing "hook NAME ..."). The program's other names (links) are
// judged last, so a spelling is refused for what it is first.
func (c *hookCheck) command(argv []string, depth int) string {
	if p := c.spelling(argv, depth); p != "" {
		return p
	}
	return c.links(argv[0])
}

func (c *hookCheck) spelling(argv []string, depth int) string {
	if depth > hookMaxDepth {
		return fmt.Sprintf("runs %q through more than %d interpreters (#! or env): write the final program out", argv[0], hookMaxDepth)
	}
	prog := argv[0]
	if !filepath.IsAbs(prog) {
		return fmt.Sprintf("runs the program %q, which is not an absolute path (it would be looked up in a PATH): name it by its absolute path", prog)
	}
	if strings.ContainsAny(prog, hookMeta) {
		return fmt.Sprintf("runs the program %q, whose name has a character a shell could expand: name it plainly", prog)
	}
	if p := c.place(prog); p != "" {
		return p
	}
	kind := hookKind(prog)
	if !hookKnown(kind) {
		kind = hookKind(resolveExisting(prog)) // a link's target (/usr/bin/python3 -> python3.12)
	}
	// By its name first: a runner or a wrapper is often a script (npx's
	// #! names node), and what it runs is its arguments' business.
	switch {
	case hookRunners[kind]:
		return fmt.Sprintf("runs %s, a package runner: what it runs comes from a cache or a project an agent may write; install the hook and name its program", prog)
	case hookWrappers[kind]:
		return fmt.Sprintf("runs %s, which runs the program (or the code) its arguments name: name that program as the hook's command", prog)
	}
	if interp, ok, err := shebang(prog); err != "" {
		return err
	} else if ok {
		c.judged[prog] = true
		// The kernel runs interp [its one argument] prog args...: judge
		// that command.
		return c.command(append(append(interp, prog), argv[1:]...), depth+1)
	}
	if kind == "env" {
		return c.env(argv, depth)
	}
	args := argv[1:]
	for i, a := range args {
		if strings.ContainsAny(a, hookMeta) {
			return fmt.Sprintf("argument %d (%q) has a character a shell or an interpreter could expand (one of %q): the files it runs could not be checked; write the arguments plainly, or put the code in a script file", i+1, a, hookMeta)
		}
	}
	if hookShells[kind] {
		if p := c.shellArgs(prog, args); p != "" {
			return p
		}
	} else if o, ok := hookInterpTable[kind]; ok {
		if p := c.interpArgs(prog, kind, o, args); p != "" {
			return p
		}
	}
	isNode := kind == "node" || kind == "nodejs" || kind == "bun" || kind == "deno"
	for i, a := range args {
		if p := c.argument(i+1, a, depth, isNode); p != "" {
			return p
		}
	}
	if isNode && c.home != "" {
		for _, d := range []string{".node_modules", ".node_libraries"} {
			if where := c.where(filepath.Join(c.home, d)); where != "" {
				return fmt.Sprintf("runs node, which loads modules from %s, %s: keep node's module directories outside every tree an agent may write", filepath.Join(c.home, d), where)
			}
		}
	}
	return ""
}

// place judges one file a hook runs or names: its path (and symlinks)
// lie outside every writable tree. (links judges its other names.)
func (c *hookCheck) place(p string) string {
	if where := c.where(p); where != "" {
		return fmt.Sprintf("runs %s, which is %s: an agent could change what the hook runs outside the sandbox (a module, library or script beside it); keep a hook's program and scripts outside every tree an agent may write", p, where)
	}
	return c.mounted(p)
}

// mounted: no other name of p through a mount (a bind mount of a
// workspace directory or file: mountnames) lies in a writable tree.
func (c *hookCheck) mounted(p string) string {
	if c.mounts == nil {
		t, err := mountnames.Read()
		if err != nil {
			return fmt.Sprintf("runs %s, and the mounts that could give it another name could not be read (%v)", p, err)
		}
		c.mounts = t
	}
	names, ok := c.mounts.Others(resolveExisting(filepath.Clean(p)))
	if !ok {
		return fmt.Sprintf("runs %s, which no mount of this namespace holds: its other names could not be checked", p)
	}
	for _, n := range names {
		if where := c.where(n); where != "" {
			return fmt.Sprintf("runs %s, which is also %s through a mount (a bind mount), %s: an agent could change what the hook runs outside the sandbox through that name; install the hook outside every tree an agent may write, not bound from one", p, n, where)
		}
	}
	return ""
}

// links refuses a file with another name an agent could write
// (hardLinked).
func (c *hookCheck) links(p string) string {
	if n := c.hardLinked(p); n > 1 {
		return fmt.Sprintf("runs %s, which has %d names (hard links): another name may lie in a tree an agent may write, and writing it rewrites what the hook runs outside the sandbox; copy the file instead of linking it", p, n)
	}
	return ""
}

// hardLinked is the link count of the regular file p when another name
// for it could be one an agent writes: more than one link, on the device
// of a writable tree or of the temp directory (a hard link never crosses
// a file system), and writable by the bridge's user (whom agents run as)
// or owned by it (it may make it writable).
// 0 or 1 otherwise. The check cannot list the other names (that would
// walk every tree), so any other name is a doubt, and a doubt refuses.
// (The companion has the same rule, without the device and write
// conditions: orgproc.oneName.)
func (c *hookCheck) hardLinked(p string) uint64 {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Nlink <= 1 {
		return 0
	}
	if syscall.Access(p, 2 /* W_OK */) != nil && int(st.Uid) != os.Geteuid() {
		// Neither writable by the bridge's user nor its own: an agent
		// (that user) can neither write it nor chmod it writable. One it
		// owns it can chmod back to writable through another name (red
		// team 15b: a 0555 hook linked into the workspace).
		return 0
	}
	if c.devs == nil {
		c.devs = map[uint64]bool{}
		for _, d := range append([]string{os.TempDir()}, treePaths(c.trees)...) {
			var ds syscall.Stat_t
			if syscall.Stat(resolveExisting(d), &ds) == nil {
				c.devs[uint64(ds.Dev)] = true
			}
		}
	}
	if !c.devs[uint64(st.Dev)] {
		return 0
	}
	if c.everyNameBeside(p, st) {
		return 0
	}
	return uint64(st.Nlink)
}

// everyNameBeside reports whether every name of the file p (st) is an
// entry of p's own directory, none of them in a writable tree: then no
// other name is left for an agent to write through (a distribution's
// /usr/bin/perl and perl5.36.0, which a bridge run as root owns). A
// directory outside every writable tree takes no new name from an agent,
// and a link into it from a writable tree is one name more than this
// count, which refuses as before. Called only for a file with more than
// one name; it reads the directory once (an lstat per regular entry).
func (c *hookCheck) everyNameBeside(p string, st syscall.Stat_t) bool {
	dir := filepath.Dir(p)
	if c.where(dir) != "" {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	found := uint64(0)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		est, ok := info.Sys().(*syscall.Stat_t)
		if !ok || est.Ino != st.Ino || est.Dev != st.Dev {
			continue
		}
		if c.where(filepath.Join(dir, e.Name())) != "" {
			return false
		}
		found++
	}
	return found == uint64(st.Nlink)
}

func treePaths(trees []WritableTree) []string {
	out := make([]string, 0, len(trees))
	for _, t := range trees {
		out = append(out, t.Path)
	}
	return out
}

func (c *hookCheck) where(p string) string { return writableWhere(p, c.trees, c.readOnly) }

// shebang reads the #! line of the file p: the interpreter and its one
// argument (as the kernel splits it). ok is false for a file that is not
// a script (a binary, a directory, a missing file).
func shebang(p string) (interp []string, ok bool, problem string) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false, ""
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false, ""
	}
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	if !bytes.HasPrefix(buf, []byte("#!")) {
		return nil, false, ""
	}
	line, _, found := bytes.Cut(buf[2:], []byte("\n"))
	if !found && n == len(buf) && n == 256 {
		return nil, false, fmt.Sprintf("runs %s, whose #! line is longer than 254 bytes: it could not be checked", p)
	}
	s := strings.Trim(string(line), " \t\r")
	prog, arg, _ := strings.Cut(strings.ReplaceAll(s, "\t", " "), " ")
	if prog == "" {
		return nil, false, fmt.Sprintf("runs %s, whose #! line names no interpreter", p)
	}
	out := []string{prog}
	if arg = strings.Trim(arg, " "); arg != "" {
		out = append(out, arg)
	}
	return out, true, ""
}

// env judges /usr/bin/env [NAME=VALUE]... PROGRAM ARGS: every option of
// env is refused (-i and -u drop what the bridge set for the hook:
// PYTHONNOUSERSITE, the filtered PATH; -S and -C build a command or a
// directory the check cannot see; the rest change nothing a hook needs),
// and so is an assignment to any variable the hook's environment does not
// keep (hookEnviron: NODE_OPTIONS, PYTHONPATH, PERL5LIB, PERL5DB,
// RUBYOPT, LD_PRELOAD... name code to load) or sets itself (hookEnvOwn).
// A kept variable's value is an argument like any other, and PROGRAM
// (looked up in the hook's PATH) is judged as a command.
func (c *hookCheck) env(argv []string, depth int) string {
	i := 1
	var assigns []string
	for ; i < len(argv); i++ {
		a := argv[i]
		if strings.ContainsAny(a, hookMeta) {
			return fmt.Sprintf("argument %d (%q) has a character a shell or an interpreter could expand (one of %q): write the arguments plainly", i, a, hookMeta)
		}
		if strings.HasPrefix(a, "-") {
			return fmt.Sprintf("argument %d (%q) is an option of env: a hook's env only sets variables (-i and -u drop what the bridge sets for every hook, -S/--split-string and -C/--chdir build a command the check cannot see); name the program and its arguments directly", i, a)
		}
		name, _, isAssign := strings.Cut(a, "=")
		if !isAssign {
			break
		}
		if slices.Contains(hookEnvOwn, name) {
			return fmt.Sprintf("argument %d (%q) sets %s, which the bridge sets for every hook (the PATH the program is looked up in, the HOME and user site it may load code from)", i, a, name)
		}
		if !hookEnvKeep[name] && !strings.HasPrefix(name, "LC_") {
			return fmt.Sprintf("argument %d (%q) sets %s, which a hook's environment does not carry (variables such as NODE_OPTIONS, PYTHONPATH, PERL5LIB, PERL5DB, LD_PRELOAD name code to load); a hook's env may set only %s and LC_*", i, a, name, strings.Join(hookEnvKeepNames(), ", "))
		}
		assigns = append(assigns, a)
	}
	if i >= len(argv) {
		return "runs env with no program"
	}
	for _, a := range assigns {
		if p := c.argument(0, a, depth, false); p != "" {
			return p
		}
	}
	target := argv[i]
	if !strings.Contains(target, "/") {
		found := ""
		for _, d := range c.path {
			p := filepath.Join(d, target)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				found = p
				break
			}
		}
		if found == "" {
			return fmt.Sprintf("runs env %s, and %q is not in the hook's PATH (%s)", target, target, strings.Join(c.path, string(filepath.ListSeparator)))
		}
		target = found
	}
	return c.command(append([]string{target}, argv[i+1:]...), depth+1)
}

// shellArgs: a shell runs a script file, with only options that change
// how (-e, -u, -x, -f, -n, -v, -a); -c, -s, -i, -o and long options are
// refused, and so is no script (the shell would read the request on stdin
// as code).
func (c *hookCheck) shellArgs(prog string, args []string) string {
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			args = args[i:]
			break
		}
		if strings.HasPrefix(a, "--") || strings.Trim(a[1:], "aefnuvx") != "" || len(a) == 1 {
			return fmt.Sprintf("runs %s with option %q: a shell hook runs a script file (-c code, -s stdin, -i, -o and long options are refused); put the code in a script file outside every writable tree", prog, a)
		}
		if i == len(args)-1 {
			args = nil
		}
	}
	return needScript(prog, args)
}

// needScript: there is a first operand, the script file, and it is not
// "-" (stdin), nor a device or process file (/dev/stdin, /dev/fd/0,
// /proc/self/fd/0 are stdin too), nor a directory (node DIR runs
// DIR/index.js or package.json's main, python DIR its __main__.py: files
// the check does not see), nor any other file that is not regular (a
// FIFO). (Its place is checked with every argument.)
func needScript(prog string, operands []string) string {
	if len(operands) == 0 || operands[0] == "-" {
		return fmt.Sprintf("runs %s with no script file: it would read the request on stdin as code; name a script file", prog)
	}
	s := filepath.Join("/", operands[0])
	if hookDevice(s) {
		return fmt.Sprintf("runs %s with the script %s, a device or process file (it reads the request on stdin, or another process's file, as code): name a script file", prog, operands[0])
	}
	if st, err := os.Stat(s); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return fmt.Sprintf("runs %s with the directory %s as its script (the program picks the file in it: index.js, package.json's main, __main__.py): name the script file", prog, operands[0])
		}
		return fmt.Sprintf("runs %s with the script %s, which is not a regular file: name a script file", prog, operands[0])
	}
	return ""
}

// hookPerlModule is what perl's -M and -m may hold: a module name, and
// after '=' a plain list (perl splits it on ',' into q{} strings). Any
// other text (a space, parentheses: "-Mlib system(...)") is pasted into
// `use MODULE LIST;` and evaluated as code.
func hookPerlModule(v string) bool {
	name, list, hasList := strings.Cut(strings.TrimPrefix(v, "-"), "=")
	if name == "" || !strings.ContainsAny(name[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") {
		return false
	}
	ok := func(s, extra string) bool {
		return strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"+extra) == ""
	}
	return ok(name, ":") && (!hasList || ok(list, ":,./+-"))
}

// interpArgs refuses an interpreter's inline-code options and, for one that
// needs it, a missing script file.
func (c *hookCheck) interpArgs(prog, kind string, o hookInterpOpts, args []string) string {
	refuse := func(a string) string {
		return fmt.Sprintf("runs %s with option %q, which runs code that is not a file (or loads it from where the check cannot see): put the code in a script file outside every writable tree", prog, a)
	}
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = args[i+1:]
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = args[i:]
			break
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasVal := strings.Cut(a, "=")
			if slices.Contains(o.longCode, name) {
				return refuse(a)
			}
			if slices.Contains(o.longValue, name) && !hasVal {
				i++
			}
			continue
		}
		for j, r := range a[1:] {
			if strings.ContainsRune(o.code, r) {
				return refuse(a)
			}
			if strings.ContainsRune(o.value, r) {
				v := a[j+2:]
				if j == len(a)-2 {
					i++ // the value is the next argument
					if i < len(args) {
						v = args[i]
					}
				}
				if kind == "perl" && (r == 'M' || r == 'm') && !hookPerlModule(v) {
					return refuse(a)
				}
				break
			}
		}
	}
	if kind == "awk" || kind == "gawk" || kind == "mawk" || kind == "nawk" {
		if !slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "-f") || strings.HasPrefix(a, "-E") || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "--exec")
		}) {
			return fmt.Sprintf("runs %s with its program as an argument: name a program file with -f", prog)
		}
		return ""
	}
	if !o.needScript {
		return ""
	}
	if kind == "deno" && len(operands) > 0 && operands[0] != "run" {
		return fmt.Sprintf("runs %s %s: a deno hook is `deno run [options] SCRIPT`", prog, operands[0])
	}
	if kind == "deno" && len(operands) > 0 {
		for len(operands) > 1 && strings.HasPrefix(operands[1], "-") {
			operands = append(operands[:1], operands[2:]...)
		}
		operands = operands[1:]
	}
	return needScript(prog, operands)
}

// argument judges the i-th argument a. Inline code first: "data:" or
// "javascript:" anywhere in it is a URL whose body is code (node --import,
// --loader, a module specifier), refused. Then every path it holds: each
// word (split at white space, '=', ',' and ':') names, relative to "/" (the
// hook's directory), the path it spells, and, when it holds a slash after
// a prefix (option letters, '@' for an argfile: -I/ws/lib, -f/ws/x.awk,
// @/ws/args, -Ilib/x), every path that starts after a letter of that
// prefix (hookArgPaths). Each lies outside every writable tree and is no
// device or process file (hookPath); an executable it names is judged
// like a program; a word naming an interpreter, a shell, a runner or a
// wrapper is refused (the program may run it). node is set for a node
// program: a script's (or a script directory's) parents' node_modules are
// checked too.
func (c *hookCheck) argument(i int, a string, depth int, node bool) string {
	if low := strings.ToLower(a); strings.Contains(low, "data:") || strings.Contains(low, "javascript:") {
		return fmt.Sprintf("argument %d (%q) holds a data: or javascript: URL, whose body is code the program may run (node --import, --loader...): put the code in a script file outside every writable tree", i, a)
	}
	if low := strings.ToLower(a); strings.Contains(low, "file:") || hookPercentEscape(a) {
		// A URL spells a path the check would have to decode as the
		// program does (file://localhost/, %74mp: red team 15b): name the
		// file as a path instead.
		return fmt.Sprintf("argument %d (%q) holds a file: URL or a %%-escape, which spells a path the check does not read as the program does: name the file as a plain path", i, a)
	}
	words := strings.FieldsFunc(a, func(r rune) bool { return strings.ContainsRune(" \t=,:", r) })
	if !slices.Contains(words, a) {
		words = append(words, a)
	}
	for _, w := range words {
		if w == "" {
			continue
		}
		if !strings.HasPrefix(w, "-") || strings.Contains(w, "/") {
			if k := hookKind(w); hookKnown(k) {
				return fmt.Sprintf("names the program %q in argument %d (%q): a program that runs another is judged by what it runs; name that program as the hook's command", w, i, a)
			}
		}
		for _, p := range hookArgPaths(w) {
			if pr := c.judgePath(p, depth, node); pr != "" {
				return pr
			}
		}
	}
	return ""
}

// hookArgPaths are the paths the word w may name for a program run in
// "/": w itself (absolute, or relative to "/"; a word with no slash only
// when it exists there), and, for a word starting with an option or
// argfile prefix ('-', '+', '@'), the path starting after each character
// of the prefix before its first slash: "-wI/ws/lib" names "/ws/lib" (and
// "/I/ws/lib", "/wI/ws/lib"), "@/ws/args" names "/ws/args", "-Iws/lib"
// names "/ws/lib". Judging a path the program does not read costs only a
// refusal when it lies in a writable tree.
func hookArgPaths(w string) []string {
	var out []string
	add := func(p string) {
		p = filepath.Join("/", p)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slash := strings.IndexByte(w, '/')
	switch {
	case strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+") || strings.HasPrefix(w, "@"):
		if slash < 0 {
			// -Ilib: a relative name glued to an option; an existing
			// name under "/" after a prefix letter.
			for j := 1; j < len(w); j++ {
				if _, err := os.Lstat(filepath.Join("/", w[j:])); err == nil {
					add(w[j:])
				}
			}
			return out
		}
		for j := 1; j <= slash; j++ {
			add(w[j:])
		}
	case slash >= 0:
		add(w)
	default:
		if _, err := os.Lstat(filepath.Join("/", w)); err == nil {
			add(w)
		}
	}
	return out
}

// hookDevice: p names (or resolves into) /dev or /proc, where a name is a
// stream (/dev/stdin, /dev/fd/0, /proc/self/fd/0: the request on stdin) or
// another process's file, never a script file the check can read.
func hookDevice(p string) bool {
	for _, q := range []string{filepath.Clean(p), resolveExisting(filepath.Clean(p))} {
		if within(q, "/dev") || within(q, "/proc") {
			return true
		}
	}
	return false
}

// judgePath judges one path a hook's argument names (hookArgPaths).
func (c *hookCheck) judgePath(p string, depth int, node bool) string {
	if hookDevice(p) {
		return fmt.Sprintf("names %s, a device or process file (stdin, another process's file): a hook's scripts and the files it reads are regular files outside every writable tree", p)
	}
	if pr := c.place(p); pr != "" {
		return pr
	}
	if pr := c.links(p); pr != "" {
		return pr
	}
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	if st.Mode().IsRegular() && st.Mode()&0o111 != 0 && !c.judged[p] {
		c.judged[p] = true
		if interp, ok, err := shebang(p); err != "" {
			return err
		} else if ok {
			if pr := c.command(append(interp, p), depth+1); pr != "" {
				return pr
			}
		}
	}
	if node && (st.Mode().IsRegular() || st.IsDir()) {
		start := resolveExisting(p)
		if !st.IsDir() {
			start = filepath.Dir(start)
		}
		for d := start; ; d = filepath.Dir(d) {
			if where := c.where(filepath.Join(d, "node_modules")); where != "" {
				return fmt.Sprintf("runs the node script %s, and node loads modules from %s, %s: keep a node hook where no parent directory's node_modules is in a tree an agent may write", p, filepath.Join(d, "node_modules"), where)
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return ""
}

// writableWhere says which writable tree p lies in (or resolves into),
// "" when none. A path inside one of readOnly (the user config directory,
// which every sandbox keeps read-only) is fine.
func writableWhere(p string, trees []WritableTree, readOnly []string) string {
	abs := filepath.Clean(p)
	real := resolveExisting(abs)
	for _, ro := range readOnly {
		if ro != "" && within(abs, filepath.Clean(ro)) && within(real, resolveExisting(filepath.Clean(ro))) {
			return ""
		}
	}
	tmp := filepath.Clean(os.TempDir())
	for _, c := range []string{abs, real} {
		for _, t := range trees {
			for _, root := range []string{t.Path, resolveExisting(t.Path)} {
				if within(c, root) {
					return fmt.Sprintf("inside %s, and %s", t.Path, t.Why)
				}
			}
		}
		if rel, err := filepath.Rel(tmp, c); err == nil && !strings.HasPrefix(rel, "..") && strings.HasPrefix(rel, SandboxTempPrefix) {
			return "inside an agent's private temp directory (" + tmp + string(filepath.Separator) + SandboxTempPrefix + "*)"
		}
	}
	return ""
}

// hookPercentEscape: a holds a %-escape (% and two hex digits), which a URL
// reader decodes into a different path than the check sees.
func hookPercentEscape(a string) bool {
	for i := 0; i+2 < len(a); i++ {
		if a[i] == '%' && isHex(a[i+1]) && isHex(a[i+2]) {
			return true
		}
	}
	return false
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}
