const escapes: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => escapes[character]!);
}

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
