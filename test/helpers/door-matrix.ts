// The door matrix's table (test/http/door-matrix.test.ts): forbidden inputs (rows) × the doors a run
// comes in by (columns). Every door hands the full body to the one intake (src/intake/admit-run.ts),
// so each forbidden input gets the same status and the same issue path from each door, under where
// the door puts the body: "" for a run, `run.` for a schedule, `tools.0.run.` for an agent template.
// The A2A and MCP doors take a message only: their run is a stored agent's template, so they are
// asked, with the run of a stored agent by name, what today's settings refuse in a planted template.
// A new rule is one row here, a new door one column; a cell that cannot be asked at a door (a fork
// has no `webhook` field) is skipped here with its reason, never left out silently.

/** Who asks: a user token (end users' rules and the caps), or the deployment token (the bad hosts it alone may name). */
export type RowCaller = "user" | "deployment";

export type Row = {
  name: string;
  caller: RowCaller;
  /** The forbidden fields, as a create body (or template) carries them. */
  fields: Record<string, unknown>;
  /** The same, as a fork body carries them, where it differs (a fork has no `script`). */
  forkFields?: Record<string, unknown>;
  status: 400 | 403;
  /** The path relative to the body. */
  path: string;
};

export type Door =
  | "create"
  | "fork (user token)"
  | "fork (run token)"
  | "fork (deployment)"
  | "schedule create"
  | "schedule patch"
  | "trigger"
  | "template depth 1"
  | "template depth 2"
  | "template depth 1 in a fork (run token)"
  | "child start"
  | "continue"
  | "agent create"
  | "agent run"
  | "stored agent run"
  | "A2A SendMessage"
  | "MCP tools/call"
  | "AI SDK chat POST"
  | "AG-UI run"
  | "AG-UI tools"
  | "experiment case";

export const DOORS: readonly Door[] = [
  "create",
  "fork (user token)",
  "fork (run token)",
  "fork (deployment)",
  "schedule create",
  "schedule patch",
  "trigger",
  "template depth 1",
  "template depth 2",
  "template depth 1 in a fork (run token)",
  "child start",
  "continue",
  "agent create",
  "agent run",
  "stored agent run",
  "A2A SendMessage",
  "MCP tools/call",
  "AI SDK chat POST",
  "AG-UI run",
  "AG-UI tools",
  "experiment case",
];

/** Where each door puts the body: the prefix of the issue path it answers with. */
export const PATH_PREFIX: Record<Door, string> = {
  create: "",
  "fork (user token)": "",
  "fork (run token)": "",
  "fork (deployment)": "",
  "schedule create": "run.",
  "schedule patch": "run.",
  trigger: "run.",
  "template depth 1": "tools.0.run.",
  "template depth 2": "tools.0.run.tools.0.run.",
  "template depth 1 in a fork (run token)": "tools.0.run.",
  // Answered as the agent call's error result, which names the child body's own paths.
  "child start": "",
  continue: "",
  "agent create": "run.",
  "agent run": "",
  // A run of a stored agent whose template today's settings refuse: the template is the run's body.
  "stored agent run": "",
  "A2A SendMessage": "",
  "MCP tools/call": "",
  "AI SDK chat POST": "",
  // A thread's first request makes its run of the agent (POST /v1/ag-ui/{agent}): a refusal is the API's error before the stream.
  "AG-UI run": "",
  // A thread's own tools (RunAgentInput.tools) join the agent's, after them, as the run body's `tools`.
  "AG-UI tools": "",
  // A case run is the recording's body with the variant's changes over it, admitted when the case starts.
  "experiment case": "",
};

/** The doors that run a stored agent whose template carries the row's fields (planted, as one stored before a cap was lowered). */
export const STORED_AGENT_DOORS: readonly Door[] = ["stored agent run", "A2A SendMessage", "MCP tools/call", "AG-UI run"];

const NOT_ALLOWED = "https://not-allowed.example";

