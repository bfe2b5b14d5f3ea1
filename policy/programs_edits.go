package policy

// File-changing commands (class 11): what they change meets Edit deny and
// ask rules, with everything under it (a moved directory takes its tree).

func init() {
	declare(programsEditsDecls[:]...)
	// git pull is declared with the transport options (programs_installs.go), tree included.
	for _, sub := range []string{"reset", "clean", "stash", "apply", "am", "merge", "cherry-pick", "revert"} {
		d := &progDecl{name: "git " + sub, valued: []string{"-m", "--message", "-s", "--strategy", "-X", "--strategy-option", "-e", "--exclude", "--directory"},
			tree: true, match: []string{"git " + sub}}
		if sub == "apply" {
			// --unsafe-paths lets the patch write outside the work tree
			// (with --directory anywhere): red team 4.
			d.uncertainWith = []string{"--unsafe-paths"}
			d.match = append(d.match, "git apply --unsafe-paths --directory=/home/u p.diff")
		}
		declare(d)
	}
}

// programsEditsDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsEditsDecls = [...]*progDecl{
	&progDecl{name: "mv", valued: []string{"-t", "--target-directory", "-S", "--suffix", "--backup"}, edits: "sources", targetOpts: []string{"-t", "--target-directory"},
		moves: true, match: []string{"mv src /tmp/gone"}},
	&progDecl{name: "rsync", valued: []string{"-e", "--rsh", "--rsync-path", "--exclude", "--include", "--filter", "-f",
		"--files-from", "--exclude-from", "--include-from", "--backup-dir", "--suffix", "--chmod", "--chown", "-T", "--temp-dir",
		"--partial-dir", "--log-file", "--password-file", "--compare-dest", "--link-dest", "--copy-dest", "-B", "--block-size"},
		edits: "last", uncertainWith: []string{"-R", "--relative"}, editsAllWith: []string{"--remove-source-files", "--remove-sent-files"}, reads: []string{"--files-from", "--exclude-from", "--include-from", "--password-file"},
		writes: []string{"--log-file"}, match: []string{"rsync -a --delete empty/ src/"}},
	&progDecl{name: "patch", valued: []string{"-p", "--strip", "-i", "--input", "-o", "--output", "-d", "--directory",
		"-D", "--ifdef", "-F", "--fuzz", "-B", "--prefix", "-r", "--reject-file", "-V", "--version-control", "-z", "--suffix", "-Y", "--basename-prefix"},
		edits: "first", reads: []string{"-i", "--input"}, writes: []string{"-o", "--output", "-r", "--reject-file"},
		match: []string{"patch src/main.go < x.diff"}},
	&progDecl{name: "cp", valued: []string{"-t", "--target-directory", "-S", "--suffix"}, uncertainWith: []string{"--parents"}, targetOpts: []string{"-t", "--target-directory"},
		match: []string{"cp --parents .git/hooks/pre-commit /home/u/proj"}, norm: map[string]string{}},
	&progDecl{name: "git checkout", valued: []string{"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"}, edits: "all", tree: true,
		reads: []string{"--pathspec-from-file"}, match: []string{"git checkout -- src/main.go"}},
	&progDecl{name: "git restore", valued: []string{"-s", "--source", "--conflict", "--pathspec-from-file"}, edits: "all", tree: true,
		reads: []string{"--pathspec-from-file"}, match: []string{"git restore src/main.go"}},
	&progDecl{name: "git switch", valued: []string{"-c", "-C", "--orphan", "--conflict"}, tree: true, match: []string{"git switch main"}},
	&progDecl{name: "git rm", valued: []string{"--pathspec-from-file"}, edits: "all", match: []string{"git rm -r src"}},
	&progDecl{name: "git mv", edits: "all", moves: true, match: []string{"git mv src lib"}},
	&progDecl{name: "gofmt", editsWith: []string{"-w"}, edits: "all", match: []string{"gofmt -w src/main.go"}, noMatch: []string{"gofmt -l ."}},
	&progDecl{name: "prettier", editsWith: []string{"--write", "-w"}, edits: "all", match: []string{"prettier --write src/"}},
}
