// How an MCP server's tools are named for the model (docs/mcp.md "Names"): `<server>__<tool>`. The
// whole name must fit the providers' tool-name rule (Anthropic's and OpenAI's: 1–64 characters of A–Z a–z 0–9 _ -),
// so a server's name is kept short and free of `__`, and a tool whose name does not fit is refused
// (never renamed: a renamed tool could meet another one's name, and the model would call it by a
// name its server does not know).

/** Between the server's name and the tool's. */
export const MCP_SEPARATOR = "__";

/** A server's name: letters, digits, `-` and single `_` (never two in a row, never last), starting with a letter or digit. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?=[A-Za-z0-9-]))*$/;
export const MCP_SERVER_NAME_MAX = 30;

export const MCP_SERVER_NAME_RULE = `1–${MCP_SERVER_NAME_MAX} characters of A–Z a–z 0–9 - _, starting with a letter or digit, with no "__" and no "_" at the end`;

/** The name the model calls a server's tool by. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_SEPARATOR}${tool}`;
}

/** Why `<server>__<tool>` cannot be a tool name, or undefined when it can. */
export function toolNameProblem(server: string, tool: string): string | undefined {
  const name = mcpToolName(server, tool);
  if (!/^[A-Za-z0-9_-]*$/.test(tool)) return `its name has characters a tool name may not have (only A–Z a–z 0–9 _ - are allowed): ${JSON.stringify(tool)}`;
  if (tool.length === 0) return "its name is empty";
  if (name.length > 64) return `${name} is ${name.length} characters long; a tool name has at most 64`;
  return undefined;
}

/** True when a name given in `tools` would sit among the server's tools (`<server>__…`): such names are the server's. */
export function isInServerSpace(name: string, server: string): boolean {
  return name.startsWith(`${server}${MCP_SEPARATOR}`);
}
