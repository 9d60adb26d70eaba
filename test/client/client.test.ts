// The typed client's requests against the real worker in workerd: every method, and every
// refusal surfacing as one RatchetError carrying the API's code.
import { describe, expect, it } from "vitest";
import { createClient, RatchetError, type FetchLike } from "../../src/client";
import { drive as driveStub, stubFor } from "../helpers/runs";
import { BASE, createLab } from "../helpers/self-transport";
import { TEST_API_TOKEN } from "../test-env";

const lab = createLab();
const ratchet = createClient({ baseUrl: `${BASE}/`, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket });

async function drive(runId: string): Promise<void> {
  await driveStub(stubFor(runId));
}

async function refusal(promise: Promise<unknown>): Promise<RatchetError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RatchetError);
  return error as RatchetError;
}

describe("the typed client", () => {
  it("createRun, getRun, getMessages, answer, continueRun", async () => {
    const { run, token } = await ratchet.createRun({
      provider: "scripted",
      system: "Be brief.",
      messages: [{ role: "user", content: "Name?" }],
      tools: ["ask"],
      script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Your name?" } }] }, { text: "Hello, Ada." }, { text: "Still here." }],
      metadata: { from: "client test" },
    });
    expect(run).toMatchObject({ status: "running", provider: "scripted", steps: 0, metadata: { from: "client test" } });
    expect(token).toMatch(/^rt_/);
    const mine = ratchet.withToken(token);
    await drive(run.id);
    expect(await mine.getRun(run.id)).toMatchObject({ status: "waiting", waiting: { kind: "ask", callId: "q", input: { question: "Your name?" } } });
    expect(await mine.answer(run.id, { callId: "q", content: "Ada" })).toMatchObject({ id: run.id });
    await drive(run.id);
    expect(await mine.getRun(run.id)).toMatchObject({ status: "finished", finalText: "Hello, Ada.", steps: 2 });
    expect(await mine.continueRun(run.id, "Are you there?")).toMatchObject({ status: "running" });
    await drive(run.id);
    const messages = await mine.getMessages(run.id);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
    expect(messages[2]).toMatchObject({ role: "tool", toolCallId: "q", content: "Ada" });
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "Still here." });
  });

  it("sendMessage: a running run takes the message in before its next model call; a waiting run refuses it (409)", async () => {
    const { run, token } = await ratchet.createRun({
      provider: "scripted",
      messages: [{ role: "user", content: "Add." }],
      tools: ["calculator", "ask"],
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "c", name: "calculator", input: { expression: "1 + 1" } }] }, { toolCalls: [{ id: "q", name: "ask", input: { question: "More?" } }] }],
    });
    const mine = ratchet.withToken(token);
    // Sent before the run's first slice: it goes in before model call 1.
    expect(await mine.sendMessage(run.id, "Then double it.", { mode: "queue" })).toMatchObject({ status: "running" });
    await drive(run.id);
    expect((await mine.getMessages(run.id)).slice(0, 2)).toEqual([
      { role: "user", content: "Add." },
      { role: "user", content: "Then double it." },
    ]);
    const refused = await refusal(mine.sendMessage(run.id, "Hello?", { mode: "interrupt" }));
    expect(refused.status).toBe(409);
    expect(refused.code).toBe("conflict");
  });

  it("a typed final output: createRun, getRun and the end event type `final` from a generic parameter; compact", async () => {
    type Product = { product: number; prime: boolean };
    const schema = { type: "object", properties: { product: { type: "number" }, prime: { type: "boolean" } }, required: ["product", "prime"] };
    const { run, token } = await ratchet.createRun<Product>({
      provider: "scripted",
      messages: [{ role: "user", content: "17 × 23, prime?" }],
      output: { schema },
      script: [{ toolCalls: [{ id: "f", name: "final_answer", input: { product: 391, prime: false } }] }],
    });
    const mine = ratchet.withToken(token);
    await drive(run.id);
    const done = await mine.getRun<Product>(run.id);
    // Typed: a wrong field would not compile.
    const product: number | undefined = done.final?.product;
    expect({ stoppedBy: done.stoppedBy, product, prime: done.final?.prime }).toEqual({ stoppedBy: "done", product: 391, prime: false });
    const ends: Product[] = [];
    for await (const event of mine.events<Product>(run.id)) {
      if (event.type !== "end") continue;
      if (event.final !== undefined) ends.push(event.final);
      break;
    }
    expect(ends).toEqual([{ product: 391, prime: false }]);
    // Nothing older than the newest turn to summarize: the run is as it was.
    expect(await mine.compact(run.id, { instructions: "Keep the product." })).toMatchObject({ id: run.id, status: "finished", steps: 1 });
    const off = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "Hi" }], compaction: { mode: "off" } });
    await drive(off.run.id);
    expect((await refusal(ratchet.compact(off.run.id))).code).toBe("conflict");
  });

  it("createRun with an idempotency key answers the same run twice", async () => {
    const body = { provider: "scripted" as const, messages: [{ role: "user" as const, content: "once" }] };
    const key = `client-test-${crypto.randomUUID()}`;
    const first = await ratchet.createRun(body, { idempotencyKey: key });
    const second = await ratchet.createRun(body, { idempotencyKey: key });
    expect(second.run.id).toBe(first.run.id);
  });

  it("approve: a denied approval reaches the model as a denial", async () => {
    const { run, token } = await ratchet.createRun({
      provider: "scripted",
      messages: [{ role: "user", content: "Delete it." }],
      tools: [{ type: "http", name: "delete", description: "Deletes.", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/delete", approval: true }],
      script: [{ toolCalls: [{ id: "d", name: "delete", input: {} }] }, { text: "Not deleted." }],
    });
    const mine = ratchet.withToken(token);
    await drive(run.id);
    expect(await mine.getRun(run.id)).toMatchObject({ status: "waiting", waiting: { kind: "approval", callId: "d", name: "delete" } });
    await mine.approve(run.id, "d", false);
    await drive(run.id);
    expect(await mine.getRun(run.id)).toMatchObject({ status: "finished", finalText: "Not deleted." });
    expect((await mine.getMessages(run.id))[2]).toMatchObject({ role: "tool", toolCallId: "d", content: "Denied by the person." });
  });

  it("cancel, and retry of a failed run", async () => {
    const waiting = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "?" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }] });
    await drive(waiting.run.id);
    expect(await ratchet.cancel(waiting.run.id)).toMatchObject({ status: "cancelled", stoppedBy: "cancel" });

    const failing = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "go" }], script: [{ error: "The model is overloaded." }] });
    await drive(failing.run.id);
    expect(await ratchet.getRun(failing.run.id)).toMatchObject({ status: "failed", error: { code: "provider-error" } });
    expect(await ratchet.retry(failing.run.id)).toMatchObject({ status: "running" });
  });

  it("refusals are RatchetErrors with the API's code, status and issues", async () => {
    const bad = await refusal(ratchet.createRun({ messages: [] }));
    expect(bad).toMatchObject({ name: "RatchetError", code: "invalid-request", status: 400, retryable: false });
    expect(bad.issues).toEqual([expect.objectContaining({ path: "messages" })]);
    // The message alone says what to fix: the API's message, then the first issue's path and message.
    expect(bad.message).toBe(`Invalid request body. messages: ${bad.issues![0]!.message}`);

    const unauthorized = await refusal(ratchet.withToken("wrong-token").getRun("run_" + "a".repeat(26)));
    expect(unauthorized).toMatchObject({ code: "unauthorized", status: 401 });

    const { run, token } = await ratchet.createRun({ provider: "scripted", messages: [{ role: "user", content: "hi" }] });
    const forbidden = await refusal(ratchet.withToken(token).createRun({ messages: [{ role: "user", content: "x" }] }));
    expect(forbidden).toMatchObject({ code: "forbidden", status: 403 });

    expect(await refusal(ratchet.getRun("run_" + "b".repeat(26)))).toMatchObject({ code: "not-found", status: 404 });
    expect(await refusal(ratchet.answer(run.id, { callId: "nothing-waits", content: "x" }))).toMatchObject({ code: "conflict", status: 409 });
  });

  it("an answer refused for its shape carries issues like any 400, and the message names the first", async () => {
    const { run, token } = await ratchet.createRun({
      provider: "scripted",
      messages: [{ role: "user", content: "Name?" }],
      tools: ["ask"],
      script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Your name?" } }] }, { text: "Hello." }],
    });
    const mine = ratchet.withToken(token);
    await drive(run.id);
    const refused = await refusal(mine.answer(run.id, { callId: "q", approved: true }));
    expect(refused).toMatchObject({ code: "invalid-request", status: 400, issues: [{ path: "content", message: expect.stringContaining("Required") }] });
    expect(refused.message).toMatch(/^An answer to an ask needs `content`\. content: Required/);
    const several = await refusal(ratchet.createRun({ messages: [], maxSteps: -1 }));
    expect(several.message).toMatch(/\(and \d+ more in \.issues\)$/);
  });

  it("no answer at all is a RatchetError with code network and the cause kept", async () => {
    const cause = new TypeError("fetch failed");
    const offline: FetchLike = () => Promise.reject(cause);
    const error = await refusal(createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: offline }).getRun("run_" + "a".repeat(26)));
    expect(error).toMatchObject({ code: "network", status: 0, retryable: true });
    expect(error.cause).toBe(cause);
  });

  it("an answer that is not the API's keeps its status", async () => {
    const proxy: FetchLike = async () => new Response("<html>Bad gateway</html>", { status: 502 });
    const error = await refusal(createClient({ baseUrl: BASE, token: TEST_API_TOKEN, fetch: proxy }).getRun("run_" + "a".repeat(26)));
    expect(error).toMatchObject({ code: "internal", status: 502, retryable: true });
    expect(error.message).toContain("Bad gateway");
  });
});
