// Stream chunks folded into a UIMessage's parts, as the AI SDK's own client folds them: the history
// (GET …/chat/{runId}/messages) is made by the same mapping as the stream, so its ids and parts are
// the ones a live client ends with.
import type { UIChunk, UIMessage, UIPart, UIToolPart } from "./ui-chunks";

function toolPart(message: UIMessage, callId: string): UIToolPart | undefined {
  for (let i = message.parts.length - 1; i >= 0; i--) {
    const part = message.parts[i]!;
    if ("toolCallId" in part && part.toolCallId === callId) return part;
  }
  return undefined;
}

function mergeMetadata(message: UIMessage, metadata: unknown): void {
  if (metadata === undefined) return;
  message.metadata = typeof message.metadata === "object" && message.metadata !== null && typeof metadata === "object" && metadata !== null ? { ...message.metadata, ...metadata } : metadata;
}

/** Applies one chunk to `message` (its parts and metadata), in place. `texts` tracks the open text parts by id. */
export function applyChunk(message: UIMessage, chunk: UIChunk, texts: Map<string, { type: "text"; text: string; state?: "done" }>): void {
  switch (chunk.type) {
    case "start-step":
      message.parts.push({ type: "step-start" });
      return;
    case "reset-step": {
      const start = message.parts.map((part) => part.type).lastIndexOf("step-start");
      message.parts.splice(start + 1);
      return;
    }
    case "text-start": {
      const part = { type: "text" as const, text: "" };
      texts.set(chunk.id, part);
      message.parts.push(part);
      return;
    }
    case "text-delta": {
      const part = texts.get(chunk.id);
      if (part !== undefined) part.text += chunk.delta;
      return;
    }
    case "text-end": {
      const part = texts.get(chunk.id);
      if (part !== undefined) part.state = "done";
      texts.delete(chunk.id);
      return;
    }
    case "tool-input-available":
      message.parts.push({ type: `tool-${chunk.toolName}`, toolCallId: chunk.toolCallId, state: "input-available", input: chunk.input });
      return;
    case "tool-output-available": {
      const part = toolPart(message, chunk.toolCallId);
      if (part !== undefined) Object.assign(part, { state: "output-available", output: chunk.output });
      return;
    }
    case "tool-output-error": {
      const part = toolPart(message, chunk.toolCallId);
      if (part !== undefined) Object.assign(part, { state: "output-error", errorText: chunk.errorText });
      return;
    }
    case "tool-output-denied": {
      const part = toolPart(message, chunk.toolCallId);
      if (part !== undefined) Object.assign(part, { state: "output-denied", approval: { id: chunk.toolCallId, approved: false } });
      return;
    }
    case "tool-approval-request": {
      const part = toolPart(message, chunk.toolCallId);
      if (part !== undefined) Object.assign(part, { state: "approval-requested", approval: { id: chunk.approvalId } });
      return;
    }
    case "message-metadata":
      mergeMetadata(message, chunk.messageMetadata);
      return;
    case "finish":
    case "start":
      mergeMetadata(message, chunk.messageMetadata);
      return;
    default:
      if (chunk.type.startsWith("data-")) {
        const data = chunk as { type: `data-ratchet-${string}`; id?: string; data: unknown };
        const part: UIPart = data.id === undefined ? { type: data.type, data: data.data } : { type: data.type, id: data.id, data: data.data };
        message.parts.push(part);
      }
  }
}
