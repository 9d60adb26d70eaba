// One suite for every provider (STYLE 6): what the loop relies on, whichever model answers.
import { describe, expect, it } from "vitest";
import { textOf } from "../../src/loop";
import type { GenerateRequest } from "../../src/loop";
import type { Provider } from "../../src/providers/types";

export type ContractTurn = { text?: string; toolCalls?: Array<{ id: string; name: string; input: unknown }> };

export type ContractSetup = (turns: ContractTurn[]) => Promise<{ provider: Provider; request: GenerateRequest }>;

export function providerContract(name: string, setup: ContractSetup): void {
  describe(`provider contract: ${name}`, () => {
    it("answers with an assistant message; the deltas add up to its text", async () => {
      const { provider, request } = await setup([{ text: "A plain answer, streamed in pieces." }]);
      const deltas: string[] = [];
      const result = await provider.generate(request, { signal: new AbortController().signal, onDelta: (delta) => deltas.push(delta) });
      expect(result.message.role).toBe("assistant");
      expect(textOf(result.message.content)).toBe("A plain answer, streamed in pieces.");
      expect(deltas.join("")).toBe("A plain answer, streamed in pieces.");
      expect(result.stopReason).toBe("end_turn");
    });

    it("reports tool calls with their ids and inputs, and stopReason tool_use", async () => {
      const calls = [{ id: "call_a", name: "search", input: { query: "x" } }, { id: "call_b", name: "search", input: {} }];
      const { provider, request } = await setup([{ toolCalls: calls }]);
      const result = await provider.generate(request, { signal: new AbortController().signal });
      expect(result.message.toolCalls).toEqual(calls);
      expect(result.stopReason).toBe("tool_use");
    });

    it("reports usage in whole tokens and a cost of zero or more", async () => {
      const { provider, request } = await setup([{ text: "Counted." }]);
      const { usage, costUsd } = await provider.generate(request, { signal: new AbortController().signal });
      for (const value of [usage.inputTokens, usage.outputTokens, usage.cachedReadTokens, usage.cachedWriteTokens]) expect(Number.isInteger(value) && value >= 0).toBe(true);
      expect(usage.inputTokens).toBeGreaterThanOrEqual(usage.cachedReadTokens + usage.cachedWriteTokens);
      expect(costUsd).toBeGreaterThanOrEqual(0);
    });

    it("an aborted signal rejects with its reason", async () => {
      const { provider, request } = await setup([{ text: "Never sent." }]);
      const controller = new AbortController();
      const reason = new Error("stop");
      controller.abort(reason);
      await expect(provider.generate(request, { signal: controller.signal })).rejects.toBe(reason);
    });
  });
}
