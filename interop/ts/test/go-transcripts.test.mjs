// Validates what the bridge wrote during the Go interop tests (interop/go),
// whose transcripts land in $ACP_INTEROP_TRANSCRIPT_DIR when interop/run.sh
// runs them first. Without that variable there is nothing to validate.

import { test } from "node:test";
import assert from "node:assert/strict";
import { basename } from "node:path";
import { goTranscripts, readTranscript } from "../lib/bridge.mjs";
import { AgentOutputValidator, formatFailures } from "../lib/schema.mjs";

const dir = process.env.ACP_INTEROP_TRANSCRIPT_DIR;
// interop/run.sh sets this to the number of Go transcripts it expects at least.
const expected = Number(process.env.ACP_INTEROP_EXPECT_GO_TRANSCRIPTS ?? "0");

test("Go interop transcripts match the ACP v1 schema", { skip: dir ? false : "ACP_INTEROP_TRANSCRIPT_DIR is not set (run interop/run.sh)" }, async (t) => {
  const validator = new AgentOutputValidator();
  const files = goTranscripts(dir);
  assert.ok(files.length >= Math.max(expected, 1), `found ${files.length} go-*.jsonl transcripts in ${dir}, want at least ${Math.max(expected, 1)}`);
  for (const file of files) {
    await t.test(basename(file), () => {
      const report = validator.validateTranscript(readTranscript(file));
      const total = report.results.length;
      t.diagnostic(`${basename(file)}: validated ${total} bridge messages: ${JSON.stringify(report.counts)}`);
      if (report.unanswered.length) t.diagnostic(`requests the bridge never answered before the test ended: ${report.unanswered.join(", ")}`);
      assert.ok(total > 0, "the bridge wrote nothing");
      assert.equal(report.failures.length, 0, `${report.failures.length} of ${total} bridge messages violate the ACP v1 schema:\n\n${formatFailures(report.failures)}`);
    });
  }
});
