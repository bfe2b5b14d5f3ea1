// The ACP connection to the bridge, over the official TypeScript SDK
// (@agentclientprotocol/sdk 2.x: a ClientApp connected to an ndJsonStream).
// Standard ACP methods use the SDK's typed client side: the built-in handlers
// of fs/read_text_file, fs/write_text_file and session/request_permission
// (params parsed and typed by the SDK's schema), and typed
// connection.agent.request/notify for initialize, session/*. session/update
// stays raw: the SDK validates it, but its parse drops fields newer than its
// schema (messageId, the bridge's additions), which the chat model reads.
// The bridge's _acp-bridge/* methods are typed by our own declarations
// (wire.ts: M, BridgeRequests, BridgeNotifications) through ext()/extNotify().
// No vscode import: the host injects fs and UI through ClientHandlers.

import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, RequestError, type ClientConnection, type ContentBlock as AcpContentBlock, type Stream } from "@agentclientprotocol/sdk";
import type { PermissionResponse } from "./approvals";
import type { ContentBlock } from "./promptBlocks";
import {
  bridgeMeta,
  isObj,
  M,
  META_KEY,
  str,
  type AgentEntry,
  type ApprovalResolvedWire,
  type ApprovalsRespondParams,
  type ApprovalsRespondResult,
  type BridgeNotifications,
  type BridgeRequests,
  type EditorMethods,
  type BridgeInitMeta,
  type Grant,
  type InForce,
  type ManagedReport,
  type ModeInfo,
  type Obj,
  type PendingApprovalWire,
  type PersistRequest,
  type PolicyExplainParams,
  type PolicyExplainResult,
  type StoredGrant,
  type WorkspaceTrustWire,
  parseWorkspaceTrust,
} from "./wire";
import type { SettingsLayersParams, SettingsLayersResult } from "./wire.gen";

export const CLIENT_INFO = { name: "acp-bridge-vscode", title: "ACP Bridge for VS Code", version: "0.1.0" };

export interface ClientHandlers {
  /** An open document's text, or _meta["acp-bridge"].notOpen (fsOps.ts): the bridge reads the disk. */
  readTextFile(p: { sessionId: string; path: string; line?: number | null; limit?: number | null }): Promise<{ content: string; _meta?: Obj }>;
  /** Applied to an open, dirty document, or _meta["acp-bridge"].notOpen: the bridge writes the disk. */
  writeTextFile(p: { sessionId: string; path: string; content: string }): Promise<void | { _meta?: Obj }>;
  /** A permission request the policy left to the person; resolves with the answer. */
  requestPermission(params: { sessionId: string; toolCall: Obj; options: unknown; _meta?: Obj }, signal: AbortSignal): Promise<PermissionResponse>;
  sessionUpdate(p: { sessionId: string; update: unknown }): void;
  approvalResolved(p: ApprovalResolvedWire): void;
  agentStatus(p: AgentEntry): void;
  persist(p: PersistRequest): Promise<{ persisted: true }>;
  /** The bridge refused the settings we sent (every bad key in one message); the previous ones stay. */
  settingsInvalid(error: string): void;
  /** Malformed permission rules: ignored (allow) or making their tool ask (deny, ask); never wider. */
  rulesInvalid?(problems: string[]): void;
  /** The workspace's trust as the bridge applies it, and what of .acp-bridge.yaml it ignores. */
  workspaceTrust?(t: WorkspaceTrustWire): void;
  /** A turn whose session/prompt had no requester any more (it ended while no window was attached). */
  turnEnded?(p: { sessionId: string; stopReason?: string; error?: unknown }): void;
}

/** _acp-bridge/attach's answer (docs/extension-surface.md, "Re-attaching"). */
export interface AttachResult {
  initialized: boolean;
  buffered: number;
  pendingRequests: number;
  detachedSeconds?: number;
  droppedBySession?: Record<string, number>;
  sessions: LiveSession[];
}

export interface LiveSession {
  sessionId: string;
  childSessionId?: string;
  agent: string;
  mode?: string;
  turnRunning: boolean;
  pendingApprovals: number;
}

export interface NewSessionResult {
  sessionId: string;
  agent?: string;
  mode?: string;
  /** The agent's own id of the session (what session/load takes after a bridge restart). */
  childSessionId?: string;
  raw: Obj;
}

const raw = <T>(p: unknown): T => (p ?? {}) as T;

/** The params of a method the bridge sends us, as generated from its declaration (read defensively all the same). */
type Params<K extends keyof EditorMethods> = Partial<EditorMethods[K]["params"]>;

