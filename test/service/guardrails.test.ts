// Guardrails through the service (docs/guardrails.md), on real run objects with the scripted
// provider and the local tool server: an input check stops the run before any model call and any
// tool; a tool check's reject reaches the model and the tool never runs; its ask is an approval
// answered like any other; an output check retries, then ends the run after its retries; an HTTP
// check is signed and asked with its step's Idempotency-Key; a model check's cost is in the run's
// spend. The finish reason is `guardrail`, with the check's name, stage and reason.
import { describe, expect, inject, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { ownSummary } from "../helpers/inbox";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";

const server = () => inject("toolServerUrl");

async function countFor(key: string): Promise<number> {
  return ((await (await fetch(`${server()}/count?key=${encodeURIComponent(key)}`)).json()) as { count: number }).count;
}

const counted = (name = "counted") => ({ type: "http", name, description: `${name} tool`, inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, url: `${server()}/count` });

async function messagesOf(id: string, token: string) {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: { role: string; toolCallId?: string; content: unknown; isError?: boolean }[] }).messages;
}

const verdicts = async (id: string) => (await storedEvents(stubFor(id))).filter((event): event is Extract<StoredEvent, { type: "guardrail" }> => event.type === "guardrail");

describe("input checks", () => {
  it("a deny list stops the run before the first model call and before the given turn's tool runs: stoppedBy guardrail", async () => {
    const { run, token } = await startRun({
      messages: [
        { role: "user", content: "Please DROP TABLE users" },
        { role: "assistant", content: "", toolCalls: [{ id: "given", name: "counted", input: { n: 1 } }] },
      ],
      tools: [counted()],
      guardrails: { input: [{ name: "no-sql", type: "deny", words: ["drop table"] }] },
      script: [{ text: "never said" }],
    });
    await driveRun(run.id);
    const view = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "guardrail", steps: 0, guardrail: { name: "no-sql", stage: "input", reason: 'The text contains "drop table".' } });
    expect(view.finalText).toBe("");
    expect(await countFor(`${run.id}/s1/tool/0/given`)).toBe(0);
    const events = await storedEvents(stubFor(run.id));
    expect(events.some((event) => event.type === "step-start" || event.type === "model")).toBe(false);
    expect(events.find((event) => event.type === "guardrail")).toMatchObject({ name: "no-sql", stage: "input", pass: false, action: "stop", step: 0 });
    expect(events.at(-1)).toMatchObject({ type: "end", stoppedBy: "guardrail", guardrail: { name: "no-sql", stage: "input" } });
  });
});

describe("tool checks", () => {
  it("reject: the model sees the check's reason as the call's result and the tool is never called", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [counted()],
      minAnswerChars: 0,
      guardrails: { tool: [{ name: "small-n", type: "json-schema", schema: { type: "object", properties: { n: { maximum: 10 } } } }] },
      script: [{ toolCalls: [{ id: "big", name: "counted", input: { n: 99 } }] }, { text: "The check refused it." }],
    });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "The check refused it." });
    const reply = (await messagesOf(run.id, token)).find((m) => m.toolCallId === "big");
    expect(reply).toMatchObject({ isError: true, content: expect.stringMatching(/^Rejected by guardrail small-n: Not valid against the schema: n: /) });
    expect(await countFor(`${run.id}/s1/tool/1/big`)).toBe(0);
    expect(await verdicts(run.id)).toMatchObject([{ stage: "tool", name: "small-n", callId: "big", tool: "counted", pass: false, action: "reject" }]);
  });

  it("ask: the run waits on an approval naming the check; approved, the call runs and the run goes on", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [counted()],
      minAnswerChars: 0,
      guardrails: { tool: [{ name: "big-n", type: "size", maxChars: 8, onFail: "ask" }] },
      script: [{ toolCalls: [{ id: "c", name: "counted", input: { n: 123456 } }] }, { text: "Ran it." }],
    });
    await driveRun(run.id);
    const waiting = await getRun(run.id, token);
    expect(waiting).toMatchObject({ status: "waiting", waiting: { kind: "approval", callId: "c", name: "counted", guardrail: { name: "big-n", reason: "12 characters, more than 8." } } });
    // The inbox lists it so, for a phone to show which check asks and why.
    expect((await ownSummary(run.id))?.waiting).toMatchObject({ kind: "approval", callId: "c", guardrail: { name: "big-n", reason: "12 characters, more than 8." } });
    expect(await countFor(`${run.id}/s1/tool/1/c`)).toBe(0);
    const answered = await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "c", approved: true }) });
    expect(answered.status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Ran it." });
    expect(await countFor(`${run.id}/s2/tool/0/c`)).toBe(1);
    // The person's approval is the answer to the check: it was asked once.
    expect(await verdicts(run.id)).toHaveLength(1);
  });

  it("an HTTP check is signed and asked once with its step's Idempotency-Key; its failure rejects the call", async () => {
    const url = `${server()}/guardrail?deny=rm`;
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [counted("ok"), counted("shell")],
      minAnswerChars: 0,
      guardrails: { tool: [{ name: "gate", type: "http", url, tools: ["shell"] }] },
      script: [{ toolCalls: [{ id: "s", name: "shell", input: { n: 1, rm: true } }, { id: "o", name: "ok", input: { n: 2 } }] }, { text: "Done." }],
    });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Done." });
    expect(await countFor(`${run.id}/s1/guardrail/tool/1/s/gate`)).toBe(1);
    expect(await countFor(`${run.id}/s1/tool/1/s`)).toBe(0);
    expect(await countFor(`${run.id}/s1/tool/1/o`)).toBe(1);
    expect(await verdicts(run.id)).toMatchObject([{ name: "gate", callId: "s", pass: false, action: "reject", reason: "signed tool check: holds rm" }]);
  });

  it("the data checks a call that runs passed are on its tool-call event (guardrailsPassed), stored once, with no guardrail event of their own", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [counted()],
      minAnswerChars: 0,
      guardrails: { tool: [{ name: "no-shell", type: "regex", pattern: "rm\\s" }, { name: "no-secrets", type: "deny", words: ["password"] }, { name: "small", type: "size", maxChars: 100 }] },
      script: [{ toolCalls: [{ id: "c", name: "counted", input: { n: 3 } }] }, { text: "Done." }],
    });
    await driveRun(run.id);
    const events = await storedEvents(stubFor(run.id));
    expect(events.filter((event) => event.type === "tool-call")).toMatchObject([
      {
        callId: "c",
        guardrailsPassed: [
          { name: "no-shell", reason: "The text does not match /rm\\s/." },
          { name: "no-secrets", reason: "The text contains no denied word." },
          { name: "small", reason: "7 characters, at most 100." },
        ],
      },
    ]);
    expect(await verdicts(run.id)).toEqual([]);
    expect(await countFor(`${run.id}/s1/tool/1/c`)).toBe(1);
  });
});

