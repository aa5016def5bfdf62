import type { CountAnswer } from "./api-client.js";
import { countTableHtml, sizeBars } from "./count-table.js";
import { renderDailyChart } from "./daily-chart.js";
import { dailySeries } from "./daily-series.js";
import {
  defaultRange,
  type ExplorerContext,
  fill,
  loadingHtml,
  rangeFormHtml,
  readRangeForm,
} from "./explorer-context.js";
import { escapeHtml, formatCount, formatShare } from "./html-text.js";
import { mappedStates, stateMapHtml } from "./state-map.js";
import { stateHref } from "./url-state.js";

const COUNTS = "/v0/dnc-complaints/counts";

/**
 * Complaints over a created range: per day with the robocall share (chart and table), by state
 * (map and table; each state leads to its cities and area codes), the top subjects and the top
 * reported numbers. Four requests, made together.
 */
export async function renderComplaintsView(ctx: ExplorerContext, from: string, to: string): Promise<void> {
  if (from === "" || to === "") {
    ctx.host.innerHTML = loadingHtml("the newest complaints' dates");
    const range = await defaultRange(ctx);
    if (!ctx.isCurrent()) return;
    if (range === undefined) {
      ctx.host.innerHTML = "<p>This server holds no complaints yet.</p>";
      return;
    }
    ctx.navigate({ view: "complaints", ...range }, true);
    return;
  }
  ctx.host.innerHTML = `<h2 id="view-title">Complaints created from ${escapeHtml(from)} to ${escapeHtml(to)}</h2>
${rangeFormHtml(from, to)}
<section data-section="daily" aria-labelledby="daily-title"><h3 id="daily-title">Complaints per day</h3>${loadingHtml("complaints per day")}</section>
<section data-section="states" aria-labelledby="states-title"><h3 id="states-title">By state</h3>${loadingHtml("the map")}</section>
<div class="two-columns">
<section data-section="subjects" aria-labelledby="subjects-title"><h3 id="subjects-title">Top subjects</h3>${loadingHtml("subjects")}</section>
<section data-section="numbers" aria-labelledby="numbers-title"><h3 id="numbers-title">Top reported numbers</h3>${loadingHtml("numbers")}</section>
</div>`;
  ctx.host.querySelector<HTMLFormElement>("[data-form=range]")!.addEventListener("submit", (event) => {
    event.preventDefault();
    const range = readRangeForm(event.currentTarget as HTMLFormElement);
    if (range) ctx.navigate({ view: "complaints", ...range });
  });
  const range = { created_date_from: from, created_date_to: to };
  const count = (parameters: Record<string, string | number>) =>
    ctx.api.get<CountAnswer>(COUNTS, { ...range, ...parameters });
  await Promise.all([
    fill(
      ctx,
      "daily",
      count({ by: "created_date,is_robocall", sort: "key", limit: 100000 }),
      (target, answer) => {
        const points = dailySeries(answer.data, from, to);
        const robocalls = points.reduce((sum, point) => sum + point.robocalls, 0);
        const total = answer.meta["record-total"];
        target.innerHTML = `<h3 id="daily-title">Complaints per day</h3><p class="summary"><strong data-total="${total}">${formatCount(total)}</strong> complaints over ${formatCount(points.length)} days; robocalls: ${formatShare(robocalls, total)}.</p><div class="daily"></div>`;
        renderDailyChart(
          target.querySelector<HTMLElement>(".daily")!,
          points,
          "Complaints per day and robocall share",
        );
      },
    ),
    fill(ctx, "states", count({ by: "state", limit: 1000 }), (target, answer) => {
      const counts = new Map<string, number>();
      for (const group of answer.data) {
        const name = group["consumer-state"] ?? "";
        counts.set(name, (counts.get(name) ?? 0) + group.count);
      }
      const drawn = mappedStates();
      const hrefOf = (state: string) => stateHref({ view: "state", state, from, to });
      const rows = answer.data.map((group) => {
        const name = group["consumer-state"] ?? "";
        return {
          label: name === "" ? "(no state given)" : drawn.has(name) ? name : `${name} (not on the map)`,
          count: group.count,
          href: name === "" ? undefined : hrefOf(name),
        };
      });
      target.innerHTML = `<h3 id="states-title">By state</h3><p>Darker states had more complaints. Choose a state (click, or Tab and Enter) for its cities and area codes.</p><div class="map-and-table"><div class="map">${stateMapHtml(counts, hrefOf)}</div><div class="states-table">${countTableHtml("Complaints by state", "State", rows, answer.meta["record-total"])}</div></div>`;
      sizeBars(target);
    }),
    fill(ctx, "subjects", count({ by: "subject", limit: 10 }), (target, answer) => {
      const rows = answer.data.map((group) => ({
        label: group.subject === "" ? "(no subject given)" : (group.subject ?? ""),
        count: group.count,
      }));
      target.innerHTML = `<h3 id="subjects-title">Top subjects</h3>${countTableHtml("Top subjects", "Subject", rows, answer.meta["record-total"])}`;
      sizeBars(target);
    }),
    // One more than shown: complaints without a number form a group that is left out.
    fill(ctx, "numbers", count({ by: "company_phone_number", limit: 11 }), (target, answer) => {
      const rows = answer.data
        .filter((group) => group["company-phone-number"] !== "")
        .slice(0, 10)
        .map((group) => {
          const number = group["company-phone-number"] ?? "";
          return { label: number, count: group.count, href: stateHref({ view: "phone", number }) };
        });
      target.innerHTML = `<h3 id="numbers-title">Top reported numbers</h3>${countTableHtml("Top reported numbers", "Number", rows, answer.meta["record-total"])}`;
      sizeBars(target);
    }),
  ]);
}
