package policy

import "strings"

// Programs that expose files beyond the reading of one command (docs/
// policy.md, "Serving and re-mounting files"): a file server hands every
// file under its directory (the working directory by default) to whoever
// connects, and a bind mount shows a directory at another path, where a
// Read deny rule written for the first path does not see it. What they
// expose is not one read the rules can judge: a person confirms (a circuit
// breaker, in every mode); the directory they name is still read, so a
// deny rule that covers it holds.

func init() {
	declare(programsServeDecls[:]...)
}

// mountBreaker: mount with anything but the listing forms mounts (a bind
// mount shows a directory at another path, past the Read rules written for
// the first).
func mountBreaker(args []string) string {
	for _, a := range args {
		switch a {
		case "-l", "--show-labels", "-h", "--help", "-V", "--version":
			continue
		}
		if strings.HasPrefix(a, "-t") && len(args) <= 2 {
			continue // mount -t TYPE: lists the mounts of a type
		}
		return "mount changes what a path shows (mount " + strings.Join(args, " ") + ")"
	}
	return ""
}

// programsServeDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsServeDecls = [...]*progDecl{
	// python -m http.server is read as the program http.server.
	&progDecl{name: "http.server", valued: []string{"-d", "--directory", "-b", "--bind", "-p", "--protocol"},
		reads:   []string{"-d", "--directory"},
		breaker: func([]string) string { return "http.server serves a directory to the network" },
		match:   []string{"python3 -m http.server", "python3 -m http.server --directory /tmp 8000"}},
	&progDecl{name: "bindfs",
		breaker: func([]string) string { return "bindfs shows a directory at another path" },
		match:   []string{"bindfs /home/u/.ssh k"}},
	&progDecl{name: "mount",
		breaker: mountBreaker,
		match:   []string{"mount --bind /home/u/.ssh k", "mount -o bind,ro /a /b"}, noMatch: []string{"mount", "mount -l"}},
}
