// What an inbox keeps: events for INBOX_EVENTS_DAYS (a cursor before the oldest kept one is a 410
// cursor-expired naming it), and nothing of a deleted run's question, input or metadata. A listing
// says where the stream stands (lastSeq), so a client lists, then follows from there.
import { runInDurableObject, SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunsPage } from "../../src/api/types";
import type { InboxObject } from "../../src/durable/inbox/inbox-object";
import { inboxStub } from "../../src/durable/inbox/inbox-stub";
import { BASE, createWith, freshSubject, settle } from "../helpers/inbox";
import { expectError } from "../helpers/http";
import { readSse } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const DEPLOY = { Authorization: `Bearer ${TEST_API_TOKEN}` };
const asking = (question: string) => ({ tools: ["ask"], metadata: { note: "private" }, script: [{ toolCalls: [{ id: "q", name: "ask", input: { question } }] }, { text: "Thanks." }] });

const stream = (subject: string, after: number) =>
  SELF.fetch(`${BASE}/v1/inbox/events?subject=${encodeURIComponent(subject)}&after=${after}`, { headers: { ...DEPLOY, Accept: "text/event-stream" } });

async function page(subject: string): Promise<RunsPage> {
  return (await (await SELF.fetch(`${BASE}/v1/runs?subject=${encodeURIComponent(subject)}`, { headers: DEPLOY })).json()) as RunsPage;
}

describe("inbox retention", () => {
  it("events older than INBOX_EVENTS_DAYS are trimmed; a cursor before the oldest kept is 410 cursor-expired naming it", async () => {
    const subject = freshSubject("trim");
    const first = await createWith(TEST_API_TOKEN, { subject, script: [{ text: "done" }] });
    await settle(first.run.id);
    expect((await page(subject)).lastSeq).toBe(2);
    // Those two events are 31 days old now.
    await runInDurableObject(inboxStub(env, subject) as unknown as DurableObjectStub<InboxObject>, (_instance, state) => {
      state.storage.sql.exec("UPDATE event SET at = ?", new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString());
    });
    const second = await createWith(TEST_API_TOKEN, { subject, script: [{ text: "done" }] });
    await settle(second.run.id);
    const { error } = await expectError(await stream(subject, 0), 410, "cursor-expired");
    expect(error.message).toContain("the oldest is 3");
    expect(error.message).toContain("INBOX_EVENTS_DAYS");
    // From the oldest kept one on, the stream serves.
    const kept = await stream(subject, 2);
    expect(kept.status).toBe(200);
    expect((await readSse(kept, (data) => data.seq === 4)).map((event) => event.id)).toEqual(["3", "4"]);
    expect((await page(subject)).lastSeq).toBe(4);
  });

  it("deleting a run redacts its inbox events: no question, input or metadata stays", async () => {
    const subject = freshSubject("redact");
    const { run } = await createWith(TEST_API_TOKEN, { subject, ...asking("What is your passport number?") });
    await settle(run.id);
    expect((await (await SELF.fetch(`${BASE}/v1/runs/${run.id}`, { method: "DELETE", headers: DEPLOY })).status)).toBe(204);
    await settle(run.id);
    const events = await readSse(await stream(subject, 0), (data) => data.type === "run-deleted");
    expect(events.map((event) => event.data.type)).toEqual(["run-started", "run-waiting", "run-deleted"]);
    const text = JSON.stringify(events);
    expect(text).not.toContain("passport");
    expect(text).not.toContain("private");
    for (const event of events) expect(event.data).toMatchObject({ redacted: true, run: { id: run.id } });
  });

  it("a listing's lastSeq is where the stream stands: following from it gives only later changes", async () => {
    const subject = freshSubject("follow");
    const before = await createWith(TEST_API_TOKEN, { subject, script: [{ text: "done" }] });
    await settle(before.run.id);
    const { lastSeq } = await page(subject);
    const after = await createWith(TEST_API_TOKEN, { subject, script: [{ text: "done" }] });
    await settle(after.run.id);
    const events = await readSse(await stream(subject, lastSeq!), (data) => data.type === "run-ended");
    expect(events.map((event) => (event.data.run as { id: string }).id)).toEqual([after.run.id, after.run.id]);
  });
});
