// Bodies: size, JSON, Content-Type. All answered by the edge before any run object is asked.
import { describe, expect, it } from "vitest";
import { bearer, call, expectError, postJson } from "../helpers/http";

const MiB = 1024 * 1024;

function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 64 * 1024));
      at += 64 * 1024;
    },
  });
}

describe("413 too-large", () => {
  const big = JSON.stringify({ messages: [{ role: "user", content: "x".repeat(2 * MiB) }] });

  it("with a Content-Length", async () => {
    await expectError(await postJson("/v1/runs", big), 413, "too-large");
  });

  it("without a Content-Length (a stream)", async () => {
    const response = await call("/v1/runs", { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: streamOf(big) });
    await expectError(response, 413, "too-large");
  });

  it("with a Content-Length that lies", async () => {
    const response = await call("/v1/runs", {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json", "Content-Length": "100" },
      body: big,
    });
    await expectError(response, 413, "too-large");
  });

  it("on routes under a run as well", async () => {
    const response = await call("/v1/runs/run_" + "a".repeat(26) + "/answer", {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json" },
      body: streamOf(JSON.stringify({ callId: "c", content: "x".repeat(2 * MiB) })),
    });
    await expectError(response, 413, "too-large");
  });

  it("lets exactly 1 MiB through to validation", async () => {
    const padding = MiB - JSON.stringify({ messages: [], pad: "" }).length;
    const body = JSON.stringify({ messages: [], pad: "x".repeat(padding) });
    expect(new TextEncoder().encode(body).length).toBe(MiB);
    const response = await call("/v1/runs", { method: "POST", headers: { ...bearer(), "Content-Type": "application/json" }, body: streamOf(body) });
    const error = await expectError(response, 400, "invalid-request");
    expect(error.error.issues).toEqual([
      { path: "messages", message: "At least one message is needed." },
      { path: "pad", message: "Unknown field." },
    ]);
  });
});

describe("400 for bodies that are not JSON", () => {
  it.each(["{", "{\"messages\": [", "nul", "{'messages': []}", "\u0000"])("%j", async (text) => {
    await expectError(await postJson("/v1/runs", text), 400, "invalid-request");
  });

  it("a body with another Content-Type", async () => {
    const response = await call("/v1/runs", { method: "POST", headers: { ...bearer(), "Content-Type": "text/plain" }, body: "{}" });
    await expectError(response, 400, "invalid-request");
  });

  it("no body at all", async () => {
    const error = await expectError(await call("/v1/runs", { method: "POST", headers: bearer() }), 400, "invalid-request");
    expect(error.error.issues?.[0]?.path).toBe("messages");
  });

  it("JSON that is not an object", async () => {
    await expectError(await postJson("/v1/runs", "[1,2]"), 400, "invalid-request");
    await expectError(await postJson("/v1/runs", "null"), 400, "invalid-request");
  });
});

describe("the Idempotency-Key header", () => {
  it.each([["x".repeat(256)], ["tab\there"], [""]])("refuses %j", async (key) => {
    const response = await postJson("/v1/runs", { messages: [{ role: "user", content: "hi" }] }, { ...bearer(), "Idempotency-Key": key });
    const error = await expectError(response, 400, "invalid-request");
    expect(error.error.issues?.[0]?.path).toBe("idempotency-key");
  });
});
