// "Notify me": Web Push for the person whose inbox is open (docs/push.md). It asks the browser's
// permission, subscribes this browser's push service with the deployment's VAPID key, hands the
// subscription to the API with the user token, and says where things stand. The user token is
// then remembered on this device (localStorage), so that a notification tapped with the console
// closed opens the run it is about; "Stop notifications" forgets it.
import { RatchetError, type RatchetClient } from "@ratchet/client";
import { byId } from "./dom";

const REMEMBERED = "ratchet:push-user-token";

/** The user token remembered for opening runs from notifications, if any. */
export function rememberedUserToken(): string | null {
  return localStorage.getItem(REMEMBERED);
}

function supported(): boolean {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The console's service worker, registered once (main.ts) for the app's shell and for notifications. */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration> | undefined {
  if (!("serviceWorker" in navigator)) return undefined;
  return navigator.serviceWorker.register("sw.js", { scope: "./" });
}

/** base64url → bytes, for applicationServerKey. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export class PushControl {
  private readonly button = byId("notify-button", HTMLButtonElement);
  private readonly state = byId("notify-state", HTMLParagraphElement);
  private client: RatchetClient | undefined;
  private token = "";
  private on = false;

  constructor() {
    this.button.addEventListener("click", () => void (this.on ? this.stop() : this.start()));
  }

  /** The inbox of `token` opened: shows whether this browser rings for it. */
  async open(client: RatchetClient, token: string): Promise<void> {
    this.client = client;
    this.token = token;
    if (!supported()) return this.show("Notifications: this browser cannot show them for a closed page (on iPhone and iPad, add the console to the Home Screen first).", { disabled: true });
    if (Notification.permission === "denied") return this.show("Notifications are blocked for this site: allow them in the browser's settings.", { disabled: true });
    const registration = await navigator.serviceWorker.ready;
    const subscription = await registration.pushManager.getSubscription();
    const listed = subscription === null ? [] : await client.listPushSubscriptions().catch(() => []);
    const mine = subscription !== null && listed.some((item) => item.endpoint === subscription.endpoint);
    this.setOn(mine);
  }

  private async start(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    this.show("Asking the browser…", { disabled: true });
    try {
      if ((await Notification.requestPermission()) !== "granted") return this.show("Notifications were not allowed: allow them for this site to be told when a run waits.", { disabled: false });
      const publicKey = await client.pushKey();
      const registration = await navigator.serviceWorker.ready;
      const existing = await registration.pushManager.getSubscription();
      const subscription = existing ?? (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
      const json = subscription.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
      await client.subscribePush({ endpoint: json.endpoint, keys: json.keys });
      localStorage.setItem(REMEMBERED, this.token);
      this.setOn(true);
    } catch (error) {
      this.show(`Notifications could not be turned on: ${describe(error)}`, { disabled: false });
    }
  }

  private async stop(): Promise<void> {
    this.show("Turning notifications off…", { disabled: true });
    try {
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.getSubscription();
      if (subscription !== null) {
        await this.client?.unsubscribePush(subscription.endpoint).catch((error: unknown) => {
          if (!(error instanceof RatchetError && error.status === 404)) throw error;
        });
        await subscription.unsubscribe();
      }
      localStorage.removeItem(REMEMBERED);
      this.setOn(false);
    } catch (error) {
      this.show(`Notifications could not be turned off: ${describe(error)}`, { disabled: false });
    }
  }

  private setOn(on: boolean): void {
    this.on = on;
    this.button.textContent = on ? "Stop notifications" : "Notify me";
    this.show(on ? "Notifications: on. This browser rings when a run waits for you." : "Notifications: off. This browser can ring when a run waits for you, even with the console closed.", { disabled: false });
  }

  private show(text: string, { disabled }: { disabled: boolean }): void {
    this.state.textContent = text;
    this.button.disabled = disabled;
  }
}

function describe(error: unknown): string {
  if (error instanceof RatchetError && error.code === "not-configured") return "Web Push is off on this server (its VAPID settings).";
  return error instanceof Error ? error.message : String(error);
}
