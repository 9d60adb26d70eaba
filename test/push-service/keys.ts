// The VAPID pair of the test Worker (vitest.config.ts binds it as VAPID_PUBLIC_KEY and
// VAPID_PRIVATE_KEY) and of the local push service that checks its pushes. Public: never use it
// anywhere else.
export const TEST_VAPID_PUBLIC_KEY = "BAqzhRvemSOmu7n6QOuizDzZrSGAMOIOZem5WCnwMaXmfoRjBfcsO4IF_TYs9JblT9eVS6OCT3xZeSobux_sZzk";
export const TEST_VAPID_PRIVATE_KEY = "Zg35qt2NbWYPcx17xk2A3o_Dm8OJXYDQcvxGEmlC8ks";
export const TEST_VAPID_SUBJECT = "mailto:push-tests@ratchet.test";
