// Reads a run's stored events over SSE until its `end` event (or a timeout).
export type SseEvent = { id?: string; data: Record<string, unknown> };

export async function readEventsUntilEnd(url: string, token: string, timeoutMs = 30_000): Promise<SseEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const response = await fetch(url, { headers: { Accept: "text/event-stream", Authorization: `Bearer ${token}` }, signal: controller.signal });
  if (!response.ok || response.body === null) throw new Error(`events: ${response.status}`);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event: SseEvent = { data: {} };
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) event.id = line.slice(4);
          if (line.startsWith("data: ")) event.data = JSON.parse(line.slice(6)) as Record<string, unknown>;
        }
        events.push(event);
        if (event.data.type === "end") return events;
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}
