// Client toolsets through the service: the edge, the run object and the loop. One waiting batch
// per toolset and turn, answered in one request (HTTP, WebSocket or the typed client); a failed
// action halts the toolset's later actions, which are reported as not run.
import { describe, expect, it } from "vitest";
import type { RunView, StoredEvent } from "../../src/api/types";
import { createClient } from "../../src/client";
import { createLab, BASE as LAB_BASE } from "../helpers/self-transport";
import { storedEvents, stubFor } from "../helpers/runs";
import { TEST_API_TOKEN } from "../test-env";
import { api, driveRun, getRun, openSocket, startRun } from "../helpers/service-client";

const browser = {
  type: "client-toolset",
  name: "browser",
  actions: [
    { name: "navigate", description: "Open a URL.", inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] } },
    { name: "click", description: "Click an element.", inputSchema: { type: "object", properties: { selector: { type: "string" } }, required: ["selector"] } },
  ],
};
/** A plain client tool named like one of the toolset's actions. */
const plainNavigate = { type: "client", name: "navigate", description: "Something else.", inputSchema: { type: "object" } };

const turn = {
  toolCalls: [
    { id: "b1", name: "browser__navigate", input: { url: "https://example.com" } },
    { id: "b2", name: "browser__click", input: { selector: "#buy" } },
    { id: "b3", name: "browser__click", input: { selector: "#confirm" } },
  ],
};

async function answer(id: string, token: string, body: unknown): Promise<Response> {
  return api(`/v1/runs/${id}/answer`, token, { method: "POST", body: JSON.stringify(body) });
}

async function waitingRun(): Promise<{ run: RunView; token: string }> {
  const { run, token } = await startRun({ messages: [{ role: "user", content: "Buy it." }], tools: [browser, plainNavigate], minAnswerChars: 0, script: [turn, { text: "Done." }] });
  await driveRun(run.id);
  return { run, token };
}

