package policy

import (
	"sort"
	"strings"
	"testing"
)

// judgeDoubt: c is a doubt in every mode: never allowed (bypass
// included), asked where asking is possible (default, acceptEdits,
// bypassPermissions, an agent's bypass), denied in dontAsk; plan denies.
// It returns the first failure ("" if none).
func judgeDoubt(t *testing.T, c policyCase) string {
	t.Helper()
	for _, m := range adversarialModes {
		in := c.input(t)
		in.Mode, in.AgentBypass = m.mode, m.agentBypass
		v := Evaluate(in)
		want := Ask
		if m.mode == ModeDontAsk || m.mode == ModePlan {
			want = Deny
		}
		if v.Decision != want {
			return m.name + ": " + string(v.Decision) + " (" + v.Reason + ")"
		}
	}
	return ""
}

// argFileForm is one way of handing a program a file of its own
// arguments or configuration (or a file it sends), with %F for the file.
type argFileForm struct {
	prog, opt, form string
	doubt           bool   // an argFiles option or a wget -e key: a doubt
	deny            string // the rule that must deny the file secrets/key
}

// argFileForms: every argFiles and atReads option of every declaration in
// every spelling (optSpellings), curl's grouped -sK, and wget -e with
// each key whose value is a file, in each spelling of -e.
func argFileForms(t *testing.T) []argFileForm {
	t.Helper()
	loadPrograms()
	var out []argFileForm
	seen := map[*progDecl]bool{}
	for _, ds := range programs {
		for _, d := range ds {
			if seen[d] {
				continue
			}
			seen[d] = true
			for _, o := range d.argFiles {
				for _, s := range optSpellings(d, o, "%F") {
					out = append(out, argFileForm{d.name, o, d.name + " " + s + " https://a.example/", true, "Read(secrets/**)"})
				}
				if len(o) == 2 && d.name != "vim" && d.name != "gdb" {
					// -s is a flag to group with (curl -sK); not for vim (-s
					// takes a script, `-sS F` is refused as garbage) nor gdb
					// (no short options: `-sx` is unrecognised).
					out = append(out, argFileForm{d.name, o, d.name + " -s" + o[1:] + " %F https://a.example/", true, "Read(secrets/**)"})
				}
			}
			if d.atArgs {
				out = append(out, argFileForm{d.name, "@", d.name + " @%F", true, "Read(secrets/**)"},
					argFileForm{d.name, "@", d.name + " -o x.o @%F", true, "Read(secrets/**)"})
			}
			for _, o := range d.atReads {
				vals := []string{"@%F", "k@%F"}
				if o == "-F" || o == "--form" {
					vals = []string{"k=@%F", "k=<%F", "'k=@%F;type=text/plain'"}
				}
				for _, v := range vals {
					for _, s := range optSpellings(d, o, v) {
						out = append(out, argFileForm{d.name, o, d.name + " " + s + " https://a.example/", false, "Read(secrets/**)"})
					}
				}
			}
		}
	}
	for key, what := range wgetFileKeys {
		deny := "Read(secrets/**)"
		if what == "write" {
			deny = "Edit(secrets/**)"
		}
		for _, s := range []string{"-e " + key + "=%F", "-e" + key + "=%F", "--execute " + key + "=%F", "--execute=" + key + "=%F",
			"--exec=" + key + "=%F", "-e '" + key + " = %F'", "-e " + strings.ToUpper(key) + "=%F"} {
			out = append(out, argFileForm{"wget", "-e", "wget " + s + " https://a.example/", true, deny})
		}
	}
	// wget's own spellings of the keys: '_' or '-' between words, any case.
	for _, s := range []string{"-e output_document=%F", "-e 'output-document = %F'", "--execute=Output_Document=%F", "-e logfile=%F"} {
		out = append(out, argFileForm{"wget", "-e", "wget " + s + " https://a.example/", true, "Edit(secrets/**)"})
	}
	for _, s := range []string{"-e input=%F", "-e post_file=%F", "-e LOAD-COOKIES=%F", "-e 'private_key = %F'"} {
		out = append(out, argFileForm{"wget", "-e", "wget " + s + " https://a.example/", true, "Read(secrets/**)"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].form < out[j].form })
	return out
}

