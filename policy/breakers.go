package policy

import (
	"net/url"
	"path"
	"strings"
)

// Circuit breakers of plain commands (beside the recursive deletes of
// writerArgs and the write targets of writeBreaker): disk formatters and
// writers, killing every process, shutting the machine down, moving a
// protected directory away, and the files that downloaders and archivers
// write (so that a write to a protected file through them is seen).

// diskTools format, wipe or repartition a disk whatever their arguments
// (but the listing forms of diskListers).
var diskTools = map[string]string{
	"mke2fs": "formats a file system", "mkswap": "formats a swap area", "wipefs": "wipes file system signatures",
	"blkdiscard": "discards every block of a device", "fdisk": "repartitions a disk", "sfdisk": "repartitions a disk",
	"cfdisk": "repartitions a disk", "parted": "repartitions a disk", "sgdisk": "repartitions a disk",
	"gdisk": "repartitions a disk", "sg_format": "formats a disk", "flashrom": "rewrites firmware",
	"mkdosfs": "formats a file system", "mlabel": "relabels a disk", "killall5": "kills every process",
	"halt": "stops the machine", "poweroff": "powers the machine off", "reboot": "reboots the machine",
	"shutdown": "shuts the machine down",
}

// diskListers: arguments with which a disk tool only reads.
var diskListers = map[string]bool{"-l": true, "--list": true, "-p": true, "--print": true, "print": true,
	"-d": true, "--dump": true, "-s": true, "--show-size": true, "-V": true, "--version": true, "-h": true,
	"--help": true, "-J": true, "--json": true, "-k": true, "--version=": true, "--machine": true, "-m": true}

// diskListing: a partitioning tool run only to list or print (fdisk -l,
// parted /dev/sda print, sgdisk -p /dev/sda): every argument is a listing
// option, a device, or (parted) a printing command.
func diskListing(base string, args []word) bool {
	switch base {
	case "fdisk", "sfdisk", "parted", "sgdisk", "gdisk":
	default:
		return false
	}
	hasList := false
	for _, w := range args {
		switch {
		case !w.static:
			return false
		case diskListers[w.s]:
			hasList = true
		case base == "parted" && (w.s == "-s" || w.s == "--script" || w.s == "list" || w.s == "all"):
		case strings.HasPrefix(w.s, "/dev/"):
		default:
			return false
		}
	}
	return hasList
}

// subDiskTools format or wipe with one of the named sub-commands.
var subDiskTools = map[string][]string{
	"diskutil":   {"eraseDisk", "eraseVolume", "partitionDisk", "zeroDisk", "randomDisk", "secureErase", "reformat", "erasevolume", "erasedisk"},
	"nvme":       {"format", "sanitize"},
	"cryptsetup": {"luksFormat", "erase", "luksErase", "reencrypt"},
	"zpool":      {"destroy", "labelclear", "create"},
	"mdadm":      {"--zero-superblock", "--create", "-C"},
	"hdparm":     {"--security-erase", "--security-erase-enhanced", "--trim-sector-ranges", "--write-sector", "--make-bad-sector"},
	"badblocks":  {"-w"},
	"systemctl":  {"poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot"},
	"init":       {"0", "6"},
	"telinit":    {"0", "6"},
	"lvremove":   {""},
	"vgremove":   {""},
	"pvremove":   {""},
}