/** Web streams over a child's stdin/stdout, framed as NDJSON by the SDK. */
export function stdioStream(stdin: NodeJS.WritableStream, stdout: NodeJS.ReadableStream): Stream {
  const output = Writable.toWeb(stdin as Writable) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(stdout as Readable) as ReadableStream<Uint8Array>;
  return ndJsonStream(output, input);
}

export class BridgeConnection {
  private constructor(private readonly conn: ClientConnection) {}

  static connect(stream: Stream, h: ClientHandlers): BridgeConnection {
    const app = client({ name: "acp-bridge-vscode" })
      .onRequest("fs/read_text_file", async ({ params }) => h.readTextFile({ sessionId: params.sessionId, path: params.path, line: params.line, limit: params.limit }))
      .onRequest("fs/write_text_file", async ({ params }) => {
        const r = await h.writeTextFile({ sessionId: params.sessionId, path: params.path, content: params.content });
        return r ?? {};
      })
      .onRequest("session/request_permission", async ({ params, signal }) =>
        h.requestPermission({ sessionId: params.sessionId, toolCall: params.toolCall as Obj, options: params.options, _meta: params._meta ?? undefined }, signal),
      )
      .onRequest(M.settingsPersist, raw<PersistRequest>, async ({ params }) => {
        try {
          return await h.persist(params);
        } catch (e) {
          if (e instanceof RequestError) throw e; // a chosen code (e.g. "declined") goes through as it is
          throw new RequestError(-32603, `settings/persist: ${(e as Error).message}`);
        }
      })
      .onNotification("session/update", raw<Obj>, ({ params }) => {
        const sessionId = str(params["sessionId"]);
        if (sessionId) h.sessionUpdate({ sessionId, update: params["update"] });
      })
      .onNotification(M.approvalResolved, raw<ApprovalResolvedWire>, ({ params }) => {
        if (params && typeof params.approvalId === "string") h.approvalResolved(params);
      })
      .onNotification(M.settingsInvalid, raw<Params<typeof M.settingsInvalid>>, ({ params }) => {
        h.settingsInvalid(str(params.error) ?? JSON.stringify(params));
      })
      .onNotification(M.rulesInvalid, raw<Params<typeof M.rulesInvalid>>, ({ params }) => {
        const problems = Array.isArray(params.problems) ? params.problems.filter((p): p is string => typeof p === "string") : [];
        if (problems.length) h.rulesInvalid?.(problems);
      })
      .onNotification(M.workspaceTrust, raw<Obj>, ({ params }) => {
        const t = parseWorkspaceTrust(params);
        if (t) h.workspaceTrust?.(t);
      })
      .onNotification(M.turnEnded, raw<Params<typeof M.turnEnded>>, ({ params }) => {
        const sessionId = str(params.sessionId);
        if (sessionId) h.turnEnded?.({ sessionId, stopReason: str(params.stopReason), error: params.error });
      })
      .onNotification(M.agentStatus, raw<AgentEntry>, ({ params }) => {
        if (params && typeof params.id === "string") h.agentStatus(params);
      })
      .onNotification("*", () => {});
    return new BridgeConnection(app.connect(stream));
  }

  get closed(): Promise<void> {
    return this.conn.closed;
  }

  get signal(): AbortSignal {
    return this.conn.signal;
  }

  close(): void {
    this.conn.close();
  }

  /** An _acp-bridge/* request, typed by wire.ts BridgeRequests. */
  private ext<K extends keyof BridgeRequests>(method: K, params: BridgeRequests[K]["params"]): Promise<BridgeRequests[K]["result"]> {
    return this.conn.agent.request<BridgeRequests[K]["result"], BridgeRequests[K]["params"]>(method, params);
  }

  /** An _acp-bridge/* notification, typed by wire.ts BridgeNotifications. */
  private extNotify<K extends keyof BridgeNotifications>(method: K, params: BridgeNotifications[K]): Promise<void> {
    return this.conn.agent.notify<BridgeNotifications[K]>(method, params);
  }

