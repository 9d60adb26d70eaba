// The scorers, pure (src/evals/scorers): each judges a run's facts (final text, typed output, tool
// calls, spend, steps) against the scorer's data or the case's reference, 0..1 with a reason, or
// null where it has nothing to compare with; the rubric's request and the reading of its answer.
import { describe, expect, it } from "vitest";
import type { RunFacts, Scorer } from "../../src/api/resources/eval-types";
import { judgeRequest, readJudgeAnswer } from "../../src/evals/scorers/rubric";
import { scoreRun, verdictOf } from "../../src/evals/scorers/score-run";

const facts = (over: Partial<RunFacts> = {}): RunFacts => ({ runId: "run_x", status: "finished", finalText: "The answer is 391.", spentUsd: 0.02, steps: 3, calls: [], ...over });
const score = (scorer: Scorer, of: RunFacts = facts(), reference?: { finalText?: string; output?: unknown }) => verdictOf(scorer, of, reference)!;

describe("text scorers", () => {
  it("exact compares with the expected text, else the case's reference, trimmed and (if asked) case-blind; null with neither", () => {
    expect(score({ type: "exact", expected: "The answer is 391." }).score).toBe(1);
    expect(score({ type: "exact" }, facts({ finalText: "  the answer is 391. " }), { finalText: "The answer is 391." }).score).toBe(0);
    expect(score({ type: "exact", ignoreCase: true }, facts({ finalText: "  the answer is 391. " }), { finalText: "The answer is 391." }).score).toBe(1);
    expect(score({ type: "exact", trim: false, expected: "The answer is 391. " }).score).toBe(0);
    const none = score({ type: "exact" });
    expect(none.score).toBeNull();
    expect(none.reason).toContain("reference");
    expect(score({ type: "exact", expected: "392" }).reason).toContain('"392"');
  });

  it("contains scores the share of the texts found, and names the missing ones", () => {
    expect(score({ type: "contains", text: "391" }).score).toBe(1);
    const half = score({ type: "contains", text: ["391", "four hundred"] });
    expect(half.score).toBe(0.5);
    expect(half.reason).toContain('"four hundred"');
    expect(score({ type: "contains", text: "ANSWER", ignoreCase: true }).score).toBe(1);
    expect(score({ type: "contains", text: "ANSWER" }).score).toBe(0);
  });

  it("regex matches anywhere, case-blind if asked, on RE2: a pattern that backtracks forever elsewhere answers at once", () => {
    expect(score({ type: "regex", pattern: "\\b\\d{3}\\b" }).score).toBe(1);
    expect(score({ type: "regex", pattern: "^answer" , ignoreCase: true }, facts({ finalText: "Answer: yes" })).score).toBe(1);
    expect(score({ type: "regex", pattern: "^answer" }, facts({ finalText: "Answer: yes" })).score).toBe(0);
    const hostile = facts({ finalText: `${"a".repeat(50_000)}!` });
    expect(score({ type: "regex", pattern: "^(a+)+$" }, hostile).score).toBe(0);
  });
});

describe("output scorers", () => {
  const output = { total: 391, currency: "EUR", lines: [1, 2], customer: { id: "c1", tier: "gold" } };

  it("json-schema checks the typed output against a schema, naming each problem; no output scores 0", () => {
    const schema = { type: "object", required: ["total", "currency"], properties: { total: { type: "number" }, currency: { type: "string", pattern: "^[A-Z]{3}$" } } };
    expect(score({ type: "json-schema", schema }, facts({ final: output })).score).toBe(1);
    const bad = score({ type: "json-schema", schema }, facts({ final: { total: "391", currency: "eur" } }));
    expect(bad.score).toBe(0);
    expect(bad.reason).toContain("total");
    expect(bad.reason).toContain("currency");
    expect(score({ type: "json-schema", schema }).score).toBe(0);
  });

  it("fields scores the share of expected leaves that are equal, from the scorer or the reference output", () => {
    expect(score({ type: "fields", expected: { total: 391, customer: { tier: "gold" } } }, facts({ final: output })).score).toBe(1);
    const half = score({ type: "fields" }, facts({ final: output }), { output: { total: 390, customer: { tier: "gold" } } });
    expect(half.score).toBe(0.5);
    expect(half.reason).toContain("total");
    expect(score({ type: "fields", expected: { lines: [1, 2] } }, facts({ final: output })).score).toBe(1);
    expect(score({ type: "fields", expected: { lines: [2, 1] } }, facts({ final: output })).score).toBe(0);
    expect(score({ type: "fields" }, facts({ final: output })).score).toBeNull();
  });
});

