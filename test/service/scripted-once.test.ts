// A scripted error turn with `once: true` fails the run the first time only, so a retry can be seen
// working offline; its record is durable (once_started, like a `once` tool's start), so a crash
// after it was written does not make the turn fail a second time.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { storedEvents, stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const ONCE = [{ text: "Hello after the retry.", error: "overloaded, try again", once: true }];

describe("a scripted error turn with once", () => {
  it("fails the run (provider-error, retryable), and the retry plays the turn's answer and finishes", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Say hello." }], script: ONCE });
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "failed", error: { code: "provider-error", message: expect.stringContaining("overloaded, try again"), retryable: true } });
    const retried = await api(`/v1/runs/${run.id}/retry`, token, { method: "POST" });
    expect(retried.status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Hello after the retry.", steps: 1 });
    const ends = (await storedEvents(stubFor(run.id))).filter((event) => event.type === "end");
    expect(ends.map((event) => (event as { status: string }).status)).toEqual(["failed", "finished"]);
  });

  it("without once, fails again on every retry", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Say hello." }], script: [{ error: "down for good" }] });
    await driveRun(run.id);
    expect((await api(`/v1/runs/${run.id}/retry`, token, { method: "POST" })).status).toBe(202);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "failed", error: { code: "provider-error" } });
  });

  it("crash point: the object died after recording the failure and before storing it; the alarm's replay answers, never failing twice", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "Say hello." }], script: ONCE });
    // What the crash leaves: the turn's failure recorded (once_started), the run still running.
    await runInDurableObject(stubFor(run.id), (_instance, state) => void state.storage.sql.exec("INSERT INTO once_started (key) VALUES (?)", "scripted-error/0"));
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Hello after the retry." });
  });

  it("once is `true` or absent: anything else is a 400 naming the turn's field", async () => {
    const response = await api("/v1/runs", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ provider: "scripted", messages: [{ role: "user", content: "x" }], script: [{ error: "x", once: false }] }) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { issues: { path: string }[] } };
    expect(body.error.issues.map((issue) => issue.path)).toContain("script.0.once");
  });
});
