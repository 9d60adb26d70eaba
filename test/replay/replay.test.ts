// Recordings through the service (GET /v1/runs/:id/export) replayed on today's code with no
// network: a run with HTTP tools, an ask and its answer, a continue and a fork replay OK with every
// step; a changed loop is caught: a request that differs names the path of its first differing
// field (a recording's requests are deltas with hashes: the one that differs is rebuilt and
// compared), and a step asked for out of order names its key.
import { describe, expect, inject, it } from "vitest";
import { replayRecording } from "../../src/replay/replay";
import { RECORDING_FORMAT, type Recording } from "../../src/replay/recording";
import { RequestDeltaDecoder, RequestDeltaEncoder } from "../../src/replay/request-delta";
import { api, driveRun, startRun } from "../helpers/service-client";
import { mcpUrl } from "../mcp-server/client";
import { TEST_API_TOKEN } from "../test-env";

const server = () => inject("toolServerUrl");
const echo = () => ({ type: "http", name: "echo", description: "echoes", inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, url: `${server()}/echo` });

async function exported(id: string, token: string): Promise<Recording> {
  const response = await api(`/v1/runs/${id}/export`, token);
  expect(response.status).toBe(200);
  return (await response.json()) as Recording;
}

describe("recordings and replay", () => {
  it("a run with HTTP tools, an ask answered, a continue and a fork replay OK, every recorded step asked again", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      tools: [echo(), "ask"],
      minAnswerChars: 0,
      script: [
        { toolCalls: [{ id: "e1", name: "echo", input: { n: 1 } }] },
        { toolCalls: [{ id: "q1", name: "ask", input: { question: "Which?" } }] },
        { text: "Done." },
        { text: "Again." },
      ],
    });
    await driveRun(run.id);
    expect((await api(`/v1/runs/${run.id}/answer`, token, { method: "POST", body: JSON.stringify({ callId: "q1", content: "That one." }) })).status).toBe(202);
    await driveRun(run.id);
    expect((await api(`/v1/runs/${run.id}/messages`, token, { method: "POST", body: JSON.stringify({ content: "Once more." }) })).status).toBe(202);
    await driveRun(run.id);
    const recording = await exported(run.id, token);
    expect(recording.segments).toHaveLength(3);
    expect(recording.journal.map((entry) => entry.key)).toContain("s1/tool/1/e1");
    expect(recording.events.length).toBeGreaterThan(0);
    const entries = recording.segments.reduce((sum, segment) => sum + segment.steps.length, 0);
    // Steps are counted as the run view counts them: model calls.
    expect(await replayRecording(recording)).toEqual({ ok: true, steps: recording.run.steps, entries });
    // The deployment token forks it: the run has no subject, so its own token may not.
    const fork = await api(`/v1/runs/${run.id}/fork`, TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ atStep: 1 }) });
    expect(fork.status).toBe(201);
    const forked = (await fork.json()) as { run: { id: string }; token: string };
    await driveRun(forked.run.id);
    const forkRecording = await exported(forked.run.id, forked.token);
    expect(forkRecording.options.forkedFrom).toEqual({ runId: run.id, step: 1 });
    expect((await replayRecording(forkRecording)).ok).toBe(true);
  });

  it("a run with an MCP server exported before its first step: the recording ends where the loop asks for the server's listing", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: "go" }], mcpServers: [{ name: "docs", url: mcpUrl() }], minAnswerChars: 0, script: [{ text: "Done." }] });
    const recording = await exported(run.id, token);
    expect(recording.segments).toHaveLength(1);
    expect(recording.segments[0]).toMatchObject({ steps: [], end: { kind: "asked", key: "mcp-list/docs" } });
    expect(await replayRecording(recording)).toEqual({ ok: true, steps: 0, entries: 0 });
    await driveRun(run.id);
    const finished = await exported(run.id, token);
    expect(finished.journal.map((entry) => entry.key)).toContain("s1/mcp-list/docs");
    expect(finished.segments[0]!.end).toEqual({ kind: "stopped" });
    expect(await replayRecording(finished)).toEqual({ ok: true, steps: 1, entries: finished.segments[0]!.steps.length });
  });

  it("catches a changed loop: a different request names its first differing field; a step out of order names its key", async () => {
    const { run, token } = await startRun({
      messages: [{ role: "user", content: "go" }],
      system: "Be brief.",
      tools: ["calculator"],
      minAnswerChars: 0,
      script: [{ toolCalls: [{ id: "c1", name: "calculator", input: { expression: "1+2" } }] }, { text: "Three." }],
    });
    await driveRun(run.id);
    const recording = await exported(run.id, token);
    // Today's loop sends "Be brief." as the system prompt: a recording made by a loop that sent another one diverges there.
    const changedRequest = structuredClone(recording);
    expect(recording.format).toBe(RECORDING_FORMAT);
    const models = changedRequest.segments[0]!.steps.filter((step) => step.request !== undefined);
    const decoder = new RequestDeltaDecoder();
    const requests = models.map((step) => decoder.next(step.request!));
    requests[1] = { ...requests[1]!, system: "Be long." };
    const encoder = new RequestDeltaEncoder();
    for (const [i, step] of models.entries()) step.request = encoder.next(requests[i]!);
    expect(await replayRecording(changedRequest)).toMatchObject({ ok: false, segment: 1, key: "model/2", path: "system" });
    // A loop that asked for the tool before the model: the first step asked for is not the recorded one.
    const reordered = structuredClone(recording);
    reordered.segments[0]!.steps.reverse();
    expect(await replayRecording(reordered)).toMatchObject({ ok: false, segment: 1, key: "model/1" });
    // A loop that asks for one more step than the recording holds.
    const shorter = structuredClone(recording);
    expect(recording.segments[0]!.end).toEqual({ kind: "stopped" });
    shorter.segments[0]!.end = { kind: "asked", key: "model/3" };
    expect(await replayRecording(shorter)).toMatchObject({ ok: false, segment: 1, path: expect.stringMatching(/^end\./) });
  });
});
