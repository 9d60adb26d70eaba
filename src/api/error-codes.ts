/** The API's error code for each HTTP status it answers with (../shared/API.md). */
export const ERROR_CODES = {
  400: "invalid-request",
  401: "unauthorized",
  403: "forbidden",
  404: "not-found",
  409: "conflict",
  413: "too-large",
  429: "rate-limited",
  500: "internal",
} as const;

export type ApiStatus = keyof typeof ERROR_CODES;
