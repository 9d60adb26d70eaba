// The request side of the fake: the checks OpenAI's Chat Completions API makes on a body (with
// its wording, close enough to recognise), so a provider that sends what the real API would
// refuse fails here too: unknown fields, bad roles, tool messages without a preceding tool call,
// calls left unanswered, images that are not images, parameters a model does not take.

export type ApiError = { status: number; type: string; message: string; param?: string | null; code?: string | null };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const invalid = (message: string, param: string | null = null, code: string | null = null): ApiError => ({ status: 400, type: "invalid_request_error", message, param, code });

/** The body fields Chat Completions knows; anything else is "Unrecognized request argument supplied". */
const KNOWN_FIELDS = new Set([
  "model", "messages", "stream", "stream_options", "max_completion_tokens", "max_tokens", "tools", "tool_choice", "parallel_tool_calls",
  "reasoning_effort", "temperature", "top_p", "n", "stop", "user", "metadata", "store", "seed", "response_format", "prompt_cache_key",
  "prompt_cache_retention", "service_tier", "logprobs", "top_logprobs", "presence_penalty", "frequency_penalty", "logit_bias", "modalities",
  "audio", "prediction", "safety_identifier", "verbosity", "web_search_options",
]);
const MESSAGE_FIELDS: Record<string, Set<string>> = {
  system: new Set(["role", "content", "name"]),
  developer: new Set(["role", "content", "name"]),
  user: new Set(["role", "content", "name"]),
  assistant: new Set(["role", "content", "name", "tool_calls", "refusal", "audio", "function_call"]),
  tool: new Set(["role", "content", "tool_call_id"]),
};
const ROLES = "'system', 'assistant', 'user', 'tool', 'function', and 'developer'";
const EFFORTS = new Set(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
const IMAGE_URL = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

/** The models that reason: they take reasoning_effort and refuse max_tokens. */
export function isReasoningModel(model: string): boolean {
  return /^(o\d|gpt-[5-9])/.test(model) && !model.includes("chat-latest");
}

function extraField(value: Json, allowed: Set<string>, path: string): ApiError | undefined {
  const extra = Object.keys(value).find((key) => !allowed.has(key));
  return extra === undefined ? undefined : invalid(`Additional properties are not allowed ('${extra}' was unexpected) - '${path}'`, path);
}

function checkTextParts(content: unknown, path: string, allowRefusal = false): ApiError | undefined {
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content)) return invalid(`Invalid type for '${path}': expected one of a string or array of objects.`, path, "invalid_type");
  for (const [i, part] of content.entries()) {
    const at = `${path}[${i}]`;
    if (!isObject(part)) return invalid(`Invalid type for '${at}': expected an object.`, at, "invalid_type");
    if (part.type === "text" && typeof part.text === "string") continue;
    if (allowRefusal && part.type === "refusal" && typeof part.refusal === "string") continue;
    return invalid(`Invalid value: '${String(part.type)}'. Supported values are: 'text'${allowRefusal ? " and 'refusal'" : ""}.`, `${at}.type`, "invalid_value");
  }
  return undefined;
}

function checkUserContent(content: unknown, path: string): ApiError | undefined {
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content) || content.length === 0) return invalid(`Invalid '${path}': expected a string or a non-empty array of content parts.`, path, "invalid_type");
  for (const [i, part] of content.entries()) {
    const at = `${path}[${i}]`;
    if (!isObject(part)) return invalid(`Invalid type for '${at}': expected an object.`, at, "invalid_type");
    if (part.type === "text") {
      if (typeof part.text !== "string") return invalid(`Missing required parameter: '${at}.text'.`, `${at}.text`, "missing_required_parameter");
      continue;
    }
    if (part.type === "image_url") {
      const url = isObject(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== "string") return invalid(`Missing required parameter: '${at}.image_url.url'.`, `${at}.image_url.url`, "missing_required_parameter");
      if (!url.startsWith("https://") && !IMAGE_URL.test(url)) {
        return invalid("You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].", `${at}.image_url.url`, "invalid_image_format");
      }
      continue;
    }
    return invalid(`Invalid value: '${String(part.type)}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`, `${at}.type`, "invalid_value");
  }
  return undefined;
}

