import { createApp } from "./http/app";

export { RunObject } from "./durable/run/run-object";
export { InboxObject } from "./durable/inbox/inbox-object";

export default createApp();
