// One redaction (docs/api.md, "What leaves the service"): a secret planted in every place a body can
// hold one (MCP servers' headers, and the userinfo, a query value and the fragment of every URL: MCP
// servers', HTTP tools', the run's webhook; at the top level and in agent templates at depth 1 and
// 2, and a schedule's run template the same) is found in no answer of any route that returns a body's
// fields: the run view, messages, export, listing, events over SSE, the inbox's events, the child
// runs' views and exports, a fork's answer, view, messages and export (its body and copied journal
// rows are the source's), the schedule views, and a stored agent's every way out (its create answer,
// view, version, listing, A2A card, MCP tools/list, and a run of it). The webhooks and spans of such
// a run are checked in their own projects (test/webhooks/redaction.test.ts, test/otel-capture/redaction.test.ts).
import { describe, expect, it } from "vitest";
import { replayRecording } from "../../src/replay/replay";
import type { Recording } from "../../src/replay/recording";
import { freshSubject, userToken } from "../helpers/inbox";
import { mcpUrl } from "../mcp-server/client";
import { finishedPlantedTree, plantedIn, plantedTemplate, plantedWebhook } from "../helpers/planted-secret";
import { createSchedule, patchSchedule, scheduleCall } from "../helpers/schedules";
import { api, readSse } from "../helpers/service-client";
import { TEST_API_TOKEN } from "../test-env";

