// Package policy is the pure policy engine: it decides one canonical tool
// call (Call) under the merged rules and a mode.
//
// Compile turns the allow / ask / deny rule texts of every settings layer
// (Claude Code's grammar) into an immutable *Policy that is safe for
// concurrent use; Evaluate decides one Call under a Mode and returns a
// Verdict (allow / ask / deny, the source, the matching rule and its origin,
// the circuit breaker, a human reason, the sub-commands of a shell command,
// the rendered specifier). See docs/policy.md for the grammar and the
// matching semantics.
//
// Files along their seams:
//   - rules.go, bashpattern.go: rule grammar and compiled matchers;
//     flagnorm.go: the flag-order reading of deny and ask rules of
//     well-known commands (rm -fr = rm -rf); webhost.go: URL hosts as URL
//     parsers read them (IDNA, IPv4 forms, userinfo, backslashes);
//   - evaluate.go, evalbash.go, evalreads.go, mode.go, suggest.go: the
//     decision;
//   - paths.go, env.go: canonical paths, symlinks as the kernel resolves
//     them (each link before the .. that follows it), the workspace and the
//     write breakers;
//   - protected.go: the protected files (the policy's own, the editor's and
//     other agents' settings, git, startup files, ssh) and how globs and
//     recursive operations are matched against them; protmatch.go: the
//     protected places' rule tables folded (lower-cased) once and indexed
//     by first segment, matched with an allocation-free ASCII fold;
//   - breakers.go: the circuit breakers of plain commands (disks, kill -1,
//     shutdown, mv and links of protected paths, fork bombs by mutual
//     recursion, git config) and the files downloaders and archivers write;
//   - shell_parse.go (parsing, the fast path, the naive split used when the
//     parse is unreliable), shell_walk.go (the AST walk: statements,
//     redirects, words), shell_wrappers.go (sudo, env, shells with -c, find,
//     git, xargs, ...), shell_opts.go (wrapper options in every getopt
//     form), shell_code.go (code handed to programs: shells fed by stdin,
//     interpreters, sed, awk, make, tar, ssh, npx, git config),
//     shell_vars.go (variables the command sets and where bash evaluates
//     a value as code), shell_env.go (the environment tiers),
//     shell_classify.go (read-only commands, file operations, writers),
//     shell_reads.go (reads hidden in other commands: file arguments of
//     any command, recursive readers), shell_options.go (options that
//     write or run programs), shell_scripts.go (sed scripts, awk
//     programs): the shell reader over mvdan.cc/sh/v3/syntax;
//   - shelljoin.go: rendering an argv as a shell line that reads back as it;
//   - programs.go and programs_*.go: one declaration per program (its
//     valued options, the options and arguments that run programs or hold
//     code, its escapes, what it reads, writes and changes, its breakers,
//     its flag reading, with match/noMatch examples checked at load);
//     programs_rt3.go: bare declarations (a program's global options),
//     code files from process substitutions, proxy hosts, install places
//     and global installs (red team 3); programs_rt4.go: URL operands and
//     index options as hosts, places that must stay in the workspace,
//     subcommands after global options and by abbreviation, variables'
//     values probed as commands, programs reading commands from standard
//     input (red team 4);
//     programs_probe.go: unknown programs' arguments read as possible
//     commands; programs_abbrev.go: long options by unambiguous prefix;
//     shell_positional.go, shell_procsubst.go: sh -c's positional
//     parameters and scripts from process substitutions;
//   - places.go: the one table of protected places the breakers and the
//     OS sandbox both read;
//   - globmatch.go: path globs matched as a state set (linear time);
//     evaluate_bounds.go: inputs too long to read (paths over PATH_MAX);
//     grant_words.go: rule words with literal blanks; webhost_proxy.go:
//     the hosts curl and wget really connect to.
//
// Evaluate never panics: an internal error becomes an ask that names it.
//
// It is pure: no logging, no clock; the only outside access is symlink
// resolution through the FS interface in Env (OSFS in production, MapFS in
// tests and `acp-bridge policy eval`). Evaluate may be called from any
// goroutine; each call works on its own data (a sync.Pool of shell parsers
// is shared, and so is one of zeroed arenas, arena.go: the memory a call's
// reading is made of, handed back when Evaluate or Decide returns; and a
// bounded memo of program names' canonical forms, programs_names.go). It
// imports no protocol code and no viper.
package policy
