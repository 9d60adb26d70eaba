// The shared provider suite, run against the scripted provider, the anthropic provider (SDK → fake
// Anthropic server) and the openai provider (SDK → fake OpenAI server).
import type { ChatMessage, GenerateRequest } from "../../src/loop";
import { createScriptedProvider } from "../../src/providers/scripted/scripted";
import { script, uniqueModel } from "../fake-anthropic/client";
import { scriptOpenAI, uniqueOpenAIModel } from "../fake-openai/client";
import { testProvider, textRequest } from "../helpers/anthropic";
import { testOpenAIProvider } from "../helpers/openai";
import { providerContract, type ContractTurn } from "../helpers/provider-contract";

const question: ChatMessage[] = [{ role: "user", content: "Question?" }];
const request = (model: string, messages: ChatMessage[] = question): GenerateRequest => textRequest(model, messages);
const plain = ({ refused: _refused, ...turn }: ContractTurn) => ({ ...turn, chunk: 5 });

providerContract("scripted", async (turns, messages) => ({
  provider: createScriptedProvider({ turns: turns.map((turn) => (turn.refused ? { text: "I can't help with that.", stopReason: "refusal" as const } : plain(turn))) }),
  request: request("m", messages),
}));

providerContract("anthropic", async (turns, messages) => {
  const model = uniqueModel();
  await script(model, turns.map((turn) => (turn.refused ? { stopReason: "refusal" as const } : plain(turn))));
  return { provider: testProvider(), request: request(model, messages) };
});

providerContract("openai", async (turns, messages) => {
  const model = uniqueOpenAIModel();
  await scriptOpenAI(model, turns.map((turn) => (turn.refused ? { contentFilter: true } : plain(turn))));
  return { provider: testOpenAIProvider(), request: request(model, messages) };
});
