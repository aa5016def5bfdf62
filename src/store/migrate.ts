import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { HOURLY_DIMENSIONS, SECONDS_PER_HOUR } from "./complaint-dimensions.js";
import { createSecondaryIndexStatements } from "./complaint-indexes.js";
import type { Database } from "./database.js";

type Dialect = Database["dialect"];

/**
 * The schema's history. Each migration may differ by dialect where the engines do (SQLite's
 * WITHOUT ROWID tables, PostgreSQL's identity columns and byte-order collation); the tables,
 * columns and indexes are the same on both.
 */
function migrationsFor(dialect: Dialect): Record<string, Migration> {
  const sqlite = dialect === "sqlite";
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(sqlite ? "without rowid" : "");
  /** Seconds since the epoch; 64-bit on PostgreSQL, whose integer is 32-bit. */
  const seconds = sqlite ? "integer" : "bigint";
  /** Ids compare byte by byte on both engines, so both order pages the same way. */
  const bytewise = sql.raw(sqlite ? "" : 'collate "C"');
  return {
    "001-complaints-keys-settings": {
      async up(db: Kysely<unknown>) {
        // WITHOUT ROWID: rows are kept in (created_at, id) order, the API's order, and every
        // secondary index ends in that key, so pages in any filter come straight off an index.
        await db.schema
          .createTable("complaints")
          .addColumn("created_at", seconds, (col) => col.notNull())
          .addColumn("id", "text", (col) => col.notNull().modifyEnd(bytewise))
          .addColumn("violation_at", seconds, (col) => col.notNull())
          .addColumn("phone", "text", (col) => col.notNull())
          .addColumn("city", "text", (col) => col.notNull())
          .addColumn("state", "text", (col) => col.notNull())
          .addColumn("area_code", "text", (col) => col.notNull())
          .addColumn("subject", "text", (col) => col.notNull())
          .addColumn("robocall", "text", (col) => col.notNull())
          .addColumn("state_key", "text", (col) => col.notNull())
          .addColumn("city_key", "text", (col) => col.notNull())
          .addPrimaryKeyConstraint("complaints_pk", ["created_at", "id"])
          .modifyEnd(clustered)
          .execute();
        await db.schema.createIndex("complaints_id").unique().on("complaints").column("id").execute();
        for (const statement of createSecondaryIndexStatements(db)) await sql.raw(statement).execute(db);

        await db.schema
          .createTable("complaint_counts")
          .addColumn("dimension", "text", (col) => col.notNull())
          .addColumn("value", "text", (col) => col.notNull())
          .addColumn("day", "integer", (col) => col.notNull())
          .addColumn("count", "integer", (col) => col.notNull())
          .addPrimaryKeyConstraint("complaint_counts_pk", ["dimension", "value", "day"])
          .modifyEnd(clustered)
          .execute();

        await db.schema
          .createTable("api_keys")
          .addColumn("id", sqlite ? "integer" : "serial", (col) =>
            sqlite ? col.primaryKey().autoIncrement() : col.primaryKey(),
          )
          .addColumn("prefix", "text", (col) => col.notNull())
          .addColumn("hash", "text", (col) => col.notNull().unique())
          .addColumn("email", "text", (col) => col.notNull())
          .addColumn("first_name", "text", (col) => col.notNull().defaultTo(""))
          .addColumn("last_name", "text", (col) => col.notNull().defaultTo(""))
          .addColumn("use_text", "text", (col) => col.notNull().defaultTo(""))
          .addColumn("status", "text", (col) => col.notNull().defaultTo("active"))
          .addColumn("limit_per_hour", "integer")
          .addColumn("unlimited", "integer", (col) => col.notNull().defaultTo(0))
          .addColumn("created_at", seconds, (col) => col.notNull())
          .addColumn("last_used_at", seconds)
          .execute();
        await db.schema.createIndex("api_keys_prefix").on("api_keys").column("prefix").execute();

        // Rolling-window rate limits: hits per subject (a key, or an address for DEMO_KEY and
        // sign-up) per bucket of a fraction of the window; shared by every process on the database.
        // On SQLite they live in the counter file (src/store/counter-file.ts), which has its own
        // schema history; databases made before that keep unused copies here.
        if (!sqlite) await createCounterTables(db);

        await db.schema
          .createTable("settings")
          .addColumn("name", "text", (col) => col.primaryKey())
          .addColumn("value", "text", (col) => col.notNull())
          .execute();
      },
    },
    "002-notices": {
      async up(db: Kysely<unknown>) {
        // Text compares byte by byte on both engines (lower() on both sides makes filters
        // case-insensitive), so the two order pages the same way.
        await db.schema
          .createTable("notices")
          .addColumn("id", "text", (col) => col.primaryKey().modifyEnd(bytewise))
          .addColumn("revision", "integer", (col) => col.notNull())
          .addColumn("title", "text", (col) => col.notNull().modifyEnd(bytewise))
          .addColumn("transaction_number", "text", (col) => col.notNull().modifyEnd(bytewise))
          .addColumn("acquiring_party", "text", (col) => col.modifyEnd(bytewise))
          .addColumn("acquired_party", "text", (col) => col.modifyEnd(bytewise))
          .addColumn("date", "text", (col) => col.modifyEnd(bytewise))
          .addColumn("created_at", seconds, (col) => col.notNull())
          .addColumn("updated_at", seconds, (col) => col.notNull())
          .addColumn("content_digest", "text", (col) => col.notNull())
          .execute();
        // The default order (newest first) and the orders clients page in come off these indexes.
        await db.schema.createIndex("notices_created").on("notices").columns(["created_at", "id"]).execute();
        await db.schema.createIndex("notices_updated").on("notices").columns(["updated_at", "id"]).execute();
        await db.schema.createIndex("notices_date").on("notices").columns(["date", "id"]).execute();
        // Text filters compare lower(column): these serve equality on the transaction number and
        // the title order.
        await db.schema
          .createIndex("notices_transaction_number")
          .on("notices")
          .expression(sql`lower(transaction_number)`)
          .execute();
        await db.schema
          .createIndex("notices_title")
          .on("notices")
          .expression(sql`lower(title), id`)
          .execute();

        await db.schema
          .createTable("notice_values")
          .addColumn("notice_id", "text", (col) => col.notNull().modifyEnd(bytewise))
          .addColumn("field", "text", (col) => col.notNull())
          .addColumn("position", "integer", (col) => col.notNull())
          .addColumn("value", "text", (col) => col.notNull().modifyEnd(bytewise))
          .addPrimaryKeyConstraint("notice_values_pk", ["notice_id", "field", "position"])
          .modifyEnd(clustered)
          .execute();
        await db.schema
          .createIndex("notice_values_field_value")
          .on("notice_values")
          .columns(["field", "value"])
          .execute();
      },
    },
    // Independent of other migrations after 001: freshness of each collection, and mirror progress.
    "003-mirror-state": {
      async up(db: Kysely<unknown>) {
        // When each collection's content last changed (an import or mirror commit that added
        // records), read by every process for Last-Modified and /v0/status.
        await db.schema
          .createTable("collection_updates")
          .addColumn("collection", "text", (col) => col.primaryKey())
          .addColumn("updated_at", seconds, (col) => col.notNull())
          .execute();
        // Per upstream and collection: the last created day copied for good (complaints), or a
        // collection's own resume point as text (notices: a created time), and when a run last finished.
        await db.schema
          .createTable("mirror_state")
          .addColumn("upstream", "text", (col) => col.notNull())
          .addColumn("collection", "text", (col) => col.notNull())
          .addColumn("complete_through_day", "integer")
          .addColumn("cursor", "text")
          .addColumn("checked_at", seconds)
          .addPrimaryKeyConstraint("mirror_state_pk", ["upstream", "collection"])
          .execute();
      },
    },
    "004-rate-hit-function": {
      // One round trip per counted request on PostgreSQL: the per-subject lock is held for the
      // function's few statements instead of across several client round trips, so one busy key
      // does not serialise its requests on network latency. SQLite needs nothing: it runs in-process.
      async up(db: Kysely<unknown>) {
        if (sqlite) return;
        await sql.raw(RATE_HIT_FUNCTION).execute(db);
      },
    },
    "005-hour-counts": {
      // The dimensions with many complaints a day are also counted per hour, so that a deep offset
      // is placed within an hour and a range given with times is cut at hours: what is left to
      // skip or count on rows is one hour's complaints, not one day's (docs/query-design.md).
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("complaint_hour_counts")
          .addColumn("dimension", "text", (col) => col.notNull())
          .addColumn("value", "text", (col) => col.notNull())
          .addColumn("hour", "integer", (col) => col.notNull())
          .addColumn("count", "integer", (col) => col.notNull())
          .addPrimaryKeyConstraint("complaint_hour_counts_pk", ["dimension", "value", "hour"])
          .modifyEnd(clustered)
          .execute();
        const hour = (column: string) => `${column} / ${SECONDS_PER_HOUR}`;
        const parts = HOURLY_DIMENSIONS.map(({ name, value, column }) => {
          const valueColumn = value ?? "''";
          return `select '${name}', ${valueColumn}, ${hour(column)}, count(*) from complaints
            group by ${value ? `${value}, ` : ""}${hour(column)}`;
        });
        await sql
          .raw(
            `insert into complaint_hour_counts (dimension, value, hour, count) ${parts.join(" union all ")}`,
          )
          .execute(db);
      },
    },
    "006-notice-search": {
      async up(db: Kysely<unknown>) {
        await createNoticeOrderIndexes(db);
        await createNoticeVersion(db, dialect);
        if (!sqlite) await createNoticeTrigramIndexes(db);
      },
    },
    "007-rate-lease-function": {
      // Leased counting (src/access/rate-limiter.ts): a process takes several hits in one call and
      // hands back those it did not use. SQLite needs nothing: it runs in-process.
      async up(db: Kysely<unknown>) {
        if (sqlite) return;
        await sql.raw(RATE_LEASE_FUNCTION).execute(db);
      },
    },
  };
}

