import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * PostgreSQL: `ftcapi_rate_lease`, for leased counting (src/access/rate-limiter.ts): a process
 * takes several hits in one call and hands back those it did not use. SQLite needs nothing: it
 * runs in-process.
 */
export const rateLeaseFunction: DialectMigration = (dialect) => ({
  async up(db: Kysely<unknown>) {
    if (dialect === "sqlite") return;
    await sql.raw(RATE_LEASE_FUNCTION).execute(db);
  },
});

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
