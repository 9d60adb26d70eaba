// The MCP server of one HTTP request: a fresh SDK Server on a stateless web-standard transport
// (the transport serves one request; the session lives in its id, mcp-session.ts). Its tools are
// the caller's agents, one per agent, named by the agent's name; a call is callAgent's.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { RunView } from "../../../api/types";
import { VERSION } from "../../../version";
import { ApiException } from "../../errors";
import { callAgent } from "../calls/agent-call";
import type { RunLinks } from "../calls/call-results";
import { callParamsError } from "./call-params";
import { ANSWER_TOOL, answerArgs, answerTool } from "../answers/answer-tool";
import { invalidRequest } from "../../errors";
import type { ElicitedAnswer } from "../answers/elicitation";
import { elicitationId, elicitParams, type Waiting } from "../answers/elicitation";
import type { EventReader } from "../calls/run-events";

/**
 * An agent as a tool: its name, description and input schema (`{task: string}` unless it has its
 * own), its output schema when it has typed output (tool-output.ts), and its annotations.
 */
export type AgentTool = Pick<Tool, "name" | "description" | "inputSchema" | "outputSchema" | "annotations"> & { description: string };

/** What the server needs of the rest of the service, for this request's caller. */
export type McpDeps = {
  agents(): Promise<AgentTool[]>;
  /** Starts a run of the agent with the call's arguments; undefined when the caller has no such agent. `key` makes a repeated request find its run. */
  start(name: string, args: Record<string, unknown>, key: string | undefined): Promise<RunView | undefined>;
  events(runId: string, after: number): Promise<EventReader>;
  /** Answers the run's question as POST /v1/runs/{id}/answer (a run the caller does not reach is 404); the run's view after it. */
  answer(runId: string, body: ElicitedAnswer): Promise<RunView>;
  links(runId: string): RunLinks;
  /** The session's idempotency scope for a request id, or undefined without a session (each call a new run). */
  keyOf(requestId: string | number): string | undefined;
  /** The client declared form elicitation (at initialize, carried by the session id). */
  elicitation: boolean;
  /** MCP_CALL_SECONDS. */
  callSeconds: number;
};

/** A refusal of the run's start (the intake's, a rate limit) as the tool's error result, with its issues. */
function refusedResult(error: ApiException): CallToolResult {
  const issues = error.issues === undefined ? "" : `\n${error.issues.map((issue) => `${issue.path}: ${issue.message}`).join("\n")}`;
  return { content: [{ type: "text", text: `${error.message}${issues}` }], isError: true, _meta: { "ratchet/error": { code: error.code, status: error.status, issues: error.issues ?? [] } } };
}

export function mcpServer(deps: McpDeps): { server: Server; transport: WebStandardStreamableHTTPServerTransport } {
  const server = new Server(
    { name: "ratchet", version: VERSION },
    { capabilities: { tools: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), instructions: "Each tool is a Ratchet agent: a call starts a durable run of it and answers with its final text." },
  );
  // Stateless: no session id from the transport (the route gives one), no event store (a call's
  // answer comes again by calling again with the same request id: the same run answers).
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools: Tool[] = [...(await deps.agents()), answerTool];
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const progressToken = request.params._meta?.progressToken;
    let sent = -1;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deps.callSeconds * 1000);
    });
    try {
      return await callAgent({
        start: async () => {
          if (name === ANSWER_TOOL) {
            const parsed = answerArgs(args);
            if ("issue" in parsed) throw invalidRequest("The arguments of answer_run are not an answer.", [parsed.issue]);
            return deps.answer(parsed.runId, parsed.body);
          }
          const run = await deps.start(name, args, deps.keyOf(extra.requestId));
          if (run === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
          return run;
        },
        events: deps.events,
        links: deps.links,
        progress: async (progress, total, message) => {
          // Progress must grow with each notification; a resumed call may see a step it reported.
          if (progressToken === undefined || progress <= sent) return;
          sent = progress;
          await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, total, message } });
        },
        elicit: deps.elicitation
          ? async (runId: string, waiting: Waiting) => {
              // Sent as a request of our own id, not with extra.sendRequest: its answer comes in a
              // later POST, which the route hands to the run (elicitation.ts).
              const id = elicitationId({ runId, callId: waiting.callId });
              await transport.send({ jsonrpc: "2.0", id, method: "elicitation/create", params: elicitParams(waiting) }, { relatedRequestId: extra.requestId });
            }
          : undefined,
        deadline,
        seconds: deps.callSeconds,
      });
    } catch (error) {
      if (error instanceof ApiException) return refusedResult(error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  });

  return { server, transport };
}

/**
 * Connects the server to its transport, with one check in between: a tools/call whose params are
 * not the protocol's is answered -32602 with the paths at fault (call-params.ts) and never reaches
 * the server, which would answer -32603 with its validation error's text.
 */
export async function connectServer(server: Server, transport: WebStandardStreamableHTTPServerTransport): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = callParamsError(message);
    if (refusal === undefined) deliver?.(message, extra);
    // A send fails only when the request's stream is gone (its client left): nothing is left to tell.
    else transport.send(refusal).catch(() => undefined);
  };
}
