package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// reloadDelay coalesces the burst of events one save makes (write, chmod,
// rename) into one reload.
const reloadDelay = 50 * time.Millisecond

// settleDelay is how long a reload that found a broken or newly emptied
// file waits before it believes it: a writer that truncates and then writes
// shows both states for a moment, and an empty file would drop deny rules.
const settleDelay = 250 * time.Millisecond

// Store holds the layers and the current Snapshot, watches the files and
// writes grants. It is safe for concurrent use.
type Store struct {
	opts     Options // resolved: absolute paths, logger, environ, executable
	log      *zap.Logger
	defaults *layer
	env      *layer       // read once at Load
	managed  *managedTier // read once at Load
	// rename is os.Rename; tests make it fail.
	rename func(oldpath, newpath string) error

	snap atomic.Pointer[Snapshot]

	// mu serialises every change (reload, ApplyEditor, Persist, RemoveRule)
	// and guards the last valid layers below and watched.
	mu        sync.Mutex
	user      *layer    // nil: no user file
	workspace *layer    // nil: no workspace file
	editor    editorSet // the editor's layers (zero: no editor settings)
	trusted   bool      // the workspace is trusted (Options.WorkspaceTrusted, SetWorkspaceTrusted)
	// approved are the pinned workspace files (approval.go); nil until read.
	approved map[string]approvalRecord
	watched  map[string]bool

	// subMu guards the subscribers and the errors waiting for delivery.
	subMu       sync.Mutex
	subs        []func(*Snapshot)
	errSubs     []func(error)
	pendingErrs []error

	wake      chan struct{} // cap 1: the event goroutine has work
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup
	watcher   *fsnotify.Watcher
	// watchFiles are the files whose changes cause a reload (fixed at Load).
	watchFiles map[string]bool
}

// Load reads every layer, validates the merged result and starts watching
// the user and workspace files. Any problem anywhere fails Load with a
// *ValidationError listing every problem with its file and key: a broken
// file never yields a more permissive configuration.
func Load(opts Options) (*Store, error) {
	opts = resolveOptions(opts)
	s := &Store{
		opts:       opts,
		log:        opts.Logger,
		defaults:   defaultsLayer(opts.Executable),
		rename:     os.Rename,
		watched:    map[string]bool{},
		wake:       make(chan struct{}, 1),
		done:       make(chan struct{}),
		watchFiles: map[string]bool{},
		trusted:    opts.WorkspaceTrusted,
	}
	envRoot := opts.WorkspaceDir
	if envRoot == "" {
		envRoot, _ = os.Getwd()
	}
	env, problems, ignored := envLayer(opts.Environ, envRoot)
	if len(ignored) > 0 {
		s.log.Debug("ignoring environment variables that name no setting", zap.Strings("vars", ignored))
	}
	s.env = env
	// The managed tier is read once, at start (docs/org.md).
	s.managed = readManaged(opts.managedFile, opts.managedDropins)
	if ct, ok := readClaudeManaged(opts.claudeFile, opts.claudeDropins); ok {
		s.managed.absorb(ct)
	}
	if len(s.managed.info.Problems) > 0 {
		s.log.Error("managed settings are invalid: no agent starts", zap.String("problems", s.managed.info.ProblemText()))
	}
	user, ws, fileProblems := s.readFiles()
	problems = append(fileProblems, problems...)
	snap, mergedProblems := s.build(user, ws, env, editorSet{}, problems)
	problems = append(problems, mergedProblems...)
	if len(problems) > 0 {
		return nil, asError(problems)
	}
	s.user, s.workspace = user, ws
	s.snap.Store(snap)

	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("settings: watch config files: %w", err)
	}
	s.watcher = w
	for _, f := range s.candidateFiles() {
		s.watchFiles[f] = true
		s.watchDirLocked(filepath.Dir(f))
	}
	s.wg.Add(2)
	go s.watchLoop()
	go s.eventLoop(snap)
	s.log.Debug("settings loaded", zap.Strings("sources", snap.Sources))
	return s, nil
}

