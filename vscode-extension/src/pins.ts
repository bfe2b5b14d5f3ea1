// Where the approved version of this workspace's own acpBridge.* values is
// kept. Trust covers a version of those values, as the bridge's does for
// .acp-bridge.yaml (docs/settings.md, "Trust covers a version of the file"):
// the bridge computes their digest and decides whether they apply as a
// trusted workspace's (_acp-bridge/settings/layers, settings/editorlayers.go);
// the extension only keeps the digest the person approved in globalState,
// which no agent sandbox can write, and sends it with the values.

/** Where pins are kept: vscode.ExtensionContext.globalState in the extension. */
export interface PinStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export class WorkspacePins {
  constructor(
    private readonly store: PinStore,
    /** One key per workspace (its folder or .code-workspace URI). */
    private readonly key: string,
  ) {}

  /** The approved digest, "" when none was ever approved for this workspace. */
  approved(): string {
    const v = this.store.get<unknown>(this.key);
    return typeof v === "string" ? v : "";
  }

  /** Stores a digest the bridge computed: the person approved those values, the extension wrote a grant into approved ones, or the bridge pinned a workspace first seen without values. */
  approve(digest: string): Thenable<void> {
    if (!digest) throw new Error("pins: an empty digest approves nothing");
    return this.store.update(this.key, digest);
  }
}
