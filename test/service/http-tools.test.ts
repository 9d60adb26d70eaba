import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { api, driveRun, getRun, killMidToolCall, startRun } from "../helpers/service-client";

const server = () => inject("toolServerUrl");

async function countFor(key: string): Promise<number> {
  return ((await (await fetch(`${server()}/count?key=${encodeURIComponent(key)}`)).json()) as { count: number }).count;
}

function httpTool(name: string, path: string, extra: Record<string, unknown> = {}) {
  return { type: "http", name, description: `${name} tool`, inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, url: `${server()}${path}`, ...extra };
}

/** Waits until the tool server has received the call (it answers only after `ms`): the server holds this request until then. */
async function arrived(key: string): Promise<void> {
  const response = await fetch(`${server()}/arrived?key=${encodeURIComponent(key)}`);
  if (!response.ok) throw new Error(`The tool server never got ${key}: ${await response.text()}`);
}

async function messagesOf(id: string, token: string) {
  return ((await (await api(`/v1/runs/${id}/messages`, token)).json()) as { messages: { role: string; toolCallId?: string; content: unknown; isError?: boolean }[] }).messages;
}

describe("HTTP tools", () => {
  it("POSTs { runId, callId, name, input } with Idempotency-Key <runId>/<step key>", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [httpTool("echo", "/echo")],
      script: [{ toolCalls: [{ id: "e1", name: "echo", input: { n: 7 } }] }, { text: "ok" }],
    });
    await driveRun(run.id);
    const result = (await messagesOf(run.id, token)).find((m) => m.toolCallId === "e1")!;
    const echoed = JSON.parse(String(result.content)) as { contentType: string; idempotencyKey: string; body: unknown };
    expect(echoed.contentType).toMatch(/^application\/json/);
    expect(echoed.idempotencyKey).toBe(`${run.id}/s1/tool/1/e1`);
    expect(echoed.body).toEqual({ runId: run.id, callId: "e1", name: "echo", input: { n: 7 } });
  });

  it("signs each request with the deployment's TOOL_SIGNING_KEY (Standard Webhooks), webhook-id being the Idempotency-Key", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [httpTool("signed", "/signed")],
      script: [{ toolCalls: [{ id: "s1", name: "signed", input: { n: 1 } }] }, { text: "ok" }],
    });
    await driveRun(run.id);
    const result = (await messagesOf(run.id, token)).find((m) => m.toolCallId === "s1")!;
    expect(JSON.parse(String(result.content))).toMatchObject({ verified: true, id: `${run.id}/s1/tool/1/s1` });
  });

  it("input that fails the tool's JSON Schema is shown to the model like a zod failure, and nothing is sent", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [httpTool("counted", "/count")],
      script: [{ toolCalls: [{ id: "bad", name: "counted", input: { n: "seven" } }] }, { text: "ok" }],
    });
    await driveRun(run.id);
    const reply = (await messagesOf(run.id, token)).find((m) => m.toolCallId === "bad")!;
    expect(reply.isError).toBe(true);
    expect(String(reply.content)).toMatch(/^Invalid input for counted:\n- n: /);
    expect(await countFor(`${run.id}/s1/tool/1/bad`)).toBe(0);
  });

  it("non-2xx answers and timeouts become error results the model sees, and the run goes on", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [httpTool("fail", "/fail")],
      script: [{ toolCalls: [{ id: "f", name: "fail", input: { n: 1 } }] }, { text: "The tool failed; sorry." }],
    });
    await driveRun(run.id);
    const reply = (await messagesOf(run.id, token)).find((m) => m.toolCallId === "f")!;
    expect(reply.isError).toBe(true);
    expect(String(reply.content)).toMatch(/500/);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "The tool failed; sorry." });
  });

  it("a call in flight when the object dies is sent again with the same Idempotency-Key", async () => {
    const { run } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [httpTool("counted", "/count?ms=300")],
      script: [{ toolCalls: [{ id: "k", name: "counted", input: { n: 1 } }] }, { text: "done" }],
    });
    await killMidToolCall(run.id, () => arrived(`${run.id}/s1/tool/1/k`));
    await driveRun(run.id);
    // The first send reached the server (its answer was lost with the object); the resend carries the same key.
    expect(await countFor(`${run.id}/s1/tool/1/k`)).toBe(2);
  });

  it("a `once` tool never runs twice: after a crash mid-call the model gets 'Outcome unknown…'", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [httpTool("pay", "/count?ms=300", { once: true })],
      script: [{ toolCalls: [{ id: "p", name: "pay", input: { n: 100 } }] }, { text: "I could not confirm the payment." }],
    });
    await killMidToolCall(run.id, () => arrived(`${run.id}/s1/tool/1/p`));
    await driveRun(run.id);
    const reply = (await messagesOf(run.id, token)).find((m) => m.toolCallId === "p")!;
    expect(reply).toMatchObject({ isError: true, content: "Outcome unknown: this call may or may not have taken effect." });
    expect(await countFor(`${run.id}/s1/tool/1/p`)).toBe(1);
    expect((await getRun(run.id, token)).status).toBe("finished");
  });
});

describe("images", () => {
  it("an image given as base64 is stored in R2 under the run by its SHA-256 and the run holds only the hash", async () => {
    const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3, 4]);
    const data = btoa(String.fromCharCode(...bytes));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hash = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    const { run, token } = await startRun({
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", mimeType: "image/png", data, path: "pic.png" }] }],
      script: [{ text: "A tiny PNG." }],
    });
    const stored = await env.BLOBS.get(`runs/${run.id}/images/${hash}`);
    expect(stored).not.toBeNull();
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);
    expect(stored!.httpMetadata?.contentType).toBe("image/png");
    const messages = await messagesOf(run.id, token);
    expect(messages[0]!.content).toEqual([{ type: "text", text: "What is this?" }, { type: "image", mimeType: "image/png", hash, path: "pic.png" }]);
  });
});
