// The control routes both fake vendor servers answer (`/__control/*`, see
// test/e2e/support/fake-vendor.ts), as the workerd tests call them. Each fake's client.ts names
// them for its vendor.
export type VendorControl<Turn, Config, Recorded> = {
  /** The answers for `model`, one turn per assistant message in the request. */
  script(model: string, turns: Turn[]): Promise<void>;
  configure(model: string, config: Config): Promise<void>;
  /** Moves `model`'s cache clock. */
  advanceClock(model: string, advanceMs: number): Promise<void>;
  /** Every request `model` received. */
  recorded(model: string): Promise<Recorded[]>;
  /** The model's requests once it received `requests` of them (default 1), `aborted` of them aborted by the client (default 0); fails after 20 s. */
  requestsWhen(model: string, wanted: { requests?: number; aborted?: number }): Promise<Recorded[]>;
  /** Live cache entries of `model`. */
  cacheEntries(model: string): Promise<number>;
};

/** `name` says which fake in error messages; `origin()` is its scheme, host and port. */
export function vendorControl<Turn, Config, Recorded>(name: string, origin: () => string): VendorControl<Turn, Config, Recorded> {
  const post = async (path: string, body: unknown): Promise<void> => {
    const response = await fetch(`${origin()}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`fake ${name} ${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const get = (path: string, model: string, query = "") => fetch(`${origin()}${path}?model=${encodeURIComponent(model)}${query}`);
  return {
    script: (model, turns) => post("/__control/script", { model, turns }),
    configure: (model, config) => post("/__control/config", { model, ...config }),
    advanceClock: (model, advanceMs) => post("/__control/clock", { model, advanceMs }),
    recorded: async (model) => (await (await get("/__control/requests", model)).json()) as Recorded[],
    requestsWhen: async (model, { requests = 1, aborted = 0 }) => {
      const response = await get("/__control/wait", model, `&requests=${requests}&aborted=${aborted}`);
      if (response.status !== 200) throw new Error(`fake ${name}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Recorded[];
    },
    cacheEntries: async (model) => ((await (await get("/__control/cache", model)).json()) as { entries: number }).entries,
  };
}
