package policy

// Runners: programs that run the command in their arguments (class 1).
// The run command is read as a command of its own: a deny or ask rule
// meets it exactly (deny -> deny); the runner itself needs an allow rule.

func init() {
	declare(programsRunnersDecls[:]...)
}

// sudoValued: sudo's options that take a value, short and long; read by
// the deny reading of flagnorm.go.
var sudoValued = []string{"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt",
	"-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user", "-R", "--chroot"}

func init() {
	declare(programsRunnersDecls2[:]...)
}

var dockerExecValued = []string{"--env-file", "-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"}

var dockerRunValued = []string{"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "-v", "--volume", "--mount",
	"--name", "-p", "--publish", "--network", "--net", "--entrypoint", "-h", "--hostname", "--platform", "-l", "--label",
	"--cap-add", "--cap-drop", "--security-opt", "--device", "-m", "--memory", "--cpus", "--pull", "--restart", "--ipc",
	"--pid", "--userns", "--tmpfs", "--add-host", "--dns", "--gpus", "--log-driver", "--ulimit", "--cidfile"}

var runnerForms = func(prefix string) []string { return []string{prefix + " %s"} }

// programsRunnersDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsRunnersDecls = [...]*progDecl{
	&progDecl{name: "uv run", valued: []string{"--with", "--python", "-p", "--package", "--directory", "--project",
		"--env-file", "--extra", "--group", "--with-requirements", "--with-editable", "-i", "--index-url", "--extra-index-url", "--default-index", "--index", "-f", "--find-links"},
		hostOpts: []string{"-i", "--index-url", "--extra-index-url", "--default-index", "--index", "-f", "--find-links"}, run: runAfterOpts, forms: runnerForms("uv run"), match: []string{"uv run rm -rf x", "uv run --with a -- rm -rf x"},
		noMatch: []string{"uv run pytest -q"}},
	&progDecl{name: "uvx", aliases: []string{"pipx"}, valued: append([]string{"--from", "--with", "--python", "-p", "--spec"}, uvIndexOpts...),
		hostOpts: uvIndexOpts, run: runAfterOpts, forms: runnerForms("uvx"), match: []string{"uvx rm -rf x"}, noMatch: []string{"uvx ruff check ."}},
	&progDecl{name: "pipx run", valued: []string{"--spec", "--python", "--pip-args"}, run: runAfterOpts,
		forms: runnerForms("pipx run"), match: []string{"pipx run rm -rf x"}},
	&progDecl{name: "poetry run", valued: []string{"-C", "--directory", "-P", "--project"}, run: runAfterOpts,
		forms: runnerForms("poetry run"), match: []string{"poetry run rm -rf x"}, noMatch: []string{"poetry run pytest"}},
	&progDecl{name: "pdm run", valued: []string{"-p", "--project"}, run: runAfterOpts, forms: runnerForms("pdm run"),
		match: []string{"pdm run rm -rf x"}},
	&progDecl{name: "hatch run", valued: []string{"-e", "--env"}, run: runAfterOpts, forms: runnerForms("hatch run"),
		match: []string{"hatch run rm -rf x"}},
	&progDecl{name: "pipenv run", run: runAfterOpts, forms: runnerForms("pipenv run"), match: []string{"pipenv run rm -rf x"}},
	&progDecl{name: "conda run", aliases: []string{"mamba", "micromamba"}, valued: []string{"-n", "--name", "-p", "--prefix", "--cwd"},
		run: runAfterOpts, forms: runnerForms("conda run -n base"), match: []string{"conda run -n base rm -rf x"}},
	&progDecl{name: "mise exec", aliases: []string{"rtx"}, valued: []string{"-C", "--cd", "-j", "--jobs"}, run: runAfterDashDash, skip: 1,
		forms: runnerForms("mise exec node@20 --"), match: []string{"mise exec -- rm -rf x"}},
	&progDecl{name: "mise x", valued: []string{"-C", "--cd"}, run: runAfterDashDash, skip: 1, forms: runnerForms("mise x --"),
		match: []string{"mise x -- rm -rf x"}},
	&progDecl{name: "asdf exec", run: runAfterOpts, forms: runnerForms("asdf exec"), match: []string{"asdf exec rm -rf x"}},
	&progDecl{name: "direnv exec", run: runAfterOpts, skip: 1, forms: runnerForms("direnv exec ."), match: []string{"direnv exec . rm -rf x"}},
	&progDecl{name: "devbox run", valued: []string{"-c", "--config", "-e", "--env", "--env-file"}, run: runAfterOpts,
		forms: runnerForms("devbox run"), match: []string{"devbox run rm -rf x"}},
	&progDecl{name: "nix shell", aliases: []string{}, valued: []string{"-c", "--command", "--override-input", "-I", "--option", "--arg", "--argstr"},
		run: runAfterOpt, runOpt: []string{"-c", "--command"}, forms: runnerForms("nix shell nixpkgs#hello -c"),
		match: []string{"nix shell nixpkgs#hello -c rm -rf x"}, noMatch: []string{"nix shell nixpkgs#hello -c hello"}},
	&progDecl{name: "nix develop", valued: []string{"-c", "--command", "--override-input", "-I", "--option", "--arg", "--argstr"},
		run: runAfterOpt, runOpt: []string{"-c", "--command"}, forms: runnerForms("nix develop -c"), match: []string{"nix develop -c rm -rf x"}},
	&progDecl{name: "nix-shell", valued: []string{"-p", "--packages", "-I", "--arg", "--argstr", "-A", "--attr", "--run", "--command"},
		code: []string{"--run", "--command"}, forms: []string{"nix-shell -p hello --run '%s'"},
		match: []string{"nix-shell -p hello --run 'rm -rf x'"}},
	&progDecl{name: "docker exec", aliases: []string{"podman", "nerdctl"}, valued: dockerExecValued, reads: []string{"--env-file"}, run: runAfterOpts, skip: 1,
		forms: runnerForms("docker exec -it c"), match: []string{"docker exec c rm -rf x", "docker exec -u root -w / c rm -rf x"},
		noMatch: []string{"docker exec c ls"}},
	&progDecl{name: "docker run", aliases: []string{"podman", "nerdctl"}, valued: dockerRunValued, reads: []string{"--env-file"}, run: runAfterOpts, skip: 1,
		forms: runnerForms("docker run --rm img"), match: []string{"docker run --rm -v /:/h img rm -rf x"}},
	// docker's and kubectl's global options come before the subcommand:
	// subcommandAt skips their values (docker -H tcp://h exec c CMD,
	// kubectl -n ns exec pod -- CMD were missed as runners: red team 16).
	&progDecl{name: "docker", valued: []string{"--config", "-c", "--context", "-H", "--host", "-l", "--log-level", "--tlscacert",
		"--tlscert", "--tlskey"}, flags: []string{"-D", "--debug", "--tls", "--tlsverify"},
		reads: []string{"--tlscacert", "--tlscert", "--tlskey"}, hostOpts: []string{"-H", "--host"},
		match: []string{"docker -H tcp://h exec c rm -rf x", "docker --context x compose exec c rm -rf x"}, noMatch: []string{"docker ps -a"}},
	&progDecl{name: "kubectl", aliases: []string{"oc"}, valued: []string{"--as", "--as-group", "--as-uid", "--cache-dir", "--certificate-authority",
		"--client-certificate", "--client-key", "--cluster", "--context", "--kubeconfig", "-n", "--namespace", "--request-timeout",
		"-s", "--server", "--tls-server-name", "--token", "--user", "-v", "--v", "--profile", "--profile-output"},
		flags:    []string{"--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors"},
		reads:    []string{"--certificate-authority", "--client-certificate", "--client-key"},
		argFiles: []string{"--kubeconfig"}, hostOpts: []string{"-s", "--server"},
		match: []string{"kubectl -n ns exec pod -- rm -rf x", "kubectl --kubeconfig ./kc get pods"}, noMatch: []string{"kubectl -n ns get pods"}},
	// docker compose's own options come before its subcommand (lookupDecl
	// skips their values: docker compose -f F exec svc CMD); -f and
	// --env-file are files it reads.
	&progDecl{name: "docker compose", valued: []string{"-f", "--file", "-p", "--project-name", "--project-directory", "--env-file",
		"--profile", "--ansi", "--progress", "--parallel"}, reads: []string{"-f", "--file", "--env-file"},
		match: []string{"docker compose -f /etc/shadow up"}, noMatch: []string{"docker compose -f compose.ci.yml up -d"}},
	&progDecl{name: "docker compose exec", valued: dockerExecValued, run: runAfterOpts, skip: 1,
		forms: runnerForms("docker compose exec svc"), match: []string{"docker compose exec svc rm -rf x"}},
	&progDecl{name: "docker compose run", valued: dockerRunValued, run: runAfterOpts, skip: 1,
		forms: runnerForms("docker compose run svc"), match: []string{"docker compose run svc rm -rf x"}},
	&progDecl{name: "kubectl exec", aliases: []string{"oc"}, valued: []string{"-c", "--container", "-n", "--namespace", "--context",
		"-f", "--filename", "--pod-running-timeout", "--kubeconfig"}, run: runAfterDashDash, skip: 1,
		forms: runnerForms("kubectl exec -it pod --"), match: []string{"kubectl exec pod -- rm -rf x", "kubectl exec -c box pod -- rm -rf x"}},
	&progDecl{name: "bun x", valued: []string{"-p", "--package"}, run: runAfterOpts, forms: runnerForms("bun x"),
		match: []string{"bun x rm -rf x"}},
	&progDecl{name: "cargo run", valued: []string{"-p", "--package", "--bin", "--example", "-F", "--features", "-j", "--jobs",
		"--target", "--profile", "--target-dir", "--manifest-path", "--color", "--config", "-Z"},
		run: runUnknown, forms: nil, match: []string{"cargo run -- rm -rf x"}, noMatch: []string{"cargo run --release -- --help"}},
	&progDecl{name: "go run", valued: goValued, run: runUnknown, skip: 1, code: []string{"-exec", "-toolexec"},
		writes: goWrites, nested: map[string][]string{"-ldflags": {"-extld", "-extldflags"}, "-gcflags": {}, "-asmflags": {}},
		forms: []string{"go run -exec '%s' .", "go run -toolexec='%s' ."},
		match: []string{"go run . rm -rf x", "go run -exec='rm -rf x' ."}, noMatch: []string{"go run ./cmd/x"}},
}

// programsRunnersDecls2: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsRunnersDecls2 = [...]*progDecl{&progDecl{name: "sudo", valued: sudoValued, norm: map[string]string{"--user": "-u", "--group": "-g"},
	match: []string{"sudo --user root rm -r -f x", "sudo -u root rm -rf x"}, noMatch: []string{"sudo --user root ls"}},
	&progDecl{name: "doas", valued: []string{"-u", "-C"}, match: []string{"doas -u root rm -r -f x"}, norm: map[string]string{}},
}
