// Pending-approval bookkeeping on the host: the session/request_permission
// requests of the bridge that are still waiting for our JSON-RPC answer, keyed
// by approvalId, and the choice of how to answer a click (respond to the live
// request, or _acp-bridge/approvals/respond for an approval we only know from
// _acp-bridge/approvals/list). Pure; runs on the extension host's thread.

import type { Scope } from "./protocol";
import { META_KEY, type ApprovalsRespondParams, type Obj } from "./wire";

export type PermissionResponse = {
  outcome: { outcome: "selected"; optionId: string } | { outcome: "cancelled" };
  _meta?: Obj;
};

/** The answer to session/request_permission for one chosen option. */
export function permissionResponse(optionId: string, rule?: string, scope?: Scope, reason?: string): PermissionResponse {
  const res: PermissionResponse = { outcome: { outcome: "selected", optionId } };
  const extra: Partial<Record<keyof ApprovalsRespondParams, string>> = {};
  if (rule !== undefined && rule.trim()) extra.rule = rule.trim();
  if (scope) extra.scope = scope;
  if (reason !== undefined && reason.trim()) extra.reason = reason.trim();
  if (Object.keys(extra).length) res._meta = { [META_KEY]: extra };
  return res;
}

/** Params of _acp-bridge/approvals/respond. */
export function respondParams(approvalId: string, optionId: string, rule?: string, scope?: Scope, reason?: string): ApprovalsRespondParams {
  const p: ApprovalsRespondParams = { approvalId, optionId };
  if (rule !== undefined && rule.trim()) p.rule = rule.trim();
  if (scope) p.scope = scope;
  if (reason !== undefined && reason.trim()) p.reason = reason.trim();
  return p;
}

export const CANCELLED: PermissionResponse = { outcome: { outcome: "cancelled" } };

export class LiveRequests {
  private live = new Map<string, (r: PermissionResponse) => void>();

  /**
   * Registers a live request and resolves with its answer. An aborted signal
   * (the bridge sent $/cancel_request, or the connection closed) answers
   * cancelled and calls onAbort so the card can be closed.
   */
  wait(approvalId: string, signal?: AbortSignal, onAbort?: () => void): Promise<PermissionResponse> {
    return new Promise((resolve) => {
      const done = (r: PermissionResponse) => {
        if (this.live.get(approvalId) !== done) return;
        this.live.delete(approvalId);
        signal?.removeEventListener("abort", abort);
        resolve(r);
      };
      const abort = () => {
        if (!this.live.has(approvalId)) return;
        done(CANCELLED);
        onAbort?.();
      };
      this.live.set(approvalId, done);
      if (signal?.aborted) abort();
      else signal?.addEventListener("abort", abort, { once: true });
    });
  }

  has(approvalId: string): boolean {
    return this.live.has(approvalId);
  }

  get size(): number {
    return this.live.size;
  }

  /** Answers a live request; false when there is none (answer through approvals/respond instead). */
  answer(approvalId: string, optionId: string, rule?: string, scope?: Scope, reason?: string): boolean {
    const done = this.live.get(approvalId);
    if (!done) return false;
    done(permissionResponse(optionId, rule, scope, reason));
    return true;
  }

  /** The approval was resolved elsewhere: release the dangling request with cancelled. */
  release(approvalId: string): boolean {
    const done = this.live.get(approvalId);
    if (!done) return false;
    done(CANCELLED);
    return true;
  }

  releaseAll(): void {
    for (const id of [...this.live.keys()]) this.release(id);
  }
}

/** The option to use for a one-click Allow / Deny (notifications): by kind, never by guess. */
export function quickOption(options: { optionId: string; kind: string }[], want: "allow" | "deny"): string | undefined {
  const kind = want === "allow" ? "allow_once" : "reject_once";
  return options.find((o) => o.kind === kind)?.optionId;
}
