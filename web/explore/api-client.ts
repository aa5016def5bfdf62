/** A refused or failed API request, with the gateway's or the API's error code and message. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The rate-limit headers of the last keyed answer. */
export interface RateInfo {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export type Parameters = Record<string, string | number | undefined>;

/** One group of a counts answer: the grouped fields' values, then `count`. */
export type CountGroup = Record<string, string> & { count: number };

export interface CountAnswer {
  data: CountGroup[];
  meta: { by: string[]; "record-total": number; "group-total": number; "groups-this-page": number };
}

/**
 * Reads the public API of this server (same origin) with the visitor's key, or DEMO_KEY, in the
 * `X-Api-Key` header (never in a URL). Answers are kept for the page's life, so that moving between
 * views already seen spends no request of the key's limit.
 */
export class ApiClient {
  private readonly answers = new Map<string, Promise<unknown>>();

  constructor(
    private readonly key: () => string,
    private readonly onRate: (info: RateInfo) => void,
  ) {}

  /** GET `path` with the parameters (empty or undefined ones left out); rejects with an ApiProblem. */
  get<T>(path: string, parameters: Parameters = {}): Promise<T> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(parameters)) {
      if (value !== undefined && value !== "") query.set(name, String(value));
    }
    const url = query.size > 0 ? `${path}?${query.toString()}` : path;
    let answer = this.answers.get(url);
    if (answer === undefined) {
      answer = this.fetchJson(url);
      this.answers.set(url, answer);
      // A failure is not kept: the same view asked again (after a new key, or the limit's reset) retries.
      answer.catch(() => this.answers.delete(url));
    }
    return answer as Promise<T>;
  }

  /** Forgets every answer (a new key may see other limits). */
  clear(): void {
    this.answers.clear();
  }

  private async fetchJson(url: string): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(url, { headers: { "X-Api-Key": this.key(), Accept: "application/json" } });
    } catch {
      throw new ApiProblem(
        0,
        "NETWORK",
        "The server could not be reached. Check the connection and try again.",
      );
    }
    const limit = res.headers.get("X-RateLimit-Limit");
    if (limit !== null) {
      this.onRate({
        limit: Number(limit),
        remaining: Number(res.headers.get("X-RateLimit-Remaining") ?? 0),
        resetSeconds: Number(res.headers.get("X-RateLimit-Reset") ?? 0),
      });
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.ok && body !== undefined) return body;
    throw problemOf(res.status, body);
  }
}

function problemOf(status: number, body: unknown): ApiProblem {
  const gateway = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (gateway?.code) return new ApiProblem(status, gateway.code, gateway.message ?? gateway.code);
  const first = (body as { errors?: Array<{ code?: string; detail?: string; title?: string }> } | undefined)
    ?.errors?.[0];
  if (first) return new ApiProblem(status, first.code ?? "ERROR", first.detail ?? first.title ?? "");
  return new ApiProblem(status, "ERROR", `The server answered ${status}.`);
}
