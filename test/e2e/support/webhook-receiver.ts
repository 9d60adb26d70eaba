// A webhook receiver for end-to-end tests and benchmarks: it verifies each delivery with the
// Standard Webhooks reference package (standardwebhooks) and records it with the time its 2xx
// was sent.
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

export type Delivery = { id: string; type: string; runId: string; status: string; updatedAt: string; verified: boolean; answeredAt: number };

export type WebhookReceiver = { url: string; deliveries: Delivery[]; close: () => Promise<void> };

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const verifier = new Webhook(secret);
  const server = createServer((request, response) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (text += chunk));
    request.on("end", () => {
      const header = (name: string) => String(request.headers[name] ?? "");
      let verified = true;
      try {
        verifier.verify(text, { "webhook-id": header("webhook-id"), "webhook-timestamp": header("webhook-timestamp"), "webhook-signature": header("webhook-signature") });
      } catch {
        verified = false;
      }
      const body = JSON.parse(text) as { type: string; data: { run: { id: string; status: string; updatedAt: string } } };
      response.writeHead(204).end();
      deliveries.push({ id: header("webhook-id"), type: body.type, runId: body.data.run.id, status: body.data.run.status, updatedAt: body.data.run.updatedAt, verified, answeredAt: Date.now() });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    deliveries,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
