// Deployment-wide caps, so that a token holder cannot spend or store without bound. Each has a
// safe default and can be changed per deployment (wrangler.toml [vars] or the dashboard).

export type Limits = {
  /** MAX_STEPS_LIMIT: the largest `maxSteps` a run (or a continue) may ask for. */
  maxSteps: number;
  /** MAX_TOKENS_LIMIT: the largest `maxTokens` (answer tokens per model call). */
  maxTokens: number;
  /** BUDGET_USD_DEFAULT: the budget of a run that names none. */
  budgetUsdDefault: number;
  /** BUDGET_USD_LIMIT: the largest `budget.usd`. */
  budgetUsd: number;
  /** RUN_EVENTS_LIMIT: stored events per run; a run that reaches it fails with a `limit` error. */
  runEvents: number;
  /** RUN_BYTES_LIMIT: bytes of storage per run; a run that reaches it fails with a `limit` error. */
  runBytes: number;
  /** RUN_IMAGE_BYTES_LIMIT: bytes of images a run may hold (each image once, by content hash); one more image past it is a 413. */
  runImageBytes: number;
  /** RUN_RETENTION_DAYS: a run deletes itself this long after it ends (or last waited). */
  retentionDays: number;
  /** SUBJECT_BUDGET_USD_PER_DAY: what all runs of one subject may reserve in a UTC day. */
  subjectBudgetUsdPerDay: number;
  /** MAX_TOOLS: tools the model may be offered by a run's `tools` (each toolset action counts). */
  maxTools: number;
  /** MCP_TOOLS_LIMIT: tools taken from one MCP server's listing; the rest are left out and reported. */
  mcpTools: number;
  /** WATCHERS_LIMIT: sockets and streams open at once on one run, and on one subject's inbox. */
  watchers: number;
  /** INBOX_EVENTS_DAYS: an inbox keeps its events this long. */
  inboxEventsDays: number;
  /** SCHEDULE_MIN_SECONDS: the shortest time between two fires of a schedule. */
  scheduleMinSeconds: number;
  /** MAX_RUN_DEPTH: how deep child runs may nest (a top-level run is depth 0; its children 1). */
  maxRunDepth: number;
  /** MAX_CHILDREN: child runs one run may start in all. */
  maxChildren: number;
  /** MAX_TREE_RUNS: runs one tree (a top-level run and all its descendants, itself included) may hold. */
  maxTreeRuns: number;
  /** SCHEDULES_PER_SUBJECT: schedules one subject may hold at once. */
  schedulesPerSubject: number;
  /** MAX_QUEUED_MESSAGES: messages sent while a run works that may wait to go into its history. */
  maxQueuedMessages: number;
  /** MAX_INTERRUPTS_PER_STEP: interrupts of one model step; later interrupt messages queue. */
  maxInterruptsPerStep: number;
  /** MCP_CALL_SECONDS: how long an MCP tools/call waits for its run before it answers with the run id (the run goes on). */
  mcpCallSeconds: number;
  /** MCP_MESSAGES_PER_POST: JSON-RPC messages (requests, notifications, elicitation answers) one POST /mcp may carry. */
  mcpMessagesPerPost: number;
  /** A2A_SEND_SECONDS: how long a blocking A2A SendMessage follows its task before it answers the task as it stands (the run goes on). */
  a2aSendSeconds: number;
  /** SSE_KEEPALIVE_SECONDS: the longest an open SSE stream goes without sending anything; past it, a comment line (a keep-alive). */
  sseKeepAliveSeconds: number;
  /** DATASET_CASES_LIMIT: cases one dataset version (and so one experiment) may hold. */
  datasetCases: number;
  /** EXPERIMENT_CONCURRENCY_LIMIT: the largest `concurrency` of an experiment (case runs at once). */
  experimentConcurrency: number;
  /** EXPERIMENT_BUDGET_USD_LIMIT: the largest `budget.usd` of an experiment. */
  experimentBudgetUsd: number;
  /** EXPERIMENT_CASE_MIN_USD: the least budget an experiment gives a case's run (or the run's own, when less) before it starts it. */
  experimentCaseMinUsd: number;
  /** GUARDRAIL_HTTP_SECONDS: how long an HTTP guardrail check may take to answer when it names no timeoutSeconds; past it the check fails. */
  guardrailHttpSeconds: number;
};

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 100,
  maxTokens: 32_000,
  budgetUsdDefault: 1,
  budgetUsd: 10,
  runEvents: 100_000,
  runBytes: 256 * 1024 * 1024,
  runImageBytes: 32 * 1024 * 1024,
  retentionDays: 30,
  subjectBudgetUsdPerDay: 20,
  maxTools: 128,
  mcpTools: 128,
  watchers: 64,
  inboxEventsDays: 30,
  scheduleMinSeconds: 60,
  maxRunDepth: 3,
  maxChildren: 50,
  maxTreeRuns: 200,
  schedulesPerSubject: 20,
  maxQueuedMessages: 20,
  maxInterruptsPerStep: 3,
  mcpCallSeconds: 50,
  mcpMessagesPerPost: 10,
  a2aSendSeconds: 25,
  sseKeepAliveSeconds: 15,
  datasetCases: 1_000,
  experimentConcurrency: 16,
  experimentBudgetUsd: 100,
  experimentCaseMinUsd: 0.05,
  guardrailHttpSeconds: 10,
};

