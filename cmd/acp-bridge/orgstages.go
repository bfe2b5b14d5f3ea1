package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opastage"
	"github.com/acp-bridge/acp-bridge/orgproc"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/settings"
)

// The companion (cmd/acp-bridge-org) runs OPA, the telemetry sink and the
// AuthZEN hooks' HTTP requests for this bridge: one process for all,
// started by the first of withTelemetry, orgStages and authzenHooks that
// needs it, closed by the first stop.
var (
	orgMu     sync.Mutex
	orgShared *orgproc.Client
)

func companion(log *zap.Logger) *orgproc.Client {
	orgMu.Lock()
	defer orgMu.Unlock()
	if orgShared == nil {
		orgShared = orgproc.New(orgproc.Options{Version: version, Logger: log})
	}
	return orgShared
}

// closeCompanion returns the stop of c: the sink's queue flushed and OPA
// stopped (bounded), the process gone.
func closeCompanion(c *orgproc.Client) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		c.Close(ctx)
		orgMu.Lock()
		if orgShared == c {
			orgShared = nil
		}
		orgMu.Unlock()
	}
}

// orgStages starts the organisation's policy engine, in the companion,
// when the managed tier names one (docs/org.md, "OPA"). An OPA that
// cannot start leaves a stage that has no verdict for any call:
// everything asks (denied where the mode never asks), nothing is allowed
// by its absence. A companion that is missing, refused, crashed or hung
// gives the same no-verdict until it runs again (it is restarted).
func orgStages(ctx context.Context, snap *settings.Snapshot, ws string, log *zap.Logger) ([]permission.Stage, func()) {
	c := snap.Managed.OPA
	if c == nil {
		return nil, func() {}
	}
	persist := ""
	if d, err := os.UserCacheDir(); err == nil {
		persist = filepath.Join(d, "acp-bridge", "opa")
	}
	cl := companion(log)
	err := cl.StartOPA(ctx, opastage.Config{BundleURL: c.BundleURL, PollMin: c.PollMin, PollMax: c.PollMax,
		KeyID: c.SigningKeyID, Key: c.SigningKey, Algorithm: c.SigningAlgorithm, Query: c.Query,
		DecisionLogURL: c.DecisionLogURL, PersistDir: persist, Timeout: c.Timeout})
	var refused *orgproc.StartError
	if errors.As(err, &refused) {
		log.Error("the managed settings' OPA cannot start: every call asks", zap.Error(err))
		return []permission.Stage{opastage.PermissionStage{Workspace: ws, Broken: err.Error()}}, closeCompanion(cl)
	}
	if err != nil {
		log.Error("the managed settings' OPA is not running: every call asks until "+orgproc.Name+" runs", zap.Error(err))
	}
	return []permission.Stage{opastage.PermissionStage{OPA: cl, Workspace: ws}}, closeCompanion(cl)
}

// authzenHooks returns the transport of AuthZEN hooks
// (bridge.Options.AuthZEN): the companion's authzen.evaluate
// (orgproc.Client.AuthZEN), so that the bridge links no HTTP client
// (docs/org.md, "The companion"), and its stop. The companion starts now
// when the settings name a URL hook, even with neither OPA nor telemetry;
// a URL hook that settings reloaded since bring starts it at its first
// consultation. A companion that is missing, refused, crashed or past the
// hook's budget is the hook's no-verdict: the call asks.
func authzenHooks(snap *settings.Snapshot, log *zap.Logger) (hooks.Post, func()) {
	var mu sync.Mutex
	var cl *orgproc.Client
	get := func() *orgproc.Client {
		mu.Lock()
		defer mu.Unlock()
		if cl == nil {
			cl = companion(log)
		}
		return cl
	}
	for _, h := range snap.Config.Hooks {
		if h.URL != "" {
			get().Begin()
			break
		}
	}
	post := func(ctx context.Context, url string, body []byte) (int, []byte, error) {
		return get().AuthZEN(ctx, url, body)
	}
	stop := func() {
		mu.Lock()
		c := cl
		mu.Unlock()
		if c != nil {
			closeCompanion(c)()
		}
	}
	return post, stop
}

// ownPrograms are the bridge's own executable and its companion beside it
// (orgproc.Beside, where the bridge looks for it, present or not): both run
// outside every sandbox with the bridge's rights, so no agent may write or
// plant them (bridge.Options.Programs; red team 11: a bridge built into the
// workspace's bin/ had a companion planted beside it).
func ownPrograms() []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	if c, err := orgproc.Beside(); err == nil {
		out = append(out, c)
	}
	return out
}