// commandBreaker sets sc.breaker for the commands above and adds the
// writes of downloaders and archivers.
func (a *analyzer) commandBreaker(sc *subCmd, base string, args []word) {
	set := func(b string) {
		if sc.breaker == "" {
			sc.breaker = b
		}
	}
	switch {
	case strings.HasPrefix(base, "mkfs") || strings.HasPrefix(base, "newfs"):
		set(base + " formats a file system")
	case diskTools[base] != "":
		if !diskListing(base, args) {
			set(base + " " + diskTools[base])
		}
	}
	if subs, ok := subDiskTools[base]; ok {
		for _, w := range args {
			for _, s := range subs {
				if s == "" || w.s == s || strings.EqualFold(w.s, s) {
					set(base + " " + w.s + " destroys data or stops the machine")
				}
			}
		}
	}
	switch base {
	case "kill":
		a.killBreaker(args, set)
	case "pkill", "killall", "pgrep":
		if base == "pgrep" {
			return
		}
		for i, w := range args {
			switch {
			case w.s == "-u" || w.s == "-U" || w.s == "--euid" || w.s == "--uid" || w.s == "--user" ||
				strings.HasPrefix(w.s, "--euid=") || strings.HasPrefix(w.s, "--uid=") || strings.HasPrefix(w.s, "--user=") ||
				(len(w.s) > 2 && w.s[0] == '-' && w.s[1] != '-' && strings.ContainsAny(w.s[1:], "uU") && !strings.ContainsAny(w.s[1:], "0123456789")):
				set(base + " kills every process of a user")
			case !strings.HasPrefix(w.s, "-") && (w.s == "." || w.s == ".*" || w.s == "" || w.s == ".+" || w.s == "^" || w.s == "$"):
				if i == 0 || !strings.HasPrefix(args[i-1].s, "-") || args[i-1].s == "-f" || args[i-1].s == "-9" || args[i-1].s == "-r" {
					set(base + " " + w.s + " matches every process")
				}
			}
		}
	case "mv":
		for _, src := range mvSources(args) {
			ref := a.pathRef(src)
			ref.recursive = true
			if b := a.protectedTarget(ref); b != "" {
				set("mv of " + b)
				continue
			}
			if ref.unknown {
				continue
			}
			// moving away a directory that holds protected files (mv
			// ~/.config x, mv .vscode x) drops them as rm -r would.
			pi := a.env.info(ref)
			for _, p := range [2]string{pi.abs, pi.real} {
				if n := a.env.probeUnder(p); n != "" {
					set("mv of a directory holding " + n)
				}
			}
		}
	case "ln":
		a.linkBreaker(args, set)
	case "cp", "rsync":
		a.copyTreeWrites(base, args, set)
		if base == "cp" && cpLinks(args) {
			a.linkBreaker(args, set)
		}
	}
	switch base {
	case "cp", "mv", "ln", "install", "rsync":
		a.intoDirWrites(sc, base, args)
		a.replaceDirBreaker(base, args, set)
	case "curl":
		a.curlWrites(sc, args)
	case "wget":
		a.wgetWrites(sc, args, set)
	case "tar", "bsdtar", "gtar", "unzip":
		a.extractWrites(sc, base, args, set)
	case "perl", "ruby":
		// perl -pi -e CODE FILE..., ruby -i: edit the files in place.
		for _, w := range args {
			if w.static && len(w.s) > 1 && w.s[0] == '-' && w.s[1] != '-' && strings.Contains(w.s[1:], "i") && !strings.ContainsAny(w.s[1:], "eE") || w.s == "-i" {
				for _, f := range positionals(args) {
					sc.writes = append(sc.writes, a.pathRef(f))
				}
				break
			}
		}
	case "awk", "gawk":
		// gawk -i inplace edits its file arguments.
		for i, w := range args {
			if (w.s == "-i" || w.s == "--include") && i+1 < len(args) && strings.HasPrefix(args[i+1].s, "inplace") {
				for _, f := range positionals(args)[1:] {
					sc.writes = append(sc.writes, a.pathRef(f))
				}
				break
			}
		}
	case "ed", "ex", "vi", "vim", "nvim", "red":
		// an editor run by an agent writes what it opens (ed f <<< w, vim -c wq).
		for _, f := range positionals(args) {
			sc.writes = append(sc.writes, a.pathRef(f))
		}
	case "uniq", "xxd":
		// uniq IN OUT, xxd [-r] IN OUT: the second operand is written.
		if pos := positionals(args); len(pos) >= 2 {
			sc.writes = append(sc.writes, a.pathRef(pos[1]))
		}
	case "gpg", "gpg2", "ssh-keygen":
		a.outputOptionWrites(sc, base, args)
	case "gunzip", "gzip", "bunzip2", "bzip2", "xz", "unxz", "zstd", "unzstd", "lzma", "unlzma", "brotli":
		a.decompressWrites(sc, base, args)
	case "7z", "7za", "7zr", "cpio", "ar", "unrar":
		a.archiveWrites(base, args, set)
	case "sponge":
		for _, w := range positionals(args) {
			sc.writes = append(sc.writes, a.pathRef(w))
		}
	}
}

// intoDirWrites: cp, mv, ln, install and rsync write SRC into DEST/SRC's
// name when DEST is a directory (which the command line does not show):
// that path is a write too, so cp x/.acp-bridge.yaml . is seen.
func (a *analyzer) intoDirWrites(sc *subCmd, base string, args []word) {
	var dest word
	hasDest := false
	for i, w := range args {
		if w.static && (w.s == "-t" || w.s == "--target-directory") && i+1 < len(args) {
			dest, hasDest = args[i+1], true
		} else if w.static && strings.HasPrefix(w.s, "--target-directory=") {
			dest, hasDest = w, true
			dest.s, dest.path = w.s[len("--target-directory="):], strings.TrimPrefix(w.path, "--target-directory=")
		}
	}
	pos := positionals(args)
	var srcs []word
	if hasDest {
		srcs = pos
		for i, w := range srcs {
			if w.s == dest.s {
				srcs = append(srcs[:i:i], srcs[i+1:]...)
				break
			}
		}
	} else {
		if len(pos) < 2 {
			return
		}
		dest, srcs = pos[len(pos)-1], pos[:len(pos)-1]
	}
	if !dest.pathOK || dest.glob || dest.brace {
		return // a write known only at run time already
	}
	for _, src := range srcs {
		if !src.pathOK || src.glob || src.brace {
			continue
		}
		b := path.Base(src.path)
		if b == "." || b == "/" || b == ".." || base == "rsync" && strings.HasSuffix(src.path, "/") {
			// cp -r empty/. src/: the contents land in DEST itself, any
			// file under it.
			ref := a.pathRef(dest)
			ref.recursive = true
			sc.writes = append(sc.writes, ref)
			continue
		}
		w := dest
		w.s, w.path = strings.TrimSuffix(dest.s, "/")+"/"+b, strings.TrimSuffix(dest.path, "/")+"/"+b
		w.off = -1
		sc.writes = append(sc.writes, a.pathRef(w))
	}
}

