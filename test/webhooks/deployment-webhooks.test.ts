// A deployment with WEBHOOK_URL (this project's Worker points it at the local receiver): every
// run's run.waiting, run.finished, run.failed and run.cancelled go there, signed with WEBHOOK_SECRET
// and verified with the Standard Webhooks reference package; a run with its own webhook.url gets
// each event at both receivers, under the same webhook-id.
import { SELF } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { RunView, WebhookPayload } from "../../src/api/types";
import { settle } from "../helpers/inbox";
import { TEST_API_TOKEN } from "../test-env";

type Received = { id: string; verified: boolean; body: WebhookPayload };

const hi = [{ role: "user", content: "hi" }];
const receiver = () => inject("webhookReceiverUrl");

async function received(name: string): Promise<Received[]> {
  return (await (await fetch(`${receiver()}/hooks/${name}`)).json()) as Received[];
}

async function start(body: Record<string, unknown>): Promise<RunView> {
  const response = await SELF.fetch("https://ratchet.test/v1/runs", {
    method: "POST",
    headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ provider: "scripted", messages: hi, ...body }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { run: RunView }).run;
}

async function post(path: string): Promise<void> {
  await SELF.fetch(`https://ratchet.test${path}`, { method: "POST", headers: { Authorization: `Bearer ${TEST_API_TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify({ callId: "q", content: "ok" }) });
}

describe("WEBHOOK_URL", () => {
  it("gets every run's waiting and end events, signed and verifiable", async () => {
    const finished = await start({ subject: "deploy-hooks", script: [{ text: "done" }] });
    const failed = await start({ script: [{ error: "broken" }] });
    const cancelled = await start({ tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "?" } }] }] });
    for (const run of [finished, failed, cancelled]) await settle(run.id);
    await post(`/v1/runs/${cancelled.id}/cancel`);
    await settle(cancelled.id);
    const ours = (await received("deployment")).filter((hook) => [finished.id, failed.id, cancelled.id].includes(hook.body.data.run.id));
    expect(ours.every((hook) => hook.verified)).toBe(true);
    const byRun = (id: string) => ours.filter((hook) => hook.body.data.run.id === id).map((hook) => hook.body.type);
    expect(byRun(finished.id)).toEqual(["run.finished"]);
    expect(byRun(failed.id)).toEqual(["run.failed"]);
    expect(byRun(cancelled.id)).toEqual(["run.waiting", "run.cancelled"]);
    expect(ours.find((hook) => hook.body.data.run.id === finished.id)!.body.data.run.subject).toBe("deploy-hooks");
  });

  it("a run with its own webhook sends each event to both, under one webhook-id; the view lists both deliveries", async () => {
    const name = `both-${crypto.randomUUID().slice(0, 8)}`;
    const run = await start({ script: [{ text: "done" }], webhook: { url: `${receiver()}/hooks/${name}` } });
    await settle(run.id);
    const own = await received(name);
    const deployment = (await received("deployment")).filter((hook) => hook.body.data.run.id === run.id);
    expect(own.map((hook) => hook.id)).toEqual([`${run.id}/change/2`]);
    expect(deployment.map((hook) => hook.id)).toEqual([`${run.id}/change/2`]);
    const view = (await (await SELF.fetch(`https://ratchet.test/v1/runs/${run.id}`, { headers: { Authorization: `Bearer ${TEST_API_TOKEN}` } })).json()) as RunView;
    expect(view.webhooks!.map((hook) => [hook.target, hook.state]).sort()).toEqual([
      ["deployment", "delivered"],
      ["run", "delivered"],
    ]);
  });
});
