// An http(s) URL in a request body (HTTP tools, MCP servers, a run's webhook) or a setting
// (WEBHOOK_URL, the providers' base URLs): whether its host may be reached is decided where it is
// used, not here.
import { z } from "@hono/zod-openapi";

export function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

export const httpUrlSchema = z.string().refine(isHttpUrl, { message: "Must be an http(s) URL." });
