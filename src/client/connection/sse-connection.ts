// The event stream as Server-Sent Events read from a streamed fetch body: for platforms without
// a WebSocket (Node 20). The token goes in the Authorization header.
import { Channel } from "./channel.ts";
import { connectionOf, pushFrame, type Connection } from "./connection.ts";
import { errorFromAnswer, networkError } from "../errors.ts";
import type { ByteReader, FetchLike } from "./transport.ts";

export function sseUrl(baseUrl: string, runId: string, after: number): string {
  return `${baseUrl}/v1/runs/${encodeURIComponent(runId)}/events?after=${after}`;
}

export function inboxSseUrl(baseUrl: string, after: number, subject?: string): string {
  return `${baseUrl}/v1/inbox/events?after=${after}${subject === undefined ? "" : `&subject=${encodeURIComponent(subject)}`}`;
}

/** The data of each complete event block in `buffer`, and what is left over. */
export function takeSseData(buffer: string): { data: string[]; rest: string } {
  const data: string[] = [];
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    const lines = block.split("\n").filter((line) => line.startsWith("data:"));
    if (lines.length > 0) data.push(lines.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n"));
  }
  return { data, rest };
}

export function openEventSource(fetch: FetchLike, url: string, token: string): Connection {
  const channel = new Channel<unknown>();
  const controller = new AbortController();
  let opened = false;
  let reader: ByteReader | undefined;

  async function read(): Promise<void> {
    const answer = await fetch(url, { method: "GET", headers: { Accept: "text/event-stream", Authorization: `Bearer ${token}` }, signal: controller.signal });
    if (!answer.ok || answer.body === null) {
      const text = await answer.text().catch(() => "");
      channel.end(answer.ok ? networkError(url, new Error("The answer has no streamed body.")) : errorFromAnswer(answer.status, text));
      return;
    }
    opened = true;
    reader = answer.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (controller.signal.aborted) return;
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const taken = takeSseData(buffer);
      buffer = taken.rest;
      for (const data of taken.data) pushFrame(channel, data);
    }
    channel.end();
  }

  read().catch((error: unknown) => channel.end(controller.signal.aborted ? undefined : networkError(url, error)));
  return connectionOf(
    channel,
    () => opened,
    () => {
      controller.abort();
      // Not every fetch ends a body it already answered when its signal aborts.
      reader?.cancel().catch(() => undefined);
    },
  );
}
