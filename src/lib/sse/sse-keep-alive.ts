// Keep-alives for a Server-Sent Events answer: when the stream has written nothing for a while (a
// long model call, a run that waits), a comment line that every SSE reader skips, so that a proxy, a
// load balancer or a client's idle timeout (Node's fetch cuts a body silent for 300 s) does not take
// the quiet stream for a dead one. It wraps the answer's body as the edge sends it, so one rule
// serves every stream alike, whatever made its events (the run object's own stream, the AI SDK
// chat's or A2A's translation of it, an MCP call's answer). The wrapped body is read only as fast
// as its reader reads, and a keep-alive is written only when the reader asks for more.

/** What a keep-alive writes: a comment line, alone in its block when the stream stands between two. */
export const KEEP_ALIVE_LINE = ": keep-alive\n";

const encoder = new TextEncoder();
const NEWLINE = 10;

/** The timer a wrapper waits with (injected by tests). */
export type KeepAliveTimer = { set(callback: () => void, ms: number): unknown; clear(handle: unknown): void };

const realTimer: KeepAliveTimer = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

type Read = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

/** Where the bytes written so far end: between two blocks, at the start of a line in a block, or inside a line. */
type At = "block" | "line" | "inside";

function after(at: At, chunk: Uint8Array): At {
  const last = chunk[chunk.length - 1];
  if (last === undefined) return at;
  if (last !== NEWLINE) return "inside";
  if (chunk.length === 1) return at === "inside" ? "line" : "block";
  return chunk[chunk.length - 2] === NEWLINE ? "block" : "line";
}

/**
 * `body` with a keep-alive whenever it has written nothing for `everyMs` while its reader waits:
 * between two blocks a comment block of its own, inside a block a comment line (which leaves the
 * block's fields as they were), never inside a line.
 */
export function keepAliveBody(body: ReadableStream<Uint8Array>, everyMs: number, timer: KeepAliveTimer = realTimer): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let pending: Promise<Read> | undefined;
  let at: At = "block";
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // A pull ends with something given to the reader (the streams call pull again only then).
        for (;;) {
          pending ??= reader.read();
          let handle: unknown;
          const quiet = new Promise<"quiet">((resolve) => {
            handle = timer.set(() => resolve("quiet"), everyMs);
          });
          let next: Read | "quiet";
          try {
            next = await Promise.race([pending, quiet]);
          } finally {
            timer.clear(handle);
          }
          if (next === "quiet") {
            // The read stays pending for later; inside a line nothing may go between, so the wait goes on.
            if (at === "inside") continue;
            controller.enqueue(encoder.encode(at === "block" ? `${KEEP_ALIVE_LINE}\n` : KEEP_ALIVE_LINE));
            return;
          }
          pending = undefined;
          if (next.done) {
            controller.close();
            return;
          }
          at = after(at, next.value);
          controller.enqueue(next.value);
          return;
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** An SSE answer (200, `text/event-stream`) with keep-alives every `seconds`; any other answer as it is. */
export function withKeepAlive(response: Response, seconds: number): Response {
  const type = response.headers.get("content-type") ?? "";
  if (response.status !== 200 || response.body === null || !type.toLowerCase().startsWith("text/event-stream")) return response;
  return new Response(keepAliveBody(response.body, seconds * 1000), { status: response.status, statusText: response.statusText, headers: response.headers });
}
