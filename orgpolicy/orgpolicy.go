package orgpolicy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/logging"
	bundleplugin "github.com/open-policy-agent/opa/v1/plugins/bundle"
	"github.com/open-policy-agent/opa/v1/sdk"
	"go.uber.org/zap"

	"github.com/acp-bridge/acp-bridge/hooks"
	"github.com/acp-bridge/acp-bridge/orgpolicy/opastage"
	"github.com/acp-bridge/acp-bridge/policy"
)

// Stage is a running OPA.
type Stage struct {
	cfg   Config
	opa   *sdk.OPA
	query string
	mu    sync.Mutex
	ready bool
	// status is the bundle's last status; changed is closed (and replaced)
	// at every new one.
	status  BundleStatus
	changed chan struct{}
	log     *zap.Logger
}

// BundleStatus is what OPA last said of the bundle.
type BundleStatus struct {
	// Revision is the active (verified) bundle's revision, "" before one.
	Revision string
	// Error is why the last download or activation failed (a bad
	// signature, a tampered file, an unreachable service), "" if it did not.
	Error string
	// Seq counts the statuses seen.
	Seq int
	// Ready: OPA has activated a verified bundle and decides.
	Ready bool
}

// Status returns the bundle's last status and a channel closed at the next.
func (s *Stage) Status() (BundleStatus, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status, s.changed
}

