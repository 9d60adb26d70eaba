// Bad results posted to an async tool call's callback: missing or wrong tokens, bad bodies, a
// result too large, and a result after the run was cancelled.
import { bearer, call } from "../http";
import { TEST_API_TOKEN } from "../../test-env";
import { MiB, PNG, UNKNOWN_RUN, type Case } from "./requests";
import type { World } from "./world";

/** POST to an async call's callback: by default its own path and token, a valid result. */
function result(w: World, body: unknown, options: { token?: string | null; path?: string; contentType?: string } = {}): Promise<Response> {
  const token = options.token === undefined ? w.callback.token : options.token;
  const headers: Record<string, string> = { "Content-Type": options.contentType ?? "application/json" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  return call(options.path ?? w.callback.path, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
}

export const callbackCases: Case[] = [
  { name: "a result without a token", send: (w) => result(w, { content: "x" }, { token: null }), status: 401, code: "unauthorized" },
  { name: "a result with a malformed Authorization header", send: (w) => call(w.callback.path, { method: "POST", headers: { Authorization: `Token ${w.callback.token}`, "Content-Type": "application/json" }, body: '{"content":"x"}' }), status: 401, code: "unauthorized" },
  { name: "a result with a wrong callback token", send: (w) => result(w, { content: "x" }, { token: `ct_${"Q".repeat(43)}` }), status: 401, code: "unauthorized" },
  { name: "a result with another call's token", send: (w) => result(w, { content: "x" }, { token: w.cancelledCallback.token }), status: 401, code: "unauthorized" },
  { name: "a result with the deployment token", send: (w) => result(w, { content: "x" }, { token: TEST_API_TOKEN }), status: 401, code: "unauthorized" },
  { name: "a result with the run's token", send: (w) => result(w, { content: "x" }, { token: w.asyncWaiting.token }), status: 401, code: "unauthorized" },
  { name: "a result for a malformed call key", send: (w) => result(w, { content: "x" }, { path: w.callback.path.replace(/calls\/[^/]+/, "calls/%%%") }), status: 401, code: "unauthorized" },
  { name: "a result for an unknown run", send: (w) => result(w, { content: "x" }, { path: w.callback.path.replace(w.asyncWaiting.id, UNKNOWN_RUN) }), status: 404, code: "not-found" },
  { name: "a callback token on the run's view", send: (w) => call(`/v1/runs/${w.asyncWaiting.id}`, { headers: bearer(w.callback.token) }), status: 401, code: "unauthorized" },
  { name: "a callback token on cancel", send: (w) => call(`/v1/runs/${w.asyncWaiting.id}/cancel`, { method: "POST", headers: bearer(w.callback.token) }), status: 401, code: "unauthorized" },
  { name: "a result with malformed JSON", send: (w) => result(w, '{"content":'), status: 400, code: "invalid-request" },
  { name: "a result as text/plain", send: (w) => result(w, '{"content":"x"}', { contentType: "text/plain" }), status: 400, code: "invalid-request" },
  { name: "a result without content", send: (w) => result(w, { isError: true }), status: 400, code: "invalid-request", path: "content" },
  { name: "a result with an unknown field", send: (w) => result(w, { content: "x", status: "done" }), status: 400, code: "invalid-request", path: "status" },
  { name: "a result with isError as a string", send: (w) => result(w, { content: "x", isError: "yes" }), status: 400, code: "invalid-request", path: "isError" },
  { name: "a result with a negative cost", send: (w) => result(w, { content: "x", costUsd: -1 }), status: 400, code: "invalid-request", path: "costUsd" },
  { name: "a result with an unknown content part", send: (w) => result(w, { content: [{ type: "video", url: "x" }] }), status: 400, code: "invalid-request", path: "content.0.type" },
  { name: "a result with inline image bytes", send: (w) => result(w, { content: [{ type: "image", mimeType: "image/png", hash: "ab", data: PNG }] }), status: 400, code: "invalid-request", path: "content.0.data" },
  { name: "a result of 2 MiB", send: (w) => result(w, { content: "x".repeat(2 * MiB) }), status: 413, code: "too-large" },
  { name: "a result after a cancel", send: (w) => result(w, { content: "x" }, { path: w.cancelledCallback.path, token: w.cancelledCallback.token }), status: 409, code: "conflict" },
];
