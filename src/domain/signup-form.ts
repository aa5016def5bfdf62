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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ACCEPTED = new Set(["true", "on", "1", "yes"]);

/**
 * Validates a submitted sign-up (form fields or JSON members), throwing INVALID_FIELD naming the
 * first field at fault.
 */
export function parseSignup(body: unknown): Signup {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError("INVALID_FIELD", { detail: "Send the sign-up as a form or a JSON object." });
  }
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!(name in SIGNUP_FIELDS)) {
      throw fieldError(name, `Unknown field '${name}'. Fields: ${Object.keys(SIGNUP_FIELDS).join(", ")}.`);
    }
  }
  const text = (name: keyof typeof SIGNUP_FIELDS, maxLength: number, required: boolean): string => {
    const value = fields[name];
    if (value === undefined || value === null || value === "") {
      if (required) throw fieldError(name, `${SIGNUP_FIELDS[name]} is required.`);
      return "";
    }
    if (typeof value !== "string") throw fieldError(name, `${SIGNUP_FIELDS[name]} must be text.`);
    const trimmed = value.trim();
    if (required && trimmed === "") throw fieldError(name, `${SIGNUP_FIELDS[name]} is required.`);
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
  const terms = fields.terms_and_conditions;
  if (!(terms === true || (typeof terms === "string" && ACCEPTED.has(terms.toLowerCase())))) {
    throw fieldError("terms_and_conditions", "You must accept the terms of service to get a key.");
  }
  return { firstName, lastName, email, useText };
}

function fieldError(field: string, detail: string): ApiError {
  return new ApiError("INVALID_FIELD", { pointer: `/${field}`, detail });
}
