package policy

// Build tools whose options run programs or write files (class 6): a
// prefix allow rule (Bash(go test *)) does not cover them (optDanger), the
// program meets deny rules, the file meets Edit rules and the breakers.

var goValued = []string{"-exec", "-toolexec", "-vettool", "-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile",
	"-mutexprofile", "-trace", "-outputdir", "-overlay", "-run", "-bench", "-count", "-timeout", "-p", "-tags", "-ldflags",
	"-gcflags", "-asmflags", "-covermode", "-coverpkg", "-benchtime", "-cpu", "-parallel", "-pkgdir", "-modfile", "-mod",
	"-C", "-fuzz", "-fuzztime", "-fuzzminimizetime", "-list", "-shuffle", "-skip", "-memprofilerate", "-blockprofilerate",
	"-mutexprofilefraction", "-buildmode", "-compiler", "-gccgoflags", "-installsuffix", "-pgo", "-reuse", "-test.run", "-testlogfile", "-gocoverdir", "-fuzzcachedir"}

var goWrites = []string{"-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir", "-testlogfile", "-gocoverdir", "-fuzzcachedir"}

func init() {
	declare(programsBuildDecls[:]...)
	for _, n := range []string{"wc", "du"} {
		declare(&progDecl{name: n, valued: []string{"--files0-from"}, reads: []string{"--files0-from"},
			match: []string{n + " --files0-from=/etc/shadow"}, noMatch: []string{n + " -l x"}})
	}
	for _, sub := range []string{"test", "build", "vet", "install"} {
		declare(&progDecl{name: "go " + sub, valued: goValued, code: []string{"-exec", "-toolexec"},
			programs: []string{"-vettool"}, writes: goWrites, breaker: goInstallBreaker(sub),
			nested: map[string][]string{"-ldflags": {"-extld", "-extldflags"}, "-gcflags": {}, "-asmflags": {}}, reads: []string{"-overlay", "-modfile", "-fuzzcachedir"},
			forms:   []string{"go " + sub + " -exec '%s' ./...", "go " + sub + " -toolexec='%s' ./..."},
			match:   []string{"go " + sub + " -exec 'rm -rf build' ./..."},
			noMatch: goNoMatch(sub)})
	}
}

// goInstallBreaker: go install puts a program into GOBIN (~/go/bin), a
// place on the PATH that runs later.
func goInstallBreaker(sub string) func([]string) string {
	if sub != "install" {
		return nil
	}
	return func([]string) string { return "go install installs a program into GOBIN (it runs later)" }
}

func goNoMatch(sub string) []string {
	if sub == "install" {
		return nil
	}
	return []string{"go " + sub + " ./..."}
}

// programsBuildDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsBuildDecls = [...]*progDecl{&progDecl{name: "date", valued: []string{"-f", "--file", "-r", "--reference", "-d", "--date", "-s", "--set"},
	reads: []string{"-f", "--file", "-r", "--reference"}, match: []string{"date -f ~/.ssh/id_rsa"}, noMatch: []string{"date +%s"}},
}
