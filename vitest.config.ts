import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { TEST_ALARM_DELAY_MS, TEST_BINDINGS } from "./test/test-env.ts";

type RateLimits = Record<string, { namespace_id: string; simple: { limit: number; period: 60 } }>;

/** The rate limits of wrangler.toml, at `limit` each. */
export function rateLimits(create: number, runToken: number, subjectCreate: number, authFailures: number, agentCards: number): RateLimits {
  return {
    CREATE_RATE_LIMIT: { namespace_id: "1001", simple: { limit: create, period: 60 } },
    RUN_TOKEN_RATE_LIMIT: { namespace_id: "1002", simple: { limit: runToken, period: 60 } },
    SUBJECT_CREATE_RATE_LIMIT: { namespace_id: "1003", simple: { limit: subjectCreate, period: 60 } },
    AUTH_FAILURE_RATE_LIMIT: { namespace_id: "1004", simple: { limit: authFailures, period: 60 } },
    AGENT_CARD_RATE_LIMIT: { namespace_id: "1005", simple: { limit: agentCards, period: 60 } },
  };
}

/** Bindings a project adds to the test settings (the receiver's URL is known only once the global setups ran). */
type ExtraBindings = (inject: <K extends "webhookReceiverUrl" | "otlpReceiverUrl">(key: K) => string) => Record<string, string>;

/** A project inside workerd: the Worker of wrangler.toml with the test settings (`setups`: more global setups, after the servers). */
export function workerd(name: string, include: string[], exclude: string[], ratelimits: RateLimits, extra: ExtraBindings = () => ({}), setups: string[] = []) {
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            ...TEST_BINDINGS,
            // Alarms are fired by the tests (runDurableObjectAlarm), never by the clock.
            ALARM_DELAY_MS: String(TEST_ALARM_DELAY_MS),
            // The service's anthropic provider talks to the fake Anthropic server.
            ANTHROPIC_API_KEY: "test-key",
            ANTHROPIC_BASE_URL: inject("fakeAnthropicUrl"),
            // …and the openai provider to the fake OpenAI server.
            OPENAI_API_KEY: "test-openai-key",
            OPENAI_BASE_URL: inject("fakeOpenAIUrl"),
            // One browser origin allowed to call the API (test/http/cors.test.ts).
            CORS_ORIGINS: "https://app.ratchet.test",
            // HTTP tool requests are signed with the key the local tool server verifies them with.
            TOOL_SIGNING_KEY: inject("toolSigningKey"),
            // Webhooks are signed with the secret the local receiver verifies them with.
            WEBHOOK_SECRET: inject("webhookSecret"),
            // Web Push is on, signed with the pair the local push service checks, which is the one push host.
            VAPID_PUBLIC_KEY: inject("vapidPublicKey"),
            VAPID_PRIVATE_KEY: inject("vapidPrivateKey"),
            VAPID_SUBJECT: "mailto:push-tests@ratchet.test",
            PUSH_HOSTS: "http://127.0.0.1",
            ...extra((key) => inject(key)),
          },
          ratelimits,
        },
      })),
    ],
    test: {
      name,
      include,
      exclude,
      // Run in Node: a local HTTP tool server, fake Anthropic and OpenAI servers, real MCP servers, a push service and an OTLP receiver (see the files).
      globalSetup: ["./test/tool-server/global-setup.ts", "./test/fake-anthropic/global-setup.ts", "./test/fake-openai/global-setup.ts", "./test/webhook-receiver/global-setup.ts", "./test/docs/global-setup.ts", "./test/mcp-server/global-setup.ts", "./test/push-service/global-setup.ts", "./test/otlp-receiver/global-setup.ts", ...setups],
      testTimeout: 30_000,
      // One workerd for many files: starting a runtime and importing the Worker into it took most of
      // a file's time (docs/testing.md). Every file makes its own runs, subjects and tokens, so the
      // files of a project share one runtime, its storage and its module instances.
      isolate: false,
    },
  };
}

