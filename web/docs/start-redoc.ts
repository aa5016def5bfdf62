/**
 * Starts Redoc (its standalone bundle, loaded before this script from this server) on /docs over
 * the server's own /openapi.json, with system fonts; once it has rendered, the plain list of paths
 * (the page's no-JavaScript fallback) is hidden. A file of its own because the pages allow no
 * inline script.
 */
interface RedocGlobal {
  init(
    specUrl: string,
    options: Record<string, unknown>,
    element: HTMLElement,
    callback?: (err?: unknown) => void,
  ): void;
}

const container = document.getElementById("redoc-container");
const redoc = (window as unknown as { Redoc?: RedocGlobal }).Redoc;
if (container && redoc) {
  const fonts = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  redoc.init(
    container.dataset.specUrl ?? "/openapi.json",
    {
      expandResponses: "200",
      jsonSampleExpandLevel: 3,
      hideHostname: false,
      nativeScrollbars: true,
      theme: {
        colors: { primary: { main: "#1a4480" } },
        typography: {
          fontFamily: fonts,
          headings: { fontFamily: fonts },
          code: { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace' },
        },
        sidebar: { width: "260px" },
      },
    },
    container,
    (err) => {
      if (err) return;
      const fallback = document.getElementById("plain-reference");
      if (fallback) fallback.hidden = true;
    },
  );
}
