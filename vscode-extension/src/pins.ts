// Trust covers a version of the workspace's own acpBridge.* values, as the
// bridge's does for .acp-bridge.yaml (docs/settings.md, "Trust covers a
// version of the file"). VS Code's workspace trust is per folder: once given,
// whatever .vscode/settings.json later says would count. An agent can create
// that file when it does not exist (only existing files are read-only in its
// sandbox), so the values are pinned (a digest in globalState, which no agent
// sandbox can write) when the workspace is first seen trusted; values that
// differ later only narrow, as an untrusted workspace's, until the person
// approves them. The extension's own writes of a grant keep approved values
// approved.

import { createHash } from "node:crypto";

/** The digest of no workspace values at all. */
export const DIGEST_ABSENT = "absent";

/** What is approved of a workspace never seen before: nothing yet. */
export const DIGEST_NONE = "none";

/** The workspace-level values of the acpBridge settings that can change the policy, by key: [workspace, folder]. */
export type WorkspaceValues = Record<string, [unknown, unknown]>;

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** sha256 of the values that are set, or DIGEST_ABSENT when none is. */
export function workspaceValuesDigest(values: WorkspaceValues): string {
  const set: Record<string, unknown> = {};
  for (const [k, [ws, folder]] of Object.entries(values)) {
    if (ws !== undefined || folder !== undefined) set[k] = [ws ?? null, folder ?? null];
  }
  if (!Object.keys(set).length) return DIGEST_ABSENT;
  return "sha256:" + createHash("sha256").update(canonicalJson(set)).digest("hex");
}

/** Where pins are kept: vscode.ExtensionContext.globalState in the extension. */
export interface PinStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export interface PinCheck {
  ok: boolean;
  /** The approved digest when !ok. */
  approved?: string;
}

export class WorkspacePins {
  constructor(
    private readonly store: PinStore,
    /** One key per workspace (its folder or .code-workspace URI). */
    private readonly key: string,
  ) {}

  /**
   * Whether values with this digest may apply as a trusted workspace's. No
   * values at all are always fine (nothing loosens); the first check of a
   * workspace without values pins that. Trusting is not approving: a
   * workspace first seen WITH values (a cloned repository's
   * .vscode/settings.json) gets no pin, so its values only narrow until the
   * person approves exactly that version (narrowing values apply meanwhile,
   * as an untrusted workspace's do).
   */
  check(digest: string): PinCheck {
    const pinned = this.store.get<string>(this.key);
    if (pinned === undefined) {
      if (digest !== DIGEST_ABSENT) return { ok: false, approved: DIGEST_NONE };
      void this.store.update(this.key, digest);
      return { ok: true };
    }
    if (digest === DIGEST_ABSENT || pinned === digest) return { ok: true };
    return { ok: false, approved: pinned };
  }

  /** The person approved these values (or the extension wrote a grant into approved ones). */
  approve(digest: string): Thenable<void> {
    return this.store.update(this.key, digest);
  }
}
