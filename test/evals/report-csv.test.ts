// An experiment's report as CSV, pure (src/evals/report-csv.ts): a row per case with its scores,
// spend and divergence, the comparison's columns when there is one, cells quoted (RFC 4180) and a
// text a spreadsheet would run as a formula defused.
import { describe, expect, it } from "vitest";
import type { ExperimentCase } from "../../src/api/resources/eval-types";
import { compare } from "../../src/evals/comparison";
import { reportCsv } from "../../src/evals/report-csv";

const done: ExperimentCase = {
  n: 1,
  state: "done",
  sourceRunId: "run_src",
  runId: "run_new",
  facts: { runId: "run_new", status: "finished", finalText: "x", spentUsd: 0.02, steps: 3, calls: [] },
  scores: [{ scorer: "exact", score: 1, reason: "" }, { scorer: "polite, kind", score: 0.5, reason: "" }],
  divergence: { fromRecording: 2, unrecorded: [], neverMade: [{ step: 2, name: "a", input: {} }], argumentMismatches: [], firstRequestDifference: { step: 1, path: "system" } },
  judgeUsd: 0.001,
};
const failed: ExperimentCase = { n: 2, state: "failed", sourceRunId: "run_src2", scores: [], judgeUsd: 0, reason: '=HYPERLINK("x") refused, "quoted"' };

describe("reportCsv", () => {
  it("writes a header and a row per case, quoting what needs it and defusing formulas", () => {
    const csv = reportCsv(["exact", "polite, kind"], [done, failed]);
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe('case,state,sourceRunId,runId,status,steps,costUsd,judgeUsd,exact,"polite, kind",fromRecording,unrecorded,neverMade,argumentMismatches,firstRequestDifference,reason');
    expect(lines[1]).toBe("1,done,run_src,run_new,finished,3,0.02,0.001,1,0.5,2,0,1,0,step 1: system,");
    expect(lines[2]).toBe(`2,failed,run_src2,,,,,0,,,,,,,,"'=HYPERLINK(""x"") refused, ""quoted"""`);
    expect(lines[3]).toBe("");
  });

  it("adds each score's baseline and delta and the regression flag with a comparison", () => {
    const comparison = compare("exp", "recordings", [{ n: 1, state: "done", scores: done.scores }], [{ n: 1, state: "done", scores: [{ scorer: "exact", score: 1, reason: "" }, { scorer: "polite, kind", score: 1, reason: "" }] }]);
    const [header, row] = reportCsv(["exact", "polite, kind"], [done], comparison).split("\r\n");
    expect(header).toContain('exact,exact.baseline,exact.delta,"polite, kind","polite, kind.baseline","polite, kind.delta"');
    expect(header).toContain(",regression,reason");
    expect(row).toContain(",1,1,0,0.5,1,-0.5,");
    expect(row).toContain(",true,");
  });
});
