// An MCP session without server state. Streamable HTTP hands the client an Mcp-Session-Id at
// `initialize` and the client sends it with every later request; a Worker's requests land on any
// isolate, so nothing may live in memory between them. What a later request needs of the session
// travels in its id instead: whether the client declared form elicitation (the `initialize`
// request is the only one that says so) and a random part that keeps two sessions' JSON-RPC
// request ids apart (a tools/call's run is keyed by caller, session and request id). The id is no
// credential: the bearer token is checked on every request, and a client that lies about its
// capabilities only gets questions it cannot show.
const PREFIX = "rs1";

export type McpSession = { id: string; elicitation: boolean };

/** A new session's id for a client that did (or did not) declare form elicitation. */
export function newSessionId(elicitation: boolean, random: string = crypto.randomUUID().replaceAll("-", "")): string {
  return `${PREFIX}.${elicitation ? "e" : "n"}.${random}`;
}

/** The session an Mcp-Session-Id header names, or undefined for none or one this server did not give. */
export function sessionOf(header: string | null | undefined): McpSession | undefined {
  if (header === null || header === undefined) return undefined;
  const match = /^rs1\.([en])\.([0-9a-f]{32})$/.exec(header);
  if (match === null) return undefined;
  return { id: header, elicitation: match[1] === "e" };
}

/**
 * Whether `initialize`'s client capabilities allow form elicitation: `elicitation: {}` (form is
 * the default) or `elicitation: {form: {}}`; a client offering only `url` mode cannot answer a form.
 */
export function declaresFormElicitation(capabilities: unknown): boolean {
  if (typeof capabilities !== "object" || capabilities === null) return false;
  const elicitation = (capabilities as Record<string, unknown>).elicitation;
  if (typeof elicitation !== "object" || elicitation === null) return false;
  const modes = elicitation as Record<string, unknown>;
  return modes.form !== undefined || modes.url === undefined;
}

export function newSession(elicitation: boolean): McpSession {
  return { id: newSessionId(elicitation), elicitation };
}
