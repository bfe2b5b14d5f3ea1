package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// userFileExts are the user file's accepted extensions, in search order.
var userFileExts = []string{"yaml", "yml", "json", "toml"}

// codecs decodes and encodes config files. Viper's codecs keep the case of
// keys; viper's own ReadInConfig lowercases every key, which would break
// agents.<name>.env variable names, so the files are decoded here.
var codecs = viper.NewCodecRegistry()

// formatOf returns the file format from the extension.
func formatOf(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	for _, e := range userFileExts {
		if ext == e {
			if ext == "yml" {
				return "yaml", nil
			}
			return ext, nil
		}
	}
	return "", fmt.Errorf("unsupported config format %q (use .yaml, .yml, .json or .toml)", ext)
}

// decodeFile parses a config file's bytes into a raw map. Empty (or
// whitespace-only) files are an empty map. Errors do not repeat the path.
func decodeFile(path string, data []byte) (map[string]any, error) {
	format, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	raw := map[string]any{}
	if len(bytes.TrimSpace(data)) == 0 {
		return raw, nil
	}
	dec, err := codecs.Decoder(format)
	if err != nil {
		return nil, err
	}
	if err := dec.Decode(data, raw); err != nil {
		return nil, fmt.Errorf("cannot parse %s: %w", format, err)
	}
	return raw, nil
}

// fileLayer parses one config file into a layer of the given name. A file
// that cannot be parsed is one problem naming the file.
func fileLayer(name, path, root string, data []byte) (*layer, []*FieldError) {
	l := &layer{name: name, file: path, root: root, source: path, empty: len(bytes.TrimSpace(data)) == 0}
	raw, err := decodeFile(path, data)
	if err != nil {
		return nil, []*FieldError{{Source: path, Msg: err.Error()}}
	}
	where := locatorFor(path, data)
	l.where = where
	return l, decodeLayer(l, raw, where)
}

// locatorFor finds the line of a key path in a YAML file (0 elsewhere).
func locatorFor(path string, data []byte) locator {
	where := func([]string) (string, int) { return path, 0 }
	if f, _ := formatOf(path); f == "yaml" {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) == nil {
			where = func(p []string) (string, int) { return path, yamlLine(&doc, p) }
		}
	}
	return where
}

// yamlLine returns the line of the key (or list item) at path, or the line
// of the deepest ancestor found; 0 if none.
func yamlLine(n *yaml.Node, path []string) int {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return 0
		}
		n = n.Content[0]
	}
	line := 0
	for _, seg := range path {
		switch {
		case n.Kind == yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					line, next = n.Content[i].Line, n.Content[i+1]
					break
				}
			}
			if next == nil {
				return line
			}
			n = next
		case n.Kind == yaml.SequenceNode && strings.HasPrefix(seg, "["):
			i, err := strconv.Atoi(strings.Trim(seg, "[]"))
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		default:
			return line
		}
	}
	return line
}

// readOptional reads a file; a missing file is (nil, false, nil). Something
// that is there but cannot be read (a directory, a symlink to nothing) is an
// error: treating it as absent would silently drop its deny rules.
func readOptional(path string) ([]byte, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return nil, false, fmt.Errorf("%s is a symlink to %s, which does not exist", path, target)
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// writeAtomic replaces path with data: a temp file in the same directory,
// fsync, rename, fsync of the directory. A failure at any step leaves the
// old file as it was. A symlinked path is written through to its target.
// rename is os.Rename except in tests.
func writeAtomic(path string, data []byte, rename func(string, string) error) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	mode := fs.FileMode(0o600) // new files may hold agents' env (API keys)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err = rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // best effort: the rename is done either way
		_ = d.Close()
	}
	return nil
}
