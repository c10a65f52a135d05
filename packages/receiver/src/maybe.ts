/** A value computed at once on node:crypto and as a promise on Web Crypto. */
export type Maybe<T> = T | Promise<T>;
