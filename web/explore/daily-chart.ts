import uPlot from "uplot";
import { type DailyPoint, dayMillis } from "./daily-series.js";
import { escapeHtml, formatCount, formatShare } from "./html-text.js";

const charts = new WeakMap<HTMLElement, { plot: uPlot; observer: ResizeObserver }>();
const CHART_HEIGHT = 260;
/**
 * Up to a year, the table beside the chart is open; a longer one starts closed: laying out
 * 3,000 rows takes Chromium about half a second, which the view need not wait for.
 */
const OPEN_TABLE_DAYS = 366;

/**
 * Complaints per day (left axis) and the robocall share in percent (right axis) as a uPlot line
 * chart, one point per day, next to a table of the same figures (for screen readers, and to read
 * exact values; closed at first beyond a year of days, see OPEN_TABLE_DAYS). `host` is emptied first; its chart is drawn again when its width changes.
 */
export function renderDailyChart(host: HTMLElement, points: readonly DailyPoint[], caption: string): void {
  destroyChart(host);
  const rows = points
    .map(
      (point) =>
        `<tr><th scope="row">${point.day}</th><td class="number">${formatCount(point.total)}</td><td class="number">${formatCount(point.robocalls)}</td><td class="number">${formatShare(point.robocalls, point.total)}</td></tr>`,
    )
    .join("");
  host.innerHTML = `<div class="chart-and-table">
<figure class="chart" data-points="${points.length}"><figcaption>${escapeHtml(caption)}</figcaption><div class="chart-canvas" role="img" aria-label="${escapeHtml(`${caption}: line chart; the table beside it has the same figures`)}"></div></figure>
<details class="daily-details"${points.length > OPEN_TABLE_DAYS ? "" : " open"}><summary>Table of the ${formatCount(points.length)} days</summary><div class="table-wrap daily-table" tabindex="0" role="region" aria-label="${escapeHtml(`${caption}, data table`)}"><table><caption>The same, per day</caption><thead><tr><th scope="col">Day</th><th scope="col" class="number">Complaints</th><th scope="col" class="number">Robocalls</th><th scope="col" class="number">Robocall share</th></tr></thead><tbody>${rows}</tbody></table></div></details>
</div>`;
  const canvas = host.querySelector<HTMLElement>(".chart-canvas")!;
  const xs = points.map((point) => dayMillis(point.day) / 1000);
  const totals = points.map((point) => point.total);
  const shares = points.map((point) => (point.total === 0 ? null : (point.robocalls / point.total) * 100));
  const plot = new uPlot(
    {
      width: Math.max(260, canvas.clientWidth),
      height: CHART_HEIGHT,
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
      scales: {
        // One day alone would give the axis no width: a day either side.
        x: {
          time: true,
          range: (_plot, min, max) => (min === max ? [min - 86_400, max + 86_400] : [min, max]),
        },
        y: { range: (_plot, _min, max) => [0, Math.max(1, max) * 1.1] },
        share: { range: [0, 100] },
      },
      cursor: { drag: { x: false, y: false } },
      series: [
        {
          label: "Day",
          value: (_plot, value) => (value == null ? "" : new Date(value * 1000).toISOString().slice(0, 10)),
        },
        {
          label: "Complaints",
          stroke: "#1a4480",
          width: 2,
          fill: "rgba(26, 68, 128, 0.08)",
          points: { show: points.length <= 62 },
          value: (_plot, value) => (value == null ? "" : formatCount(value)),
        },
        {
          label: "Robocall share",
          scale: "share",
          stroke: "#b04a00",
          width: 1.5,
          points: { show: false },
          value: (_plot, value) => (value == null ? "" : `${value.toFixed(1)} %`),
        },
      ],
      axes: [
        {},
        { size: 60, values: (_plot, values) => values.map((value) => formatCount(value)) },
        {
          scale: "share",
          side: 1,
          size: 50,
          grid: { show: false },
          values: (_plot, values) => values.map((value) => `${value} %`),
        },
      ],
    },
    [xs, totals, shares],
    canvas,
  );
  const observer = new ResizeObserver(() => {
    const width = Math.max(260, canvas.clientWidth);
    if (width !== plot.width) plot.setSize({ width, height: CHART_HEIGHT });
  });
  observer.observe(canvas);
  charts.set(host, { plot, observer });
}

/** Removes the chart drawn in `host`, if any (its resize observer too). */
export function destroyChart(host: HTMLElement): void {
  const chart = charts.get(host);
  if (chart === undefined) return;
  chart.observer.disconnect();
  chart.plot.destroy();
  charts.delete(host);
}
