// Values the global setups (vitest.config.ts) provide to every test file (read with inject()).
declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the local tool server, e.g. http://127.0.0.1:41234 */
    toolServerUrl: string;
    /** The key the tool server verifies signed requests with (test/tool-server/signing-keys.ts), the test Worker's TOOL_SIGNING_KEY */
    toolSigningKey: string;
    /** Base URL of the fake Anthropic server (test/fake-anthropic/global-setup.ts), e.g. http://127.0.0.1:41235 */
    fakeAnthropicUrl: string;
    /** Base URL of the fake OpenAI server (test/fake-openai/global-setup.ts) as the SDK takes it, e.g. http://127.0.0.1:41237/v1 */
    fakeOpenAIUrl: string;
    /** Base URL of the webhook receiver (test/webhook-receiver/global-setup.ts), e.g. http://127.0.0.1:41236 */
    webhookReceiverUrl: string;
    /** The Standard Webhooks secret the receiver verifies with, the test Worker's WEBHOOK_SECRET */
    webhookSecret: string;
    /** Base URL of the OTLP receiver (test/otlp-receiver/global-setup.ts): the `otel` project's OTEL_EXPORTER_OTLP_ENDPOINT */
    otlpReceiverUrl: string;
    /** Base URL of the test MCP servers (test/mcp-server/global-setup.ts), e.g. http://127.0.0.1:41237 */
    mcpServerUrl: string;
    /** The MCP endpoint of the test server that dies and comes back, e.g. http://127.0.0.1:41238/mcp */
    mcpFlakyUrl: string;
    /** Base URL of the local push service (test/push-service/global-setup.ts), e.g. http://127.0.0.1:41239 */
    pushServiceUrl: string;
    /** The VAPID pair the push service checks pushes against, the test Worker's VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY */
    vapidPublicKey: string;
    vapidPrivateKey: string;
    /** The docs and the files naming the Worker's settings, by path (test/docs/global-setup.ts) */
    repoFiles: Record<string, string>;
    /** Where test/recordings/make-recordings.test.ts PUTs each recording it makes (test/e2e/support/recordings-sink.ts); only under `npm run recordings` */
    recordingsSinkUrl: string;
    /** The Chromium the browser tests drive, picked once by the e2e project (test/e2e/support/chromium-setup.ts) */
    chromium: import("./e2e/support/chromium").ChromiumChoice;
  }
}

declare global {
  interface ImportMeta {
    /** Vite's import.meta.glob, as test/recordings/replay.test.ts uses it: the matching files' default exports, by path. */
    glob<T>(pattern: string, options: { eager: true; import: "default" }): Record<string, T>;
  }
}

export {};
