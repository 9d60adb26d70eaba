// An http(s) URL in a request body (HTTP tools, MCP servers, a run's webhook):
// whether its host may be reached is decided where it is used, not by the schema.
import { z } from "@hono/zod-openapi";

export const httpUrlSchema = z.string().refine(
  (url) => {
    try {
      const protocol = new URL(url).protocol;
      return protocol === "http:" || protocol === "https:";
    } catch {
      return false;
    }
  },
  { message: "Must be an http(s) URL." },
);
