// The edge's check of a run's MCP servers against its other tools and this deployment (400, nothing
// created): each server's host must be on HTTP_TOOL_ALLOW, by the same rule as HTTP tools
// (allow-list.ts; every call checks it again, so a host taken off the list is not called by runs
// made before), and no tool of `tools` may be seen by the model under a name of a server's tools
// (`<server>__…`): a client tool, an HTTP tool or a toolset's `<toolset>__<action>`.
import type { McpServerRef, ToolRef } from "../../api/types";
import { hostOf, isUrlAllowed } from "../http/allow-list";
import { offeredNames } from "../client-toolset";
import { isInServerSpace, MCP_SEPARATOR } from "./mcp-names";

export function checkMcpServers(servers: readonly McpServerRef[], refs: readonly ToolRef[], allowHosts: readonly string[]): { path: string; message: string }[] {
  const issues = servers.flatMap((server, index) =>
    isUrlAllowed(server.url, allowHosts)
      ? []
      : [{ path: `mcpServers.${index}.url`, message: `MCP servers may not be at ${hostOf(server.url)}: it is not on the allow list (HTTP_TOOL_ALLOW; plain http needs an http:// entry).` }],
  );
  refs.forEach((ref, index) => {
    const clash = offeredNames(ref).flatMap((name) => servers.filter((server) => isInServerSpace(name, server.name)).map((server) => ({ name, server: server.name })))[0];
    if (clash !== undefined) {
      issues.push({ path: `tools.${index}`, message: `The model would see ${clash.name} among MCP server ${clash.server}'s tools: names starting with ${clash.server}${MCP_SEPARATOR} are that server's.` });
    }
  });
  return issues;
}
