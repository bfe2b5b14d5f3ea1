// Stopping everything a code-server started, at once: code-server's own
// process group, and the processes that left it on purpose: the bridge (its
// own process group, so that it outlives a window for its grace period,
// docs/vscode-extension.md "Chats that last") and the agents it runs. Found
// through /proc: every descendant of code-server, plus every process carrying
// the run's marker in its environment (a process whose parent died is
// reparented and no longer a descendant, but keeps its environment). Linux
// only. Used by codeserver.mjs (`make demo`'s Ctrl-C, every e2e file's close).
import { readdirSync, readFileSync } from "node:fs";

/** The environment variable that marks every process of one code-server run. */
export const RUN_MARKER = "ACPB_CODE_SERVER_RUN";

/** {ppid, pgrp, state, start} of a process from /proc/<pid>/stat, or undefined when it is gone. */
export function procStat(pid) {
  let s;
  try {
    s = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return { state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), start: f[19] };
}

/** Whether the process is still running: it exists, is not a zombie, and is the same process (start time). */
export function alive(pid, start) {
  const st = procStat(pid);
  return !!st && st.state !== "Z" && st.state !== "X" && (start === undefined || st.start === start);
}

function allPids() {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

function hasMarker(pid, marker) {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker);
  } catch {
    return false; // gone, or another user's
  }
}

/**
 * The running processes of a run: the descendants of roots and, with marker
 * (`NAME=value`), every process whose environment holds it. Returns a Map
 * pid -> {start, pgrp, cmd}.
 */
export function runProcesses(roots, marker) {
  const stats = new Map();
  for (const pid of allPids()) {
    const st = procStat(pid);
    if (st && st.state !== "Z") stats.set(pid, st);
  }
  const children = new Map();
  for (const [pid, st] of stats) {
    if (!children.has(st.ppid)) children.set(st.ppid, []);
    children.get(st.ppid).push(pid);
  }
  const out = new Map();
  const add = (pid) => {
    if (out.has(pid) || !stats.has(pid)) return;
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    } catch {
      /* gone */
    }
    out.set(pid, { start: stats.get(pid).start, pgrp: stats.get(pid).pgrp, cmd });
    for (const c of children.get(pid) ?? []) add(c);
  };
  for (const r of roots) add(r);
  if (marker) for (const pid of stats.keys()) if (pid !== process.pid && hasMarker(pid, marker)) add(pid);
  out.delete(process.pid);
  return out;
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone */
  }
}

/**
 * Stops a run: SIGTERM to every process of it (and to their process groups)
 * at once, again to any that appear meanwhile; SIGKILL to what still runs
 * after graceMs. Resolves when none runs, or after graceMs + killMs with the
 * survivors (empty when all are gone).
 */
export async function stopRun(rootPid, marker, { graceMs = 5000, killMs = 3000 } = {}) {
  const known = new Map();
  const sigterm = () => {
    const found = runProcesses([rootPid, ...known.keys()].filter((p) => alive(p, known.get(p)?.start)), marker);
    for (const [pid, p] of found) {
      if (known.has(pid) && known.get(pid).start === p.start) continue;
      known.set(pid, p);
      if (p.pgrp > 1 && p.pgrp !== process.pid && p.pgrp !== processGroup()) signal(-p.pgrp, "SIGTERM");
      signal(pid, "SIGTERM");
    }
  };
  const running = () => [...known].filter(([pid, p]) => alive(pid, p.start));
  const t0 = Date.now();
  sigterm();
  while (running().length && Date.now() - t0 < graceMs) {
    await new Promise((r) => setTimeout(r, 50));
    sigterm();
  }
  for (const [pid] of running()) signal(pid, "SIGKILL");
  const t1 = Date.now();
  while (running().length && Date.now() - t1 < killMs) await new Promise((r) => setTimeout(r, 50));
  return running().map(([pid, p]) => ({ pid, ...p }));
}

/** This process's own group (never signalled: it is the launcher's, or the test runner's). */
function processGroup() {
  return procStat(process.pid)?.pgrp;
}
