// Runs in Node before the workerd tests: a webhook receiver that verifies every delivery with the
// Standard Webhooks reference package (`standardwebhooks`), not with the project's own code, and
// records it for the tests to read.
//
//   POST /hooks/<name>          verifies and records the delivery; answers 204, or
//                               ?status=<code> that status, ?fail=<n> 500 to the first n attempts
//                               of each webhook-id (then 204), ?hold=<n> the first n deliveries only once released
//   POST /hooks/<name>/release  answers every held delivery of <name>
//   GET  /hooks/<name>          the recorded deliveries: [{ id, timestamp, signature, verified, error?, body, arrivedAt, answered, held?, traceparent? }]
//                               (held: true while a held delivery has not been answered)
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import type { TestProject } from "vitest/node";
import { header, listen, readBody, sendJson, shut } from "../e2e/support/http-server";
import { TEST_WEBHOOK_SECRET } from "./secret";

export type ReceivedWebhook = { id: string; timestamp: string; signature: string; verified: boolean; error?: string; body: unknown; arrivedAt: number; answered: number; held?: boolean; traceparent?: string };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const received = new Map<string, ReceivedWebhook[]>();
  const attempts = new Map<string, number>();
  const held = new Map<string, (() => void)[]>();
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const [, name, release] = /^\/hooks\/([\w-]+)(\/release)?$/.exec(url.pathname) ?? [];
      if (name === undefined) {
        response.writeHead(404).end();
        return;
      }
      if (release !== undefined) {
        for (const answer of held.get(name) ?? []) answer();
        held.delete(name);
        response.writeHead(204).end();
        return;
      }
      if (request.method === "GET") {
        return sendJson(response, 200, received.get(name) ?? []);
      }
      const text = await readBody(request);
      const headers = { "webhook-id": header(request, "webhook-id") ?? "", "webhook-timestamp": header(request, "webhook-timestamp") ?? "", "webhook-signature": header(request, "webhook-signature") ?? "" };
      let verified = true;
      let error: string | undefined;
      try {
        new Webhook(TEST_WEBHOOK_SECRET).verify(text, headers);
      } catch (thrown) {
        verified = false;
        error = thrown instanceof Error ? thrown.message : String(thrown);
      }
      const attempt = (attempts.get(`${name}/${headers["webhook-id"]}`) ?? 0) + 1;
      attempts.set(`${name}/${headers["webhook-id"]}`, attempt);
      const fail = Number(url.searchParams.get("fail") ?? "0");
      const status = attempt <= fail ? 500 : Number(url.searchParams.get("status") ?? "204");
      const entry: ReceivedWebhook = { id: headers["webhook-id"], timestamp: headers["webhook-timestamp"], signature: headers["webhook-signature"], verified, body: JSON.parse(text) as unknown, arrivedAt: Date.now(), answered: status };
      if (error !== undefined) entry.error = error;
      const traceparent = header(request, "traceparent");
      if (traceparent !== undefined) entry.traceparent = traceparent;
      received.set(name, [...(received.get(name) ?? []), entry]);
      const answer = () => {
        delete entry.held;
        response.writeHead(status).end();
      };
      const hold = Number(url.searchParams.get("hold") ?? "0");
      if (received.get(name)!.length <= hold) {
        entry.held = true;
        held.set(name, [...(held.get(name) ?? []), answer]);
      } else answer();
    })();
  });
  project.provide("webhookReceiverUrl", `http://127.0.0.1:${await listen(server)}`);
  project.provide("webhookSecret", TEST_WEBHOOK_SECRET);
  return () => shut(server);
}
