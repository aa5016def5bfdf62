import type { CountAnswer } from "./api-client.js";
import { countTableHtml, sizeBars } from "./count-table.js";
import {
  defaultRange,
  type ExplorerContext,
  fill,
  loadingHtml,
  rangeFormHtml,
  readRangeForm,
} from "./explorer-context.js";
import { escapeHtml, formatCount } from "./html-text.js";
import { stateHref } from "./url-state.js";

const COUNTS = "/v0/dnc-complaints/counts";

/** One state over a created range: its cities and its area codes (the 25 with the most complaints each). */
export async function renderStateView(
  ctx: ExplorerContext,
  state: string,
  from: string,
  to: string,
): Promise<void> {
  if (from === "" || to === "") {
    ctx.host.innerHTML = loadingHtml("the newest complaints' dates");
    const range = await defaultRange(ctx);
    if (!ctx.isCurrent()) return;
    if (range === undefined) {
      ctx.host.innerHTML = "<p>This server holds no complaints yet.</p>";
      return;
    }
    ctx.navigate({ view: "state", state, ...range }, true);
    return;
  }
  ctx.host.innerHTML = `<p><a href="${escapeHtml(stateHref({ view: "complaints", from, to }))}">All states</a></p>
<h2 id="view-title">${escapeHtml(state)}: complaints created from ${escapeHtml(from)} to ${escapeHtml(to)}</h2>
${rangeFormHtml(from, to)}
<p data-section="state-total" aria-live="polite"></p>
<div class="two-columns">
<section data-section="cities" aria-labelledby="cities-title"><h3 id="cities-title">Cities</h3>${loadingHtml("cities")}</section>
<section data-section="area-codes" aria-labelledby="area-codes-title"><h3 id="area-codes-title">Area codes</h3>${loadingHtml("area codes")}</section>
</div>`;
  ctx.host.querySelector<HTMLFormElement>("[data-form=range]")!.addEventListener("submit", (event) => {
    event.preventDefault();
    const range = readRangeForm(event.currentTarget as HTMLFormElement);
    if (range) ctx.navigate({ view: "state", state, ...range });
  });
  const filters = { state, created_date_from: from, created_date_to: to, limit: 25 };
  await Promise.all([
    fill(ctx, "cities", ctx.api.get<CountAnswer>(COUNTS, { ...filters, by: "city" }), (target, answer) => {
      const total = answer.meta["record-total"];
      ctx.host.querySelector<HTMLElement>("[data-section=state-total]")!.innerHTML =
        `<strong data-total="${total}">${formatCount(total)}</strong> complaints in ${escapeHtml(state)}; ${formatCount(answer.meta["group-total"])} cities named.`;
      const rows = answer.data.map((group) => ({
        label: group["consumer-city"] === "" ? "(no city given)" : (group["consumer-city"] ?? ""),
        count: group.count,
      }));
      target.innerHTML = `<h3 id="cities-title">Cities</h3>${countTableHtml(`Cities in ${state}`, "City", rows, total)}`;
      sizeBars(target);
    }),
    fill(
      ctx,
      "area-codes",
      ctx.api.get<CountAnswer>(COUNTS, { ...filters, by: "area_code" }),
      (target, answer) => {
        const rows = answer.data.map((group) => ({
          label: group["consumer-area-code"] === "" ? "(none given)" : (group["consumer-area-code"] ?? ""),
          count: group.count,
        }));
        target.innerHTML = `<h3 id="area-codes-title">Area codes</h3>${countTableHtml(`Area codes in ${state}`, "Area code", rows, answer.meta["record-total"])}`;
        sizeBars(target);
      },
    ),
  ]);
}
