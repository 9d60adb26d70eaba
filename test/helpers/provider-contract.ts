// One suite for every provider (anthropic, openai, scripted; test/providers/provider-contract.test.ts):
// what the loop relies on, whichever model answers.
import { describe, expect, it } from "vitest";
import { textOf } from "../../src/loop";
import type { ChatMessage, GenerateRequest } from "../../src/loop";
import type { Provider } from "../../src/providers/common/types";

/** A turn in the suite's terms; `refused`: the model declines (each setup scripts it its provider's way). */
export type ContractTurn = { text?: string; toolCalls?: Array<{ id: string; name: string; input: unknown }>; refused?: boolean };

/** The provider, and a request of `messages` (default: one question) whose answer is the turn after the history's assistant turns. */
export type ContractSetup = (turns: ContractTurn[], messages?: ChatMessage[]) => Promise<{ provider: Provider; request: GenerateRequest }>;

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

    it("takes a history with a tool call and its result (an error result too) and answers the next turn", async () => {
      const history: ChatMessage[] = [
        { role: "user", content: "Find x, then y." },
        { role: "assistant", content: "Searching.", toolCalls: [{ id: "call_1", name: "search", input: { query: "x" } }, { id: "call_2", name: "search", input: { query: "y" } }] },
        { role: "tool", toolCallId: "call_1", content: "x is 4" },
        { role: "tool", toolCallId: "call_2", content: "Tool error: the index is down", isError: true },
        { role: "user", content: "Go on." },
      ];
      const { provider, request } = await setup([{ text: "unused" }, { text: "x is 4; y is unknown." }], history);
      const result = await provider.generate(request, { signal: new AbortController().signal });
      expect(textOf(result.message.content)).toBe("x is 4; y is unknown.");
      expect(result.stopReason).toBe("end_turn");
    });

    it("a refusal: stopReason refusal, no calls, and a text that says so", async () => {
      const { provider, request } = await setup([{ refused: true }]);
      const result = await provider.generate(request, { signal: new AbortController().signal });
      expect(result.stopReason).toBe("refusal");
      expect(result.message.toolCalls).toBeUndefined();
      expect(textOf(result.message.content).trim().length).toBeGreaterThan(0);
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
