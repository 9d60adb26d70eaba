/** The service version reported by GET /v1/health (kept in step with package.json). */
export const VERSION = "0.1.0";