const httpTool = (url: string) => ({ type: "http", name: "lookup", description: "Looks a thing up.", inputSchema: { type: "object", properties: {} }, url });
const clientTools = (count: number) => Array.from({ length: count }, (_, i) => ({ type: "client", name: `tool_${i}`, description: "A client tool.", inputSchema: { type: "object", properties: {} } }));

export const ROWS: readonly Row[] = [
  // What a user token (and a run token of its subject's run) may not ask for.
  { name: "another subject", caller: "user", fields: { subject: "someone-else" }, status: 400, path: "subject" },
  { name: "an HTTP tool (signed as the deployment)", caller: "user", fields: { tools: [httpTool("http://127.0.0.1:9/lookup")] }, status: 400, path: "tools.0" },
  { name: "an MCP server", caller: "user", fields: { mcpServers: [{ name: "docs", url: "http://127.0.0.1:9/mcp" }] }, status: 400, path: "mcpServers.0" },
  { name: "a provider tool", caller: "user", fields: { tools: [{ type: "provider", spec: { type: "web_search_20250305", name: "web_search", max_uses: 2 } }] }, status: 400, path: "tools.0" },
  { name: "a webhook", caller: "user", fields: { webhook: { url: "http://127.0.0.1:9/hook" } }, status: 400, path: "webhook" },
  { name: "a loop guard loosened (a level on by default turned off)", caller: "user", fields: { loopGuards: { sameText: { stop: 0 } } }, status: 400, path: "loopGuards.sameText.stop" },
  { name: "the scripted provider", caller: "user", fields: { provider: "scripted", script: [{ text: "I say what you wrote." }] }, forkFields: { provider: "scripted" }, status: 403, path: "provider" },
  { name: "an HTTP guardrail check (signed as the deployment)", caller: "user", fields: { guardrails: { tool: [{ name: "gate", type: "http", url: "http://127.0.0.1:9/check" }] } }, status: 400, path: "guardrails.tool.0" },
  { name: "a model guardrail check (spends on the deployment's account)", caller: "user", fields: { guardrails: { input: [{ name: "judge", type: "model", prompt: "The question is polite." }] } }, status: 400, path: "guardrails.input.0" },
  // What no caller may ask for.
  { name: "a regex guardrail RE2 cannot run", caller: "user", fields: { guardrails: { output: [{ name: "ahead", type: "regex", pattern: "a(?=b)" }] } }, status: 400, path: "guardrails.output.0.pattern" },
  // The deployment's caps, for anyone.
  { name: "maxSteps past MAX_STEPS_LIMIT", caller: "user", fields: { maxSteps: 101 }, status: 400, path: "maxSteps" },
  { name: "maxTokens past MAX_TOKENS_LIMIT", caller: "user", fields: { maxTokens: 32_001 }, status: 400, path: "maxTokens" },
  { name: "budget.usd past BUDGET_USD_LIMIT", caller: "user", fields: { budget: { usd: 11 } }, status: 400, path: "budget.usd" },
  { name: "more tools than MAX_TOOLS", caller: "user", fields: { tools: clientTools(129) }, status: 400, path: "tools" },
  // Hosts not on HTTP_TOOL_ALLOW, for the deployment token, which alone may name them.
  { name: "an HTTP tool at a host not on the allow list", caller: "deployment", fields: { tools: [httpTool(`${NOT_ALLOWED}/lookup`)] }, status: 400, path: "tools.0.url" },
  { name: "an MCP server at a host not on the allow list", caller: "deployment", fields: { mcpServers: [{ name: "docs", url: `${NOT_ALLOWED}/mcp` }] }, status: 400, path: "mcpServers.0.url" },
  { name: "an HTTP guardrail check at a host not on the allow list", caller: "deployment", fields: { guardrails: { tool: [{ name: "gate", type: "http", url: `${NOT_ALLOWED}/check` }] } }, status: 400, path: "guardrails.tool.0.url" },
];

