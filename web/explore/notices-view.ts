import type { CountAnswer } from "./api-client.js";
import { type ExplorerContext, fill, loadingHtml } from "./explorer-context.js";
import { escapeHtml, formatCount } from "./html-text.js";
import { stateHref } from "./url-state.js";

const NOTICES = "/v0/hsr-early-termination-notices";
const PAGE_SIZE = 20;

interface NoticeDocument {
  data: Array<{
    id: string;
    links: { self: { href: string } };
    attributes: {
      title: string;
      date: string | null;
      "acquiring-party": string | null;
      "acquired-party": string | null;
      "transaction-number": string;
    };
  }>;
  meta: { count: number };
}

/**
 * The filter parameters (Drupal's grammar) for notices whose title, acquiring party or acquired
 * party contains `query` (any case), granted in `year`; empty values filter nothing.
 */
export function noticeFilters(query: string, year: string): Record<string, string> {
  const filters: Record<string, string> = {};
  const words = query.trim();
  if (words !== "") {
    filters["filter[party][group][conjunction]"] = "OR";
    for (const [key, path] of [
      ["in_title", "title"],
      ["by_acquiring", "acquiring-party"],
      ["by_acquired", "acquired-party"],
    ] as const) {
      filters[`filter[${key}][condition][path]`] = path;
      filters[`filter[${key}][condition][operator]`] = "CONTAINS";
      filters[`filter[${key}][condition][value]`] = words;
      filters[`filter[${key}][condition][memberOf]`] = "party";
    }
  }
  if (year !== "") {
    filters["filter[year][condition][path]"] = "date";
    filters["filter[year][condition][operator]"] = "STARTS_WITH";
    filters["filter[year][condition][value]"] = year;
  }
  return filters;
}

/** Early-termination notices by party or title and by year, newest first, 20 a page. */
export async function renderNoticesView(
  ctx: ExplorerContext,
  query: string,
  year: string,
  page: number,
): Promise<void> {
  ctx.host.innerHTML = `<h2 id="view-title">Early-termination notices</h2>
<form class="notices-form" data-form="notices" role="search">
<div><label for="notice-query">Party or title contains</label> <input type="search" id="notice-query" name="q" value="${escapeHtml(query)}" maxlength="200"></div>
<div><label for="notice-year">Year granted</label> <select id="notice-year" name="year"><option value="">Any year</option>${year === "" ? "" : `<option value="${escapeHtml(year)}" selected>${escapeHtml(year)}</option>`}</select></div>
<button type="submit">Search</button>
</form>
<section data-section="notices" aria-labelledby="notices-title"><h3 id="notices-title">Notices</h3>${loadingHtml("notices")}</section>`;
  const form = ctx.host.querySelector<HTMLFormElement>("[data-form=notices]")!;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    ctx.navigate({
      view: "notices",
      query: String(data.get("q") ?? ""),
      year: String(data.get("year") ?? ""),
      page: 1,
    });
  });
  const years = ctx.api.get<CountAnswer>(`${NOTICES}/counts`, { by: "year", sort: "key", limit: 1000 });
  years.then(
    (answer) => {
      if (!ctx.isCurrent()) return;
      const select = form.querySelector<HTMLSelectElement>("#notice-year")!;
      const options = answer.data
        .filter((group) => group.year !== null && group.year !== undefined)
        .reverse()
        .map(
          (group) =>
            `<option value="${escapeHtml(String(group.year))}"${group.year === year ? " selected" : ""}>${escapeHtml(String(group.year))} (${formatCount(group.count)})</option>`,
        )
        .join("");
      select.innerHTML = `<option value="">Any year</option>${options}`;
    },
    () => {},
  );
  const list = ctx.api.get<NoticeDocument>(NOTICES, {
    ...noticeFilters(query, year),
    sort: "-date,-created",
    "page[limit]": PAGE_SIZE,
    "page[offset]": (page - 1) * PAGE_SIZE,
  });
  await fill(ctx, "notices", list, (target, document) => {
    const total = document.meta.count;
    const first = (page - 1) * PAGE_SIZE + 1;
    const items = document.data
      .map((notice) => {
        const attributes = notice.attributes;
        const parties = [
          attributes["acquiring-party"] ? `Acquiring: ${escapeHtml(attributes["acquiring-party"])}` : "",
          attributes["acquired-party"] ? `Acquired: ${escapeHtml(attributes["acquired-party"])}` : "",
        ]
          .filter((text) => text !== "")
          .join("; ");
        const json = `${notice.links.self.href}${notice.links.self.href.includes("?") ? "&" : "?"}api_key=DEMO_KEY`;
        return `<li data-notice="${escapeHtml(notice.id)}"><p class="notice-title">${escapeHtml(attributes.title)}</p><p class="notice-facts">Granted: ${escapeHtml(attributes.date ?? "no date")}${parties ? `. ${parties}` : ""}. <a href="${escapeHtml(json)}">JSON<span class="visually-hidden"> of notice ${escapeHtml(attributes["transaction-number"])}</span></a></p></li>`;
      })
      .join("");
    const pager = [
      page > 1
        ? `<a href="${escapeHtml(stateHref({ view: "notices", query, year, page: page - 1 }))}" rel="prev">Newer</a>`
        : "",
      first + document.data.length - 1 < total
        ? `<a href="${escapeHtml(stateHref({ view: "notices", query, year, page: page + 1 }))}" rel="next">Older</a>`
        : "",
    ]
      .filter((link) => link !== "")
      .join(" · ");
    const summary =
      total === 0
        ? `<p class="summary"><strong data-total="0">No notices</strong> match.</p>`
        : `<p class="summary"><strong data-total="${total}">${formatCount(total)}</strong> notice${total === 1 ? "" : "s"} match; ${formatCount(first)} to ${formatCount(first + document.data.length - 1)}, newest first. JSON links open with DEMO_KEY (your own key is never put in a link).</p>`;
    target.innerHTML = `<h3 id="notices-title">Notices</h3>${summary}<ol class="notice-list" start="${first}">${items}</ol>${pager ? `<nav aria-label="More notices" class="pager">${pager}</nav>` : ""}`;
  });
}
