// The zod schemas of user tokens, the run listing and the inbox stream (docs/inbox.md). Bodies a
// client sends are strict, as in ../runs/create-run-schemas.ts; the types they infer are checked against ../../types.ts
// at the bottom.
import { z } from "@hono/zod-openapi";
import { jsonObjectSchema } from "../../rules/json-object";
import { agentOfRunSchema, runStatusSchema, stoppedBySchema, waitingGuardrailSchema, waitingKindSchema } from "../runs/run-view-schemas";
import { subjectSchema } from "../../rules/subject";
import { batchActionSchema } from "../tools/toolset-schemas";
import type { Usage } from "../../rules/spend";
import type * as Api from "../../types";

/** A user token lives at most 30 days. */
export const MAX_USER_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_USER_TOKEN_TTL_SECONDS = 24 * 3600;

export const mintTokenBodySchema = z
  .strictObject({
    subject: subjectSchema.openapi({ description: "The app's user id the token acts for: 1–128 printable ASCII characters." }),
    ttlSeconds: z
      .number()
      .int()
      .gte(1)
      .lte(MAX_USER_TOKEN_TTL_SECONDS, { message: `At most ${MAX_USER_TOKEN_TTL_SECONDS} (30 days).` })
      .optional()
      .openapi({ description: `How long the token is good for, in seconds: 1 to ${MAX_USER_TOKEN_TTL_SECONDS} (30 days). Default ${DEFAULT_USER_TOKEN_TTL_SECONDS}.` }),
    budgetUsdPerDay: z
      .number()
      .gt(0)
      .optional()
      .openapi({ description: "What the runs this token creates (and continues) may reserve in a UTC day, for its subject: at most SUBJECT_BUDGET_USD_PER_DAY (the default)." }),
  })
  .openapi("MintTokenBody");

export const userTokenSchema = z
  .object({
    token: z.string().openapi({ description: "The user token, shown this once." }),
    id: z.string().openapi({ description: "The token's id: DELETE /v1/tokens/{id} revokes it." }),
    subject: z.string(),
    expiresAt: z.string(),
    budgetUsdPerDay: z.number().openapi({ description: "The daily spend limit of the runs it creates." }),
  })
  .openapi("UserToken");

export const usageSchema = z
  .object({
    subject: z.string(),
    day: z.string().openapi({ description: "The UTC day, YYYY-MM-DD." }),
    limitUsd: z.number().openapi({ description: "What the subject's runs may reserve today (SUBJECT_BUDGET_USD_PER_DAY, or a user token's budgetUsdPerDay)." }),
    reservedUsd: z.number().openapi({ description: "Budgets held by today's runs that have not ended." }),
    spentUsd: z.number().openapi({ description: "What today's runs that ended spent." }),
    leftUsd: z.number().openapi({ description: "limitUsd − reservedUsd − spentUsd, at least 0." }),
    resetsAt: z.string().openapi({ description: "When the day ends (next UTC midnight)." }),
  })
  .openapi("Usage");

const summaryWaitingSchema = z.object({
  kind: waitingKindSchema,
  callId: z.string(),
  name: z.string(),
  input: z.unknown(),
  batch: z.array(batchActionSchema).optional().openapi({ description: "For a client toolset: the batch's actions (left out with the input when too large)." }),
  truncated: z.literal(true).optional().openapi({ description: "The input was too large to list (`input` is null): GET the run for it." }),
  guardrail: waitingGuardrailSchema.optional(),
});

export const runSummarySchema = z
  .object({
    id: z.string(),
    status: runStatusSchema,
    stoppedBy: stoppedBySchema.optional(),
    steps: z.number().int().openapi({ description: "Model calls, as of the last status change." }),
    spentUsd: z.number().openapi({ description: "Spend, as of the last status change." }),
    createdAt: z.string(),
    updatedAt: z.string().openapi({ description: "When the last status change happened." }),
    metadata: jsonObjectSchema.optional(),
    tags: z.array(z.string()).optional().openapi({ description: "The run's tags, as given when it was made." }),
    waiting: summaryWaitingSchema.optional(),
    subject: z.string().optional(),
    scheduleId: z.string().optional().openapi({ description: "The schedule whose fire made the run." }),
    firedAt: z.string().optional().openapi({ description: "The fire time the run stands for (a schedule's runs only)." }),
    parentId: z.string().optional().openapi({ description: "A child run's parent." }),
    agent: agentOfRunSchema.optional().openapi({ description: "The stored agent, and its version, the run was made from." }),
    version: z.number().int().openapi({ description: "The run's status changes so far: a larger version is newer." }),
  })
  .openapi("RunSummary");

export const runsPageSchema = z
  .object({
    runs: z.array(runSummarySchema),
    nextCursor: z.string().optional().openapi({ description: "Send as ?cursor= for the next page; absent on the last page." }),
    lastSeq: z
      .number()
      .int()
      .optional()
      .openapi({ description: "The newest seq of the subject's inbox stream when this page was read: follow GET /v1/inbox/events with after= this to hear every later change." }),
  })
  .openapi("RunsPage");

export const inboxEventTypeSchema = z.enum(["run-started", "run-waiting", "run-answered", "run-resumed", "run-ended", "run-deleted"]);

export const storedInboxEventSchema = z
  .object({
    seq: z.number().int().gte(1),
    at: z.string(),
    type: inboxEventTypeSchema,
    run: runSummarySchema,
    callId: z.string().optional().openapi({ description: "On run-answered: the call that was answered." }),
    redacted: z.literal(true).optional().openapi({ description: "The run was deleted: its summary here keeps no question, input or metadata." }),
  })
  .openapi("InboxEvent");

/** Opaque to clients: base64url of the last listed run's creation time and id. */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,400}$/;

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 100;

// ---------------------------------------------------------------------------------------------
// Compile-time checks: what the schemas let through is what ../../types.ts describes.

type Assignable<From, To> = [From] extends [To] ? true : false;
type Check<T extends true> = T;

export type InboxSchemaChecks = [
  Check<Assignable<z.infer<typeof runSummarySchema>, Api.RunSummary>>,
  Check<Assignable<Api.RunSummary, z.infer<typeof runSummarySchema>>>,
  Check<Assignable<z.infer<typeof storedInboxEventSchema>, Api.StoredInboxEvent>>,
  Check<Assignable<Api.StoredInboxEvent, z.infer<typeof storedInboxEventSchema>>>,
  Check<Assignable<z.infer<typeof userTokenSchema>, Api.UserToken>>,
  Check<Assignable<z.infer<typeof usageSchema>, Usage>>,
  Check<Assignable<Usage, z.infer<typeof usageSchema>>>,
  Check<Assignable<z.infer<typeof runsPageSchema>, Api.RunsPage>>,
];