/** Each limit's setting, and whether it must be a whole number. */
export const LIMIT_SETTINGS: Record<keyof Limits, { setting: string; whole: boolean }> = {
  maxSteps: { setting: "MAX_STEPS_LIMIT", whole: true },
  maxTokens: { setting: "MAX_TOKENS_LIMIT", whole: true },
  budgetUsdDefault: { setting: "BUDGET_USD_DEFAULT", whole: false },
  budgetUsd: { setting: "BUDGET_USD_LIMIT", whole: false },
  runEvents: { setting: "RUN_EVENTS_LIMIT", whole: true },
  runBytes: { setting: "RUN_BYTES_LIMIT", whole: true },
  runImageBytes: { setting: "RUN_IMAGE_BYTES_LIMIT", whole: true },
  retentionDays: { setting: "RUN_RETENTION_DAYS", whole: false },
  subjectBudgetUsdPerDay: { setting: "SUBJECT_BUDGET_USD_PER_DAY", whole: false },
  maxTools: { setting: "MAX_TOOLS", whole: true },
  mcpTools: { setting: "MCP_TOOLS_LIMIT", whole: true },
  watchers: { setting: "WATCHERS_LIMIT", whole: true },
  inboxEventsDays: { setting: "INBOX_EVENTS_DAYS", whole: false },
  scheduleMinSeconds: { setting: "SCHEDULE_MIN_SECONDS", whole: true },
  maxRunDepth: { setting: "MAX_RUN_DEPTH", whole: true },
  maxChildren: { setting: "MAX_CHILDREN", whole: true },
  maxTreeRuns: { setting: "MAX_TREE_RUNS", whole: true },
  schedulesPerSubject: { setting: "SCHEDULES_PER_SUBJECT", whole: true },
  maxQueuedMessages: { setting: "MAX_QUEUED_MESSAGES", whole: true },
  maxInterruptsPerStep: { setting: "MAX_INTERRUPTS_PER_STEP", whole: true },
  mcpCallSeconds: { setting: "MCP_CALL_SECONDS", whole: true },
  mcpMessagesPerPost: { setting: "MCP_MESSAGES_PER_POST", whole: true },
  a2aSendSeconds: { setting: "A2A_SEND_SECONDS", whole: true },
  sseKeepAliveSeconds: { setting: "SSE_KEEPALIVE_SECONDS", whole: true },
  datasetCases: { setting: "DATASET_CASES_LIMIT", whole: true },
  experimentConcurrency: { setting: "EXPERIMENT_CONCURRENCY_LIMIT", whole: true },
  experimentBudgetUsd: { setting: "EXPERIMENT_BUDGET_USD_LIMIT", whole: false },
  experimentCaseMinUsd: { setting: "EXPERIMENT_CASE_MIN_USD", whole: false },
  guardrailHttpSeconds: { setting: "GUARDRAIL_HTTP_SECONDS", whole: true },
};

type Problem = { setting: string; problem: string };

/** The limits of `env`: unset ones take their default; one that is not a positive number is a problem (and keeps its default). */
export function readLimits(env: object): { limits: Limits; problems: Problem[] } {
  const limits: Limits = { ...DEFAULT_LIMITS };
  const problems: Problem[] = [];
  for (const [key, { setting, whole }] of Object.entries(LIMIT_SETTINGS) as [keyof Limits, { setting: string; whole: boolean }][]) {
    const raw = (env as Record<string, unknown>)[setting];
    if (raw === undefined || raw === "") continue;
    const value = typeof raw === "number" ? raw : Number(String(raw).trim());
    if (!Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
      problems.push({ setting, problem: `must be a ${whole ? "whole " : ""}number above 0` });
      continue;
    }
    limits[key] = value;
  }
  if (limits.budgetUsdDefault > limits.budgetUsd) problems.push({ setting: "BUDGET_USD_DEFAULT", problem: "is above BUDGET_USD_LIMIT" });
  return { limits, problems };
}
