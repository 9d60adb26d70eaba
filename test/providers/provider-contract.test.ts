// The shared provider suite, run against the scripted provider and the anthropic provider (SDK →
// fake server).
import type { GenerateRequest } from "../../src/loop";
import { createScriptedProvider } from "../../src/providers/scripted";
import { script, uniqueModel } from "../fake-anthropic/client";
import { testProvider, textRequest } from "./anthropic-helpers";
import { providerContract } from "./provider-contract";

const request = (model: string): GenerateRequest => textRequest(model, [{ role: "user", content: "Question?" }]);

providerContract("scripted", async (turns) => ({ provider: createScriptedProvider({ turns: turns.map((turn) => ({ ...turn, chunk: 5 })) }), request: request("m") }));

providerContract("anthropic", async (turns) => {
  const model = uniqueModel();
  await script(model, turns.map((turn) => ({ ...turn, chunk: 5 })));
  return { provider: testProvider(), request: request(model) };
});
