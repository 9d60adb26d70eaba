// Checking a run token or redeeming a ticket reads only what it needs (the token's hash, the
// ticket's row), never the run's body: a flood of made-up tokens costs the run's object one small
// read each. Shown with a run whose body cannot be read at all.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunObject } from "../../src/durable/run/run-object";
import { stubFor } from "../helpers/runs";
import { api, startRun } from "../helpers/service-client";
import { expectError } from "../helpers/http";

describe("token checks never read the run's body", () => {
  it("a run whose stored body is unreadable still answers wrong tokens with 404, and its own token gets a ticket that opens its stream", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] });
    await runInDurableObject(stubFor(run.id) as unknown as DurableObjectStub<RunObject>, (_instance, state) => {
      state.storage.sql.exec("UPDATE run_body SET body = ?", "{ not json");
    });
    for (let i = 0; i < 3; i++) await expectError(await api(`/v1/runs/${run.id}/tickets`, `rt_${"Q".repeat(43)}`, { method: "POST" }), 404, "not-found");
    const ticketed = await api(`/v1/runs/${run.id}/tickets`, token, { method: "POST" });
    expect(ticketed.status).toBe(201);
    const { ticket } = (await ticketed.json()) as { ticket: string };
    const stream = await api(`/v1/runs/${run.id}/events?ticket=${ticket}`, "", { headers: { Authorization: "", Accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });
});
