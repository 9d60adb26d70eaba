// Step keys are a pure function of the history: the n-th model call of this run (1-based) and
// the call id. Calls left open by the given messages belong to turn 0.
export const stepKeys = {
  model: (n: number) => `model/${n}`,
  tool: (n: number, callId: string) => `tool/${n}/${callId}`,
  start: (n: number, callId: string) => `start/${n}/${callId}`,
  wait: (n: number, callId: string) => `wait/${n}/${callId}`,
  reply: (n: number, callId: string) => `reply/${n}/${callId}`,
  /** The k-th take of the person's messages before model call n (incoming.ts). */
  messages: (n: number, k: number) => `messages/${n}/${k}`,
  /** The loop guards' verdict on the turn of model call n (guards/loops/loop-check.ts). */
  loop: (n: number) => `loop/${n}`,
} as const;
