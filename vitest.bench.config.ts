import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // The benches drive runs by hand; no alarm may fire on its own.
      miniflare: { bindings: { ALARM_DELAY_MS: String(365 * 24 * 3600 * 1000) } },
    }),
  ],
  test: {
    include: ["bench/**/*.bench.test.ts"],
    testTimeout: 300_000,
  },
});
