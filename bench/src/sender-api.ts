// The slice of @plant-store/sender the bench drives, loaded at run time: a scenario whose
// library is missing or changed reports "skipped: <reason>" instead of breaking the whole build.
import type * as Sender from "@plant-store/sender";
import type * as SenderPostgres from "@plant-store/sender/postgres";
import type * as SenderSqlite from "@plant-store/sender/sqlite";

/** The outbox the bench fills and drains: the package's own type. */
export type BenchOutbox = Sender.Outbox;
export type BenchWorker = Sender.Worker;

/** The package's entry points, as the bench loads them. */
export type SenderApi = typeof Sender & typeof SenderSqlite & typeof SenderPostgres;

export class SenderUnavailableError extends Error {
  readonly code = "ERR_SENDER_UNAVAILABLE";
  override readonly name = "SenderUnavailableError";
}

/** Loads the sender library, or throws `SenderUnavailableError` naming what is missing. */
export async function loadSenderApi(): Promise<SenderApi> {
  // Specifiers in variables, so neither tsc nor tsup needs the package to be built already.
  const specifiers = ["@plant-store/sender", "@plant-store/sender/sqlite", "@plant-store/sender/postgres"];
  const modules: Record<string, unknown>[] = [];
  for (const specifier of specifiers) {
    try {
      modules.push((await import(specifier)) as Record<string, unknown>);
    } catch (error) {
      throw new SenderUnavailableError(
        `${specifier} not loadable: ${(error as Error).message.split("\n")[0]}`,
      );
    }
  }
  const api = Object.assign({}, ...modules) as Record<string, unknown>;
  const wanted = [
    "createSqliteOutbox",
    "createPostgresOutbox",
    "createWorker",
    "createSsrfGuard",
    "createDeliveryClient",
  ];
  const missing = wanted.filter((name) => typeof api[name] !== "function");
  if (missing.length > 0)
    throw new SenderUnavailableError(`@plant-store/sender does not export ${missing.join(", ")}`);
  return api as unknown as SenderApi;
}

/** The reason the sender cannot be benchmarked, or `undefined` when it can. */
export async function senderUnavailableReason(): Promise<string | undefined> {
  try {
    await loadSenderApi();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
