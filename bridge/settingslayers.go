package bridge

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/acp"
	"github.com/acp-bridge/acp-bridge/settings"
	"github.com/acp-bridge/acp-bridge/wire"
)

// settingsLayers answers _acp-bridge/settings/layers: the editor's own
// layers of its settings, its workspace trust and the digest it approved.
// The store merges them, cuts the workspace's down and decides the pin
// (settings/editorlayers.go); the answer is the pin state and the agents in
// force. A refused payload leaves the previous settings in force and is
// reported as settings/didChange's is (settings/invalid) besides the error.
func (b *Bridge) settingsLayers(params json.RawMessage) (any, error) {
	var p wire.SettingsLayersParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.InvalidParams(wire.SettingsLayers, err)
	}
	if p.Values == nil {
		return nil, acp.InvalidParams(wire.SettingsLayers, errors.New("values is required: {key: {defaultValue?, globalValue?, workspaceValue?, workspaceFolderValue?}}"))
	}
	if b.store == nil {
		return nil, acp.Errorf(acp.CodeInvalidParams, "%s: no settings store", wire.SettingsLayers)
	}
	in := settings.EditorLayers{Values: make(map[string]settings.EditorValue, len(p.Values)), Trusted: p.Trusted, Approved: p.Approved}
	for k, v := range p.Values {
		in.Values[k] = settings.EditorValue{Default: v.DefaultValue, User: v.GlobalValue, Workspace: v.WorkspaceValue, Folder: v.WorkspaceFolderValue}
	}
	got, err := b.store.ApplyEditorLayers(in, p.Preview)
	if err != nil {
		if !p.Preview {
			b.edSet.refuse(err)
			b.reportSettingsError(err)
		}
		return nil, acp.InvalidParams(wire.SettingsLayers, err)
	}
	if !p.Preview {
		b.edSet.ok()
		b.settingsChanged()
		b.log.Info("editor settings layers applied", zap.String("digest", got.Digest), zap.Bool("pinned", got.Pinned), zap.Int("ignored", len(got.Ignored)))
	}
	return settingsLayersResult(got), nil
}

func settingsLayersResult(got settings.EditorApplied) wire.SettingsLayersResult {
	c := got.Snapshot.Config
	res := wire.SettingsLayersResult{
		Digest: got.Digest, Pinned: got.Pinned, Approved: got.Approved, Pin: got.Pin,
		DefaultAgent: c.DefaultAgent, Agents: make(map[string]wire.ConfiguredAgent, len(c.Agents)), Ignored: []string{},
	}
	for name, a := range c.Agents {
		res.Agents[name] = wire.ConfiguredAgent{Command: a.Command, Args: append([]string{}, a.Args...), BypassPermissions: a.BypassPermissions, Mode: a.EffectiveMode(c.Permissions.DefaultMode)}
	}
	for _, ig := range got.Ignored {
		res.Ignored = append(res.Ignored, fmt.Sprintf("%s: %s", ig.File, ig.Key)+reasonSuffix(ig))
	}
	return res
}

func reasonSuffix(ig settings.IgnoredSetting) string {
	if ig.Value != "" {
		return fmt.Sprintf(" (%s): %s", ig.Value, ig.Reason)
	}
	return ": " + ig.Reason
}