describe("output checks", () => {
  const card = { name: "no-card", type: "regex", pattern: "\\d{4}-\\d{4}" };

  it("retry: the model answers again with the reason, then passes", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "What is my card?" }],
      minAnswerChars: 0,
      guardrails: { output: [card] },
      script: [{ text: "It is 1234-5678." }, { text: "I cannot show card numbers." }],
    });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", stoppedBy: "done", finalText: "I cannot show card numbers.", steps: 2 });
    expect((await verdicts(run.id)).map((event) => [event.step, event.pass, event.action])).toEqual([[1, false, "retry"], [2, true, "pass"]]);
  });

  it("after its retries the run ends guardrail with the check's reason and no final text", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "What is my card?" }],
      minAnswerChars: 0,
      guardrails: { output: [{ ...card, retries: 1 }] },
      script: [{ text: "1234-5678" }, { text: "Still 1234-5678" }, { text: "never asked" }],
    });
    await driveRun(run.id);
    const view: RunView = await getRun(run.id, token);
    expect(view).toMatchObject({ status: "finished", stoppedBy: "guardrail", steps: 2, guardrail: { name: "no-card", stage: "output", reason: "The text matches /\\d{4}-\\d{4}/." } });
    expect(view.finalText).toBe("");
  });
});

describe("model checks", () => {
  it("a model check's call costs the run: its cost is in the verdict and in the run's spend", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "hello" }],
      minAnswerChars: 0,
      guardrails: { input: [{ name: "polite", type: "model", prompt: "The question is polite.", script: [{ text: '{"pass": true, "reason": "It is polite."}' }] }] },
      script: [{ text: "Hi!" }],
    });
    await driveRun(run.id);
    const view = await getRun(run.id, token);
    const [verdict] = await verdicts(run.id);
    expect(verdict).toMatchObject({ name: "polite", pass: true, reason: "It is polite." });
    expect(verdict!.costUsd).toBeGreaterThan(0);
    const model = (await storedEvents(stubFor(run.id))).find((event) => event.type === "model") as Extract<StoredEvent, { type: "model" }>;
    expect(view.spentUsd).toBeCloseTo(verdict!.costUsd + model.costUsd, 6);
    expect(model.spentUsd).toBeCloseTo(view.spentUsd, 6);
  });

  it("an answer with no verdict fails the check (closed)", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "hello" }],
      guardrails: { input: [{ name: "polite", type: "model", prompt: "The question is polite.", script: [{ text: "I am not sure." }] }] },
      script: [{ text: "Hi!" }],
    });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ stoppedBy: "guardrail", guardrail: { name: "polite", reason: expect.stringContaining('held no {"pass", "reason"} object') } });
  });
});
