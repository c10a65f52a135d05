export { createPostgresPortalCredentials } from "./portal/create-postgres-portal-credentials.js";