func resolveOptions(o Options) Options {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.UserConfigDir == "" {
		if d, err := os.UserConfigDir(); err == nil {
			o.UserConfigDir = filepath.Join(d, "acp-bridge")
		}
	}
	abs := func(p *string) {
		if *p != "" {
			if a, err := filepath.Abs(*p); err == nil {
				*p = a
			}
		}
	}
	abs(&o.UserConfigDir)
	abs(&o.WorkspaceDir)
	abs(&o.ConfigFile)
	if o.managedFile == "" && o.managedDropins == "" {
		o.managedFile, o.managedDropins = ManagedPaths(runtime.GOOS)
	}
	if o.claudeFile == "" && o.claudeDropins == "" {
		o.claudeFile, o.claudeDropins = ClaudeManagedPaths(runtime.GOOS)
	}
	if o.Executable == "" {
		if exe, err := os.Executable(); err == nil {
			o.Executable = exe
		} else {
			o.Executable = fallbackExecutable
		}
	}
	return o
}

// Snapshot returns the current settings. It never blocks.
func (s *Store) Snapshot() *Snapshot { return s.snap.Load() }

// OnChange registers fn to be called with each new Snapshot (not with the
// current one). Calls come one at a time, in order, from the store's event
// goroutine; fn may call any Store method. A burst of changes may be
// delivered as its last Snapshot only.
func (s *Store) OnChange(fn func(*Snapshot)) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.subs = append(s.subs, fn)
}

// OnError registers fn to be told when a changed file on disk was refused
// (the previous settings stay). Called from the event goroutine.
func (s *Store) OnError(fn func(error)) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.errSubs = append(s.errSubs, fn)
}

// Close stops watching and delivering. The last Snapshot stays readable.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.done)
		if s.watcher != nil {
			err = s.watcher.Close()
		}
		s.wg.Wait()
	})
	return err
}

// ApplyEditor replaces the editor layer with raw, the editor's settings
// object (the acpBridge.* settings without the prefix; dotted keys such as
// "permissions.allow" are accepted too). null or {} clears it. If the merged
// result is invalid, the error lists every problem and the previous editor
// layer stays.
func (s *Store) ApplyEditor(raw json.RawMessage) error {
	l, problems := editorLayer(raw, s.opts.WorkspaceDir)
	s.mu.Lock()
	defer s.mu.Unlock()
	// One object, merged by the editor: it applies as the user's layer.
	set := editorSet{user: l}
	snap, merged := s.build(s.user, s.workspace, s.env, set, problems)
	if err := asError(append(problems, merged...)); err != nil {
		return err
	}
	s.editor = set
	s.commitLocked(snap)
	return nil
}

// editorLayer decodes the editor's settings. An empty or null payload is no
// layer at all.
func editorLayer(raw json.RawMessage, root string) (*layer, []*FieldError) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil, nil
	}
	const src = "editor settings"
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return nil, []*FieldError{{Source: src, Msg: fmt.Sprintf("not JSON: %v", err)}}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, []*FieldError{{Source: src, Msg: fmt.Sprintf("must be an object, got %s", typeName(v))}}
	}
	m, problems := expandDotted(m, src)
	where := func([]string) (string, int) { return src, 0 }
	l := &layer{name: LayerEditor, root: root, source: src, where: where}
	return l, append(problems, decodeLayer(l, m, where)...)
}

