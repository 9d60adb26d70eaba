import { createApp } from "./http/app";

export { RunObject } from "./durable/run-object";

export default createApp();
