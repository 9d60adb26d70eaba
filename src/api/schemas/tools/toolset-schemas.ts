// The zod schemas of the tool kinds that live elsewhere than the run (docs/toolsets.md): client
// toolsets (groups of actions the client answers, some of them the provider's native client tool
// types), provider tools (the provider runs them), and the results that answer a toolset batch.
// ./tool-schemas.ts, ../person/answer-schemas.ts and ../streams/event-schemas.ts add them to ToolRef, AnswerBody and
// the events; ../../schema-checks.ts checks the types they infer against ../../types.ts.
import { z } from "@hono/zod-openapi";
import { BROWSER_ACTIONS, COMPUTER_ACTIONS, nativeKind } from "../../../tools/native-tools";
import { laterDuplicates } from "../../../lib/duplicates";
import { PROVIDER_TOOL_TYPES, providerToolName, type ProviderToolType } from "../../../tools/provider-tools";

/** A toolset's or an action's name: what the model sees, so the provider's tool-name rules apply. */
const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** Anthropic's limit on a tool's name, which `<toolset>__<action>` must keep to. */
export const TOOL_NAME_MAX = 128;

const nameSchema = z.string().regex(NAME_PATTERN, { message: "Must be 1–64 characters: letters, digits, _ and -." });

const toolsetActionSchema = z
  .strictObject({
    name: nameSchema,
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema (2020-12) of the action's input." }),
  })
  .openapi("ToolsetAction");

const memberConfigsSchema = z
  .record(z.string(), z.strictObject({ enabled: z.boolean().optional() }))
  .optional()
  .openapi({ description: "Per action: { enabled: false } withholds it from the model." });

const displaySize = {
  display_width_px: z.number().int().gte(1),
  display_height_px: z.number().int().gte(1),
  display_number: z.number().int().gte(0).optional(),
};

/** The provider's native client tool types, each with the fields it takes (as the Messages API names them). */
export const nativeClientToolSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("computer_toolset_20260801"), configs: memberConfigsSchema }),
    z.strictObject({ type: z.literal("browser_toolset_20260801"), configs: memberConfigsSchema }),
    z.strictObject({ type: z.literal("computer_20251124"), ...displaySize, enable_zoom: z.boolean().optional() }),
    z.strictObject({ type: z.literal("computer_20250124"), ...displaySize }),
    z.strictObject({ type: z.literal("text_editor_20250728"), max_characters: z.number().int().gte(1).optional() }),
    z.strictObject({ type: z.literal("text_editor_20250124") }),
    z.strictObject({ type: z.literal("bash_20250124") }),
  ])
  .openapi("NativeClientTool", { description: "Anthropic's native client tool types; sent to the model with this type (provider anthropic only)." });

const MEMBERS: Record<string, readonly string[]> = { computer_toolset_20260801: COMPUTER_ACTIONS, browser_toolset_20260801: BROWSER_ACTIONS };

export const clientToolsetRefSchema = z
  .strictObject({
    type: z.literal("client-toolset"),
    name: nameSchema.openapi({ description: "The toolset (computer, browser, …). A native one has its type's name." }),
    actions: z.array(toolsetActionSchema).min(1).optional().openapi({ description: "The actions the client answers; each is offered to the model as the tool <name>__<action>. Not with `native`." }),
    native: nativeClientToolSchema.optional(),
  })
  .superRefine((ref, context) => {
    if (ref.native === undefined) {
      if (ref.actions === undefined) context.addIssue({ code: "custom", path: ["actions"], message: "A toolset needs its actions (or `native`, a native client tool type)." });
      const names = (ref.actions ?? []).map((action) => action.name);
      for (const { index } of laterDuplicates(names)) context.addIssue({ code: "custom", path: ["actions", index, "name"], message: `Duplicate action: ${names[index]}.` });
      names.forEach((name, index) => {
        if (`${ref.name}__${name}`.length > TOOL_NAME_MAX) {
          context.addIssue({ code: "custom", path: ["actions", index, "name"], message: `${ref.name}__${name} is longer than ${TOOL_NAME_MAX} characters.` });
        }
      });
      return;
    }
    if (ref.actions !== undefined) context.addIssue({ code: "custom", path: ["actions"], message: "A native toolset's actions are the provider's: leave out `actions`." });
    const expected = nativeKind(ref.native.type)!.toolset;
    if (ref.name !== expected) context.addIssue({ code: "custom", path: ["name"], message: `A ${ref.native.type} toolset is named ${expected}.` });
    const members = MEMBERS[ref.native.type];
    const configs = "configs" in ref.native ? ref.native.configs : undefined;
    for (const key of Object.keys(configs ?? {})) {
      if (members !== undefined && !members.includes(key)) {
        context.addIssue({ code: "custom", path: ["native", "configs", key], message: `${ref.native.type} has no action ${key}.` });
      }
    }
  })
  .openapi("ClientToolsetRef");

const PROVIDER_TYPES = Object.keys(PROVIDER_TOOL_TYPES) as [ProviderToolType, ...ProviderToolType[]];

export const providerToolRefSchema = z
  .strictObject({
    type: z.literal("provider"),
    spec: z
      .object({ type: z.enum(PROVIDER_TYPES), name: z.string() })
      .catchall(z.unknown())
      .superRefine((spec, context) => {
        const expected = providerToolName(spec.type);
        if (spec.name !== expected) context.addIssue({ code: "custom", path: ["name"], message: `A ${spec.type} tool is named ${expected}.` });
      })
      .openapi({ description: "The provider's tool entry, sent as given (Anthropic: web search, web fetch, code execution)." }),
  })
  .openapi("ProviderToolRef");

/** One result of a toolset batch's answer; `content` is the API's Content (input form). */
export function batchResultSchemaOf<C extends z.ZodType>(content: C) {
  return z
    .strictObject({
      callId: z.string().min(1).openapi({ description: "An action of the waiting batch (waiting.batch[].callId)." }),
      content,
      isError: z.boolean().optional().openapi({ description: "The action failed: the toolset's later actions of the batch are not run (leave them out)." }),
    })
    .openapi("BatchResult");
}

export const batchActionSchema = z
  .object({ callId: z.string(), action: z.string(), input: z.unknown() })
  .openapi("BatchAction");
