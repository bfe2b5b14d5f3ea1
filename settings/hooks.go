package settings

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"time"
)

// HookConfig is one decision hook (docs/settings.md "hooks", docs/org.md):
// a command or an AuthZEN endpoint consulted on every decision. Hooks run
// outside every sandbox, with the bridge's rights, so they are read only
// from the user file (or --config) and the managed tier: never from a
// workspace file (trusted or not), the environment or the editor's
// settings, which a repository could write.
type HookConfig struct {
	Name    string
	Command []string
	URL     string
	Timeout time.Duration // 0 = the default (2 s)
	// Tier is the layer it came from: user or managed.
	Tier string
	File string
}

// hookKeys are a hook entry's keys.
var hookKeys = []string{"name", "command", "url", "timeoutMs"}

// neverHooks is why a hook from another layer is left out.
const neverHooks = "never read from this layer: a hook runs outside the sandbox with acp-bridge's rights; set hooks in the user config file, --config or the managed settings"

// hooks decodes the top-level hooks list.
func (d *decoder) hooks(l *layer, p []string, v any) {
	list, ok := v.([]any)
	if !ok {
		d.errorf(p, "must be a list of hooks, got %s", typeName(v))
		return
	}
	for i, e := range list {
		ip := child(p, "["+strconv.Itoa(i)+"]")
		m, ok := d.object(ip, e, hookKeys)
		if !ok {
			continue
		}
		h := HookConfig{Tier: l.name, File: l.file}
		if x, ok := m["name"]; ok {
			h.Name, _ = d.str(child(ip, "name"), x)
		}
		if x, ok := m["command"]; ok {
			h.Command, _ = d.strList(child(ip, "command"), x)
		}
		if x, ok := m["url"]; ok {
			h.URL, _ = d.str(child(ip, "url"), x)
		}
		if x, ok := m["timeoutMs"]; ok {
			if ms := d.atLeast(child(ip, "timeoutMs"), x, 1); ms != nil {
				h.Timeout = time.Duration(*ms) * time.Millisecond
			}
		}
		switch {
		case len(h.Command) > 0 && h.URL != "":
			d.errorf(ip, "set either command or url, not both")
		case len(h.Command) == 0 && h.URL == "":
			d.errorf(ip, "needs a command (a list: the program and its arguments) or a url")
		case len(h.Command) > 0 && !filepath.IsAbs(h.Command[0]):
			d.errorf(child(ip, "command"), "the program %q must be an absolute path (a hook runs outside the sandbox: no PATH lookup, no path relative to a workspace)", h.Command[0])
		case h.URL != "":
			u, err := url.Parse(h.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				d.errorf(child(ip, "url"), "%q is not an http(s) URL", h.URL)
			}
		}
		if h.Name == "" {
			h.Name = fmt.Sprintf("%s#%d", l.name, i+1)
		}
		l.hooks = append(l.hooks, h)
	}
}
