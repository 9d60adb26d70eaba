import { createApp } from "./http/app";

export { RunObject } from "./durable/run-object";
export { InboxObject } from "./durable/inbox-object";

export default createApp();
