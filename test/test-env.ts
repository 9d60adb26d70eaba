// The settings the workerd tests run with (vitest.config.ts gives them to the Worker). They are
// production-like: long secrets and no LOCAL_DEV, so the tests go through the same checks as a
// deployment. Tests import the token from here instead of repeating it.
export const TEST_API_TOKEN = "test-api-token-0123456789abcdefghijklmnopqrstuv";
export const TEST_RUN_ID_KEY = "test-run-id-key-0123456789abcdefghijklmnopqrstu";

export const TEST_BINDINGS = {
  API_TOKEN: TEST_API_TOKEN,
  RUN_ID_KEY: TEST_RUN_ID_KEY,
  HTTP_TOOL_ALLOW: "http://localhost,http://127.0.0.1",
  // The offline provider plays what a request wrote: on for tests and local runs, off in a deploy.
  SCRIPTED_PROVIDER: "on",
  // The shortest time between two fires of a schedule (the default): the schedule tests drive
  // every-minute schedules by hand; the end-to-end test passes 1 to its `wrangler dev`.
  SCHEDULE_MIN_SECONDS: "60",
  // The bytes of images a run may hold, 2 MiB (the default is 32 MiB): the cap's tests
  // (test/service/run-images.test.ts) cross it with three images of 700 KB, one per request as
  // the 1 MiB body allows; no other test gives a run more than a few small images.
  RUN_IMAGE_BYTES_LIMIT: String(2 * 1024 * 1024),
  // Off, whatever a .dev.vars left by `npm start` says (the test pool reads it too): tests that
  // need local development set it themselves.
  LOCAL_DEV: "off",
} as const;

/** ALARM_DELAY_MS of the workerd tests: a year, so no alarm fires by itself (tests fire them by hand). */
export const TEST_ALARM_DELAY_MS = 365 * 24 * 3600 * 1000;
