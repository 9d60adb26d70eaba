// What the bad-request tables of test/http/bad-input.test.ts are made of: the bodies a good request
// would send, ids and tokens of no run, and the shape of one row (a request, and the refusal it gets).
import { bearer, call } from "../http";
import type { World } from "./world";

// A 1×1 PNG, and a hash that is not its hash.
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
export const WRONG_HASH = "0".repeat(64);
export const MiB = 1024 * 1024;
export const UNKNOWN_RUN = "run_" + "q".repeat(26);
export const UNKNOWN_TOKEN = "rt_" + "Z".repeat(43);
/** The key of a run the world creates; a second create with it and another body is a conflict. */
export const IDEMPOTENCY_KEY = `bad-input-${crypto.randomUUID()}`;

export const hi = { role: "user", content: "hi" };
export const browserToolset = { type: "client-toolset", name: "browser", actions: [{ name: "open", description: "Open a page.", inputSchema: { type: "object" } }] };
export const toolset = (extra: object) => ({ type: "client-toolset", name: "browser", ...extra });
export const webSearch = { type: "web_search_20250305", name: "web_search" };
export const ok = (extra: object = {}) => ({ messages: [hi], provider: "scripted", ...extra });

export function json(method: string, path: string, body: unknown, headers: Record<string, string> = bearer()): Promise<Response> {
  return call(path, { method, headers: { "Content-Type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
}

export const get = (path: string, token: string, headers: Record<string, string> = {}) => call(path, { headers: { ...bearer(token), ...headers } });

export type Case = {
  name: string;
  send: (w: World) => Promise<Response>;
  status: number;
  code: string;
  /** An issue with this path must be reported. */
  path?: string;
  /** The request names a well-formed id of no run: the platform may instantiate an empty object. */
  unknownId?: boolean;
};
