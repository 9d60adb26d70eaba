// An HTTP tool as a run declares it (docs/http-tools.md): what both the plain and the async adapter take.
import type { ToolRef } from "../../api/types";

export type HttpToolRef = Extract<ToolRef, { type: "http" }>;