// argFileFailures judges every form: the file secrets/key under its deny
// rule is denied in every mode; a file outside the workspace is never
// allowed without asking; an argFiles option (a doubt) asks in every mode
// also for a file in the workspace, with no rule, under Bash(PROG *) and
// under Bash; a file an atReads option sends from the workspace is
// allowed under Bash(PROG *).
func argFileFailures(t *testing.T, forms []argFileForm) []string {
	t.Helper()
	var fails []string
	fail := func(f argFileForm, cmd string, allow []string, why string) {
		fails = append(fails, f.prog+" "+f.opt+": "+cmd+" under "+strings.Join(allow, ",")+": "+why)
	}
	for _, f := range forms {
		for _, allow := range [][]string{nil, {"Bash(" + f.prog + " *)"}, {"Bash"}} {
			deny := policyCase{Src: f.prog, Tool: "Bash", Cmd: strings.ReplaceAll(f.form, "%F", "secrets/key"), Allow: allow, Deny: []string{f.deny}}
			if s := judgeEveryMode(t, deny, Deny); s != "" {
				fail(f, deny.Cmd, allow, "want deny: "+s)
			}
			files := []string{"/etc/hosts", "~/.aws/credentials", "../other/notes.txt", "cfg/notes.txt"}
			if !f.doubt {
				files = files[:3]
			}
			for _, file := range files {
				c := policyCase{Src: f.prog, Tool: "Bash", Cmd: strings.ReplaceAll(f.form, "%F", file), Allow: allow}
				if f.doubt {
					if s := judgeDoubt(t, c); s != "" {
						fail(f, c.Cmd, allow, "want a doubt: "+s)
					}
				} else if allow == nil || allow[0] != "Bash" {
					if s := judgeEveryMode(t, c, Ask); s != "" {
						fail(f, c.Cmd, allow, "want ask: "+s)
					}
				}
			}
		}
		if !f.doubt {
			c := policyCase{Src: f.prog, Tool: "Bash", Cmd: strings.ReplaceAll(f.form, "%F", "cfg/notes.txt"), Allow: []string{"Bash(" + f.prog + " *)"}}
			if v := Evaluate(c.input(t)); v.Decision != Allow {
				fail(f, c.Cmd, c.Allow, "want allow: "+string(v.Decision)+" ("+v.Reason+")")
			}
		}
	}
	return fails
}

// TestArgFilesEveryDeclaredSpelling is the property of red team 16's
// option files (curl -K /etc/shadow was allowed under Bash(curl *), and a
// curl config can say output = ~/.bashrc): every declared option whose
// file holds the program's arguments or configuration, or whose @-file it
// sends, in every spelling, x the file {Read-denied, outside the
// workspace, inside it} x rules {none, Bash(PROG *), Bash} x every mode.
func TestArgFilesEveryDeclaredSpelling(t *testing.T) {
	forms := argFileForms(t)
	got := map[string]bool{}
	for _, f := range forms {
		got[f.prog+" "+f.opt] = true
	}
	for _, want := range []string{"curl -K", "curl --config", "curl -d", "curl --data-binary", "curl -F", "curl --json",
		"curl --data-urlencode", "wget --config", "wget -e", "kubectl apply --kubeconfig", "gcc @", "javac @", "objcopy @"} {
		if !got[want] {
			t.Fatalf("no form declared for %s", want)
		}
	}
	for _, s := range argFileFailures(t, forms) {
		t.Error(s)
	}
	if len(forms) < 80 {
		t.Fatalf("only %d forms", len(forms))
	}
}