// replaceDirBreaker: mv SRC DEST, cp -r SRC DEST, ln -s SRC DEST make DEST
// (when it does not exist) the source directory itself: mv /tmp/evil
// .vscode creates .vscode/settings.json. A destination that would hold a
// protected location trips, but the workspace root, the working directory,
// home and their parents, where ordinary moves land inside.
func (a *analyzer) replaceDirBreaker(base string, args []word, set func(string)) {
	pos := positionals(args)
	if len(pos) < 2 {
		return
	}
	for _, w := range args {
		if w.s == "-t" || strings.HasPrefix(w.s, "--target-directory") || w.s == "-d" && base == "install" {
			return // DEST is a directory the sources go into
		}
	}
	ref := a.pathRef(pos[len(pos)-1])
	if ref.unknown {
		return
	}
	pi := a.env.info(ref)
	e := a.env
	for _, p := range [2]string{pi.abs, pi.real} {
		if p == "/" || p == e.root || p == e.cwd || p == e.home || within(e.root, p) || within(e.cwd, p) || e.home != "" && within(e.home, p) {
			continue
		}
		if n := e.probeUnder(p); n != "" {
			set(base + " may make " + p + " a directory of its own choosing, and it holds " + n)
			return
		}
	}
}

// linkBreaker: a link (hard or symbolic) to a protected file is a way to
// write it later, through the link.
func (a *analyzer) linkBreaker(args []word, set func(string)) {
	for _, w := range mvSources(args) {
		ref := a.pathRef(w)
		if ref.unknown {
			continue
		}
		if b := a.env.writeBreaker(a.env.info(ref)); b != "" {
			set("a link to a protected location: " + b)
		}
	}
}

// cpLinks: cp makes links instead of copies (-l, -s, --link, --symbolic-link).
func cpLinks(args []word) bool {
	for _, w := range args {
		s := w.s
		if s == "--link" || s == "--symbolic-link" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsAny(s[1:], "ls") {
			return true
		}
	}
	return false
}

// killBreaker: kill with the pid -1 signals every process the user may
// signal (kill -9 -1, kill -KILL -1, kill -s KILL -- -1).
func (a *analyzer) killBreaker(args []word, set func(string)) {
	i := 0
	if i < len(args) {
		switch s := args[i].s; {
		case s == "-s" || s == "-n" || s == "--signal":
			i += 2
		case s == "-l" || s == "-L" || s == "--list" || s == "--table":
			return
		case strings.HasPrefix(s, "-") && s != "--" && s != "-1":
			i++
		case s == "-1" && len(args) > 1:
			i++ // kill -1 PID: signal 1 (HUP)
		}
	}
	for ; i < len(args); i++ {
		s := args[i].s
		if s == "--" {
			continue
		}
		if s == "-1" || !args[i].static && strings.Contains(s, "-1") {
			set("kill " + s + " signals every process")
			return
		}
	}
}

// positionals are the non-option words (an option's value is not told
// apart: callers use them for checks that only ever ask more).
func positionals(args []word) []word {
	var out []word
	dd := false
	for _, w := range args {
		if !dd && w.static && w.s == "--" {
			dd = true
			continue
		}
		if !dd && w.static && strings.HasPrefix(w.s, "-") && w.s != "-" {
			continue
		}
		out = append(out, w)
	}
	return out
}

// mvSources are the operands mv moves away, or ln and cp link to (all
// but the destination; all of them with -t DIR).
func mvSources(args []word) []word {
	var pos []word
	dd, hasT := false, false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !dd && w.static && w.s == "--" {
			dd = true
			continue
		}
		if !dd && w.static && strings.HasPrefix(w.s, "-") && w.s != "-" {
			if w.s == "-t" || w.s == "--target-directory" {
				hasT = true
				i++
			} else if strings.HasPrefix(w.s, "--target-directory=") || strings.HasPrefix(w.s, "-t") && len(w.s) > 2 && !strings.HasPrefix(w.s, "--") {
				hasT = true
			}
			continue
		}
		pos = append(pos, w)
	}
	if hasT || len(pos) == 0 {
		return pos
	}
	return pos[:len(pos)-1]
}

// copyTreeWrites: cp -r / rsync -r copy whole trees: the destination's
// copy of each source is written recursively (everything in the
// destination when a source is a glob or, for rsync, ends in /).
func (a *analyzer) copyTreeWrites(base string, args []word, set func(string)) {
	recursive := false
	for _, w := range args {
		s := w.s
		if !w.static || !strings.HasPrefix(s, "-") || s == "-" {
			continue
		}
		if s == "--recursive" || s == "--archive" || (s[1] != '-' && strings.ContainsAny(s[1:], "rRa")) {
			recursive = true
		}
	}
	pos := positionals(args)
	if !recursive || len(pos) < 2 {
		return
	}
	dst := pos[len(pos)-1]
	dref := a.pathRef(dst)
	if dref.unknown {
		return // already a write known only at run time
	}
	for _, src := range pos[:len(pos)-1] {
		ref := dref
		switch {
		case !src.pathOK || src.glob || src.brace || base == "rsync" && strings.HasSuffix(src.path, "/"):
			// into the destination itself
		default:
			b := path.Base(src.path)
			if b == "." || b == "/" || b == ".." {
				break
			}
			ref.raw = strings.TrimSuffix(dref.raw, "/") + "/" + b
		}
		a.treeBreaker(base+" copies a tree", ref, set)
	}
}