/**
 * Indexes in the exact order the store sorts notices by (absent values last ascending, first
 * descending, ties by id), so a page at any offset of these orders is read off an index, forwards
 * or backwards, instead of sorting the table.
 */
async function createNoticeOrderIndexes(db: Kysely<unknown>): Promise<void> {
  const orders: Array<[string, string]> = [
    ["notices_date_order", "(date is null), date, id"],
    ["notices_acquiring_party_order", "(acquiring_party is null), lower(acquiring_party), id"],
    ["notices_acquired_party_order", "(acquired_party is null), lower(acquired_party), id"],
    ["notices_transaction_number_order", "lower(transaction_number), id"],
  ];
  for (const [name, expression] of orders)
    await db.schema.createIndex(name).on("notices").expression(sql.raw(expression)).execute();
}

/**
 * PostgreSQL: `notice_version` and the statement triggers that increase it on every change to the
 * notices, so the store can keep exact totals per filter until the next change.
 */
async function createNoticeVersion(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // SQLite needs no table: its store reads `PRAGMA data_version`, which costs nothing per row
  // written (a row trigger made importing the demo notices several times slower).
  if (dialect === "sqlite") return;
  await db.schema
    .createTable("notice_version")
    .addColumn("id", "integer", (col) => col.primaryKey().check(sql`id = 1`))
    .addColumn("version", "bigint", (col) => col.notNull())
    .execute();
  await sql.raw("insert into notice_version (id, version) values (1, 1)").execute(db);
  const bump = "update notice_version set version = version + 1 where id = 1";
  await sql
    .raw(`create function ftcapi_notice_version_bump() returns trigger language plpgsql as $$
begin
  ${bump};
  return null;
end
$$`)
    .execute(db);
  for (const table of ["notices", "notice_values"])
    await sql
      .raw(
        `create trigger ${table}_version after insert or update or delete or truncate on ${table} for each statement execute function ftcapi_notice_version_bump()`,
      )
      .execute(db);
}

