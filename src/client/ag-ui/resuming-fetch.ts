// A fetch for @ag-ui/client's HttpAgent whose AG-UI streams survive a lost connection: the answer's
// body is the service's stream passed on whole frame by whole frame, and when the connection
// breaks (or the stream ends before RUN_FINISHED or RUN_ERROR) the request is sent again with
// `Last-Event-ID: <the last id passed on>`, which the service answers with the rest of the stream
// (docs/ag-ui.md "Resuming"), waiting longer each time while the service does not answer. The
// agent reads one stream, as if nothing had happened. A refusal (4xx) ends the stream with that error.
import { reconnectDelay, sleep } from "../reconnect/backoff.ts";
import type { ReconnectOptions } from "../reconnect/reconnecting.ts";

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export type ResumeOptions = ReconnectOptions & {
  /** Tries after a lost connection before the stream fails (default: unlimited, until the agent aborts). */
  maxTries?: number;
};

const TERMINAL = /"type"\s*:\s*"(RUN_FINISHED|RUN_ERROR)"/;

/** The SSE id of one frame (a block between blank lines), if it has one. */
function idOf(block: string): string | undefined {
  for (const line of block.split("\n")) if (line.startsWith("id:")) return line.slice(3).trim();
  return undefined;
}

function isTerminal(block: string): boolean {
  return block.split("\n").some((line) => line.startsWith("data:") && TERMINAL.test(line));
}

class Refused extends Error {
  constructor(readonly response: Response, text: string) {
    super(`HTTP ${response.status}: ${text}`);
  }
}

export function resumingFetch(fetch: FetchFunction, options: ResumeOptions = {}): FetchFunction {
  const { minDelayMs = 250, maxDelayMs = 5_000, maxTries = Number.POSITIVE_INFINITY } = options;
  return async (url, init) => {
    const first = await fetch(url, init);
    if (!first.ok || first.body === null) return first;
    const signal = init.signal ?? undefined;
    const aborted = () => signal?.aborted === true;
    const encoder = new TextEncoder();
    let lastId: string | undefined;
    let finished = false;
    let reader = first.body.getReader();
    let decoder = new TextDecoder();
    let buffer = "";

    async function reopen(): Promise<void> {
      if (lastId === undefined) throw new Error("The AG-UI stream was lost before its first event: nothing to resume from.");
      for (let tries = 1; ; tries++) {
        if (aborted()) throw signal?.reason ?? new Error("Aborted.");
        await sleep(reconnectDelay(tries, minDelayMs, maxDelayMs), signal);
        try {
          const headers = new Headers(init.headers);
          headers.set("Last-Event-ID", lastId);
          const response = await fetch(url, { ...init, headers });
          if (response.ok && response.body !== null) {
            reader = response.body.getReader();
            decoder = new TextDecoder();
            buffer = "";
            return;
          }
          if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) throw new Refused(response, await response.text());
        } catch (error) {
          if (error instanceof Refused || aborted()) throw error;
        }
        if (tries >= maxTries) throw new Error(`The AG-UI stream could not be resumed after ${tries} tries.`);
      }
    }

    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          for (;;) {
            let cut: number;
            const blocks: string[] = [];
            while ((cut = buffer.indexOf("\n\n")) >= 0) {
              blocks.push(buffer.slice(0, cut));
              buffer = buffer.slice(cut + 2);
            }
            if (blocks.length > 0) {
              for (const block of blocks) {
                const id = idOf(block);
                if (id !== undefined) lastId = id;
                if (isTerminal(block)) finished = true;
                controller.enqueue(encoder.encode(`${block}\n\n`));
              }
              if (finished) {
                controller.close();
                await reader.cancel().catch(() => undefined);
              }
              return;
            }
            let read: ReadableStreamReadResult<Uint8Array>;
            try {
              read = await reader.read();
            } catch (error) {
              if (aborted()) throw error;
              await reopen();
              continue;
            }
            if (read.done) {
              if (finished) return controller.close();
              await reopen();
              continue;
            }
            buffer += decoder.decode(read.value, { stream: true }).replace(/\r\n/g, "\n");
          }
        },
        async cancel() {
          await reader.cancel().catch(() => undefined);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: first.status, headers: first.headers });
  };
}
