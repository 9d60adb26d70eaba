// A case's divergence from its recording, pure (src/evals/divergence.ts): the recorded calls read
// from a recording, the case's calls answered from it, run live or refused, recorded calls never
// made, argument mismatches with their path and both values, and the first model step whose
// request differs (walking both recordings' request deltas).
import { describe, expect, it } from "vitest";
import { divergenceOf, firstRequestDifference, type ReplayUse } from "../../src/evals/divergence";
import { recordedCallsOf } from "../../src/evals/recorded-calls";
import { callsOf, factsOf } from "../../src/evals/run-facts";
import { recordingOf, segmentOf } from "../helpers/evals";

const source = recordingOf("run_source", [
  segmentOf([
    { text: "Looking.", calls: [{ id: "a", name: "lookup", input: { id: "c1", fields: ["name"] }, answer: "Ada" }, { id: "b", name: "ask", input: { question: "?" }, kind: "reply" }] },
    { text: "Converting.", calls: [{ id: "c", name: "convert", input: { amount: 5, to: "EUR" }, answer: "4.6", kind: "wait" }] },
    { text: "Done: Ada, 4.6 EUR." },
  ]),
]);

describe("recordedCallsOf", () => {
  it("lists each call a tool step or an async wait answered, with its step, tool, input and value; the loop's own replies are not recorded answers", () => {
    const recorded = recordedCallsOf(source);
    expect(recorded.map(({ step, name, input }) => ({ step, name, input }))).toEqual([
      { step: 1, name: "lookup", input: { id: "c1", fields: ["name"] } },
      { step: 2, name: "convert", input: { amount: 5, to: "EUR" } },
    ]);
    expect(recorded[0]!.value.content).toBe("Ada");
  });

  it("counts steps over segments, and a given history's open calls as step 0", () => {
    const later = segmentOf([{ calls: [{ id: "x", name: "lookup", input: { id: "c2" } }] }], { n: 2, stepsBefore: 3 });
    const given = segmentOf([], { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "", toolCalls: [{ id: "g", name: "lookup", input: { id: "c0" } }] }] });
    given.steps.push({ key: "tool/0/g", value: { content: "given", isError: false, costUsd: 0 }, costUsd: 0 });
    const recorded = recordedCallsOf(recordingOf("run_x", [given, later]));
    expect(recorded.map(({ step, input }) => [step, input])).toEqual([
      [0, { id: "c0" }],
      [4, { id: "c2" }],
    ]);
  });
});

describe("factsOf", () => {
  it("reads the run's end, text, output, spend and steps from its view and every call its model made", () => {
    const facts = factsOf(recordingOf("run_source", source.segments, { finalText: "Done.", final: { ok: true }, stoppedBy: "done", spentUsd: 0.5 }));
    expect(facts).toMatchObject({ runId: "run_source", status: "finished", stoppedBy: "done", finalText: "Done.", final: { ok: true }, spentUsd: 0.5, steps: 3 });
    expect(callsOf(source).map((call) => [call.step, call.name])).toEqual([
      [1, "lookup"],
      [1, "ask"],
      [2, "convert"],
    ]);
  });
});

describe("divergenceOf", () => {
  const recorded = recordedCallsOf(source);

  it("counts calls answered from the recording, lists the unrecorded ones, the recorded ones never made, and each mismatch's path and values", () => {
    const uses: ReplayUse[] = [
      { step: 1, name: "lookup", input: { id: "c1", fields: ["name"] }, answered: "recording", index: 0 },
      { step: 2, name: "convert", input: { amount: 5, to: "USD" }, answered: "refused" },
      { step: 2, name: "search", input: { q: "x" }, answered: "live" },
    ];
    const divergence = divergenceOf({ recorded, uses, requestDifference: { step: 1, path: "system" } });
    expect(divergence).toEqual({
      fromRecording: 1,
      unrecorded: [
        { step: 2, name: "convert", input: { amount: 5, to: "USD" }, answered: "refused" },
        { step: 2, name: "search", input: { q: "x" }, answered: "live" },
      ],
      neverMade: [{ step: 2, name: "convert", input: { amount: 5, to: "EUR" } }],
      argumentMismatches: [{ tool: "convert", step: 2, path: "to", recorded: "EUR", new: "USD" }],
      firstRequestDifference: { step: 1, path: "system" },
    });
  });

  it("a call run live beside its matching recording (mode live) is neither unrecorded nor a recorded call never made", () => {
    const uses: ReplayUse[] = recorded.map((call, index) => ({ step: call.step, name: call.name, input: call.input, answered: "live", index }));
    expect(divergenceOf({ recorded, uses })).toEqual({ fromRecording: 0, unrecorded: [], neverMade: [], argumentMismatches: [] });
  });
});

describe("firstRequestDifference", () => {
  it("is undefined for the same requests, else the first step whose request differs with its first path", () => {
    expect(firstRequestDifference(source, recordingOf("run_same", source.segments))).toBeUndefined();
    const changedPrompt = recordingOf("run_b", [segmentOf([{ text: "Looking.", calls: [{ id: "a", name: "lookup", input: { id: "c1", fields: ["name"] }, answer: "Ada" }] }], { system: "Be brief." })]);
    expect(firstRequestDifference(source, changedPrompt)).toEqual({ step: 1, path: "system" });
    const laterAnswer = recordingOf("run_c", [
      segmentOf([
        { text: "Looking.", calls: [{ id: "a", name: "lookup", input: { id: "c1", fields: ["name"] }, answer: "Bob" }, { id: "b", name: "ask", input: { question: "?" }, kind: "reply" }] },
        { text: "Converting." },
      ]),
    ]);
    const found = firstRequestDifference(source, laterAnswer)!;
    expect(found.step).toBe(2);
    expect(found.path).toMatch(/^messages\.2\.content/);
  });

  it("names a step one side never made", () => {
    const shorter = recordingOf("run_d", [segmentOf([{ text: "Looking.", calls: [{ id: "a", name: "lookup", input: { id: "c1", fields: ["name"] }, answer: "Ada" }, { id: "b", name: "ask", input: { question: "?" }, kind: "reply" }] }])]);
    expect(firstRequestDifference(source, shorter)).toEqual({ step: 2, path: "(a model step the run did not make)" });
    expect(firstRequestDifference(shorter, source)).toEqual({ step: 2, path: "(a model step the recording did not make)" });
  });
});
