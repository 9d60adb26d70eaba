// A run goes away: on DELETE by the deployment token, and by itself RUN_RETENTION_DAYS after it
// stops. Either way its watchers are closed, its alarm, storage and blobs deleted, and its id
// answers 404 from then on and is never used again.
import { env, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readRun } from "../../src/durable/run/store/run-store";
import { stubFor } from "../helpers/runs";
import { expectError } from "../helpers/http";
import { TEST_API_TOKEN } from "../test-env";
import { api, BASE, DEPLOY, driveRun, openSocket, startRun } from "../helpers/service-client";

// A 1×1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const GIF = btoa("GIF89a\x01\x00\x01\x00");
const DAY = 24 * 3600 * 1000;

async function blobsOf(runId: string): Promise<string[]> {
  return (await env.BLOBS.list({ prefix: `runs/${runId}/` })).objects.map((object) => object.key);
}

async function tablesOf(runId: string): Promise<string[]> {
  return runInDurableObject(stubFor(runId), (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name")
      .toArray()
      .map((row) => row.name),
  );
}

async function alarmOf(runId: string): Promise<number | null> {
  return runInDurableObject(stubFor(runId), (_instance, state) => state.storage.getAlarm());
}

async function gone(runId: string, token: string): Promise<void> {
  await expectError(await api(`/v1/runs/${runId}`, TEST_API_TOKEN), 404, "not-found");
  await expectError(await api(`/v1/runs/${runId}`, token), 404, "not-found");
  await expectError(await api(`/v1/runs/${runId}/messages`, TEST_API_TOKEN), 404, "not-found");
  await expectError(await SELF.fetch(`${BASE}/v1/runs/${runId}/events`, { headers: { ...DEPLOY, Accept: "text/event-stream" } }), 404, "not-found");
  expect(await blobsOf(runId)).toEqual([]);
  expect(await tablesOf(runId)).toEqual(["deleted"]);
  expect(await alarmOf(runId)).toBeNull();
}

describe("DELETE /v1/runs/:id", () => {
  it("cancels a running run, closes its sockets, deletes its storage, alarm and every blob; then 404", async () => {
    const key = { "Idempotency-Key": `delete-${crypto.randomUUID()}` };
    const body = {
      messages: [{ role: "user", content: [{ type: "text", text: "Look." }, { type: "image", mimeType: "image/png", data: PNG }] }],
      tools: ["ask"],
      script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Another picture?" } }] }, { text: "Thinking…", hold: "never" }],
    };
    const { run, token } = await startRun(body, key);
    await driveRun(run.id);
    await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q", content: [{ type: "image", mimeType: "image/gif", data: GIF }] }) });
    expect(await blobsOf(run.id)).toHaveLength(2);
    const socket = await openSocket(run.id, token);
    // The run is now in a model call that holds until released (never): the delete must not wait for it.
    const slice = runDurableObjectAlarm(stubFor(run.id)).catch(() => undefined);
    await socket.next((frame) => frame.type === "step-start" && frame.step === 2);

    const deleted = await api(`/v1/runs/${run.id}`, TEST_API_TOKEN, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(await socket.closed).toBe(4001);
    await slice;
    await gone(run.id, token);

    // The id is never used again, even by a retried create with the same Idempotency-Key.
    const again = await SELF.fetch(`${BASE}/v1/runs`, { method: "POST", headers: { ...DEPLOY, "Content-Type": "application/json", ...key }, body: JSON.stringify({ provider: "scripted", ...body }) });
    const { error } = await expectError(again, 409, "conflict");
    expect(error.message).toContain("deleted");
    await expectError(await api(`/v1/runs/${run.id}`, TEST_API_TOKEN, { method: "DELETE" }), 404, "not-found");
    expect(await tablesOf(run.id)).toEqual(["deleted"]);
  });

  it("deletes a finished run and leaves every other run's blobs alone", async () => {
    const image = [{ type: "image", mimeType: "image/png", data: PNG }];
    const a = await startRun({ messages: [{ role: "user", content: image }], script: [{ text: "a" }] });
    const b = await startRun({ messages: [{ role: "user", content: image }], script: [{ text: "b" }] });
    await driveRun(a.run.id);
    expect((await api(`/v1/runs/${a.run.id}`, TEST_API_TOKEN, { method: "DELETE" })).status).toBe(204);
    await gone(a.run.id, a.token);
    expect(await blobsOf(b.run.id)).toHaveLength(1);
    expect((await api(`/v1/runs/${b.run.id}/messages`, b.token)).status).toBe(200);
  });
});

describe("two DELETEs of one run at once", () => {
  it("answer 204 and 204 or 404, never 500, whether the run was running or finished", async () => {
    for (const finished of [false, true]) {
      const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] });
      if (finished) await driveRun(run.id);
      const statuses = await Promise.all([0, 1, 2].map(() => api(`/v1/runs/${run.id}`, TEST_API_TOKEN, { method: "DELETE" }).then((response) => response.status)));
      expect(statuses.filter((status) => status === 204).length).toBeGreaterThanOrEqual(1);
      expect(statuses.every((status) => status === 204 || status === 404)).toBe(true);
      await expectError(await api(`/v1/runs/${run.id}`, TEST_API_TOKEN), 404, "not-found");
    }
  });
});