/**
 * PostgreSQL: trigram GIN indexes (pg_trgm, part of PostgreSQL's own distribution) on the lowered
 * text fields and list values, which serve the store's `lower(column) like ...` conditions as they
 * are. Where the extension is not available to this database's owner (a server built without it),
 * the indexes are left out: the same queries give the same answers, only by scanning.
 */
async function createNoticeTrigramIndexes(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ usable: boolean }>`
    select exists (select 1 from pg_available_extensions where name = 'pg_trgm')
      and (exists (select 1 from pg_extension where extname = 'pg_trgm')
        or has_database_privilege(current_database(), 'CREATE')) as usable`.execute(db);
  if (!rows[0]?.usable) return;
  await sql.raw("create extension if not exists pg_trgm").execute(db);
  const indexes: Array<[string, string, string]> = [
    ["notices_title_trigrams", "notices", "lower(title)"],
    ["notices_transaction_number_trigrams", "notices", "lower(transaction_number)"],
    ["notices_acquiring_party_trigrams", "notices", "lower(acquiring_party)"],
    ["notices_acquired_party_trigrams", "notices", "lower(acquired_party)"],
    ["notice_values_value_trigrams", "notice_values", "lower(value)"],
  ];
  for (const [name, table, expression] of indexes)
    await sql.raw(`create index ${name} on ${table} using gin (${expression} gin_trgm_ops)`).execute(db);
}

