// @ratchet/client/ai-sdk: a run as the backend of the AI SDK's `useChat` (docs/ai-sdk.md).
//
//   const transport = chatTransport({ baseUrl, token, version: "v7" });
//   const chat = useChat({ id: runId, resume: true, transport });
//   <button onClick={() => transport.cancelChat(runId)}>Stop</button>
//
// `ai` is an optional peer dependency of @ratchet/client: only this entry imports it.
export { chatEndpoint, chatTransport, RatchetChatTransport } from "./chat-transport.ts";
export type { ChatTransportOptions, ChatVersion } from "./chat-transport.ts";
export { isDisconnect } from "./disconnect.ts";
export { visibleParts } from "./visible-parts.ts";
export type { ReconnectOptions } from "../reconnect/reconnecting.ts";
