// Async HTTP tools through the service (SELF) against the local tool server
// (test/tool-server/global-setup.ts, a real socket in the Node process): the job is taken with 202, the run waits `running` with no
// alarm before the call's deadline, and the result comes to the call's callback URL with its token.
// Alarms are fired by hand; the tool server's callback is sent by the test, through SELF.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { stubFor, storedEvents } from "../helpers/runs";
import { watch } from "../helpers/watch";
import { expectError } from "../helpers/http";
import { TEST_API_TOKEN } from "../test-env";
import { api, driveRun, getRun, killMidToolCall, startRun } from "../helpers/service-client";

const server = () => inject("toolServerUrl");
const DAY = 24 * 3600 * 1000;

type Job = { count: number; bodies: { runId: string; callId: string; name: string; input: unknown; callback: { url: string; token: string } }[]; verified: boolean[] };

async function jobFor(key: string): Promise<Job> {
  return (await (await fetch(`${server()}/async?key=${encodeURIComponent(key)}`)).json()) as Job;
}

function asyncTool(name: string, query = "", extra: Record<string, unknown> = {}) {
  return {
    type: "http",
    name,
    description: `${name}: a job that answers later`,
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    url: `${server()}/async${query}`,
    async: true,
    ...extra,
  };
}

async function alarmOf(id: string): Promise<number | null> {
  return runInDurableObject(stubFor(id), (_instance, state) => state.storage.getAlarm());
}

/**
 * Fires the run's alarms until it stops running or sleeps on an async call: the tests' alarms are
 * set a year ahead (ALARM_DELAY_MS), so an alarm within a week is a call's deadline.
 */
async function driveUntilAsleep(id: string): Promise<RunView> {
  for (let i = 0; i < 50; i++) {
    const view = await getRun(id, TEST_API_TOKEN);
    const alarm = await alarmOf(id);
    if (view.status !== "running" || (alarm !== null && alarm < Date.now() + 8 * DAY)) return view;
    await runDurableObjectAlarm(stubFor(id));
  }
  throw new Error(`run ${id} neither stopped nor slept`);
}

function sendResult(callback: { url: string; token: string }, body: unknown, token = callback.token): Promise<Response> {
  const path = new URL(callback.url).pathname;
  return api(path, token, { method: "POST", body: JSON.stringify(body) });
}

async function messagesOf(id: string, token: string) {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: { role: string; toolCallId?: string; content: unknown; isError?: boolean }[] }).messages;
}

async function oneJob(script: unknown[], tool = asyncTool("render", "", { timeoutSeconds: 3600 })) {
  const { run, token } = await startRun({ messages: [{ role: "user", content: "go" }], tools: [tool], minAnswerChars: 0, script });
  const view = await driveUntilAsleep(run.id);
  const key = `${run.id}/s1/start/1/j1`;
  const job = await jobFor(key);
  return { id: run.id, token, view, key, job, callback: job.bodies[0]!.callback };
}

const renderScript = [{ text: "Rendering.", toolCalls: [{ id: "j1", name: "render", input: { n: 1 } }], costUsd: 0 }, { text: "The video is ready.", costUsd: 0 }];