const FORK_FIELDS = new Set(["system", "provider", "model", "tools", "budget", "maxSteps"]);
const TEMPLATE_FIELDS_MISSING = new Set(["subject", "webhook"]);
/** What an experiment's variant may change in each recording's body (docs/evals.md, Experiments). */
const VARIANT_FIELDS = new Set(["system", "provider", "model", "tools", "maxSteps", "maxTokens", "budget", "script"]);
/** What a run of a stored agent (POST /v1/runs {agent}) may set beside its messages; the rest is the agent's. */
const AGENT_RUN_FIELDS = new Set(["subject", "webhook", "budget", "metadata"]);

/** The paths of the rows that are a user or run token's rights (the deployment may ask for them). */
const RIGHTS_PATHS = ["subject", "tools.0", "mcpServers.0", "webhook", "loopGuards.sameText.stop", "guardrails.tool.0", "guardrails.input.0"];

/** Whether the row's one field is `tools`, every one a client tool: what an AG-UI thread's own `tools` can carry. */
function clientToolsOnly(fields: Record<string, unknown>): boolean {
  const tools = fields.tools;
  return Object.keys(fields).length === 1 && Array.isArray(tools) && tools.every((tool) => (tool as { type?: unknown }).type === "client");
}

/** Why `row` is not asked at `door`, or undefined when it is. */
export function skipReason(row: Row, door: Door): string | undefined {
  const fields = Object.keys(door.startsWith("fork") ? (row.forkFields ?? row.fields) : row.fields);
  if (door === "agent create" && [...RIGHTS_PATHS, "provider"].includes(row.path)) {
    return "only the deployment token makes agents (a user token: 403 at /v1/agents); a user's run of one is held to its rights at the create door";
  }
  if (door === "agent run" && fields.some((field) => !AGENT_RUN_FIELDS.has(field))) {
    return `a run of a stored agent has no ${fields.join(", ")} field: the agent's template holds it, admitted when the agent was made (the agent create column)`;
  }
  if (STORED_AGENT_DOORS.includes(door) && row.caller === "user" && (row.status === 403 || RIGHTS_PATHS.includes(row.path))) {
    return "a stored agent's template is the deployment's, held to its caller's rights when it was made (the agent create column); a run of it is held to today's settings only";
  }
  if (door === "AG-UI tools" && !clientToolsOnly(row.fields)) {
    return "a thread brings client tools only (AG-UI's Tool: a name, a description, parameters); the rest of its run is the agent's template (the AG-UI run column)";
  }
  if (door === "AI SDK chat POST") {
    return "a chat POST carries a message only: it is sent by POST …/messages' own code (sendMessage → admitContinue), whose one field, maxSteps, the continue column asks";
  }
  if (door === "experiment case" && (row.status === 403 || RIGHTS_PATHS.includes(row.path))) {
    return "only the deployment token makes experiments (a user or run token: 403 at /v1/experiments, door-matrix-evals.test.ts); a case run is the deployment's";
  }
  if (door === "experiment case" && fields.some((field) => !VARIANT_FIELDS.has(field))) return `a variant has no ${fields.join(", ")} field: a case run keeps its recording's`;
  if (door === "continue") return row.path === "maxSteps" ? undefined : "a continue carries content, mode and maxSteps only";
  if (door === "child start" && (row.status === 403 || RIGHTS_PATHS.includes(row.path))) {
    return "a child's start is held to today's settings only: its template's rights were its parent's caller's, checked when the parent was made";
  }
  if (door === "child start" && row.path === "budget.usd") return "a child's budget is cut to what its parent has left before it is admitted (docs/children.md, Money)";
  if (row.caller === "deployment" && (door === "fork (user token)" || door === "fork (run token)" || door === "template depth 1 in a fork (run token)")) {
    return "a user or run token may not name such a tool or server at all (the rows above)";
  }
  if (row.caller === "user" && door === "fork (deployment)") return "the deployment token may ask for it; its caps rows are asked of the token forks";
  if (door.startsWith("fork") && !door.includes("template") && fields.some((field) => !FORK_FIELDS.has(field))) return `a fork body has no ${fields.join(", ")} field: a fork keeps its source's`;
  if (door.startsWith("template") && fields.some((field) => TEMPLATE_FIELDS_MISSING.has(field))) return `an agent template has no ${fields.join(", ")} field: a child gets its parent's`;
  return undefined;
}

