import { EventEmitter } from "node:events";
import type { WebhookCatalog } from "@plant-store/types";
import type { EventMap } from "../outbox.js";
import type { OutboxOptions } from "../outbox-options.js";
import { createSecretCodec } from "../secrets/create-secret-codec.js";
import { createOutbox, type JoinableOutbox } from "./create-outbox.js";
import type { Dialect } from "./dialect.js";
import type { Driver } from "./driver.js";
import type { Step } from "./operation.js";
import { param, render, type Sql } from "./sql.js";

/**
 * What one database gives the outbox, and only that: how it runs an operation (`Driver`), its own clock,
 * how it hears of work that other processes add, and how it closes. `createDatabaseOutbox` makes the rest.
 */
export interface Database<Join> extends Omit<Driver<Join>, "now" | "onWork" | "close"> {
  /** The store's time for one operation when the outbox was given no `now`. */
  ownNow(): Sql;
  /** Someone listens for work (the first `onWork`): start telling of what other processes add. */
  listen(notify: () => void): void;
  /** The last listener left. */
  unlisten(): void;
  close(): Promise<void>;
}

/** How a database answers an operation's steps: runs a rendered statement, wakes the workers, reuses plans. */
export interface StepRunner<Answer> {
  readonly dialect: Dialect;
  query(text: string, values: unknown[], kind: "rows" | "count"): Answer;
  wake(): Answer;
  reusePlans(): Answer;
}

/** Answers one step of an operation: its statement rendered in the database's dialect, or its request. */
export function runStep<Answer>(step: Step, runner: StepRunner<Answer>): Answer {
  if (step.kind === "wake") return runner.wake();
  if (step.kind === "reuse-plans") return runner.reusePlans();
  const { text, values } = render(step.sql, runner.dialect);
  return runner.query(text, values, step.kind);
}

/**
 * The outbox over one database, the part both databases share: its clock (`now`, else the database's
 * own), the secrets codec, and the `onWork` listeners, whom the database tells of work through the
 * `notify` it is handed when the first one listens.
 */
export function createDatabaseOutbox<Join, Events extends EventMap>(
  database: Database<Join>,
  options: OutboxOptions<Events>,
): JoinableOutbox<Join> {
  const work = new EventEmitter();
  const notify = () => work.emit("work");
  const clock = options.now;
  const driver: Driver<Join> = {
    dialect: database.dialect,
    store: database.store,
    now: () => (clock ? param(clock(), "bigint") : database.ownNow()),
    transaction: (operation, join) => database.transaction(operation, join),
    statements: (operation, join) => database.statements(operation, join),
    read: (operation) => database.read(operation),
    onWork(listener) {
      work.on("work", listener);
      if (work.listenerCount("work") === 1) database.listen(notify);
      return () => {
        work.off("work", listener);
        if (work.listenerCount("work") === 0) database.unlisten();
      };
    },
    async close() {
      work.removeAllListeners();
      database.unlisten();
      await database.close();
    },
  };
  const catalog = options.catalog as WebhookCatalog | undefined;
  return createOutbox(driver, createSecretCodec(options.secretsCipher), catalog);
}