// expandDotted turns top-level keys like "acpBridge.permissions.allow" or
// "permissions.allow" into nested objects, as VS Code may flatten them.
func expandDotted(m map[string]any, src string) (map[string]any, []*FieldError) {
	out := map[string]any{}
	var problems []*FieldError
	for _, k := range sortedKeys(m) {
		path := strings.Split(strings.TrimPrefix(k, "acpBridge."), ".")
		cur := out
		for i, seg := range path {
			if i == len(path)-1 {
				if old, ok := cur[seg]; ok {
					om, ok1 := old.(map[string]any)
					nm, ok2 := m[k].(map[string]any)
					if !ok1 || !ok2 {
						problems = append(problems, &FieldError{Source: src, Key: keyString(path), Msg: "set twice"})
						break
					}
					merged, p := expandDotted(nm, src)
					problems = append(problems, p...)
					for kk, vv := range merged {
						if _, dup := om[kk]; dup {
							problems = append(problems, &FieldError{Source: src, Key: keyString(append(path, kk)), Msg: "set twice"})
						}
						om[kk] = vv
					}
					break
				}
				cur[seg] = m[k]
				break
			}
			next, ok := cur[seg].(map[string]any)
			if !ok {
				if _, exists := cur[seg]; exists {
					problems = append(problems, &FieldError{Source: src, Key: keyString(path[:i+1]), Msg: "set twice"})
					break
				}
				next = map[string]any{}
				cur[seg] = next
			}
			cur = next
		}
	}
	return out, problems
}

// build merges the layers and validates the result. known are the
// problems the layers already reported: a merged problem at the same key
// is not repeated.
//
// The workspace layer is cut down first (restrictWorkspace): untrusted, it
// may only narrow; trusted or not, it never sets the audit path or the log
// file. s.mu held (or, in Load, not yet shared).
func (s *Store) build(user, ws, env *layer, editor editorSet, known []*FieldError) (*Snapshot, []*FieldError) {
	trusted := s.trusted
	var pending *PendingApproval
	if trusted && s.opts.WorkspaceDir != "" {
		digest := DigestAbsent
		if ws != nil {
			digest = ws.digest
		}
		var ok bool
		if ok, pending = s.approvalLocked(filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName), digest, s.loosensFunc(ws, user, env, editor)); !ok {
			trusted = false // this version of the file was never approved: it may only narrow
		}
	}
	base := s.baseConfig(user, env, editor)
	ws, ignored := restrictWorkspace(ws, base, trusted)
	if pending != nil {
		why := changedReason
		if pending.Approved == DigestNone {
			why = firstTrustReason
		}
		for i, ig := range ignored {
			switch {
			case ig.Reason == neverFromWSAudit || ig.Reason == neverFromWSLog || ig.Reason == neverFromWSTelemetry:
			case strings.Contains(ig.Reason, untrustedReason):
				ignored[i].Reason = strings.ReplaceAll(ig.Reason, untrustedReason, why)
			default:
				ignored[i].Reason = why + "; until then the file is read as an untrusted one: " + ig.Reason
			}
		}
	}
	edLayers, edIgnored := editorEffective(editor, base, []*layer{s.defaults, user, ws, env}, s.opts.UserConfigDir)
	layers := append([]*layer{s.defaults, user, ws, env}, edLayers...)
	mt := s.managed
	if mt == nil {
		mt = &managedTier{}
	}
	var lower Config
	if mt.layer != nil {
		lower, _, _ = merge(layers, s.opts.UserConfigDir)
		layers = append(layers, mt.layer)
	}
	cfg, rules, pv := merge(layers, s.opts.UserConfigDir)
	info := mt.info // a copy per snapshot: Ignored is rebuilt
	info.Ignored = nil
	if mt.layer != nil {
		t := *mt
		t.info = info
		rules = applyManaged(&cfg, lower, rules, &t)
		info = t.info
	}
	errs := Validate(cfg)
	errs = append(errs, validateRules("permissions", rules)...)
	for _, p := range s.recordPathProblems(cfg) {
		errs = append(errs, p)
	}
	var problems []*FieldError
	for _, e := range errs {
		var fe *FieldError
		if !errors.As(e, &fe) {
			problems = append(problems, &FieldError{Msg: e.Error()})
			continue
		}
		if slices.ContainsFunc(known, func(k *FieldError) bool {
			return k.Key == fe.Key || strings.HasPrefix(k.Key, fe.Key+".")
		}) {
			continue
		}
		// Name the layer responsible.
		var from *layer
		if fe.Key == "defaultAgent" {
			from = pv.defaultAgent
		} else if rest, ok := strings.CutPrefix(fe.Key, "agents."); ok {
			name, _, _ := strings.Cut(rest, ".")
			if ls := pv.agents[name]; len(ls) > 0 {
				from = ls[0]
			}
		}
		if from != nil && from.where != nil {
			fe.Source, fe.Line = from.where(strings.Split(fe.Key, "."))
		}
		problems = append(problems, fe)
	}
	snap := &Snapshot{Config: cfg, Rules: rules, WorkspaceTrust: WorkspaceTrust{Trusted: s.trusted, Ignored: ignored, Pending: pending}, EditorIgnored: edIgnored,
		InForce: inForce(layers, rules, cfg), RuleWarnings: ruleWarnings(cfg, rules), Managed: &info}
	for _, h := range cfg.Hooks {
		if len(h.Command) > 0 { // hookpaths.go
			trees := WritableTrees(cfg, s.opts.WorkspaceDir, s.home())
			snap.HookEnv = hookEnviron(s.opts.Environ, trees, []string{s.opts.UserConfigDir})
			for _, t := range trees {
				snap.HookMask = append(snap.HookMask, t.Path)
			}
			if s.opts.UserConfigDir != "" {
				snap.HookKeep = []string{s.opts.UserConfigDir}
			}
			break
		}
	}
	for _, l := range []*layer{user, ws} {
		if l != nil {
			snap.Sources = append(snap.Sources, l.file)
		}
	}
	return snap, problems
}