describe("retention", () => {
  it("a run that stops is set to delete itself RUN_RETENTION_DAYS later; an early alarm changes nothing", async () => {
    const { run } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "done" }] });
    const before = Date.now();
    await driveRun(run.id);
    const alarm = (await alarmOf(run.id))!;
    expect(alarm - before).toBeGreaterThanOrEqual(30 * DAY - 1000);
    expect(alarm - Date.now()).toBeLessThanOrEqual(30 * DAY);
    expect(await runDurableObjectAlarm(stubFor(run.id))).toBe(true);
    expect((await api(`/v1/runs/${run.id}`, TEST_API_TOKEN)).status).toBe(200);
    expect(await alarmOf(run.id)).toBe(alarm);
  });

  it("when the retention is over the alarm deletes the run and its blobs", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: [{ type: "image", mimeType: "image/png", data: PNG }] }], script: [{ text: "done" }] });
    await driveRun(run.id);
    expect(await blobsOf(run.id)).toHaveLength(1);
    await runInDurableObject(stubFor(run.id), (_instance, state) => void state.storage.sql.exec("UPDATE run SET delete_at = ?", Date.now() - 1));
    expect(await runDurableObjectAlarm(stubFor(run.id))).toBe(true);
    await gone(run.id, token);
  });

  it("a run that waits for the person counts from when it began to wait; answering it stops the clock until it stops again", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }, { text: "ok" }] });
    await driveRun(run.id);
    const waitingDeleteAt = await runInDurableObject(stubFor(run.id), (_instance, state) => readRun(state.storage.sql)!.deleteAt);
    expect(waitingDeleteAt).toBeGreaterThan(Date.now() + 29 * DAY);
    expect(await alarmOf(run.id)).toBe(waitingDeleteAt);
    await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q", content: "yes" }) });
    expect(await runInDurableObject(stubFor(run.id), (_instance, state) => readRun(state.storage.sql)!.deleteAt)).toBeUndefined();
    await driveRun(run.id);
    expect(await runInDurableObject(stubFor(run.id), (_instance, state) => readRun(state.storage.sql)!.deleteAt)).toBeGreaterThanOrEqual(waitingDeleteAt!);
  });

  it("a deleted run leaves only a tombstone behind: its storage is given back", async () => {
    const before = (await listDurableObjectIds(env.RUNS)).length;
    const { run } = await startRun({ system: "x".repeat(900_000), messages: [{ role: "user", content: "hi" }], script: [{ text: "done" }] });
    await driveRun(run.id);
    const size = () => runInDurableObject(stubFor(run.id), (_instance, state) => state.storage.sql.databaseSize);
    expect(await size()).toBeGreaterThan(900_000);
    await api(`/v1/runs/${run.id}`, TEST_API_TOKEN, { method: "DELETE" });
    expect((await listDurableObjectIds(env.RUNS)).length).toBe(before + 1);
    expect(await size()).toBeLessThan(64 * 1024);
  });
});