/** The answer's text, after checking its status. */
async function read(path: string, token: string, init: RequestInit = {}): Promise<string> {
  const response = await api(path, token, init);
  const text = await response.text();
  expect(response.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  return text;
}

/** Where the planted test MCP server's URL is shown: its host and path, its query's name. */
const shownMcpUrl = () => `${mcpUrl()}?api_key=REDACTED`;

async function sseText(path: string, token: string, stop: (data: Record<string, unknown>) => boolean): Promise<string> {
  const response = await api(path, token, { headers: { Accept: "text/event-stream" } });
  expect(response.status, path).toBe(200);
  return JSON.stringify(await readSse(response, stop));
}

describe("what leaves the service", () => {
  it("no route that shows a run or its body shows a planted MCP header value or URL credential, at any depth", async () => {
    const subject = freshSubject("redaction");
    const userToken_ = await userToken(subject);
    const { root: run, token, tree } = await finishedPlantedTree({ subject });

    const shown: [string, string][] = [];
    for (const view of tree) {
      for (const who of [TEST_API_TOKEN, userToken_]) {
        shown.push([`view ${view.id}`, await read(`/v1/runs/${view.id}`, who)]);
        shown.push([`messages ${view.id}`, await read(`/v1/runs/${view.id}/messages`, who)]);
        shown.push([`export ${view.id}`, await read(`/v1/runs/${view.id}/export`, who)]);
      }
      shown.push([`events ${view.id}`, await sseText(`/v1/runs/${view.id}/events?after=0`, TEST_API_TOKEN, (data) => data.type === "end")]);
    }
    shown.push(["root's export by its run token", await read(`/v1/runs/${run.id}/export`, token)]);
    shown.push(["listing", await read("/v1/runs", userToken_)]);
    shown.push(["inbox events", await sseText("/v1/inbox/events", userToken_, (data) => data.type === "run-ended" && (data.run as { id: string }).id === run.id)]);

    // The test saw the recordings it searched: the MCP servers, the HTTP tool and the webhook are there, by name and shown url.
    const recording = JSON.parse(shown.find(([what]) => what === `export ${run.id}`)![1]) as Recording;
    expect(recording.options.body.mcpServers).toEqual([{ name: "top", url: shownMcpUrl() }]);
    expect(recording.options.body.tools).toContainEqual(expect.objectContaining({ type: "http", name: "top_http", url: expect.stringMatching(/\/echo\?api_key=REDACTED$/) }));
    expect(recording.options.body.webhook).toEqual({ url: expect.stringMatching(/\/hooks\/planted\?api_key=REDACTED$/) });
    for (const [what, text] of shown) expect(plantedIn(text), what).toBeUndefined();
  });

  it("a redacted export still replays: its MCP calls come from the journal, headers are not part of a model request", async () => {
    const { root: run } = await finishedPlantedTree();
    const recording = JSON.parse(await read(`/v1/runs/${run.id}/export`, TEST_API_TOKEN)) as Recording;
    expect(plantedIn(JSON.stringify(recording))).toBeUndefined();
    expect(recording.journal.map((entry) => entry.key)).toContain("s1/mcp-list/top");
    expect(await replayRecording(recording)).toEqual({ ok: true, steps: recording.run.steps, entries: recording.segments.flatMap((segment) => segment.steps).length });
  });

  it("a fork of a planted run shows no header value or URL credential: its answer, view, messages and export, by the deployment token and the source's run token", async () => {
    const { root: run, token } = await finishedPlantedTree({ subject: freshSubject("redaction-fork") });
    const shown: [string, string][] = [];
    for (const [who, forker] of [["deployment", TEST_API_TOKEN], ["run token", token]] as const) {
      const made = await api(`/v1/runs/${run.id}/fork`, forker, { method: "POST", body: JSON.stringify({ atStep: 2 }) });
      const text = await made.text();
      expect(made.status, text).toBe(201);
      shown.push([`fork by ${who}`, text]);
      const fork = JSON.parse(text) as { run: { id: string }; token: string };
      // A run token reads its own run only: the fork by its own token, and by the deployment's.
      for (const reader of who === "deployment" ? [forker, fork.token] : [fork.token]) {
        shown.push([`fork view (${who})`, await read(`/v1/runs/${fork.run.id}`, reader)]);
        shown.push([`fork messages (${who})`, await read(`/v1/runs/${fork.run.id}/messages`, reader)]);
        shown.push([`fork export (${who})`, await read(`/v1/runs/${fork.run.id}/export`, reader)]);
      }
    }
    // The texts searched hold the fork's body and its copied journal rows: the MCP server by name and url, and its listing.
    const recording = JSON.parse(shown.find(([what]) => what === "fork export (deployment)")![1]) as Recording;
    expect(recording.options.body.mcpServers).toEqual([{ name: "top", url: shownMcpUrl() }]);
    expect(recording.journal.map((entry) => entry.key)).toContain("s1/mcp-list/top");
    for (const [what, text] of shown) expect(plantedIn(text), what).toBeUndefined();
  });

  it("a stored agent with a planted template shows no header value or URL credential: its answer, view, version, listing, A2A card, MCP tools/list, and a run of it", async () => {
    const name = `redaction-${crypto.randomUUID().slice(0, 8)}`;
    const user = await userToken(freshSubject("redaction-agent"));
    const made = await api("/v1/agents", TEST_API_TOKEN, { method: "POST", body: JSON.stringify({ name, description: "A planted agent.", run: plantedTemplate() }) });
    const shown: [string, string][] = [["agent create", await made.text()]];
    expect(made.status, shown[0]![1]).toBe(201);
    for (const who of [TEST_API_TOKEN, user]) {
      shown.push(["agent view", await read(`/v1/agents/${name}`, who)]);
      shown.push(["agent version", await read(`/v1/agents/${name}/versions/1`, who)]);
      shown.push(["agent listing", await read("/v1/agents", who)]);
      shown.push(["A2A card", await read(`/a2a/${name}/.well-known/agent-card.json`, who)]);
      const listed = await api("/mcp", who, {
        method: "POST",
        headers: { Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      const tools = await listed.text();
      expect(listed.status, tools).toBe(200);
      expect(tools).toContain(name);
      shown.push(["MCP tools/list", tools]);
      // The deployment token may give the run a webhook of its own: planted too.
      const extra = who === TEST_API_TOKEN ? { webhook: plantedWebhook() } : {};
      const started = await api("/v1/runs", who, { method: "POST", body: JSON.stringify({ agent: name, messages: [{ role: "user", content: "Go." }], ...extra }) });
      const answer = await started.text();
      expect(started.status, answer).toBe(201);
      shown.push(["agent run create", answer]);
      const { run, token } = JSON.parse(answer) as { run: { id: string }; token: string };
      shown.push(["agent run view", await read(`/v1/runs/${run.id}`, token)]);
      shown.push(["agent run export", await read(`/v1/runs/${run.id}/export`, token)]);
    }
    // The texts searched hold the template: the agent's view shows its MCP server by name and url.
    expect((JSON.parse(shown[1]![1]) as { agent: { run: { mcpServers: unknown[] } } }).agent.run.mcpServers).toEqual([{ name: "top", url: shownMcpUrl() }]);
    for (const [what, text] of shown) expect(plantedIn(text), what).toBeUndefined();
  });

  it("a schedule's views show its run's MCP servers without their headers, and its URLs without credentials, at any depth", async () => {
    const body = { cron: "0 9 * * *", run: { ...plantedTemplate(), messages: [{ role: "user", content: "Go." }], webhook: plantedWebhook() } };
    const created = await createSchedule(body);
    const shown: [string, string][] = [["create", JSON.stringify(created)]];
    shown.push(["view", await (await scheduleCall(`/v1/schedules/${created.id}`)).text()]);
    shown.push(["listing", await (await scheduleCall("/v1/schedules")).text()]);
    shown.push(["patch", JSON.stringify(await patchSchedule(created.id, { paused: true }))]);
    expect(created.run).toMatchObject({ mcpServers: [{ name: "top", url: shownMcpUrl() }], webhook: { url: expect.stringContaining("api_key=REDACTED") } });
    for (const [what, text] of shown) expect(plantedIn(text), what).toBeUndefined();
  });
});
