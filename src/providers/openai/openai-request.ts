// GenerateRequest → the body of a streamed POST /chat/completions: a pure function, so a resumed
// run sends the same bytes for the same step. Images arrive already loaded (request-images.ts).
//
//   system text      → one { role: "system" } message first (every OpenAI-compatible endpoint
//                      takes "system"; OpenAI reads it as "developer" on its newer models)
//   tools            → { type: "function", function: { name, description, parameters } };
//                      toolChoice "none" → tool_choice "none" (the tools stay listed, so the
//                      cached prefix holds)
//   user             → a string when it is one text part, else text and image_url parts (images
//                      as data URLs of the part's own media type)
//   assistant        → its text (null when blank and it has calls) and tool_calls, each with its
//                      arguments as a JSON string (an input that was not JSON goes back as the
//                      model wrote it); images and providerBlocks are not sent
//   tool             → { role: "tool", tool_call_id, content: string }: the text parts joined;
//                      an error result starts with "Error: " (the API has no is_error). Images of
//                      the tool results of one turn follow, in one user message after the last
//                      of those tool messages (a tool message takes text only)
//   cache marks      → none: OpenAI caches prompt prefixes by itself
//   reasoning        → reasoning_effort, for the models that take it (see reasoningOf)
//   usage            → stream_options.include_usage, so the last chunk carries the usage
//
// Blank text parts are left out; a user or assistant message with nothing left is not sent.
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionContentPartText,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { ReasoningEffort } from "openai/resources/shared";
import { isBlank, textOf, toParts } from "../../loop/content";
import type { AssistantMessage, ChatMessage, GenerateRequest, ImagePart, ToolMessage } from "../../loop/types";
import { DEFAULT_REASONING_BUDGET, reasoningAsked } from "../common/reasoning";
import { imageToSend, type ImageLookup } from "../common/request-images";

/** max_completion_tokens when the request sets none. */
export const DEFAULT_MAX_TOKENS = 8192;

/**
 * The models that take reasoning_effort: the o-series and GPT-5 onwards, except the chat-latest
 * aliases. Other models (GPT-4.1, GPT-4o, an endpoint's own models) refuse the field, so a run's
 * `reasoning` is not sent to them.
 */
export function takesReasoningEffort(model: string): boolean {
  return /^(o\d|gpt-[5-9])/.test(model) && !model.includes("chat-latest");
}

export type Reasoning = { effort?: ReasoningEffort; allowance: number } | undefined;

/**
 * `reasoning` (see reasoning.ts) → reasoning_effort, for a model that takes it: a budget up to
 * 2,048 tokens is "low", up to 8,192 "medium" (so `true` is "medium"), above that "high";
 * `"adaptive"` sends no effort (the model's default). The allowance (the budget, or 4,096) is added
 * to max_completion_tokens, since reasoning tokens count toward it. No reasoning, or a model that
 * does not take it: nothing is sent.
 */
export function reasoningOf(reasoning: unknown, model: string): Reasoning {
  const asked = reasoningAsked(reasoning);
  if (asked === undefined || !takesReasoningEffort(model)) return undefined;
  if (asked === "adaptive") return { allowance: DEFAULT_REASONING_BUDGET };
  return { effort: asked.budget <= 2048 ? "low" : asked.budget <= 8192 ? "medium" : "high", allowance: asked.budget };
}

function imagePart(part: ImagePart, image: ImageLookup): ChatCompletionContentPartImage {
  const { mediaType, data } = imageToSend(part, image, "OpenAI");
  return { type: "image_url", image_url: { url: `data:${mediaType};base64,${data}` } };
}

/** A user message's content: a plain string for one text part, else the parts; undefined when nothing is left. */
function userContent(message: ChatMessage, image: ImageLookup): string | ChatCompletionContentPart[] | undefined {
  const parts: ChatCompletionContentPart[] = [];
  for (const part of toParts(message.content)) {
    if (part.type === "image") parts.push(imagePart(part, image));
    else if (!isBlank(part.text)) parts.push({ type: "text", text: part.text });
  }
  if (parts.length === 0) return undefined;
  const [only] = parts;
  return parts.length === 1 && only!.type === "text" ? (only as ChatCompletionContentPartText).text : parts;
}

function assistantMessage(message: AssistantMessage): ChatCompletionAssistantMessageParam | undefined {
  const text = textOf(message.content);
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return isBlank(text) ? undefined : { role: "assistant", content: text };
  return {
    role: "assistant",
    content: isBlank(text) ? null : text,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {}) },
    })),
  };
}

const ERROR_PREFIX = /^(tool )?error\b/i;

function toolText(message: ToolMessage, hasImages: boolean): string {
  const text = textOf(toParts(message.content).filter((part) => part.type === "text" && !isBlank(part.text)));
  const shown = text !== "" ? text : hasImages ? "The result is the image(s) in the next message." : "(no output)";
  return message.isError === true && !ERROR_PREFIX.test(shown) ? `Error: ${shown}` : shown;
}

/** The messages of a request, in order; tool results' images in one user message after the turn's tool messages. */
export function toChatMessages(messages: ChatMessage[], image: ImageLookup): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let pendingImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: "user", content: pendingImages });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    if (message.role === "assistant") {
      const param = assistantMessage(message);
      if (param !== undefined) out.push(param);
    } else if (message.role === "tool") {
      const images = toParts(message.content).filter((part): part is ImagePart => part.type === "image");
      out.push({ role: "tool", tool_call_id: message.toolCallId, content: toolText(message, images.length > 0) });
      if (images.length > 0) {
        pendingImages.push({ type: "text", text: `Images returned by tool call ${message.toolCallId}:` }, ...images.map((part) => imagePart(part, image)));
      }
    } else {
      const content = userContent(message, image);
      if (content !== undefined) out.push({ role: "user", content });
    }
  }
  flushImages();
  return out;
}

/** The streaming request body for `request`. Throws ProviderError for what OpenAI cannot take. */
export function toOpenAIParams(request: GenerateRequest, image: ImageLookup): ChatCompletionCreateParamsStreaming {
  const reasoning = reasoningOf(request.params?.reasoning, request.model);
  const answerTokens = request.maxTokens ?? DEFAULT_MAX_TOKENS;
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== undefined && !isBlank(request.system)) messages.push({ role: "system", content: request.system });
  messages.push(...toChatMessages(request.messages, image));
  // Keys in one fixed order, so equal requests are equal bytes.
  const params: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    // Reasoning tokens count toward max_completion_tokens, so the allowance comes on top of the answer's room.
    max_completion_tokens: reasoning === undefined ? answerTokens : answerTokens + reasoning.allowance,
  };
  if (request.tools.length > 0) {
    params.tools = request.tools.map(
      (tool): ChatCompletionFunctionTool => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }),
    );
    if (request.toolChoice === "none") params.tool_choice = "none";
  }
  if (reasoning?.effort !== undefined) params.reasoning_effort = reasoning.effort;
  return params;
}
