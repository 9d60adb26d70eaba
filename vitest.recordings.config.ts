// `npm run recordings`: makes test/recordings/*.json again with today's code. One workerd project,
// the Worker with the test settings and the local servers (as in vitest.config.ts), running
// test/recordings/make-recordings.test.ts, which PUTs each recording to a sink in Node that writes
// the files (test/e2e/support/recordings-sink.ts). See docs/deploy.md for when to run it.
import { defineConfig } from "vitest/config";
import { rateLimits, workerd } from "./vitest.config.ts";

const open = 1_000_000;

export default defineConfig({
  test: {
    onConsoleLog: (log) => !log.includes('"msg":"ratchet.'),
    projects: [workerd("recordings", ["test/recordings/make-recordings.test.ts"], [], rateLimits(open, open, open, open, open), () => ({}), ["./test/e2e/support/recordings-sink.ts"])],
  },
});
