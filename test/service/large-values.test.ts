// No write can leave a run stuck. Values past a SQLite row's 2 MB (a history holding several tool
// answers of a megabyte, a large event) are spilled into chunk rows and read back whole; a
// storage error that remains, and a run past this deployment's storage limits, end the run
// `failed` with a clear error instead of failing again at every alarm.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { ChatMessage } from "../../src/loop/types";
import { runSlice } from "../../src/durable/engine/engine";
import { Fanout } from "../../src/durable/events/readers/fanout";
import { createRun, drive, storedEvents, stubFor, valueOf, viewOf } from "../helpers/runs";
import { api, driveRun, readSse, startRun } from "../helpers/service-client";

const server = inject("toolServerUrl");
const large = { type: "http", name: "fetch_page", description: "A large page.", inputSchema: { type: "object" }, url: `${server}/large?kb=900` };
const page = (id: string) => ({ id, name: "fetch_page", input: { page: id } });

describe("values too large for a row", () => {
  it("a run whose three HTTP tool answers are ~0.9 MB each finishes, and its history reads back whole", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Read three pages." }],
      tools: [large],
      minAnswerChars: 0,
      script: [{ toolCalls: [page("p1"), page("p2")] }, { toolCalls: [page("p3")] }, { text: "Read them all." }],
    });
    await driveRun(run.id, 20);
    const view = (await (await api(`/v1/runs/${run.id}`, token)).json()) as { status: string; finalText: string; steps: number };
    expect(view).toMatchObject({ status: "finished", finalText: "Read them all.", steps: 3 });
    const { messages } = (await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: ChatMessage[] };
    const results = messages.filter((message) => message.role === "tool");
    expect(results.map((message) => message.role === "tool" && message.toolCallId)).toEqual(["p1", "p2", "p3"]);
    for (const message of results) {
      const content = message.content as string;
      expect(content.slice(0, 40)).toBe(`${message.role === "tool" ? message.toolCallId : ""}:${"é".repeat(40 - 3)}`);
      expect(new TextEncoder().encode(content).byteLength).toBeGreaterThanOrEqual(900 * 1024 - 1);
    }
    // The spilled values are chunk rows; the history alone is past a row's 2 MB.
    expect(new TextEncoder().encode(JSON.stringify(messages)).byteLength).toBeGreaterThan(2_700_000);
    const chunks = await runInDurableObject(stubFor(run.id), (_instance, state) => Number(state.storage.sql.exec("SELECT COUNT(*) AS n FROM spill").one().n));
    expect(chunks).toBeGreaterThan(3);
    const events = await readSse(await api(`/v1/runs/${run.id}/events`, token, { headers: { Accept: "text/event-stream" } }), (data) => data.type === "end");
    expect(events.at(-1)!.data).toMatchObject({ type: "end", status: "finished" });
  });

  it("a final output and an event of more than 2 MB are stored and sent whole", async () => {
    const finalText = "ü".repeat(1_200_000); // 2.4 MB as UTF-8
    const { stub } = await createRun({ script: [{ text: finalText, chunk: 1_000_000 }] });
    await drive(stub);
    expect((await viewOf(stub)).finalText).toBe(finalText);
    const events = await storedEvents(stub);
    const model = events.find((event) => event.type === "model");
    expect(model !== undefined && model.type === "model" && model.text).toBe(finalText);
    expect(events.at(-1)).toMatchObject({ type: "end", finalText });
  });
});

describe("errors that remain end the run", () => {
  it("a storage error (a key past SQLite's limit) fails the run once, clearly, and the alarm does not retry it", async () => {
    // A call id of 17 MB: a key cannot be spilled, and SQLite refuses it (SQLITE_TOOBIG). A deployed
    // object refuses a string past 2 MB; the local workerd (1.20261117) takes up to between 8 and 16 MB,
    // and moving 17 MB through the run's body and events takes it ~20 s on a busy 2-core machine.
    const id = "c".repeat(17_000_000);
    const { stub } = await createRun({ tools: ["calculator"], script: [{ toolCalls: [{ id, name: "calculator", input: { expression: "1 + 1" } }] }, { text: "never" }] });
    expect(await drive(stub)).toBe(1);
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "failed", stoppedBy: "error", error: { code: "storage", retryable: false } });
    expect(view.error!.message).toContain("SQLITE_TOOBIG");
    expect(view.error!.message).not.toMatch(/\bat .+:\d+:\d+/);
    expect((await storedEvents(stub)).at(-1)).toMatchObject({ type: "end", status: "failed", error: { code: "storage" } });
    expect(await drive(stub)).toBe(0);
  }, 120_000);

  async function sliceWith(stub: ReturnType<typeof stubFor>, settings: Record<string, string>): Promise<void> {
    await runInDurableObject(stub, async (_instance, state) => {
      const limited = { ...env, ...settings } as unknown as Env;
      await runSlice({ ctx: state, env: limited, fanout: new Fanout(state), fetch, now: () => Date.now() }, new AbortController());
    });
  }

  it("RUN_EVENTS_LIMIT: a run that reaches it fails with a `limit` error naming the setting", async () => {
    const turns = Array.from({ length: 20 }, (_v, i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] }));
    const { stub } = await createRun({ tools: ["calculator"], maxSteps: 30, script: turns });
    await sliceWith(stub, { RUN_EVENTS_LIMIT: "12" });
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "failed", error: { code: "limit", retryable: false } });
    expect(view.error!.message).toContain("RUN_EVENTS_LIMIT");
    expect(view.lastSeq).toBeLessThanOrEqual(12 + 4);
  });

  it("RUN_BYTES_LIMIT: a run that reaches it fails with a `limit` error naming the setting", async () => {
    const turns = Array.from({ length: 20 }, (_v, i) => ({ text: "w".repeat(20_000), toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: `${i} + 1` } }] }));
    const { stub } = await createRun({ tools: ["calculator"], maxSteps: 30, script: turns });
    await sliceWith(stub, { RUN_BYTES_LIMIT: "200000" });
    const view = await viewOf(stub);
    expect(view).toMatchObject({ status: "failed", error: { code: "limit" } });
    expect(view.error!.message).toContain("RUN_BYTES_LIMIT");
    expect(view.steps).toBeLessThan(20);
  });

  it("a failed limit run is not a stuck one: GET answers and retry is refused only by the limit again", async () => {
    const { stub, id } = await createRun({ tools: ["calculator"], script: Array.from({ length: 8 }, (_v, i) => ({ toolCalls: [{ id: `c${i}`, name: "calculator", input: { expression: "1" } }] })) });
    await sliceWith(stub, { RUN_EVENTS_LIMIT: "3" });
    expect((await viewOf(stub)).status).toBe("failed");
    valueOf(await stub.retry());
    await sliceWith(stub, { RUN_EVENTS_LIMIT: "3" });
    expect(await viewOf(stub)).toMatchObject({ status: "failed", error: { code: "limit" } });
    expect((await SELF.fetch(`https://ratchet.test/v1/runs/${id}`)).status).toBe(401);
  });
});