// TestArgFilesPropertyCanFail: the controls. With curl's argFiles,
// atReads and wget's hook taken out of their declarations, the property
// fails for every one of their forms (it is not vacuous); a rule naming
// the option allows the call (in every mode, bypass included), and the
// reads these declarations add stay allowed in the workspace under a
// prefix rule.
func TestArgFilesPropertyCanFail(t *testing.T) {
	loadPrograms()
	curl, wget := bareDecl("curl"), bareDecl("wget")
	if curl == nil || wget == nil {
		t.Fatal("curl or wget is not declared")
	}
	var forms []argFileForm
	for _, f := range argFileForms(t) {
		if f.prog == "curl" || f.prog == "wget" {
			forms = append(forms, f)
		}
	}
	saved := [...]any{curl.argFiles, curl.atReads, wget.argFiles, wget.hook}
	curl.argFiles, curl.atReads, wget.argFiles, wget.hook = nil, nil, nil, nil
	fails := argFileFailures(t, forms)
	curl.argFiles, curl.atReads = saved[0].([]string), saved[1].([]string)
	wget.argFiles, wget.hook = saved[2].([]string), saved[3].(func(*analyzer, *subCmd, []declOpt, []word, walkCtx))
	failed := map[string]bool{}
	for _, s := range fails {
		failed[s[:strings.IndexByte(s, ':')]] = true
	}
	for _, f := range forms {
		if !failed[f.prog+" "+f.opt] {
			t.Errorf("%s %s: the property holds without its declaration", f.prog, f.opt)
		}
	}
	if len(argFileFailures(t, forms)) != 0 {
		t.Fatal("the property fails with the declarations restored")
	}

	for _, c := range []struct {
		cmd, rule string
	}{
		{"curl -K cfg/c https://a.example/", "Bash(curl -K *)"},
		{"curl -sK cfg/c https://a.example/", "Bash(curl -sK *)"},
		{"curl --config cfg/c https://a.example/", "Bash(curl --config *)"},
		{"curl --config /etc/curlrc https://a.example/", "Bash(curl --config *)"},
		{"wget --config=cfg/rc https://a.example/", "Bash(wget --config=*)"},
		{"wget -e output_document=out.html https://a.example/", "Bash(wget -e *)"},
		{"kubectl apply --kubeconfig cfg/kc -f x.yaml", "Bash(kubectl apply --kubeconfig *)"},
		{"gcc @cfg/flags main.c", "Bash(gcc @*)"},
		{"strip @cfg/args", "Bash(strip @*)"},
	} {
		for _, m := range adversarialModes {
			if m.mode == ModePlan {
				continue
			}
			pc := policyCase{Src: "named", Tool: "Bash", Cmd: c.cmd, Allow: []string{c.rule}}
			in := pc.input(t)
			in.Mode, in.AgentBypass = m.mode, m.agentBypass
			if v := Evaluate(in); v.Decision != Allow {
				t.Errorf("%s under %s in %s: %s (%s), want allow", c.cmd, c.rule, m.name, v.Decision, v.Reason)
			}
		}
	}
	for _, cmd := range []string{"curl -d @body.json https://a.example/", "curl -F f=@a.txt https://a.example/", "curl -T a.txt https://a.example/",
		"curl -s https://a.example/", "curl -d user@example.com https://a.example/", "wget -e robots=off -e HTTPS_PROXY=good.example https://a.example/",
		"wget -i urls.txt", "make -f ci.mk test", "docker build -f Dockerfile.ci .", "kubectl apply -f deploy.yaml",
		"terraform plan -var-file=prod.tfvars", "eslint -c .eslintrc.ci.json src", "pytest -c ci.ini", "tsc -p tsconfig.build.json",
		"pip install -r requirements.txt", "gcc -O2 -o app main.c", "objdump -d @cfg/args"} {
		prog := strings.Fields(cmd)[0]
		pc := policyCase{Src: "control", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(" + prog + " *)"}}
		if v := Evaluate(pc.input(t)); v.Decision != Allow {
			t.Errorf("%s under Bash(%s *): %s (%s), want allow", cmd, prog, v.Decision, v.Reason)
		}
	}
}

// TestArgFileReadsOutsideTheWorkspace: the reads declared with the
// argument files (make -f, docker build -f, kubectl -f, terraform
// -var-file, eslint -c, pytest -c, tsc -p, pip -r, curl -T, wget -i)
// outside the workspace are not covered by a prefix rule for the program,
// in every mode but bypass; a Read deny holds in every mode.
func TestArgFileReadsOutsideTheWorkspace(t *testing.T) {
	for _, c := range []struct{ rule, cmd string }{
		{"Bash(make *)", "make -f %F"}, {"Bash(make *)", "make --makefile=%F"}, {"Bash(make *)", "make --mak=%F"},
		{"Bash(docker build *)", "docker build -f %F ."}, {"Bash(docker *)", "docker build --file=%F ."},
		{"Bash(kubectl apply *)", "kubectl apply -f %F"}, {"Bash(kubectl *)", "kubectl delete --filename=%F"},
		{"Bash(terraform *)", "terraform apply -var-file=%F"}, {"Bash(terraform *)", "terraform plan -var-file %F"},
		{"Bash(eslint *)", "eslint -c %F src"}, {"Bash(eslint *)", "eslint --config=%F src"},
		{"Bash(pytest *)", "pytest -c %F"}, {"Bash(pytest *)", "pytest --config-file=%F"},
		{"Bash(tsc *)", "tsc -p %F"}, {"Bash(tsc *)", "tsc --project %F"},
		{"Bash(pip *)", "pip install -r %F"}, {"Bash(pip install *)", "pip install --constraint=%F x"},
		{"Bash(curl *)", "curl -T %F https://a.example/"}, {"Bash(curl *)", "curl --upload-file=%F https://a.example/"},
		{"Bash(wget *)", "wget -i %F"}, {"Bash(wget *)", "wget --input-file=%F"},
	} {
		for _, allow := range [][]string{nil, {c.rule}} {
			deny := policyCase{Src: "reads", Tool: "Bash", Cmd: strings.ReplaceAll(c.cmd, "%F", "secrets/key"), Allow: allow, Deny: []string{"Read(secrets/**)"}}
			if f := judgeEveryMode(t, deny, Deny); f != "" {
				t.Errorf("%s under %v: %s", deny.Cmd, allow, f)
			}
			ask := policyCase{Src: "reads", Tool: "Bash", Cmd: strings.ReplaceAll(c.cmd, "%F", "/home/u/.aws/credentials"), Allow: allow}
			if f := judgeEveryMode(t, ask, Ask); f != "" {
				t.Errorf("%s under %v: %s", ask.Cmd, allow, f)
			}
		}
	}
}

// subDeclForms: every declaration of a program's subcommand below another
// declared one (docker compose exec below docker compose and docker) that
// runs a command, each form with each valued option of each parent
// between the parent's words and the next subcommand word, in each spelling (`-f v`, `-fv`,
// `--file v`, `--file=v`), with %s for the command.
func subDeclForms(t *testing.T) []string {
	t.Helper()
	loadPrograms()
	var out []string
	seen := map[*progDecl]bool{}
	for _, ds := range programs {
		for _, d := range ds {
			if seen[d] || len(d.sub) < 1 || len(d.forms) == 0 {
				continue
			}
			seen[d] = true
			for k := 0; k < len(d.sub); k++ {
				p := parentDecl(ds, d, k)
				if p == nil || p.run != runNone {
					continue
				}
				for _, f := range d.forms {
					if !strings.HasPrefix(f, p.name+" ") {
						continue
					}
					for _, o := range p.valued {
						sp := []string{o + " v.yml"}
						if strings.HasPrefix(o, "--") {
							sp = append(sp, o+"=v.yml")
						} else if len(o) == 2 {
							sp = append(sp, o+"v.yml")
						}
						for _, s := range sp {
							out = append(out, p.name+" "+s+" "+strings.TrimPrefix(f, p.name+" "))
						}
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestSubcommandAfterParentOptionsKeepsDenies: a runner subcommand after
// its parent's options with their values (docker compose -f F exec svc
// rm -rf x was allowed under Bash(docker *) with Bash(rm *) denied: the
// value F was taken for the subcommand word) is still read as the runner:
// the deny holds in every mode. The control: with the parent's valued
// list taken out, the property fails.
func TestSubcommandAfterParentOptionsKeepsDenies(t *testing.T) {
	forms := subDeclForms(t)
	if len(forms) < 10 {
		t.Fatalf("only %d forms", len(forms))
	}
	check := func() (fails []string) {
		for _, f := range forms {
			prog := strings.Fields(f)[0]
			c := policyCase{Src: "sub", Tool: "Bash", Cmd: strings.ReplaceAll(f, "%s", "rm -rf x"), Allow: []string{"Bash(" + prog + " *)"}, Deny: []string{"Bash(rm *)"}}
			if s := judgeEveryMode(t, c, Deny); s != "" {
				fails = append(fails, c.Cmd+": "+s)
			}
		}
		return fails
	}
	for _, s := range check() {
		t.Error(s)
	}
	loadPrograms()
	var compose *progDecl
	for _, d := range programs["docker"] {
		if d.name == "docker compose" {
			compose = d
		}
	}
	if compose == nil {
		t.Fatal("docker compose is not declared")
	}
	saved := compose.valued
	compose.valued = nil
	fails := check()
	compose.valued = saved
	if len(fails) != 0 {
		t.Errorf("without docker compose's valued options, its runners are still found after an option and its value (afterUnknownOpts): %v", fails[:1])
	}
	// the control: a value the reader takes for the subcommand word (an
	// option it knows to take none, then a plain word) misses the runner.
	for _, cmd := range []string{"docker compose v exec svc rm -rf x", "docker v exec c rm -rf x"} {
		c := policyCase{Src: "control", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(docker *)"}, Deny: []string{"Bash(rm *)"}}
		if v := Evaluate(c.input(t)); v.Decision == Deny {
			t.Errorf("%s: denied (%s): the runner found past a plain word", cmd, v.Reason)
		}
	}
}

// TestRunnerAfterUnknownOptions: a runner's subcommand word after options
// the policy does not know, each with one value, is still the runner (the
// deny of what it runs holds in every mode), and the call is a doubt (a
// guess: bun -e x is not bun x with nothing to run); a plain word that is
// not an option's value ends the search.
func TestRunnerAfterUnknownOptions(t *testing.T) {
	for _, c := range []struct{ prog, cmd string }{
		{"docker", "docker compose --new-opt v exec svc rm -rf x"},
		{"docker", "docker --new-opt v exec c rm -rf x"},
		{"docker", "docker -Z v compose -q w exec c rm -rf x"},
		{"kubectl", "kubectl --new-opt v exec pod -- rm -rf x"},
		{"npm", "npm --new-opt v explore x -- rm -rf x"},
		{"uv", "uv --new-opt v run rm -rf x"},
	} {
		pc := policyCase{Src: "unknown opts", Tool: "Bash", Cmd: c.cmd, Allow: []string{"Bash(" + c.prog + " *)"}, Deny: []string{"Bash(rm *)"}}
		if f := judgeEveryMode(t, pc, Deny); f != "" {
			t.Errorf("%s: %s", c.cmd, f)
		}
		pc.Deny = nil
		if f := judgeDoubt(t, pc); f != "" {
			t.Errorf("%s without the deny rule: %s", c.cmd, f)
		}
	}
	for _, cmd := range []string{"docker ps exec", "docker images --filter exec", "kubectl get pods exec"} {
		prog := strings.Fields(cmd)[0]
		pc := policyCase{Src: "control", Tool: "Bash", Cmd: cmd, Allow: []string{"Bash(" + prog + " *)"}, Deny: []string{"Bash(rm *)"}}
		if v := Evaluate(pc.input(t)); v.Decision != Allow {
			t.Errorf("%s: %s (%s), want allow", cmd, v.Decision, v.Reason)
		}
	}
}