// commitLocked publishes snap unless it equals the current one. s.mu held.
func (s *Store) commitLocked(snap *Snapshot) {
	if reflect.DeepEqual(s.snap.Load(), snap) {
		return
	}
	s.snap.Store(snap)
	s.signal()
}

func (s *Store) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// userFile returns the user file to read ("" if none) and whether it was
// given with --config.
func (s *Store) userFile() (path string, explicit bool, err error) {
	if s.opts.ConfigFile != "" {
		return s.opts.ConfigFile, true, nil
	}
	if s.opts.UserConfigDir == "" {
		return "", false, nil
	}
	var found []string
	for _, ext := range userFileExts {
		p := filepath.Join(s.opts.UserConfigDir, "config."+ext)
		// Anything by that name counts, a directory or a dangling symlink
		// too: reading it then fails loudly instead of the file's rules
		// silently not applying.
		if _, err := os.Lstat(p); err == nil {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", false, nil
	case 1:
		return found[0], false, nil
	default:
		// Reading one would silently drop the other's deny rules.
		return "", false, fmt.Errorf("several user config files: %s (keep one)", strings.Join(found, ", "))
	}
}

// candidateFiles are the files whose appearance, change or removal matters.
func (s *Store) candidateFiles() []string {
	var out []string
	if s.opts.ConfigFile != "" {
		out = append(out, s.opts.ConfigFile)
	} else if s.opts.UserConfigDir != "" {
		for _, ext := range userFileExts {
			out = append(out, filepath.Join(s.opts.UserConfigDir, "config."+ext))
		}
	}
	if s.opts.WorkspaceDir != "" {
		out = append(out, filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName))
	}
	return out
}

