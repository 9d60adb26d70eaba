// Web Push's shapes as plain types (docs/push.md), for clients: no zod. ../schemas/subject/push-schemas.ts checks
// bodies against its schemas and keeps these in step (../schema-checks.ts).

/** What a subscription may ask to be told. */
export type PushEventType = "run.waiting" | "run.finished" | "run.failed";

/** A subject's push subscription as the API shows it (never its keys). */
export type PushSubscriptionView = {
  endpoint: string;
  events: PushEventType[];
  createdAt: string;
  /** The push service's answer to the last push (0: no answer). */
  lastStatus?: number;
  lastError?: string;
  lastAttemptAt?: string;
};

/** What a push carries, encrypted for the subscription (at most 3 KB of JSON; the question is cut to fit). */
export type PushPayload = {
  runId: string;
  kind: PushEventType;
  /** The run's question (waiting), or a line that says how it ended. */
  question: string;
  /** The run's `metadata.title`, when it has one. */
  title?: string;
  /** Opens the run in the console: its waiting form. */
  url: string;
};
