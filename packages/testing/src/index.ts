export { getFreePort } from "./get-free-port.js";
export { startPostgres, type TestPostgres } from "./start-postgres.js";
