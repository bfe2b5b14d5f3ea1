// Approval coordination on the host: turns the bridge's permission requests
// into cards, answers a click by the live JSON-RPC request when there is one
// or by _acp-bridge/approvals/respond otherwise (notifications, cards that
// came back from approvals/list), closes cards on approval/resolved, answers
// cancelled after session/cancel, and reconciles with approvals/list after a
// webview reload or a bridge restart. Pure (no vscode): the host injects the
// bridge calls and the UI side effects. Runs on the extension host's thread.

import { LiveRequests, respondParams, type PermissionResponse } from "./approvals";
import type { ChatStore } from "./model";
import { listEntryToParams } from "./model";
import type { Scope } from "./protocol";
import { META_KEY, type ApprovalResolvedWire, type ApprovalsRespondParams, type Obj, type PendingApprovalWire } from "./wire";

export interface CoordinatorDeps {
  store: ChatStore;
  /** _acp-bridge/approvals/respond; rejects with the bridge's error (e.g. "already resolved by timeout"). */
  respond(params: ApprovalsRespondParams): Promise<unknown>;
  /** _acp-bridge/approvals/list. */
  listApprovals(): Promise<PendingApprovalWire[]>;
  /** session/cancel (a notification). */
  cancelSession(sessionId: string): Promise<void>;
  /** The set of pending approvals changed (status bar). */
  changed(): void;
  /** A new card is pending: notify if the person is elsewhere. */
  arrived(approvalId: string): void;
}

export type PermissionParams = { sessionId: string; toolCall: Obj; options: unknown; _meta?: Obj };

/** allow / deny / cancelled for an option kind; an unknown kind is never "allow". */
export function decisionOfKind(kind: string | undefined): "allow" | "deny" | "cancelled" {
  if (kind === "allow_once" || kind === "allow_always") return "allow";
  if (kind === "reject_once" || kind === "reject_always") return "deny";
  return "cancelled";
}

export class ApprovalCoordinator {
  readonly live = new LiveRequests();
  private synthetic = 0;

  constructor(private readonly d: CoordinatorDeps) {}

  /** session/request_permission from the bridge: a card, and the answer when someone gives it. */
  onRequest(params: PermissionParams, signal?: AbortSignal): Promise<PermissionResponse> {
    const meta = (params._meta?.[META_KEY] as Obj | undefined) ?? {};
    if (typeof meta["approvalId"] !== "string") {
      // Without the bridge's meta (a plain ACP agent behind it?) the card is still shown and answered through this request only.
      const approvalId = `local-${++this.synthetic}`;
      params = { ...params, _meta: { ...(params._meta ?? {}), [META_KEY]: { ...meta, approvalId } } };
    }
    const card = this.d.store.addApproval(params);
    if (!card) return Promise.resolve({ outcome: { outcome: "cancelled" } });
    const answer = this.live.wait(card.approvalId, signal, () => {
      // The bridge withdrew the request ($/cancel_request) or the connection closed; the
      // bridge's approval/resolved, when it comes, says why (timeout, shutdown, ...).
      this.d.store.resolveApproval({ approvalId: card.approvalId, decision: "cancelled", by: "withdrawn" });
      this.d.changed();
    });
    this.d.changed();
    this.d.arrived(card.approvalId);
    return answer;
  }

  /** _acp-bridge/approval/resolved: close the card (or add a quiet line) and release a dangling request. */
  onResolved(r: ApprovalResolvedWire): void {
    const card = this.d.store.approval(r.approvalId);
    // Keep the local "expired: turn cancelled" when the bridge reports the cancelled answer we sent.
    if (!(card?.resolution?.by === "cancel" && r.decision === "cancelled")) this.d.store.resolveApproval(r);
    this.live.release(r.approvalId);
    this.d.changed();
  }

  /**
   * The person chose an option. From the card: through the live request when
   * there is one, else approvals/respond. viaRespond (notifications, other
   * surfaces) always uses approvals/respond. Returns an error message or undefined.
   */
  async answer(approvalId: string, optionId: string, opts: { rule?: string; scope?: Scope; reason?: string; viaRespond?: boolean } = {}): Promise<string | undefined> {
    const card = this.d.store.approval(approvalId);
    if (card?.state === "resolved") return "that approval was already answered";
    const kind = card?.options.find((o) => o.optionId === optionId)?.kind;
    const decision = decisionOfKind(kind);
    // A reason goes only with a deny: it is the person's word to the agent's model.
    const reason = decision === "deny" && opts.reason?.trim() ? opts.reason.trim() : undefined;
    const done = () => this.d.store.resolveApproval({ approvalId, decision, by: "user", optionId, rule: opts.rule });
    this.d.store.markAnswering(approvalId, optionId, reason);
    try {
      if (!opts.viaRespond && this.live.answer(approvalId, optionId, opts.rule, opts.scope, reason)) {
        done();
        return undefined;
      }
      try {
        await this.d.respond(respondParams(approvalId, optionId, opts.rule, opts.scope, reason));
      } catch (e) {
        const msg = (e as Error).message;
        this.d.store.approvalError(approvalId, msg);
        return msg;
      }
      done();
      return undefined;
    } finally {
      this.d.changed();
    }
  }

  /**
   * session/cancel for a chat's session, then (as ACP requires of a client)
   * cancelled for every permission request of that session still waiting.
   */
  async cancelChat(chatId: string): Promise<void> {
    const chat = this.d.store.chat(chatId);
    if (!chat?.sessionId) return;
    await this.d.cancelSession(chat.sessionId);
    for (const a of this.d.store.pendingApprovals()) {
      if (a.chatId === chatId && this.live.release(a.approvalId)) {
        this.d.store.resolveApproval({ approvalId: a.approvalId, decision: "cancelled", by: "cancel" });
      }
    }
    this.d.changed();
  }

  /**
   * Brings the cards in line with the bridge (webview reload, late open,
   * restart): approvals/list entries we lack become cards (answered by
   * approvals/respond), and cards that were pending before the call, are not
   * live here and are no longer listed were resolved elsewhere.
   */
  async reconcile(): Promise<void> {
    const before = new Set(this.d.store.pendingApprovals().map((a) => a.approvalId));
    const list = await this.d.listApprovals();
    const listed = new Set(list.map((a) => a.approvalId));
    for (const e of list) {
      if (this.d.store.approval(e.approvalId)) continue;
      if (this.d.store.addApproval(listEntryToParams(e), e.agent)) this.d.arrived(e.approvalId);
    }
    for (const id of before) {
      const a = this.d.store.approval(id);
      if (a && a.state !== "resolved" && !listed.has(id) && !this.live.has(id) && !id.startsWith("local-")) {
        this.d.store.resolveApproval({ approvalId: id, decision: "cancelled", by: "elsewhere" });
      }
    }
    this.d.changed();
  }

  /** Number of cards waiting for the person. */
  pendingCount(): number {
    return this.d.store.pendingApprovals().filter((a) => a.state === "pending").length;
  }
}
