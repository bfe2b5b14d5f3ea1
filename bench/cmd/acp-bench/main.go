package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/acp-bridge/acp-bridge/bench"
)

func main() {
	var cfg bench.Config
	var out, only string
	var keep bool
	flag.StringVar(&out, "out", "", "also write the markdown report to this file")
	flag.IntVar(&cfg.Runs, "runs", 5, "repetitions of each timed scenario")
	flag.BoolVar(&cfg.Quick, "quick", false, "small sizes (a smoke run; the numbers mean little)")
	flag.StringVar(&only, "only", "", "comma-separated scenarios to run (stream, diff, latency, scale, policy, startup, sandbox); default all")
	flag.StringVar(&cfg.Base, "base", "", "a checkout of a baseline commit: its acp-bridge runs beside the current one in this run (make bench BASE=<commit>)")
	flag.StringVar(&cfg.BaseLabel, "base-label", "", "how the report names the baseline (default: the -base directory)")
	flag.IntVar(&cfg.ScaleRuns, "scale-runs", 0, "scale runs (each starts 20 agents and 1,000 sessions; default min(runs, 3))")
	flag.BoolVar(&keep, "keep", false, "keep the scratch directory (the built binaries, configs, workspaces) and print its path, e.g. for perf report")
	sandboxOn := true
	flag.BoolVar(&sandboxOn, "sandbox", true, "run the current bridge's agents in the OS sandbox; -sandbox=false turns it off (sandbox.enabled: false) to compare like with like against a baseline built before the sandbox (the baseline's config is never changed)")
	flag.Func("bridge-env", "KEY=VALUE added to the bridge's environment (repeatable), e.g. GOMAXPROCS=1", func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		cfg.BridgeEnv = append(cfg.BridgeEnv, v)
		return nil
	})
	flag.Parse()
	cfg.NoSandbox = !sandboxOn
	if only != "" {
		cfg.Only = map[string]bool{}
		for _, s := range strings.Split(only, ",") {
			cfg.Only[strings.TrimSpace(s)] = true
		}
	}
	cfg.CommandLine = "go run ./bench/cmd/acp-bench " + strings.Join(os.Args[1:], " ")
	cfg.Log = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	cfg.Root = root
	tmp, err := os.MkdirTemp("", "acp-bench")
	if err != nil {
		fail(err)
	}
	if keep {
		fmt.Fprintln(os.Stderr, "acp-bench: scratch directory kept:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	cfg.Dir = tmp

	start := time.Now()
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		fail(err)
	}
	md := rep.Markdown()
	fmt.Print(md)
	if out != "" {
		if !filepath.IsAbs(out) {
			out = filepath.Join(root, out)
		}
		if old, err := os.ReadFile(out); err == nil {
			md = bench.KeepWebviewSection(string(old), md) // written by make bench-webview
			md = bench.KeepFleetSection(string(old), md)   // written by make bench-fleet
			md = bench.KeepHandSection(string(old), md)    // measured by hand (policy CPU time)
		}
		if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "acp-bench: wrote %s (%s)\n", out, time.Since(start).Round(time.Second))
	}
}

func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run acp-bench inside the acp-bridge module")
	}
	return filepath.Dir(mod), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "acp-bench:", err)
	os.Exit(1)
}
