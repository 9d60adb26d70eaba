// The typed client of the Ratchet API (docs/api.md) for apps: browsers, React Native, Node 20.
//
//   const ratchet = createClient({ baseUrl: "http://127.0.0.1:8787", token: "dev-token" });
//   const { run, token } = await ratchet.createRun({ messages: [{ role: "user", content: "Hi" }] });
//   const mine = ratchet.withToken(token);
//   for await (const event of mine.events(run.id)) console.log(event.type);
export { createClient } from "./client";
export type { ClientOptions, CreateRunOptions, RatchetClient } from "./client";
export { RatchetError } from "./errors";
export type { EventsOptions, ReconnectOptions } from "./events";
export type { InboxOptions } from "./inbox";
export type { FetchAnswer, FetchInit, FetchLike, WebSocketConstructorLike, WebSocketEventLike, WebSocketLike } from "./transport";
export type * from "./types";
