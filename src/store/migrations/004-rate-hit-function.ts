import type { DialectMigration } from "./migration.js";

/**
 * Creates nothing. It once created `ftcapi_rate_hit`, a one-call-per-request counting function on
 * PostgreSQL that leased counting (`ftcapi_rate_lease`, migration 007) replaced; nothing calls it.
 * The name stays so that databases which recorded it keep a consistent history; migration
 * `009-drop-unused` drops the function where an earlier version created it.
 */
export const rateHitFunction: DialectMigration = () => ({
  async up() {},
});
