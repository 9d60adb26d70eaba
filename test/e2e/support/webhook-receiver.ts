// A webhook receiver for end-to-end tests and benchmarks: it verifies each delivery with the
// Standard Webhooks reference package (standardwebhooks) and records it with the time its 2xx
// was sent.
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { header, listen, readBody, shut } from "./http-server";

export type Delivery = { id: string; type: string; runId: string; status: string; updatedAt: string; verified: boolean; answeredAt: number };

export type WebhookReceiver = { url: string; deliveries: Delivery[]; close: () => Promise<void> };

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const verifier = new Webhook(secret);
  const server = createServer((request, response) => {
    void readBody(request).then((text) => {
      const id = header(request, "webhook-id") ?? "";
      let verified = true;
      try {
        verifier.verify(text, { "webhook-id": id, "webhook-timestamp": header(request, "webhook-timestamp") ?? "", "webhook-signature": header(request, "webhook-signature") ?? "" });
      } catch {
        verified = false;
      }
      const body = JSON.parse(text) as { type: string; data: { run: { id: string; status: string; updatedAt: string } } };
      response.writeHead(204).end();
      deliveries.push({ id, type: body.type, runId: body.data.run.id, status: body.data.run.status, updatedAt: body.data.run.updatedAt, verified, answeredAt: Date.now() });
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, deliveries, close: () => shut(server) };
}
