/** The API's error code for each HTTP status it answers with (docs/api.md "Errors"). */
export const ERROR_CODES = {
  400: "invalid-request",
  401: "unauthorized",
  /** A run of a subject would reserve more than the subject has left today (SUBJECT_BUDGET_USD_PER_DAY). */
  402: "spend-limit",
  403: "forbidden",
  404: "not-found",
  409: "conflict",
  /** An inbox stream asked for events older than the inbox keeps (INBOX_EVENTS_DAYS): the message names the oldest seq. */
  410: "cursor-expired",
  413: "too-large",
  429: "rate-limited",
  500: "internal",
  /** The deployment is missing a secret or holds a published default: the message names the setting. */
  503: "not-configured",
} as const;

export type ApiStatus = keyof typeof ERROR_CODES;

/** The one answer to an unknown run, a deleted one, and a run token of another run: ids leak nothing. */
export const RUN_NOT_FOUND = "Run not found.";
