// The Standard Webhooks secret of the test Worker (vitest.config.ts binds it as WEBHOOK_SECRET)
// and of the receiver that verifies its webhooks (global-setup.ts). Public: never use it anywhere
// else.
export const TEST_WEBHOOK_SECRET = "whsec_RFqqU6lR8DPOnBQMam+BNUFFE+kpPF+OKulSzRWIZII=";
