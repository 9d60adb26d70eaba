// The JSON-RPC 2.0 envelope of POST /a2a/{name} and the params of the six methods Ratchet serves,
// parsed at the edge (unknown fields are let through: A2A clients send fields, such as `tenant` or
// `configuration.acceptedOutputModes`, that change nothing here).
import { z } from "zod";
import { A2A_ERRORS, PROTOCOL_TASK_STATES, type A2aErrorCode } from "./a2a-types";

export const A2A_METHODS = ["SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask"] as const;
export type A2aMethod = (typeof A2A_METHODS)[number];

export const requestIdSchema = z.union([z.string(), z.number(), z.null()]);
export type RequestId = z.infer<typeof requestIdSchema>;

export const envelopeSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: requestIdSchema.optional(),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});

const partSchema = z.object({
  text: z.string().optional(),
  data: z.unknown().optional(),
  url: z.string().optional(),
  raw: z.string().optional(),
  mediaType: z.string().optional(),
  filename: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const messageSchema = z.object({
  messageId: z.string().min(1),
  role: z.enum(["ROLE_USER", "ROLE_AGENT", "ROLE_UNSPECIFIED"]).optional(),
  parts: z.array(partSchema).min(1),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type IncomingA2aMessage = z.infer<typeof messageSchema>;

/** How many of a task's newest messages its `history` holds (A2A's historyLength; absent: all). */
const historyLength = z.number().int().min(0).optional();

export const sendParamsSchema = z.object({
  message: messageSchema,
  configuration: z.object({ returnImmediately: z.boolean().optional(), historyLength }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const taskParamsSchema = z.object({ id: z.string().min(1), historyLength });

export const LIST_PAGE_DEFAULT = 50;
export const LIST_PAGE_MAX = 100;

export const listParamsSchema = z.object({
  contextId: z.string().optional(),
  /**
   * TASK_STATE_UNSPECIFIED filters nothing, and so does UNRECOGNIZED, which the official client
   * (@a2a-js/sdk) sends for a status its caller left out.
   */
  status: z.enum(["TASK_STATE_UNSPECIFIED", "UNRECOGNIZED", ...PROTOCOL_TASK_STATES]).optional(),
  pageSize: z.number().int().min(1).max(LIST_PAGE_MAX).optional(),
  pageToken: z.string().optional(),
  historyLength,
  /** Only tasks whose status changed after this time (RFC 3339). */
  statusTimestampAfter: z.iso.datetime({ offset: true }).optional(),
});

export type ListParams = z.infer<typeof listParamsSchema>;

export type RpcError = { code: A2aErrorCode; message: string; data?: unknown };

export class A2aError extends Error {
  constructor(
    readonly code: A2aErrorCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const taskNotFound = (id: string) => new A2aError(A2A_ERRORS.taskNotFound, `Task ${id} was not found.`);

/** The zod issues of bad params as an invalid-params error, with their paths. */
export function invalidParams(error: z.ZodError): A2aError {
  const issues = error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
  return new A2aError(A2A_ERRORS.invalidParams, "Invalid params.", { issues });
}

export function parseParams<T>(schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) throw invalidParams(parsed.error);
  return parsed.data;
}

export function rpcResult(id: RequestId, result: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result };
}

export function rpcError(id: RequestId, error: RpcError): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error };
}
