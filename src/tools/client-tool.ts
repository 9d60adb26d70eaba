// A client tool: declared by the caller and answered by the caller, like an ask. The loop stops
// in `waiting` on a valid call; the input is checked against the tool's JSON Schema first so the
// caller only ever sees input it declared.
import type { AnyToolSpec } from "../loop/types";
import { jsonSchemaValidator } from "./json-schema";

export type ClientToolRef = { type: "client"; name: string; description: string; inputSchema: Record<string, unknown> };

export function createClientTool(ref: ClientToolRef): AnyToolSpec {
  return {
    name: ref.name,
    description: ref.description,
    inputSchema: ref.inputSchema,
    validate: jsonSchemaValidator(ref.inputSchema),
    client: true,
  };
}
