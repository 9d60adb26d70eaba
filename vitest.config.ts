import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { TEST_BINDINGS } from "./test/test-env.ts";

export default defineConfig({
  test: {
    // The Worker's one-line operator logs ({"msg":"ratchet.…"}) are for operators, not test output;
    // tests that check them capture them.
    onConsoleLog: (log) => !log.includes('"msg":"ratchet.'),
    projects: [
      {
        // Everything inside workerd: the loop, the run object, the HTTP edge, providers, tools.
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ...TEST_BINDINGS,
                // Alarms are fired by the tests (runDurableObjectAlarm), never by the clock.
                ALARM_DELAY_MS: String(365 * 24 * 3600 * 1000),
                // The service's anthropic provider talks to the fake Anthropic server.
                ANTHROPIC_API_KEY: "test-key",
                ANTHROPIC_BASE_URL: inject("fakeAnthropicUrl"),
                // One browser origin allowed to call the API (test/http/cors.test.ts).
                CORS_ORIGINS: "https://app.ratchet.test",
                // HTTP tool requests are signed with the key the local tool server verifies them with.
                TOOL_SIGNING_KEY: inject("toolSigningKey"),
              },
            },
          })),
        ],
        test: {
          name: "workers",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**"],
          // Run in Node: a local HTTP tool server and a fake Anthropic server (see the files).
          globalSetup: ["./test/global-setup.ts", "./test/fake-anthropic/global-setup.ts"],
          testTimeout: 30_000,
        },
      },
      {
        // Real processes: `wrangler dev` started, killed with SIGKILL and started again.
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], environment: "node", testTimeout: 300_000, hookTimeout: 120_000 },
      },
    ],
  },
});