/** `rate_buckets` and `key_usage` in the main database (PostgreSQL). */
async function createCounterTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("rate_buckets")
    .addColumn("subject", "text", (col) => col.notNull())
    .addColumn("bucket", "bigint", (col) => col.notNull())
    .addColumn("count", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("rate_buckets_pk", ["subject", "bucket"])
    .execute();
  await db.schema
    .createTable("key_usage")
    .addColumn("key_id", "integer", (col) => col.notNull())
    .addColumn("hour", "bigint", (col) => col.notNull())
    .addColumn("count", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("key_usage_pk", ["key_id", "hour"])
    .execute();
}

/**
 * `ftcapi_rate_hit`: atomically checks every window and, only when all have room, counts the hit
 * (and the key's hourly usage). Locks are taken per subject in sorted order, so concurrent hits
 * never wait on each other in a cycle. Returns whether the hit was allowed and, per window, the
 * hits used (this one included when allowed) and the oldest counted bucket.
 */
const RATE_HIT_FUNCTION = `
create or replace function ftcapi_rate_hit(
  subjects text[], limits bigint[], window_seconds bigint[], buckets bigint[],
  usage_key_id integer, usage_hour bigint
) returns table (allowed boolean, used bigint[], oldest bigint[])
language plpgsql as $$
declare
  subject_name text;
  position integer;
  total bigint;
  first_bucket bigint;
  room boolean := true;
  used_list bigint[] := '{}';
  oldest_list bigint[] := '{}';
begin
  for subject_name in select distinct value from unnest(subjects) as value order by value loop
    perform pg_advisory_xact_lock(hashtextextended(subject_name, 0));
  end loop;
  for position in 1 .. coalesce(array_length(subjects, 1), 0) loop
    select coalesce(sum(rate_buckets.count), 0), min(rate_buckets.bucket) into total, first_bucket
      from rate_buckets
      where rate_buckets.subject = subjects[position]
        and rate_buckets.bucket > buckets[position] - window_seconds[position]
        and rate_buckets.bucket <= buckets[position];
    if total >= limits[position] then room := false; end if;
    used_list := used_list || total;
    oldest_list := oldest_list || coalesce(first_bucket, buckets[position]);
  end loop;
  if room then
    for position in 1 .. coalesce(array_length(subjects, 1), 0) loop
      insert into rate_buckets (subject, bucket, count) values (subjects[position], buckets[position], 1)
        on conflict (subject, bucket) do update set count = rate_buckets.count + 1;
      used_list[position] := used_list[position] + 1;
    end loop;
    if usage_key_id is not null then
      insert into key_usage (key_id, hour, count) values (usage_key_id, usage_hour, 1)
        on conflict (key_id, hour) do update set count = key_usage.count + 1;
    end if;
  end if;
  return query select room, used_list, oldest_list;
end
$$`;

/**
 * `ftcapi_rate_lease`: hands the returned hits back to their buckets, then atomically checks every
 * window and takes `least(max_hits, ceil(room * room_share))` hits in each, where room is what the
 * fullest window has left; none when a window is full. Locks are taken per subject in sorted order,
 * so concurrent leases never wait on each other in a cycle. Returns the hits granted and, per
 * window, the hits used (the granted included) and the oldest bucket with hits.
 */
const RATE_LEASE_FUNCTION = `
create or replace function ftcapi_rate_lease(
  subjects text[], limits bigint[], window_seconds bigint[], buckets bigint[],
  max_hits bigint, room_share double precision,
  returned_subjects text[], returned_buckets bigint[], returned_hits bigint[]
) returns table (granted bigint, used bigint[], oldest bigint[])
language plpgsql as $$
declare
  subject_name text;
  position integer;
  total bigint;
  first_bucket bigint;
  room bigint := null;
  taken bigint := 0;
  used_list bigint[] := '{}';
  oldest_list bigint[] := '{}';
begin
  for subject_name in select distinct value from unnest(subjects) as value order by value loop
    perform pg_advisory_xact_lock(hashtextextended(subject_name, 0));
  end loop;
  update rate_buckets set count = greatest(rate_buckets.count - back.hits, 0)
    from unnest(returned_subjects, returned_buckets, returned_hits) as back(subject, bucket, hits)
    where rate_buckets.subject = back.subject and rate_buckets.bucket = back.bucket;
  for position in 1 .. coalesce(array_length(subjects, 1), 0) loop
    select coalesce(sum(rate_buckets.count), 0), min(rate_buckets.bucket) into total, first_bucket
      from rate_buckets
      where rate_buckets.subject = subjects[position]
        and rate_buckets.bucket > buckets[position] - window_seconds[position]
        and rate_buckets.bucket <= buckets[position]
        and rate_buckets.count > 0;
    room := least(coalesce(room, limits[position] - total), limits[position] - total);
    used_list := used_list || total;
    oldest_list := oldest_list || coalesce(first_bucket, buckets[position]);
  end loop;
  if room is not null and room > 0 then
    taken := greatest(1, least(max_hits, ceil(room * room_share)::bigint));
    for position in 1 .. coalesce(array_length(subjects, 1), 0) loop
      insert into rate_buckets (subject, bucket, count) values (subjects[position], buckets[position], taken)
        on conflict (subject, bucket) do update set count = rate_buckets.count + taken;
      used_list[position] := used_list[position] + taken;
    end loop;
  end if;
  return query select taken, used_list, oldest_list;
end
$$`;

/** Brings the schema up to date; safe to run at every start and from several processes. */
export async function migrate(database: Database): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(database.dialect) };
  // Migrations are independent of one another, so one added on a branch that sorts before an
  // already applied one still runs.
  const migrator = new Migrator({ db: database.db, provider, allowUnorderedMigrations: true });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
  // The SQLite counter file: created and brought up to date on opening.
  if (database.dialect === "sqlite") database.counters();
}