// curlWrites: -o FILE, --output FILE, -O (the URL's last segment), -D, -c,
// --trace and the like write files; --output-dir is where -O writes.
func (a *analyzer) curlWrites(sc *subCmd, args []word) {
	valued := "oDcdHuxXAebFTwKrmYyzECUtPQh"
	remote, headerName, remoteAll := false, false, false
	outDir := word{}
	var outs []word
	var urls []word
	for i := 0; i < len(args); i++ {
		w := args[i]
		s := w.s
		next := func() (word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return word{}, false
		}
		switch {
		case !w.static || !strings.HasPrefix(s, "-") || s == "-":
			urls = append(urls, w)
		case strings.HasPrefix(s, "--"):
			name, val, hasVal := strings.Cut(s, "=")
			switch name {
			case "--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--libcurl", "--output-dir", "--hsts", "--alt-svc":
				var v word
				if hasVal {
					v = w
					v.s, v.path = val, strings.TrimPrefix(w.path, name+"=")
				} else if nv, ok := next(); ok {
					v = nv
				}
				if name == "--output-dir" {
					outDir = v
				} else {
					outs = append(outs, v)
				}
			case "--remote-name":
				remote = true
			case "--remote-name-all":
				remoteAll = true
			case "--remote-header-name":
				headerName = true
			case "--url":
				if nv, ok := next(); ok {
					urls = append(urls, nv)
				}
			default:
				if !hasVal && curlLongValued[name] {
					next()
				}
			}
		default:
			for j := 1; j < len(s); j++ {
				c := s[j]
				switch {
				case c == 'O':
					remote = true
				case c == 'J':
					headerName = true
				case strings.IndexByte(valued, c) >= 0:
					var v word
					if j+1 < len(s) {
						v = w
						v.s, v.path = s[j+1:], w.path[min(len(w.path), j+1):]
					} else if nv, ok := next(); ok {
						v = nv
					}
					if c == 'o' || c == 'D' || c == 'c' {
						outs = append(outs, v)
					}
					j = len(s)
				}
			}
		}
	}
	for _, o := range outs {
		if o.static && (o.s == "-" || o.s == "") || o.pathOK && isHarmlessDevice(o.path) {
			continue
		}
		sc.writes = append(sc.writes, a.pathRef(o))
	}
	if !remote && !remoteAll {
		return
	}
	for _, u := range urls {
		name := ""
		if u.static && !headerName {
			name = urlBase(u.s)
		}
		a.addNamedWrite(sc, outDir, name, u.s)
	}
}

// curlLongValued are curl's long options that take a value (the ones that
// matter for finding the URLs and outputs).
var curlLongValued = map[string]bool{"--data": true, "--data-raw": true, "--data-binary": true, "--data-urlencode": true,
	"--header": true, "--user": true, "--proxy": true, "--request": true, "--user-agent": true, "--referer": true,
	"--cookie": true, "--form": true, "--upload-file": true, "--write-out": true, "--config": true, "--range": true,
	"--max-time": true, "--connect-timeout": true, "--retry": true, "--cacert": true, "--cert": true, "--key": true,
	"--resolve": true, "--connect-to": true, "--limit-rate": true, "--max-filesize": true, "--proto": true}

// urlBase is the file name curl -O and wget give a download ("" if none).
func urlBase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := u.Path
	if p == "" || strings.HasSuffix(p, "/") {
		return ""
	}
	return path.Base(p)
}

// addNamedWrite records a download named name in dir (the cwd if dir is
// the zero word); an empty name is a write known only at run time.
func (a *analyzer) addNamedWrite(sc *subCmd, dir word, name, what string) {
	if name == "" || name == "." || name == ".." {
		sc.writes = append(sc.writes, pathRef{raw: what, cwd: a.cwd, unknown: true})
		return
	}
	w := word{s: name, static: true, path: name, pathOK: true, off: -1}
	if dir.s != "" {
		if !dir.pathOK {
			sc.writes = append(sc.writes, pathRef{raw: dir.s + "/" + name, cwd: a.cwd, unknown: true})
			return
		}
		w.s, w.path = dir.s+"/"+name, strings.TrimSuffix(dir.path, "/")+"/"+name
	}
	sc.writes = append(sc.writes, a.pathRef(w))
}

