// Values this project publishes for local runs (.dev.vars.example, the tests). A deployed Worker
// refuses to serve with any of them: they are in every clone of the repository.

/** The tag key of run ids when a local run sets no RUN_ID_KEY. Changing it makes local runs' ids unknown. */
export const PUBLIC_RUN_ID_KEY = "ratchet/run-id/v1";

export const LOCAL_API_TOKEN = "dev-token";
export const LOCAL_RUN_ID_KEY = "local-run-id-key-not-for-deployments";

export const LOCAL_TOOL_SIGNING_KEY = "whsec_ajF7b9dcN1uKcHSdI59a+xS+GMCE1fU6DV4vHRU78/k=";

export const LOCAL_WEBHOOK_SECRET = "whsec_RaKOVcBUxvnfu5tPrk1QqOQn+N6SgWX9RzOWDmst3d0=";

/** The VAPID pair of .dev.vars.example: Web Push for local runs. A deployed Worker refuses the private key. */
export const LOCAL_VAPID_PUBLIC_KEY = "BOoPa1H4R-4bgwD8d1E1H7U-R6pvDSabMzeWt-RnyJszKFAaV39dgOSfxdc8VQYGzBwfuUWq8yFwrZBxRK8xA2s";
export const LOCAL_VAPID_PRIVATE_KEY = "6t7vDjrSuf76dN9GV7MVf5GEGv8EcxNEEEpxdW4SA7g";

export const KNOWN_DEFAULTS: ReadonlySet<string> = new Set([LOCAL_API_TOKEN, LOCAL_RUN_ID_KEY, PUBLIC_RUN_ID_KEY, LOCAL_TOOL_SIGNING_KEY, LOCAL_WEBHOOK_SECRET, LOCAL_VAPID_PRIVATE_KEY]);
