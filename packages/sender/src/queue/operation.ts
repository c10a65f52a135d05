import type { Sql } from "./sql.js";

/**
 * One request an operation makes of its database: run a statement (`rows` answers its rows, `count` the
 * rows it changed), wake the workers once the transaction commits, or keep one plan per statement for
 * the rest of the transaction (`reuse-plans`).
 */
export type Step =
  | { readonly kind: "rows"; readonly sql: Sql }
  | { readonly kind: "count"; readonly sql: Sql }
  | { readonly kind: "wake" }
  | { readonly kind: "reuse-plans" };

/**
 * A database operation written once for both databases: a generator that yields the statements it
 * needs and is handed each one's answer. The SQLite driver runs it synchronously (inside the caller's
 * `db.transaction` when there is one), the PostgreSQL driver awaits each statement; neither the
 * operation nor its logic knows which. A statement that fails is thrown into the operation.
 */
export type Operation<R> = Generator<Step, R, unknown>;

/** Runs a statement and answers its rows. */
export function* rows<R>(statement: Sql): Operation<R[]> {
  return (yield { kind: "rows", sql: statement }) as R[];
}

/** Runs a statement and answers its first row, if any. */
export function* row<R>(statement: Sql): Operation<R | undefined> {
  return (yield* rows<R>(statement))[0];
}

/** Runs a statement that returns nothing and answers how many rows it changed. */
export function* count(statement: Sql): Operation<number> {
  return (yield { kind: "count", sql: statement }) as number;
}

/**
 * Wakes every worker once the transaction commits (PostgreSQL `NOTIFY`, delivered on commit; SQLite
 * tells this process's workers when the transaction has ended), never before: a worker woken early would
 * find nothing, or rows that are later rolled back.
 */
export function* wake(): Operation<void> {
  yield { kind: "wake" };
}

/**
 * For an operation that runs over and over with statements of the same shape (the worker's record and
 * claim): each statement keeps the plan made the first time for the rest of the transaction, instead of
 * being planned again for every call's values. On PostgreSQL, `SET LOCAL plan_cache_mode =
 * force_generic_plan`: left to choose, it re-planned the several-kB record-and-claim statement at every
 * call, which cost as much server CPU as running it. SQLite plans a statement once when it is prepared.
 */
export function* reusePlans(): Operation<void> {
  yield { kind: "reuse-plans" };
}

/**
 * Drives an operation to its end, `execute` answering each step as it comes (better-sqlite3, at once); a
 * step that throws is thrown into the operation, which may catch it.
 */
export function runOperationSync<R>(operation: Operation<R>, execute: (step: Step) => unknown): R {
  let step = operation.next();
  while (!step.done) {
    let answer: unknown;
    try {
      answer = execute(step.value);
    } catch (error) {
      step = operation.throw(error);
      continue;
    }
    step = operation.next(answer);
  }
  return step.value;
}

/** `runOperationSync` awaiting each answer (pg: one round trip per statement). */
export async function runOperationAsync<R>(
  operation: Operation<R>,
  execute: (step: Step) => Promise<unknown>,
): Promise<R> {
  let step = operation.next();
  while (!step.done) {
    let answer: unknown;
    try {
      answer = await execute(step.value);
    } catch (error) {
      step = operation.throw(error);
      continue;
    }
    step = operation.next(answer);
  }
  return step.value;
}
