/** A value the Node build computes at once and the Web Crypto build as a promise. */
export type Maybe<T> = T | Promise<T>;

/**
 * `fn(value)`, at once when `value` is plain, after it settles when it is a promise. This is what
 * lets one signing and verifying implementation serve a synchronous backend (node:crypto) without a
 * promise per call and an asynchronous one (SubtleCrypto).
 */
export function settle<T, R>(value: Maybe<T>, fn: (value: T) => R): Maybe<R> {
  return value instanceof Promise ? (value.then(fn) as Promise<R>) : fn(value);
}

/** `fn(values)` once every value is plain: at once when none is a promise. */
export function settleAll<T, R>(values: readonly Maybe<T>[], fn: (values: T[]) => R): Maybe<R> {
  for (const value of values) {
    if (value instanceof Promise) return Promise.all(values).then(fn) as Promise<R>;
  }
  return fn(values as T[]);
}
