// OpenCode (opencode acp) behind the bridge, offline, against the fake
// OpenAI Chat Completions API (lib/fake-openai-chat.mjs). Scenarios:
// lib/suite.mjs.
import { agentSuite } from "../lib/suite.mjs";
import { opencode } from "../lib/agents.mjs";

agentSuite(opencode);
