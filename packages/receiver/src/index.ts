// The Node entry: everything of the runtime-neutral `./fetch` entry, plus the node:http/Express
// middleware and the synchronous verifier. The Koa router and middleware are `./koa`'s, so this
// entry loads and type-checks without Koa installed.

export {
  createNodeMiddleware,
  type NodeAdapterOptions,
  type NodeMiddleware,
  type NodeMiddlewareOptions,
} from "./create-node-middleware.js";
export { createVerifier, type Verifier, type VerifyFunction, type VerifyResult } from "./create-verifier.js";
export * from "./fetch.js";
