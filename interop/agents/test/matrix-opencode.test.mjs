// The matrix of opencode behind the bridge (lib/matrix.mjs): every mode column x
// every damage attempt, one bridge and one agent process for all cells.
import { agentMatrix } from "../lib/matrix.mjs";
import { opencode } from "../lib/agents.mjs";

agentMatrix(opencode);
