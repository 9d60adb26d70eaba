// The second line behind the intake, at run time: a run stored on the scripted provider cannot call
// its model where SCRIPTED_PROVIDER is off (the call fails, not to be retried, naming the setting),
// and an MCP connection sends nothing to a host not on HTTP_TOOL_ALLOW: not its initialize (which
// carries the run's headers), not a listing, not a call.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { r2BlobStore } from "../../src/durable/blobs/blob-store";
import { createRunProvider } from "../../src/durable/engine/provider/run-provider";
import { ProviderError } from "../../src/providers/common/errors";
import { McpConnections } from "../../src/tools/mcp/mcp-connections";
import { listMcpServers } from "../../src/tools/mcp/mcp-listing";
import type { Step } from "../../src/loop/types";
import { context, rejection, textRequest } from "../helpers/anthropic";

const blobs = r2BlobStore(env.BLOBS);

describe("the provider factory", () => {
  it("where SCRIPTED_PROVIDER is off, a scripted run's model call fails naming the setting, not retryable", async () => {
    const provider = createRunProvider({ runId: "run_x", provider: "scripted", script: [{ text: "I say what the request wrote." }], messages: [] }, { ...env, SCRIPTED_PROVIDER: "off" }, blobs);
    const error = (await rejection(provider.generate(textRequest("scripted-model"), context()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("SCRIPTED_PROVIDER");
  });

  it("where it is on, the scripted provider plays its turns", async () => {
    const provider = createRunProvider({ runId: "run_x", provider: "scripted", script: [{ text: "Played." }], messages: [] }, { ...env, SCRIPTED_PROVIDER: "on" }, blobs);
    expect((await provider.generate(textRequest("scripted-model"), context())).message.content).toBe("Played.");
  });
});

describe("MCP connections and the allow list", () => {
  const server = { name: "docs", url: "https://not-allowed.example/mcp", headers: { Authorization: "Bearer secret-of-the-deployment" } };
  /** A fetch that records what would have left, and answers nothing useful. */
  function recordingFetch(): { fetch: typeof fetch; sent: string[] } {
    const sent: string[] = [];
    return { sent, fetch: async (input) => (sent.push(String(input instanceof Request ? input.url : input)), new Response("no", { status: 500 })) };
  }
  const step: Step = async (_key, work) => (await work(new AbortController().signal)).value;

  it("a listing of a server whose host is not on the list fails naming HTTP_TOOL_ALLOW, and nothing is sent", async () => {
    const { fetch, sent } = recordingFetch();
    const connections = new McpConnections(fetch, ["http://127.0.0.1", "http://localhost"]);
    const failure = await listMcpServers([server], step, connections, 10).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain("HTTP_TOOL_ALLOW");
    expect((failure as Error).message).not.toContain("secret-of-the-deployment");
    await expect(connections.connect(server, new AbortController().signal)).rejects.toThrow(/HTTP_TOOL_ALLOW/);
    expect(sent).toEqual([]);
  });
});
