import type { ChatMessage, ContentPart, ImagePart } from "./types";

/** The fixed text that replaces a dropped image, so every later step sends the same bytes. */
export function droppedImageText(image: ImagePart): string {
  return `[image dropped: ${image.path ?? image.hash}]`;
}

/**
 * For each message, how many assistant turns old it is: a tool message belongs to the assistant
 * turn before it, and that turn's rank is 1 when it is the newest assistant message.
 */
function turnRanks(messages: ChatMessage[]): number[] {
  const ranks = new Array<number>(messages.length).fill(0);
  let assistantsAfter = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "assistant") assistantsAfter++;
    else if (message.role === "tool") ranks[i] = assistantsAfter + 1;
  }
  return ranks;
}

function hasImage(message: ChatMessage): boolean {
  return typeof message.content !== "string" && message.content.some((part) => part.type === "image");
}

/**
 * The request form of the history: images of tool results older than the last `keepImages`
 * assistant turns become `[image dropped: <name>]`. Unchanged messages are passed through.
 */
export function dropOldImages(messages: ChatMessage[], keepImages: number | undefined): ChatMessage[] {
  if (keepImages === undefined) return messages;
  const ranks = turnRanks(messages);
  return messages.map((message, i) => {
    if (message.role !== "tool" || ranks[i]! <= keepImages || !hasImage(message)) return message;
    const content = (message.content as ContentPart[]).map((part): ContentPart =>
      part.type === "image" ? { type: "text", text: droppedImageText(part) } : part,
    );
    return { ...message, content };
  });
}

/**
 * Index of the first message whose request form can still change in this run: a tool message
 * with images not yet dropped that a later step of this run (up to `maxSteps`) would drop.
 * Everything before it is stable and may be covered by a cache mark.
 */
export function stableEnd(
  messages: ChatMessage[],
  { keepImages, maxSteps, step }: { keepImages: number | undefined; maxSteps: number; step: number },
): number {
  if (keepImages === undefined) return messages.length;
  const ranks = turnRanks(messages);
  const laterSteps = Math.max(0, maxSteps - step);
  for (let i = 0; i < messages.length; i++) {
    const rank = ranks[i]!;
    if (messages[i]!.role === "tool" && rank <= keepImages && rank + laterSteps > keepImages && hasImage(messages[i]!)) {
      return i;
    }
  }
  return messages.length;
}
