import type { SubscriberScope } from "@plant-store/sender";
import type { Context } from "koa";
import type { Principal } from "./principal.js";

/** The principal the bearer guard let in (`state.principal` is set only for a subscriber's credential). */
export function principalOf(ctx: Context): Principal {
  const principal = ctx.state.principal as Principal | undefined;
  return principal ?? { kind: "operator" };
}

/** The scope every outbox call of the request is made in: none for the operator. */
export function scopeOf(ctx: Context): SubscriberScope | undefined {
  const principal = principalOf(ctx);
  return principal.kind === "subscriber" ? { subscriberId: principal.subscriber.id } : undefined;
}
