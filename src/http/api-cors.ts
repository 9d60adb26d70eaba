// CORS for /v1/*: a browser app on an origin listed in CORS_ORIGINS may call the API; any other
// origin gets no CORS header at all, so its browser refuses to let the page read the answer. The
// API takes bearer tokens, never cookies, so there is no credentials mode. Mounted before auth,
// the body limit and the routes: a preflight never needs a token, a body or a route of its own.
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "./app-env";
import { parseOrigins } from "./cors";

const ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"];
const ALLOW_METHODS = ["GET", "POST", "DELETE", "OPTIONS"];
/** Retry-After: sent with 429, and a client should be able to honour it. x-ratchet-run-id: the run an AG-UI thread is (docs/ag-ui.md). */
const EXPOSE_HEADERS = ["Retry-After", "x-ratchet-run-id"];
/** Chromium's own cap. A removed origin loses access at once anyway: answers stop carrying it. */
const MAX_AGE_SECONDS = 7200;

/** The env object is the same for every request of an isolate: the list is parsed once. */
const cache = new WeakMap<object, string[]>();

function allowedOrigins(env: Env): string[] {
  let origins = cache.get(env);
  if (origins === undefined) {
    origins = parseOrigins(env.CORS_ORIGINS, (entry) => console.warn(`CORS_ORIGINS: ignoring ${JSON.stringify(entry)}, not an origin (scheme://host[:port]).`));
    cache.set(env, origins);
  }
  return origins;
}

// Only ever reached with an origin already found in the list (see apiCors), so it echoes it.
const withCorsHeaders = cors({
  origin: (origin) => origin,
  allowHeaders: ALLOW_HEADERS,
  allowMethods: ALLOW_METHODS,
  exposeHeaders: EXPOSE_HEADERS,
  maxAge: MAX_AGE_SECONDS,
});

/** With a list set, answers differ by Origin: shared caches must not hand one origin's to another. */
function varyByOrigin(c: Context<AppEnv>, allowed: string[]): void {
  if (allowed.length > 0) c.header("Vary", "Origin", { append: true });
}

export function apiCors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const allowed = allowedOrigins(c.env);
    const origin = c.req.header("origin");
    if (origin !== undefined && allowed.includes(origin)) return withCorsHeaders(c, next);
    if (c.req.method === "OPTIONS") {
      // Answered, but with nothing that allows anything: the browser stops there.
      varyByOrigin(c, allowed);
      return c.body(null, 204);
    }
    await next();
    varyByOrigin(c, allowed);
  };
}
