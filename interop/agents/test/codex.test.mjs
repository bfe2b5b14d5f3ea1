// Codex (codex-acp) behind the bridge, offline, against the fake OpenAI
// Responses API (lib/fake-openai-responses.mjs). Scenarios: lib/suite.mjs.
import { agentSuite } from "../lib/suite.mjs";
import { codex } from "../lib/agents.mjs";

agentSuite(codex);
