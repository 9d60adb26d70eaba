// Bodies over 1 MiB are refused with 413. The stream itself is counted (a Content-Length that is
// missing or lies cannot get more through), and the bytes read are handed on as the body.
import type { MiddlewareHandler } from "hono";
import { jsonDepth } from "../lib/text/json-depth";
import { readAtMost, StreamTooLarge } from "../lib/read-at-most";
import { ApiException } from "./errors";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deeper JSON is refused with 400: no API body needs it, and recursive code (hashing, validation) must not overflow. */
export const MAX_JSON_DEPTH = 64;

function tooLarge(maxBytes: number): ApiException {
  return new ApiException(413, `The body is larger than ${maxBytes / 1024 / 1024} MiB.`);
}

/** The body's bytes, or 413 past `maxBytes`. */
async function readBody(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  try {
    return await readAtMost(body, maxBytes);
  } catch (error) {
    if (error instanceof StreamTooLarge) throw tooLarge(maxBytes);
    throw error;
  }
}

export function bodyLimit(maxBytes: number = MAX_BODY_BYTES): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    // GET and HEAD bodies are never read (and a Request of those methods cannot carry one).
    if (raw.body === null || raw.method === "GET" || raw.method === "HEAD") return next();
    const declared = Number(raw.headers.get("content-length") ?? "0");
    if (declared > maxBytes) throw tooLarge(maxBytes); // refused before a byte is read
    const bytes = await readBody(raw.body, maxBytes);
    if (jsonDepth(bytes) > MAX_JSON_DEPTH) throw new ApiException(400, `JSON nested deeper than ${MAX_JSON_DEPTH} levels.`);
    const headers = new Headers(raw.headers);
    headers.delete("content-length"); // the runtime sets it from the bytes
    c.req.raw = new Request(raw.url, { method: raw.method, headers, body: bytes, signal: raw.signal });
    return next();
  };
}
