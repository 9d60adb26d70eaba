// At most WATCHERS_LIMIT (64) sockets and streams per run object and per inbox: one more is a 429
// in the API's error shape.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, freshSubject } from "../helpers/inbox";
import { expectError } from "../helpers/http";
import { openSocket, openSocketAt, startRun, type Socket } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

const LIMIT = 64;

describe("WATCHERS_LIMIT", () => {
  it("a run takes 64 watchers (sockets and SSE streams together); the 65th is a 429", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "hi" }], script: [{ text: "hello" }] });
    const sockets: Socket[] = [];
    for (let i = 0; i < LIMIT - 1; i++) sockets.push(await openSocket(run.id, token));
    const sse = await SELF.fetch(`${BASE}/v1/runs/${run.id}/events`, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } });
    expect(sse.status).toBe(200);
    const refused = await SELF.fetch(`${BASE}/v1/runs/${run.id}/events`, { headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, Upgrade: "websocket" } });
    const { error } = await expectError(refused, 429, "rate-limited");
    expect(error.message).toContain("WATCHERS_LIMIT");
    expect(refused.headers.get("retry-after")).toBe("60");
    await expectError(await SELF.fetch(`${BASE}/v1/runs/${run.id}/events`, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } }), 429, "rate-limited");
    await sse.body!.cancel();
    for (const socket of sockets) socket.close();
  });

  it("an inbox takes 64 watchers too", async () => {
    const subject = freshSubject("watchers");
    const path = `/v1/inbox/events?subject=${encodeURIComponent(subject)}`;
    const sockets: Socket[] = [];
    for (let i = 0; i < LIMIT; i++) sockets.push(await openSocketAt(path, { Authorization: `Bearer ${TEST_API_TOKEN}` }));
    const refused = await SELF.fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, Upgrade: "websocket" } });
    await expectError(refused, 429, "rate-limited");
    for (const socket of sockets) socket.close();
  });
});
