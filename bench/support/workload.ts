/**
 * The load benchmark's workload, as data: each shape is one kind of request a client makes (a
 * filter combination, a page deep in the results, one record by id). Adding a collection (the
 * notices) means adding its shapes to `SHAPES` and a sampler for its values: nothing else in
 * bench/load.ts knows what a complaint is.
 */

/** Values seen in the served data, from which the shapes draw their random parameters. */
export interface Samples {
  states: string[];
  /** [state, city] pairs that occur. */
  cities: Array<[string, string]>;
  areaCodes: string[];
  phones: string[];
  complaintIds: string[];
  /** First and last created day present, YYYY-MM-DD. */
  firstDay: string;
  lastDay: string;
}

export interface Shape {
  /** Short name, shown in the latency table. */
  name: string;
  /** The collection's path under the base URL. */
  path: string;
  /** Relative frequency in the mixed workload. */
  weight: number;
  /** Query parameters drawn from the samples, without offset. */
  parameters(samples: Samples, random: () => number): Record<string, string>;
  /**
   * How the page is chosen once the total is known: "start" (offset 0), "spread" (uniform up to
   * the total), "end" (one of the last 200 pages). Single-record shapes have none.
   */
  offset?: "start" | "spread" | "end";
}

const COMPLAINTS = "/v0/dnc-complaints";

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length)]!;
}

function dayWithin(samples: Samples, random: () => number): string {
  const first = Date.parse(samples.firstDay);
  const days = Math.round((Date.parse(samples.lastDay) - first) / 86_400_000);
  return new Date(first + Math.floor(random() * (days + 1)) * 86_400_000).toISOString().slice(0, 10);
}

function range(samples: Samples, random: () => number): [string, string] {
  const a = dayWithin(samples, random);
  const b = dayWithin(samples, random);
  return a <= b ? [a, b] : [b, a];
}

function timeOfDay(random: () => number): string {
  const seconds = Math.floor(random() * 86_400);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

const created = (samples: Samples, random: () => number) => {
  const [from, to] = range(samples, random);
  return { created_date_from: from, created_date_to: to };
};

/** Every documented filter combination of /v0/dnc-complaints, plus single records. */
export const SHAPES: Shape[] = [
  { name: "all", path: COMPLAINTS, weight: 2, offset: "spread", parameters: () => ({}) },
  { name: "all, near the end", path: COMPLAINTS, weight: 1, offset: "end", parameters: () => ({}) },
  {
    name: "created_date",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({ created_date: dayWithin(samples, random) }),
  },
  { name: "created range", path: COMPLAINTS, weight: 1, offset: "spread", parameters: created },
  {
    name: "created range with times",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [fromDay, toDay] = range(samples, random);
      const from = `${fromDay} ${timeOfDay(random)}`;
      const to = `${toDay} ${timeOfDay(random)}`;
      return from <= to
        ? { created_date_from: from, created_date_to: to }
        : { created_date_from: to, created_date_to: from };
    },
  },
  {
    name: "state",
    path: COMPLAINTS,
    weight: 3,
    offset: "spread",
    parameters: (samples, random) => ({ state: pick(samples.states, random) }),
  },
  {
    name: "state, created range",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({ state: pick(samples.states, random), ...created(samples, random) }),
  },
  {
    name: "state, city",
    path: COMPLAINTS,
    weight: 2,
    offset: "spread",
    parameters: (samples, random) => {
      const [state, city] = pick(samples.cities, random);
      return { state, city };
    },
  },
  {
    name: "state, city, created range",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [state, city] = pick(samples.cities, random);
      return { state, city, ...created(samples, random) };
    },
  },
  {
    name: "area_code",
    path: COMPLAINTS,
    weight: 2,
    offset: "spread",
    parameters: (samples, random) => ({ area_code: pick(samples.areaCodes, random) }),
  },
  {
    name: "area_code, created range",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({
      area_code: pick(samples.areaCodes, random),
      ...created(samples, random),
    }),
  },
  {
    name: "is_robocall",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (_samples, random) => ({ is_robocall: random() < 0.5 ? "true" : "false" }),
  },
  {
    name: "is_robocall, created range",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({
      is_robocall: random() < 0.5 ? "true" : "false",
      ...created(samples, random),
    }),
  },
  {
    name: "violation_date",
    path: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({ violation_date: dayWithin(samples, random) }),
  },
  {
    name: "violation range, first page",
    path: COMPLAINTS,
    weight: 1,
    offset: "start",
    parameters: (samples, random) => {
      const [from, to] = range(samples, random);
      return { violation_date_from: from, violation_date_to: to };
    },
  },
  {
    name: "company_phone_number",
    path: COMPLAINTS,
    weight: 2,
    offset: "spread",
    parameters: (samples, random) => ({ company_phone_number: pick(samples.phones, random) }),
  },
  {
    name: "one complaint by id",
    path: COMPLAINTS,
    weight: 3,
    parameters: () => ({}),
  },
];

/** The path of a single record for a shape without an offset. */
export function recordPath(shape: Shape, samples: Samples, random: () => number): string {
  return `${shape.path}/${pick(samples.complaintIds, random)}`;
}

/** A deterministic pseudo-random generator (mulberry32), so a workload can be rebuilt identically. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
