// A scripted turn's `hold`: the model call waits until the test releases the hold's name (the
// local-only POST /v1/runs/:id/scripted/holds/:name/release), so a test acts while a call is known
// to be in flight, with no timer to race. The release is the run's, stored: it survives the object's
// eviction, and one that comes before the hold is reached is not lost; a held call that dies with
// its object is made again and holds again until released.
import { abortAllDurableObjects, env, evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../src/api/types";
import { createApp } from "../../src/http/app";
import { expectError, postJson } from "../helpers/http";
import { journalKeys, storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, releaseHold, startRun } from "../helpers/service-client";
import { watch } from "../helpers/watch";
import { TEST_API_TOKEN } from "../test-env";

const ask = { messages: [{ role: "user", content: "Work on it." }], tools: ["calculator"], minAnswerChars: 0 };

async function send(id: string, token: string, content: string, mode: "queue" | "interrupt"): Promise<void> {
  const response = await api(`/v1/runs/${id}/messages`, token, { method: "POST", body: JSON.stringify({ content, mode }) });
  expect(response.status, await response.text()).toBe(202);
}

async function history(id: string, token: string): Promise<string[]> {
  const { messages } = (await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: { role: string; content: unknown }[] };
  return messages.filter((message) => message.role !== "tool").map((message) => `${message.role}:${String(message.content)}`);
}

const userMessages = (events: StoredEvent[]) => events.flatMap((event) => (event.type === "user-message" ? [[event.step, event.mode]] : []));

describe("a scripted turn's hold", () => {
  it("keeps the model call in flight until released: an interrupt finds it there, and the call made again holds again", async () => {
    const { run, token } = await startRun({ ...ask, script: [{ hold: "think", text: "Held answer." }] });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    await watcher.next((frame) => frame.type === "step-start");
    // Only a call still in flight is interrupted (a finished run would be continued instead).
    await send(run.id, token, "Make it short.", "interrupt");
    expect((await journalKeys(stub)).filter((key) => key.includes("/model/"))).toEqual([]);
    await releaseHold(run.id, "think");
    await alarm;
    await driveRun(run.id);
    watcher.close();
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Held answer.", steps: 1 });
    const events = await storedEvents(stub);
    expect(userMessages(events)).toEqual([[1, "interrupt"]]);
    expect(await history(run.id, token)).toEqual(["user:Work on it.", "user:Make it short.", "assistant:Held answer."]);
  });

  it("a message sent while the call holds goes in before the next model call", async () => {
    const { run, token } = await startRun({
      ...ask,
      script: [{ hold: "first", text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "17 * 23" } }] }, { text: "Done, with your note." }],
    });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    await watcher.next((frame) => frame.type === "step-start");
    await send(run.id, token, "Round it to tens.", "queue");
    await releaseHold(run.id, "first");
    await alarm;
    await driveRun(run.id);
    watcher.close();
    expect(userMessages(await storedEvents(stub))).toEqual([[2, "queue"]]);
    expect(await history(run.id, token)).toEqual(["user:Work on it.", "assistant:Adding.", "user:Round it to tens.", "assistant:Done, with your note."]);
  });

  it("a release before the hold is reached is kept, across the object's eviction", async () => {
    const { run, token } = await startRun({ ...ask, script: [{ text: "One.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+1" } }] }, { hold: "later", text: "Two." }] });
    await releaseHold(run.id, "later");
    await evictDurableObject(stubFor(run.id));
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Two.", steps: 2 });
  });

  it("a held call whose object dies is made again after the restart and holds again, until released", async () => {
    const { run, token } = await startRun({ ...ask, script: [{ hold: "crash", text: "Adding.", toolCalls: [{ id: "c1", name: "calculator", input: { expression: "2+2" } }] }, { text: "It is 4." }] });
    const first = await watch(stubFor(run.id));
    const dying = runDurableObjectAlarm(stubFor(run.id)).catch((error: unknown) => error);
    await first.next((frame) => frame.type === "step-start");
    await abortAllDurableObjects();
    await dying;
    // After an abort every stub is broken: a new one, as a client would. A read re-arms the alarm.
    const stub = stubFor(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "running", steps: 0 });
    const second = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    // The step's second try begins (its live text-reset) and holds again: nothing is committed.
    await second.next((frame) => frame.type === "text-reset");
    expect(await journalKeys(stub)).toEqual([]);
    await releaseHold(run.id, "crash");
    await alarm;
    await driveRun(run.id);
    second.close();
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "It is 4.", steps: 2 });
    expect(await journalKeys(stub)).toEqual(["s1/model/1", "s1/tool/1/c1", "s1/model/2"]);
  });

  it("cancel ends a held call", async () => {
    const { run, token } = await startRun({ ...ask, script: [{ hold: "never", text: "Unreached." }] });
    const stub = stubFor(run.id);
    const watcher = await watch(stub);
    const alarm = runDurableObjectAlarm(stub);
    await watcher.next((frame) => frame.type === "step-start");
    expect((await api(`/v1/runs/${run.id}/cancel`, token, { method: "POST" })).status).toBe(202);
    await alarm;
    watcher.close();
    expect(await getRun(run.id, token)).toMatchObject({ status: "cancelled", steps: 0 });
  });
});

