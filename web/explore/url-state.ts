/**
 * Each view of the explorer is described entirely by its URL's query (`?view=phone&number=...`),
 * so every view can be bookmarked and shared. The API key is never part of it.
 */
export type ViewState =
  | { view: "complaints"; from: string; to: string }
  | { view: "state"; state: string; from: string; to: string }
  | { view: "phone"; number: string }
  | { view: "notices"; query: string; year: string; page: number };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The state a query string describes; unknown or malformed values fall back to defaults ("" = not chosen). */
export function readState(search: string): ViewState {
  const params = new URLSearchParams(search);
  const day = (name: string) => {
    const value = params.get(name) ?? "";
    return DAY.test(value) ? value : "";
  };
  switch (params.get("view")) {
    case "state":
      return { view: "state", state: params.get("state") ?? "", from: day("from"), to: day("to") };
    case "phone":
      return { view: "phone", number: (params.get("number") ?? "").replace(/\D/g, "") };
    case "notices": {
      const page = Number.parseInt(params.get("page") ?? "1", 10);
      const year = params.get("year") ?? "";
      return {
        view: "notices",
        query: params.get("q") ?? "",
        year: /^\d{4}$/.test(year) ? year : "",
        page: Number.isFinite(page) && page >= 1 ? page : 1,
      };
    }
    default:
      return { view: "complaints", from: day("from"), to: day("to") };
  }
}

/** The query string (with `?`) of a state; empty values are left out. */
export function stateHref(state: ViewState): string {
  const params = new URLSearchParams();
  params.set("view", state.view);
  const add = (name: string, value: string) => {
    if (value !== "") params.set(name, value);
  };
  switch (state.view) {
    case "complaints":
      add("from", state.from);
      add("to", state.to);
      break;
    case "state":
      add("state", state.state);
      add("from", state.from);
      add("to", state.to);
      break;
    case "phone":
      add("number", state.number);
      break;
    case "notices":
      add("q", state.query);
      add("year", state.year);
      if (state.page > 1) params.set("page", String(state.page));
      break;
  }
  return `?${params.toString()}`;
}
