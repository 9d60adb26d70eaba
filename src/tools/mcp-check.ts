// The edge's check of a run's MCP servers against this deployment (400, nothing created): each
// server's host must be on HTTP_TOOL_ALLOW, by the same rule as HTTP tools (allow-list.ts). Every
// call checks it again, so a host taken off the list is not called by runs made before.
import type { McpServerRef } from "../api/types";
import { hostOf, isUrlAllowed } from "./allow-list";

export function checkMcpServers(servers: readonly McpServerRef[], allowHosts: readonly string[]): { path: string; message: string }[] {
  return servers.flatMap((server, index) =>
    isUrlAllowed(server.url, allowHosts)
      ? []
      : [{ path: `mcpServers.${index}.url`, message: `MCP servers may not be at ${hostOf(server.url)}: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry).` }],
  );
}
