// One redaction, for webhooks (docs/api.md, "What leaves the service"): a run tree with a secret
// planted in its MCP servers' headers and its URLs' credentials at every depth
// (test/helpers/planted-secret.ts) sends its events to the deployment's receiver and to the run's
// own webhook (itself at a planted URL); no delivery carries the secret.
import { describe, expect, inject, it } from "vitest";
import type { WebhookPayload } from "../../src/api/types";
import { finishedPlantedTree, plantedIn, plantedWebhook } from "../helpers/planted-secret";

type Received = { id: string; verified: boolean; body: WebhookPayload };

async function received(name: string): Promise<Received[]> {
  return (await (await fetch(`${inject("webhookReceiverUrl")}/hooks/${name}`)).json()) as Received[];
}

describe("webhooks of a run with MCP credentials", () => {
  it("carry no header value of any MCP server and no URL credential, at any depth of its tree", async () => {
    const name = `planted-${crypto.randomUUID().slice(0, 8)}`;
    const { tree } = await finishedPlantedTree({ webhook: plantedWebhook(name) });
    const ids = new Set(tree.map((view) => view.id));
    const own = await received(name);
    const deployment = (await received("deployment")).filter((hook) => ids.has(hook.body.data.run.id));
    // Each run of the tree ended and told both receivers (the children took the run's webhook).
    expect(new Set(own.map((hook) => hook.body.data.run.id))).toEqual(ids);
    expect(new Set(deployment.map((hook) => hook.body.data.run.id))).toEqual(ids);
    expect(plantedIn(JSON.stringify(own))).toBeUndefined();
    expect(plantedIn(JSON.stringify(await received("deployment")))).toBeUndefined();
  });
});
