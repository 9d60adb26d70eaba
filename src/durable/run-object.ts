import { DurableObject } from "cloudflare:workers";

/** One run: its journal, event log, alarms and sockets. */
export class RunObject extends DurableObject<Env> {}
