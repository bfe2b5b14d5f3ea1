// Claude (the Claude Agent ACP adapter installed by interop/claude) behind
// the bridge, offline, against interop/claude's fake Messages API.
// Scenarios: lib/suite.mjs; interop/claude/test has Claude's own, deeper ones.
import { test } from "node:test";
import { agentSuite, denyRmBuild } from "../lib/suite.mjs";
import { claude } from "../lib/agents.mjs";

// Claude's settings set permissions.defaultMode "default" (the mode that asks).
agentSuite(claude);

// Without that setting, adapter 0.101 starts the session in Claude Code's
// "auto" mode, where Claude decides for itself and asks nothing (measured:
// its `rm -rf build` ran under the deny rule, the bridge never saw it). The
// bridge now keeps each child in its asking mode (docs/agents.md): it moves
// Claude from auto to default at session/new, so the deny rule holds. This
// is the (bridge default x Claude auto) cell of the matrix.
test(
  `${claude.package}@${claude.version}: adapter's built-in start mode (auto): the bridge keeps Claude asking, deny rule Bash(rm *) holds`,
  { timeout: 120_000 },
  (t) => denyRmBuild(t, { ...claude, startMode: null }, "deny-rule-auto"),
);
