// The loop's view of the person's messages (options.incoming, src/loop/incoming.ts): a take is due
// when the journal holds it (a replay), or when messages wait and the model call it comes before is
// not done yet (so a replay never slips a newer message in before a call that did not see it). The
// take's journal transaction marks its messages taken (takenOnStore), so none is taken twice.
import type { Incoming } from "../../../loop/types";
import type { TakeValue } from "../../../loop/incoming";
import { hasWaitingMessages, markTaken, waitingMessages } from "../../person/message-store";

export function incomingOf(sql: SqlStorage, stored: Map<string, unknown>): Incoming {
  return {
    due: (key, before) => stored.has(key) || (!stored.has(before) && hasWaitingMessages(sql)),
    take: () => waitingMessages(sql),
  };
}

/** For a read of the history so far: only the takes the journal holds. */
export function storedIncoming(stored: Map<string, unknown>): Incoming {
  return {
    due: (key) => stored.has(key),
    take: () => {
      throw new Error("A read of the history takes no message.");
    },
  };
}

/** The journal's onStore: a take's messages are marked taken in the transaction that stores it (`prefix`: the segment's); other steps write nothing more. */
export function takenOnStore(sql: SqlStorage, prefix: string): (key: string) => ((value: unknown) => void) | undefined {
  return (key) => {
    if (!key.startsWith("messages/")) return undefined;
    return (value) =>
      markTaken(
        sql,
        (value as TakeValue).messages.map((message) => message.id),
        prefix + key,
      );
  };
}
