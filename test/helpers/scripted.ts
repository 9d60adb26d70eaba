// Scripted models and counting tools for loop tests.
import { z } from "zod";
import type { AnyToolSpec, GenerateRequest, ToolSpec } from "../../src/loop/types";
import { createScriptedProvider, type ScriptedTurn } from "../../src/providers/scripted/scripted";

export type CountingModel = {
  generate: ReturnType<typeof createScriptedProvider>["generate"];
  requests: GenerateRequest[];
};

/** A scripted model that records every request it answers. */
export function scriptedModel(turns: ScriptedTurn[], offset = 0): CountingModel {
  const provider = createScriptedProvider({ turns, offset });
  const requests: GenerateRequest[] = [];
  return {
    requests,
    generate: async (request, context) => {
      requests.push(structuredClone(request));
      return provider.generate(request, context);
    },
  };
}

export type Counter = { calls: unknown[] };

/** A tool that echoes its input and counts its runs. */
export function echoTool(name = "echo", costUsd = 0): ToolSpec<{ text: string }> & { counter: Counter } {
  const counter: Counter = { calls: [] };
  return {
    name,
    description: `Echo the text back (${name}).`,
    schema: z.object({ text: z.string() }),
    counter,
    run: async ({ text }) => {
      counter.calls.push(text);
      return { content: `echo: ${text}`, value: { text }, costUsd };
    },
  };
}

export const askTool: ToolSpec<{ question: string }> = {
  name: "ask",
  description: "Ask the person a question.",
  schema: z.object({ question: z.string() }),
};

export function call(name: string, input: unknown, id?: string) {
  return id === undefined ? { name, input } : { id, name, input };
}

export const tools = (...specs: AnyToolSpec[]): AnyToolSpec[] => specs;
