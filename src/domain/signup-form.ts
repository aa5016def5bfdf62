import { ApiError } from "./api-error.js";

/** A validated sign-up: who wants a key and what for. */
export interface Signup {
  firstName: string;
  lastName: string;
  email: string;
  useText: string;
}

/** The form's fields, as api.data.gov's sign-up names them. */
export const SIGNUP_FIELDS = {
  first_name: "First name",
  last_name: "Last name",
  email: "E-mail",
  use_description: "How will you use the API?",
  terms_and_conditions: "I agree to the terms of service",
} as const;

/** A field of the sign-up form. */
export type SignupField = keyof typeof SIGNUP_FIELDS;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ACCEPTED = new Set(["true", "on", "1", "yes"]);

/**
 * Characters that print nothing, or act on a terminal or on the text around them: every Unicode
 * "Other" character (C0 and C1 controls and DEL, format characters such as the bidirectional
 * overrides, lone surrogates, private-use and unassigned code points) and the line and paragraph
 * separators. Zero-width (non-)joiners are format characters that written names need (Persian,
 * Indic scripts, emoji), so they are not among them.
 */
const UNPRINTABLE = /(?!\u200c|\u200d)[\p{C}\p{Zl}\p{Zp}]/u;
/** As UNPRINTABLE, but line breaks (LF, CR) are allowed: multi-line text. */
const UNPRINTABLE_BUT_LINE_BREAKS = /(?!\u200c|\u200d|\n|\r)[\p{C}\p{Zl}\p{Zp}]/u;

/**
 * The first character of `text` that is a control character or otherwise unprintable (see
 * above), as `U+001B`; undefined when every character prints. With `lineBreaks`, LF and CR are
 * allowed.
 */
export function unprintableCharacter(
  text: string,
  options: { lineBreaks?: boolean } = {},
): string | undefined {
  const found = (options.lineBreaks ? UNPRINTABLE_BUT_LINE_BREAKS : UNPRINTABLE).exec(text)?.[0];
  if (found === undefined) return undefined;
  return `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Validates a submitted sign-up (form fields or JSON members), throwing INVALID_FIELD naming the
 * first field at fault: a field this form does not have (checked by own name: `constructor` or
 * `__proto__` are unknown fields like any other), a field given more than once, a value that is
 * not text (the terms may also be JSON `true`; null counts as absent), a control or other
 * unprintable character (line breaks are allowed in the use description only), a missing
 * required field, a value too long, an e-mail that is not an address, terms not accepted.
 */
export function parseSignup(body: unknown): Signup {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError("INVALID_FIELD", { detail: "Send the sign-up as a form or a JSON object." });
  }
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!Object.hasOwn(SIGNUP_FIELDS, name)) {
      throw fieldError(name, `Unknown field '${name}'. Fields: ${Object.keys(SIGNUP_FIELDS).join(", ")}.`);
    }
  }
  const raw = (name: SignupField): unknown => {
    const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (Array.isArray(value)) throw fieldError(name, `${SIGNUP_FIELDS[name]} was given more than once.`);
    if (value !== undefined && value !== null && typeof value !== "string" && name !== "terms_and_conditions")
      throw fieldError(name, `${SIGNUP_FIELDS[name]} must be text.`);
    if (typeof value === "string") {
      const unprintable = unprintableCharacter(value, { lineBreaks: name === "use_description" });
      if (unprintable !== undefined) {
        throw fieldError(
          name,
          `${SIGNUP_FIELDS[name]} must not contain control or other unprintable characters; found ${unprintable}.`,
        );
      }
    }
    return value;
  };
  // Every field's type and characters first, so that the answer names a malformed field before a
  // missing one.
  const values = Object.fromEntries(
    (Object.keys(SIGNUP_FIELDS) as SignupField[]).map((name) => [name, raw(name)]),
  ) as Record<SignupField, unknown>;
  const text = (name: SignupField, maxLength: number, required: boolean): string => {
    const value = values[name] as string | null | undefined;
    const trimmed = (value ?? "").trim();
    if (trimmed === "") {
      if (required) throw fieldError(name, `${SIGNUP_FIELDS[name]} is required.`);
      return "";
    }
    if (trimmed.length > maxLength)
      throw fieldError(name, `${SIGNUP_FIELDS[name]} must be at most ${maxLength} characters.`);
    return trimmed;
  };
  const firstName = text("first_name", 80, true);
  const lastName = text("last_name", 80, true);
  const email = text("email", 254, true);
  if (!EMAIL.test(email))
    throw fieldError("email", `E-mail must be an address such as name@example.org; got '${email}'.`);
  const useText = text("use_description", 1000, false);
  const terms = values.terms_and_conditions;
  if (terms !== undefined && terms !== null && typeof terms !== "string" && typeof terms !== "boolean") {
    throw fieldError("terms_and_conditions", `${SIGNUP_FIELDS.terms_and_conditions} must be text or true.`);
  }
  if (!(terms === true || (typeof terms === "string" && ACCEPTED.has(terms.toLowerCase())))) {
    throw fieldError("terms_and_conditions", "You must accept the terms of service to get a key.");
  }
  return { firstName, lastName, email, useText };
}

function fieldError(field: string, detail: string): ApiError {
  return new ApiError("INVALID_FIELD", { pointer: `/${field}`, detail });
}