describe("the hold's name and its release route", () => {
  it("a turn's hold is a short name (1 to 64 letters, digits, '.', '_' or '-'): else 400 with the issue at its path", async () => {
    for (const hold of ["", "a b", "x".repeat(65), 7]) {
      const response = await postJson("/v1/runs", { provider: "scripted", messages: [{ role: "user", content: "hi" }], script: [{ text: "a" }, { hold }] });
      const body = await expectError(response, 400, "invalid-request");
      expect(body.error.issues?.map((issue) => issue.path)).toEqual(["script.1.hold"]);
    }
  });

  it("the route: the deployment token only (a run token is 403), a known run (else 404), a valid name (else 400)", async () => {
    const { run, token } = await startRun({ ...ask, script: [{ text: "a" }] });
    await expectError(await api(`/v1/runs/${run.id}/scripted/holds/x/release`, token, { method: "POST" }), 403, "forbidden");
    await expectError(await api(`/v1/runs/${run.id}/scripted/holds/x/release`, "not-a-token", { method: "POST" }), 401, "unauthorized");
    await expectError(await api(`/v1/runs/run_doesnotexist00000000000/scripted/holds/x/release`, TEST_API_TOKEN, { method: "POST" }), 404, "not-found");
    const bad = await expectError(await api(`/v1/runs/${run.id}/scripted/holds/${"x".repeat(65)}/release`, TEST_API_TOKEN, { method: "POST" }), 400, "invalid-request");
    expect(bad.error.issues?.map((issue) => issue.path)).toEqual(["name"]);
    await releaseHold(run.id, "x");
    await releaseHold(run.id, "x");
  });

  it("is not there where SCRIPTED_PROVIDER is off: 404 naming the setting, before any token is looked at", async () => {
    const { run } = await startRun({ ...ask, script: [{ text: "a" }] });
    const off = { ...env, SCRIPTED_PROVIDER: "off" } as unknown as Env;
    for (const headers of [{ Authorization: `Bearer ${TEST_API_TOKEN}` }, {}] as Record<string, string>[]) {
      const response = await createApp().request(`https://ratchet.example.com/v1/runs/${run.id}/scripted/holds/x/release`, { method: "POST", headers }, off);
      expect((await expectError(response, 404, "not-found")).error.message).toContain("SCRIPTED_PROVIDER=on");
    }
  });

  it("is not in the OpenAPI document, which describes the deployed API", async () => {
    const doc = (await (await api("/v1/openapi.json", TEST_API_TOKEN)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((path) => path.includes("scripted"))).toEqual([]);
  });
});
