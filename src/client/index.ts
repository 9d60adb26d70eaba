// The typed client of the Ratchet API (docs/api.md) for apps: browsers, React Native, Node 20.
//
//   const ratchet = createClient({ baseUrl: "http://127.0.0.1:8787", token: "dev-token" });
//   const { run, token } = await ratchet.createRun({ messages: [{ role: "user", content: "Hi" }] });
//   const mine = ratchet.withToken(token);
//   for await (const event of mine.events(run.id)) console.log(event.type);
export { createClient } from "./client.ts";
export type { ClientOptions, CreateRunOptions, RatchetClient } from "./client.ts";
export { RatchetError } from "./errors.ts";
export type { EventsOptions, ReconnectOptions } from "./events/events.ts";
export type { EvalsClient, ExperimentEventsOptions } from "./evals-client.ts";
export type { InboxOptions } from "./events/inbox.ts";
export type { FetchAnswer, FetchInit, FetchLike, WebSocketConstructorLike, WebSocketEventLike, WebSocketLike } from "./connection/transport.ts";
export type * from "./types.ts";