  /** initialize, telling the bridge whether VS Code trusts the workspace (vscode.workspace.isTrusted). */
  async initialize(workspaceTrusted = false): Promise<{ meta: BridgeInitMeta; raw: Obj }> {
    const res = await this.conn.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: CLIENT_INFO,
      // openDocumentFs: fs/* from this editor serve open documents only (fsOps.ts); the bridge does the disk.
      _meta: { [META_KEY]: { workspaceTrusted, openDocumentFs: true } },
    });
    const m = bridgeMeta(res);
    const meta: BridgeInitMeta = {
      version: str(m["version"]),
      defaultAgent: str(m["defaultAgent"]),
      agents: Array.isArray(m["agents"]) ? (m["agents"].filter(isObj) as unknown as BridgeInitMeta["agents"]) : undefined,
      // The bridge's modes, names and strictness order (its word over the generated table: wire.ts modeTable).
      modes: Array.isArray(m["modes"]) ? (m["modes"].filter((x) => isObj(x) && typeof x["id"] === "string" && Array.isArray(x["atLeastAsStrictAs"])) as unknown as ModeInfo[]) : undefined,
      workspaceTrust: parseWorkspaceTrust(m["workspaceTrust"]),
    };
    const managed = parseManaged(m["managed"]);
    if (managed) meta.managed = managed;
    const att = m["attach"];
    if (isObj(att) && typeof att["socket"] === "string" && typeof att["token"] === "string") {
      meta.attach = { socket: att["socket"], token: att["token"], pid: typeof att["pid"] === "number" ? att["pid"] : undefined, graceSeconds: typeof att["graceSeconds"] === "number" ? att["graceSeconds"] : undefined };
    }
    return { meta, raw: res as Obj };
  }

  /** _acp-bridge/workspace/didChangeTrust: VS Code granted (or revoked) trust at run time. */
  workspaceTrustChanged(trusted: boolean): Promise<void> {
    return this.extNotify(M.workspaceDidChangeTrust, { trusted });
  }

  /** _acp-bridge/attach: the first request on a bridge's socket (re-attaching after a window reload). */
  async attach(token: string): Promise<AttachResult> {
    const res = await this.ext(M.attach, { token });
    return {
      initialized: res["initialized"] === true,
      buffered: typeof res["buffered"] === "number" ? res["buffered"] : 0,
      pendingRequests: typeof res["pendingRequests"] === "number" ? res["pendingRequests"] : 0,
      detachedSeconds: typeof res["detachedSeconds"] === "number" ? res["detachedSeconds"] : undefined,
      droppedBySession: isObj(res["droppedBySession"]) ? (res["droppedBySession"] as Record<string, number>) : undefined,
      sessions: Array.isArray(res["sessions"]) ? (res["sessions"].filter(isObj) as unknown as LiveSession[]) : [],
    };
  }

  /** session/load of an agent's own session id (the agent replays its history as session/update). */
  async loadSession(sessionId: string, cwd: string, agent: string): Promise<NewSessionResult> {
    const res = await this.conn.agent.request("session/load", { sessionId, cwd, mcpServers: [], _meta: { [META_KEY]: { agent } } });
    const m = bridgeMeta(res);
    return { sessionId, agent: str(m["agent"]), mode: str(m["mode"]), childSessionId: str(m["childSessionId"]), raw: res as Obj };
  }

  async newSession(cwd: string, agent?: string, mode?: string): Promise<NewSessionResult> {
    const meta: Obj = {};
    if (agent) meta["agent"] = agent;
    if (mode) meta["mode"] = mode;
    const res = await this.conn.agent.request("session/new", { cwd, mcpServers: [], _meta: { [META_KEY]: meta } });
    const sessionId = str(res.sessionId);
    if (!sessionId) throw new Error("session/new: the bridge returned no sessionId");
    const m = bridgeMeta(res);
    return { sessionId, agent: str(m["agent"]), mode: str(m["mode"]), childSessionId: str(m["childSessionId"]), raw: res as Obj };
  }

  /** session/prompt: the text, or the blocks built with promptBlocks (text + attached context). */
  prompt(sessionId: string, text: string, blocks?: ContentBlock[]): Promise<{ stopReason?: string }> {
    const prompt: AcpContentBlock[] = blocks?.length ? blocks : [{ type: "text", text }];
    return this.conn.agent.request("session/prompt", { sessionId, prompt });
  }

  /** _acp-bridge/workspace/approve: the person approved this version (digest) of the workspace's .acp-bridge.yaml. */
  async approveWorkspaceFile(digest: string): Promise<WorkspaceTrustWire | undefined> {
    return parseWorkspaceTrust(await this.ext(M.workspaceApprove, { digest }));
  }

  /** _acp-bridge/policy/explain: what the policy would decide for one call (nothing runs). */
  explain(p: PolicyExplainParams): Promise<PolicyExplainResult> {
    return this.ext(M.policyExplain, p);
  }

  cancel(sessionId: string): Promise<void> {
    return this.conn.agent.notify("session/cancel", { sessionId });
  }

  setMode(sessionId: string, modeId: string): Promise<unknown> {
    return this.conn.agent.request("session/set_mode", { sessionId, modeId });
  }

  closeSession(sessionId: string): Promise<unknown> {
    return this.conn.agent.request("session/close", { sessionId });
  }

  async listAgents(): Promise<AgentEntry[]> {
    const res = await this.ext(M.agentsList, {});
    return Array.isArray(res.agents) ? (res.agents.filter(isObj) as unknown as AgentEntry[]) : [];
  }

  async listApprovals(): Promise<PendingApprovalWire[]> {
    const res = await this.ext(M.approvalsList, {});
    return Array.isArray(res.approvals) ? (res.approvals.filter(isObj) as unknown as PendingApprovalWire[]) : [];
  }

  respond(params: ApprovalsRespondParams): Promise<ApprovalsRespondResult> {
    return this.ext(M.approvalsRespond, params);
  }

  async listGrants(): Promise<Grant[]> {
    const res = await this.ext(M.grantsList, {});
    return Array.isArray(res.grants) ? (res.grants.filter(isObj) as unknown as Grant[]) : [];
  }

  /** _acp-bridge/policy/check: the bridge's engine compiles one rule (nothing is stored). */
  async checkRule(rule: string, list: "allow" | "ask" | "deny" = "allow"): Promise<{ ok: boolean; error?: string }> {
    const res = await this.ext(M.policyCheck, { rule, list });
    return { ok: res.ok === true, error: str(res.error) };
  }

  /** Rules and bypasses in the bridge's own config files. */
  async storedGrants(): Promise<StoredGrant[]> {
    const res = await this.ext(M.grantsStored, {});
    return [
      ...(res.rules ?? []).map((r): StoredGrant => ({ kind: "rule", scope: r.scope === "workspace" ? "workspace" : "user", file: r.file ?? "", agent: r.agent, list: r.list, rule: r.rule })),
      ...(res.bypass ?? []).map((b): StoredGrant => ({ kind: "bypass", scope: b.scope === "workspace" ? "workspace" : "user", file: b.file ?? "", agent: b.agent })),
    ];
  }

  /** Every mode, bypass and rule in force, as the bridge merged them (layers, workspace narrowing, pins, runtime grants). */
  async inForce(): Promise<InForce[]> {
    const res = await this.ext(M.grantsStored, {});
    return Array.isArray(res.inForce) ? res.inForce : [];
  }

  removeStoredGrant(g: StoredGrant): Promise<unknown> {
    return this.ext(M.grantsRemoveStored, { kind: g.kind, scope: g.scope, agent: g.agent, list: g.list, rule: g.rule });
  }

  revokeGrant(sessionId: string, rule: string): Promise<unknown> {
    return this.ext(M.grantsRevoke, { sessionId, rule });
  }

  settingsDidChange(settings: unknown): Promise<void> {
    return this.extNotify(M.settingsDidChange, { settings });
  }

  /** VS Code's raw layers of the acpBridge.* settings: the bridge merges, narrows and pins them (preview: applies nothing). */
  settingsLayers(p: SettingsLayersParams): Promise<SettingsLayersResult> {
    return this.ext(M.settingsLayers, p);
  }
}

/** _meta["acp-bridge"].managed of initialize: the organisation's managed tier (docs/org.md), shown as not changeable. */
export function parseManaged(v: unknown): ManagedReport | undefined {
  if (!isObj(v) || !Array.isArray(v["files"])) return undefined;
  const strs = (x: unknown): string[] => (Array.isArray(x) ? x.filter((e): e is string => typeof e === "string") : []);
  return {
    files: strs(v["files"]),
    problems: strs(v["problems"]),
    disableBypassPermissionsMode: v["disableBypassPermissionsMode"] === true,
    allowManagedPermissionRulesOnly: v["allowManagedPermissionRulesOnly"] === true,
    allowedAgents: Array.isArray(v["allowedAgents"]) ? strs(v["allowedAgents"]) : undefined,
    modeFloor: typeof v["modeFloor"] === "string" ? v["modeFloor"] : undefined,
    ignored: Array.isArray(v["ignored"]) ? (v["ignored"].filter(isObj) as unknown as ManagedReport["ignored"]) : undefined,
    notes: strs(v["notes"]),
  };
}
