// MCP servers in the run console: the `mcp-tools` event (a server's tools, listed once at the start)
// as a line in the timeline, and a badge naming the server on each of its tools' calls, so a call
// of `docs__search` reads as the tool `search` of the MCP server `docs`.
import type { StreamEvent } from "@ratchet/client";
import { el } from "./dom";

type Listed = Extract<StreamEvent, { type: "mcp-tools" }>;

export class McpTools {
  /** The model's name of each offered tool → its server. */
  private servers = new Map<string, string>();

  reset(): void {
    this.servers = new Map();
  }

  /** Remembers the server's tools and returns the timeline's line about them. */
  listed(event: Listed): HTMLLIElement {
    for (const name of event.tools) this.servers.set(name, event.server);
    const offered = `MCP server ${event.server}: ${event.tools.length === 1 ? "1 tool" : `${event.tools.length} tools`}${event.tools.length > 0 ? ` (${event.tools.join(", ")})` : ""}`;
    const refused = event.refused.map((tool) => `${tool.tool} (${tool.reason})`).join("; ");
    return el(
      "li",
      { className: "mcp-tools", attrs: { "data-server": event.server } },
      el("p", { text: offered }),
      ...(refused === "" ? [] : [el("p", { className: "refused", text: `Left out: ${refused}` })]),
    );
  }

  /** A badge for a call of an MCP tool (none for other tools). */
  badge(name: string): HTMLSpanElement[] {
    const server = this.servers.get(name);
    return server === undefined ? [] : [el("span", { className: "badge mcp", text: `MCP ${server}`, attrs: { title: `A tool of the MCP server ${server}` } })];
  }
}
