package policy

import (
	"path"
	"strings"
)

// Persistence (class 9): what makes code run later, outside the session
// (cron, at, systemd user units, login lingering, launch agents, editor
// extensions, per-user Python packages) is a circuit breaker in every
// mode; so is a write into a place that runs code later (persistPlace).

func init() {
	declare(programsPersistDecls[:]...)
	for _, pip := range []string{"pip", "pip3"} {
		declare(&progDecl{name: pip + " install", valued: []string{"-r", "--requirement", "-t", "--target", "--prefix", "--root", "-c", "--constraint", "-e", "--editable", "-i", "--index-url"},
			installsTo: []string{"-t", "--target", "--prefix", "--root"},
			breaker: func(args []string) string {
				for _, a := range args {
					if a == "--user" {
						return pip + " install --user installs code into the user's site (it runs in every Python)"
					}
				}
				return ""
			}, match: []string{pip + " install --user x"}, noMatch: []string{pip + " install -r requirements.txt"}})
	}
}

// persistHomePrefixes: places under home (lower case) that run code later.
var persistHomePrefixes = []string{".local/bin/", ".config/systemd/user/", ".config/autostart/", ".config/environment.d/",
	".config/code/user/", ".config/code - insiders/user/", ".config/vscodium/user/", ".config/cursor/user/",
	".vscode/extensions/", ".vscode-server/", ".config/fish/", ".config/nushell/", ".ipython/profile_default/startup/",
	"library/launchagents/", ".pam_environment", ".xprofile", ".xsessionrc", ".xinitrc", ".config/plasma-workspace/env/",
	".config/upstart/", ".local/share/applications/", ".bash_completion", ".inputrc"}

// persistPlace names a place under home (rel, lower case, no leading /)
// or an absolute path where a written file runs code later, or "".
func persistPlace(abs, relHome string) string {
	if relHome != "" {
		for _, p := range persistHomePrefixes {
			// relHome+"/" has the prefix p, without building it
			if strings.HasPrefix(relHome, p) ||
				len(p) == len(relHome)+1 && p[len(relHome)] == '/' && p[:len(relHome)] == relHome {
				return "write to ~/" + relHome + ", a place that runs code later"
			}
		}
		if strings.HasPrefix(relHome, ".local/lib/python") && (strings.HasSuffix(relHome, ".pth") ||
			strings.Contains(relHome, "/site-packages/") && (path.Base(relHome) == "sitecustomize.py" || path.Base(relHome) == "usercustomize.py")) {
			return "write to ~/" + relHome + ", a Python start-up file"
		}
	}
	if strings.HasSuffix(abs, ".pth") && strings.Contains(abs, "-packages/") {
		return "write to " + abs + ", a Python start-up file"
	}
	for _, p := range []string{"/etc/", "/var/spool/cron/", "/usr/local/bin/", "/usr/bin/", "/usr/lib/systemd/", "/lib/systemd/"} {
		if strings.HasPrefix(abs, p) {
			return "write to " + abs + ", a system place that runs code or configures the system"
		}
	}
	return ""
}

// programsPersistDecls: the declarations of this file, as data the linker lays out
// (no allocation at start-up); declared by init, in this order.
var programsPersistDecls = [...]*progDecl{
	&progDecl{name: "crontab", valued: []string{"-u"}, breaker: func(args []string) string {
		for _, a := range args {
			if a == "-l" || a == "-V" || a == "--help" {
				return ""
			}
		}
		return "crontab installs a cron table (code that runs later)"
	}, match: []string{"crontab -"}, noMatch: []string{"crontab -l"}},
	&progDecl{name: "at", aliases: []string{"batch"}, valued: []string{"-f", "-q", "-t"},
		breaker: func(args []string) string {
			for _, a := range args {
				if a == "-l" || a == "-V" || a == "-c" || a == "-d" || a == "-r" {
					return ""
				}
			}
			return "at schedules a command to run later"
		}, reads: []string{"-f"}, match: []string{"at now"}},
	&progDecl{name: "systemctl", breaker: func(args []string) string {
		for _, a := range args {
			switch a {
			case "enable", "link", "edit", "set-property", "add-wants", "add-requires", "import-environment", "set-environment", "preset", "reenable", "revert":
				return "systemctl " + a + " makes a unit run later"
			}
		}
		return ""
	}, match: []string{"systemctl --user enable x"}, noMatch: []string{"systemctl --user status x"}},
	&progDecl{name: "loginctl", breaker: func(args []string) string {
		for _, a := range args {
			if a == "enable-linger" {
				return "loginctl enable-linger keeps the user's units running"
			}
		}
		return ""
	}, match: []string{"loginctl enable-linger u"}},
	&progDecl{name: "launchctl", breaker: func(args []string) string {
		for _, a := range args {
			switch a {
			case "load", "bootstrap", "enable", "submit", "setenv":
				return "launchctl " + a + " makes a job run later"
			}
		}
		return ""
	}, match: []string{"launchctl load x.plist"}},
	&progDecl{name: "code", aliases: []string{"code-insiders", "codium", "cursor", "windsurf", "code-oss", "vscodium"},
		valued: []string{"--install-extension", "--uninstall-extension", "--extensions-dir", "--user-data-dir", "--profile"},
		breaker: func(args []string) string {
			for _, a := range args {
				if strings.HasPrefix(a, "--install-extension") || strings.HasPrefix(a, "--extensions-dir") || strings.HasPrefix(a, "--user-data-dir") {
					return "the editor installs an extension or changes its profile (" + a + ")"
				}
			}
			return ""
		}, match: []string{"code --install-extension x.vsix"}, noMatch: []string{"code --list-extensions"}},
}
