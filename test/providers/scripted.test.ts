import { describe, expect, it } from "vitest";
import type { GenerateRequest } from "../../src/loop";
import { Holds } from "../../src/providers/scripted/holds";
import { createScriptedProvider, ScriptedProviderError } from "../../src/providers/scripted/scripted";

const request = (assistants: number): GenerateRequest => ({
  prompt: "",
  model: "m",
  cacheSystem: true,
  toolChoice: "auto",
  tools: [],
  messages: [
    { role: "user", content: "hello there" },
    ...Array.from({ length: assistants }, () => [{ role: "assistant" as const, content: "a" }, { role: "user" as const, content: "u" }]).flat(),
  ],
});
const context = () => ({ signal: new AbortController().signal });

describe("scripted provider", () => {
  it("plays turns in order by the number of assistant messages in the request (deterministic on replay)", async () => {
    const provider = createScriptedProvider({ turns: [{ text: "one" }, { text: "two", toolCalls: [{ name: "t" }] }] });
    expect((await provider.generate(request(1), context())).message).toEqual({ role: "assistant", content: "two", toolCalls: [{ id: "call_1_0", name: "t", input: {} }] });
    expect((await provider.generate(request(0), context())).message).toEqual({ role: "assistant", content: "one" });
    expect((await provider.generate(request(1), context())).stopReason).toBe("tool_use");
    expect((await provider.generate(request(5), context())).message.content).toBe("The script has no more turns.");
  });

  it("says its answer stands on the script's last turn, past it and with no script; never before", async () => {
    const provider = createScriptedProvider({ turns: [{ text: "one" }, { text: "two" }] });
    expect((await provider.generate(request(0), context())).stands).toBeUndefined();
    expect((await provider.generate(request(1), context())).stands).toBe(true);
    expect((await provider.generate(request(2), context())).stands).toBe(true);
    expect((await createScriptedProvider().generate(request(0), context())).stands).toBe(true);
  });

  it("an offset skips the assistant messages of the run's given history", async () => {
    const provider = createScriptedProvider({ turns: [{ text: "first of this run" }], offset: 2 });
    expect((await provider.generate(request(2), context())).message.content).toBe("first of this run");
  });

  it("reports the turn's usage and cost, or prices rough token counts", async () => {
    const given = await createScriptedProvider({ turns: [{ text: "x", usage: { inputTokens: 100, outputTokens: 10, cachedReadTokens: 60 }, costUsd: 0.5 }] }).generate(request(0), context());
    expect(given).toMatchObject({ costUsd: 0.5, usage: { inputTokens: 100, outputTokens: 10, cachedReadTokens: 60, cachedWriteTokens: 0 } });
    const priced = await createScriptedProvider({ turns: [{ text: "abcdefgh" }] }).generate(request(0), context());
    expect(priced.usage.outputTokens).toBe(2);
    expect(priced.costUsd).toBeCloseTo((priced.usage.inputTokens * 3 + 2 * 15) / 1e6, 12);
  });

  it("streams the text as deltas of `chunk` characters", async () => {
    const deltas: string[] = [];
    await createScriptedProvider({ turns: [{ text: "abcdefg", chunk: 3 }] }).generate(request(0), { ...context(), onDelta: (d) => deltas.push(d) });
    expect(deltas).toEqual(["abc", "def", "g"]);
  });

  it("fails a turn with `error`, and a delayed turn is cut short by the signal", async () => {
    await expect(createScriptedProvider({ turns: [{ error: "overloaded" }] }).generate(request(0), context())).rejects.toBeInstanceOf(ScriptedProviderError);
    const controller = new AbortController();
    const pending = createScriptedProvider({ turns: [{ text: "late", delayMs: 60_000 }] }).generate(request(0), { signal: controller.signal });
    controller.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow("cancelled");
  });

  it("a held turn answers once its name is released (before or after it is reached); an abort ends the wait and costs the prompt", async () => {
    const holds = new Holds();
    const provider = createScriptedProvider({ turns: [{ hold: "a", text: "after a" }, { hold: "b", text: "after b" }], hold: (name, signal) => holds.wait(name, signal) });
    const answered: string[] = [];
    const first = provider.generate(request(0), context()).then((result) => answered.push(String(result.message.content)));
    holds.release("a");
    await first;
    expect(answered).toEqual(["after a"]);
    holds.release("b");
    expect((await provider.generate(request(1), context())).message.content).toBe("after b");
    const controller = new AbortController();
    const costs: number[] = [];
    const cut = createScriptedProvider({ turns: [{ hold: "never", text: "x" }], hold: (name, signal) => holds.wait(name, signal) }).generate(request(0), { signal: controller.signal, onPartialCost: (usd) => costs.push(usd) });
    controller.abort(new Error("interrupted"));
    await expect(cut).rejects.toThrow("interrupted");
    expect(costs).toHaveLength(1);
  });

  it("without a script it answers the person's last message", async () => {
    expect((await createScriptedProvider().generate(request(0), context())).message.content).toBe("(scripted) You said: hello there");
  });
});
