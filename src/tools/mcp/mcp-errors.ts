// What the model, the run's error and the logs are told when an MCP server fails: one line that
// says which server and what happened, never a header value the run sent it (a server may echo
// its credentials back in an error page), nor a URL's userinfo, query values or fragment.
import { shownUrlsIn } from "../../api/redaction/shown-url";
import { snippet } from "../http/http-answer";
import { McpAnswerTooLarge, McpConnectionLost, McpError, McpHostRefused, StreamableHTTPError } from "./mcp-connections";

/** The listing of a server's tools failed: the run cannot start its first model call without them. */
export class McpListFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpListFailed";
  }
}

/** `text` with every header value (of 4 characters or more) replaced by "[redacted]". */
export function redact(text: string, headers: Record<string, string> | undefined): string {
  let out = text;
  for (const value of Object.values(headers ?? {})) {
    const secret = value.trim();
    if (secret.length >= 4) out = out.split(secret).join("[redacted]");
    // A bearer token may come back without its scheme.
    const token = /^\S+\s+(\S{4,})$/.exec(secret)?.[1];
    if (token !== undefined) out = out.split(token).join("[redacted]");
  }
  return out;
}

/** What went wrong talking to `server`, for people and models. */
export function describeMcpError(server: { name: string; headers?: Record<string, string> }, error: unknown): string {
  const name = `MCP server ${server.name}`;
  let text: string;
  if (error instanceof McpError) text = `${name} answered with an error: ${error.message}`;
  else if (error instanceof StreamableHTTPError) {
    const detail = error.message.replace(/^Streamable HTTP error: /, "");
    text = error.code !== undefined && error.code > 0 ? `${name} answered HTTP ${error.code}: ${detail}` : `${name} answered something that is not MCP: ${detail}`;
  } else if (error instanceof McpConnectionLost) text = `${name} closed the connection before answering.`;
  else if (error instanceof McpHostRefused) text = `${name} may not be reached: ${error.message}.`;
  else if (error instanceof McpAnswerTooLarge) text = `${name} answered more than this run takes: ${error.message}.`;
  else text = `${name} could not be reached: ${error instanceof Error ? error.message : String(error)}`;
  return snippet(shownUrlsIn(redact(text, server.headers)));
}