// wgetWrites: -O FILE, -o/-a LOG, or the URL's file name in -P DIR; -r,
// -m, -x write a tree.
func (a *analyzer) wgetWrites(sc *subCmd, args []word, set func(string)) {
	args = splitShortGroups(args, "OoaPetTwUiBlARDIXQY", "n")
	var outDoc, dir word
	outSet := false
	tree, noHost, headerName := false, false, false
	var urls []word
	for i := 0; i < len(args); i++ {
		w := args[i]
		s := w.s
		val := func(prefixLen int) word {
			if len(s) > prefixLen {
				v := w
				v.s, v.path = s[prefixLen:], w.path[min(len(w.path), prefixLen):]
				return v
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return word{}
		}
		switch {
		case !w.static || !strings.HasPrefix(s, "-") || s == "-":
			urls = append(urls, w)
		case s == "-O" || strings.HasPrefix(s, "-O"):
			outDoc, outSet = val(2), true
		case strings.HasPrefix(s, "--output-document="):
			outDoc, outSet = val(len("--output-document=")), true
		case s == "--output-document":
			outDoc, outSet = val(len(s)), true
		case s == "-o" || s == "-a" || strings.HasPrefix(s, "-o") || strings.HasPrefix(s, "-a"):
			if v := val(2); v.s != "" && v.s != "-" {
				sc.writes = append(sc.writes, a.pathRef(v))
			}
		case strings.HasPrefix(s, "--output-file") || strings.HasPrefix(s, "--append-output"):
			n := strings.IndexByte(s, '=')
			var v word
			if n > 0 {
				v = val(n + 1)
			} else {
				v = val(len(s))
			}
			if v.s != "" {
				sc.writes = append(sc.writes, a.pathRef(v))
			}
		case s == "-P" || strings.HasPrefix(s, "-P"):
			dir = val(2)
		case strings.HasPrefix(s, "--directory-prefix"):
			if n := strings.IndexByte(s, '='); n > 0 {
				dir = val(n + 1)
			} else {
				dir = val(len(s))
			}
		case s == "-r" || s == "--recursive" || s == "-m" || s == "--mirror" || s == "-x" || s == "--force-directories" || s == "-p" || s == "--page-requisites":
			tree = true
		case s == "-nH" || s == "--no-host-directories" || strings.HasPrefix(s, "--cut-dirs"):
			noHost = true
		case s == "--content-disposition" || s == "--trust-server-names":
			headerName = true
		case s == "-e" || s == "--execute" || s == "-U" || s == "--user-agent" || s == "--header" || s == "-i" || s == "--input-file" ||
			s == "-t" || s == "--tries" || s == "-T" || s == "--timeout" || s == "-w" || s == "--wait" || s == "-l" || s == "--level" ||
			s == "-A" || s == "-R" || s == "-D" || s == "-I" || s == "-X" || s == "--user" || s == "--password" || s == "-B" || s == "--base":
			i++
		}
	}
	if outSet {
		if outDoc.s != "-" && outDoc.s != "" && !(outDoc.pathOK && isHarmlessDevice(outDoc.path)) {
			sc.writes = append(sc.writes, a.pathRef(outDoc))
		}
		return
	}
	for _, u := range urls {
		if tree {
			// a tree under dir (or dir/host): every file name comes from
			// the server.
			target := dir
			if target.s == "" {
				target = word{s: ".", static: true, path: ".", pathOK: true, off: -1}
			}
			if !noHost && u.static {
				if pu, err := url.Parse(u.s); err == nil && pu.Host != "" {
					target.s, target.path = strings.TrimSuffix(target.s, "/")+"/"+pu.Host, strings.TrimSuffix(target.path, "/")+"/"+pu.Host
				}
			}
			a.treeBreaker("wget writes a tree of files the server names", a.pathRef(target), set)
			continue
		}
		name := ""
		if u.static && !headerName {
			name = urlBase(u.s)
			if name == "" {
				name = "index.html"
			}
		}
		a.addNamedWrite(sc, dir, name, u.s)
	}
}

// treeBreaker: what writes a tree of files whose names the command does
// not show (an archive, a mirror, a copied directory) into ref trips a
// breaker when ref is, is inside or holds a protected location.
func (a *analyzer) treeBreaker(what string, ref pathRef, set func(string)) {
	if ref.unknown {
		set(what + " into a directory known only at run time (" + ref.raw + ")")
		return
	}
	pi := a.env.info(ref)
	for _, p := range [2]string{pi.abs, pi.real} {
		if b := a.env.writeBreakerAt(p, false, false); b != "" {
			set(what + " into a protected location: " + b)
			return
		}
		if n := a.env.probeUnder(p); n != "" {
			set(what + " into " + p + ", which holds " + n)
			return
		}
	}
}

// extractWrites: tar -x and unzip write the archive's files, whose names
// the command does not show, into -C DIR / -d DIR (the cwd by default; /
// for tar -P): a breaker when protected files live there. tar -c writes its
// -f archive.
func (a *analyzer) extractWrites(sc *subCmd, base string, args []word, set func(string)) {
	extract, create, absolute := false, false, false
	var dir, archive word
	hasDir := false
	if base == "unzip" {
		extract = true
		for i := 0; i < len(args); i++ {
			s := args[i].s
			switch {
			case s == "-l" || s == "-t" || s == "-p" || s == "-v" || s == "-z" || s == "-Z" || s == "-c":
				return // lists, tests or prints
			case s == "-d" && i+1 < len(args):
				dir, hasDir = args[i+1], true
				i++
			case strings.HasPrefix(s, "-d") && len(s) > 2:
				dir, hasDir = args[i], true
				dir.s, dir.path = s[2:], dir.path[min(len(dir.path), 2):]
			}
		}
	} else {
		for i := 0; i < len(args); i++ {
			w := args[i]
			s := w.s
			if !w.static {
				continue
			}
			cluster := ""
			switch {
			case i == 0 && !strings.HasPrefix(s, "-"):
				cluster = s // old style: tar xzf a.tgz
			case strings.HasPrefix(s, "--"):
				name, val, hasVal := strings.Cut(s, "=")
				switch name {
				case "--extract", "--get":
					extract = true
				case "--create", "--append", "--update", "--catenate", "--concatenate":
					create = true
				case "--absolute-names":
					absolute = true
				case "--to-stdout", "--list":
					return
				case "--directory":
					if hasVal {
						dir, hasDir = w, true
						dir.s, dir.path = val, strings.TrimPrefix(w.path, "--directory=")
					} else if i+1 < len(args) {
						dir, hasDir = args[i+1], true
						i++
					}
				case "--file":
					if hasVal {
						archive = w
						archive.s, archive.path = val, strings.TrimPrefix(w.path, "--file=")
					} else if i+1 < len(args) {
						archive = args[i+1]
						i++
					}
				}
				continue
			case strings.HasPrefix(s, "-") && len(s) > 1:
				cluster = s[1:]
			}
			for j := 0; j < len(cluster); j++ {
				switch cluster[j] {
				case 'x':
					extract = true
				case 'c', 'r', 'u', 'A':
					create = true
				case 'P':
					absolute = true
				case 't', 'O':
					if cluster[j] == 't' || !create {
						return
					}
				case 'C':
					if i+1 < len(args) {
						dir, hasDir = args[i+1], true
						i++
					}
				case 'f':
					if j+1 < len(cluster) && cluster == s[1:] {
						archive = w
						archive.s, archive.path = cluster[j+1:], w.path[min(len(w.path), j+2):]
						j = len(cluster)
					} else if i+1 < len(args) {
						archive = args[i+1]
						i++
					}
				}
			}
		}
	}
	if create && archive.s != "" && archive.s != "-" {
		sc.writes = append(sc.writes, a.pathRef(archive))
	}
	if !extract {
		return
	}
	if absolute {
		set(base + " -P extracts files to the absolute paths the archive names")
		return
	}
	if !hasDir {
		dir = word{s: ".", static: true, path: ".", pathOK: true, off: -1}
	}
	a.treeBreaker(base+" extracts files the archive names", a.pathRef(dir), set)
}

// fnEdge is a call made inside the body of function from.
type fnEdge struct {
	from, to string
	spawn    bool // in a pipe or in the background
}

// noteCall records a call made from inside a function body.
func (a *analyzer) noteCall(cmd string, ctx walkCtx) {
	if len(a.fn) == 0 || a.fn[len(a.fn)-1] == "" || len(a.fnEdges) >= maxSubCommands {
		return
	}
	a.fnEdges = append(a.fnEdges, fnEdge{from: a.fn[len(a.fn)-1], to: cmd, spawn: ctx.inPipe || ctx.bg})
}

// forkBombs: functions that call each other in a cycle where one call is
// in a pipe or the background (a(){ b|b& }; b(){ a|a& }; a) multiply like
// a function that calls itself so.
func (a *analyzer) forkBombs() {
	if len(a.fnEdges) == 0 {
		return
	}
	adj := map[string][]string{}
	for _, e := range a.fnEdges {
		adj[e.from] = append(adj[e.from], e.to)
	}
	reach := func(from, to string) bool {
		seen := map[string]bool{from: true}
		todo := []string{from}
		for len(todo) > 0 {
			n := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			if n == to {
				return true
			}
			for _, m := range adj[n] {
				if !seen[m] {
					seen[m] = true
					todo = append(todo, m)
				}
			}
		}
		return false
	}
	tried := map[[2]string]bool{}
	for _, e := range a.fnEdges {
		k := [2]string{e.from, e.to}
		if !e.spawn || tried[k] {
			continue
		}
		tried[k] = true
		if reach(e.to, e.from) {
			a.an.subs = append(a.an.subs, subCmd{text: e.from + " -> " + e.to,
				breaker: "fork bomb: functions " + e.from + " and " + e.to + " start copies of each other", kind: skNormal})
			return
		}
	}
}

// gitConfigBreaker: git config that sets, unsets or edits a key writes
// .git/config (or ~/.gitconfig, /etc/gitconfig), which can make git run
// any program (core.pager, core.hooksPath, aliases): a protected file.
func gitConfigBreaker(args []word) string {
	if len(args) == 0 || args[0].s != "config" {
		return ""
	}
	rest := args[1:]
	var pos []string
	for i := 0; i < len(rest); i++ {
		s := rest[i].s
		switch {
		case s == "--unset" || s == "--unset-all" || s == "--add" || s == "--replace-all" || s == "--rename-section" ||
			s == "--remove-section" || s == "-e" || s == "--edit" || strings.HasPrefix(s, "--replace"):
			return "git config writes git's configuration (.git/config), which can make git run programs"
		case s == "-f" || s == "--file" || s == "--blob" || s == "--type" || s == "--default" || s == "--comment":
			i++
		case strings.HasPrefix(s, "-"):
		default:
			pos = append(pos, s)
		}
	}
	if len(pos) == 0 {
		return ""
	}
	switch pos[0] {
	case "get", "list", "--get", "--list":
		return ""
	case "set", "unset", "edit", "rename-section", "remove-section":
		return "git config " + pos[0] + " writes git's configuration (.git/config), which can make git run programs"
	}
	if len(pos) >= 2 {
		return "git config writes git's configuration (.git/config), which can make git run programs"
	}
	return ""
}

// findExecBreaker: find START -exec rm -r {} (or chmod -R, chown -R, shred,
// mv) acts on everything find walks: as rm -r of START.
func (a *analyzer) findExecBreaker(starts []word, execs [][]word, args []word) string {
	if b := a.findWriteBreaker(starts, execs, args); b != "" {
		return b
	}
	for _, ex := range execs {
		if len(ex) == 0 || !ex[0].static {
			continue
		}
		base := path.Base(ex[0].s)
		switch base {
		case "rm", "shred", "chmod", "chown", "chgrp", "mv", "unlink", "truncate", "rmdir":
		default:
			continue
		}
		hasBraces := false
		for _, w := range ex[1:] {
			if strings.Contains(w.s, "{}") {
				hasBraces = true
			}
		}
		if !hasBraces {
			continue
		}
		for _, st := range starts {
			ref := a.pathRef(st)
			ref.recursive = true
			if b := a.protectedTarget(ref); b != "" {
				return "find -exec " + base + " on everything in " + b
			}
		}
	}
	return ""
}

// outputOptionWrites: the output file options of gpg
// (-o, --output), ssh-keygen (-f) and git (--output=, format-patch -o).
func (a *analyzer) outputOptionWrites(sc *subCmd, base string, args []word) {
	for i, w := range args {
		s := w.s
		var v word
		switch {
		case base == "ssh-keygen" && s == "-f",
			(base == "gpg" || base == "gpg2") && (s == "-o" || s == "--output"),
			base == "git" && (s == "--output" || s == "-o" && i > 0 && args[0].s == "format-patch"):
			if i+1 >= len(args) {
				continue
			}
			v = args[i+1]
		case strings.HasPrefix(s, "--output="):
			v = w
			v.s, v.path = s[len("--output="):], strings.TrimPrefix(w.path, "--output=")
		default:
			continue
		}
		if v.s == "-" || v.pathOK && isHarmlessDevice(v.path) {
			continue
		}
		sc.writes = append(sc.writes, a.pathRef(v))
	}
}

// compressSuffixes are the suffixes a decompressor strips to name its output.
var compressSuffixes = []string{".gz", ".tgz", ".z", ".bz2", ".xz", ".zst", ".lzma", ".br", ".Z"}

// decompressWrites: gunzip F.gz writes F (gzip -d, xz -d, zstd -d ...);
// with -c / --stdout / -o FILE / -t / -l nothing or that file.
func (a *analyzer) decompressWrites(sc *subCmd, base string, args []word) {
	decompress := strings.HasPrefix(base, "gun") || strings.HasPrefix(base, "un") || base == "bunzip2"
	for i, w := range args {
		s := w.s
		switch {
		case s == "-c" || s == "--stdout" || s == "-t" || s == "--test" || s == "-l" || s == "--list":
			return
		case s == "-d" || s == "--decompress" || s == "--uncompress" || len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.Contains(s, "d"):
			decompress = true
		case (s == "-o" || s == "--output") && base == "zstd" && i+1 < len(args):
			sc.writes = append(sc.writes, a.pathRef(args[i+1]))
			return
		}
	}
	if !decompress {
		return
	}
	for _, f := range positionals(args) {
		if !f.pathOK || f.glob || f.brace {
			sc.writes = append(sc.writes, pathRef{raw: f.s, cwd: a.cwd, unknown: true})
			continue
		}
		out := f
		for _, suf := range compressSuffixes {
			if strings.HasSuffix(f.path, suf) {
				out.s, out.path = strings.TrimSuffix(f.s, suf), strings.TrimSuffix(f.path, suf)
				if suf == ".tgz" {
					out.s, out.path = out.s+".tar", out.path+".tar"
				}
				break
			}
		}
		out.off = -1
		sc.writes = append(sc.writes, a.pathRef(out))
	}
}

// archiveWrites: 7z x|e (-oDIR), cpio -i, ar x, unrar x|e (DEST/) write
// the archive's files into a directory (the cwd by default).
func (a *analyzer) archiveWrites(base string, args []word, set func(string)) {
	extract := false
	dir := word{s: ".", static: true, path: ".", pathOK: true, off: -1}
	pos := positionals(args)
	switch base {
	case "7z", "7za", "7zr":
		extract = len(pos) > 0 && (pos[0].s == "x" || pos[0].s == "e")
		for _, w := range args {
			if strings.HasPrefix(w.s, "-o") && len(w.s) > 2 {
				dir = w
				dir.s, dir.path = w.s[2:], w.path[min(len(w.path), 2):]
			}
		}
	case "cpio":
		for _, w := range args {
			if w.s == "--extract" || len(w.s) > 1 && w.s[0] == '-' && w.s[1] != '-' && strings.Contains(w.s, "i") {
				extract = true
			}
		}
	case "ar":
		extract = len(args) > 0 && strings.Contains(strings.TrimPrefix(args[0].s, "-"), "x")
	case "unrar":
		extract = len(pos) > 0 && (pos[0].s == "x" || pos[0].s == "e")
		if extract && len(pos) > 2 && strings.HasSuffix(pos[len(pos)-1].s, "/") {
			dir = pos[len(pos)-1]
		}
	}
	if extract {
		a.treeBreaker(base+" extracts files the archive names", a.pathRef(dir), set)
	}
}

// findWriters write the {} they are given (sed -i, cp x {}, tee {} ...).
var findWriters = map[string]bool{"sed": true, "perl": true, "ruby": true, "awk": true, "gawk": true, "dd": true,
	"truncate": true, "ed": true, "ex": true, "vi": true, "vim": true, "tee": true, "cp": true, "mv": true,
	"install": true, "ln": true, "touch": true, "chmod": true, "chown": true, "sponge": true, "rsync": true}

// protectedNames are the file names a protected file can have (for
// matching find's -name filters); the basenames of the probes are added.
var protectedNames = []string{"config", "authorized_keys", "authorized_keys2", "settings.json", "tasks.json", "launch.json",
	"settings.local.json", "trustedFolders.json", "config.toml", "config.yaml", "config.json", "x.code-workspace",
	"pre-commit", "post-checkout", "pre-push", "post-merge", "commit-msg", "pre-rebase", "post-commit",
	"prepare-commit-msg", "fsmonitor-watchman", "rc", "environment", "profile"}

// findWriteBreaker: find START ... -exec WRITER ... {} writes the files
// find selects; when START is, is inside or holds a protected location,
// and no -name/-iname filter rules the protected names out, it trips.
func (a *analyzer) findWriteBreaker(starts []word, execs [][]word, args []word) string {
	writer := ""
	for _, ex := range execs {
		if len(ex) == 0 || !ex[0].static || !findWriters[path.Base(ex[0].s)] {
			continue
		}
		for _, w := range ex[1:] {
			if strings.Contains(w.s, "{}") {
				writer = path.Base(ex[0].s)
			}
		}
	}
	if writer == "" {
		return ""
	}
	// the -name / -iname patterns (all must allow a protected name to
	// matter; with -o between them we take the union, conservatively).
	var names []string
	other := false
	for i := 0; i < len(args); i++ {
		switch args[i].s {
		case "-name", "-iname":
			if i+1 < len(args) && args[i+1].static {
				names = append(names, args[i+1].s)
				i++
			} else {
				other = true
			}
		case "-path", "-ipath", "-wholename", "-regex", "-iregex", "-lname":
			other = true
		}
	}
	if len(names) > 0 && !other {
		vocab := append([]string(nil), protectedNames...)
		for _, pr := range a.env.probeList() {
			vocab = append(vocab, path.Base(pr.path))
		}
		for _, rc := range rcFiles {
			vocab = append(vocab, path.Base(rc))
		}
		hit := false
		for _, n := range names {
			for _, v := range vocab {
				// find's -name matches a leading dot with *, unlike the shell.
				if strings.EqualFold(n, v) || matchGlob(strings.ToLower(n), strings.ToLower(v)) {
					hit = true
				}
			}
		}
		if !hit {
			return ""
		}
	}
	for _, st := range starts {
		var name string
		a.treeBreaker("find -exec "+writer+" writes what find selects", a.pathRef(st), func(b string) {
			if name == "" {
				name = b
			}
		})
		if name != "" {
			return name
		}
	}
	return ""
}

// xargsWrites: a writer run by xargs (xargs sed -i ..., xargs rm, xargs
// cp -t DIR) also writes the paths xargs reads from its input: a write
// target known only at run time. subs[n] is the command xargs runs.
func (a *analyzer) xargsWrites(n int, rest []word) {
	if n >= len(a.an.subs) || len(rest) == 0 || !rest[0].static {
		return
	}
	base := path.Base(rest[0].s)
	sc := &a.an.subs[n]
	if _, w := writerCmds[base]; !w && !findWriters[base] && len(sc.writes) == 0 {
		return
	}
	recursive := false
	for _, w := range sc.writes {
		recursive = recursive || w.recursive
	}
	sc.writes = append(sc.writes, pathRef{raw: "the paths xargs reads from its input", cwd: a.cwd, unknown: true, recursive: recursive})
}

// splitShortGroups reads grouped short options as getopt does (`-qO f` is
// `-q -O f`, `-qOf` is `-q -Of`): each letter is an option until one of
// valued, which takes the rest of the word (or the next word) as its value.
// Words that start with one of keep (a program's own multi-letter short
// forms, wget's -nv -nc) are left as they are.
func splitShortGroups(args []word, valued, keep string) []word {
	var out []word
	for i, w := range args {
		s := w.s
		if !w.static || len(s) < 3 || s[0] != '-' || s[1] == '-' || strings.IndexByte(keep, s[1]) >= 0 {
			if out != nil {
				out = append(out, w)
			}
			continue
		}
		if out == nil {
			out = append(make([]word, 0, len(args)+4), args[:i]...)
		}
		for j := 1; j < len(s); j++ {
			opt := w
			if strings.IndexByte(valued, s[j]) >= 0 {
				opt.s = "-" + s[j:]
				if w.pathOK && len(w.path) >= j {
					opt.path = "-" + w.path[j:]
				}
				out = append(out, opt)
				break
			}
			opt.s, opt.path = "-"+s[j:j+1], "-"+s[j:j+1]
			out = append(out, opt)
		}
	}
	if out == nil {
		return args
	}
	return out
}