/** A project with setup files run before each of its test files; `hookTimeout`: how long their hooks may wait. */
function withSetupFiles<P extends { test: object }>(project: P, setupFiles: string[], hookTimeout: number): P {
  return { ...project, test: { ...project.test, setupFiles, hookTimeout } };
}

export default defineConfig({
  test: {
    // The Worker's one-line operator logs ({"msg":"ratchet.…"}) are for operators, not test output;
    // tests that check them capture them.
    onConsoleLog: (log) => !log.includes('"msg":"ratchet.'),
    projects: [
      // Everything inside workerd: the loop, the run object, the HTTP edge, providers, tools. The
      // rate limits are out of the way here (the fuzzers send thousands of requests)…
      // test/recordings/make-recordings.test.ts makes the recordings the others replay: `npm run recordings` (vitest.recordings.config.ts).
      workerd("workers", ["test/**/*.test.ts"], ["test/e2e/**", "test/rate-limits/**", "test/webhooks/**", "test/otel/**", "test/otel-capture/**", "test/deadlines/**", "test/recordings/make-recordings.test.ts"], rateLimits(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000)),
      // …and small in a Worker of their own, where the 429s are tested.
      // Each test starts with at least 20 s left in the limiter's wall-clock window (test/helpers/rate-limit-window.ts).
      withSetupFiles(workerd("rate-limits", ["test/rate-limits/**/*.test.ts"], [], rateLimits(5, 8, 3, 4, 3)), ["./test/helpers/rate-limit-window.ts"], 30_000),
      // A deployment with WEBHOOK_URL: every run's events go to the local receiver.
      workerd("webhooks", ["test/webhooks/**/*.test.ts"], [], rateLimits(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000), (inject) => ({
        WEBHOOK_URL: `${inject("webhookReceiverUrl")}/hooks/deployment`,
      })),
      // A deployment that exports traces (OTEL_EXPORTER_OTLP_ENDPOINT) to the local OTLP receiver.
      workerd("otel", ["test/otel/**/*.test.ts"], [], rateLimits(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000), (inject) => ({
        OTEL_EXPORTER_OTLP_ENDPOINT: inject("otlpReceiverUrl"),
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=test%20key,x-team=ratchet",
        OTEL_SERVICE_NAME: "ratchet-tests",
      })),
      // The same with OTEL_CAPTURE_CONTENT=on: spans carry message and tool content.
      workerd("otel-capture", ["test/otel-capture/**/*.test.ts"], [], rateLimits(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000), (inject) => ({
        OTEL_EXPORTER_OTLP_ENDPOINT: inject("otlpReceiverUrl"),
        OTEL_CAPTURE_CONTENT: "on",
      })),
      // MCP_CALL_SECONDS=1 and A2A_SEND_SECONDS=1: an MCP call and a blocking A2A SendMessage outlast
      // them for certain (their run held), and answer with the run as it stands. SSE_KEEPALIVE_SECONDS=1:
      // a stream quiet for a second (its run held) sends a keep-alive.
      workerd("deadlines", ["test/deadlines/**/*.test.ts"], [], rateLimits(1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000), () => ({ MCP_CALL_SECONDS: "1", A2A_SEND_SECONDS: "1", SSE_KEEPALIVE_SECONDS: "1" })),
      {
        // Real processes: `wrangler dev` started, killed with SIGKILL and started again.
        // Two files at a time, after the workerd projects (a group of their own): they wait mostly on
        // `wrangler dev` starting and on Chromium, their ports come from the OS, and every wait is on
        // a state, not a timer (test/e2e/ports.test.ts, test/e2e/no-sleeps.test.ts).
        // Its global setup picks the browser tests' Chromium once and says which (test/README.md).
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], environment: "node", globalSetup: ["./test/e2e/support/chromium-setup.ts"], testTimeout: 300_000, hookTimeout: 120_000, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
