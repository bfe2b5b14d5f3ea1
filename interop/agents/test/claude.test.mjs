// Claude (the Claude Agent ACP adapter installed by interop/claude) behind
// the bridge, offline, against interop/claude's fake Messages API.
// Scenarios: lib/suite.mjs; interop/claude/test has Claude's own, deeper ones.
import { test } from "node:test";
import { agentSuite, denyRmBuild } from "../lib/suite.mjs";
import { claude } from "../lib/agents.mjs";

// Claude's settings set permissions.defaultMode "default" (the mode that asks).
agentSuite(claude);

// Without that setting, adapter 0.101 starts the session in Claude Code's
// "auto" mode, where Claude decides for itself and asks nothing: measured
// here, its `rm -rf build` ran and build/ was deleted although the bridge
// has the deny rule, because the bridge never saw the call. This is the
// (bridge default x Claude auto) cell of the matrix; it turns green when the
// bridge keeps each child in its asking mode (work in progress elsewhere).
// todo: reported, not failing the run, until then; then drop the todo.
test(
  `${claude.package}@${claude.version}: adapter's built-in start mode (auto): deny rule Bash(rm *) must still hold`,
  { timeout: 120_000, todo: "the bridge does not yet take the child out of Claude's auto mode" },
  (t) => denyRmBuild(t, { ...claude, startMode: null }, "deny-rule-auto"),
);
