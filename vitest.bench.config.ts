import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { TEST_BINDINGS } from "./test/test-env.ts";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // The benches drive runs by hand; no alarm may fire on its own.
      miniflare: { bindings: { ...TEST_BINDINGS, ALARM_DELAY_MS: String(365 * 24 * 3600 * 1000) } },
    }),
  ],
  test: {
    include: ["bench/**/*.bench.test.ts"],
    // Runs in Node: the fake Anthropic and OpenAI servers for the cache and provider benches (test/fake-anthropic/, test/fake-openai/),
    // the test MCP servers for the MCP bench (test/mcp-server/).
    globalSetup: ["./test/fake-anthropic/global-setup.ts", "./test/fake-openai/global-setup.ts", "./test/mcp-server/global-setup.ts"],
    testTimeout: 300_000,
  },
});
