package bench

// notes is the analysis behind the numbers. It is written by hand (the
// profiles are not rerun by acp-bench): keep it in step when the forwarding
// path changes. Profile with the in-process benchmarks of bench/ (see
// docs/testing.md).
const notes = `## Where the time goes

Profiles of the forwarding path (` + "`" + `go test -run '^$' -bench 'InProcess' -cpuprofile cpu.out ./bench/` + "`" + `, a bridge in
the test process, its client and the bench agent's pipes included) show what each step bought, per forwarded
message in process:

| step | 100 B chunk | 64 KiB diff | approval round trip |
|---|---|---|---|
| first measured: jsonrpc2 decodes params into ` + "`" + `interface{}` + "`" + ` and encodes them ~4 more times | 78 µs | 6.9 ms | |
| notifications bypass jsonrpc2; raw params written as they are | 22 µs | 3.0 ms | |
| each line validated once, then scanned; session id spliced in; batched, bounded editor queue | 5.6 µs | 0.95 ms | 510 µs |
| ` + "`" + `internal/jsonscan` + "`" + `: a validator 3–6× faster than ` + "`" + `json.Valid` + "`" + ` (fuzzed to agree with it); one scan per update; tool-call cache read with the scanner and bounded in bytes | 3.4 µs | 0.31 ms | |
| lines go into the queue in parts (one copy), double-buffered; method and kind names read without allocating | 2.3 µs | 0.28 ms | |
| requests and responses skip jsonrpc2's JSON too; the approval's goroutine takes the editor's answer itself; fewer failing symlink walks | | | 375 µs |
| pipes grown to 1 MiB (` + "`" + `internal/pipesize` + "`" + `); one pass per line (` + "`" + `jsonscan.Scan` + "`" + ` validates and records members three levels deep, handed to the bridge as ` + "`" + `acp.SessionUpdate` + "`" + `); no per-update allocation but the params copy; tool-call members cached from that pass; slimming reads each item once | 1.6 µs | 0.22 ms | 370 µs |
| a child's read loop writes its batch of updates to the editor itself, just before its next read(2), as much as the non-blocking pipe takes at once (` + "`" + `QueueWriter.Flush` + "`" + `), instead of waking the writer goroutine; the editor's stdin and stdout served from Go's poller. In process the editor's end is an ` + "`" + `io.Pipe` + "`" + `, which cannot be written without waiting, so there the read loop only wakes the writer goroutine later: see the bridge's writes per message and context switches above instead | 1.8–2.3 µs | 0.23 ms | 390–415 µs |

- **Streaming.** The bridge now does, per line: one UTF-8 pass, one pass that validates the JSON and
  records where the members of the message, its params and the update sit, one copy of the params
  (kept: the tool-call cache and held updates refer to them) and one copy into the editor queue. The
  read(2) and write(2) of each byte are the rest.
- **Pipe buffers.** Linux pipes hold 64 KiB. With that, a 64 KiB diff fills the pipe: the writer
  blocks until the reader has taken the whole message, so every process wakes up once per message.
  The bridge grows the pipes it owns (the agent's stdout) and the editor's stdin and stdout when they
  are pipes, to 1 MiB. The bench client grows its own pipes in **both** modes: the direct pair with
  64 KiB pipes streams diffs at about 70% of its speed with 1 MiB ones (measured 4025 vs 5728 diffs/s),
  and a baseline the bridge is allowed to beat by tuning what the direct pair does not have would flatter it.
  The bridge reads its children through a 256 KiB buffer, so a whole 64 KiB diff line is validated where
  read(2) put it, without a copy.
- **Where the gap is: placement, not work.** Three busy processes share 2 CPUs, and the scheduler often
  wakes a reader on the CPU of the process that woke it, preempting that one: unpinned, the agent is
  preempted about once per diff (1,000 involuntary switches per 1,000 diffs, against about 250 direct), and
  the cores are busy 1.5–1.6 of 2. Pinned (agent alone on one CPU, bridge and client on the other), the
  agent is preempted about 0.13 times per diff, the cores are busy about 1.85 of 2, and the same binaries
  reach the aim with room. Cutting the bridge's work does not close the unpinned gap: with the validation of
  long strings skipped altogether (an experiment, never a candidate to keep) bridge CPU per diff fell from
  about 145 to 115–125 µs and the unpinned diff ratio stayed at 0.79 and 0.83 in two 5-run measurements.
  Of the bridge's CPU per diff, 40–50% is system time, the one more pipe hop the bridged path has (a
  read(2) and a write(2) of 64 KiB, the pipe pages allocated and freed, the wake-ups); most of the rest is
  validation (about 2.9 GB/s on this text; see ` + "`" + `BenchmarkValid` + "`" + ` in internal/jsonscan) and two copies.
- **Measured and not kept.** Each of these was tried on this machine and reverted:
  writing each line from the child's read loop when the editor queue is idle (saves a wake-up but ends
  batching: chunks fell to 0.29 of direct; what is kept writes once per read(2), before the next);
  ` + "`" + `GOMAXPROCS=1` + "`" + ` in the bridge (` + "`" + `acp-bench -bridge-env GOMAXPROCS=1` + "`" + `): bridge CPU per chunk 1.6–1.7 → 1.2–1.4 µs
  and per diff 145–160 → 125–130 µs, but unpinned ratios stayed within the noise (chunks 0.83 and 0.91, diffs
  0.87 and 0.80 in two 5-run measurements), and a prompt's round trip was 60–100 µs slower at p50 (an
  approval's, once stdin was in the poller, was not); pinned runs start the bridge on one CPU, where Go
  chooses GOMAXPROCS 1 by itself; a 32-byte unrolled string loop and a
  ` + "`" + `bytes.IndexByte` + "`" + `-driven string validator (faster on text with rare escapes, 1.3–1.7× slower on code,
  whose ` + "`" + `\n` + "`" + `, ` + "`" + `\t` + "`" + `, ` + "`" + `\"` + "`" + ` escapes come every few bytes); ` + "`" + `GOGC=off` + "`" + ` (slower: fresh pages
  fault in); lending a session/update's params to the bridge straight from the read buffer instead of
  copying them (no allocation per chunk, a copy only when an update is kept): in-process chunk throughput
  was 3–6% lower in four alternating runs, so the copy stays; a pause of about 100 µs (nanosleep: Go's
  timers sleep at least 1 ms here) before reading a child again after a short read that did not block, so
  that a dense stream is read in larger batches: three alternating pairs of full runs gave chunks 0.74/0.70,
  0.75/0.78, 0.83/0.86 and diffs 0.79/0.81, 0.79/0.75, 0.86/0.79 (without/with), no difference beyond the
  run-to-run spread of identical code.
- **Memory while streaming diffs.** ` + "`" + `ToolCallCache` + "`" + ` keeps at most 1,024 calls in flight and 8 MiB per
  session; older entries are slimmed to what normalisation reads (diff paths, not texts), then dropped.
  2,000 distinct 64 KiB diffs once put VmHWM at 156 MiB; now about 32 MiB.
- **Approvals.** What is left per approval is policy evaluation (the shell parse, symlink resolution of
  each path: ` + "`" + `lstat` + "`" + ` calls), the forwarded request and its answer (one marshal, one decode each way), the
  audit line and the resolved notice, and four hand-offs between goroutines and processes (agent → bridge
  → editor → bridge → agent) on 2 shared cores.
- **Pending approvals** cost what "Per pending approval" in section 3 says: the request's goroutine (its stack grew
  while decoding and evaluating and stays grown while it waits) and the heap of the forwarded request,
  card metadata and timer. Since the approval's own goroutine takes the editor's answer there is one
  goroutine per pending approval, not two. This matters only at thousands of open cards.
- **2026-11-26, after the figures fell** (profiles of ` + "`" + `BenchmarkEvaluate*` + "`" + `, ` + "`" + `BenchmarkInProcessApproval` + "`" + ` and
  ` + "`" + `BenchmarkInProcessBridge` + "`" + ` on a machine shared with other work; ratios against 756c8e8 are in "Against
  the baseline" when the report was made with ` + "`" + `make bench BASE=756c8e8` + "`" + `). The policy's time had gone
  into checks added since: every argument of a command is read as a possible file and met by the Read
  deny and ask rules (each rule's glob tried for each argument), long options listed and sorted for every
  command, a subcommand's declaration split into words at every lookup, a sub-command's words joined
  again to compare; ` + "`" + `policy.Evaluate` + "`" + ` went from 28 to 16 allocations for the simple call and from 281 to 58
  for the ten-part one (path rules indexed by a literal segment, ` + "`" + `policy/pathindex.go` + "`" + `; the rest in
  docs/policy.md, "One reading per call"), about 40% of its CPU time before (CPU time of runs alternating with the tree before), still above 756c8e8's.
  An approval no longer reads the command more than once: the permission flow's policy stage takes the
  verdict, the firmness of a default ask, the card's suggestions and the session grant from one
  ` + "`" + `policy.Decide` + "`" + ` (docs/policy.md, "One reading per call"; it read it three to five times: ` + "`" + `Evaluate` + "`" + `, a
  second ` + "`" + `Evaluate` + "`" + ` under bypassPermissions for a default ask, ` + "`" + `SuggestRules` + "`" + ` for the card and
  ` + "`" + `SessionGrantRules` + "`" + ` twice on "Allow for this session"). The policy figures of that day are in
  "Policy evaluation, same run" below. Each agent start
  scans /run, /tmp, /var/tmp and /dev/shm six levels deep for sockets (` + "`" + `sandbox.hostIPC` + "`" + `): half the
  CPU of an in-process streaming benchmark's setup on a machine whose /tmp holds other work's trees.
- **2026-11-26, the approval round trip and the pinned rows** (` + "`" + `perf record -g` + "`" + ` of the real binary through 1,000
  approvals, ` + "`" + `strace -c` + "`" + `, bridge CPU from ` + "`" + `/proc` + "`" + `, alternating the binaries before and after on the same script).
  An approval's 4.3 ms was not a wait but CPU in the policy's check of a write against the protected places that
  are symlinks (` + "`" + `realProbeList` + "`" + `, policy/env.go): for each of about 150 protected places (under the workspace root,
  the working directory and home, the system's, the settings files) it resolved the real path with
  ` + "`" + `filepath.EvalSymlinks` + "`" + `, one ` + "`" + `lstat` + "`" + ` per component, 500–600 ` + "`" + `lstat` + "`" + ` calls per decision (the shared prefixes,
  /tmp, home, the workspace, hundreds of times), and it built that list of places (the breakers run over each) at
  every decision; a system call costs several µs on this VM. Now the bridge hands the engine a file system that
  remembers each ` + "`" + `lstat` + "`" + ` and each parent directory's resolution for one decision only (` + "`" + `bridge/callfs.go` + "`" + `, sealed
  when the decision is made: an Env kept for a card's session grant reads the disk again; nothing is remembered
  from one call to the next, so a link made between two calls is seen by the second), and the list of places,
  which depends on the root, the working directory, home and the protected files alone, is kept per environment
  (` + "`" + `policy/protected.go` + "`" + `). Bridge CPU per approval 5.3–7.4 ms → 1.9–2.5 ms, ` + "`" + `lstat` + "`" + ` calls 168k → 41k for start-up
  and 1,000 approvals. What is left is one ` + "`" + `lstat` + "`" + ` per protected place per decision (any of them may have become a
  link since the last call), about 150; 756c8e8 had no such check. The pinned rows were wrong: in the OS sandbox
  the agent is not the bridge's child (bubblewrap and its init stand between), and the harness pinned the
  bridge's one child (bubblewrap, asleep), leaving the agent on the bridge's and the client's CPU (cores busy
  0.48 of 2) and counting no agent CPU; it now pins and counts the whole chain (` + "`" + `bench.AgentChain` + "`" + `). Not profiled
  yet: the diffs (0.32–0.39 of direct against 0.63 for 756c8e8 in the run above) and the part of the gap the
  sandboxed agent itself accounts for.
- **2026-11-27, the protected places, the approval's stack, the scale scenario** (` + "`" + `make bench BASE=756c8e8
  BENCHFLAGS="-only latency -runs 3"` + "`" + ` and ` + "`" + `-only scale -runs 3 -scale-runs 3` + "`" + `, load average 15–24 on the 2 CPUs;
  profiles of ` + "`" + `BenchmarkInProcessApproval` + "`" + ` and ` + "`" + `BenchmarkInProcessPending` + "`" + `). The one ` + "`" + `lstat` + "`" + ` per protected place
  per decision (about 150: has any become a link since the last call?) is gone when nothing changed: the bridge
  keeps where each place leads while inotify reports no change to a directory entry its resolution read, and a
  decision makes one ` + "`" + `poll(2)` + "`" + ` (the inotify queue and ` + "`" + `/proc/self/mountinfo` + "`" + `) instead
  (` + "`" + `bridge/placewatch_linux.go` + "`" + `; why that is the same check, and what is still resolved at every decision:
  docs/policy.md, "Protected places that are links"); a decision of ` + "`" + `TestPlaceWatchSavesTheLstats` + "`" + ` reads 8 paths
  or fewer instead of every place. Same run against 756c8e8: approval round trip added p50 647 µs (636–748)
  against 510 µs (431–539), p99 5.1 ms against 4.0 ms; bridge CPU per approval (from ` + "`" + `/proc` + "`" + `, now reported
  beside the latencies) 740 µs (690–810) against 430 µs (370–520). Against the tree before (b00596d), in
  another run (` + "`" + `BASE=b00596d` + "`" + `): approval round trip added p50 642 µs (627–656) against 1,549 µs (1,536–1,575),
  p99 3.2 ms against 12.5 ms, bridge CPU per approval 630 µs (600–720) against 1,740 µs (1,690–1,780). Not back
  at 756c8e8's. What is left per
  approval in the profile (4,000 approvals in process): the policy decision about 115 µs of CPU (the shell
  analysis and evaluation; the call's own paths are still resolved at every decision), the audit record about
  90 µs (a ` + "`" + `stat` + "`" + ` of the log's path and an ` + "`" + `fstat` + "`" + ` to notice a rotation by another program, the marshal, the
  write; one ` + "`" + `fstat` + "`" + ` per record fewer now), reading the tool call through the agent's profile about 50 µs (JSON
  decoding), the card about 50 µs (its marshal), the editor's answer about 30 µs; and the hops: the
  session/prompt round trip, which decides nothing, is 60–130 µs slower than 756c8e8's in the same runs, so part
  of the approval's gap is the forwarding path, two hops each way. **Pending approvals.** A pending approval's
  goroutine waited for the person on the stack its decision had grown, under the frames of the functions that
  read, decide and show the card (1.4–1.6 KiB each): the runtime cannot shrink a stack whose used part is over a
  quarter of it. Reading, deciding and showing now run on a goroutine that ends (` + "`" + `permission.shallow` + "`" + `), and the
  frames under the wait hold pointers: stack per pending approval in ` + "`" + `BenchmarkInProcessPending` + "`" + ` (bridge and its
  in-process client) 18.0 → 10.9 KiB; ` + "`" + `callFS` + "`" + ` lets go of what it remembered when the decision is sealed (a
  card's Env kept it). **Scale** completes again: it holds 60 approvals per agent (1,200), within the bridge's
  64 requests in flight per child. Same run, median of 3: per pending approval 31.5 KiB against 21.7 KiB, per
  idle session 6.4 against 5.2 KiB (another run: 4.3 against 5.6), both in a noisy RSS delta; initialized 30.1
  MiB against 9.6 MiB, 1,000 idle sessions 55.6 against 17.5 MiB. Of a bridge that has just answered
  ` + "`" + `initialize` + "`" + `, 24.6 of 31 MiB are pages of its 52 MB binary (` + "`" + `RssFile` + "`" + `; ` + "`" + `RssAnon` + "`" + ` 6.4 MiB): the binary grew
  with the fleet's dependencies (OPA, the OCI registry client, gRPC and OpenTelemetry), which is most of what
  "initialized" and "idle" show. Not done: the live heap of a pending approval (about 4.4 KiB in the
  in-process heap profile: the decision, the card, the broker's entry) against the RSS delta (31 KiB), which
  the garbage collector's headroom over a larger live heap may account for; the 20 agents' start (18 MiB
  from initialized to 20 agents with a session each, against 2.7 MiB in 756c8e8's own run of 2026-11-21).
- **2026-11-27 (session 13), memory and the round trips** (in-process heap and CPU profiles of ` + "`" + `BenchmarkInProcessApproval` + "`" + `
  and of 20 agents x 50 sessions; ` + "`" + `perf record -g` + "`" + ` and ` + "`" + `strace -c -f` + "`" + ` of the real binary through 5,000 prompts and 5,000
  approvals, alternating with 756c8e8's binary; the same-run tables above). **Start-up memory:** OPA and
  OpenTelemetry (with gRPC, protobuf, the OCI client) moved into the companion ` + "`" + `acp-bridge-org` + "`" + `, started only when the
  managed tier names them (docs/org.md, "The companion"): the bridge's binary 52.8 → 17.6 MB, its package inits 299 →
  118; the policy's init 763 → 241 KB (its 177 program declarations are arrays the linker lays out). **Per agent:** the
  host-socket scan at every agent start walked ` + "`" + `/tmp` + "`" + ` with ` + "`" + `filepath.WalkDir` + "`" + ` (an allocation per entry: 12 MB per start
  on this machine's /tmp), and the heap stayed at twice that garbage's size: 240 → 37 MB allocated to start 20 agents
  (` + "`" + `sandbox/ipcscan.go` + "`" + `, getdents into reused buffers); an agent without the sandbox has no scan at all. A stream reads
  through 16 KiB until a line needs more (20 idle agents held 5 MiB of 256 KiB buffers). Sessions share their list of
  missing protected places. In-process live heap after 20 agents x 50 sessions: 13.8 → 5.3 MiB. **The prompt:** the
  check after each turn for protected places that appeared listed the home and workspace directories (about 120 µs of
  the prompt's 263 µs added); it is now one ` + "`" + `poll(2)` + "`" + ` while the place watch keeps those walks (` + "`" + `bridge/created.go` + "`" + `). An
  answer or a request is written on the goroutine that made it when the pipe takes it at once, instead of waking the
  writer goroutine: 5,000 prompts made 41k ` + "`" + `futex` + "`" + ` calls against 53k, 169k system calls against 203k. **The approval:**
  its deep parts run on workers that keep their grown stacks (` + "`" + `permission/deep.go` + "`" + `; copying a stack grown from the
  smallest size was a tenth of an approval's CPU in process); the protected-place check of a write is folded and
  indexed once (` + "`" + `policy/protmatch.go` + "`" + `: ` + "`" + `writeBreaker` + "`" + ` 11.5% → 3.6% of the bridge's samples).
- **2026-11-27 (session 14), memory per agent and the approval's allocations** (in-process heap profiles with every
  allocation sampled, ` + "`" + `strace -c -f` + "`" + ` of the real binary through 1,000 approvals beside 756c8e8's). **Per agent:** an
  agent's stderr was read through a 64 KiB buffer each: 1.3 MiB of the live heap of 20 idle agents; it is read through
  4 KiB now, a longer line gathered up to the same 64 KiB (` + "`" + `agents/stderr.go` + "`" + `, a property test against the old reader).
  VmRSS of 20 agents x 50 sessions, real binary, one run each: 22.5 → 20.8 MiB (756c8e8: 17.0). **The approval:** the
  ` + "`" + `_acp-bridge/approval/resolved` + "`" + ` notice went through jsonrpc2's ` + "`" + `Notify` + "`" + `, which encoded the params and then the
  message around them: ` + "`" + `acp.Conn.Notify` + "`" + ` encodes a Go value once and writes it on the fast path (31.8 → 30.0 KB and
  362 → 347 allocations per approval, bridge and client together); plain JSON strings of a tool call are read without
  ` + "`" + `encoding/json` + "`" + `. Per 1,000 approvals the current binary makes 5,116 writes, 7,441 reads, 8,000 ` + "`" + `newfstatat` + "`" + ` and
  1,001 ` + "`" + `ppoll` + "`" + ` against 756c8e8's 4,595, 6,599, 8,000 and 2,000 ` + "`" + `fstat` + "`" + `: the system calls are nearly the same;
  the gap is user-space work added since: the protected audit stream's copy in the decision file (a second write per
  person-answered record), the card's sandbox note, the policy's path resolution of the written file (about 40 µs
  in process), and decoding the request, the cache merge and the card (about 50 µs). Not done: a pending approval
  holds a goroutine (at least 8 KiB of stack) for as long as the card is open; replying later without one needs the
  engine to take an answer after its handler returned.
- **2026-11-27 (session 15), the audit's stats, start-up, and where the memory is** (in-process CPU profiles of
  BenchmarkInProcessApproval beside 756c8e8's, ` + "`" + `strace -c -f` + "`" + `, page faults and resident pages of the real binary).
  **The approval:** each person-answered record is written twice (the never-rotated person file and its copy in the
  decision file), and each write began with a ` + "`" + `stat(2)` + "`" + ` of the file's path to notice a rotation or removal by another
  program. The Log now stats the files' shared directory once per record (a change above the files; red team 15 showed
  an inode watch alone misses a renamed parent) and learns the rest from inotify (one instance per Log watching the inode of each open file through
  ` + "`" + `/proc/self/fd` + "`" + `; each record reads the kernel's queue once: ` + "`" + `internal/audit/identity_linux.go` + "`" + `, with a property test
  over rename, unlink, replace, link-and-unlink and chmod of every stream and a control that never reads the queue):
  the audit's share of an in-process approval 57 → 34 µs with the inode watch alone (about 40 with the directory's stat). Same-run latency against 756c8e8 (load average 2 on the 2
  CPUs, 3 runs): approval round trip added p50 500 µs (490–560) against 439, bridge CPU per approval 570 µs (540–570)
  against 480 (the tables above had 522 against 445 and 620 against 490). **Start-up:** the 177 program declarations
  are indexed at the first lookup instead of at start-up (` + "`" + `policy/programs.go` + "`" + `, ` + "`" + `loadPrograms` + "`" + `): the policy's init
  4.4 → 3.1–3.6 ms (10 runs each, under load). **Where the memory is:** a bridge that has only run its package inits
  (` + "`" + `acp-bridge version` + "`" + `, max RSS) holds 10.5 MB against 756c8e8's 7.6 MB, and one that has answered ` + "`" + `initialize` + "`" + ` 13.1 against
  9.4: most of the "initialized" gap is the process start, pages of the binary (17.8 MB against 10.7) that the inits of
  its packages touch, which the kernel maps 64 KiB around each touched page. A binary importing only ` + "`" + `policy` + "`" + ` starts at 4.2
  MB (756c8e8's ` + "`" + `approvals` + "`" + ` 2.9; with the declarations' indexing skipped 3.0); the AuthZEN hook's HTTP client brings
  ` + "`" + `crypto/tls` + "`" + `, ` + "`" + `crypto/x509` + "`" + ` and ` + "`" + `net/http` + "`" + `'s client, about 0.6 MB resident (measured by building the bridge without that
  call). The bridge's own pages (RssAnon) with 1,000 idle sessions are near 756c8e8's: 11.4–11.9 MiB against 9.9–10.9 in
  two same-run scale measurements. **Tried and not kept:** ` + "`" + `GODEBUG=adaptivestackstart=0` + "`" + ` (new goroutines start at 2 KiB
  instead of the running average): the in-process stack per pending approval 11.5–14.7 → 9.3 KiB, but the real
  binary's RSS with 1,200 approvals pending varied 70–87 MiB between runs of the same build, more than the change.
  **Decision hooks** now run in a bubblewrap sandbox of their own wherever agents run in one (docs/sandbox.md): about
  30 ms more per command hook consultation (20 starts of /bin/true through it: 0.88 s against 0.26 s); the Fleet
  section's command-hook row was measured before.
- **2026-11-27 (session 16), the HTTP client out of the bridge, and where its resident pages are** (` + "`" + `/proc/<pid>/pagemap` + "`" + `
  of a bridge that has answered ` + "`" + `initialize` + "`" + `, each present page of its binary attributed to the symbol it falls in;
  ` + "`" + `smaps` + "`" + ` for anonymous against file pages). **The AuthZEN hook's HTTP request** moved into the companion
  (` + "`" + `authzen.evaluate` + "`" + `, docs/org.md): the bridge no longer links net/http's client, HTTP/2, the TLS handshake or x509
  verification (` + "`" + `TestBridgeLinksNoHTTPClient` + "`" + `). Binary 17.9 → 15.4 MB; max RSS of ` + "`" + `acp-bridge version` + "`" + ` 10.6 → 9.6 MB (5
  runs each); VmRSS after ` + "`" + `initialize` + "`" + ` 13.2 → 11.8 MB (anonymous 2.3 → 2.0, file 10.9 → 9.8) against 756c8e8's 9.4 (1.8 and
  7.6) in the same measurement. **What the rest is:** of the 9.6 MB of the binary's pages present before the move (756c8e8:
  6.5), the runtime and its tables (pclntab, type descriptors, function data) are 4.5 MB against 3.4 (they grow with the
  code), and the bridge's own packages 1.3 MB against 0.5: ` + "`" + `policy` + "`" + ` 440 KB, ` + "`" + `bridge` + "`" + ` 364, ` + "`" + `settings` + "`" + ` 276, ` + "`" + `sandbox` + "`" + ` 144,
  ` + "`" + `permission` + "`" + ` 84 against 756c8e8's ` + "`" + `approvals` + "`" + ` 192 and ` + "`" + `bridge` + "`" + ` 152. The kernel maps up to 64 KiB around each page
  a fault touches, so a larger binary is more resident even where it runs the same inits (118 packages with an init
  against 109). What is left of the "initialized" gap is the code the product has gained since (the sandbox, hooks, the
  audit, the program declarations), not work done at start-up.

- **2026-11-27 (session 17), a pending approval without a goroutine, and what an idle agent holds** (in-process
  goroutine counts and heap profiles of ` + "`" + `TestPendingApprovalsHoldNoGoroutine` + "`" + `, ` + "`" + `BenchmarkInProcessPending` + "`" + ` and 20 agents x 50
  sessions; ` + "`" + `runtime.MemStats` + "`" + ` and ` + "`" + `smaps` + "`" + ` of the real binary beside 756c8e8's; the same-run tables below, load average
  1.7 at the start). **Pending approvals:** a child's permission request is answered after its handler returned
  (` + "`" + `acp.Defer` + "`" + `/` + "`" + `acp.Later` + "`" + `): while the card is open no goroutine waits for it; the approval's resolution
  (` + "`" + `Broker.Then` + "`" + `), the editor's answer (` + "`" + `acp.Pending.OnDone` + "`" + `) and the request's end (` + "`" + `context.AfterFunc` + "`" + `) are
  callbacks that hand the rest to a deep worker. Stack per pending approval in process 9.3 → 4.4 KiB (what is left is
  the benchmark client's own goroutines); per pending approval of the real binary 14.4 KiB against 756c8e8's 22.8,
  1,200 pending 63.5 against 63.4 MiB. **Idle agents:** 3 of an agent's 8 goroutines only waited for its end (the
  lifetime watch, the crash watcher, the connection's end): now callbacks (` + "`" + `agents.Process.OnDone` + "`" + `,
  ` + "`" + `acp.Conn.OnClose` + "`" + `, ` + "`" + `context.AfterFunc` + "`" + `). A session's start computed its missing protected places by joining and
  deduplicating every place again (about 10 KB of garbage per ` + "`" + `session/new` + "`" + `): joined once per roots, shared.
  **Why "1,000 sessions, idle" is still above 756c8e8's:** the real binary's live heap with 1,000 idle sessions is
  about 3 MB (after a GC: ` + "`" + `HeapAlloc` + "`" + ` 5.2 MB before it, next GC at 6.5 MB), and the resident heap follows the GC's goal
  (twice the live heap); 756c8e8's live heap was 9.8 MB, most of it 256 KiB read buffers per agent it never touched
  (resident only where written), so its goal was far and it collected 4 times against 13 while the sessions opened.
  The rest is the binary's pages (9.7 MB against 6.6: the code the product gained, session 16's attribution).
  **Routed requests** (` + "`" + `session/prompt` + "`" + ` and the others the bridge re-addresses) read and write their params without
  encoding/json's reflection when they are plain (` + "`" + `acp/object_fast.go` + "`" + `, byte for byte encoding/json's output: a
  differential fuzz target): about 10 → 4 µs a request under load; the prompt round trip added 133 µs against
  756c8e8's 144 in the same run. **Not back:** the approval round trip (+71 µs p50, p99 1.9 against 1.1 ms) and
  bridge CPU per approval (550 against 490 µs): profiles of ` + "`" + `BenchmarkInProcessApproval` + "`" + ` spread it over the reading
  of the tool call through the agent's profile (about 35 µs), the policy's path resolution (lstat calls, about 27
  µs), the card's marshal (about 17 µs) and the audit's two writes of a person-answered record (about 30 µs), each
  a feature 756c8e8 did not have. **The ten-part decision** (` + "`" + `BenchmarkEvaluateCompound10` + "`" + `) is not back either:
  CPU time per call (user + system of the test binary, N = 40,000 less N = 1, 5 rounds alternating the two
  builds, the red team running beside) 30.5–34.5 µs against 756c8e8's 16.0–25.5, and 23.5–32.5 against
  this session's start (f6ccea5) 26.5–33.0: the cost came with sessions 15–16's readers (session 14 measured 13.0
  against 12.5); a profile spreads it over the analysis (the declarations' lookups and effects, about 19 µs) and
  the paths each part names (about 7 µs).
`
