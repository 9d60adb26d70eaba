// Runs in Node before the workerd tests of test/otel/: an OTLP/HTTP receiver that decodes every
// export (JSON, as the OTLP spec writes it) and records each span with the request it came in.
//
//   POST /v1/traces        records the request's spans; answers 200 {} (or what /__control/fail set)
//   POST /__control/fail   {"status": 503, "count": 2}: the next `count` exports are answered `status` (their spans are recorded all the same)
//   GET  /__spans          every span received, in arrival order: [{ span, resource, scope, headers, arrivedAt, answered }]
//   GET  /__exports        every export request: [{ spans, contentType, headers, arrivedAt, answered }]
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { listen, readBody, sendJson, shut } from "../e2e/support/http-server";

export type ReceivedSpan = { span: Record<string, unknown>; resource: Record<string, unknown>; scope: Record<string, unknown>; headers: Record<string, string>; arrivedAt: number; answered: number };
export type ReceivedExport = { spans: number; contentType: string; headers: Record<string, string>; arrivedAt: number; answered: number };

type ExportBody = { resourceSpans: { resource: Record<string, unknown>; scopeSpans: { scope: Record<string, unknown>; spans: Record<string, unknown>[] }[] }[] };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const spans: ReceivedSpan[] = [];
  const exports: ReceivedExport[] = [];
  let fail = { status: 200, count: 0 };
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const route = `${request.method} ${url.pathname}`;
      const text = await readBody(request);
      if (route === "POST /__control/fail") {
        fail = JSON.parse(text) as typeof fail;
        return sendJson(response, 200, {});
      }
      if (route === "GET /__spans") return sendJson(response, 200, spans);
      if (route === "GET /__exports") return sendJson(response, 200, exports);
      if (route !== "POST /v1/traces") return sendJson(response, 404, {});
      const answered = fail.count > 0 ? fail.status : 200;
      if (fail.count > 0) fail.count--;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers[name] = value;
      const body = JSON.parse(text) as ExportBody;
      const arrivedAt = Date.now();
      let count = 0;
      for (const resourceSpans of body.resourceSpans) {
        for (const scopeSpans of resourceSpans.scopeSpans) {
          for (const span of scopeSpans.spans) {
            spans.push({ span, resource: resourceSpans.resource, scope: scopeSpans.scope, headers, arrivedAt, answered });
            count++;
          }
        }
      }
      exports.push({ spans: count, contentType: headers["content-type"] ?? "", headers, arrivedAt, answered });
      return sendJson(response, answered, {});
    })();
  });
  project.provide("otlpReceiverUrl", `http://127.0.0.1:${await listen(server)}`);
  return () => shut(server);
}
