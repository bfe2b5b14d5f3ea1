package policy

import "strings"

// Declarations of options that run
// programs or write files, commands that change their arguments, and
// commands that install code that runs later (docs/policy.md, "Deny rules
// wherever a program could run").

func flagBreaker(reason string, flags ...string) func([]string) string {
	return func(args []string) string {
		for _, a := range args {
			n, _, _ := strings.Cut(a, "=")
			if containsStr(flags, n) {
				return reason
			}
		}
		return ""
	}
}

func init() {
	declare(programsInstallsDecls[:]...)
	for _, z := range []string{"gzip", "gunzip", "xz", "unxz", "bzip2", "bunzip2", "zstd", "unzstd", "lz4", "lzma", "unlzma", "compress", "uncompress", "pigz"} {
		declare(&progDecl{name: z, valued: []string{"-S", "--suffix", "-T", "--threads", "-o"}, edits: "all",
			keepsWith: []string{"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-h", "--help", "-V", "--version"},
			writes:    []string{"-o"}, match: []string{z + " src/main.go"}, noMatch: []string{z + " lib/a.txt"}})
	}
	for _, f := range []string{"clang-format", "autopep8", "yapf", "astyle", "uncrustify", "js-beautify"} {
		declare(&progDecl{name: f, editsWith: []string{"-i", "--in-place"}, edits: "all", match: []string{f + " -i src/main.c"}})
	}
	for _, f := range []string{"black", "rustfmt", "isort", "shfmt", "dprint", "biome"} {
		declare(&progDecl{name: f, edits: "all", keepsWith: []string{"--check", "--diff", "-d", "-l", "--help", "--version"}, match: []string{f + " src/main.c"}})
	}
	// npm, pnpm, yarn, bun global installs: programs_rt3.go.
	for _, pip := range []string{"pip", "pip3"} {
		declare(&progDecl{name: pip + " download", valued: []string{"-d", "--dest", "-r", "--requirement", "-c", "--constraint", "-i", "--index-url"},
			writes: []string{"-d", "--dest"}, match: []string{pip + " download -d ~/.local/bin x"}})
	}
}

var gitFetchValued = []string{"--upload-pack", "-u", "--depth", "--shallow-since", "--shallow-exclude", "--refmap", "-j", "--jobs", "-o", "--server-option", "--filter", "--negotiation-tip", "--submodule-prefix", "--bundle-uri"}

// programsInstallsDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsInstallsDecls = [...]*progDecl{
	&progDecl{name: "git fetch", valued: gitFetchValued, programs: []string{"--upload-pack"}, urlArgs: "git", hostOpts: []string{"--bundle-uri"},
		match: []string{"git fetch --upload-pack='rm -rf x' ."}, noMatch: []string{"git fetch origin"}},
	// The same transport options on the other subcommands that talk to
	// a remote (red team 3): git runs their value as a program.
	&progDecl{name: "git pull", valued: append([]string{"--exec", "-m", "--message", "-s", "--strategy", "-X", "--strategy-option", "-e", "--exclude", "--directory", "--gpg-sign"}, gitFetchValued...),
		programs: []string{"--upload-pack", "--exec"}, tree: true, urlArgs: "git", hostOpts: []string{"--bundle-uri"},
		match: []string{"git pull --upload-pack='rm -rf x' .", "git pull"}},
	&progDecl{name: "git push", valued: []string{"--receive-pack", "--exec", "--repo", "-o", "--push-option", "--force-with-lease", "--signed"},
		programs: []string{"--receive-pack", "--exec"}, urlArgs: "git", hostOpts: []string{"--repo"},
		match: []string{"git push --receive-pack='rm -rf x' .", "git push --exec='rm -rf x' ."}, noMatch: []string{"git push origin main"}},
	&progDecl{name: "git send-email", valued: []string{"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"},
		programs: []string{"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"},
		match:    []string{"git send-email --sendmail-cmd='rm -rf x' a.patch", "git send-email --to-cmd='rm -rf x' a.patch"}},
	&progDecl{name: "git ls-remote", valued: []string{"--upload-pack", "--exec", "--sort", "-o", "--server-option"}, programs: []string{"--upload-pack", "--exec"}, urlArgs: "git",
		match: []string{"git ls-remote --upload-pack='rm -rf x' ."}},
	&progDecl{name: "git clone", valued: []string{"-u", "--upload-pack", "--template", "-o", "--origin", "-b", "--branch", "--depth", "--reference",
		"--reference-if-able", "--separate-git-dir", "-c", "--config", "--shallow-since", "--shallow-exclude", "-j", "--jobs", "--filter", "--bundle-uri", "--server-option"},
		programs: []string{"-u", "--upload-pack"}, hostOpts: []string{"--bundle-uri"}, writesArg: 2, gitConfig: []string{"-c", "--config"}, urlArgs: "git", placeOpts: []string{"--separate-git-dir"},
		breaker: flagBreaker("git clone --template copies hooks (code that runs later) into the repository", "--template"),
		match:   []string{"git clone -u 'rm -rf x' . y", "git clone -c core.sshCommand='rm -rf x' git@a.example:x y"}, noMatch: []string{"git clone https://example.com/x vendor/x"}},
	&progDecl{name: "git init", valued: []string{"--template", "--separate-git-dir", "-b", "--initial-branch", "--object-format", "--shared"},
		breaker: flagBreaker("git init --template copies hooks (code that runs later) into the repository", "--template"), placeOpts: []string{"--separate-git-dir"},
		match: []string{"git init --template=./tpl ."}, noMatch: []string{"git init ."}},
	&progDecl{name: "git worktree add", valued: []string{"-b", "-B", "--reason"}, writesArg: 1, match: []string{"git worktree add /home/u/.local/bin"}},
	&progDecl{name: "git bundle create", writesArg: 1, match: []string{"git bundle create ~/.bashrc HEAD"}, noMatch: []string{"git bundle create repo.bundle HEAD"}},
	&progDecl{name: "git maintenance", breaker: func(args []string) string {
		for _, a := range args {
			if a == "start" || a == "register" {
				return "git maintenance " + a + " schedules git to run later"
			}
		}
		return ""
	}, match: []string{"git maintenance start"}},
	&progDecl{name: "git read-tree", valued: []string{"--prefix", "--index-output", "--exclude-per-directory"}, editsWith: []string{"-u"}, tree: true,
		writes: []string{"--index-output"}, match: []string{"git read-tree -u --reset HEAD"}},
	&progDecl{name: "git checkout-index", valued: []string{"--prefix", "--stage"}, tree: true, edits: "all", prefixOpts: []string{"--prefix"},
		match: []string{"git checkout-index -a -f", "git checkout-index -a -f --prefix=/home/u/"}},
	&progDecl{name: "git sparse-checkout", tree: true, match: []string{"git sparse-checkout set docs"}},
	&progDecl{name: "systemd-run", breaker: func(args []string) string {
		for _, a := range args {
			if a == "--help" || a == "-h" || a == "--version" {
				return ""
			}
		}
		return "systemd-run starts a unit outside the session (it may run later, or keep running)"
	}, match: []string{"systemd-run --user --on-calendar=daily sh -c x"}},
	&progDecl{name: "cargo test", valued: []string{"--config", "-p", "--package", "-F", "--features", "-j", "--jobs", "--target", "--target-dir", "--manifest-path"},
		uncertainWith: []string{"--config", "-Z"}, match: []string{"cargo test --config 'target.x.runner=\"rm -rf x\"'"}, noMatch: []string{"cargo test"}},
	&progDecl{name: "cargo build", valued: []string{"--config", "-p", "--package", "-F", "--features", "-j", "--jobs", "--target", "--target-dir", "--manifest-path"},
		uncertainWith: []string{"--config", "-Z"}, match: []string{"cargo build --config 'target.x.linker=\"rm\"'"}, noMatch: []string{"cargo build"}},
	&progDecl{name: "cargo install", breaker: func([]string) string { return "cargo install installs a program into ~/.cargo/bin" },
		match: []string{"cargo install x"}},
	&progDecl{name: "npm run", aliases: []string{"pnpm", "yarn"}, valued: []string{"--script-shell", "-w", "--workspace", "--prefix"},
		programs: []string{"--script-shell"}, uncertainWith: []string{"--script-shell"}, match: []string{"npm run build --script-shell=/tmp/evil"}},
	&progDecl{name: "pytest", aliases: []string{"py.test"}, valued: []string{"-k", "-m", "-p", "-o", "-c", "--rootdir", "--junitxml", "--junit-xml",
		"--basetemp", "--confcutdir", "--log-file", "--resultlog", "--result-log", "--report-log", "--debug", "--cov-report", "--override-ini", "--config-file"},
		writes: []string{"--junitxml", "--junit-xml", "--basetemp", "--log-file", "--resultlog", "--result-log", "--report-log"},
		reads:  []string{"-c", "--config-file"},
		match:  []string{"pytest --junitxml=/home/u/.bashrc", "pytest -c /etc/shadow"}, noMatch: []string{"pytest -q tests", "pytest -c ci.ini tests"}},
	&progDecl{name: "shuf", valued: []string{"-o", "--output", "-n", "--head-count", "-e", "-i", "--input-range", "--random-source"},
		writes: []string{"-o", "--output"}, match: []string{"shuf -o src/main.go f"}},
	&progDecl{name: "iconv", valued: []string{"-o", "--output", "-f", "--from-code", "-t", "--to-code"},
		writes: []string{"-o", "--output"}, match: []string{"iconv -f utf-8 -t utf-8 -o src/main.go f"}},
	&progDecl{name: "json.tool", valued: []string{"--indent"}, edits: "last", editsWith: []string{}, match: []string{"python3 -m json.tool f src/main.go"}},
	&progDecl{name: "unzip", valued: []string{"-d", "-x", "-P"}, targetOpts: []string{"-d"}, match: []string{"unzip -o a.zip -d src"}},
	&progDecl{name: "tar", aliases: []string{"gtar", "bsdtar"}, valued: []string{"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from"},
		editsAllWith: []string{"--remove-files"}, match: []string{"tar -czf a.tgz --remove-files src"}},
	&progDecl{name: "zip", valued: []string{"-b", "-x", "-i", "-n", "-t", "-tt", "-P", "-O", "--out"}, editsAllWith: []string{"-m", "--move"},
		match: []string{"zip -rm a.zip src"}},
}
