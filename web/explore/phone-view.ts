import type { CountAnswer } from "./api-client.js";
import { countTableHtml, sizeBars } from "./count-table.js";
import { renderDailyChart } from "./daily-chart.js";
import { dailySeries } from "./daily-series.js";
import { type ExplorerContext, fill, loadingHtml } from "./explorer-context.js";
import { escapeHtml, formatCount, formatShare } from "./html-text.js";

const COUNTS = "/v0/dnc-complaints/counts";

/**
 * A reported number: its complaints per day (from its first to its last, robocall share too), the
 * states and subjects of its complaints. Three requests.
 */
export async function renderPhoneView(ctx: ExplorerContext, number: string): Promise<void> {
  ctx.host.innerHTML = `<h2 id="view-title">Look up a phone number</h2>
<form class="phone-form" data-form="phone" role="search">
<label for="phone-number">Reported number (digits only, as complaints give it: 10 digits for US numbers)</label>
<div class="inline-field"><input type="text" id="phone-number" name="number" inputmode="numeric" pattern="[0-9]{1,20}" autocomplete="off" required value="${escapeHtml(number)}"> <button type="submit">Look up</button></div>
</form>
${
  number === ""
    ? `<p>Enter a number, or pick one of the top reported numbers in the <a href="?view=complaints">complaints view</a>.</p>`
    : `<section data-section="phone-daily" aria-labelledby="phone-daily-title"><h3 id="phone-daily-title">Complaints about ${escapeHtml(number)}</h3>${loadingHtml("complaints per day")}</section>
<div class="two-columns">
<section data-section="phone-states" aria-labelledby="phone-states-title"><h3 id="phone-states-title">States</h3>${loadingHtml("states")}</section>
<section data-section="phone-subjects" aria-labelledby="phone-subjects-title"><h3 id="phone-subjects-title">Subjects</h3>${loadingHtml("subjects")}</section>
</div>`
}`;
  ctx.host.querySelector<HTMLFormElement>("[data-form=phone]")!.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = new FormData(event.currentTarget as HTMLFormElement).get("number");
    ctx.navigate({ view: "phone", number: String(value ?? "").replace(/\D/g, "") });
  });
  if (number === "") return;
  const count = (parameters: Record<string, string | number>) =>
    ctx.api.get<CountAnswer>(COUNTS, { company_phone_number: number, ...parameters });
  await Promise.all([
    fill(
      ctx,
      "phone-daily",
      count({ by: "created_date,is_robocall", sort: "key", limit: 100000 }),
      (target, answer) => {
        const total = answer.meta["record-total"];
        const heading = `<h3 id="phone-daily-title">Complaints about ${escapeHtml(number)}</h3>`;
        if (total === 0) {
          target.innerHTML = `${heading}<p class="summary"><strong data-total="0">No complaints</strong> name this number.</p>`;
          return;
        }
        const days = answer.data.map((group) => group["created-date"] ?? "").sort();
        const first = days[0]!;
        const last = days[days.length - 1]!;
        const points = dailySeries(answer.data, first, last);
        const robocalls = points.reduce((sum, point) => sum + point.robocalls, 0);
        target.innerHTML = `${heading}<p class="summary"><strong data-total="${total}">${formatCount(total)}</strong> complaint${total === 1 ? "" : "s"} from ${first} to ${last}; robocalls: ${formatShare(robocalls, total)}.</p><div class="daily"></div>`;
        renderDailyChart(
          target.querySelector<HTMLElement>(".daily")!,
          points,
          `Complaints about ${number} per day`,
        );
      },
    ),
    fill(ctx, "phone-states", count({ by: "state", limit: 60 }), (target, answer) => {
      const rows = answer.data.map((group) => ({
        label: group["consumer-state"] === "" ? "(no state given)" : (group["consumer-state"] ?? ""),
        count: group.count,
      }));
      target.innerHTML = `<h3 id="phone-states-title">States</h3>${countTableHtml(`States of complaints about ${number}`, "State", rows, answer.meta["record-total"])}`;
      sizeBars(target);
    }),
    fill(ctx, "phone-subjects", count({ by: "subject", limit: 20 }), (target, answer) => {
      const rows = answer.data.map((group) => ({
        label: group.subject === "" ? "(no subject given)" : (group.subject ?? ""),
        count: group.count,
      }));
      target.innerHTML = `<h3 id="phone-subjects-title">Subjects</h3>${countTableHtml(`Subjects of complaints about ${number}`, "Subject", rows, answer.meta["record-total"])}`;
      sizeBars(target);
    }),
  ]);
}