func (s *Stage) setStatus(st bundleplugin.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := st.Message
	for _, e := range st.Errors {
		msg += "; " + e.Error()
	}
	if st.Code == "" {
		msg = ""
	}
	prev := s.status
	s.status = BundleStatus{Revision: st.ActiveRevision, Error: msg, Seq: s.status.Seq + 1, Ready: s.ready}
	if s.status.Revision != prev.Revision {
		s.log.Info("OPA bundle activated", zap.String("revision", s.status.Revision), zap.String("url", s.cfg.BundleURL))
	}
	if msg != "" && msg != prev.Error {
		s.log.Error("OPA bundle refused or unreachable; the last verified one stays", zap.String("url", s.cfg.BundleURL),
			zap.String("active", s.status.Revision), zap.String("error", msg))
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// opaConfig builds OPA's configuration document.
func opaConfig(c Config) ([]byte, string, error) {
	if c.BundleURL == "" {
		return nil, "", errors.New("opa.bundleUrl is required")
	}
	u, err := url.Parse(c.BundleURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", fmt.Errorf("opa.bundleUrl %q is not an http(s) URL", c.BundleURL)
	}
	if c.KeyID == "" || c.Key == "" {
		return nil, "", errors.New("opa.signingKeyId and opa.signingKey are required: bundles are always verified")
	}
	q := strings.Trim(strings.TrimPrefix(strings.ReplaceAll(c.Query, ".", "/"), "data/"), "/")
	if q == "" {
		return nil, "", errors.New("opa.query is required (e.g. data.acp.decision)")
	}
	base := *u
	base.Path, base.RawQuery = "", ""
	resource := strings.TrimPrefix(u.Path, "/")
	if u.RawQuery != "" {
		resource += "?" + u.RawQuery
	}
	minS, maxS := int64(c.PollMin/time.Second), int64(c.PollMax/time.Second)
	if minS <= 0 {
		minS = 10
	}
	if maxS < minS {
		maxS = minS
	}
	alg := c.Algorithm
	if alg == "" {
		alg = "RS256"
	}
	doc := map[string]any{
		"services": map[string]any{"bundles": map[string]any{"url": base.String()}},
		"bundles": map[string]any{"acp-bridge": map[string]any{
			"service": "bundles", "resource": resource, "persist": c.PersistDir != "",
			"polling": map[string]any{"min_delay_seconds": minS, "max_delay_seconds": maxS},
			"signing": map[string]any{"keyid": c.KeyID},
		}},
		"keys": map[string]any{c.KeyID: map[string]any{"key": c.Key, "algorithm": alg}},
	}
	if c.PersistDir != "" {
		doc["persistence_directory"] = c.PersistDir
	}
	if c.DecisionLogURL != "" {
		lu, err := url.Parse(c.DecisionLogURL)
		if err != nil || (lu.Scheme != "http" && lu.Scheme != "https") || lu.Host == "" {
			return nil, "", fmt.Errorf("opa.decisionLogUrl %q is not an http(s) URL", c.DecisionLogURL)
		}
		lbase := *lu
		lbase.Path = path.Dir(lu.Path)
		doc["services"].(map[string]any)["logs"] = map[string]any{"url": lbase.String()}
		doc["decision_logs"] = map[string]any{"service": "logs", "resource": path.Base(lu.Path),
			"reporting": map[string]any{"min_delay_seconds": 1, "max_delay_seconds": 2}}
	}
	b, err := json.Marshal(doc)
	return b, q, err
}

// Start starts OPA without waiting for a bundle: until one is verified and
// active, Decide says no-verdict.
func Start(ctx context.Context, cfg Config, log *zap.Logger) (*Stage, error) {
	doc, q, err := opaConfig(cfg)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	ready := make(chan struct{})
	o, err := sdk.New(ctx, sdk.Options{ID: "acp-bridge", Config: bytes.NewReader(doc), Ready: ready,
		Logger: logging.NewNoOpLogger(), ConsoleLogger: logging.NewNoOpLogger()})
	if err != nil {
		return nil, fmt.Errorf("opa: %w", err)
	}
	s := &Stage{cfg: cfg, opa: o, query: q, changed: make(chan struct{}), log: log}
	if bp, ok := o.Plugin(bundleplugin.Name).(*bundleplugin.Plugin); ok {
		bp.Register("acp-bridge", s.setStatus)
	}
	go func() {
		select {
		case <-ready:
			s.mu.Lock()
			s.ready = true
			s.status.Ready = true
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
		case <-ctx.Done():
		}
	}()
	return s, nil
}

// Stop stops OPA (flushing decision logs as OPA does).
func (s *Stage) Stop(ctx context.Context) { s.opa.Stop(ctx) }

// Decide asks OPA. It never fails: what goes wrong is a no-verdict Result.
func (s *Stage) Decide(ctx context.Context, in Input) Result {
	// Through JSON: OPA's input is plain data.
	raw, err := json.Marshal(in)
	if err != nil {
		return opastage.NoVerdict(err.Error(), 0)
	}
	return s.DecideJSON(ctx, raw)
}

// DecideJSON is Decide with the input already an encoded Input (the
// companion's opa.decide params): it is decoded once, as plain data.
func (s *Stage) DecideJSON(ctx context.Context, raw []byte) Result {
	budget := s.cfg.Budget()
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	start := time.Now()
	none := func(why string) Result { return opastage.NoVerdict(why, time.Since(start)) }
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	if !ready {
		return none("no verified bundle yet")
	}
	var input any
	if err := json.Unmarshal(raw, &input); err != nil {
		return none(err.Error())
	}
	res, err := s.opa.Decision(ctx, sdk.DecisionOptions{Path: s.query, Input: input})
	if err != nil {
		if ctx.Err() != nil {
			return none(fmt.Sprintf("no decision within %v", budget))
		}
		if sdk.IsUndefinedErr(err) {
			return none("the query " + s.query + " is undefined for this call")
		}
		return none(err.Error())
	}
	r := Result{DecisionID: res.ID}
	for _, b := range res.Provenance.Bundles {
		r.Revision = b.Revision
	}
	d, reason, err := readResult(res.Result)
	if err != nil {
		nv := none(err.Error())
		nv.DecisionID, nv.Revision = r.DecisionID, r.Revision
		return nv
	}
	r.Result = hooks.Result{Hook: "opa", Outcome: hooks.OutcomeVerdict, Decision: d, Reason: reason, Elapsed: time.Since(start)}
	return r
}

// readResult reads OPA's result: "allow"|"ask"|"deny", or an object
// {"decision": ..., "reason": ...}.
func readResult(v any) (policy.Decision, string, error) {
	var d, reason string
	switch x := v.(type) {
	case string:
		d = x
	case map[string]any:
		d, _ = x["decision"].(string)
		reason, _ = x["reason"].(string)
	default:
		return "", "", fmt.Errorf("result %v is neither a decision nor {decision, reason}", v)
	}
	switch policy.Decision(d) {
	case policy.Allow, policy.Ask, policy.Deny:
		return policy.Decision(d), reason, nil
	}
	return "", "", fmt.Errorf("decision %q is not allow, ask or deny", d)
}
