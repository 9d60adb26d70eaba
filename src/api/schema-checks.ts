// Compile-time checks: what the schemas let through is what ./types.ts describes, in both
// directions where the shapes are the same, so the client's types (src/client) and the edge's
// checks cannot drift apart.
import type { z } from "@hono/zod-openapi";
import type { AnswerInput } from "./schemas/person/answer-schemas";
import type { CallResultInput, callResultAcceptedSchema } from "./schemas/tools/call-result-schemas";
import type { chatMessageInputSchema, chatMessageSchema, contentSchema } from "./schemas/runs/content-schemas";
import type { CreateRunInput } from "./schemas/runs/create-run-schemas";
import type { ErrorDetail, errorBodySchema } from "./schemas/error-schemas";
import type { runEventSchema, storedEventSchema } from "./schemas/streams/event-schemas";
import type { runViewSchema } from "./schemas/runs/run-view-schemas";
import type { messageAnswerSchema } from "./schemas/person/message-answer-schemas";
import type { toolRefSchema } from "./schemas/tools/tool-schemas";
import type * as Loop from "../loop/types";
import type * as Api from "./types";

type Assignable<From, To> = [From] extends [To] ? true : false;
type Check<T extends true> = T;

export type SchemaChecks = [
  Check<Assignable<z.infer<typeof contentSchema>, Loop.Content>>,
  Check<Assignable<z.infer<typeof chatMessageSchema>, Loop.ChatMessage>>,
  // Loop.ChatMessage → input holds for messages whose images are JPEG, PNG, GIF or WebP (the only ones a run takes).
  Check<Assignable<Omit<Loop.UserMessage, "content"> & { content: string }, z.input<typeof chatMessageInputSchema>>>,
  Check<Assignable<z.infer<typeof toolRefSchema>, Api.ToolRef>>,
  Check<Assignable<Api.ToolRef, z.infer<typeof toolRefSchema>>>,
  Check<Assignable<z.infer<typeof runViewSchema>, Api.RunView>>,
  Check<Assignable<Api.RunView, z.infer<typeof runViewSchema>>>,
  Check<Assignable<z.infer<typeof messageAnswerSchema>, Api.MessageAnswer>>,
  Check<Assignable<Api.MessageAnswer, z.infer<typeof messageAnswerSchema>>>,
  // A request's tools may name a stored agent (ToolRefInput); the stored body's are resolved (ToolRef).
  Check<Assignable<Omit<CreateRunInput, "messages" | "tools">, Omit<Api.CreateRunBody, "messages" | "tools">>>,
  Check<Assignable<NonNullable<CreateRunInput["tools"]>, Api.ToolRefInput[]>>,
  Check<Assignable<Api.ToolRefInput[], NonNullable<CreateRunInput["tools"]>>>,
  Check<Assignable<Omit<AnswerInput, "content" | "results">, Omit<Api.AnswerBody, "content" | "results">>>,
  Check<Assignable<z.infer<typeof runEventSchema>, Api.RunEvent>>,
  Check<Assignable<Api.RunEvent, z.infer<typeof runEventSchema>>>,
  Check<Assignable<z.infer<typeof storedEventSchema>, Api.StoredEvent>>,
  Check<Assignable<z.infer<typeof errorBodySchema>["error"], ErrorDetail>>,
  Check<Assignable<CallResultInput, Api.CallResultBody>>,
  Check<Assignable<Api.CallResultBody, CallResultInput>>,
  Check<Assignable<z.infer<typeof callResultAcceptedSchema>, Api.CallResultAccepted>>,
];
