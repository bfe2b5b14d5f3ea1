// Package settings owns acp-bridge's configuration: the schema, the layers
// (shipped defaults, user file, workspace file, ACP_BRIDGE_* environment,
// editor settings), their merge, validation that reports every problem with
// its file and key, live reload of the files, and the writing of grants
// (rules, an agent's bypass) back into a file. It is the only package that
// imports viper. docs/settings.md is the user-facing reference.
//
// Merging: a scalar comes from the heaviest layer that sets it; agents are
// merged per name, field by field; allow/ask/deny rules and
// additionalDirectories are concatenated across layers, each Rule keeping
// its origin (layer, file, the root its "/" patterns anchor to), so a deny
// anywhere still reaches the policy engine. Rule grammar is not checked
// here: approvals.Compile does that.
//
// Why not viper.ReadInConfig/Unmarshal/WatchConfig: viper lowercases every
// key (agents.<name>.env would lose its variable names' case), replaces
// lists instead of concatenating them, and its watcher cannot be stopped.
// The package uses viper's codecs (yaml, json, toml) to decode and encode
// files, follows its AutomaticEnv naming for variables (read from
// Options.Environ), and watches files with fsnotify.
//
// Workspace trust (trust.go): the workspace file is cut down before every
// merge. Untrusted (the default; Options.WorkspaceTrusted,
// Store.SetWorkspaceTrusted), it may only narrow: deny and ask rules,
// stricter modes (StricterOrEqualMode) and timeout outcome, bypass and
// start-on-launch switched off; everything else is left out and listed in
// Snapshot.WorkspaceTrust.Ignored with its file, line and reason. Trusted or
// not, audit.path and log.file never come from it. Trust covers a version
// of the file (approval.go): trusted, a file whose digest is not the pinned
// one (ApprovalsFileName in the user config directory; pinned at first
// trust, or by ApproveWorkspaceFile) is cut down as if untrusted and
// reported in Snapshot.WorkspaceTrust.Pending. The pins are read and written
// under Store.mu.
//
// The editor's layers (editorlayers.go): VS Code sends its own layers of
// acpBridge.* as they are (Store.ApplyEditorLayers); the package merges
// them after the other layers, cuts its workspace and folder layers down
// with restrictWorkspace (agents and audit.path never come from them), and
// decides their pin from the digest it computes (DigestEditorValues,
// EditorPinState) and the approved one the editor keeps: the extension
// computes none of it. Store.ApplyEditor takes one merged object instead
// (other editors), applied as the editor's user layer.
//
// Safety: a file or editor payload with any problem is refused whole. At
// Load that is an error; later (a file edited on disk, ApplyEditor) the
// previous valid settings stay and the problem is reported, so a bad edit
// never makes the configuration more permissive.
//
// Goroutines: a Store has two. The watch goroutine receives fsnotify events
// for the user and workspace files, coalesces a burst, and reloads under
// Store.mu. The event goroutine calls OnChange and OnError subscribers, one
// call at a time, in order; subscribers may call any Store method.
// Snapshot() is a lock-free atomic load; Snapshots are immutable and shared.
// ApplyEditor, Persist and RemoveRule run on the caller's goroutine under
// Store.mu, which serialises them with reloads, so concurrent grants never
// lose each other's writes.
package settings
