// Waiting on a run from Node by its events, never by asking for its status again and again: a
// WebSocket on GET /v1/runs/:id/events?after=0 gets the stored log and then every new event as it
// is stored, so a wait ends on the frame that shows what it waits for. The deadline only bounds
// the wait: a frame that never comes fails the test with the wait's own message.
import WebSocket from "ws";

export type RunEvent = { seq: number; at: string; type: string; [field: string]: unknown };

export type WaitOptions = {
  /** What the wait is for, in the failure message ("the end", "three tool-started"). */
  what: string;
  timeoutMs?: number;
  /** More to put in the failure message (the dev server's output, say). */
  detail?: () => string;
};

/** The run's stored events from the first, once `done(events so far)` holds. */
export function waitForEvents(base: string, id: string, token: string, done: (events: RunEvent[]) => boolean, { what, timeoutMs = 60_000, detail }: WaitOptions): Promise<RunEvent[]> {
  return new Promise((resolve, reject) => {
    const events: RunEvent[] = [];
    let settled = false;
    const ws = new WebSocket(`${base.replace(/^http/, "ws")}/v1/runs/${id}/events?after=0`, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === undefined) {
        ws.close(1000, "done");
        resolve(events);
      } else {
        ws.terminate();
        reject(error);
      }
    };
    const fail = (why: string) => {
      const seen = events.map((event) => event.type).join(", ") || "none";
      finish(new Error(`run ${id}: ${why} before ${what} (events: ${seen})${detail === undefined ? "" : `\n${detail()}`}`));
    };
    const timer = setTimeout(() => fail(`${timeoutMs} ms passed`), timeoutMs);
    ws.on("message", (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString()) as Partial<RunEvent>;
      if (typeof frame.seq !== "number") return; // live text, pongs
      events.push(frame as RunEvent);
      if (done(events)) finish();
    });
    ws.on("error", (error) => fail(`the socket failed (${error.message})`));
    ws.on("close", (code) => fail(`the socket closed (${code})`));
  });
}

/** The first stored event `match` accepts (already stored, or still to come). */
export async function waitForEvent(base: string, id: string, token: string, match: (event: RunEvent) => boolean, options: WaitOptions): Promise<RunEvent> {
  const events = await waitForEvents(base, id, token, (seen) => seen.some(match), options);
  return events.find(match)!;
}

/** The run's first `end` event (already stored, or still to come). */
export function waitForEnd(base: string, run: { id: string; token: string }, options: Partial<WaitOptions> = {}): Promise<RunEvent> {
  return waitForEvent(base, run.id, run.token, (event) => event.type === "end", { what: "its end", ...options });
}

/** Counts the stored events of one type. */
export const count = (events: RunEvent[], type: string) => events.filter((event) => event.type === type).length;
