import type { ApiClient } from "./api-client.js";
import { escapeHtml } from "./html-text.js";
import type { ViewState } from "./url-state.js";

/** What a view needs from the explorer around it. */
export interface ExplorerContext {
  api: ApiClient;
  /** Where the view draws itself. */
  host: HTMLElement;
  /** Shows another state (a new history entry, or `replace` the current one). */
  navigate(state: ViewState, replace?: boolean): void;
  /** Tells the visitor about a failed request (429 and key problems prominently). */
  report(problem: unknown): void;
  /** False once another view has started drawing: late answers of this one are dropped. */
  isCurrent(): boolean;
}

/** The status document's part the explorer reads. */
export interface StatusDocument {
  data: Array<{ id: string; attributes: { "record-count": number; "newest-created-date": string | null } }>;
}

/** A section's content while its answer is awaited: announced politely, with a spinner. */
export function loadingHtml(what: string): string {
  return `<p class="loading" role="status"><span class="spinner" aria-hidden="true"></span>Loading ${escapeHtml(what)}…</p>`;
}

/** The section `name` of the view (an element with `data-section`), marked busy or not. */
export function section(host: HTMLElement, name: string): HTMLElement {
  return host.querySelector<HTMLElement>(`[data-section="${name}"]`)!;
}

/**
 * Draws a section once its answer arrives, and records how long drawing took (after the data
 * arrived, through the next frame) as the performance measure `render:NAME`; a failed answer
 * is shown in the section and reported.
 */
export async function fill<T>(
  ctx: ExplorerContext,
  name: string,
  answer: Promise<T>,
  draw: (target: HTMLElement, value: T) => void,
): Promise<void> {
  const target = section(ctx.host, name);
  target.setAttribute("aria-busy", "true");
  let value: T;
  try {
    value = await answer;
  } catch (problem) {
    if (!ctx.isCurrent()) return;
    target.removeAttribute("aria-busy");
    target.innerHTML = `<p class="error">Could not load this part: ${escapeHtml(problem instanceof Error ? problem.message : String(problem))}</p>`;
    ctx.report(problem);
    return;
  }
  if (!ctx.isCurrent()) return;
  const start = performance.now();
  draw(target, value);
  target.removeAttribute("aria-busy");
  await new Promise((resolve) => requestAnimationFrame(resolve));
  performance.measure(`render:${name}`, { start, end: performance.now() });
}

/** The newest complaint's day and a default range: the 30 days ending on it. */
export async function defaultRange(ctx: ExplorerContext): Promise<{ from: string; to: string } | undefined> {
  const status = await ctx.api.get<StatusDocument>("/v0/status");
  const newest = status.data.find((collection) => collection.id === "dnc-complaints")?.attributes[
    "newest-created-date"
  ];
  if (!newest) return undefined;
  const to = newest.slice(0, 10);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
  return { from, to };
}

/** The range form shared by the complaint views: two labelled dates and a button. */
export function rangeFormHtml(from: string, to: string): string {
  return `<form class="range-form" data-form="range">
<div><label for="range-from">From (created)</label> <input type="date" id="range-from" name="from" value="${escapeHtml(from)}" required></div>
<div><label for="range-to">To (created)</label> <input type="date" id="range-to" name="to" value="${escapeHtml(to)}" required></div>
<button type="submit">Show</button>
</form>`;
}

/** The dates of the range form, or undefined (with a message shown) when `from` is after `to`. */
export function readRangeForm(form: HTMLFormElement): { from: string; to: string } | undefined {
  const data = new FormData(form);
  const from = String(data.get("from") ?? "");
  const to = String(data.get("to") ?? "");
  const toInput = form.querySelector<HTMLInputElement>("#range-to")!;
  if (from > to) {
    toInput.setCustomValidity("The last day must not be before the first.");
    toInput.reportValidity();
    return undefined;
  }
  toInput.setCustomValidity("");
  return { from, to };
}
