/**
 * The explorer (/explore): views over both collections drawn from this server's public API, each
 * described by its URL (url-state.ts). The key is DEMO_KEY unless the visitor enters one, which
 * stays in this browser's localStorage and travels only in the X-Api-Key header.
 */
import "uplot/dist/uPlot.min.css";
import "../styles/explore.css";
import { ApiClient, ApiProblem, type RateInfo } from "./api-client.js";
import { renderComplaintsView } from "./complaints-view.js";
import { destroyChart } from "./daily-chart.js";
import type { ExplorerContext } from "./explorer-context.js";
import { escapeHtml, formatCount } from "./html-text.js";
import { renderNoticesView } from "./notices-view.js";
import { renderPhoneView } from "./phone-view.js";
import { renderStateView } from "./state-view.js";
import { readState, stateHref, type ViewState } from "./url-state.js";

const DEMO_KEY = "DEMO_KEY";
const KEY_STORAGE = "ftcapi.apiKey";

const host = document.getElementById("view")!;
const problemBox = document.getElementById("api-problem")!;
const keyStatus = document.getElementById("key-status")!;
const keyInput = document.getElementById("api-key") as HTMLInputElement;

function storedKey(): string {
  try {
    return localStorage.getItem(KEY_STORAGE) ?? "";
  } catch {
    return "";
  }
}

function setStoredKey(key: string): void {
  try {
    if (key === "") localStorage.removeItem(KEY_STORAGE);
    else localStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage refused (private mode): the key lasts for this page only.
  }
  sessionKey = key;
}

let sessionKey = storedKey();
let lastRate: RateInfo | undefined;

function showKeyStatus(): void {
  const using = sessionKey === "" ? "Using DEMO_KEY" : "Using your own key";
  const rate =
    lastRate === undefined
      ? ""
      : ` ${formatCount(lastRate.remaining)} of ${formatCount(lastRate.limit)} requests left; the count resets in ${formatCount(Math.ceil(lastRate.resetSeconds / 60))} minutes.`;
  keyStatus.textContent = `${using}.${rate}`;
}

const api = new ApiClient(
  () => sessionKey || DEMO_KEY,
  (info) => {
    lastRate = info;
    showKeyStatus();
  },
);

function report(problem: unknown): void {
  if (!(problem instanceof ApiProblem)) return;
  let advice = "";
  if (problem.code === "OVER_RATE_LIMIT" || problem.status === 429) {
    advice =
      sessionKey === ""
        ? ` DEMO_KEY allows few requests from one address. <a href="/signup">Get a key of your own</a> and enter it above.`
        : " Wait until the limit resets, or ask the server's operator for a higher limit.";
  } else if (problem.code === "API_KEY_INVALID" || problem.code === "API_KEY_DISABLED") {
    advice = ` Check the key entered above, or <button type="button" class="secondary" id="problem-demo-key">use DEMO_KEY</button>.`;
  } else if (problem.code === "API_KEY_MISSING") {
    advice = " Enter a key above, or use DEMO_KEY.";
  } else {
    return;
  }
  const title =
    problem.status === 429
      ? "Too many requests"
      : problem.code === "API_KEY_DISABLED"
        ? "Key disabled"
        : "Key not accepted";
  problemBox.innerHTML = `<p><strong>${title}</strong> (${escapeHtml(problem.code)}): ${escapeHtml(problem.message)}${advice}</p>`;
  problemBox.dataset.code = problem.code;
  problemBox.hidden = false;
  document.getElementById("problem-demo-key")?.addEventListener("click", () => useKey(""));
}

function clearProblem(): void {
  problemBox.hidden = true;
  problemBox.textContent = "";
  delete problemBox.dataset.code;
}

function useKey(key: string): void {
  setStoredKey(key.trim());
  keyInput.value = "";
  lastRate = undefined;
  api.clear();
  showKeyStatus();
  render(readState(location.search));
}

let generation = 0;

function render(state: ViewState, moveFocus = false): void {
  generation += 1;
  const mine = generation;
  clearProblem();
  for (const chart of host.querySelectorAll<HTMLElement>(".daily")) destroyChart(chart);
  delete host.dataset.ready;
  markTab(state.view === "state" ? "complaints" : state.view);
  const ctx: ExplorerContext = {
    api,
    host,
    navigate,
    report,
    isCurrent: () => generation === mine,
  };
  const drawn =
    state.view === "complaints"
      ? renderComplaintsView(ctx, state.from, state.to)
      : state.view === "state"
        ? renderStateView(ctx, state.state, state.from, state.to)
        : state.view === "phone"
          ? renderPhoneView(ctx, state.number)
          : renderNoticesView(ctx, state.query, state.year, state.page);
  drawn
    .catch((problem) => {
      if (generation !== mine) return;
      host.innerHTML = `<p class="error">${escapeHtml(problem instanceof Error ? problem.message : String(problem))}</p>`;
      report(problem);
    })
    .finally(() => {
      if (generation !== mine) return;
      const title = document.getElementById("view-title");
      document.title = `${title?.textContent ?? "Explore"} · ftcapi explorer`;
      if (moveFocus && title) {
        title.tabIndex = -1;
        title.focus();
      }
      host.dataset.ready = state.view;
    });
}

function navigate(state: ViewState, replace = false): void {
  const href = stateHref(state);
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  render(state, !replace);
}

function markTab(view: string): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>(".view-tabs a")) {
    if (new URLSearchParams(link.search).get("view") === view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

// Links to other views of the explorer are followed without reloading the page.
document.addEventListener("click", (event) => {
  if (
    event.defaultPrevented ||
    event.button !== 0 ||
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    event.altKey
  )
    return;
  const link = (event.target as Element | null)?.closest?.("a");
  if (!link) return;
  const href = link.getAttribute("href") ?? "";
  const url = new URL(href, location.href);
  if (url.origin !== location.origin || url.pathname !== location.pathname || link.target) return;
  event.preventDefault();
  navigate(readState(url.search));
});

window.addEventListener("popstate", () => render(readState(location.search)));

document.getElementById("key-form")!.addEventListener("submit", (event) => {
  event.preventDefault();
  useKey(keyInput.value);
});
document.getElementById("use-demo-key")!.addEventListener("click", () => useKey(""));

for (const element of document.querySelectorAll<HTMLElement>("[data-needs-script]")) element.hidden = false;
showKeyStatus();
render(readState(location.search));