function checkToolCalls(calls: unknown, path: string): { ids: string[] } | ApiError {
  if (!Array.isArray(calls) || calls.length === 0) return invalid(`Invalid '${path}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, path, "empty_array");
  const ids: string[] = [];
  for (const [i, call] of calls.entries()) {
    const at = `${path}[${i}]`;
    if (!isObject(call) || typeof call.id !== "string" || call.type !== "function" || !isObject(call.function)) {
      return invalid(`Invalid '${at}': a tool call needs id, type 'function' and function.`, at);
    }
    const extra = extraField(call, new Set(["id", "type", "function"]), at) ?? extraField(call.function, new Set(["name", "arguments"]), `${at}.function`);
    if (extra !== undefined) return extra;
    if (typeof call.function.name !== "string") return invalid(`Missing required parameter: '${at}.function.name'.`, `${at}.function.name`, "missing_required_parameter");
    if (typeof call.function.arguments !== "string") return invalid(`Invalid type for '${at}.function.arguments': expected a string.`, `${at}.function.arguments`, "invalid_type");
    ids.push(call.id);
  }
  return { ids };
}

function checkMessages(messages: unknown): ApiError | undefined {
  if (!Array.isArray(messages)) return invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  if (messages.length === 0) return invalid("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", "messages", "empty_array");
  /** Calls of the last assistant message still without a tool message. */
  let open: string[] = [];
  let answering = false;
  for (const [m, message] of messages.entries()) {
    const path = `messages[${m}]`;
    if (!isObject(message)) return invalid(`Invalid type for '${path}': expected an object.`, path, "invalid_type");
    const role = message.role;
    if (typeof role !== "string" || MESSAGE_FIELDS[role] === undefined) return invalid(`Invalid value: '${String(role)}'. Supported values are: ${ROLES}.`, `${path}.role`, "invalid_value");
    const extra = extraField(message, MESSAGE_FIELDS[role]!, path);
    if (extra !== undefined) return extra;
    if (role === "tool") {
      if (!answering) return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `${path}.role`);
      if (typeof message.tool_call_id !== "string") return invalid(`Missing required parameter: '${path}.tool_call_id'.`, `${path}.tool_call_id`, "missing_required_parameter");
      if (!open.includes(message.tool_call_id)) return invalid(`Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`, `${path}.tool_call_id`);
      open = open.filter((id) => id !== message.tool_call_id);
      const error = checkTextParts(message.content, `${path}.content`);
      if (error !== undefined) return error;
      continue;
    }
    if (open.length > 0) {
      return invalid(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(", ")}`, "messages");
    }
    answering = false;
    if (role === "user") {
      const error = checkUserContent(message.content, `${path}.content`);
      if (error !== undefined) return error;
    } else if (role === "system" || role === "developer") {
      const error = checkTextParts(message.content, `${path}.content`);
      if (error !== undefined) return error;
    } else {
      const hasCalls = message.tool_calls !== undefined && message.tool_calls !== null;
      if (message.content === null || message.content === undefined) {
        if (!hasCalls) return invalid(`Invalid value for '${path}.content': expected a string, got null.`, `${path}.content`, "invalid_value");
      } else {
        const error = checkTextParts(message.content, `${path}.content`, true);
        if (error !== undefined) return error;
      }
      if (hasCalls) {
        const calls = checkToolCalls(message.tool_calls, `${path}.tool_calls`);
        if ("status" in calls) return calls;
        open = calls.ids;
        answering = true;
      }
    }
  }
  if (open.length > 0) {
    return invalid(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(", ")}`, "messages");
  }
  return undefined;
}

function checkTools(body: Json): ApiError | undefined {
  if (body.tools === undefined) {
    if (body.tool_choice !== undefined) return invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice");
    if (body.parallel_tool_calls !== undefined) return invalid("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", "parallel_tool_calls");
    return undefined;
  }
  if (!Array.isArray(body.tools)) return invalid("Invalid type for 'tools': expected an array of objects.", "tools", "invalid_type");
  if (body.tools.length > 128) return invalid("Invalid 'tools': array too long. Expected an array with maximum length 128.", "tools", "array_above_max_length");
  const names = new Set<string>();
  for (const [i, tool] of body.tools.entries()) {
    const at = `tools[${i}]`;
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function)) return invalid(`Invalid value for '${at}.type': expected 'function'.`, `${at}.type`, "invalid_value");
    const extra = extraField(tool, new Set(["type", "function"]), at) ?? extraField(tool.function, new Set(["name", "description", "parameters", "strict"]), `${at}.function`);
    if (extra !== undefined) return extra;
    const name = tool.function.name;
    if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      return invalid(`Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `${at}.function.name`, "invalid_value");
    }
    if (names.has(name)) return invalid(`Invalid 'tools': duplicate function name '${name}'.`, "tools");
    names.add(name);
    const parameters = tool.function.parameters;
    if (parameters !== undefined && (!isObject(parameters) || parameters.type !== "object")) {
      return invalid(`Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${isObject(parameters) ? String(parameters.type) : "None"}"'.`, `${at}.function.parameters`, "invalid_function_parameters");
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== "none" && choice !== "auto" && choice !== "required") {
    const named = isObject(choice) && choice.type === "function" && isObject(choice.function) ? choice.function.name : undefined;
    if (typeof named !== "string" || !names.has(named)) return invalid("Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or a function of 'tools'.", "tool_choice", "invalid_value");
  }
  return undefined;
}

