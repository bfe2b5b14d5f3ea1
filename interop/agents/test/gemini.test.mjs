// Gemini CLI (gemini --acp) behind the bridge, offline, against the fake
// Gemini API (lib/fake-gemini.mjs). Scenarios: lib/suite.mjs.
import { agentSuite } from "../lib/suite.mjs";
import { gemini } from "../lib/agents.mjs";

agentSuite(gemini);
