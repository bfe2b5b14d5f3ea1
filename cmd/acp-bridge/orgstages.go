package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/orgpolicy"
	"github.com/acp-bridge/acp-bridge/permission"
	"github.com/acp-bridge/acp-bridge/settings"
)

// orgStages starts the organisation's policy engine when the managed tier
// names one (docs/org.md, "OPA"). An OPA that cannot start leaves a stage
// that has no verdict for any call: everything asks (denied where the mode
// never asks), nothing is allowed by its absence.
func orgStages(ctx context.Context, snap *settings.Snapshot, ws string, log *zap.Logger) ([]permission.Stage, func()) {
	c := snap.Managed.OPA
	if c == nil {
		return nil, func() {}
	}
	persist := ""
	if d, err := os.UserCacheDir(); err == nil {
		persist = filepath.Join(d, "acp-bridge", "opa")
	}
	st, err := orgpolicy.Start(ctx, orgpolicy.Config{BundleURL: c.BundleURL, PollMin: c.PollMin, PollMax: c.PollMax,
		KeyID: c.SigningKeyID, Key: c.SigningKey, Algorithm: c.SigningAlgorithm, Query: c.Query,
		DecisionLogURL: c.DecisionLogURL, PersistDir: persist, Timeout: c.Timeout}, log)
	if err != nil {
		log.Error("the managed settings' OPA cannot start: every call asks", zap.Error(err))
		return []permission.Stage{orgpolicy.PermissionStage{Workspace: ws, Broken: err.Error()}}, func() {}
	}
	return []permission.Stage{orgpolicy.PermissionStage{OPA: st, Workspace: ws}}, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st.Stop(sctx)
	}
}