describe("call and spend scorers", () => {
  const calls = facts({ calls: [{ step: 1, name: "lookup", input: { id: "c1", fields: ["a"] } }, { step: 2, name: "refund", input: { amount: 5 } }] });

  it("tool-called wants a call of the tool, whose input holds every given leaf", () => {
    expect(score({ type: "tool-called", tool: "lookup" }, calls).score).toBe(1);
    expect(score({ type: "tool-called", tool: "lookup", input: { id: "c1" } }, calls).score).toBe(1);
    expect(score({ type: "tool-called", tool: "lookup", input: { id: "c2" } }, calls).score).toBe(0);
    expect(score({ type: "tool-called", tool: "lookup", input: { fields: ["a", "b"] } }, calls).score).toBe(0);
    expect(score({ type: "tool-called", tool: "search" }, calls).reason).toContain("never");
  });

  it("tool-not-called wants no call of the tool", () => {
    expect(score({ type: "tool-not-called", tool: "delete_account" }, calls).score).toBe(1);
    const made = score({ type: "tool-not-called", tool: "refund" }, calls);
    expect(made.score).toBe(0);
    expect(made.reason).toContain("step 2");
  });

  it("cost and steps are ceilings", () => {
    expect(score({ type: "cost", maxUsd: 0.02 }).score).toBe(1);
    expect(score({ type: "cost", maxUsd: 0.019 }).score).toBe(0);
    expect(score({ type: "steps", max: 3 }).score).toBe(1);
    expect(score({ type: "steps", max: 2 }).score).toBe(0);
  });
});

describe("scoreRun", () => {
  it("answers one score per scorer in order, by name, the rubric's from the judge's verdicts", () => {
    const scorers: Scorer[] = [{ type: "contains", text: "391" }, { type: "rubric", name: "polite", rubric: "Is it polite?" }, { type: "tool-called", tool: "lookup" }, { type: "rubric", rubric: "x" }];
    const scores = scoreRun(scorers, facts(), undefined, (index) => (index === 1 ? { score: 0.75, reason: "Mostly." } : undefined));
    expect(scores).toEqual([
      { scorer: "contains", score: 1, reason: "The final text contains every text." },
      { scorer: "polite", score: 0.75, reason: "Mostly." },
      { scorer: "tool-called:lookup", score: 0, reason: "lookup was never called." },
      { scorer: "rubric", score: null, reason: "Not judged." },
    ]);
  });
});

describe("the rubric", () => {
  it("asks the judge with the rubric, the case's user messages, the answer, the output and the reference", () => {
    const request = judgeRequest({
      rubric: "Says the number.",
      model: "judge-model",
      input: [{ role: "user", content: "What is 17 × 23?" }, { role: "assistant", content: "ignored" }],
      facts: facts({ final: { n: 391 } }),
      reference: { finalText: "391" },
    });
    expect(request.model).toBe("judge-model");
    expect(request.tools).toEqual([]);
    expect(request.system).toContain("JSON");
    const text = request.messages[0]!.content as string;
    for (const part of ["<rubric>\nSays the number.", "<input>\nWhat is 17 × 23?\n</input>", "<answer>\nThe answer is 391.", '<output>\n{"n":391}', "<reference>\n391"]) expect(text).toContain(part);
    expect(text).not.toContain("ignored");
  });

  it("reads the first JSON object with a numeric score, clamped to 0..1; anything else is no score, with the answer quoted", () => {
    expect(readJudgeAnswer('{"score": 0.8, "reason": "Good."}')).toEqual({ score: 0.8, reason: "Good." });
    expect(readJudgeAnswer('Here: {"score": 1.7, "reason": "Great {really}."} done')).toEqual({ score: 1, reason: "Great {really}." });
    expect(readJudgeAnswer('{"score": -1}')).toEqual({ score: 0, reason: "The judge gave no reason." });
    const none = readJudgeAnswer("I would say it is fine.");
    expect(none.score).toBeNull();
    expect(none.reason).toContain("I would say it is fine.");
    expect(readJudgeAnswer('{"score": "high"}').score).toBeNull();
  });
});
