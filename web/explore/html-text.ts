// One escaping for the server's pages and the explorer's (esbuild bundles it from the sources).
export { escapeHtml } from "../../src/domain/html-text.js";

const integer = new Intl.NumberFormat("en-US");
const percent = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

/** 1234567 as `1,234,567`. */
export function formatCount(value: number): string {
  return integer.format(value);
}

/** A share of a whole as `12.3 %` (`-` when the whole is 0). */
export function formatShare(part: number, whole: number): string {
  return whole === 0 ? "-" : `${percent.format((part / whole) * 100)} %`;
}