describe("async HTTP tools", () => {
  it("the job is taken with 202: the run waits running, shows the call, logs tool-started and sleeps until the deadline", async () => {
    const { id, token, view, key, job, callback } = await oneJob(renderScript);
    expect(job.count).toBe(1);
    expect(job.verified).toEqual([true]);
    // The body of a synchronous call, plus the callback: a URL for this call on this deployment.
    expect(job.bodies[0]).toMatchObject({ runId: id, callId: "j1", name: "render", input: { n: 1 } });
    expect(callback.url).toMatch(new RegExp(`^https://ratchet\\.test/v1/runs/${id}/calls/[A-Za-z0-9_-]+/result$`));
    expect(callback.token).toMatch(/^ct_[A-Za-z0-9_-]{43}$/);
    expect(key).toBe(`${id}/s1/start/1/j1`);

    expect(view.status).toBe("running");
    expect(view.pending).toHaveLength(1);
    const pending = view.pending![0]!;
    expect(pending).toMatchObject({ callId: "j1", name: "render", step: 1 });
    expect(Date.parse(pending.deadline) - Date.parse(pending.startedAt)).toBe(3600 * 1000);
    // No alarm before the deadline.
    expect(await alarmOf(id)).toBe(Date.parse(pending.deadline));
    const started = (await storedEvents(stubFor(id))).filter((event) => event.type === "tool-started");
    expect(started).toEqual([expect.objectContaining({ type: "tool-started", step: 1, callId: "j1", name: "render", deadline: pending.deadline })]);

    // An alarm fired early (the platform may redeliver one) takes no step and sleeps again until the deadline.
    const keysBefore = (await storedEvents(stubFor(id))).length;
    await runDurableObjectAlarm(stubFor(id));
    expect(await alarmOf(id)).toBe(Date.parse(pending.deadline));
    expect((await storedEvents(stubFor(id))).length).toBe(keysBefore);

    const accepted = await sendResult(callback, { content: "https://videos.example/1.mp4", costUsd: 0.05 });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ callId: "j1", answeredAt: expect.any(String) });
    // The callback wakes the run now (the tests' "now" is a year ahead).
    expect(await alarmOf(id)).toBeGreaterThan(Date.now() + 300 * DAY);
    await driveRun(id);
    const done = await getRun(id, token);
    expect(done).toMatchObject({ status: "finished", finalText: "The video is ready." });
    expect(done.pending).toBeUndefined();
    expect(done.spentUsd).toBeCloseTo(0.05, 10);
    expect((await messagesOf(id, token)).find((m) => m.toolCallId === "j1")).toEqual({ role: "tool", toolCallId: "j1", content: "https://videos.example/1.mp4" });
    expect((await jobFor(key)).count).toBe(1);
  });

  it("the callback takes only that call's token: another call's, a run's or the deployment's token is 401, and the callback token opens nothing else", async () => {
    const { id, token, callback } = await oneJob(renderScript);
    const other = await oneJob(renderScript);
    const result = { content: "done" };
    await expectError(await sendResult(callback, result, other.callback.token), 401, "unauthorized");
    await expectError(await sendResult(callback, result, TEST_API_TOKEN), 401, "unauthorized");
    await expectError(await sendResult(callback, result, token), 401, "unauthorized");
    await expectError(await sendResult(callback, result, `ct_${"A".repeat(43)}`), 401, "unauthorized");
    await expectError(await api(new URL(callback.url).pathname, "", { method: "POST", body: JSON.stringify(result), headers: { Authorization: "" } }), 401, "unauthorized");
    // The same call key under another run: the token is bound to its run.
    await expectError(await sendResult({ ...callback, url: callback.url.replace(id, other.id) }, result), 401, "unauthorized");
    for (const [method, path] of [["GET", `/v1/runs/${id}`], ["GET", `/v1/runs/${id}/messages`], ["POST", `/v1/runs/${id}/cancel`], ["POST", `/v1/runs/${id}/tickets`]] as const) {
      await expectError(await api(path, callback.token, { method }), 401, "unauthorized");
    }
    // None of that changed the run.
    expect((await getRun(id, token)).status).toBe("running");
    expect((await sendResult(callback, result)).status).toBe(202);
  });

  it("the first result wins: the same one again is harmless (202), another one is 409, before and after the run took it", async () => {
    const { id, token, callback } = await oneJob(renderScript);
    const first = await sendResult(callback, { content: "first", isError: false });
    expect(first.status).toBe(202);
    const answered = (await first.json()) as { answeredAt: string };
    // The same body, spelled differently, is the same result.
    const again = await sendResult(callback, { isError: false, content: "first" });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ callId: "j1", answeredAt: answered.answeredAt });
    const { error } = await expectError(await sendResult(callback, { content: "second" }), 409, "conflict");
    expect(error.message).toContain("already has a result");
    await driveRun(id);
    expect((await messagesOf(id, token)).find((m) => m.toolCallId === "j1")?.content).toBe("first");
    expect((await sendResult(callback, { content: "first", isError: false })).status).toBe(202);
    await expectError(await sendResult(callback, { content: "second" }), 409, "conflict");
  });

  it("past the deadline the model gets an error result and the run goes on; a late result is 409", async () => {
    const { id, token, callback } = await oneJob([{ toolCalls: [{ id: "j1", name: "render", input: { n: 1 } }] }, { text: "It took too long; I carried on." }]);
    // The deadline has come: the alarm set for it fires (by hand here, with the deadline moved to now).
    await runInDurableObject(stubFor(id), (_instance, state) => void state.storage.sql.exec("UPDATE async_call SET deadline = ?", Date.now() - 1));
    await runDurableObjectAlarm(stubFor(id));
    await driveRun(id);
    expect(await getRun(id, token)).toMatchObject({ status: "finished", finalText: "It took too long; I carried on." });
    expect((await messagesOf(id, token)).find((m) => m.toolCallId === "j1")).toEqual({ role: "tool", toolCallId: "j1", content: "HTTP tool render did not answer within 3600 seconds.", isError: true });
    const { error } = await expectError(await sendResult(callback, { content: "late" }), 409, "conflict");
    expect(error.message).toContain("deadline");
  });

  it("cancel while waiting answers the call 'Not run: cancel.'; a late result is 409", async () => {
    const { id, token, callback } = await oneJob(renderScript);
    const cancelled = await api(`/v1/runs/${id}/cancel`, token, { method: "POST" });
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toMatchObject({ status: "cancelled", stoppedBy: "cancel" });
    expect((await getRun(id, token)).pending).toBeUndefined();
    expect((await messagesOf(id, token)).find((m) => m.toolCallId === "j1")).toEqual({ role: "tool", toolCallId: "j1", content: "Not run: cancel.", isError: true });
    const { error } = await expectError(await sendResult(callback, { content: "too late" }), 409, "conflict");
    expect(error.message).toContain("cancelled");
    // The alarm left is the retention's.
    expect(await alarmOf(id)).toBeGreaterThan(Date.now() + 20 * DAY);
  });

  it("three async calls of one turn are all started before any result, and the turn goes on when all have answered, in reverse order", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "three renders" }],
      tools: [asyncTool("render")],
      minAnswerChars: 0,
      script: [
        { toolCalls: ["a", "b", "c"].map((id, i) => ({ id, name: "render", input: { n: i + 1 } })) },
        { text: "All three are rendered." },
      ],
    });
    await driveUntilAsleep(run.id);
    const jobs = await Promise.all(["a", "b", "c"].map((call) => jobFor(`${run.id}/s1/start/1/${call}`)));
    expect(jobs.map((job) => job.count)).toEqual([1, 1, 1]);
    expect((await getRun(run.id, token)).pending?.map((call) => call.callId)).toEqual(["a", "b", "c"]);

    const watcher = await watch(stubFor(run.id));
    for (const [index, call] of [[2, "c"], [1, "b"]] as const) {
      expect((await sendResult(jobs[index]!.bodies[0]!.callback, { content: `result ${call}` })).status).toBe(202);
      const view = await driveUntilAsleep(run.id);
      // Still waiting on the first call: nothing is taken out of order, and no model call is made.
      expect(view.status).toBe("running");
      expect(view.steps).toBe(1);
    }
    expect((await getRun(run.id, token)).pending?.map((call) => call.callId)).toEqual(["a"]);
    expect((await sendResult(jobs[0]!.bodies[0]!.callback, { content: "result a" })).status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", steps: 2, finalText: "All three are rendered." });
    const results = (await messagesOf(run.id, token)).filter((m) => m.role === "tool");
    expect(results.map((m) => [m.toolCallId, m.content])).toEqual([["a", "result a"], ["b", "result b"], ["c", "result c"]]);
    const tools = watcher.frames.filter((frame) => frame.type === "tool-result").map((frame) => frame.callId);
    expect(tools).toEqual(["a", "b", "c"]);
    for (const call of ["a", "b", "c"]) expect((await jobFor(`${run.id}/s1/start/1/${call}`)).count).toBe(1);
  });

  it("a start answered at once is a normal result (no wait), and an error answer is an error result; neither takes a callback", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [asyncTool("quick", "?answer=now"), asyncTool("broken", "?status=500")],
      script: [{ toolCalls: [{ id: "q", name: "quick", input: { n: 1 } }, { id: "x", name: "broken", input: { n: 2 } }] }, { text: "ok" }],
    });
    await driveRun(run.id);
    const messages = await messagesOf(run.id, token);
    expect(messages.find((m) => m.toolCallId === "q")).toEqual({ role: "tool", toolCallId: "q", content: "answered at once" });
    expect(messages.find((m) => m.toolCallId === "x")).toMatchObject({ isError: true, content: expect.stringMatching(/^HTTP tool broken answered 500/) });
    const events = await storedEvents(stubFor(run.id));
    expect(events.some((event: StoredEvent) => event.type === "tool-started")).toBe(false);
    for (const call of ["q", "x"]) {
      const job = await jobFor(`${run.id}/s1/start/1/${call}`);
      expect(job.count).toBe(1);
      await expectError(await sendResult(job.bodies[0]!.callback, { content: "later" }), 409, "conflict");
    }
  });

  it("a start in flight when the object dies is sent again with the same Idempotency-Key and the same body, callback token and all", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [asyncTool("render", "?ms=300")],
      script: renderScript,
    });
    const key = `${run.id}/s1/start/1/j1`;
    // The tool server holds this request until the start has arrived.
    await killMidToolCall(run.id, async () => expect((await fetch(`${server()}/arrived?key=${encodeURIComponent(key)}`)).status).toBe(200));
    await driveUntilAsleep(run.id);
    const job = await jobFor(key);
    expect(job.count).toBe(2);
    expect(job.bodies[1]).toEqual(job.bodies[0]);
    // Evicted again while it waits: nothing is kept in memory, the result still finds the run.
    await abortAllDurableObjects();
    expect((await sendResult(job.bodies[0]!.callback, { content: "rendered" })).status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished" });
    expect((await jobFor(key)).count).toBe(2);
  });

  it("a run may not ask for a timeout past 7 days, or a timeout on a tool that is not async", async () => {
    const tooLong = await api("/v1/runs", TEST_API_TOKEN, {
      method: "POST",
      body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "x" }], tools: [asyncTool("t", "", { timeoutSeconds: 7 * 24 * 3600 + 1 })] }),
    });
    expect((await expectError(tooLong, 400, "invalid-request")).error.issues).toEqual([expect.objectContaining({ path: "tools.0.timeoutSeconds" })]);
    const notAsync = await api("/v1/runs", TEST_API_TOKEN, {
      method: "POST",
      body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "x" }], tools: [asyncTool("t", "", { async: false, timeoutSeconds: 60 })] }),
    });
    expect((await expectError(notAsync, 400, "invalid-request")).error.issues).toEqual([expect.objectContaining({ path: "tools.0.timeoutSeconds" })]);
  });
});