// The door matrix's stream columns (test/http/door-matrix-streams.test.ts): the ways a run's events
// go out, each a reader of the one watch the events route uses (src/http/routes/runs/run-watch.ts),
// so each holds the watch's rules. A new reader is a column here, a new rule of the watch a row.

export type WatchDoor =
  | "events (SSE)"
  | "events (WebSocket)"
  | "AI SDK chat stream"
  | "A2A SendStreamingMessage"
  | "A2A SubscribeToTask"
  | "A2A SendMessage (blocking)"
  | "MCP tools/call"
  | "AG-UI stream";

export const WATCH_DOORS: readonly WatchDoor[] = [
  "events (SSE)",
  "events (WebSocket)",
  "AI SDK chat stream",
  "A2A SendStreamingMessage",
  "A2A SubscribeToTask",
  "A2A SendMessage (blocking)",
  "MCP tools/call",
  "AG-UI stream",
];

export type WatchRow = "revoking the user token ends it" | "a cursor past the run's newest event is refused";

export const WATCH_ROWS: readonly WatchRow[] = ["revoking the user token ends it", "a cursor past the run's newest event is refused"];

/** Why `row` is not asked at `door`, or undefined when it is. */
export function watchSkipReason(row: WatchRow, door: WatchDoor): string | undefined {
  if (row !== "a cursor past the run's newest event is refused") return undefined;
  if (door === "AI SDK chat stream") return "the chat's stream starts where the run's marks say (its turn's start), never at a cursor the client sends";
  if (door === "A2A SendStreamingMessage" || door === "A2A SendMessage (blocking)") return "a message's task is followed from where the door finds it; the client sends no cursor";
  if (door === "MCP tools/call") return "a call follows its run from the run's newest event when it starts; the client sends no cursor";
  return undefined;
}

// The door matrix's deployment columns (test/http/door-matrix-evals.test.ts): the routes only the
// deployment token may use (evals read any subject's runs and spend the deployment's money). Each
// row is a token that is not the deployment's, asked at every such route: none gets in. A route
// opened to another token fails here; a new deployment-only route is a column.

/** A deployment-only route: its method and its path, `{name}` and `{id}` filled in by the test. */
export type DeploymentDoor = { method: "GET" | "POST"; path: string; body?: unknown };

export const DEPLOYMENT_DOORS: readonly DeploymentDoor[] = [
  { method: "POST", path: "/v1/datasets", body: { name: "door", cases: [{ messages: [{ role: "user", content: "hi" }] }] } },
  { method: "GET", path: "/v1/datasets" },
  { method: "GET", path: "/v1/datasets/{name}" },
  { method: "POST", path: "/v1/datasets/{name}/cases", body: { cases: [{ messages: [{ role: "user", content: "hi" }] }] } },
  { method: "POST", path: "/v1/experiments", body: { dataset: "{name}", variant: {}, scorers: [{ type: "exact" }] } },
  { method: "GET", path: "/v1/experiments" },
  { method: "GET", path: "/v1/experiments/{id}" },
  { method: "POST", path: "/v1/experiments/{id}/cancel" },
  { method: "GET", path: "/v1/experiments/{id}/events" },
  { method: "GET", path: "/v1/experiments/{id}/comparison" },
  { method: "GET", path: "/v1/experiments/{id}/export" },
];

export type TokenRow = { name: "no token" | "a user token" | "a run token"; status: 401 | 403; code: "unauthorized" | "forbidden" };

export const TOKEN_ROWS: readonly TokenRow[] = [
  { name: "no token", status: 401, code: "unauthorized" },
  { name: "a user token", status: 403, code: "forbidden" },
  { name: "a run token", status: 403, code: "forbidden" },
];
