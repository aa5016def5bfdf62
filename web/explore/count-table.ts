import { escapeHtml, formatCount, formatShare } from "./html-text.js";

export interface CountRow {
  /** The group's value as shown (already readable: `(none)` for an empty one). */
  label: string;
  count: number;
  /** A link for the label (a view of the explorer), if any. */
  href?: string;
}

/**
 * A table of groups and their counts, with each group's share of `total` and a bar drawn in CSS
 * (its width set by the script, as the pages allow no inline style).
 */
export function countTableHtml(
  caption: string,
  heading: string,
  rows: readonly CountRow[],
  total: number,
): string {
  if (rows.length === 0) return `<p>${escapeHtml(caption)}: no complaints.</p>`;
  const max = Math.max(...rows.map((row) => row.count));
  const body = rows
    .map((row) => {
      const label = row.href
        ? `<a href="${escapeHtml(row.href)}">${escapeHtml(row.label)}</a>`
        : escapeHtml(row.label);
      const width = max === 0 ? 0 : Math.round((row.count / max) * 100);
      return `<tr><th scope="row">${label}</th><td class="number">${formatCount(row.count)}</td><td class="number share">${formatShare(row.count, total)}<span class="bar" data-width="${width}" aria-hidden="true"></span></td></tr>`;
    })
    .join("");
  return `<div class="table-wrap"><table class="count-table"><caption>${escapeHtml(caption)}</caption><thead><tr><th scope="col">${escapeHtml(heading)}</th><th scope="col" class="number">Complaints</th><th scope="col" class="number">Share</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

/** Sets the bars' widths (CSSOM, which the Content-Security-Policy allows, unlike style attributes). */
export function sizeBars(root: ParentNode): void {
  for (const bar of root.querySelectorAll<HTMLElement>(".bar[data-width]")) {
    bar.style.width = `${bar.dataset.width}%`;
  }
}
