// The body the transport POSTs: the transport's own fields, but only the last message. Ratchet
// keeps the run's history itself and reads only the last message of a chat request (a new user
// message, or the assistant message that carries a tool output or an approval), so sending the
// whole list would only move a long chat towards the body limit.

/** The fields of a chat request that the endpoint reads, besides anything the app adds in `body`. */
export type ChatRequestFields<Message> = {
  id: string;
  messages: Message[];
  trigger: "submit-message" | "regenerate-message";
  messageId: string | undefined;
  body: object | undefined;
};

export function lastMessageBody<Message>({ id, messages, trigger, messageId, body }: ChatRequestFields<Message>): Record<string, unknown> {
  return { ...body, id, messages: messages.slice(-1), trigger, ...(messageId === undefined ? {} : { messageId }) };
}
