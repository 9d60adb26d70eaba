// A client toolset as the loop's tool specs. Its own actions become one spec each, offered to the
// model as `<toolset>__<action>` and checked against the action's JSON Schema; a native one becomes
// a single spec whose provider entry is sent as given (a family's actions route to it by the call's
// toolset, a single native tool's calls by its fixed name). Every spec is answered by the client.
import type { ClientToolsetRef, ToolRef } from "../api/types";
import { actionToolName } from "../loop/tool-calls/toolset";
import type { AnyToolSpec } from "../loop/types";
import { jsonSchemaValidator } from "./json-schema";
import { nativeEntry, nativeKind } from "./native-tools";

export function createToolsetSpecs(ref: ClientToolsetRef): AnyToolSpec[] {
  if (ref.native !== undefined) {
    const kind = nativeKind(ref.native.type);
    const members = kind?.members !== undefined;
    return [
      {
        name: ref.name,
        description: "",
        client: true,
        toolset: members ? { name: ref.name, members: true } : { name: ref.name },
        native: nativeEntry(ref.native),
      },
    ];
  }
  return (ref.actions ?? []).map((action) => ({
    name: actionToolName(ref.name, action.name),
    description: action.description,
    inputSchema: action.inputSchema,
    validate: jsonSchemaValidator(action.inputSchema),
    client: true,
    toolset: { name: ref.name, action: action.name },
  }));
}

/** The names the model sees for `ref`: its own name, and for a declared toolset each `<toolset>__<action>`. */
export function offeredNames(ref: ToolRef): string[] {
  if (typeof ref === "string") return [ref];
  if (ref.type === "provider") return [ref.spec.name];
  if (ref.type === "client-toolset" && ref.native === undefined) return (ref.actions ?? []).map((action) => actionToolName(ref.name, action.name));
  return [ref.name];
}

/** Two tools the model would see under one name (a toolset's action and another tool): issues at the later one. */
export function offeredNameIssues(refs: readonly ToolRef[]): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const seen = new Map<string, number>();
  refs.forEach((ref, index) => {
    for (const name of offeredNames(ref)) {
      const earlier = seen.get(name);
      if (earlier !== undefined && earlier !== index) issues.push({ path: `tools.${index}`, message: `The model would see two tools named ${name} (tools.${earlier} and this one).` });
      seen.set(name, index);
    }
  });
  return issues;
}

/** Provider tools and native client tool types are the provider's own: a run on another provider cannot have them. */
export function providerOnlyIssues(refs: readonly ToolRef[], provider: string): { path: string; message: string }[] {
  if (provider === "anthropic") return [];
  return refs.flatMap((ref, index) => {
    if (typeof ref === "string") return [];
    if (ref.type === "provider") return [{ path: `tools.${index}.spec`, message: `Provider tools are for provider anthropic; this run's provider is ${provider}.` }];
    if (ref.type === "client-toolset" && ref.native !== undefined) {
      return [{ path: `tools.${index}.native`, message: `Native client tool types are for provider anthropic; this run's provider is ${provider}.` }];
    }
    return [];
  });
}