// readFiles reads and decodes the user and workspace files.
func (s *Store) readFiles() (user, ws *layer, problems []*FieldError) {
	path, explicit, err := s.userFile()
	if err != nil {
		problems = append(problems, &FieldError{Source: s.opts.UserConfigDir, Msg: err.Error()})
	} else if path != "" {
		data, exists, err := readOptional(path)
		switch {
		case err != nil:
			problems = append(problems, &FieldError{Source: path, Msg: fmt.Sprintf("cannot read: %v", err)})
		case !exists && explicit:
			problems = append(problems, &FieldError{Source: path, Msg: "config file does not exist"})
		case exists:
			var p []*FieldError
			user, p = fileLayer(LayerUser, path, filepath.Dir(path), data)
			problems = append(problems, p...)
		}
	}
	if s.opts.WorkspaceDir != "" {
		path := filepath.Join(s.opts.WorkspaceDir, WorkspaceFileName)
		data, exists, err := readOptional(path)
		switch {
		case err != nil:
			problems = append(problems, &FieldError{Source: path, Msg: fmt.Sprintf("cannot read: %v", err)})
		case exists:
			var p []*FieldError
			ws, p = fileLayer(LayerWorkspace, path, s.opts.WorkspaceDir, data)
			problems = append(problems, p...)
			if ws != nil {
				ws.digest = ContentDigest(data, true)
			}
		}
	}
	return user, ws, problems
}

// reloadFiles re-reads both files. A valid result replaces the snapshot; an
// invalid one keeps the previous state and is reported. Unless final, a
// broken file, or a file that was emptied, changes nothing and asks for
// another look (true) after settleDelay.
func (s *Store) reloadFiles(final bool) (again bool) {
	s.mu.Lock()
	user, ws, problems := s.readFiles()
	if !final && (len(problems) > 0 || emptied(s.user, user) || emptied(s.workspace, ws)) {
		s.mu.Unlock()
		return true
	}
	var snap *Snapshot
	if len(problems) == 0 {
		var merged []*FieldError
		snap, merged = s.build(user, ws, s.env, s.editor, nil)
		problems = merged
	}
	if len(problems) == 0 {
		s.user, s.workspace = user, ws
		s.commitLocked(snap)
	}
	s.mu.Unlock()
	if err := asError(problems); err != nil {
		s.log.Error("settings change refused; keeping the previous settings", zap.Error(err))
		s.subMu.Lock()
		s.pendingErrs = append(s.pendingErrs, err)
		s.subMu.Unlock()
		s.signal()
	}
	return false
}

// emptied tells whether a file that had settings is now empty.
func emptied(before, after *layer) bool {
	return before != nil && !before.empty && after != nil && after.empty
}

// watchDirLocked adds dir to the watcher once, if it exists.
func (s *Store) watchDirLocked(dir string) {
	if s.watcher == nil || s.watched[dir] {
		return
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return
	}
	if err := s.watcher.Add(dir); err != nil {
		s.log.Warn("cannot watch config directory; changes need a restart", zap.String("dir", dir), zap.Error(err))
		return
	}
	s.watched[dir] = true
}

// watchLoop runs on its own goroutine: it turns file events into reloads.
func (s *Store) watchLoop() {
	defer s.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	settling := false // the timer is a settleDelay re-check
	for {
		select {
		case <-s.done:
			return
		case ev, ok := <-s.watcher.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod || !s.watchFiles[filepath.Clean(ev.Name)] {
				continue
			}
			settling = false
			timer.Reset(reloadDelay)
		case err, ok := <-s.watcher.Errors:
			if !ok {
				return
			}
			s.log.Warn("config watcher error", zap.Error(err))
		case <-timer.C:
			if s.reloadFiles(settling) {
				settling = true
				timer.Reset(settleDelay)
			} else {
				settling = false
			}
		}
	}
}

// eventLoop runs on its own goroutine: it calls the subscribers, one call
// at a time, never with an older snapshot than the last one delivered.
func (s *Store) eventLoop(last *Snapshot) {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		s.subMu.Lock()
		subs, errSubs, errs := slices.Clone(s.subs), slices.Clone(s.errSubs), s.pendingErrs
		s.pendingErrs = nil
		s.subMu.Unlock()
		for _, err := range errs {
			for _, fn := range errSubs {
				fn(err)
			}
		}
		if cur := s.snap.Load(); cur != last {
			last = cur
			for _, fn := range subs {
				fn(cur)
			}
		}
	}
}