function checkParameters(body: Json, model: string): ApiError | undefined {
  if (body.stream_options !== undefined && body.stream !== true) return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");
  if (body.stream_options !== undefined) {
    if (!isObject(body.stream_options)) return invalid("Invalid type for 'stream_options': expected an object.", "stream_options", "invalid_type");
    const extra = extraField(body.stream_options, new Set(["include_usage", "include_obfuscation"]), "stream_options");
    if (extra !== undefined) return extra;
  }
  for (const field of ["max_completion_tokens", "max_tokens"]) {
    const value = body[field];
    if (value !== undefined && value !== null && (typeof value !== "number" || !Number.isInteger(value) || value < 1)) {
      return invalid(`Invalid '${field}': integer below minimum value. Expected a value >= 1.`, field, "integer_below_min_value");
    }
  }
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) return invalid("Invalid request: max_tokens and max_completion_tokens cannot both be set.", "max_tokens");
  if (isReasoningModel(model) && body.max_tokens !== undefined) {
    return invalid("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter");
  }
  if (body.reasoning_effort !== undefined && body.reasoning_effort !== null) {
    if (!isReasoningModel(model)) return invalid("Unsupported parameter: 'reasoning_effort' is not supported with this model.", "reasoning_effort", "unsupported_parameter");
    if (typeof body.reasoning_effort !== "string" || !EFFORTS.has(body.reasoning_effort)) {
      return invalid(`Invalid value: '${String(body.reasoning_effort)}'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', and 'max'.`, "reasoning_effort", "invalid_value");
    }
  }
  if (body.n !== undefined && body.n !== 1) return invalid("The fake answers one choice: n must be 1.", "n");
  return undefined;
}

/** The first thing the real API would refuse in this body, or undefined. */
export function validateRequest(body: unknown): ApiError | undefined {
  if (!isObject(body)) return invalid("We could not parse the JSON body of your request.");
  const unknown = Object.keys(body).find((key) => !KNOWN_FIELDS.has(key));
  if (unknown !== undefined) return invalid(`Unrecognized request argument supplied: ${unknown}`);
  if (typeof body.model !== "string" || body.model.length === 0) return invalid("you must provide a model parameter", "model");
  return checkMessages(body.messages) ?? checkTools(body) ?? checkParameters(body, body.model);
}