describe("client toolsets through the service", () => {
  it("a turn's actions of a toolset wait as one batch, in order, in the view and the waiting event", async () => {
    const { run, token } = await waitingRun();
    const view = await getRun(run.id, token);
    const batch = [
      { callId: "b1", action: "navigate", input: { url: "https://example.com" } },
      { callId: "b2", action: "click", input: { selector: "#buy" } },
      { callId: "b3", action: "click", input: { selector: "#confirm" } },
    ];
    expect(view).toMatchObject({ status: "waiting", waiting: { kind: "client-toolset", callId: "b1", name: "browser", input: { url: "https://example.com" }, batch } });
    const events = await storedEvents(stubFor(run.id));
    expect(events.at(-1)).toMatchObject({ type: "waiting", kind: "client-toolset", callId: "b1", name: "browser", batch });
    // Nothing of the batch ran or began: no tool-call, no tool-result.
    expect(events.filter((e) => e.type === "tool-call" || e.type === "tool-result")).toEqual([]);
  });

  it("answered in one request, in any order: the results go to the model in call order and the run goes on", async () => {
    const { run, token } = await waitingRun();
    const results = [
      { callId: "b3", content: "Confirmed." },
      { callId: "b1", content: "Loaded." },
      { callId: "b2", content: [{ type: "text", text: "Clicked." }] },
    ];
    const answered = await answer(run.id, token, { callId: "b1", results });
    expect(answered.status).toBe(202);
    // The same answer again changes nothing; another is 409.
    expect((await answer(run.id, token, { callId: "b1", results })).status).toBe(202);
    expect((await answer(run.id, token, { callId: "b1", results: results.slice(1).concat([{ callId: "b3", content: "Other." }]) })).status).toBe(409);
    await driveRun(run.id);
    expect(await getRun(run.id, token)).toMatchObject({ status: "finished", finalText: "Done." });
    const messages = ((await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: { role: string; toolCallId?: string }[] }).messages;
    expect(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual(["b1", "b2", "b3"]);
    const events = await storedEvents(stubFor(run.id));
    expect(events.find((e) => e.type === "answered")).toMatchObject({ callId: "b1", results: [{ callId: "b1", ok: true }, { callId: "b2", ok: true }, { callId: "b3", ok: true }] });
  });

  it("a failed action: the later ones are left out of the answer, get the halt text, and are reported as not run", async () => {
    const { run, token } = await waitingRun();
    const response = await answer(run.id, token, { callId: "b1", results: [{ callId: "b1", content: "Loaded." }, { callId: "b2", content: "No #buy on the page.", isError: true }] });
    expect(response.status, await response.clone().text()).toBe(202);
    await driveRun(run.id);
    const messages = ((await (await api(`/v1/runs/${run.id}/messages`, token)).json()) as { messages: { role: string; toolCallId?: string; content: unknown; isError?: boolean }[] }).messages;
    expect(messages.filter((m) => m.role === "tool")).toEqual([
      { role: "tool", toolCallId: "b1", content: "Loaded." },
      { role: "tool", toolCallId: "b2", content: "No #buy on the page.", isError: true },
      { role: "tool", toolCallId: "b3", content: "Not run: an earlier action of toolset browser failed.", isError: true },
    ]);
    const events = await storedEvents(stubFor(run.id));
    expect(events.find((e) => e.type === "answered")).toMatchObject({ results: [{ callId: "b1", ok: true }, { callId: "b2", ok: false }] });
    const results = events.filter((e): e is Extract<StoredEvent, { type: "tool-result" }> => e.type === "tool-result");
    expect(results).toEqual([expect.objectContaining({ callId: "b3", name: "browser__click", toolset: "browser", ok: false, notRun: true, summary: "Not run: an earlier action of toolset browser failed." })]);
    expect(events.some((e) => e.type === "tool-call")).toBe(false);
  });

  it("answers that do not fit the batch are refused with the action named, and change nothing", async () => {
    const { run, token } = await waitingRun();
    const cases: [unknown, string][] = [
      [{ callId: "b1", results: [{ callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }] }, "results"],
      [{ callId: "b1", results: [{ callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }, { callId: "b3", content: "ok" }, { callId: "b9", content: "ok" }] }, "results.3.callId"],
      [{ callId: "b1", results: [{ callId: "b1", content: "ok" }, { callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }, { callId: "b3", content: "ok" }] }, "results.1.callId"],
      [{ callId: "b1", results: [{ callId: "b1", content: "x", isError: true }, { callId: "b2", content: "ran anyway" }] }, "results.1"],
      [{ callId: "b1", content: "all done" }, "results"],
      [{ callId: "b1", content: "all done", results: [{ callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }, { callId: "b3", content: "ok" }] }, "content"],
    ];
    for (const [body, path] of cases) {
      const response = await answer(run.id, token, body);
      const error = ((await response.json()) as { error: { code: string; issues?: { path: string }[] } }).error;
      expect([response.status, error.code], JSON.stringify(body)).toEqual([400, "invalid-request"]);
      expect(error.issues?.map((issue) => issue.path)).toContain(path);
    }
    expect((await getRun(run.id, token)).status).toBe("waiting");
  });

  it("a batch is answered over the WebSocket and by the typed client", async () => {
    const overSocket = await waitingRun();
    const socket = await openSocket(overSocket.run.id, overSocket.token);
    // Bad images in two results: one refusal names both, and the batch still waits.
    const badImage = [{ type: "image", mimeType: "image/png", data: "not base64!" }];
    socket.send({ type: "answer", callId: "b1", results: [{ callId: "b1", content: badImage }, { callId: "b2", content: "ok" }, { callId: "b3", content: badImage }] });
    const refused = (await socket.next((frame) => frame.type === "error")) as { error: { code: string; issues?: { path: string }[] } };
    expect(refused.error.code).toBe("invalid-request");
    expect(refused.error.issues?.map((issue) => issue.path)).toEqual(["results.0.content.0.data", "results.2.content.0.data"]);
    expect((await getRun(overSocket.run.id, overSocket.token)).status).toBe("waiting");
    socket.send({ type: "answer", callId: "b1", results: [{ callId: "b1", content: "ok" }, { callId: "b2", content: "ok" }, { callId: "b3", content: "ok" }] });
    await socket.next((frame) => frame.type === "answered");
    socket.close();
    expect((await getRun(overSocket.run.id, overSocket.token)).status).toBe("running");

    const lab = createLab();
    const ratchet = createClient({ baseUrl: LAB_BASE, token: TEST_API_TOKEN, fetch: lab.fetch, WebSocket: lab.WebSocket });
    const byClient = await waitingRun();
    const view = await ratchet.answerBatch(byClient.run.id, "b1", [{ callId: "b1", content: "Loaded." }, { callId: "b2", content: "Gone.", isError: true }]);
    expect(view.status).toBe("running");
    await driveRun(byClient.run.id);
    expect(await ratchet.getRun(byClient.run.id)).toMatchObject({ status: "finished" });
  });

  it("a toolset's action names never reach a plain tool: the plain navigate waits as a client tool of its own", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "Go." }],
      tools: [browser, plainNavigate],
      script: [{ toolCalls: [{ id: "p1", name: "navigate", input: { url: "x" } }, { id: "b1", name: "browser__navigate", input: { url: "y" } }] }, { text: "Done." }],
    });
    await driveRun(run.id);
    expect((await getRun(run.id, token)).waiting).toMatchObject({ kind: "client-tool", callId: "p1", name: "navigate" });
    expect((await answer(run.id, token, { callId: "p1", content: "plain" })).status).toBe(202);
    await driveRun(run.id);
    expect((await getRun(run.id, token)).waiting).toMatchObject({ kind: "client-toolset", callId: "b1", name: "browser", batch: [{ callId: "b1", action: "navigate" }] });
  });
});
