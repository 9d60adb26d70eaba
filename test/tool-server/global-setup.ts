// Runs in Node before the workerd tests: a small HTTP server that plays HTTP tools, so the HTTP
// tool adapter is tested against a real socket (status codes, content types, timeouts, redirects)
// instead of a mocked fetch.
//
//   POST /echo            JSON { content: JSON of what arrived }; ?isError=1, ?cost=<usd>
//   POST /signed          verifies the Standard Webhooks signature with the standardwebhooks package
//                         and answers JSON { content: JSON of { verified: true, id, timestamp } or
//                         { verified: false, error } }; ?key=previous verifies with the previous
//                         key only (a server not yet moved to the current one); ?tamper=1 changes
//                         the body's input before verifying
//   POST /text            text/plain
//   POST /html            text/html (not a tool answer)
//   POST /fail            500 with a short body
//   POST /slow?ms=<n>     answers after n ms
//   POST /redirect        302 to another host
//   POST /invalid-json    application/json that does not parse
//   POST /no-content      JSON without "content"
//   POST /image           JSON content with an image part
//   POST /big             2 MiB of text/plain
//   POST /large?kb=<n>    JSON whose content is n KiB of "é" (2 bytes each), starting with the call id
//   POST /count?ms=<n>    counts calls per Idempotency-Key on arrival, answers after n ms (default 0)
//   GET  /count?key=<k>   { count } for that key
//   POST /async?ms=<n>    an async tool: records the job by Idempotency-Key on arrival (its body,
//                         callback and whether its signature verifies) and takes it with 202 after
//                         n ms (default 0); ?answer=now answers 200 with a result instead,
//                         ?status=<s> answers s. The test sends the result to the callback itself
//                         (through SELF: the callback URL is the Worker's).
//   GET  /async?key=<k>   { count, bodies, verified } for that key (count 0 when none arrived)
//   POST /guardrail?deny=<word>&ms=<n>
//                         an HTTP guardrail check: counts calls per Idempotency-Key on arrival (GET
//                         /count and /arrived read them), answers after n ms (default 0) JSON
//                         { pass, reason }: pass false when the body holds <word>; the reason says
//                         whether the signature verified ("signed"/"unsigned") and the stage
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import type { TestProject } from "vitest/node";
import { changes } from "../e2e/support/changes";
import { answerWhen, header, listen, readBody, sendJson, shut } from "../e2e/support/http-server";
import { TEST_TOOL_SIGNING_KEY, TEST_TOOL_SIGNING_KEY_PREVIOUS } from "./signing-keys";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const counts = new Map<string, number>();
  const jobs = new Map<string, { count: number; bodies: unknown[]; verified: boolean[] }>();
  /** Calls of a key on /count or /async, what GET /arrived waits on; `arrived` wakes its waiters. */
  const arrivals = (key: string) => (counts.get(key) ?? 0) + (jobs.get(key)?.count ?? 0);
  const arrived = changes();

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const body = await readBody(request);
      const route = `${request.method} ${url.pathname}`;
      switch (route) {
        case "POST /echo": {
          const cost = url.searchParams.get("cost");
          const echoed = {
            method: request.method,
            contentType: header(request, "content-type"),
            idempotencyKey: header(request, "idempotency-key"),
            webhookId: header(request, "webhook-id"),
            webhookTimestamp: header(request, "webhook-timestamp"),
            webhookSignature: header(request, "webhook-signature"),
            traceparent: header(request, "traceparent"),
            body: JSON.parse(body) as unknown,
          };
          return sendJson(response, 200, {
            content: JSON.stringify(echoed),
            ...(url.searchParams.get("isError") === "1" ? { isError: true } : {}),
            ...(cost === null ? {} : { costUsd: Number(cost) }),
          });
        }
        case "POST /signed": {
          const secret = url.searchParams.get("key") === "previous" ? TEST_TOOL_SIGNING_KEY_PREVIOUS : TEST_TOOL_SIGNING_KEY;
          const payload = url.searchParams.get("tamper") === "1" ? JSON.stringify({ ...(JSON.parse(body) as object), input: { tampered: true } }) : body;
          const headers = {
            "webhook-id": header(request, "webhook-id") ?? "",
            "webhook-timestamp": header(request, "webhook-timestamp") ?? "",
            "webhook-signature": header(request, "webhook-signature") ?? "",
          };
          let found: object;
          try {
            new Webhook(secret).verify(payload, headers);
            found = { verified: true, id: headers["webhook-id"], timestamp: headers["webhook-timestamp"] };
          } catch (error) {
            found = { verified: false, error: error instanceof Error ? error.message : String(error) };
          }
          return sendJson(response, 200, { content: JSON.stringify(found) });
        }
        case "POST /text":
          response.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
          return response.end("plain answer");
        case "POST /html":
          response.writeHead(200, { "Content-Type": "text/html" });
          return response.end("<p>hello</p>");
        case "POST /fail":
          response.writeHead(500, { "Content-Type": "text/plain" });
          return response.end("boom: the tool broke");
        case "POST /slow": {
          const timer = setTimeout(() => sendJson(response, 200, { content: "late" }), Number(url.searchParams.get("ms") ?? "5000"));
          response.on("close", () => clearTimeout(timer));
          return;
        }
        case "POST /redirect":
          response.writeHead(302, { Location: "http://example.com/elsewhere" });
          return response.end();
        case "POST /invalid-json":
          response.writeHead(200, { "Content-Type": "application/json" });
          return response.end("{not json");
        case "POST /no-content":
          return sendJson(response, 200, { result: 42 });
        case "POST /image":
          return sendJson(response, 200, {
            content: [
              { type: "text", text: "a picture" },
              { type: "image", mimeType: "image/png", hash: "ab".repeat(32), path: "shot.png" },
            ],
          });
        case "POST /big":
          response.writeHead(200, { "Content-Type": "text/plain" });
          return response.end("x".repeat(2 * 1024 * 1024));
        case "POST /large": {
          // A JSON answer just under the 1 MiB a tool may send: ?kb=<size of the content in KiB>, marked with the call id.
          const { callId } = JSON.parse(body) as { callId: string };
          const size = Number(url.searchParams.get("kb") ?? "900") * 1024;
          return sendJson(response, 200, { content: `${callId}:${"é".repeat(size / 2 - callId.length)}` });
        }
        case "POST /count": {
          const key = header(request, "idempotency-key") ?? "";
          const count = (counts.get(key) ?? 0) + 1;
          counts.set(key, count);
          arrived.changed();
          // Counted on arrival, so a call whose answer is lost (the caller died) still counts.
          const timer = setTimeout(() => sendJson(response, 200, { content: `call ${count}` }), Number(url.searchParams.get("ms") ?? "0"));
          response.on("close", () => clearTimeout(timer));
          return;
        }
        case "POST /async": {
          const key = header(request, "idempotency-key") ?? "";
          const job = jobs.get(key) ?? { count: 0, bodies: [], verified: [] };
          jobs.set(key, job);
          job.count++;
          job.bodies.push(JSON.parse(body) as unknown);
          arrived.changed();
          try {
            new Webhook(TEST_TOOL_SIGNING_KEY).verify(body, {
              "webhook-id": header(request, "webhook-id") ?? "",
              "webhook-timestamp": header(request, "webhook-timestamp") ?? "",
              "webhook-signature": header(request, "webhook-signature") ?? "",
            });
            job.verified.push(true);
          } catch {
            job.verified.push(false);
          }
          const status = url.searchParams.get("status");
          const timer = setTimeout(() => {
            if (url.searchParams.get("answer") === "now") return sendJson(response, 200, { content: "answered at once" });
            if (status !== null) return sendJson(response, Number(status), { error: "refused" });
            sendJson(response, 202, { accepted: true });
          }, Number(url.searchParams.get("ms") ?? "0"));
          response.on("close", () => clearTimeout(timer));
          return;
        }
        case "POST /guardrail": {
          const key = header(request, "idempotency-key") ?? "";
          counts.set(key, (counts.get(key) ?? 0) + 1);
          arrived.changed();
          let signed = "signed";
          try {
            new Webhook(TEST_TOOL_SIGNING_KEY).verify(body, { "webhook-id": header(request, "webhook-id") ?? "", "webhook-timestamp": header(request, "webhook-timestamp") ?? "", "webhook-signature": header(request, "webhook-signature") ?? "" });
          } catch {
            signed = "unsigned";
          }
          const deny = url.searchParams.get("deny");
          const { stage } = JSON.parse(body) as { stage: string };
          const pass = deny === null || !body.includes(deny);
          const timer = setTimeout(() => sendJson(response, 200, { pass, reason: `${signed} ${stage} check: ${pass ? "fine" : `holds ${deny}`}` }), Number(url.searchParams.get("ms") ?? "0"));
          response.on("close", () => clearTimeout(timer));
          return;
        }
        case "GET /async":
          return sendJson(response, 200, jobs.get(url.searchParams.get("key") ?? "") ?? { count: 0, bodies: [], verified: [] });
        case "GET /arrived": {
          // Answers once the call with this Idempotency-Key has arrived `n` times (default 1); 408 after 20 s.
          const key = url.searchParams.get("key") ?? "";
          const n = Number(url.searchParams.get("n") ?? "1");
          return answerWhen(response, arrived, () => arrivals(key) >= n, () => `key ${key} arrived ${arrivals(key)} times, not ${n}`, () => ({ arrived: arrivals(key) }));
        }
        case "GET /count":
          return sendJson(response, 200, { count: counts.get(url.searchParams.get("key") ?? "") ?? 0 });
        default:
          return sendJson(response, 404, { error: `no route ${route}` });
      }
    })().catch((error: unknown) => {
      if (!response.writableEnded) sendJson(response, 500, { error: String(error) });
    });
  });

  project.provide("toolServerUrl", `http://127.0.0.1:${await listen(server)}`);
  // The Worker under test signs with it (vitest.config.ts binds it as TOOL_SIGNING_KEY).
  project.provide("toolSigningKey", TEST_TOOL_SIGNING_KEY);

  return () => shut(server);
}
