// The limits of async HTTP tools (docs/http-tools.md "Tools that answer later"), shared by the
// schema that checks a run's tools and the adapter that applies them.

/** How long a run waits for an async tool's result when the tool names no timeoutSeconds: an hour. */
export const ASYNC_TIMEOUT_DEFAULT_SECONDS = 3_600;

/** The longest wait a tool may ask for: 7 days, well inside a run's retention. */
export const ASYNC_TIMEOUT_MAX_SECONDS = 7 * 24 * 3_600;
